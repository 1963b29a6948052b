/* record.c — the fds collector's recorder side: every --interval, the target's fd table by
 * type from /proc/PID/fd (a listing and one readlink per fd: no lock of the target's is
 * held, it costs the recorder, not the target), as one FdSample; at the end, the table itself
 * (each fd with what it refers to) as one FdTable.
 *
 * The /proc lane runs with and without eBPF: reading another process's fd directory needs
 * the right to ptrace it (same user, or CAP_SYS_PTRACE), which check() tries.
 *
 * With --fd-stacks, the eBPF lane (fds.bpf.c) also counts the fds each syscall opened and
 * closed per interval (FdOps), and keeps each open's user stack: at the end, the opening
 * sites with the fds they opened and how many are still open (FdSites). The stacks follow
 * --user-stacks: frame-pointer walks, or stack copies (Stack records with their copy, sent
 * once per key through a ring and unwound by ptop-analyze) where the target has no frame
 * pointers; frame-pointer walks taken anyway through such code are said to be untrusted
 * in the probe detail (FDS_FP_UNTRUSTED), which report fds reads. It runs a program
 * at every syscall exit of the machine (no tracefs: no per-syscall tracepoint), so it is
 * not on by default; without eBPF the /proc lane runs alone and the probe says why.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/stackcopy.h" /* struct sc_vmas, in the skeleton */
#include "record/stack_table.h"
#include "collectors/fds/fds.pb-c.h"
#include "collectors/fds/record.h"
#include "collectors/fds/fds.skel.h"
#include "common/probe_mapping.h"
#include "proto/capture.h"
#include "proto/syscall_table.h"
#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/kfeature.h"
#include "record/procfs.h"
#include "record/stackcopy.h"

static const char *const type_names[FD_TYPES] = {
    [FD_FILE] = "file",		[FD_SOCKET] = "socket",		[FD_PIPE] = "pipe",
    [FD_EVENTFD] = "eventfd",	[FD_EPOLL] = "epoll",		[FD_TIMERFD] = "timerfd",
    [FD_SIGNALFD] = "signalfd", [FD_ANON_INODE] = "anon_inode", [FD_OTHER] = "other",
};

const char *fds__type_name(enum fd_type t)
{
	return (unsigned)t < FD_TYPES ? type_names[t] : "other";
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

enum fd_type fds__classify(const char *link)
{
	if (link[0] == '/')
		return FD_FILE;
	if (starts(link, "socket:["))
		return FD_SOCKET;
	if (starts(link, "pipe:["))
		return FD_PIPE;
	if (!starts(link, "anon_inode:"))
		return FD_OTHER;
	link += strlen("anon_inode:");
	if (!strcmp(link, "[eventfd]"))
		return FD_EVENTFD;
	if (!strcmp(link, "[eventpoll]"))
		return FD_EPOLL;
	if (!strcmp(link, "[timerfd]"))
		return FD_TIMERFD;
	if (!strcmp(link, "[signalfd]"))
		return FD_SIGNALFD;
	return FD_ANON_INODE;
}

bool fds__is_probe(const char *link, uint64_t start_pipe_ino)
{
	char *end;

	if (link[0] == '/')
		return probe_mapping__is(link);
	if (!start_pipe_ino || !starts(link, "pipe:["))
		return false;
	return strtoull(link + strlen("pipe:["), &end, 10) == start_pipe_ino && !strcmp(end, "]");
}

static int ent_cmp(const void *a, const void *b)
{
	const struct fd_ent *x = a, *y = b;

	return (x->fd > y->fd) - (x->fd < y->fd);
}

int fds__scan(const char *dir, bool want_table, uint64_t start_pipe_ino, struct fd_scan *s)
{
	char link[FDS_TARGET_MAX];
	struct dirent *de;
	DIR *d;
	int dfd, err = 0;

	s->total = 0;
	memset(s->count, 0, sizeof(s->count));
	s->nents = 0;
	s->truncated = false;
	d = opendir(dir);
	if (!d)
		return -errno;
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		enum fd_type t;
		ssize_t n;
		char *end;
		long fd;
		bool probe;

		if (de->d_name[0] == '.')
			continue;
		fd = strtol(de->d_name, &end, 10);
		if (*end || fd < 0)
			continue;
		n = readlinkat(dfd, de->d_name, link, sizeof(link) - 1);
		if (n < 0) /* closed since the listing: not open, not counted */
			continue;
		link[n] = '\0';
		t = fds__classify(link);
		probe = fds__is_probe(link, start_pipe_ino);
		if (!probe) { /* ptop's own: probe overhead, not the target's (principle 9) */
			s->total++;
			s->count[t]++;
		}
		if (!want_table)
			continue;
		if (s->nents == FDS_TABLE_MAX) {
			s->truncated = true;
			continue;
		}
		if (s->nents == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 64;
			struct fd_ent *e = realloc(s->ents, cap * sizeof(*e));

			if (!e) {
				err = -ENOMEM;
				break;
			}
			s->ents = e;
			s->cap = cap;
		}
		s->ents[s->nents].fd = (int)fd;
		s->ents[s->nents].type = t;
		s->ents[s->nents].probe = probe;
		memcpy(s->ents[s->nents].target, link, (size_t)n + 1);
		s->nents++;
	}
	closedir(d);
	if (!err && want_table && s->nents > 1)
		qsort(s->ents, s->nents, sizeof(*s->ents), ent_cmp);
	return err;
}

bool fds__owner_closed(const struct fd_scan *s, uint64_t read_ns, int fd, uint64_t opened_ns)
{
	struct fd_ent key;

	if (opened_ns >= read_ns || s->truncated)
		return false;
	key.fd = fd;
	return !s->nents || !bsearch(&key, s->ents, s->nents, sizeof(*s->ents), ent_cmp);
}

static const struct {
	const char *name;
	enum fds_kind kind;
} kinds[] = {
    {"open", FDS_K_RET},
    {"openat", FDS_K_RET},
    {"openat2", FDS_K_RET},
    {"creat", FDS_K_RET},
    {"open_by_handle_at", FDS_K_RET},
    {"socket", FDS_K_RET},
    {"accept", FDS_K_RET},
    {"accept4", FDS_K_RET},
    {"dup", FDS_K_RET},
    {"dup2", FDS_K_DUP2},
    {"dup3", FDS_K_DUP2},
    {"eventfd", FDS_K_RET},
    {"eventfd2", FDS_K_RET},
    {"epoll_create", FDS_K_RET},
    {"epoll_create1", FDS_K_RET},
    {"timerfd_create", FDS_K_RET},
    {"signalfd", FDS_K_RET},
    {"signalfd4", FDS_K_RET},
    {"inotify_init", FDS_K_RET},
    {"inotify_init1", FDS_K_RET},
    {"fanotify_init", FDS_K_RET},
    {"memfd_create", FDS_K_RET},
    {"memfd_secret", FDS_K_RET},
    {"pidfd_open", FDS_K_RET},
    {"pidfd_getfd", FDS_K_RET},
    {"perf_event_open", FDS_K_RET},
    {"userfaultfd", FDS_K_RET},
    {"io_uring_setup", FDS_K_RET},
    {"fsopen", FDS_K_RET},
    {"fsmount", FDS_K_RET},
    {"fspick", FDS_K_RET},
    {"open_tree", FDS_K_RET},
    {"pipe", FDS_K_PAIR_A1},
    {"pipe2", FDS_K_PAIR_A1},
    {"socketpair", FDS_K_PAIR_A4},
    {"fcntl", FDS_K_FCNTL},
    {"close", FDS_K_CLOSE},
    {"close_range", FDS_K_CLOSE_RANGE},
};

enum fds_kind fds__kind(const char *syscall)
{
	for (size_t i = 0; syscall && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].name, syscall))
			return kinds[i].kind;
	return FDS_K_NONE;
}

/* ------------------------------------------------------------------ collector */

static struct fds_settings {
	bool stacks; /* --fd-stacks */
} fds_settings;

static const struct collector_opt fds_opts[] = {
    {
	.name = "fd-stacks",
	.help = "fds: also count the fds each syscall opens and\n"
		"closes (eBPF, at every syscall exit: not on by\n"
		"default) and keep each open's user stack (as\n"
		"--user-stacks says): the opening sites of the fds\n"
		"still open at the end",
	.section = COPT_COLLECTORS,
	.order = 60,
	.parse = copt_parse_flag,
	.offset = offsetof(struct fds_settings, stacks),
    },
    {.name = NULL},
};

/* How the eBPF lane takes the sites' stacks this run, decided by fds_check. */
static struct {
	enum user_stacks mode; /* USER_STACKS_FP or _DWARF */
	char why[180];	       /* user_stacks__choose's reason */
	char no_fp[180];       /* fp walks asked for (--user-stacks fp) through modules
				* without frame pointers: which ("no frame pointers in ...");
				* "" when none is known */
} fds_stacks;

struct fds_bpf_lane {
	struct fds_bpf *skel;
	struct rec_ctx *ctx;
	struct ring_buffer *crb;     /* the stack copies' ring (dwarf); NULL: fp */
	struct stack_copies *copies; /* the capture's (dwarf) */
	int rb_err;		     /* the first error of a copy's record */
	uint64_t bad_copies;	     /* malformed copy records (not written) */
	int ncpus;
	struct fds_stat *percpu;     /* one value of fd_stats: ncpus copies */
	struct fds_stat *cur, *prev; /* FDS_MAX_NR cumulative sums */
	uint64_t *cnt_vals;	     /* ncpus */
	uint64_t prev_counters[FDS_CNT_MAX];
	uint64_t prev_misses;
	uint32_t nrs[FDS_MAX_NR]; /* the classified numbers */
	size_t n_nrs;
	/* fds the kernel closed without a close call (exec, close_range), by site: taken off
	 * the site's live count when it is sent; open addressing by the key's hash */
	struct fds_unseen {
		struct sm_key key; /* hash 0: a free slot */
		uint64_t n;
	} unseen[2 * FDS_SITES];
	uint64_t unseen_lost; /* of them, of a site the table had no room for */
};

/* The tally of fds closed without a close call at the site K: NULL when the table is full. */
static struct fds_unseen *unseen_slot(struct fds_bpf_lane *b, const struct sm_key *k)
{
	size_t n = sizeof(b->unseen) / sizeof(b->unseen[0]);
	size_t i = (size_t)(k->hash % n);

	for (size_t tries = 0; tries < n; tries++, i = (i + 1) % n) {
		struct fds_unseen *u = &b->unseen[i];

		if (!u->key.hash) {
			u->key = *k;
			return u;
		}
		if (!memcmp(&u->key, k, sizeof(*k)))
			return u;
	}
	return NULL;
}

/* Take off their sites the fds of fd_owner that S (the fd table read from READ_NS on,
 * CLOCK_MONOTONIC as bpf_ktime_get_ns) no longer has: closed by the kernel without a
 * close call (exec's close-on-exec, close_range, ...). Each entry is taken with a
 * lookup-and-delete, so that the kernel's close of the same fd (fd_gone, which deletes
 * before it counts) and this count it once; an entry reopened between the look and the
 * delete is put back. 0 or -errno. */
static int reconcile(struct fds_bpf_lane *b, const struct fd_scan *s, uint64_t read_ns)
{
	int ofd = bpf_map__fd(b->skel->maps.fd_owner);
	__u32 key, next, *prev = NULL;
	__u32 *stale = malloc(FDS_OWNERS * sizeof(*stale));
	size_t n = 0;
	struct fds_owner o, got;

	if (!stale)
		return -ENOMEM;
	while (n < FDS_OWNERS && bpf_map_get_next_key(ofd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(ofd, &key, &o))
			continue;
		if (fds__owner_closed(s, read_ns, (int)key, o.opened_ns))
			stale[n++] = key;
	}
	for (size_t i = 0; i < n; i++) {
		struct fds_unseen *u;

		if (bpf_map_lookup_and_delete_elem(ofd, &stale[i], &got))
			continue; /* closed by a close call since: counted there */
		if (!fds__owner_closed(s, read_ns, (int)stale[i], got.opened_ns)) {
			bpf_map_update_elem(ofd, &stale[i], &got, BPF_NOEXIST); /* reopened */
			continue;
		}
		u = unseen_slot(b, &got.key);
		if (u)
			u->n++;
		else
			b->unseen_lost++;
	}
	free(stale);
	return 0;
}

struct fds_priv {
	struct fds_bpf_lane *bpf; /* --fd-stacks with eBPF; NULL: the /proc lane alone */
	char dir[64];		  /* /proc/PID/fd */
	struct fd_scan scan;	  /* the last read, its table kept for the end */
	struct fd_scan next;	  /* the read in progress: becomes scan when it succeeds */
	uint64_t scan_ns;	  /* when it was read; 0: never */
	uint64_t prev_ns;	  /* the previous poll */
	bool table_sent;
};

static int emit(struct collector *c, const ProtobufCMessage *msg, uint64_t t, uint64_t iv)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CollectorPayload cp;
	int err;

	err = capture_payload__pack(&ev, &cp, "fds", msg);
	if (err)
		return err;
	err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, t, iv);
	capture_payload__release(&cp);
	return err;
}

/* Why the eBPF lane does not run, into BUF; false when it can. */
static bool no_bpf_lane(struct collector *c, char *buf, size_t len)
{
	if (!fds_settings.stacks) {
		snprintf(buf, len, "needs --fd-stacks (eBPF at every syscall exit)");
		return true;
	}
	if (c->ctx->no_ebpf) {
		snprintf(buf, len, "--fd-stacks: not with --no-ebpf");
		return true;
	}
	return bpf_util__can_trace(buf, len) != 0;
}

/* SRC, a list ("a (0 of 8 functions), b (...)"), into DST of LEN bytes: whole items, and
 * ", ..." when not all fit. */
static void cut_list(char *dst, size_t len, const char *src)
{
	const char *p = src, *cut = NULL;

	if (strlen(src) < len) {
		memcpy(dst, src, strlen(src) + 1);
		return;
	}
	while ((p = strstr(p + 1, ", ")) && (size_t)(p - src) + sizeof(", ...") <= len)
		cut = p;
	if (cut)
		snprintf(dst, len, "%.*s, ...", (int)(cut - src), src);
	else
		snprintf(dst, len, "%.*s", (int)len - 1, src);
}

/* Decide how the sites' stacks are taken for CTX's target (fds_stacks): as --user-stacks
 * says (auto: copies when a module of the target keeps no frame pointers); and when fp
 * walks were asked for by name, whether the target's modules keep frame pointers at all
 * (a walk through one that does not reads data as return addresses). */
static void choose_stacks(const struct rec_ctx *ctx)
{
	bool command = ctx->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND;
	char judged[1024];

	fds_stacks.no_fp[0] = '\0';
	fds_stacks.mode = user_stacks__choose(ctx, fds_stacks.why, sizeof(fds_stacks.why));
	if (fds_stacks.mode != USER_STACKS_FP || ctx->user_stacks != USER_STACKS_FP)
		return;
	if (user_stacks__auto(ctx->pid, command ? ctx->exe : NULL, judged, sizeof(judged)) ==
	    USER_STACKS_DWARF)
		cut_list(fds_stacks.no_fp, sizeof(fds_stacks.no_fp), judged);
}

/* The probe detail of the eBPF lane into C->detail (DIR: the fd directory read). */
static void bpf_lane_detail(struct collector *c, const char *dir)
{
	int n = snprintf(c->detail, sizeof(c->detail),
			 "%s: one readlink per fd each interval; raw_tp/sys_exit: fds opened and "
			 "closed per syscall, opening user stacks %s (%s)",
			 dir, user_stacks_name(fds_stacks.mode), fds_stacks.why);

	if (n < 0 || (size_t)n >= sizeof(c->detail))
		return;
	if (fds_stacks.mode == USER_STACKS_DWARF)
		snprintf(c->detail + n, sizeof(c->detail) - (size_t)n,
			 ": %d KiB stack copies, unwound offline", SC_MAX_BYTES / 1024);
	else if (fds_stacks.no_fp[0])
		snprintf(c->detail + n, sizeof(c->detail) - (size_t)n,
			 "; " FDS_FP_UNTRUSTED " (%s): a site's frames past the first are not "
			 "to be trusted (--user-stacks dwarf unwinds them)",
			 fds_stacks.no_fp);
}

static Ptop__V1__ProbeState fds_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	char dir[64], why[256];
	DIR *d;

	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
	c->reason[0] = '\0';
	if (ctx->caps_only) {
		snprintf(c->detail, sizeof(c->detail),
			 "/proc/PID/fd (the target's user, or CAP_SYS_PTRACE); --fd-stacks: eBPF "
			 "raw_tp/sys_exit (CAP_BPF and CAP_PERFMON)");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	if (ctx->pid <= 0) {
		snprintf(c->reason, sizeof(c->reason),
			 "the fd table is one process's: use --pid or a command, not --cgroup");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)ctx->pid);
	d = opendir(dir); /* a read: it changes nothing */
	if (!d) {
		int e = errno;

		snprintf(c->reason, sizeof(c->reason), "cannot read %s: %s%s", dir, strerror(e),
			 e == EACCES ? " (another user's process: run as its user or as root)"
				     : "");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	closedir(d);
	if (no_bpf_lane(c, why, sizeof(why))) {
		snprintf(
		    c->detail, sizeof(c->detail),
		    "%s: one readlink per fd each interval; opens and closes not collected: %s",
		    dir, why);
	} else {
		char kwhy[200];
		c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
		choose_stacks(ctx);
		/* the copies' lane, as cpuprof's: its helpers, else frame pointers */
		fds_stacks.mode = user_stacks__kernel(fds_stacks.mode, fds_stacks.why,
						      sizeof(fds_stacks.why), kwhy, sizeof(kwhy));
		user_stacks__lanes(c, fds_stacks.mode, c->source, kwhy, NULL);
		bpf_lane_detail(c, dir);
	}
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void bpf_lane_free(struct fds_bpf_lane *b)
{
	if (!b)
		return;
	ring_buffer__free(b->crb);
	fds_bpf__destroy(b->skel);
	free(b->percpu);
	free(b->cur);
	free(b->prev);
	free(b->cnt_vals);
	free(b);
}

/* A stack copy from the ring: its Stack record, once per key. */
static int on_copy(void *arg, void *data, size_t size)
{
	struct fds_bpf_lane *b = arg;
	int err;

	if (b->rb_err)
		return 0;
	err = stack_copies__add(b->ctx, b->copies, stack_table__capture(), data, size);
	if (err == -EINVAL)
		b->bad_copies++;
	else if (err)
		b->rb_err = err;
	return 0;
}

/* The target's VMAs for the stack copies (bpf/stackcopy.h), from its maps now: the BPF
 * side then seldom needs to look one up. A failure only costs it lookups. */
static void seed_vmas(struct fds_bpf_lane *b, pid_t pid)
{
	struct sc_vmas t, *v;
	__u32 key = (__u32)pid;

	if (pid <= 0 || sc_vmas__read(pid, &t))
		return;
	v = calloc((size_t)b->ncpus, sizeof(*v));
	if (!v)
		return;
	for (int i = 0; i < b->ncpus; i++)
		v[i] = t;
	bpf_map_update_elem(bpf_map__fd(b->skel->maps.fd_vmas), &key, v, BPF_ANY);
	free(v);
}

/* The copies the ring holds, each written as its Stack record: before the sites that
 * refer to them. 0 or -errno of writing one. */
static int drain_copies(struct fds_bpf_lane *b)
{
	if (!b->crb)
		return 0;
	ring_buffer__consume(b->crb);
	return b->rb_err;
}

/* Load and attach the eBPF lane into *OUT. 0, or -errno with the reason in WHY. */
static int bpf_lane_start(struct collector *c, struct fds_bpf_lane **out, char *why, size_t len)
{
	const struct syscall_table *tab = syscall_table__native();
	struct fds_bpf_lane *b = calloc(1, sizeof(*b));
	int err, fd;
	uint32_t nr;

	*out = NULL;
	if (!b)
		return -ENOMEM;
	b->ctx = c->ctx;
	b->ncpus = bpf_util__ncpus();
	if (b->ncpus <= 0) {
		err = b->ncpus < 0 ? b->ncpus : -EINVAL;
		snprintf(why, len, "cannot count possible CPUs: %s", strerror(-err));
		goto fail;
	}
	b->percpu = calloc((size_t)b->ncpus, sizeof(*b->percpu));
	b->cur = calloc(FDS_MAX_NR, sizeof(*b->cur));
	b->prev = calloc(FDS_MAX_NR, sizeof(*b->prev));
	b->cnt_vals = calloc((size_t)b->ncpus, sizeof(*b->cnt_vals));
	if (!b->percpu || !b->cur || !b->prev || !b->cnt_vals) {
		err = -ENOMEM;
		snprintf(why, len, "out of memory");
		goto fail;
	}
retry:
	bpf_util__open_log(c->ctx->verbose);
	b->skel = fds_bpf__open();
	if (!b->skel) {
		err = -errno;
		bpf_util__format_error(why, len, "open fds BPF", err);
		goto fail;
	}
	b->skel->rodata->targ_tgid = (__u32)c->ctx->pid;
	b->skel->rodata->fd_stacks = true;
	/* test hook: every stack scan's per-CPU state taken over (bpf/stackcopy.bpf.h) */
	b->skel->rodata->sc_test_clobber = getenv("PTOP_TEST_STACK_CLOBBER") != NULL;
	b->skel->rodata->fd_user_stacks =
	    fds_stacks.mode == USER_STACKS_DWARF ? FDS_USER_COPY : FDS_USER_FP;
	if (fds_stacks.mode != USER_STACKS_DWARF) { /* the copies' maps stay small */
		bpf_map__set_max_entries(b->skel->maps.fd_copies, 4096);
		bpf_map__set_max_entries(b->skel->maps.fd_copied, 1);
	}
	/* PTOP_TEST_REFUSE=stack_copy: the copies' load refused, as by a verifier */
	err = user_stacks__copy_refused(fds_stacks.mode) ? -E2BIG : fds_bpf__load(b->skel);
	if (err && fds_stacks.mode == USER_STACKS_DWARF) {
		/* the stack copies did not load: frame-pointer stacks, the lanes say why */
		char cwhy[300], *at;

		user_stacks__copy_failed(c, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF,
					 "load fds BPF with stack copies", err, cwhy, sizeof(cwhy));
		fds_stacks.mode = USER_STACKS_FP;
		snprintf(fds_stacks.why, sizeof(fds_stacks.why),
			 "the stack copies failed to load: %.140s", cwhy);
		at = strstr(c->detail, "opening user stacks dwarf");
		if (at)
			snprintf(at, sizeof(c->detail) - (size_t)(at - c->detail),
				 "opening user stacks fp (%s)", fds_stacks.why);
		fds_bpf__destroy(b->skel);
		b->skel = NULL;
		goto retry;
	}
	err = err ?: bpf_util__loaded(b->skel->obj, "fds");
	if (err) {
		bpf_util__format_error(why, len, "load fds BPF", err);
		goto fail;
	}
	fd = bpf_map__fd(b->skel->maps.fd_kind);
	for (nr = 0; nr < FDS_MAX_NR; nr++) {
		uint32_t k = fds__kind(syscall_table__name(tab, nr));

		if (k == FDS_K_NONE)
			continue;
		if (bpf_map_update_elem(fd, &nr, &k, BPF_ANY)) {
			err = -errno;
			bpf_util__format_error(why, len, "fill fd_kind", err);
			goto fail;
		}
		b->nrs[b->n_nrs++] = nr;
	}
	if (fds_stacks.mode == USER_STACKS_DWARF) {
		b->copies = stack_copies__capture();
		b->crb = ring_buffer__new(bpf_map__fd(b->skel->maps.fd_copies), on_copy, b, NULL);
		if (!b->copies || !b->crb) {
			err = b->crb ? -ENOMEM : -errno;
			snprintf(why, len, "stack copies' ring buffer: %s", strerror(-err));
			goto fail;
		}
		seed_vmas(b, c->ctx->pid);
	}
	b->skel->links.fd_exit = bpf_program__attach(b->skel->progs.fd_exit);
	if (!b->skel->links.fd_exit) {
		err = -errno;
		bpf_util__format_error(why, len, "attach raw_tp/sys_exit", err);
		goto fail;
	}
	b->skel->links.fd_enter = bpf_program__attach(b->skel->progs.fd_enter);
	if (!b->skel->links.fd_enter) {
		err = -errno;
		bpf_util__format_error(why, len, "attach raw_tp/sys_enter", err);
		goto fail;
	}
	*out = b;
	return 0;
fail:
	bpf_lane_free(b);
	return err;
}

static int fds_start(struct collector *c)
{
	struct fds_priv *p = calloc(1, sizeof(*p));

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	snprintf(p->dir, sizeof(p->dir), "/proc/%d/fd", (int)c->ctx->pid);
	c->priv = p;
	if (c->source == PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF) {
		char why[256];
		int err = bpf_lane_start(c, &p->bpf, why, sizeof(why));

		if (err == -ENOMEM)
			return err;
		if (err) { /* the /proc lane runs alone, and the probe says why */
			c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
			snprintf(c->detail, sizeof(c->detail),
				 "%s: one readlink per fd each interval; opens and closes not "
				 "collected: %s",
				 p->dir, why);
		}
	}
	p->prev_ns = rec_now_ns();
	return 0;
}

/* The interval's opens and closes per syscall (FdOps), from the cumulative per-CPU sums. */
static int emit_ops(struct collector *c, struct fds_bpf_lane *b, uint64_t now_ns, uint64_t interval)
{
	const struct syscall_table *tab = syscall_table__native();
	Ptop__V1__FdOps ops = PTOP__V1__FD_OPS__INIT;
	Ptop__V1__FdCall calls[64], *ptrs[64];
	int fd = bpf_map__fd(b->skel->maps.fd_stats), err;
	size_t i, k = 0;

	for (i = 0; i < b->n_nrs; i++) {
		uint32_t nr = b->nrs[i];
		struct fds_stat sum = {0}, *cur = &b->cur[nr], *prev = &b->prev[nr];

		if (bpf_map_lookup_elem(fd, &nr, b->percpu))
			return -errno;
		for (int cpu = 0; cpu < b->ncpus; cpu++) {
			sum.opened += b->percpu[cpu].opened;
			sum.failed += b->percpu[cpu].failed;
			sum.closed += b->percpu[cpu].closed;
			sum.emfile += b->percpu[cpu].emfile;
		}
		*cur = sum;
		if (k == sizeof(calls) / sizeof(calls[0])) /* more than the table names: none */
			break;
		ptop__v1__fd_call__init(&calls[k]);
		calls[k].opened = cur->opened - prev->opened;
		calls[k].failed = cur->failed - prev->failed;
		calls[k].closed = cur->closed - prev->closed;
		calls[k].emfile = cur->emfile - prev->emfile;
		*prev = *cur;
		if (!(calls[k].opened | calls[k].failed | calls[k].closed))
			continue;
		calls[k].syscall = (char *)syscall_table__name(tab, nr);
		ptrs[k] = &calls[k];
		k++;
	}
	ops.n_calls = k;
	ops.calls = k ? ptrs : NULL;
	err = emit(c, &ops.base, now_ns, interval);
	return err;
}

static const char *const counter_kind[FDS_CNT_MAX] = {
    [FDS_CNT_OWNER_FULL] = "map_full",
    [FDS_CNT_STACK_FAIL] = "stack_failed",
    [FDS_CNT_SITE_FULL] = "map_full",
    [FDS_CNT_COPY_LOST] = "stack_copy_ring_full",
    [FDS_CNT_RANGE_LOST] = "close_range_uncounted",
    [FDS_CNT_STACK_CLOBBERED] = "stack_state_clobbered",
};
static const char *const counter_detail[FDS_CNT_MAX] = {
    [FDS_CNT_OWNER_FULL] = "fd_owner full: an open fd's site not kept (its close not "
			   "credited)",
    [FDS_CNT_STACK_FAIL] = "no user stack for an open: counted, not credited to a site",
    [FDS_CNT_SITE_FULL] = "fd_sites full: an open not credited to its site",
    [FDS_CNT_COPY_LOST] = "stack copies the ring had no room for: the open is credited to "
			  "its site, whose stack is missing unless a later open there sent it",
    [FDS_CNT_RANGE_LOST] = "close_range calls whose closed fds were not counted (a range "
			   "wider than 2^20 fds, or fd_ranging full)",
    [FDS_CNT_STACK_CLOBBERED] = "opens without their stack: another stack scan on the same "
				"CPU (a preempted program) overwrote the scan's per-CPU state, "
				"so the copy was dropped, not sent mixed",
};

static int emit_losses(struct collector *c, struct fds_bpf_lane *b)
{
	uint64_t v, misses;
	int err;

	for (uint32_t i = 0; i < FDS_CNT_MAX; i++) {
		err = bpf_util__percpu_sum(b->skel->maps.fd_counters, i, b->cnt_vals, sizeof(__u64),
					   &v, 1);
		if (err)
			return err;
		err = rec_emit_drop(c, counter_kind[i], v - b->prev_counters[i], counter_detail[i]);
		if (err)
			return err;
		b->prev_counters[i] = v;
	}
	if (bpf_util__prog_misses(b->skel->progs.fd_exit, &misses) == 0) {
		err = rec_emit_drop(c, "recursion_miss", misses - b->prev_misses,
				    "fd_exit: runs skipped by the kernel (program busy)");
		if (err)
			return err;
		b->prev_misses = misses;
	}
	err = rec_emit_drop(c, "stack_copy_malformed", b->bad_copies,
			    "stack copies from the kernel too short for their size: not written");
	b->bad_copies = 0;
	err = err ?: rec_emit_drop(c, "map_full", b->unseen_lost,
				   "fds closed without a close call whose site had no tally: "
				   "still counted live");
	b->unseen_lost = 0;
	return err;
}

/* The opening sites at the end (FdSites), each stack written once as a Stack record: a
 * walk's from the stack map here, a copy's as it came through the ring (drained after
 * the sites are read, so that a site made since the poll began has its copy written). */
static int emit_sites(struct collector *c, struct fds_bpf_lane *b, uint64_t now_ns)
{
	struct stack_table *t = stack_table__capture();
	int sfd = bpf_map__fd(b->skel->maps.fd_sites);
	int kfd = bpf_map__fd(b->skel->maps.fd_stacks_map);
	Ptop__V1__FdSites msg = PTOP__V1__FD_SITES__INIT;
	Ptop__V1__FdSite *sites = NULL, **ptrs = NULL;
	uint64_t ips[SM_MAX_DEPTH];
	struct sm_key *keys = NULL, next, *prev = NULL;
	struct fds_unseen *u;
	struct fds_site v;
	size_t n = 0, i;
	int err = 0;

	if (!t)
		return -ENOMEM;
	sites = calloc(FDS_SITES, sizeof(*sites));
	ptrs = calloc(FDS_SITES, sizeof(*ptrs));
	keys = calloc(FDS_SITES, sizeof(*keys));
	if (!sites || !ptrs || !keys) {
		err = -ENOMEM;
		goto out;
	}
	while (n < FDS_SITES && bpf_map_get_next_key(sfd, prev, &next) == 0) {
		keys[n] = next;
		prev = &keys[n];
		if (bpf_map_lookup_elem(sfd, &keys[n], &v))
			continue;
		ptop__v1__fd_site__init(&sites[n]);
		sites[n].opened = v.opened;
		sites[n].live = v.live;
		u = unseen_slot(b, &keys[n]);
		/* closed by the kernel without a close call: found by the kernel when
		 * their number was given to a new fd, or missing from the fd table */
		sites[n].closed_unseen = v.closed_unseen;
		if (u && u->n) {
			sites[n].closed_unseen += u->n;
			sites[n].live = v.live > u->n ? v.live - u->n : 0;
		}
		ptrs[n] = &sites[n];
		n++;
	}
	err = drain_copies(b);
	for (i = 0; !err && i < n; i++) {
		uint64_t id = 0;
		int k;

		if (keys[i].kernel == SM_KIND_COPY) { /* its record came through the ring */
			if (stack_copies__find(b->copies, (uint32_t)c->ctx->pid, keys[i].hash, &id))
				id = 0; /* its copy was lost (counted): no stack */
		} else {
			k = stackmap__read(kfd, &keys[i], ips, SM_MAX_DEPTH);
			if (k > 0)
				err =
				    stack_table__emit(c->ctx, t, false, 0, ips, (size_t)k, &id);
		}
		sites[i].stack_id = id;
	}
	if (err)
		goto out;
	msg.n_sites = n;
	msg.sites = n ? ptrs : NULL;
	msg.reconciled = true; /* closed_unseen measured, 0 or not */
	err = emit(c, &msg.base, now_ns, 0);
out:
	free(sites);
	free(ptrs);
	free(keys);
	return err;
}

/* The table of the last read, once: at the final poll. */
static int emit_table(struct collector *c, struct fds_priv *p)
{
	Ptop__V1__FdTable tab = PTOP__V1__FD_TABLE__INIT;
	Ptop__V1__FdEntry *ents = NULL, **ptrs = NULL;
	size_t i, n = p->scan.nents;
	int err;

	if (p->table_sent || !p->scan_ns)
		return 0;
	p->table_sent = true;
	if (n && (!(ents = calloc(n, sizeof(*ents))) || !(ptrs = calloc(n, sizeof(*ptrs))))) {
		free(ents);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		ptop__v1__fd_entry__init(&ents[i]);
		ents[i].fd = p->scan.ents[i].fd;
		ents[i].type = (char *)fds__type_name(p->scan.ents[i].type);
		ents[i].target = p->scan.ents[i].target;
		ents[i].probe = p->scan.ents[i].probe;
		ptrs[i] = &ents[i];
	}
	tab.n_entries = n;
	tab.entries = ptrs;
	tab.truncated = p->scan.truncated;
	err = emit(c, &tab.base, p->scan_ns, 0);
	free(ptrs);
	free(ents);
	return err;
}

/* At the final poll: the opening sites (their live counts reconciled with the last read
 * of the fd table), then that table. */
static int emit_end(struct collector *c, struct fds_priv *p, uint64_t now_ns)
{
	int err = p->bpf ? emit_sites(c, p->bpf, now_ns) : 0;

	return err ?: emit_table(c, p);
}

/* CLOCK_MONOTONIC in ns: bpf_ktime_get_ns's clock (fd_owner's opening times). */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int fds_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct fds_priv *p = c->priv;
	Ptop__V1__FdSample fs = PTOP__V1__FD_SAMPLE__INIT;
	uint64_t interval, read_ns;
	int err;

	if (!p)
		return -EINVAL;
	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	p->prev_ns = now_ns;
	if (p->bpf) { /* the kernel's counts first: they are the target's, whatever /proc says */
		err = drain_copies(p->bpf); /* before the sites that refer to them */
		if (!err && p->bpf->crb)
			seed_vmas(p->bpf, c->ctx->pid); /* the mappings may have changed */
		err = err ?: emit_ops(c, p->bpf, now_ns, interval);
		err = err ?: emit_losses(c, p->bpf);
		if (err)
			return err;
	}
	/* the table is kept from every read (cheap beside the readlinks) so the end has it
	 * even when the target is gone by the final poll */
	read_ns = mono_ns();
	err = fds__scan(p->dir, true, c->ctx->start_pipe_ino, &p->next);
	if (!err && !p->next.total) { /* a zombie's fd directory is empty: not a measurement */
		struct proc_stat st;
		int e = procfs_read_stat(c->ctx->pid, &st);

		if (e || st.state == 'Z' || st.state == 'X')
			err = e ?: -ESRCH;
	}
	if (!err) {
		struct fd_scan tmp = p->scan;

		p->scan = p->next;
		p->next = tmp;
		/* the live counts agree with the table read: fds it lacks were closed */
		if (p->bpf)
			err = reconcile(p->bpf, &p->scan, read_ns);
		if (err)
			return err;
	}
	if (err == -ENOMEM)
		return err;
	if (err && procfs_is_gone(c->ctx->pid, err))
		return (flags & POLL_FINAL) ? emit_end(c, p, now_ns) : 0;
	if (err) { /* not measured: counted, not sent as 0 */
		err = rec_emit_drop(c, "proc_unreadable", 1, "fd");
		return err ?: ((flags & POLL_FINAL) ? emit_end(c, p, now_ns) : 0);
	}
	p->scan_ns = now_ns;
	fs.total = p->scan.total;
	fs.file = p->scan.count[FD_FILE];
	fs.socket = p->scan.count[FD_SOCKET];
	fs.pipe = p->scan.count[FD_PIPE];
	fs.eventfd = p->scan.count[FD_EVENTFD];
	fs.epoll = p->scan.count[FD_EPOLL];
	fs.timerfd = p->scan.count[FD_TIMERFD];
	fs.signalfd = p->scan.count[FD_SIGNALFD];
	fs.anon_inode = p->scan.count[FD_ANON_INODE];
	fs.other = p->scan.count[FD_OTHER];
	err = emit(c, &fs.base, now_ns, interval);
	if (!err && (flags & POLL_FINAL))
		err = emit_end(c, p, now_ns);
	return err;
}

static void fds_stop(struct collector *c)
{
	struct fds_priv *p = c->priv;

	if (!p)
		return;
	bpf_lane_free(p->bpf);
	free(p->scan.ents);
	free(p->next.ents);
	free(p);
	c->priv = NULL;
}

const struct collector_ops fds_collector = {
    .name = "fds",
    .summary = "open fds by type per interval, the table at the end (/proc/PID/fd); "
	       "opens, closes and opening sites with --fd-stacks (eBPF sys_exit)",
    .opts = fds_opts,
    .settings = &fds_settings,
    .settings_size = sizeof(fds_settings),
    .check = fds_check,
    .start = fds_start,
    .poll = fds_poll,
    .stop = fds_stop,
};
