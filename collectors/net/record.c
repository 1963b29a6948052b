/* record.c — the net collector: the target's sockets (TCP v4/v6, UDP, UNIX) per interval.
 *
 * Two lanes, merged per socket by its inode:
 *   eBPF (net.bpf.c): bytes, calls and errors of every send and receive, TCP state times
 *     (the connect latency), resets, retransmits, refusals and timeouts, aggregated in a
 *     hash map in the kernel (one entry per socket, no event per call). Each poll reads
 *     the map, diffs each socket against its previous reading, and removes the entries of
 *     sockets that are gone (TCP: closed at the poll before; others: idle and no longer in
 *     the fd table), one interval late so that a late error report is still read.
 *   /proc (also with --no-ebpf): the target's fds (/proc/PID/fd, "socket:[INODE]") and its
 *     network namespace's socket tables (/proc/PID/net/{tcp,tcp6,udp,udp6,unix}), matched
 *     by inode: addresses, states, queue sizes, the unix paths; the sockets the eBPF lane
 *     has not seen used (opened before the recording, idle) are listed from here.
 * One NetSockets per interval (possibly empty: zero sockets is a measurement), and one
 * NetError per socket and kind of error that grew in the interval.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collectors/net/net.h"
#include "collectors/net/net.pb-c.h"
#include "collectors/net/net.skel.h"
#include "collectors/net/record.h"
#include "proto/capture.h"
#include "record/bpf_util.h"
#include "record/cgroupfs.h"
#include "record/collector.h"
#include "record/kfeature.h"
#include "record/procfs.h"

struct fd_ino {
	uint64_t inode;
	int fd;
	pid_t pid; /* the process whose fd it is */
};

/* A socket of the eBPF map at a poll. */
struct bsock {
	uint64_t cookie;
	struct net_sock s;
	bool closed_seen; /* it was closed at the previous poll already: remove it now */
};

/* One socket of the interval's message, with the strings its NetSocket points to. */
struct out_sock {
	Ptop__V1__NetSocket m;
	Ptop__V1__NetTraffic tr;
	Ptop__V1__NetQueues q;
	Ptop__V1__NetStateChange ch[NET_MAX_TRANS];
	Ptop__V1__NetStateChange *chp[NET_MAX_TRANS];
	char proto[8], local[112], remote[64], state[16];
};

/* A socket of net_cfails at a poll. */
struct cfail {
	uint64_t inode;
	struct net_cfail c;
	bool gone; /* removed from the map (idle over an interval) */
};

struct net_priv {
	struct net_bpf *skel; /* NULL: the /proc lane only */
	bool no_length;	      /* without sock_send_length/recv_length: no bytes (check()) */
	bool proc;	      /* the /proc lane runs (a process, or a cgroup's members) */
	pid_t *pids;	      /* --cgroup: the subtree's processes at this poll */
	size_t npids, cappids;
	uint64_t *netns;      /* the network namespaces whose tables this poll read */
	size_t nnetns, capnetns;
	struct bsock *prev;   /* the previous poll's map, sorted by cookie */
	size_t nprev;
	struct bsock *cur;
	size_t ncur, capcur;
	struct fd_ino *fds;
	size_t nfds, capfds;
	uint64_t *inodes; /* the fds' inodes, sorted */
	struct procnet_sock *ps;
	size_t nps, capps;
	struct out_sock *out;
	size_t nout, capout;
	struct fd_ino *forgot;	 /* inodes of sockets removed from the map while idle */
	uint64_t *forgot_cookie; /* their cookies (same index) */
	size_t nforgot, capforgot;
	char *buf;
	size_t bufcap;
	uint64_t prev_ns;
	uint64_t prev_full; /* net_counters: map full, at the previous poll */
	uint64_t prev_cfull; /* net_counters: net_cfails full, at the previous poll */
	uint64_t trans_lost; /* state changes beyond the ring, this poll */
	struct cfail *cprev, *ccur; /* net_cfails at the previous poll and now, by inode */
	size_t ncprev, nccur, capccur, capcprev;
	uint64_t *cnt_vals;
	int ncpus;
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static int cmp_cookie(const void *a, const void *b)
{
	uint64_t x = ((const struct bsock *)a)->cookie, y = ((const struct bsock *)b)->cookie;

	return x < y ? -1 : x > y;
}

static int cmp_fd_ino(const void *a, const void *b)
{
	const struct fd_ino *x = a, *y = b;

	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	return x->fd - y->fd;
}

/* Does C's sock_length lane run (check() decided)? */
static bool net_length_lane(const struct collector *c)
{
	const struct collector_lane *l = collector_lane_get(c, "sock_length");

	return l && l->state == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static Ptop__V1__ProbeState net_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	char why[256] = "";

	c->reason[0] = '\0';
	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
	if (ctx->no_ebpf || bpf_util__can_trace(why, sizeof(why)) != 0) {
		if (ctx->pid <= 0 && !ctx->cgroup_dir && !ctx->caps_only) {
			snprintf(c->reason, sizeof(c->reason),
				 "%s, and the /proc lane follows a process or a cgroup",
				 ctx->no_ebpf ? "--no-ebpf" : why);
			return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
		}
		c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
		collector_lane(c, "proc", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
			       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC, "%s", "");
		collector_lane(c, "tcp", ctx->no_ebpf ? PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED
					: PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED,
			       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s",
			       ctx->no_ebpf ? "--no-ebpf" : why);
		collector_lane(c, "sock_length",
			       ctx->no_ebpf ? PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED
					    : PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED,
			       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s",
			       ctx->no_ebpf ? "--no-ebpf" : why);
		snprintf(c->detail, sizeof(c->detail),
			 "/proc lane only (%s): /proc/PID/fd matched by inode to "
			 "/proc/PID/net/{tcp,tcp6,udp,udp6,unix}%s; no bytes, no errors",
			 ctx->no_ebpf ? "--no-ebpf" : why,
			 ctx->cgroup_dir ? " of every process of the cgroup" : "");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	/* the byte counts come from the send/recv length tracepoints, Linux 6.3+: without
	 * them the rest of the eBPF lane runs, and the bytes are not measured */
	collector_lane(c, "proc", ctx->pid > 0 || ctx->cgroup_dir || ctx->caps_only
		       ? PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE
		       : PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED,
		       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC, "%s",
		       ctx->pid > 0 || ctx->cgroup_dir || ctx->caps_only ? "" :
		       "follows a process or a cgroup");
	collector_lane(c, "tcp", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
		       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", "");
	if (kfeature_have(KF_TP_SOCK_SEND_LENGTH, why, sizeof(why)) &&
	    kfeature_have(KF_TP_SOCK_RECV_LENGTH, why, sizeof(why)))
		collector_lane(c, "sock_length", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
			       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", "");
	else
		collector_lane(c, "sock_length", PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED,
			       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF,
			       "bytes, calls and send/receive errors not measured: %s", why);
	snprintf(c->detail, sizeof(c->detail),
		 "tp_btf %sinet_sock_set_state, "
		 "tcp_receive_reset, tcp_send_reset, tcp_retransmit_skb, inet_sk_error_report, "
		 "raw_tp sys_exit (connect), aggregated in kernel (%d sockets)%s",
		 net_length_lane(c) ? "sock_send_length, sock_recv_length, "
				    : "(no sock_send_length, sock_recv_length: bytes not measured) ",
		 NET_MAX_SOCKS,
		 ctx->pid > 0 ? "; /proc/PID/fd + /proc/PID/net/* for queues and paths"
		 : ctx->cgroup_dir
		     ? "; /proc/PID/fd + /proc/PID/net/* of each process of the cgroup"
		     : "");
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void net_stop(struct collector *c)
{
	struct net_priv *p = c->priv;

	if (!p)
		return;
	net_bpf__destroy(p->skel);
	free(p->prev);
	free(p->cur);
	free(p->fds);
	free(p->inodes);
	free(p->ps);
	free(p->out);
	free(p->forgot);
	free(p->forgot_cookie);
	free(p->buf);
	free(p->cnt_vals);
	free(p->cprev);
	free(p->ccur);
	free(p->pids);
	free(p->netns);
	free(p);
	c->priv = NULL;
}

static int net_start(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	struct net_priv *p = calloc(1, sizeof(*p));
	int err;

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	c->priv = p;
	p->proc = ctx->pid > 0 || ctx->cgroup_dir;
	p->prev_ns = rec_now_ns();
	if (c->source != PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF)
		return 0;
	p->ncpus = bpf_util__ncpus();
	if (p->ncpus <= 0 || !(p->cnt_vals = calloc((size_t)p->ncpus, sizeof(uint64_t)))) {
		err = p->ncpus <= 0 ? -EINVAL : -ENOMEM;
		snprintf(c->reason, sizeof(c->reason), "cannot count possible CPUs");
		goto fail;
	}
	bpf_util__open_log(ctx->verbose);
	p->skel = net_bpf__open();
	if (!p->skel) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason), "open net BPF", err);
		goto fail;
	}
	p->skel->rodata->targ_tgid = (__u32)ctx->pid;
	p->skel->rodata->targ_cgid = ctx->cgroup_id;
	p->skel->rodata->targ_cglevel = ctx->cgroup_level;
	p->no_length = !net_length_lane(c);
	if (p->no_length) { /* the sock_length lane: check() said why not */
		bpf_program__set_autoload(p->skel->progs.net_send, false);
		bpf_program__set_autoload(p->skel->progs.net_recv, false);
	}
	err = net_bpf__load(p->skel);
	err = err ?: bpf_util__loaded(p->skel->obj, "net");
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason), "load net BPF", err);
		goto fail;
	}
	err = net_bpf__attach(p->skel);
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason),
				       "attach tp_btf sock/tcp tracepoints", err);
		goto fail;
	}
	return 0;
fail:
	if (p->proc) { /* the /proc lane still runs: the eBPF lanes failed, and say why */
		net_bpf__destroy(p->skel);
		p->skel = NULL;
		c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
		collector_lane(c, "tcp", PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
			       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", c->reason);
		if (net_length_lane(c))
			collector_lane(c, "sock_length", PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
				       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", c->reason);
		snprintf(c->detail, sizeof(c->detail),
			 "/proc lane only (the eBPF lane failed: %.300s): /proc/PID/fd matched by "
			 "inode to /proc/PID/net/{tcp,tcp6,udp,udp6,unix}; no bytes, no errors",
			 c->reason);
		c->reason[0] = '\0';
		return 0;
	}
	c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	net_stop(c);
	return err;
}

/* ------------------------------------------------------------------ /proc lane */

/* The socket fds of process PID appended to P->fds. 0, -ESRCH/-ENOENT when it is gone, or
 * -errno. */
static int read_fds(pid_t pid, struct net_priv *p)
{
	char path[64], link[64];
	struct dirent *de;
	DIR *d;
	ssize_t n;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		uint64_t ino;
		char lp[320];

		if (de->d_name[0] == '.')
			continue;
		snprintf(lp, sizeof(lp), "%s/%s", path, de->d_name);
		n = readlink(lp, link, sizeof(link) - 1);
		if (n < 0)
			continue; /* closed since the listing */
		link[n] = '\0';
		ino = procnet_socket_inode(link);
		if (!ino)
			continue;
		err = grow((void **)&p->fds, &p->capfds, p->nfds + 1, sizeof(*p->fds));
		if (err)
			break;
		p->fds[p->nfds++] = (struct fd_ino){ino, atoi(de->d_name), pid};
	}
	closedir(d);
	return err;
}

/* P->fds sorted by inode, and their inodes into P->inodes. 0 or -ENOMEM. */
static int fds_index(struct net_priv *p)
{
	if (p->nfds)
		qsort(p->fds, p->nfds, sizeof(*p->fds), cmp_fd_ino);
	free(p->inodes);
	p->inodes = calloc(p->nfds ? p->nfds : 1, sizeof(*p->inodes));
	if (!p->inodes)
		return -ENOMEM;
	for (size_t i = 0; i < p->nfds; i++)
		p->inodes[i] = p->fds[i].inode;
	return 0;
}

/* cgroupfs_walk callback: append the processes of one directory of the subtree. */
static int list_dir(const char *dir, const char *rel, void *arg)
{
	struct net_priv *p = arg;
	size_t len = 0;

	(void)rel;
	if (cgroupfs_read(dir, "cgroup.procs", &p->buf, &p->bufcap, &len))
		return 0; /* vanished meanwhile: its processes are elsewhere */
	return cgroupfs_parse_procs(p->buf, &p->pids, &p->npids, &p->cappids) == -ENOMEM
		   ? -ENOMEM
		   : 0;
}

/* The network namespace of PID (the inode of /proc/PID/ns/net), 0 when unreadable. */
static uint64_t netns_of(pid_t pid)
{
	char path[64], link[64];
	unsigned long long ino;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return 0;
	link[n] = '\0';
	return sscanf(link, "net:[%llu]", &ino) == 1 ? ino : 0;
}

static int add_ps(const struct procnet_sock *s, void *arg)
{
	struct net_priv *p = arg;

	if (grow((void **)&p->ps, &p->capps, p->nps + 1, sizeof(*p->ps)))
		return -ENOMEM;
	p->ps[p->nps++] = *s;
	return 0;
}

/* The five socket tables of PID's network namespace, matched to P->inodes. 0, or -errno
 * (-ESRCH/-ENOENT: PID is gone). */
static int read_tables(pid_t pid, struct net_priv *p)
{
	static const char *const files[] = {"tcp", "tcp6", "udp", "udp6", "unix"};
	char name[16];
	size_t len;
	int err;

	for (size_t i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "net/%s", files[i]);
		err = procfs_read_file(pid, name, &p->buf, &p->bufcap, &len);
		if (err == -ENOENT && !procfs_is_gone(pid, err))
			continue; /* no IPv6 in this kernel: no such socket either */
		if (err)
			return err;
		err = procnet_parse_file(p->buf, files[i], p->inodes, p->nfds, add_ps, p);
		if (err < 0)
			return err;
	}
	return 0;
}

/* The /proc lane's reading: the fds of the process (--pid, a command) or of every process
 * of the cgroup's subtree (its cgroup.procs files at this poll), then the socket tables
 * of each network namespace they are in, read once each through one of its processes.
 * A member process that exits meanwhile is skipped. 0, -ESRCH (the one process is gone),
 * or -errno. */
static int read_proc(struct collector *c, struct net_priv *p)
{
	struct rec_ctx *ctx = c->ctx;
	bool cg = ctx->pid <= 0;
	int err;

	p->nps = 0;
	p->nfds = 0;
	p->nnetns = 0;
	p->npids = 0;
	if (cg) {
		err = cgroupfs_walk(ctx->cgroup_dir, list_dir, p);
		if (err)
			return err;
	} else {
		err = grow((void **)&p->pids, &p->cappids, 1, sizeof(*p->pids));
		if (err)
			return err;
		p->pids[p->npids++] = ctx->pid;
	}
	for (size_t i = 0; i < p->npids; i++) {
		size_t before = p->nfds;

		err = read_fds(p->pids[i], p);
		if (err && cg && procfs_is_gone(p->pids[i], err)) {
			p->nfds = before; /* exited meanwhile: not a member any more */
			continue;
		}
		if (err)
			return err;
	}
	err = fds_index(p);
	if (err || !p->nfds)
		return err;
	for (size_t i = 0; i < p->npids; i++) {
		pid_t pid = p->pids[i];
		uint64_t ns = cg ? netns_of(pid) : 0;
		bool seen = false, has = false;

		for (size_t k = 0; k < p->nfds && !has; k++)
			has = p->fds[k].pid == pid;
		if (!has)
			continue; /* no socket: its namespace's tables are not needed for it */
		for (size_t k = 0; k < p->nnetns && !seen; k++)
			seen = p->netns[k] == ns;
		if (seen && ns)
			continue;
		err = read_tables(pid, p);
		if (err && cg && procfs_is_gone(pid, err))
			continue; /* another process of its namespace reads the tables */
		if (err)
			return err;
		if (ns) {
			err = grow((void **)&p->netns, &p->capnetns, p->nnetns + 1,
				   sizeof(*p->netns));
			if (err)
				return err;
			p->netns[p->nnetns++] = ns;
		}
	}
	return 0;
}

static const struct procnet_sock *ps_find(struct net_priv *p, uint64_t inode)
{
	for (size_t i = 0; i < p->nps; i++) /* a few: linear */
		if (p->ps[i].inode == inode)
			return &p->ps[i];
	return NULL;
}

static int fd_of(struct net_priv *p, uint64_t inode)
{
	size_t lo = 0, hi = p->nfds;

	while (lo < hi) { /* the first (lowest fd) of INODE */
		size_t mid = (lo + hi) / 2;

		if (p->fds[mid].inode < inode)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nfds && p->fds[lo].inode == inode ? p->fds[lo].fd : -1;
}

/* Whether the /proc lane's error ERR means the target is gone: the process exited
 * (--pid, a command), or the cgroup was removed (--cgroup: its directory is not there;
 * its member processes that exit are skipped by read_proc). */
static bool target_gone(const struct rec_ctx *ctx, int err)
{
	struct stat st;

	if (ctx->pid > 0)
		return procfs_is_gone(ctx->pid, err);
	return err == -ENOENT && ctx->cgroup_dir && stat(ctx->cgroup_dir, &st) && errno == ENOENT;
}

/* ------------------------------------------------------------------ eBPF lane */

static int read_map(struct net_priv *p)
{
	int fd = bpf_map__fd(p->skel->maps.net_socks);
	__u64 key, next, *kp = NULL;
	int err;

	p->ncur = 0;
	while (bpf_map_get_next_key(fd, kp, &next) == 0) {
		key = next;
		kp = &key;
		err = grow((void **)&p->cur, &p->capcur, p->ncur + 1, sizeof(*p->cur));
		if (err)
			return err;
		if (bpf_map_lookup_elem(fd, &key, &p->cur[p->ncur].s))
			continue; /* removed meanwhile */
		p->cur[p->ncur].cookie = key;
		p->cur[p->ncur].closed_seen = false;
		p->ncur++;
	}
	if (p->ncur)
		qsort(p->cur, p->ncur, sizeof(*p->cur), cmp_cookie);
	return 0;
}

static const char *proto_name(const struct net_sock *s)
{
	bool v6 = s->family == AF_INET6;

	switch (s->proto) {
	case NET_PROTO_TCP:
		return v6 ? "tcp6" : "tcp";
	case NET_PROTO_UDP:
		return v6 ? "udp6" : "udp";
	case NET_PROTO_UNIX:
		return "unix";
	default:
		return "other";
	}
}

static struct out_sock *out_add(struct net_priv *p)
{
	static const Ptop__V1__NetSocket init = PTOP__V1__NET_SOCKET__INIT;
	struct out_sock *o;

	if (grow((void **)&p->out, &p->capout, p->nout + 1, sizeof(*p->out)))
		return NULL;
	o = &p->out[p->nout++];
	memset(o, 0, sizeof(*o));
	o->m = init;
	return o;
}

/* Point O's strings at its buffers (after the array stops moving). */
static void out_fix(struct out_sock *o)
{
	o->m.proto = o->proto;
	o->m.local = o->local;
	o->m.remote = o->remote;
	o->m.state = o->state;
	if (o->m.traffic)
		o->m.traffic = &o->tr;
	if (o->m.queues)
		o->m.queues = &o->q;
	for (size_t i = 0; i < o->m.n_changes; i++)
		o->chp[i] = &o->ch[i];
	if (o->m.n_changes)
		o->m.changes = o->chp;
}

static void out_proc(struct net_priv *p, struct out_sock *o, const struct procnet_sock *ps)
{
	static const Ptop__V1__NetQueues qinit = PTOP__V1__NET_QUEUES__INIT;

	o->q = qinit;
	o->q.tx_queue = ps->tx_queue;
	o->q.rx_queue = ps->rx_queue;
	o->q.fd = fd_of(p, ps->inode);
	o->m.queues = &o->q;
}

/* One NetError of socket S (cookie ID; CF: a failed connect() call's, or NULL). */
static int emit_error_of(struct collector *c, uint64_t t, uint64_t id, const struct net_sock *s,
			 const char *kind, uint64_t count, uint64_t total, uint64_t latency,
			 const struct cfail *cf)
{
	Ptop__V1__NetError e = PTOP__V1__NET_ERROR__INIT;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CollectorPayload cp;
	char local[112], remote[64];
	int err;

	e.id = id;
	e.proto = (char *)proto_name(s);
	if (cf) {
		e.inode = cf->inode;
		e.local = (char *)"";
		if (cf->c.family == AF_UNIX && cf->c.path[0]) /* a path */
			snprintf(remote, sizeof(remote), "%.63s", cf->c.path);
		else if (cf->c.family == AF_UNIX) /* abstract: '@' as /proc/net/unix shows it */
			snprintf(remote, sizeof(remote), "@%.62s", cf->c.path + 1);
		else
			procnet_fmt_addr(remote, sizeof(remote), cf->c.family, cf->c.raddr,
					 cf->c.rport);
		e.remote = remote;
		e.err = cf->c.last_err;
		e.in_call = true;
	} else {
		e.inode = s->inode;
		e.local = (char *)procnet_fmt_addr(local, sizeof(local), s->family, s->laddr,
						   s->lport);
		e.remote = (char *)procnet_fmt_addr(remote, sizeof(remote), s->family, s->raddr,
						    s->rport);
		e.err = s->last_err;
	}
	e.kind = (char *)kind;
	e.count = count;
	e.total = total;
	e.latency_ns = latency;
	err = capture_payload__pack(&ev, &cp, "net", &e.base);
	if (err)
		return err;
	err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, t, 0);
	capture_payload__release(&cp);
	return err;
}

static int emit_error(struct collector *c, uint64_t t, const struct bsock *b, const char *kind,
		      uint64_t count, uint64_t total, uint64_t latency)
{
	return emit_error_of(c, t, b->cookie, &b->s, kind, count, total, latency, NULL);
}

/* The errors of B that grew since PV (NULL: a new socket). */
static int emit_errors(struct collector *c, uint64_t now_ns, const struct bsock *b,
		       const struct net_sock *pv)
{
	static const struct net_sock zero;
	const struct net_sock *s = &b->s;
	uint64_t t = s->err_ns && s->err_ns <= now_ns ? s->err_ns : now_ns;
	int err = 0;

	if (!pv)
		pv = &zero;
#define ERR_KIND(field, kind, lat)                                                                 \
	if (!err && s->field > pv->field)                                                          \
		err = emit_error(c, t, b, kind, s->field - pv->field, s->field, lat);
	ERR_KIND(refused, "refused", s->err_lat_ns)
	ERR_KIND(reset_rcvd, "reset_by_peer", 0)
	ERR_KIND(reset_sent, "reset_sent", 0)
	ERR_KIND(timeout, "timeout", s->err_lat_ns)
	ERR_KIND(unreach, "unreachable", s->err_lat_ns)
	ERR_KIND(other_err, "error", 0)
#undef ERR_KIND
	if (!err && s->retrans > pv->retrans)
		err =
		    emit_error(c, now_ns, b, "retransmit", s->retrans - pv->retrans, s->retrans, 0);
	return err;
}

/* B's socket into the interval's message; PV its previous reading (NULL: new). Whether
 * anything changed is in *CHANGED. */
static struct out_sock *out_bpf(struct net_priv *p, const struct bsock *b,
				const struct net_sock *pv, bool *changed)
{
	static const Ptop__V1__NetTraffic tinit = PTOP__V1__NET_TRAFFIC__INIT;
	static const struct net_sock zero;
	const struct net_sock *s = &b->s;
	struct out_sock *o = out_add(p);

	if (!o)
		return NULL;
	if (!pv)
		pv = &zero;
	o->tr = tinit;
	o->tr.tx_bytes = s->tx_bytes - pv->tx_bytes;
	o->tr.rx_bytes = s->rx_bytes - pv->rx_bytes;
	o->tr.tx_calls = s->tx_calls - pv->tx_calls;
	o->tr.rx_calls = s->rx_calls - pv->rx_calls;
	o->tr.tx_errors = s->tx_errs - pv->tx_errs;
	o->tr.rx_errors = s->rx_errs - pv->rx_errs;
	o->tr.retransmits = s->retrans - pv->retrans;
	if (s->proto == NET_PROTO_TCP) {
		/* the counters are read at sends and receives: a first reading is since the
		 * socket's start, as is the first delta */
		o->tr.segs_out = s->segs_out >= pv->segs_out ? s->segs_out - pv->segs_out : 0;
		o->tr.segs_in = s->segs_in >= pv->segs_in ? s->segs_in - pv->segs_in : 0;
		o->tr.srtt_us = s->srtt_us;
	}
	o->m.traffic = &o->tr;
	o->m.id = b->cookie;
	o->m.inode = s->inode;
	snprintf(o->proto, sizeof(o->proto), "%s", proto_name(s));
	if (s->proto == NET_PROTO_TCP || s->proto == NET_PROTO_UDP) {
		procnet_fmt_addr(o->local, sizeof(o->local), s->family, s->laddr, s->lport);
		procnet_fmt_addr(o->remote, sizeof(o->remote), s->family, s->raddr, s->rport);
	}
	if (s->proto == NET_PROTO_TCP)
		snprintf(o->state, sizeof(o->state), "%s", procnet_tcp_state(s->state));
	else if (s->proto == NET_PROTO_UDP)
		snprintf(o->state, sizeof(o->state), "%s", s->rport ? "CONNECTED" : "UNCONNECTED");
	else if (s->proto == NET_PROTO_UNIX) /* as /proc/net/unix names the types */
		snprintf(o->state, sizeof(o->state), "%s",
			 s->type == SOCK_STREAM	     ? "STREAM"
			 : s->type == SOCK_DGRAM     ? "DGRAM"
			 : s->type == SOCK_SEQPACKET ? "SEQPACKET"
						     : "OTHER");
	if (s->est_ns && s->syn_ns && s->est_ns > s->syn_ns && s->est_ns != pv->est_ns)
		o->m.connect_ns = s->est_ns - s->syn_ns;
	o->m.closed = s->close_ns && !pv->close_ns;
	if (s->ntrans > pv->ntrans) { /* the state changes since PV, the ring's newest */
		uint32_t n = s->ntrans - pv->ntrans, from = pv->ntrans;

		if (n > NET_MAX_TRANS) {
			p->trans_lost += n - NET_MAX_TRANS;
			from = s->ntrans - NET_MAX_TRANS;
			n = NET_MAX_TRANS;
		}
		for (uint32_t i = 0; i < n; i++) {
			const struct net_trans *t = &s->trans[(from + i) % NET_MAX_TRANS];
			Ptop__V1__NetStateChange *c = &o->ch[i];

			ptop__v1__net_state_change__init(c);
			c->time_ns = t->ns;
			c->old_state = (char *)procnet_tcp_state(t->oldstate);
			c->new_state = (char *)procnet_tcp_state(t->newstate);
		}
		o->m.n_changes = n;
	}
	*changed = memcmp(s, pv, sizeof(*s)) != 0;
	return o;
}

/* Remove KEY's entry from the hash map FD, its value at the removal into VAL (of SIZE
 * bytes, which holds this poll's reading): what the entry counted between the reading and
 * the removal is counted in this interval, not lost with the entry. SAME: only if it is
 * still as read (a kernel without lookup-and-delete on hash maps, before 5.14: else it
 * is kept, and read again at the next poll). Whether it was removed. */
static bool map_take(int fd, const void *key, void *val, size_t size, bool same)
{
	char last[sizeof(struct net_sock) > sizeof(struct net_cfail) ? sizeof(struct net_sock)
								      : sizeof(struct net_cfail)];
	int err;

	if (size > sizeof(last))
		return false;
	err = bpf_map_lookup_and_delete_elem(fd, key, last);
	if (!err) {
		memcpy(val, last, size);
		return true;
	}
	if (err != -EINVAL && err != -EOPNOTSUPP && err != -524 /* the kernel's ENOTSUPP */)
		return false; /* not there */
	if (same && (bpf_map_lookup_elem(fd, key, last) || memcmp(last, val, size)))
		return false;
	return bpf_map_delete_elem(fd, key) == 0;
}

static bool take(struct net_priv *p, struct bsock *b, bool same)
{
	return map_take(bpf_map__fd(p->skel->maps.net_socks), &b->cookie, &b->s, sizeof(b->s),
			same);
}

/* B's entry was removed from the map: out of the next poll's previous reading; remember
 * its cookie by inode, so that the /proc lane lists it with its cookie. 0 or -ENOMEM. */
static int forget(struct net_priv *p, struct bsock *b)
{
	if (p->proc && b->s.inode) {
		if (grow((void **)&p->forgot, &p->capforgot, p->nforgot + 1, sizeof(*p->forgot)))
			return -ENOMEM;
		p->forgot[p->nforgot++] = (struct fd_ino){b->s.inode, 0};
		uint64_t *fc = realloc(p->forgot_cookie, p->capforgot * sizeof(uint64_t));

		if (!fc)
			return -ENOMEM;
		p->forgot_cookie = fc;
		p->forgot_cookie[p->nforgot - 1] = b->cookie;
	}
	b->cookie = 0; /* not kept */
	return 0;
}

/* The cookie of a removed socket of INODE, 0 when none. */
static uint64_t forgot_cookie(const struct net_priv *p, uint64_t inode)
{
	for (size_t i = 0; i < p->nforgot; i++)
		if (p->forgot[i].inode == inode)
			return p->forgot_cookie[i];
	return 0;
}

/* Keep only the removed sockets still in the fd table. */
static void forgot_prune(struct net_priv *p)
{
	size_t k = 0;

	for (size_t i = 0; i < p->nforgot; i++) {
		if (fd_of(p, p->forgot[i].inode) < 0)
			continue;
		p->forgot_cookie[k] = p->forgot_cookie[i];
		p->forgot[k++] = p->forgot[i];
	}
	p->nforgot = k;
}

static int cmp_cfail(const void *a, const void *b)
{
	uint64_t x = ((const struct cfail *)a)->inode, y = ((const struct cfail *)b)->inode;

	return x < y ? -1 : x > y;
}

/* The failed connect() calls (net_cfails) that grew since the previous poll, as NetErrors
 * with in_call set; an entry idle over an interval is removed from the map (a failure
 * after that starts its socket's totals again). 0 or -errno. */
static int poll_cfails(struct collector *c, struct net_priv *p, uint64_t now_ns)
{
	static const struct net_cfail zero;
	int fd = bpf_map__fd(p->skel->maps.net_cfails), err = 0;
	__u64 key, next, *kp = NULL;
	struct cfail *t;
	size_t i, k;

	p->nccur = 0;
	while (bpf_map_get_next_key(fd, kp, &next) == 0) {
		key = next;
		kp = &key;
		err = grow((void **)&p->ccur, &p->capccur, p->nccur + 1, sizeof(*p->ccur));
		if (err)
			return err;
		if (bpf_map_lookup_elem(fd, &key, &p->ccur[p->nccur].c))
			continue;
		p->ccur[p->nccur].inode = key;
		p->ccur[p->nccur].gone = false;
		p->nccur++;
	}
	if (p->nccur)
		qsort(p->ccur, p->nccur, sizeof(*p->ccur), cmp_cfail);
	for (i = 0; !err && i < p->nccur; i++) {
		struct cfail *cur = &p->ccur[i], *pv = NULL;
		const struct net_cfail *z, *s = &cur->c;
		struct net_sock sk;
		uint64_t t_ns;

		if (p->ncprev)
			pv = bsearch(cur, p->cprev, p->ncprev, sizeof(*p->cprev), cmp_cfail);
		if (pv && pv->c.first_ns != s->first_ns)
			pv = NULL; /* made again */
		/* idle over the interval: removed, with what it counted until then */
		if (pv && !memcmp(&pv->c, s, sizeof(*s)))
			cur->gone = map_take(fd, &cur->inode, &cur->c, sizeof(cur->c), true);
		t_ns = s->err_ns && s->err_ns <= now_ns ? s->err_ns : now_ns;
		z = pv ? &pv->c : &zero;
		memset(&sk, 0, sizeof(sk));
		sk.family = s->family;
		sk.proto = s->proto;
#define CF_KIND(field, kind)                                                                       \
	if (!err && s->field > z->field)                                                           \
		err = emit_error_of(c, t_ns, 0, &sk, kind, s->field - z->field, s->field, 0, cur);
		CF_KIND(refused, "refused")
		CF_KIND(unreach, "unreachable")
		CF_KIND(timeout, "timeout")
		CF_KIND(other, "error")
#undef CF_KIND
	}
	for (i = k = 0; i < p->nccur; i++) /* this reading becomes the previous one */
		if (!p->ccur[i].gone)
			p->ccur[k++] = p->ccur[i];
	t = p->cprev;
	p->cprev = p->ccur;
	p->ncprev = k;
	p->ccur = t;
	p->nccur = 0;
	{
		size_t capt = p->capccur; /* the two arrays swap their capacities too */

		p->capccur = p->capcprev;
		p->capcprev = capt;
	}
	return err;
}

static int emit_drops(struct collector *c, struct net_priv *p)
{
	uint64_t v;
	int err;

	err = bpf_util__percpu_sum(p->skel->maps.net_counters, NET_CNT_MAP_FULL, p->cnt_vals,
				   sizeof(__u64), &v, 1);
	if (err)
		return err;
	err = rec_emit_drop(c, "map_full", v - p->prev_full,
			    "a socket of the target not followed: the socket map is full");
	p->prev_full = v;
	if (err)
		return err;
	err = bpf_util__percpu_sum(p->skel->maps.net_counters, NET_CNT_CFAIL_FULL, p->cnt_vals,
				   sizeof(__u64), &v, 1);
	if (err)
		return err;
	err = rec_emit_drop(c, "connect_fail_map_full", v - p->prev_cfull,
			    "a failed connect() not counted: the net_cfails map is full");
	p->prev_cfull = v;
	if (err)
		return err;
	err = rec_emit_drop(c, "state_changes", p->trans_lost,
			    "TCP state changes of a socket beyond the newest 8 in one interval");
	p->trans_lost = 0;
	return err;
}

static int net_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct net_priv *p = c->priv;
	Ptop__V1__NetSockets msg = PTOP__V1__NET_SOCKETS__INIT;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__NetSocket **ptrs = NULL;
	Ptop__V1__CollectorPayload cp;
	bool proc_ok = false;
	size_t i;
	int err = 0;

	(void)flags;
	if (!p)
		return -EINVAL;
	p->nout = 0;
	if (p->proc) {
		err = read_proc(c, p);
		if (err == -ENOMEM)
			return err;
		if (err && target_gone(c->ctx, err)) {
			/* ended (the run loop notices): no fd table any more, but the map
			 * holds its sends and receives since the previous poll, its last
			 * interval when this is the final poll: read it all the same */
			err = 0;
		} else if (err) {
			err = rec_emit_drop(c, "proc_unreadable", 1, "fd or net tables");
			if (err)
				return err;
		} else {
			proc_ok = true;
		}
	}
	if (p->skel) {
		err = read_map(p);
		if (err)
			return err;
		for (i = 0; i < p->ncur; i++) {
			struct bsock *b = &p->cur[i], *pv;
			const struct procnet_sock *ps;
			bool changed = false, gone = false;
			struct out_sock *o;

			pv = p->nprev ? bsearch(b, p->prev, p->nprev, sizeof(*p->prev), cmp_cookie)
				      : NULL;
			if (pv && pv->s.first_ns != b->s.first_ns)
				pv = NULL; /* the entry was made again: a new reading */
			/* removed: TCP closed at the previous poll already (a late error report
			 * was read meanwhile); others idle over the interval (closed or not:
			 * one used again gets a new entry, first_ns tells it apart, and its
			 * counts start again from 0; a socket still open stays listed from
			 * the fd table). TCP keeps its entry while open: its SYN time. What
			 * the entry counted until its removal is this interval's. */
			if (pv && pv->s.close_ns)
				gone = take(p, b, false);
			else if (pv && b->s.proto != NET_PROTO_TCP &&
				 !memcmp(&b->s, &pv->s, sizeof(b->s)))
				gone = take(p, b, true);
			err = emit_errors(c, now_ns, b, pv ? &pv->s : NULL);
			if (err)
				return err;
			o = out_bpf(p, b, pv ? &pv->s : NULL, &changed);
			if (!o)
				return -ENOMEM;
			ps = proc_ok && b->s.inode ? ps_find(p, b->s.inode) : NULL;
			if (ps) {
				out_proc(p, o, ps);
				if (b->s.proto != NET_PROTO_TCP)
					snprintf(o->state, sizeof(o->state), "%s", ps->state);
				if (b->s.proto == NET_PROTO_UNIX) {
					snprintf(o->local, sizeof(o->local), "%s", ps->local);
				}
			}
			if (!changed && !ps)
				p->nout--; /* idle and not in the fd table: not listed */
			if (gone && forget(p, b))
				return -ENOMEM;
		}
		err = poll_cfails(c, p, now_ns);
		err = err ?: emit_drops(c, p);
		if (err)
			return err;
	}
	if (proc_ok) { /* the sockets the eBPF lane has not seen used */
		for (i = 0; i < p->nps; i++) {
			const struct procnet_sock *ps = &p->ps[i];
			struct out_sock *o;
			bool seen = false;

			for (size_t k = 0; k < p->nout && !seen; k++)
				seen = p->out[k].m.inode == ps->inode;
			if (seen)
				continue;
			o = out_add(p);
			if (!o)
				return -ENOMEM;
			o->m.inode = ps->inode;
			o->m.id = forgot_cookie(p, ps->inode);
			if (p->skel) { /* the eBPF lane runs: no send or receive on it, a 0 */
				o->tr = (Ptop__V1__NetTraffic)PTOP__V1__NET_TRAFFIC__INIT;
				o->m.traffic = &o->tr;
			}
			snprintf(o->proto, sizeof(o->proto), "%s", ps->proto);
			snprintf(o->local, sizeof(o->local), "%s", ps->local);
			snprintf(o->remote, sizeof(o->remote), "%s", ps->remote);
			snprintf(o->state, sizeof(o->state), "%s", ps->state);
			out_proc(p, o, ps);
		}
	}
	if (proc_ok)
		forgot_prune(p);
	if (p->nout && !(ptrs = calloc(p->nout, sizeof(*ptrs))))
		return -ENOMEM;
	for (i = 0; i < p->nout; i++) {
		out_fix(&p->out[i]);
		ptrs[i] = &p->out[i].m;
	}
	msg.n_sockets = p->nout;
	msg.sockets = ptrs;
	msg.ebpf = p->skel != NULL;
	msg.no_length = p->skel && p->no_length;
	msg.proc = proc_ok;
	err = capture_payload__pack(&ev, &cp, "net", &msg.base);
	if (!err) {
		err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, now_ns,
				     now_ns > p->prev_ns ? now_ns - p->prev_ns : 0);
		capture_payload__release(&cp);
	}
	free(ptrs);
	p->prev_ns = now_ns;
	if (p->skel) { /* this reading becomes the previous one, without the removed */
		struct bsock *t = p->prev;
		size_t k = 0;

		for (i = 0; i < p->ncur; i++)
			if (p->cur[i].cookie)
				p->cur[k++] = p->cur[i];
		free(t);
		p->prev = p->cur;
		p->nprev = k;
		p->cur = NULL;
		p->ncur = p->capcur = 0;
	}
	return err;
}

const struct collector_ops net_collector = {
    .name = "net",
    /* bench/overhead_net.sh: 0.5-1.1 us more CPU per send+recv pair than the bare
     * tracepoints (+5 to +11 %), consistently above them though inside the spread of a
     * busy machine: not shown to be within the noise, so not on by default */
    .off_by_default = "its eBPF lane costs the target about 0.2-0.5 us per send or receive "
		      "(5-11 % of a loopback TCP send+recv pair); see bench/README.md",
    .summary = "sockets: bytes, calls, connect latency, state changes, resets, refusals, "
	       "timeouts, retransmits per connection, failed connect calls (eBPF sock/tcp "
	       "tracepoints, sys_exit); queues (/proc/PID/net, each process of a cgroup)",
    .check = net_check,
    .start = net_start,
    .poll = net_poll,
    .stop = net_stop,
};
