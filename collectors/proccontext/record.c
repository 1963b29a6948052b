/* record.c — the proccontext collector: who and where the target is —
 * parent, comm, real/effective uid and gid, NSpid, its namespaces (type and
 * inode from the links in /proc/PID/ns/), cgroup path and cgroup id, and the container id
 * derived from the cgroup paths — as a ProcContext event at the first poll, at
 * the final poll, and at any poll where something changed (a few small /proc
 * reads, cheap enough to make each interval).
 *
 * stat and status are needed for an event (their uid 0 would otherwise read as
 * root); namespace links need PTRACE_MODE_READ, and when they cannot be read
 * the list is left empty and the loss counted as a drop.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/collector.h"
#include "record/procfs.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *const ns_names[] = {
	"cgroup", "ipc", "mnt", "net", "pid", "pid_for_children", "time", "time_for_children",
	"user", "uts",
};
#define N_NS ARRAY_SIZE(ns_names)

/* What one poll read; compared with the last emitted to see a change. */
struct ctx_state {
	pid_t ppid;
	char comm[64];
	uid_t uid, euid;
	gid_t gid, egid;
	int32_t nspid[PROCFS_MAX_NSPID];
	int n_nspid;
	uint64_t ns_ino[N_NS];       /* 0: that namespace link is absent */
	const char *ns_type[N_NS];
	size_t n_ns;
	bool ns_read;                /* the links could be read */
	char cgroup[PATH_MAX];       /* "" when /proc/PID/cgroup could not be read */
	uint64_t cgroup_id;          /* 0: not found */
	char container[65];
};

struct ctx_priv {
	struct ctx_state last, cur;
	bool have_last;
	char *buf;                   /* the cgroup text, reused */
	size_t cap;
};

/* Parse a namespace link target "net:[4026531840]" into its inode. */
static int parse_ns_link(const char *s, uint64_t *ino)
{
	const char *p = strstr(s, ":[");
	char *end;
	unsigned long long v;

	if (!p || p[2] < '0' || p[2] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(p + 2, &end, 10);
	if (errno || *end != ']' || end[1] != '\0')
		return -EINVAL;
	*ino = v;
	return 0;
}

static Ptop__V1__ProbeState ctx_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	struct proc_status st;
	char path[64], link[64];
	int err;

	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
	c->reason[0] = '\0';
	if (ctx->caps_only) {
		snprintf(c->detail, sizeof(c->detail),
			 "/proc/PID/stat, status, cgroup (any user), ns/* (PTRACE_MODE_READ: root or "
			 "the target's uid; running as uid %u)", (unsigned)geteuid());
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	if (ctx->pid <= 0) {
		snprintf(c->reason, sizeof(c->reason),
			 "context is read per process: in --cgroup mode the cgroup collector "
			 "records each process's comm, exe and unit; use --pid for the rest");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	err = procfs_read_status(ctx->pid, &st);
	if (err) {
		snprintf(c->reason, sizeof(c->reason), "cannot read /proc/%d/status: %s",
			 (int)ctx->pid, strerror(-err));
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)ctx->pid);
	if (readlink(path, link, sizeof(link)) < 0)
		snprintf(c->detail, sizeof(c->detail),
			 "stat, status, cgroup; namespaces not collected: %s: %s (needs "
			 "PTRACE_MODE_READ: root or the target's uid)", path, strerror(errno));
	else
		snprintf(c->detail, sizeof(c->detail),
			 "/proc/%d/stat, status, cgroup, ns/*; cgroup id from the cgroup2 mount",
			 (int)ctx->pid);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static int ctx_start(struct collector *c)
{
	struct ctx_priv *p = calloc(1, sizeof(*p));

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	c->priv = p;
	return 0;
}

static void ctx_stop(struct collector *c)
{
	struct ctx_priv *p = c->priv;

	if (!p)
		return;
	free(p->buf);
	free(p);
	c->priv = NULL;
}

static int count_loss(struct collector *c, const char *what, int err)
{
	char detail[128];

	snprintf(detail, sizeof(detail), "%s: %s", what,
		 err == -EINVAL ? "does not parse" : strerror(-err));
	return rec_emit_drop(c, err == -EINVAL ? "proc_malformed" : "proc_unreadable", 1, detail);
}

/* Read the namespaces of PID into S. 0, or the first error other than a
 * missing link (a namespace type this kernel lacks). */
static int read_namespaces(pid_t pid, struct ctx_state *s)
{
	char path[96], link[96];
	int first_err = 0;

	s->n_ns = 0;
	for (size_t i = 0; i < N_NS; i++) {
		ssize_t n;
		uint64_t ino;

		snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, ns_names[i]);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0) {
			if (errno != ENOENT && !first_err)
				first_err = -errno;
			continue;
		}
		link[n] = '\0';
		if (parse_ns_link(link, &ino)) {
			if (!first_err)
				first_err = -EINVAL;
			continue;
		}
		s->ns_type[s->n_ns] = ns_names[i];
		s->ns_ino[s->n_ns] = ino;
		s->n_ns++;
	}
	return first_err;
}

static bool same_state(const struct ctx_state *a, const struct ctx_state *b)
{
	if (a->ppid != b->ppid || strcmp(a->comm, b->comm) || a->uid != b->uid ||
	    a->euid != b->euid || a->gid != b->gid || a->egid != b->egid ||
	    a->n_nspid != b->n_nspid || a->n_ns != b->n_ns || a->ns_read != b->ns_read ||
	    a->cgroup_id != b->cgroup_id || strcmp(a->cgroup, b->cgroup) ||
	    strcmp(a->container, b->container))
		return false;
	for (int i = 0; i < a->n_nspid; i++)
		if (a->nspid[i] != b->nspid[i])
			return false;
	for (size_t i = 0; i < a->n_ns; i++)
		if (a->ns_ino[i] != b->ns_ino[i] || a->ns_type[i] != b->ns_type[i])
			return false;
	return true;
}

static int emit(struct collector *c, const struct ctx_state *s, uint64_t now_ns)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__ProcContext pc = PTOP__V1__PROC_CONTEXT__INIT;
	Ptop__V1__Namespace ns[N_NS], *nsp[N_NS];
	int32_t nspid[PROCFS_MAX_NSPID];

	pc.ppid = s->ppid;
	pc.comm = (char *)s->comm;
	pc.uid = s->uid;
	pc.euid = s->euid;
	pc.gid = s->gid;
	pc.egid = s->egid;
	for (size_t i = 0; i < s->n_ns; i++) {
		ptop__v1__namespace__init(&ns[i]);
		ns[i].type = (char *)s->ns_type[i];
		ns[i].inode = s->ns_ino[i];
		nsp[i] = &ns[i];
	}
	pc.namespaces = nsp;
	pc.n_namespaces = s->n_ns;
	pc.cgroup_path = (char *)s->cgroup;
	pc.cgroup_id = s->cgroup_id;
	pc.container_id = (char *)s->container;
	for (int i = 0; i < s->n_nspid; i++)
		nspid[i] = s->nspid[i];
	pc.nspid = nspid;
	pc.n_nspid = (size_t)s->n_nspid;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CONTEXT;
	ev.context = &pc;
	return rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_CONTEXT, now_ns, 0);
}

static int ctx_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct ctx_priv *p = c->priv;
	struct ctx_state *s;
	pid_t pid = c->ctx->pid;
	struct proc_stat st;
	struct proc_status ss;
	size_t len = 0;
	bool forced = flags & (POLL_FIRST | POLL_FINAL);
	int err, ns_err, cg_err;

	if (!p || pid <= 0)
		return -EINVAL;
	s = &p->cur;
	memset(s, 0, sizeof(*s));

	err = procfs_read_stat(pid, &st);
	if (err == 0 && (st.state == 'Z' || st.state == 'X'))
		return 0;
	if (!err)
		err = procfs_read_status(pid, &ss);
	if (err && procfs_is_gone(pid, err))
		return 0;
	if (err)
		return forced ? count_loss(c, "stat/status", err) : 0;
	s->ppid = st.ppid;
	memcpy(s->comm, st.comm, sizeof(s->comm));
	s->uid = ss.uid[0];
	s->euid = ss.uid[1];
	s->gid = ss.gid[0];
	s->egid = ss.gid[1];
	s->n_nspid = ss.n_nspid;
	for (int i = 0; i < ss.n_nspid; i++)
		s->nspid[i] = ss.nspid[i];

	ns_err = read_namespaces(pid, s);
	s->ns_read = ns_err == 0;

	cg_err = procfs_read_file(pid, "cgroup", &p->buf, &p->cap, &len);
	if (!cg_err)
		cg_err = procfs_parse_cgroup(p->buf, s->cgroup, sizeof(s->cgroup));
	if (!cg_err) {
		if (procfs_cgroup_id(s->cgroup, &s->cgroup_id))
			s->cgroup_id = 0; /* v1-only host, or the cgroup went away */
		if (!procfs_cgroup_text_container_id(p->buf, s->container, sizeof(s->container)))
			s->container[0] = '\0';
	} else {
		s->cgroup[0] = '\0';
	}
	if (procfs_is_gone(pid, cg_err))
		return 0;

	if (!forced && p->have_last && same_state(&p->last, s))
		return 0;
	/* What this context lacks, counted once per emitted context */
	if (ns_err && (err = count_loss(c, "ns/*", ns_err)))
		return err;
	if (cg_err && (err = count_loss(c, "cgroup", cg_err)))
		return err;
	err = emit(c, s, now_ns);
	if (err)
		return err;
	p->last = *s;
	p->have_last = true;
	return 0;
}

const struct collector_ops proccontext_collector = {
	.name = "proccontext",
	.summary = "uid/gid, namespaces, cgroup path and id, container id (/proc stat, status, ns, cgroup)",
	.check = ctx_check,
	.start = ctx_start,
	.poll = ctx_poll,
	.stop = ctx_stop,
};
