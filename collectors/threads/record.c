/* record.c — the threads collector's recorder side: per thread of the target, each
 * interval, its on-CPU and off-CPU time (by reason: runnable waiting for a CPU, sleeping,
 * blocked uninterruptibly), voluntary and involuntary switches, CPU and migrations (eBPF
 * lane, threads.bpf.c); its state, wchan, CPU time and switch counts from
 * /proc/PID/task/TID (the /proc lane, also with --no-ebpf); threads created, exited and
 * renamed (eBPF: with their times; /proc lane alone: seen at a poll); and where threads
 * blocked, aggregated in the kernel by (thread, reason, user stack, kernel stack) with
 * the time blocked and the count: the off-CPU profile.
 *
 * In-progress periods: a thread on CPU or off CPU at a poll has its open period counted
 * up to the poll (as collectors/cpu/record.c does for on-CPU time), and what was counted
 * is never taken back: the cumulative figures sent only grow.
 *
 * Stacks: taken at the switch-out of a thread that leaves the CPU to sleep or to block;
 * the kernel's by a frame-pointer walk (bpf_get_stack), the user's as --user-stacks says:
 * fp, a walk; dwarf, and auto (whatever the target keeps: a block starts in the C
 * library's syscall wrappers, built without frame pointers, from which a walk skips the
 * wrapper's caller), a copy of the top of the user stack (bpf/stackcopy.h), sent once
 * per key and written as its Stack record with the copy (record/stackcopy.h), unwound
 * by ptop-analyze. When the copies cannot load, frame-pointer walks, the lanes saying
 * why. Walks are written as Stack records through the capture's stack table
 * (record/stack_table.h), as cpuprof's.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collectors/cpu/record.h"     /* cpu__oncpu_advance */
#include "record/stack_table.h" /* the capture's stack table, stackmap__read */
#include "collectors/threads/record.h"
#include "collectors/threads/threads.h"
#include "collectors/threads/threads.pb-c.h"
#include "bpf/stackcopy.h" /* struct sc_vmas, in the skeleton */
#include "collectors/threads/threads.skel.h"
#include "common/array.h"
#include "common/duration.h"
#include "proto/capture.h"
#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/kfeature.h"
#include "record/procfs.h"
#include "record/stackcopy.h"

/* --offcpu-min's default (bench/README.md, threads): a pipe ping-pong's blocks all last 1 us
 * or more (a switch out and back in costs about that), so none is lost; 10 us would skip
 * 97% of its blocks, 14% of its blocked time */
#define THR_DEFAULT_MIN "1us"

static struct threads_settings {
	uint64_t offcpu_min_ns; /* --offcpu-min */
	bool no_stacks;		/* --offcpu-min off */
} threads_settings;

/* --offcpu-min D: a duration, 0 allowed; "off": no off-CPU stacks at all. */
static int parse_min(const struct collector_opt *o, const char *arg, void *field, char *err,
		     size_t errlen)
{
	struct threads_settings *s = (struct threads_settings *)((char *)field - o->offset);
	uint64_t v;

	(void)field;
	if (arg && !strcmp(arg, "off")) {
		s->no_stacks = true;
		s->offcpu_min_ns = 0;
		return 0;
	}
	if (!arg || duration__parse(arg, 60ULL * 1000000000ULL, 0, &v)) {
		snprintf(err, errlen,
			 "--offcpu-min '%s' is not a duration from 0 to 60s (e.g. 0, 500us, 1ms) "
			 "or 'off'",
			 arg ? arg : "");
		return -EINVAL;
	}
	s->no_stacks = false;
	s->offcpu_min_ns = v;
	return 0;
}

/* How the user stacks of the blocks are taken this run, decided by threads_check. */
static struct {
	enum user_stacks mode; /* FP or DWARF */
	char why[240];
} thr_ustacks;

static const struct collector_opt threads_opts[] = {
	{
		.name = "offcpu-min",
		.arg = "D",
		.def = THR_DEFAULT_MIN,
		.help = "threads: off-CPU stacks keep blocks of at least D\n"
			"(default " THR_DEFAULT_MIN "; shorter ones are counted as skipped);\n"
			"'off': no off-CPU stacks",
		.section = COPT_COLLECTORS,
		.order = 80,
		.parse = parse_min,
		.offset = offsetof(struct threads_settings, offcpu_min_ns),
	},
	{ .name = NULL },
};

/* One thread as the recorder knows it (sorted by tid in thr_priv.t). */
struct thr_rec {
	int32_t tid;
	char comm[64];
	/* eBPF: what was sent so far (on, runnable, sleep, blocked) and the switch counts */
	uint64_t sent[4];
	uint64_t sent_vol, sent_invol, sent_mig;
	bool exited_seen;	/* its map entry said exited at a poll: deleted at the next */
	/* /proc lane */
	bool proc_alive;	/* in /proc/PID/task at the last poll */
	bool have_base;
	uint64_t ticks, vol, invol; /* at the last poll */
	bool touched;		/* seen in this poll */
};

struct thr_priv {
	struct threads_bpf *skel; /* NULL: the /proc lane alone */
	struct ring_buffer *rb;
	struct ring_buffer *crb;     /* the stack copies' ring (dwarf); NULL: fp */
	struct stack_copies *copies; /* the capture's (dwarf) */
	uint64_t bad_copies;	     /* malformed copy records (not written) */
	int crb_err;
	struct stack_table *table;
	int ncpus;
	struct thr_counters *cnt; /* ncpus copies */
	uint64_t prev_cnt[sizeof(struct thr_counters) / 8];
	uint64_t prev_misses;
	uint32_t set;
	bool membarrier;
	long clk_tck;
	uint64_t prev_ns;
	struct thr_rec *t;
	size_t n, cap;
	/* the interval's thread events (from the ring and the /proc lane) */
	Ptop__V1__ThreadEvent *ev;
	size_t nev, capev;
	struct sm_ips ips;
	char *buf;
	size_t bufcap;
	int rb_err;
	struct rec_ctx *ctx;
};

static int cmp_tid(const void *a, const void *b)
{
	int32_t x = ((const struct thr_rec *)a)->tid, y = ((const struct thr_rec *)b)->tid;

	return x < y ? -1 : x > y;
}

/* The record of TID, added (zeroed) when ADD; NULL when absent or out of memory. */
static struct thr_rec *rec_of(struct thr_priv *p, int32_t tid, bool add)
{
	struct thr_rec k = { .tid = tid }, *r;

	r = p->n ? bsearch(&k, p->t, p->n, sizeof(k), cmp_tid) : NULL;
	if (r || !add)
		return r;
	if (array__grow((void **)&p->t, &p->cap, p->n, sizeof(*p->t)))
		return NULL;
	p->t[p->n++] = k;
	qsort(p->t, p->n, sizeof(*p->t), cmp_tid);
	return bsearch(&k, p->t, p->n, sizeof(k), cmp_tid);
}

static void rec_remove(struct thr_priv *p, int32_t tid)
{
	struct thr_rec *r = rec_of(p, tid, false);

	if (!r)
		return;
	memmove(r, r + 1, (size_t)(p->t + p->n - (r + 1)) * sizeof(*r));
	p->n--;
}

/* Add an event of the interval; its strings are copied. -ENOMEM or 0. */
static int add_event(struct thr_priv *p, uint64_t t, const char *type, int32_t tid, int32_t by,
		     const char *comm, bool exact)
{
	Ptop__V1__ThreadEvent *e;

	if (array__grow((void **)&p->ev, &p->capev, p->nev, sizeof(*p->ev)))
		return -ENOMEM;
	e = &p->ev[p->nev];
	ptop__v1__thread_event__init(e);
	e->time_ns = t;
	e->type = (char *)type; /* static */
	e->tid = tid;
	e->by = by;
	e->comm = strdup(comm ? comm : "");
	if (!e->comm)
		return -ENOMEM;
	e->exact = exact;
	p->nev++;
	return 0;
}

static void clear_events(struct thr_priv *p)
{
	for (size_t i = 0; i < p->nev; i++)
		free(p->ev[i].comm);
	p->nev = 0;
}

/* The eBPF lane's detail with off-CPU stacks, as thr_ustacks says. */
static void stacks_detail(struct collector *c)
{
	snprintf(c->detail, sizeof(c->detail),
		 "tp_btf/sched_switch, sched_wakeup, sched_process_fork/exit, task_rename; "
		 "off-CPU stacks of blocks of at least %llu ns: user %s (%s)%s, kernel fp%s",
		 (unsigned long long)threads_settings.offcpu_min_ns,
		 user_stacks_name(thr_ustacks.mode), thr_ustacks.why,
		 thr_ustacks.mode == USER_STACKS_DWARF
			 ? ": stack copies at each voluntary switch-out, unwound offline"
			 : "",
		 c->ctx->pid > 0 ? "; /proc/PID/task/TID stat,status,wchan" : "");
}

static Ptop__V1__ProbeState threads_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	char why[200] = "";
	bool ebpf = !ctx->no_ebpf && bpf_util__can_trace(why, sizeof(why)) == 0;
	char task[64];
	DIR *d;

	c->reason[0] = '\0';
	if (ctx->caps_only) {
		c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
		snprintf(c->detail, sizeof(c->detail),
			 "eBPF tp_btf/sched_switch, sched_wakeup, sched_process_fork/exit, "
			 "task_rename (CAP_BPF, CAP_PERFMON); /proc/PID/task (the target's user)");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	if (ctx->pid <= 0 && !ebpf) {
		c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
		snprintf(c->reason, sizeof(c->reason),
			 "a cgroup's threads need the eBPF lane (%s): the /proc lane reads one "
			 "process",
			 ctx->no_ebpf ? "--no-ebpf given" : why);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	if (ctx->pid > 0) {
		snprintf(task, sizeof(task), "/proc/%d/task", (int)ctx->pid);
		d = opendir(task);
		if (!d) {
			c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
			snprintf(c->reason, sizeof(c->reason), "cannot list %s: %s", task,
				 strerror(errno));
			return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
		}
		closedir(d);
	}
	c->source = ebpf ? PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF
			 : PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
	collector_lane(c, "sched_switch",
		       ebpf ? PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE
			    : PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED,
		       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s",
		       ebpf ? "" : ctx->no_ebpf ? "--no-ebpf given" : why);
	if (ebpf && !threads_settings.no_stacks) {
		char kwhy[200];

		/* auto: copies, whatever the program keeps: a block starts in the C
		 * library's syscall wrappers (no frame pointers on the distributions), and
		 * a walk from one skips its caller */
		if (ctx->user_stacks == USER_STACKS_AUTO) {
			thr_ustacks.mode = USER_STACKS_DWARF;
			snprintf(thr_ustacks.why, sizeof(thr_ustacks.why),
				 "--user-stacks auto: a block starts in the C library's syscall "
				 "wrappers, whose callers only copies find");
		} else {
			thr_ustacks.mode = user_stacks__choose(ctx, thr_ustacks.why,
							       sizeof(thr_ustacks.why));
		}
		thr_ustacks.mode = user_stacks__kernel(thr_ustacks.mode, thr_ustacks.why,
						       sizeof(thr_ustacks.why), kwhy, sizeof(kwhy));
		user_stacks__lanes(c, thr_ustacks.mode, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF,
				   kwhy, NULL);
	}
	if (ebpf && threads_settings.no_stacks)
		snprintf(c->detail, sizeof(c->detail),
			 "tp_btf/sched_switch, sched_wakeup, sched_process_fork/exit, task_rename; "
			 "off-CPU stacks off (--offcpu-min off)%s",
			 ctx->pid > 0 ? "; /proc/PID/task/TID stat,status,wchan" : "");
	else if (ebpf)
		stacks_detail(c);
	else
		snprintf(c->detail, sizeof(c->detail),
			 "/proc/PID/task/TID stat,status,wchan (eBPF lane off: %s)",
			 ctx->no_ebpf ? "--no-ebpf" : why);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void threads_stop(struct collector *c)
{
	struct thr_priv *p = c->priv;

	if (!p)
		return;
	ring_buffer__free(p->rb);
	ring_buffer__free(p->crb);
	threads_bpf__destroy(p->skel);
	clear_events(p);
	free(p->ev);
	free(p->cnt);
	free(p->t);
	free(p->buf);
	free(p);
	c->priv = NULL;
}

/* A thread event from the ring. */
static int on_event(void *arg, void *data, size_t size)
{
	struct thr_priv *p = arg;
	const struct thr_event *e = data;
	static const char *const names[] = { NULL, "create", "exit", "rename" };
	char comm[sizeof(e->comm) + 1];
	struct thr_rec *r;

	if (size < sizeof(*e) || e->type < THR_EV_CREATE || e->type > THR_EV_RENAME)
		return 0;
	memcpy(comm, e->comm, sizeof(e->comm));
	comm[sizeof(e->comm)] = '\0';
	r = rec_of(p, (int32_t)e->tid, e->type != THR_EV_EXIT);
	if (r && e->type != THR_EV_EXIT)
		snprintf(r->comm, sizeof(r->comm), "%s", comm);
	p->rb_err = add_event(p, e->ts, names[e->type], (int32_t)e->tid, (int32_t)e->by, comm,
			      true);
	return p->rb_err;
}

/* A stack copy from the ring: its Stack record, once per key. */
static int on_copy(void *arg, void *data, size_t size)
{
	struct thr_priv *p = arg;
	int err;

	if (p->crb_err)
		return 0;
	err = stack_copies__add(p->ctx, p->copies, stack_table__capture(), data, size);
	if (err == -EINVAL)
		p->bad_copies++;
	else if (err)
		p->crb_err = err;
	return 0;
}

/* Seed the thread map with the target's threads that are off CPU at NOW (state S or D),
 * so that a thread asleep all along is counted off CPU from the start. */
static void seed_sleepers(struct thr_priv *p, pid_t pid, uint64_t now);

/* Load and attach threads.bpf.c. 0, or -errno with the reason in BUF. */
static int start_ebpf(struct collector *c, struct thr_priv *p, char *buf, size_t len)
{
	struct timespec ts;
	int err;

	p->ncpus = bpf_util__ncpus();
	if (p->ncpus <= 0) {
		snprintf(buf, len, "cannot count possible CPUs");
		return -EINVAL;
	}
	p->cnt = calloc((size_t)p->ncpus, sizeof(*p->cnt));
	if (!p->cnt) {
		snprintf(buf, len, "out of memory");
		return -ENOMEM;
	}
retry:
	bpf_util__open_log(c->ctx->verbose);
	p->skel = threads_bpf__open();
	if (!p->skel) {
		err = -errno;
		bpf_util__format_error(buf, len, "open threads BPF", err);
		return err;
	}
	p->skel->rodata->targ_tgid = (__u32)c->ctx->pid;
	p->skel->rodata->targ_cgid = c->ctx->cgroup_id;
	p->skel->rodata->targ_cglevel = c->ctx->cgroup_level;
	p->skel->rodata->offcpu_min_ns = threads_settings.offcpu_min_ns;
	p->skel->rodata->take_stacks = !threads_settings.no_stacks;
	if (threads_settings.no_stacks) {
		bpf_map__set_max_entries(p->skel->maps.thr_stacks, 1);
		bpf_map__set_max_entries(p->skel->maps.thr_off, 1);
	}
	p->skel->rodata->thr_user_stacks =
		!threads_settings.no_stacks && thr_ustacks.mode == USER_STACKS_DWARF
			? THR_USER_COPY
			: THR_USER_FP;
	if (p->skel->rodata->thr_user_stacks != THR_USER_COPY) { /* the copies' maps stay small */
		bpf_map__set_max_entries(p->skel->maps.thr_copies, 4096);
		bpf_map__set_max_entries(p->skel->maps.thr_copied, 1);
		bpf_map__set_max_entries(p->skel->maps.thr_copy_buf, 1);
		bpf_map__set_max_entries(p->skel->maps.thr_vmas, 1);
	}
	p->skel->rodata->sc_test_clobber = getenv("PTOP_TEST_STACK_CLOBBER") != NULL;
	/* a pid's VMA table is filled at each poll: no lookup in sched_switch */
	p->skel->rodata->thr_lookups = c->ctx->pid > 0 ? 0 : SC_LOOKUPS_PERF;
	/* PTOP_TEST_REFUSE=stack_copy: the copies' load refused, as by a verifier */
	err = p->skel->rodata->thr_user_stacks == THR_USER_COPY &&
			      user_stacks__copy_refused(thr_ustacks.mode)
		      ? -E2BIG
		      : threads_bpf__load(p->skel);
	if (err && p->skel->rodata->thr_user_stacks == THR_USER_COPY) {
		/* the stack copies did not load: frame-pointer walks, the lanes say why */
		char cwhy[300];

		user_stacks__copy_failed(c, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF,
					 "load threads BPF with stack copies", err, cwhy,
					 sizeof(cwhy));
		thr_ustacks.mode = USER_STACKS_FP;
		snprintf(thr_ustacks.why, sizeof(thr_ustacks.why),
			 "the stack copies failed to load: %.200s", cwhy);
		stacks_detail(c);
		threads_bpf__destroy(p->skel);
		p->skel = NULL;
		goto retry;
	}
	err = err ?: bpf_util__loaded(p->skel->obj, "threads");
	if (err) {
		bpf_util__format_error(buf, len, "load threads BPF", err);
		return err;
	}
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.thr_events), on_event, p, NULL);
	if (!p->rb) {
		err = -errno;
		snprintf(buf, len, "threads ring buffer: %s", strerror(-err));
		return err;
	}
	if (p->skel->rodata->thr_user_stacks == THR_USER_COPY) {
		p->copies = stack_copies__capture();
		p->crb = ring_buffer__new(bpf_map__fd(p->skel->maps.thr_copies), on_copy, p, NULL);
		if (!p->copies || !p->crb) {
			err = p->crb ? -ENOMEM : -errno;
			snprintf(buf, len, "stack copies' ring buffer: %s", strerror(-err));
			return err;
		}
		/* the target's VMAs from its maps now: the copies then seldom look one up
		 * (one lookup per copy at most in sched_switch); a failure only costs
		 * lookups */
		sc_vmas__seed(bpf_map__fd(p->skel->maps.thr_vmas), c->ctx->pid, p->ncpus);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	p->skel->bss->attach_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	err = threads_bpf__attach(p->skel);
	if (err) {
		bpf_util__format_error(buf, len, "attach the threads tracepoints", err);
		return err;
	}
	/* the first interval starts once the programs run; the threads asleep then are off
	 * CPU from then (a thread that switched meanwhile has its entry: not replaced) */
	p->prev_ns = rec_now_ns();
	if (c->ctx->pid > 0)
		seed_sleepers(p, c->ctx->pid, p->prev_ns);
	p->table = stack_table__capture();
	return 0;
}

int threads__parse_task_stat(const char *text, char *state, int *cpu)
{
	const char *s = strrchr(text, ')');
	int field = 3; /* the one after ')' is field 3, state */

	if (!s || s[1] != ' ' || !s[2])
		return -EINVAL;
	*state = s[2];
	*cpu = -1;
	for (s += 2; *s; s++) {
		if (*s != ' ')
			continue;
		if (++field == 39) {
			*cpu = atoi(s + 1);
			return 0;
		}
	}
	return 0;
}

static void seed_sleepers(struct thr_priv *p, pid_t pid, uint64_t now)
{
	char dir[64], name[64], state;
	struct dirent *de;
	size_t len;
	int cpu;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct thr_stat s = { 0 };
		__u32 tid = (__u32)atoi(de->d_name);

		if (!tid)
			continue;
		snprintf(name, sizeof(name), "task/%u/stat", tid);
		if (procfs_read_file(pid, name, &p->buf, &p->bufcap, &len) ||
		    threads__parse_task_stat(p->buf, &state, &cpu) || (state != 'S' && state != 'D'))
			continue;
		s.cpu = cpu;
		s.tgid = (__u32)pid;
		s.out_ts = now;
		s.out_reason = state == 'D' ? THR_BLOCKED : THR_SLEEP;
		bpf_map_update_elem(bpf_map__fd(p->skel->maps.thr_stats), &tid, &s, BPF_NOEXIST);
	}
	closedir(d);
}

/* The /proc lane alone: the target's threads at start, known (not created) when a poll
 * lists them. Out of memory: a thread not known is told as created, not lost. */
static void list_known(struct thr_priv *p, pid_t pid)
{
	char dir[64];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		int32_t tid = atoi(de->d_name);
		struct thr_rec *rec = tid > 0 ? rec_of(p, tid, true) : NULL;

		if (rec)
			rec->proc_alive = true;
	}
	closedir(d);
}

static int threads_start(struct collector *c)
{
	struct thr_priv *p = calloc(1, sizeof(*p));
	char why[300];
	int err;

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	c->priv = p;
	p->ctx = c->ctx;
	p->clk_tck = sysconf(_SC_CLK_TCK);
	if (p->clk_tck <= 0)
		p->clk_tck = 100;
	p->membarrier = true;
	if (c->source == PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF) {
		err = start_ebpf(c, p, why, sizeof(why));
		if (err && c->ctx->pid <= 0) {
			snprintf(c->reason, sizeof(c->reason), "%s", why);
			return err;
		}
		if (err) { /* the /proc lane stays */
			ring_buffer__free(p->rb);
			p->rb = NULL;
			ring_buffer__free(p->crb);
			p->crb = NULL;
			threads_bpf__destroy(p->skel);
			p->skel = NULL;
			c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
			collector_lane(c, "sched_switch", PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
				       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", why);
			snprintf(c->detail, sizeof(c->detail),
				 "/proc/PID/task/TID stat,status,wchan (eBPF lane failed: %s)", why);
		}
	}
	if (!p->prev_ns)
		p->prev_ns = rec_now_ns();
	if (!p->skel && c->ctx->pid > 0)
		list_known(p, c->ctx->pid);
	return 0;
}

/* Wait until no program run that may have read the old thr_set is still going: an RCU
 * grace period (sched_switch runs with preemption off). */
static void quiesce(struct thr_priv *p)
{
	struct timespec ts = { 0, 10000000 };

	if (p->membarrier && syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		return;
	p->membarrier = false;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static const char *reason_name(uint32_t r)
{
	return r == THR_BLOCKED ? "blocked" : r == THR_SLEEP ? "sleep" : "runnable";
}

/* The capture id of stack SK (0: none, or not readable), taken in process TGID (PID: the
 * process its walk's Stack record names, 0 for the target's). 0 or -errno from the
 * writer. */
static int resolve(struct collector *c, struct thr_priv *p, const struct sm_key *sk, uint32_t pid,
		   uint32_t tgid, uint64_t *id, uint64_t *unreadable)
{
	int n;

	*id = 0;
	if (!sk->hash)
		return 0;
	if (sk->kernel == SM_KIND_COPY) { /* its record came through the ring */
		if (!p->copies || stack_copies__find(p->copies, tgid, sk->hash, id)) {
			*id = 0;
			(*unreadable)++; /* its copy was lost on the way */
		}
		return 0;
	}
	n = stackmap__read(bpf_map__fd(p->skel->maps.thr_stacks), sk, (uint64_t *)p->ips.ips, SM_MAX_DEPTH);
	if (n <= 0) {
		(*unreadable)++;
		return 0;
	}
	return stack_table__emit(c->ctx, p->table, sk->kernel, pid, (const uint64_t *)p->ips.ips,
				    (size_t)n, id);
}

/* The off-CPU stacks of the old set into *OUT (*N of them); deletes them from the map. */
static int read_offcpu(struct collector *c, struct thr_priv *p, uint32_t set,
		       Ptop__V1__OffcpuStack **out, size_t *n, uint64_t *unreadable)
{
	int fd = bpf_map__fd(p->skel->maps.thr_off);
	struct thr_off_key key, next, *keys = NULL;
	Ptop__V1__OffcpuStack *o = NULL;
	struct thr_off_val v;
	size_t k = 0, cap = 0, i;
	void *prev = NULL;
	int seen = 0, err = 0;

	*out = NULL;
	*n = 0;
	while (seen++ < 2 * THR_OFF_ENTRIES && bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (next.set != set || bpf_map_lookup_elem(fd, &next, &v))
			continue;
		if (k == cap) {
			size_t kcap = cap;

			if (array__grow((void **)&o, &cap, k, sizeof(*o)) ||
			    array__grow((void **)&keys, &kcap, k, sizeof(*keys)))
				goto nomem;
		}
		ptop__v1__offcpu_stack__init(&o[k]);
		o[k].tid = (int32_t)next.tid;
		o[k].reason = (char *)reason_name(next.reason);
		o[k].total_ns = v.total_ns;
		o[k].count = v.count;
		keys[k++] = next;
	}
	for (i = 0; i < k && !err; i++) {
		/* a user stack is its process's: in cgroup mode the same ips in two
		 * processes are two stacks (cpuprof's rule) */
		uint32_t pid = c->ctx->pid > 0 ? 0 : keys[i].tgid;

		err = resolve(c, p, &keys[i].user, pid, keys[i].tgid, &o[i].user_stack_id,
			      unreadable);
		err = err ?: resolve(c, p, &keys[i].kern, 0, keys[i].tgid, &o[i].kernel_stack_id,
				     unreadable);
	}
	for (i = 0; i < k; i++)
		bpf_map_delete_elem(fd, &keys[i]);
	free(keys);
	*out = o;
	*n = k;
	return err;
nomem:
	free(o);
	free(keys);
	return -ENOMEM;
}

void threads__estimate(const struct thr_stat *s, uint64_t now, uint64_t est[4])
{
	est[0] = s->oncpu_ns + (s->in_ts && now > s->in_ts ? now - s->in_ts : 0);
	est[1] = s->off_ns[THR_RUNNABLE];
	est[2] = s->off_ns[THR_SLEEP];
	est[3] = s->off_ns[THR_BLOCKED];
	if (s->out_ts && now > s->out_ts && !s->exit_ts) {
		uint64_t upto = s->wake_ts > s->out_ts && s->wake_ts < now ? s->wake_ts : now;

		est[1 + (s->out_reason < THR_REASONS ? s->out_reason : 0)] += upto - s->out_ts;
		est[1] += now - upto;
	}
}

/* the growth of a cumulative figure since *SENT, never negative (cpu's arithmetic) */
static uint64_t advance(uint64_t *sent, uint64_t est)
{
	return cpu__oncpu_advance(sent, est);
}

/* One thread's reading of the interval: its map entry and its /proc files. */
struct thr_read {
	int32_t tid;
	bool ebpf, proc;
	struct thr_stat s;
	uint64_t at;	/* CLOCK_MONOTONIC just before s was read: the open periods end there */
	char state[2];
	int cpu;
	char comm[64];
	char wchan[64];
	uint64_t ticks, vol, invol;
};

static int cmp_read(const void *a, const void *b)
{
	int32_t x = ((const struct thr_read *)a)->tid, y = ((const struct thr_read *)b)->tid;

	return x < y ? -1 : x > y;
}

struct reads {
	struct thr_read *v;
	size_t n, cap;
};

static struct thr_read *reads_add(struct reads *r, int32_t tid)
{
	if (array__grow((void **)&r->v, &r->cap, r->n, sizeof(*r->v)))
		return NULL;
	memset(&r->v[r->n], 0, sizeof(r->v[0]));
	r->v[r->n].tid = tid;
	return &r->v[r->n++];
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Every entry of the thread map into R, their open periods counted up to POLL_NS at the
 * most. Entries of threads whose exit an earlier poll
 * saw are deleted (their last switch is past). */
static int read_stats(struct thr_priv *p, struct reads *r, uint64_t poll_ns)
{
	int fd = bpf_map__fd(p->skel->maps.thr_stats);
	__u32 key, next, gone[256];
	void *prev = NULL;
	size_t ngone = 0, i;
	int seen = 0;

	while (seen++ < 2 * THR_MAX_THREADS && bpf_map_get_next_key(fd, prev, &next) == 0) {
		struct thr_rec *rec = rec_of(p, (int32_t)next, false);
		struct thr_read *t;

		key = next;
		prev = &key;
		if (rec && rec->exited_seen) {
			if (ngone < sizeof(gone) / sizeof(gone[0]))
				gone[ngone++] = next;
			continue;
		}
		t = reads_add(r, (int32_t)next);
		if (!t)
			return -ENOMEM;
		/* the clock before the entry: an open period is counted up to a time it had
		 * reached (never past a switch the entry does not show yet), and not past the
		 * poll's time, where the interval ends */
		t->at = mono_ns();
		if (t->at > poll_ns)
			t->at = poll_ns;
		if (bpf_map_lookup_elem(fd, &next, &t->s)) {
			r->n--;
			continue;
		}
		t->ebpf = true;
	}
	for (i = 0; i < ngone; i++) {
		bpf_map_delete_elem(fd, &gone[i]);
		rec_remove(p, (int32_t)gone[i]);
	}
	return 0;
}

/* The /proc lane: each thread of /proc/PID/task into R (merged by tid with the eBPF
 * reading when there is one). *UNREADABLE counts threads whose files could not be read
 * while they lived. */
static int read_proc(struct thr_priv *p, pid_t pid, struct reads *r, uint64_t *unreadable)
{
	char dir[64], name[64];
	struct proc_status ss;
	struct proc_stat st;
	struct dirent *de;
	size_t len, n0 = r->n;
	DIR *d;
	int err;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return 0; /* the process is gone */
	qsort(r->v, r->n, sizeof(*r->v), cmp_read);
	while ((de = readdir(d))) {
		int32_t tid = atoi(de->d_name);
		struct thr_read k = { .tid = tid }, *t;
		char state;
		int cpu;

		if (tid <= 0)
			continue;
		snprintf(name, sizeof(name), "task/%d/stat", tid);
		err = procfs_read_file(pid, name, &p->buf, &p->bufcap, &len);
		if (!err && (procfs_parse_stat(p->buf, &st) ||
			     threads__parse_task_stat(p->buf, &state, &cpu)))
			err = -EINVAL;
		if (!err) {
			snprintf(name, sizeof(name), "task/%d/status", tid);
			err = procfs_read_file(pid, name, &p->buf, &p->bufcap, &len);
			if (!err && procfs_parse_status(p->buf, &ss))
				err = -EINVAL;
		}
		if (err) {
			if (err != -ENOENT && err != -ESRCH)
				(*unreadable)++;
			continue; /* a thread gone between the listing and the read */
		}
		t = n0 ? bsearch(&k, r->v, n0, sizeof(k), cmp_read) : NULL;
		if (!t) {
			t = reads_add(r, tid);
			if (!t) {
				closedir(d);
				return -ENOMEM;
			}
		}
		t->proc = true;
		t->state[0] = state;
		t->state[1] = '\0';
		t->cpu = cpu;
		snprintf(t->comm, sizeof(t->comm), "%s", st.comm);
		t->ticks = st.utime + st.stime;
		t->vol = ss.voluntary_ctxt_switches;
		t->invol = ss.nonvoluntary_ctxt_switches;
		snprintf(name, sizeof(name), "task/%d/wchan", tid);
		t->wchan[0] = '\0';
		if (procfs_read_file(pid, name, &p->buf, &p->bufcap, &len) == 0 &&
		    strcmp(p->buf, "0"))
			snprintf(t->wchan, sizeof(t->wchan), "%s", p->buf);
	}
	closedir(d);
	return 0;
}

static uint64_t ticks_ns(uint64_t ticks, long hz)
{
	return ticks / (uint64_t)hz * 1000000000ULL + ticks % (uint64_t)hz * 1000000000ULL / (uint64_t)hz;
}

/* Fill TI from the reading T of record REC. */
static void fill(struct thr_priv *p, struct thr_rec *rec, struct thr_read *t,
		 Ptop__V1__ThreadInterval *ti)
{
	uint64_t now = t->at;

	ptop__v1__thread_interval__init(ti);
	ti->tid = t->tid;
	ti->cpu = -1;
	if (t->ebpf) {
		const struct thr_stat *s = &t->s;
		uint64_t est[4];

		threads__estimate(s, now, est);
		ti->has_ebpf = true;
		ti->oncpu_ns = advance(&rec->sent[0], est[0]);
		ti->off_runnable_ns = advance(&rec->sent[1], est[1]);
		ti->off_sleep_ns = advance(&rec->sent[2], est[2]);
		ti->off_blocked_ns = advance(&rec->sent[3], est[3]);
		ti->voluntary = advance(&rec->sent_vol, s->voluntary);
		ti->involuntary = advance(&rec->sent_invol, s->involuntary);
		ti->migrations = advance(&rec->sent_mig, s->migrations);
		ti->cpu = s->cpu;
		if (s->exit_ts)
			rec->exited_seen = true;
	}
	if (t->proc) {
		if (t->comm[0])
			snprintf(rec->comm, sizeof(rec->comm), "%s", t->comm);
		ti->has_proc = true;
		ti->state = t->state;
		ti->wchan = t->wchan;
		ti->proc_cpu = t->cpu;
		if (rec->have_base) {
			ti->proc_cpu_ns = t->ticks > rec->ticks ? ticks_ns(t->ticks - rec->ticks,
									   p->clk_tck) : 0;
			ti->proc_voluntary = t->vol > rec->vol ? t->vol - rec->vol : 0;
			ti->proc_involuntary = t->invol > rec->invol ? t->invol - rec->invol : 0;
		}
		rec->have_base = true;
		rec->ticks = t->ticks;
		rec->vol = t->vol;
		rec->invol = t->invol;
	}
	ti->comm = rec->comm;
}

static int emit_drops(struct collector *c, struct thr_priv *p, uint64_t unreadable_stacks,
		      uint64_t unreadable_proc, struct thr_counters *now_cnt)
{
	static const char *const kind[] = { NULL,
					    NULL,
					    "map_full",
					    "stack_map_full",
					    "map_full",
					    "ringbuf",
					    "stack_copy_ring_full",
					    "no_stack",
					    "stack_state_clobbered" };
	static const char *const detail[] = {
		NULL,
		NULL,
		"off-CPU blocks not aggregated: the off-CPU stack map was full",
		"off-CPU stacks not kept: the stack map was full (their blocks have no stack)",
		"switches of threads not followed: the thread map was full",
		"thread events (created, exited, renamed) lost: the ring buffer was full",
		"off-CPU user stack copies the copies' ring had no room for (their blocks "
		"are counted without a user stack)",
		"off-CPU user stacks that could not be copied (no user stack pointer, or "
		"nothing readable there): counted without a user stack",
		"off-CPU user stack copies dropped: another scan took their per-CPU state "
		"meanwhile (counted without a user stack)",
	};
	const uint64_t *v = (const uint64_t *)now_cnt;
	uint64_t misses;
	int err = 0;

	for (size_t i = 2; i < sizeof(kind) / sizeof(kind[0]) && !err; i++) {
		err = rec_emit_drop(c, kind[i], v[i] - p->prev_cnt[i], detail[i]);
		p->prev_cnt[i] = v[i];
	}
	err = err ?: rec_emit_drop(c, "stack_copy_malformed", p->bad_copies,
				   "stack copies from the kernel too short for their size");
	p->bad_copies = 0;
	err = err ?: rec_emit_drop(c, "stack_unreadable", unreadable_stacks,
				   "off-CPU stacks that could not be read back");
	err = err ?: rec_emit_drop(c, "proc_unreadable", unreadable_proc,
				   "/proc/PID/task/TID stat or status");
	if (!err && p->skel && bpf_util__prog_misses(p->skel->progs.thr_switch, &misses) == 0) {
		err = rec_emit_drop(c, "recursion_miss", misses - p->prev_misses,
				    "thr_switch: runs skipped by the kernel");
		p->prev_misses = misses;
	}
	return err;
}

static int threads_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct thr_priv *p = c->priv;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__ThreadsSample ts = PTOP__V1__THREADS_SAMPLE__INIT;
	Ptop__V1__CollectorPayload cp;
	Ptop__V1__OffcpuStack *off = NULL, **offp = NULL;
	Ptop__V1__ThreadInterval *ti = NULL, **tip = NULL;
	Ptop__V1__ThreadEvent **evp = NULL;
	struct thr_counters sum = { 0 };
	struct reads r = { 0 };
	uint64_t interval, unreadable_stacks = 0, unreadable_proc = 0, now;
	size_t noff = 0, i, k = 0;
	int err = 0;

	/* the first and the final poll are like the others (the final one says, with -v,
	 * how many copies were taken and sent) */
	if (!p)
		return -EINVAL;
	if (p->skel) {
		uint32_t old = p->set;

		ring_buffer__consume(p->rb);
		if (p->rb_err)
			return p->rb_err;
		/* the threads first, as close to NOW_NS as can be: their open periods end there */
		err = read_stats(p, &r, now_ns);
		if (err)
			goto out;
		p->set = old ^ 1;
		__atomic_store_n(&p->skel->bss->thr_set, p->set, __ATOMIC_SEQ_CST);
		quiesce(p);
		/* the copies first: their Stack records come before the rows naming them */
		if (p->crb) {
			ring_buffer__consume(p->crb);
			err = p->crb_err;
			if (err)
				goto out;
			/* the target's VMAs again: mappings made since are known to the
			 * copies without a lookup (a failure only keeps more words) */
			sc_vmas__seed(bpf_map__fd(p->skel->maps.thr_vmas), c->ctx->pid, p->ncpus);
		}
		err = read_offcpu(c, p, old, &off, &noff, &unreadable_stacks);
		if (err)
			goto out;
		err = bpf_util__percpu_sum(p->skel->maps.thr_cnt, 0, p->cnt, sizeof(*p->cnt),
					   (uint64_t *)&sum, sizeof(sum) / 8);
		if (err)
			goto out;
	}
	now = mono_ns();
	if (c->ctx->pid > 0) {
		err = read_proc(p, c->ctx->pid, &r, &unreadable_proc);
		if (err)
			goto out;
	}
	/* every thread read has a record; the records not read lost their thread */
	for (i = 0; i < p->n; i++)
		p->t[i].touched = false;
	for (i = 0; i < r.n; i++) {
		struct thr_rec *rec = rec_of(p, r.v[i].tid, true);

		if (!rec) {
			err = -ENOMEM;
			goto out;
		}
		/* the /proc lane alone: a thread not listed before (at start, or at the last
		 * poll) was created meanwhile */
		if (!p->skel && r.v[i].proc && !rec->proc_alive &&
		    (err = add_event(p, now, "create", r.v[i].tid, 0, r.v[i].comm, false)))
			goto out;
		if (!p->skel && r.v[i].proc && rec->have_base && rec->comm[0] &&
		    strcmp(rec->comm, r.v[i].comm) &&
		    (err = add_event(p, now, "rename", r.v[i].tid, 0, r.v[i].comm, false)))
			goto out;
	}
	qsort(r.v, r.n, sizeof(*r.v), cmp_read);
	ti = calloc(r.n ? r.n : 1, sizeof(*ti));
	tip = calloc(r.n ? r.n : 1, sizeof(*tip));
	if (!ti || !tip) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < r.n; i++) {
		struct thr_rec *rec = rec_of(p, r.v[i].tid, false);
		size_t len;

		/* a thread with no name yet (cgroup mode: no /proc lane; or seen by eBPF
		 * before any event named it): its /proc/TID/comm, once */
		if (!rec->comm[0] && !r.v[i].proc &&
		    procfs_read_file(r.v[i].tid, "comm", &p->buf, &p->bufcap, &len) == 0) {
			p->buf[strcspn(p->buf, "\n")] = '\0';
			snprintf(rec->comm, sizeof(rec->comm), "%s", p->buf);
		}
		fill(p, rec, &r.v[i], &ti[i]);
		rec->touched = true;
		if (r.v[i].proc)
			rec->proc_alive = true;
		tip[i] = &ti[i];
	}
	/* /proc lane alone: a thread that was listed and is no longer has exited */
	for (i = 0; i < p->n && !p->skel; i++)
		if (!p->t[i].touched && p->t[i].proc_alive) {
			err = add_event(p, now, "exit", p->t[i].tid, 0, p->t[i].comm, false);
			if (err)
				goto out;
			p->t[i].proc_alive = false;
			p->t[i].exited_seen = true;
		}
	if (noff && !(offp = calloc(noff, sizeof(*offp)))) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < noff; i++)
		if (off[i].user_stack_id || off[i].kernel_stack_id || off[i].count)
			offp[k++] = &off[i];
	if (p->nev && !(evp = calloc(p->nev, sizeof(*evp)))) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->nev; i++)
		evp[i] = &p->ev[i];
	ts.n_threads = r.n;
	ts.threads = r.n ? tip : NULL;
	ts.n_events = p->nev;
	ts.events = evp;
	ts.n_offcpu = k;
	ts.offcpu = k ? offp : NULL;
	ts.ebpf = p->skel != NULL;
	if (p->skel && !threads_settings.no_stacks) {
		ts.stacks = true;
		ts.offcpu_min_ns = threads_settings.offcpu_min_ns;
		ts.skipped = sum.skipped - p->prev_cnt[0];
		ts.skipped_ns = sum.skipped_ns - p->prev_cnt[1];
		p->prev_cnt[0] = sum.skipped;
		p->prev_cnt[1] = sum.skipped_ns;
	}
	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	p->prev_ns = now_ns;
	if (r.n || p->nev || k) {
		err = capture_payload__pack(&ev, &cp, "threads", &ts.base);
		if (err)
			goto out;
		err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, now_ns,
				     interval);
		capture_payload__release(&cp);
		if (err)
			goto out;
	}
	err = emit_drops(c, p, unreadable_stacks, unreadable_proc, &sum);
	if (!err && p->crb && (flags & POLL_FINAL) && c->ctx->verbose)
		fprintf(stderr,
			"ptop-record: threads: %llu off-CPU stack copies taken, %llu distinct sent, "
			"%llu lost (ring full)\n",
			(unsigned long long)sum.copies, (unsigned long long)sum.copies_sent,
			(unsigned long long)sum.copy_lost);
	for (i = 0; i < p->n && !p->skel;) /* the exits told: forget them */
		if (p->t[i].exited_seen)
			rec_remove(p, p->t[i].tid);
		else
			i++;
out:
	clear_events(p);
	free(evp);
	free(offp);
	free(off);
	free(ti);
	free(tip);
	free(r.v);
	return err;
}

const struct collector_ops threads_collector = {
	.name = "threads",
	.summary = "threads: on/off-CPU time by reason, switches, migrations, state and wchan, "
		   "created/exited, off-CPU stacks (eBPF sched_switch; /proc/PID/task)",
	.off_by_default = "its off-CPU stacks cost the target about 2-2.5 us per voluntary "
			  "context switch with stack copies (--user-stacks auto or dwarf; about "
			  "1 us with fp walks: 2-2.3x and 1.5x the CPU of a pipe ping-pong's "
			  "switch; without stacks, --offcpu-min off, about 0.2 us over the bare "
			  "tracepoints); see bench/README.md",
	.opts = threads_opts,
	.settings = &threads_settings,
	.settings_size = sizeof(threads_settings),
	.check = threads_check,
	.start = threads_start,
	.poll = threads_poll,
	.stop = threads_stop,
};
