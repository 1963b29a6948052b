/* record.c — ptop-record's main flow: resolve the target, open the capture, start the
 * collectors, write the header, run the poll loop, end with a trailer. Also rec_emit* for
 * the collectors.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/capture.h"
#include "proto/names.h"
#include "proto/version.h"
#include "record/bpf_util.h"
#include "record/exec_watch.h"
#include "record/output.h"
#include "record/procfs.h"
#include "record/kfeature.h"
#include "record/record.h"
#include "record/stackcopy.h"

#define PROG "ptop-record"
#define BTF_PATH "/sys/kernel/btf/vmlinux"
#define CHILD_GRACE_MS 2000 /* after forwarding a signal, before SIGKILL */

/* The recording in progress: what rec_emit* need beyond the collector's ctx. */
static struct {
	struct drop_totals drops;    /* lost events per (collector, kind), for the trailer */
	int write_err;               /* first writer error, -errno; 0 if none */
	bool header_written;         /* rec_emit refuses records before the header */
	bool verbose;
} g;

/* ------------------------------------------------------------------ rec_emit */

uint64_t rec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int rec_emit(struct rec_ctx *ctx, const Ptop__V1__Record *rec)
{
	int err;

	if (!ctx || !ctx->writer || !g.header_written)
		return -EINVAL; /* --caps, or a collector emitting from start() */
	if (g.write_err)
		return g.write_err;
	err = capture_writer__append(ctx->writer, rec);
	if (err) {
		g.write_err = err;
		return err;
	}
	if (rec->kind_case == PTOP__V1__RECORD__KIND_EVENT)
		ctx->events++;
	return 0;
}

int rec_emit_event(struct rec_ctx *ctx, Ptop__V1__Event *ev, Ptop__V1__Category cat,
		   uint64_t now_ns, uint64_t interval_ns)
{
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;

	ev->time_ns = now_ns;
	/* an interval never starts before the capture: a collector's first one runs from
	 * its start(), which may be seconds (BPF verification) before the header. (An event
	 * dated at or before the start keeps its own: a zero length would read as corrupt.) */
	if (ctx->capture_start_ns && now_ns > ctx->capture_start_ns &&
	    interval_ns > now_ns - ctx->capture_start_ns)
		interval_ns = now_ns - ctx->capture_start_ns;
	ev->interval_ns = interval_ns;
	ev->pid = ctx->pid;
	if (ctx->cgroup_id)
		ev->cgroup_id = ctx->cgroup_id; /* cgroup mode: the aggregate's cgroup */
	ev->category = cat;
	rec.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	rec.event = ev;
	return rec_emit(ctx, &rec);
}

int rec_emit_drop(struct collector *c, const char *kind, uint64_t lost, const char *detail)
{
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;
	Ptop__V1__DropNotice dn = PTOP__V1__DROP_NOTICE__INIT;
	int err;

	if (!lost)
		return 0;
	c->dropped += lost;
	/* the total is kept even when the notice cannot be written */
	err = drop_totals__add(&g.drops, c->ops->name, kind, lost);
	dn.time_ns = rec_now_ns();
	dn.collector = (char *)c->ops->name;
	dn.kind = (char *)kind;
	dn.lost = lost;
	dn.detail = (char *)(detail ? detail : "");
	rec.kind_case = PTOP__V1__RECORD__KIND_DROP;
	rec.drop = &dn;
	if (!c->ctx || !c->ctx->writer)
		return err;
	return rec_emit(c->ctx, &rec) ?: err;
}

/* ------------------------------------------------------------------ helpers */

static void errmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void errmsg(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The settings collectors read, from the options (both for --caps and a run). */
static void rec_ctx_from_opts(struct rec_ctx *ctx, const struct record_opts *o)
{
	ctx->no_ebpf = o->no_ebpf;
	ctx->verbose = o->verbose;
	ctx->interval_ns = o->interval_ns;
	ctx->smaps_budget_ns = o->smaps_budget_ns;
	ctx->user_stacks = o->user_stacks;
}

static size_t collectors_init(struct collector *cs, struct rec_ctx *ctx,
			      const struct record_opts *o)
{
	size_t n;

	for (n = 0; collector_table[n] && n < RECORD_MAX_COLLECTORS; n++) {
		struct collector *c = &cs[n];

		memset(c, 0, sizeof(*c));
		c->ops = collector_table[n];
		c->ctx = ctx;
		c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_UNSPECIFIED;
		if (record_opts__disabled(o, c->ops->name)) {
			c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED;
			snprintf(c->reason, sizeof(c->reason), "disabled by --disable");
		} else if (c->ops->off_by_default && !record_opts__enabled(o, c->ops->name) &&
			   !ctx->caps_only) {
			c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED;
			snprintf(c->reason, sizeof(c->reason), "off by default (%s): --enable %s",
				 c->ops->off_by_default, c->ops->name);
		}
	}
	return n;
}

static bool collector_runs(const struct collector *c)
{
	return c->state != PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED;
}

/* COMMAND mode, before the launch: prepare() every collector that runs and has one, each
 * given the environment the ones before it made (*ENVP, NULL: the recorder's own). Sets
 * *PREPARED to how many of CS were reached (their stop() is due even if the run ends
 * before check()). 0 or the first -errno. */
static int collectors_prepare(struct collector *cs, size_t n, char *const **envp,
			      size_t *prepared)
{
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		*prepared = i + 1;
		if (!collector_runs(&cs[i]) || !cs[i].ops->prepare)
			continue;
		err = cs[i].ops->prepare(&cs[i], envp);
		if (err)
			return err;
	}
	return 0;
}

/* check() every collector that is not disabled; then start() the active ones
 * unless CAPS_ONLY. */
static void collectors_check_start(struct collector *cs, size_t n, bool caps_only)
{
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		struct collector *c = &cs[i];

		if (!collector_runs(c))
			continue;
		c->state = c->ops->check(c);
		if (c->state == PTOP__V1__PROBE_STATE__PROBE_STATE_UNSPECIFIED) {
			c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
			snprintf(c->reason, sizeof(c->reason), "check() gave no state");
		}
		if (c->state != PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE) {
			if (!c->reason[0])
				snprintf(c->reason, sizeof(c->reason), "(no reason given)");
			continue;
		}
		if (caps_only) /* an active collector's reason: the limit it runs within */
			continue;
		c->reason[0] = '\0';
		err = c->ops->start(c);
		if (err) {
			c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
			if (!c->reason[0])
				snprintf(c->reason, sizeof(c->reason), "start failed: %s",
					 strerror(-err));
		}
	}
}

/* Poll every active collector; BETWEEN(ARG), when given, after each one (a program
 * held at its exec waits for one collector's poll at most, not for all of them). When
 * it did something, the collectors after it are polled at a new now: a collector it
 * changed must not write a record dated before the change. */
static void collectors_poll(struct collector *cs, size_t n, uint64_t now, unsigned flags,
			    bool (*between)(void *), void *arg)
{
	size_t i;
	int err;

	for (i = 0; i < n && !g.write_err; i++) {
		if (cs[i].state != PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE)
			continue;
		err = cs[i].ops->poll(&cs[i], now, flags);
		if (err && g.verbose && !g.write_err)
			errmsg("collector %s: poll: %s", cs[i].ops->name, strerror(-err));
		if (between && between(arg))
			now = rec_now_ns();
	}
}

static void collectors_stop(struct collector *cs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (collector_runs(&cs[i]) && cs[i].ops->stop)
			cs[i].ops->stop(&cs[i]);
}

static void fmt_wall(uint64_t realtime_ns, char *buf, size_t len)
{
	time_t s = (time_t)(realtime_ns / 1000000000ull);
	struct tm tm;

	if (!localtime_r(&s, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "%" PRIu64 " ns", realtime_ns);
}

static const char *end_reason_name(Ptop__V1__EndReason r)
{
	switch (r) {
	case PTOP__V1__END_REASON__END_REASON_TARGET_EXIT:
		return "the target exited";
	case PTOP__V1__END_REASON__END_REASON_SIGNAL:
		return "signal";
	case PTOP__V1__END_REASON__END_REASON_DURATION:
		return "--duration elapsed";
	case PTOP__V1__END_REASON__END_REASON_ERROR:
		return "error";
	default:
		return "unknown";
	}
}

/* ------------------------------------------------------------------ --caps */

static bool cap_has(uint64_t mask, int cap)
{
	return (mask >> cap) & 1;
}

static int read_sysctl(const char *name, char *out, size_t len)
{
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int err = procfs_read_file(0, name, &buf, &cap, &n);

	if (!err) {
		while (n && buf[n - 1] == '\n')
			buf[--n] = '\0';
		snprintf(out, len, "%s", buf);
	}
	free(buf);
	return err;
}

/* Does C (checked) load eBPF programs: its source, or one of its lanes'? */
static bool collector_uses_ebpf(const struct collector *c)
{
	if (c->source == PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF)
		return true;
	for (unsigned k = 0; k < c->n_lanes; k++)
		if (c->lanes[k].source == PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF &&
		    c->lanes[k].state == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE)
			return true;
	return false;
}

/* --caps, second part: what a run with these options would load, loaded and verified
 * (never attached: bpf_util__set_verify_only, the PTOP_VERIFY_ONLY=1 path) by each
 * collector's own check() and start(), on this process (its pid is the programs'
 * target: a constant the verifier sees, as a real target's is), then stopped. With
 * --user-stacks auto, the stack copies are verified: the lane a program without frame
 * pointers takes. One line per collector that runs by default or by the options, with
 * its lanes as the load left them. With --strict, a lane lost as a run would lose it is
 * the error a run's start would be: -1 and ERR says which. */
static int caps_verify(const struct record_opts *o, char *err_text, size_t err_len)
{
	struct collector cs[RECORD_MAX_COLLECTORS];
	struct rec_ctx ctx = { 0 };
	char line[512];
	uint64_t t0 = rec_now_ns();
	size_t n, i;
	bool lost;

	rec_ctx_from_opts(&ctx, o);
	if (ctx.user_stacks == USER_STACKS_AUTO)
		ctx.user_stacks = USER_STACKS_DWARF;
	ctx.pid = getpid();
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	ctx.start_ns = t0;
	n = collectors_init(cs, &ctx, o);
	printf("eBPF loads (each collector's programs as a run with these options loads "
	       "them, verified by this kernel and not attached; --user-stacks auto as "
	       "dwarf):\n");
	if (o->no_ebpf) {
		printf("  none: --no-ebpf\n");
		return 0;
	}
	bpf_util__set_verify_only(true);
	for (i = 0; i < n; i++) {
		struct collector *c = &cs[i];
		struct collector_lane before[COLLECTOR_MAX_LANES];
		const char *prog = NULL;
		unsigned n_before;
		uint32_t insns = 0;
		int err;

		if (!collector_runs(c))
			continue; /* off by default, or --disable: not loaded by a run */
		c->state = c->ops->check(c);
		if (c->state != PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE) {
			printf("  %-12s %-6s %s\n", c->ops->name, "skip",
			       c->reason[0] ? c->reason : capture_probe_state_name(c->state));
			continue;
		}
		if (!collector_uses_ebpf(c))
			continue; /* /proc only with these options */
		c->reason[0] = '\0';
		memcpy(before, c->lanes, sizeof(before));
		n_before = c->n_lanes;
		err = c->ops->start(c);
		if (bpf_util__verified_largest(c->ops->name, &prog, &insns) == 0) {
			if (insns)
				printf("  %-12s %-6s largest program %s: %" PRIu32
				       " instructions verified\n",
				       c->ops->name, "loads", prog, insns);
			else
				printf("  %-12s %-6s largest program %s (the kernel does not "
				       "report verified instructions before Linux 5.16)\n",
				       c->ops->name, "loads", prog);
		} else if (!err) { /* its eBPF lanes failed, and it runs without them */
			printf("  %-12s %-6s no eBPF program loaded: it runs without its eBPF "
			       "lanes (below)\n", c->ops->name, "runs");
		} else {
			printf("  %-12s %-6s %s\n", c->ops->name, "FAILS",
			       c->reason[0] ? c->reason :
			       err ? strerror(-err) : "no program loaded");
		}
		/* for --strict, the state a run's start would leave: stopped at the load
		 * (verify only) is started; another error is a failure */
		if (err && strstr(c->reason, "loaded and verified, not attached")) {
			c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
			c->reason[0] = '\0';
		} else if (err) {
			c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
		}
		for (unsigned k = 0; k < c->n_lanes; k++) {
			struct collector_lane *l = &c->lanes[k];

			/* a lane that stopped at the hook loaded: in a run it is as check()
			 * left it (active, or unsupported when its programs were left out) */
			if (strstr(l->reason, "--caps: loaded and verified")) {
				unsigned b;

				for (b = 0; b < n_before && strcmp(before[b].name, l->name); b++)
					;
				if (b < n_before) {
					*l = before[b];
				} else {
					l->state = PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
					l->reason[0] = '\0';
				}
			}
			record_caps_lane(l, line, sizeof(line));
			fputs(line, stdout);
		}
	}
	lost = o->strict && record_strict_check(cs, n, err_text, err_len);
	collectors_stop(cs, n);
	bpf_util__set_verify_only(false);
	printf("  (loaded in %.2f s)\n", (double)(rec_now_ns() - t0) / 1e9);
	return lost ? -1 : 0;
}

static int run_caps(const struct record_opts *o)
{
	static const struct {
		const char *name;
		int nr;
	} caps[] = {
		{ "CAP_BPF", 39 },
		{ "CAP_PERFMON", 38 },
		{ "CAP_SYS_ADMIN", 21 },
		{ "CAP_SYS_PTRACE", 19 },
	};
	struct collector cs[RECORD_MAX_COLLECTORS];
	struct rec_ctx ctx = { 0 };
	char line[512], val[64], *buf = NULL, err[600];
	bool strict_lost;
	size_t n, i, cap = 0, len = 0;
	uint64_t eff = 0;
	bool have_eff;

	rec_ctx_from_opts(&ctx, o);
	ctx.caps_only = true;
	n = collectors_init(cs, &ctx, o);
	collectors_check_start(cs, n, true);

	printf("collectors (with the privileges of this process%s):\n",
	       o->no_ebpf ? ", --no-ebpf" : "");
	for (i = 0; i < n; i++) {
		record_caps_line(&cs[i], line, sizeof(line));
		fputs(line, stdout);
		for (unsigned k = 0; k < cs[i].n_lanes; k++) {
			record_caps_lane(&cs[i].lanes[k], line, sizeof(line));
			fputs(line, stdout);
		}
	}
	collectors_stop(cs, n);
	strict_lost = caps_verify(o, err, sizeof(err)) != 0;
	printf("kernel features (probed here; the Linux version that first has each):\n");
	for (i = 0; i < KF_COUNT; i++) {
		record_caps_feature((enum kfeature)i, line, sizeof(line));
		fputs(line, stdout);
	}

	have_eff = procfs_read_file(0, "self/status", &buf, &cap, &len) == 0 &&
		   record_parse_capeff(buf, &eff) == 0;
	printf("privileges: uid %u, euid %u\n", (unsigned)getuid(), (unsigned)geteuid());
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		printf("  %-26s %s\n", caps[i].name,
		       !have_eff ? "unknown" : cap_has(eff, caps[i].nr) ? "yes" : "no");
	printf("kernel:\n");
	printf("  %-26s %s\n", "BTF",
	       access(BTF_PATH, R_OK) == 0 ? "yes (" BTF_PATH ")" :
					     "no (" BTF_PATH " missing: use --no-ebpf)");
	if (read_sysctl("sys/kernel/unprivileged_bpf_disabled", val, sizeof(val)) == 0)
		printf("  %-26s %s\n", "unprivileged_bpf_disabled", val);
	if (read_sysctl("sys/kernel/perf_event_paranoid", val, sizeof(val)) == 0)
		printf("  %-26s %s\n", "perf_event_paranoid", val);
	free(buf);
	if (fflush(stdout))
		return RECORD_EXIT_RUNTIME;
	if (strict_lost) {	/* as a run's start with these options would end */
		errmsg("--strict: %s; a run with these options would record nothing", err);
		return RECORD_EXIT_RUNTIME;
	}
	return RECORD_EXIT_OK;
}

/* ------------------------------------------------------------------ the run */

struct run {
	struct record_opts *o;
	struct record_target *t;
	struct collector *cs;
	size_t n;
	struct rec_ctx *ctx;
	struct capture_writer *w;
	int sfd;                     /* signalfd: SIGINT, SIGTERM */
	struct exec_watch *ew;       /* the target's execs, when a collector follows them */
	uint64_t ew_lost;            /* exec_watch__lost() already reported */
	uint64_t start_mono, start_real;  /* the header's clocks */
	uint64_t safe_ns;            /* everything emitted before this is on disk */
	uint64_t exec_at;            /* the last exec followed (0: none to refresh after) */
	unsigned refreshed;          /* refreshes done since it */
	Ptop__V1__EndReason reason;
	int signo;                   /* the signal that ended it */
	char error[256];             /* END_REASON_ERROR other than a writer error */
};

/* Everything emitted before the first record still waiting is on disk. */
static void note_safe(struct run *r)
{
	uint64_t since = capture_writer__pending_since(r->w);

	if (!g.write_err)
		r->safe_ns = since ? since : rec_now_ns();
}

/* Between rounds of polls: write out the records (an exec's, a drop notice)
 * that waited the flush interval. */
static void tick(struct run *r, uint64_t now)
{
	int err;

	if (g.write_err)
		return;
	err = capture_writer__tick(r->w, now);
	if (err)
		g.write_err = err;
	note_safe(r);
}

/* A round of polls ended: write its records out now, so that a SIGKILL loses
 * at most the round in progress (and records made between rounds, which wait
 * at most the flush interval: tick). */
static void flush_round(struct run *r)
{
	int err;

	if (g.write_err)
		return;
	err = capture_writer__flush(r->w);
	if (err)
		g.write_err = err;
	note_safe(r);
}

/* When the records waiting must be written (the flush interval after the first
 * of them); UINT64_MAX when none waits. */
static uint64_t flush_due(const struct run *r)
{
	uint64_t since = capture_writer__pending_since(r->w);

	return since ? since + r->o->flush_interval_ns : UINT64_MAX;
}

static int read_signal(int sfd)
{
	struct signalfd_siginfo si;

	if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		return (int)si.ssi_signo;
	return 0;
}

/* ------------------------------------------------------------------ execs */

/* How long after an exec the collectors' refresh() runs: the loader of a dynamic
 * program has mapped its libraries within a few ms; a program that runs less than an
 * interval is then still seen with what it mapped later (dlopen). */
static const unsigned refresh_after_exec_ms[] = { 15, 60, 250 };
#define REFRESH_AFTER_EXEC_N (sizeof(refresh_after_exec_ms) / sizeof(refresh_after_exec_ms[0]))

/* When the next refresh after the last exec is due; UINT64_MAX: none. */
static uint64_t refresh_due(const struct run *r)
{
	if (!r->exec_at || r->refreshed >= REFRESH_AFTER_EXEC_N)
		return UINT64_MAX;
	return r->exec_at + refresh_after_exec_ms[r->refreshed] * 1000000ull;
}

static bool any_refreshes(const struct collector *cs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (collector_runs(&cs[i]) && cs[i].ops->refresh)
			return true;
	return false;
}

static void collectors_refresh(struct run *r, uint64_t now)
{
	size_t i;
	int err;

	for (i = 0; i < r->n && !g.write_err; i++) {
		struct collector *c = &r->cs[i];

		if (c->state != PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE || !c->ops->refresh)
			continue;
		err = c->ops->refresh(c, now);
		if (err && g.verbose && !g.write_err)
			errmsg("collector %s: refresh: %s", c->ops->name, strerror(-err));
	}
	while (r->refreshed < REFRESH_AFTER_EXEC_N && refresh_due(r) <= now)
		r->refreshed++;
}

/* Does a collector that is not off follow the target's program (collector_ops.exec)? */
static bool any_follows_exec(const struct collector *cs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (collector_runs(&cs[i]) && cs[i].ops->exec)
			return true;
	return false;
}

/* Say in C's probe detail how execs are seen. */
static void note_exec_follow(struct collector *c, const char *how)
{
	size_t len = strlen(c->detail);

	if (!strstr(c->detail, how))
		snprintf(c->detail + len, sizeof(c->detail) - len, "%s%s", len ? "; " : "", how);
}

static int emit_probe_change(struct run *r, struct collector *c, const char *cause,
			     uint64_t now)
{
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;
	Ptop__V1__ProbeChange pc = PTOP__V1__PROBE_CHANGE__INIT;
	Ptop__V1__Probe probe, *pp;
	Ptop__V1__ProbeLane lanes[COLLECTOR_MAX_LANES], *lp[COLLECTOR_MAX_LANES];

	record_probe_set(c, 1, &probe, &pp, lanes, lp);
	pc.time_ns = now;
	pc.probe = &probe;
	pc.cause = (char *)cause;
	rec.kind_case = PTOP__V1__RECORD__KIND_PROBE_CHANGE;
	rec.probe_change = &pc;
	return rec_emit(r->ctx, &rec);
}

/* Let the collectors follow each exec of the target not handled yet, then let the new
 * program run (in COMMAND mode it was held at its exec). */
static bool follow_execs(struct run *r)
{
	char exe[PATH_MAX], cause[PATH_MAX + 16];
	Ptop__V1__ProbeState state;
	Ptop__V1__ProbeSource source;
	char reason[sizeof(r->cs->reason)], detail[sizeof(r->cs->detail)];
	bool followed = false;
	uint64_t at, lost;
	size_t i;
	int rc;

	while (!g.write_err && (rc = exec_watch__next(r->ew, exe, sizeof(exe), &at)) == 1) {
		if (exe[0])
			snprintf(r->t->exe, sizeof(r->t->exe), "%s", exe);
		snprintf(cause, sizeof(cause), "exec %s", exe[0] ? exe : "(/proc/PID/exe unreadable)");
		r->ctx->exec_held = exec_watch__held(r->ew);
		for (i = 0; i < r->n; i++) {
			struct collector *c = &r->cs[i];

			if (!collector_runs(c) || !c->ops->exec)
				continue;
			state = c->state;
			source = c->source;
			memcpy(reason, c->reason, sizeof(reason));
			memcpy(detail, c->detail, sizeof(detail));
			rc = c->ops->exec(c, rec_now_ns());
			note_exec_follow(c, exec_watch__how(r->ew));
			if (c->state != state || c->source != source ||
			    strcmp(c->reason, reason) || strcmp(c->detail, detail)) {
				int err = emit_probe_change(r, c, cause, rec_now_ns());

				rc = rc ?: err;
			}
			if (rc < 0 && g.verbose && !g.write_err)
				errmsg("collector %s: following the exec: %s", c->ops->name,
				       strerror(-rc));
		}
		lost = exec_watch__lost(r->ew);
		for (i = 0; lost > r->ew_lost && i < r->n; i++)
			if (collector_runs(&r->cs[i]) && r->cs[i].ops->exec)
				rec_emit_drop(&r->cs[i], "exec_late", lost - r->ew_lost,
					      "execs the eBPF watch could not hold: followed late, "
					      "what the new program did before was missed");
		r->ew_lost = lost;
		if (g.verbose)	/* with a held program, how long it waited */
			errmsg("the target exec'd %s; followed %.1f ms after the exec",
			       exe[0] ? exe : "(unreadable)", (double)(rec_now_ns() - at) / 1e6);
		exec_watch__continue(r->ew);
		r->ctx->exec_held = false;
		followed = true;
		r->exec_at = at ? at : rec_now_ns();
		r->refreshed = 0;
	}
	return followed;
}

static bool follow_held_execs(void *arg)
{
	return follow_execs(arg);
}

/* Poll the collectors every interval until something ends the recording. */
static void run_loop(struct run *r)
{
	const uint64_t interval = r->o->interval_ns;
	uint64_t now = rec_now_ns(), next_poll, end_at = UINT64_MAX;
	struct pollfd pfd[3];
	/* only a held program needs the loop awake: else execs wait for the interval */
	int ewfd = r->t->is_child ? exec_watch__fd(r->ew) : -1;
	bool (*between)(void *) = r->ew && r->t->is_child ? follow_held_execs : NULL;

	if (r->t->is_child)	/* the command runs from about now: its loader maps */
		r->exec_at = now;
	if (follow_execs(r))
		now = rec_now_ns();
	collectors_poll(r->cs, r->n, now, POLL_FIRST, between, r);
	next_poll = now + interval;
	flush_round(r);
	/* saturating: --duration may be up to 2^64-1 ns */
	if (r->o->duration_ns && __builtin_add_overflow(now, r->o->duration_ns, &end_at))
		end_at = UINT64_MAX;

	for (;;) {
		uint64_t deadline, wait_ns;
		int nfd = 0, timeout, ready;

		if (g.write_err) {
			r->reason = PTOP__V1__END_REASON__END_REASON_ERROR;
			return;
		}
		now = rec_now_ns();
		if (now >= end_at) {
			r->reason = PTOP__V1__END_REASON__END_REASON_DURATION;
			return;
		}
		if (r->t->pidfd < 0 && target__has_exited(r->t)) {
			r->reason = PTOP__V1__END_REASON__END_REASON_TARGET_EXIT;
			return;
		}
		/* a held program waits for this; otherwise the new program's libraries
		 * are mapped by the next interval */
		if (r->ew && (r->t->is_child || now >= next_poll) && follow_execs(r) &&
		    now >= next_poll)
			now = rec_now_ns();	/* no record dated before a change */
		if (now >= next_poll) {
			collectors_poll(r->cs, r->n, now, 0, between, r);
			flush_round(r);
			/* keep to the grid; skip ticks missed while stopped */
			while (next_poll <= now)
				next_poll += interval;
		}
		if (rec_now_ns() >= refresh_due(r))
			collectors_refresh(r, rec_now_ns());
		tick(r, rec_now_ns());
		if (g.write_err)
			continue;

		deadline = flush_due(r);
		if (next_poll < deadline)
			deadline = next_poll;
		if (refresh_due(r) < deadline)
			deadline = refresh_due(r);
		if (end_at < deadline)
			deadline = end_at;
		now = rec_now_ns();
		wait_ns = deadline > now ? deadline - now : 0;
		timeout = (int)((wait_ns + 999999) / 1000000);
		if (r->t->pidfd < 0 && timeout > 100)
			timeout = 100; /* no pidfd: look at the target often */

		pfd[nfd].fd = r->sfd;
		pfd[nfd].events = POLLIN;
		pfd[nfd++].revents = 0;
		if (r->t->pidfd >= 0) {
			pfd[nfd].fd = r->t->pidfd;
			pfd[nfd].events = POLLIN;
			pfd[nfd++].revents = 0;
		}
		if (ewfd >= 0) {	/* last: only wakes the loop */
			pfd[nfd].fd = ewfd;
			pfd[nfd].events = POLLIN;
			pfd[nfd++].revents = 0;
		}
		ready = poll(pfd, (nfds_t)nfd, timeout);
		if (ready < 0 && errno != EINTR) {
			snprintf(r->error, sizeof(r->error), "poll: %s", strerror(errno));
			errmsg("%s", r->error);
			r->reason = PTOP__V1__END_REASON__END_REASON_ERROR;
			return;
		}
		if (ready <= 0)
			continue;
		if (pfd[0].revents & POLLIN) {
			r->signo = read_signal(r->sfd);
			if (r->signo) {
				r->reason = PTOP__V1__END_REASON__END_REASON_SIGNAL;
				return;
			}
		}
		if (r->t->pidfd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			r->t->exited = true;
			r->reason = PTOP__V1__END_REASON__END_REASON_TARGET_EXIT;
			return;
		}
	}
}

/* Command mode, the recording ends but the command runs: send it SIG, give it
 * CHILD_GRACE_MS (a second signal to us cuts that short), then SIGKILL. */
static void stop_child(struct run *r, int sig)
{
	struct record_target *t = r->t;

	if (!t->is_child || target__has_exited(t))
		return;
	kill(t->pid, sig);
	if (target__wait_exit(t, CHILD_GRACE_MS, r->sfd))
		return;
	if (!r->o->quiet)
		errmsg("the command (pid %d) did not exit: killing it", t->pid);
	kill(t->pid, SIGKILL);
	target__wait_exit(t, 10000, -1);
}

static void print_exit(const struct record_target *t)
{
	char who[96];

	if (!t->status_known)
		return;
	if (t->is_child)
		snprintf(who, sizeof(who), "the command");
	else
		snprintf(who, sizeof(who), "pid %d (%s)", t->pid, t->comm);
	if (WIFEXITED(t->wstatus))
		errmsg("%s exited with status %d", who, WEXITSTATUS(t->wstatus));
	else if (WIFSIGNALED(t->wstatus))
		errmsg("%s was killed by signal %d (%s)%s", who, WTERMSIG(t->wstatus),
		       strsignal(WTERMSIG(t->wstatus)),
		       WCOREDUMP(t->wstatus) ? ", core dumped" : "");
}

/* A launched command's status as the exit status of a recording that went well, the way
 * timeout(1) gives it: its exit status, 128+N when signal N killed it, 124 when
 * --duration ended the recording and the command was stopped; 125 when its status could
 * not be had. */
static int command_status(const struct run *r)
{
	const struct record_target *t = r->t;

	if (r->reason == PTOP__V1__END_REASON__END_REASON_DURATION)
		return RECORD_EXIT_CMD_DURATION;
	if (!t->status_known) {
		errmsg("the command's exit status could not be read: exit status %d",
		       RECORD_EXIT_CMD_RECORDER);
		return RECORD_EXIT_CMD_RECORDER;
	}
	if (WIFEXITED(t->wstatus))
		return WEXITSTATUS(t->wstatus);
	if (WIFSIGNALED(t->wstatus))
		return 128 + WTERMSIG(t->wstatus);
	return RECORD_EXIT_CMD_RECORDER;
}

/* The exit status of a recording that failed: 1, or 125 for a launched command, whose
 * own statuses 1 and 2 must not be taken for the recorder's. */
static int recorder_failed(const struct run *r)
{
	return r->t->is_child ? RECORD_EXIT_CMD_RECORDER : RECORD_EXIT_RUNTIME;
}

/* End the recording: stop a command if need be, final poll, trailer, index.
 * Returns the exit status. */
static int finish(struct run *r, const struct record_output *out)
{
	const char *path = out->name;
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;
	Ptop__V1__CaptureTrailer tr = PTOP__V1__CAPTURE_TRAILER__INIT;
	Ptop__V1__TargetExit te = PTOP__V1__TARGET_EXIT__INIT;
	char when[64];
	uint64_t records, bytes;
	int err;

	/* an exec at the very end is not followed: let a held program go */
	exec_watch__free(r->ew);
	r->ew = NULL;
	/* a launched command lives within its recording: when the recording ends
	 * for any reason but its exit, the command is stopped too */
	if (r->reason == PTOP__V1__END_REASON__END_REASON_SIGNAL)
		stop_child(r, r->signo);
	else if (r->reason != PTOP__V1__END_REASON__END_REASON_TARGET_EXIT)
		stop_child(r, SIGTERM);

	if (g.write_err) {
		fmt_wall(r->start_real + (r->safe_ns - r->start_mono), when, sizeof(when));
		errmsg("writing %s: %s; the capture up to %s (%.1f s of recording) %s", path,
		       strerror(-g.write_err), when,
		       (double)(r->safe_ns - r->start_mono) / 1e9,
		       out->to_stdout ? "was sent whole" : "is readable (kept)");
		capture_writer__abort(r->w);
		r->w = NULL;
		collectors_stop(r->cs, r->n);
		if (r->t->is_child) {
			target__collect_status(r->t);
			if (!r->o->quiet)
				print_exit(r->t);
		}
		return recorder_failed(r);
	}

	/* while a zombie, the target's /proc/PID/stat is still there */
	collectors_poll(r->cs, r->n, rec_now_ns(), POLL_FINAL, NULL, NULL);
	if (r->t->mode != PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP && target__has_exited(r->t)) {
		target__collect_status(r->t);
		if (r->t->status_known)
			record_target_exit(r->t->wstatus, &te);
		tr.target_exit = &te; /* status_known false when the kernel did not say */
	}

	tr.reason = r->reason;
	tr.end_time_ns = rec_now_ns();
	tr.records = capture_writer__records(r->w);
	tr.events = r->ctx->events;
	tr.signal = (uint32_t)(r->reason == PTOP__V1__END_REASON__END_REASON_SIGNAL ? r->signo : 0);
	tr.error = r->error;
	err = drop_totals__fill_trailer(&g.drops, &tr);
	if (err) {
		errmsg("out of memory");
		capture_writer__abort(r->w);
		r->w = NULL;
		collectors_stop(r->cs, r->n);
		return recorder_failed(r);
	}
	rec.kind_case = PTOP__V1__RECORD__KIND_TRAILER;
	rec.trailer = &tr;
	err = capture_writer__append(r->w, &rec);
	drop_totals__release_trailer(&tr);
	records = capture_writer__records(r->w);
	bytes = capture_writer__bytes(r->w);
	if (!err)
		err = capture_writer__close(r->w); /* frees the writer whatever the result */
	else
		capture_writer__abort(r->w);
	r->w = NULL;
	collectors_stop(r->cs, r->n);
	if (err) {
		fmt_wall(r->start_real + (r->safe_ns - r->start_mono), when, sizeof(when));
		errmsg("writing %s: %s; the capture up to %s %s", path, strerror(-err), when,
		       out->to_stdout ? "was sent whole" : "is readable (kept)");
		return recorder_failed(r);
	}
	if (!r->o->quiet) {
		struct stat st;

		if (!out->to_stdout && stat(out->path, &st) == 0)
			bytes = (uint64_t)st.st_size; /* with the index */
		print_exit(r->t);
		if (out->to_stdout) /* the stream's size is the reader's to count */
			errmsg("wrote the capture to standard output: %" PRIu64 " records, %" PRIu64
			       " events; ended: %s%s%s",
			       records, r->ctx->events, end_reason_name(r->reason),
			       r->signo ? " " : "", r->signo ? strsignal(r->signo) : "");
		else
			errmsg("wrote %s: %" PRIu64 " records, %" PRIu64 " events, %" PRIu64
			       " bytes; ended: %s%s%s",
			       path, records, r->ctx->events, bytes, end_reason_name(r->reason),
			       r->signo ? " " : "", r->signo ? strsignal(r->signo) : "");
	}
	if (r->reason == PTOP__V1__END_REASON__END_REASON_ERROR)
		return recorder_failed(r);
	return r->t->is_child ? command_status(r) : RECORD_EXIT_OK;
}

/* What record_main() sets up, step by step, and undoes at its end. */
struct session {
	struct record_opts o;
	struct record_target t;
	struct collector cs[RECORD_MAX_COLLECTORS];
	struct rec_ctx ctx;
	struct capture_writer *w;
	struct run run;
	struct record_clocks started_at;
	struct record_output out;
	char err[2048], summary[4096];
	size_t n, n_prepared;
	bool started, checked;
	int sfd;
};

/* The steps of record_main(): each returns RECORD_EXIT_OK to go on, or the exit status
 * (the reason already said). */

/* SIGINT/SIGTERM through a signalfd, blocked until the loop reads them (a signal
 * during set-up ends the recording at its start). */
static int open_signals(struct session *s)
{
	sigset_t sigs;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL) ||
	    (s->sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		errmsg("cannot set up signal handling: %s", strerror(errno));
		return RECORD_EXIT_RUNTIME;
	}
	return RECORD_EXIT_OK;
}

/* The output, opened to write (refused before a command is launched for it). */
static int open_output(struct session *s, const char *path)
{
	int rc = record_output__open(&s->out, path, s->o.force, s->err, sizeof(s->err));

	if (!rc)
		return RECORD_EXIT_OK;
	errmsg("%s", s->err);
	return rc == -ENOMEM ? RECORD_EXIT_RUNTIME : RECORD_EXIT_USAGE;
}

/* The target: a cgroup, a pid, or the command launched (held until the header is
 * written), with what must exist before it runs (the collectors' prepare(): the heap's
 * preload lane, its shared memory and the command's LD_PRELOAD). */
static int open_target(struct session *s)
{
	int rc;

	if (s->o.cgroup) {
		rc = target__open_cgroup(&s->t, s->o.cgroup, s->err, sizeof(s->err));
	} else if (s->o.pid) {
		rc = target__open_pid(&s->t, s->o.pid, s->err, sizeof(s->err));
	} else {
		char *const *envp = NULL;

		s->n = collectors_init(s->cs, &s->ctx, &s->o);
		rc = collectors_prepare(s->cs, s->n, &envp, &s->n_prepared);
		if (rc) {
			errmsg("%s", rc == -ENOMEM ? "out of memory" : strerror(-rc));
			return RECORD_EXIT_RUNTIME;
		}
		rc = target__launch_env(&s->t, s->o.cmd, envp, s->err, sizeof(s->err));
	}
	if (!rc)
		return RECORD_EXIT_OK;
	errmsg("%s", s->err);
	if (rc == -ENOMEM)
		return RECORD_EXIT_RUNTIME;
	if (s->o.cgroup || s->o.pid)
		return RECORD_EXIT_USAGE;
	/* a command that is not there, or not one that can run: as env(1) says */
	return rc == -ENOENT						   ? RECORD_EXIT_CMD_NOT_FOUND
	       : rc == -EACCES || rc == -EISDIR || rc == -ENOEXEC ? RECORD_EXIT_CMD_CANNOT_RUN
									   : RECORD_EXIT_RUNTIME;
}

/* The capture writer, on the output named or the default file (which stays unnamed
 * until the header is in it). */
static int open_writer(struct session *s)
{
	struct capture_writer_opts wopts = { 0 };
	char path[PATH_MAX];
	int rc;

	if (!s->o.output) {
		if (record_default_output(path, sizeof(path), s->t.comm, s->t.pid, time(NULL))) {
			errmsg("cannot make a default file name: give one with -o");
			return RECORD_EXIT_USAGE;
		}
		rc = open_output(s, path);
		if (rc)
			return rc;
	}
	wopts.flush_interval_ns = s->o.flush_interval_ns;
	rc = record_output__writer_fd(&s->out);
	s->w = rc < 0 ? NULL : capture_writer__create_fd(rc, &wopts);
	if (!s->w) {
		rc = rc < 0 ? -rc : errno;
		errmsg("writing %s: %s; %s", s->out.name, strerror(rc),
		       s->out.to_stdout ? "the stream holds no capture" : "no file was made");
		return RECORD_EXIT_RUNTIME;
	}
	return RECORD_EXIT_OK;
}

/* The exec watch's eBPF feed: from the first collector that provides one
 * (collector_ops.exec_feed), whether it runs or not: its program on sched_process_exec is
 * the run's only one. F->obj NULL with the reason in F->why when there is none. */
static void exec_feed_get(struct session *s, struct exec_feed *f)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < s->n; i++) {
		struct collector *c = &s->cs[i];

		if (!c->ops->exec_feed)
			continue;
		if (c->ops->exec_feed(c, f) || !f->obj) {
			char why[sizeof(f->why)];

			snprintf(why, sizeof(why), "%s", f->why[0] ? f->why : "no object given");
			if (f->release)
				f->release(f->arg);
			memset(f, 0, sizeof(*f));
			snprintf(f->why, sizeof(f->why), "the exec feed of %s: %.150s",
				 c->ops->name, why);
		}
		return;
	}
	snprintf(f->why, sizeof(f->why), "no collector provides an eBPF exec feed");
}

/* Watch a launched command's execs when a collector follows them (held:
 * collector_ops.exec) or looks again soon after them (collector_ops.refresh). */
static int watch_execs(struct session *s)
{
	struct record_target *t = &s->t;
	bool follows = any_follows_exec(s->cs, s->n);
	struct exec_feed feed;
	unsigned fl;
	int rc;

	if (t->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP ||
	    !(follows || (t->is_child && !s->o.no_ebpf && any_refreshes(s->cs, s->n))))
		return RECORD_EXIT_OK;
	fl = (s->o.no_ebpf ? 0 : EXEC_WATCH_BPF) | (t->is_child ? EXEC_WATCH_LAUNCH : 0) |
	     (t->is_child && follows ? EXEC_WATCH_HOLD : 0);
	if (!s->o.no_ebpf)
		exec_feed_get(s, &feed);
	/* a launched command's executable is a path here; a --pid target's may be one in
	 * another mount namespace: its /proc/PID/exe says which file */
	rc = exec_watch__open(t->pid, t->is_child && t->exe[0] ? t->exe : NULL, fl,
			      s->o.no_ebpf ? NULL : &feed, &s->run.ew, s->err, sizeof(s->err));
	if (rc && !follows) {
		/* only refreshes wanted it: the intervals' polls remain */
		if (s->o.verbose)
			errmsg("not watching the command's execs: %s", s->err);
		s->run.ew = NULL;
	} else if (rc) {
		errmsg("%s", s->err);
		return RECORD_EXIT_RUNTIME;
	}
	for (size_t i = 0; i < s->n; i++)
		if (collector_runs(&s->cs[i]) && s->cs[i].ops->exec)
			note_exec_follow(&s->cs[i], exec_watch__how(s->run.ew));
	return RECORD_EXIT_OK;
}

/* The collectors: their context, check() and start(), the exec watch, the probe set
 * (refused with --strict when a lane is lost, and when nothing could start). */
static int start_collectors(struct session *s)
{
	struct rec_ctx *ctx = &s->ctx;
	int rc;

	ctx->pid = s->t.pid;
	ctx->mode = s->t.mode;
	rec_ctx_from_opts(ctx, &s->o);
	ctx->exe = s->t.exe[0] ? s->t.exe : NULL;
	ctx->start_pipe_ino = s->t.go_ino;
	if (s->t.mode == PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP) {
		ctx->cgroup_id = s->t.cgroup_id;
		ctx->cgroup_level = s->t.cgroup_level;
		ctx->cgroup_path = s->t.cgroup_path;
		ctx->cgroup_dir = s->t.cgroup_dir;
	}
	/* a launched command is held until after the header: its capture starts there.
	 * A running target's starts now, when the collectors begin to count. */
	record_clocks_now(&s->started_at);
	ctx->start_ns = rec_now_ns();
	if (!s->n_prepared)
		s->n = collectors_init(s->cs, ctx, &s->o);
	s->checked = true;
	collectors_check_start(s->cs, s->n, false);
	rc = watch_execs(s);
	if (rc)
		return rc;
	record_probe_summary(s->cs, s->n, s->summary, sizeof(s->summary));
	if (s->o.strict && record_strict_check(s->cs, s->n, s->err, sizeof(s->err))) {
		fputs(s->summary, stderr);
		errmsg("--strict: %s; nothing recorded", s->err);
		return RECORD_EXIT_RUNTIME; /* 125 for a command: record_main() */
	}
	if (!record_probe_count(s->cs, s->n, PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE)) {
		fputs(s->summary, stderr);
		errmsg("no collector could start, nothing to record: see the reasons above and "
		       "ptop-record --caps");
		return RECORD_EXIT_RUNTIME;
	}
	return RECORD_EXIT_OK;
}

/* The header, flushed, then the file gets its name: from here a SIGKILL leaves a
 * capture that ptop-analyze reads. */
static int write_header(struct session *s)
{
	struct record_header_in hin = {
		.opts = &s->o,
		.target = &s->t,
		.collectors = s->cs,
		.n_collectors = s->n,
		.table = collector_table,
		.start_at = s->t.is_child ? NULL : &s->started_at,
		.start_monotonic_ns = &s->run.start_mono,
		.start_realtime_ns = &s->run.start_real,
	};
	int rc = record_write_header(s->w, &hin);

	if (rc) {
		errmsg("writing %s: %s; %s", s->out.name, strerror(-rc),
		       s->out.to_stdout ? "the stream holds no capture" : "no file was made");
		return RECORD_EXIT_RUNTIME;
	}
	rc = record_output__publish(&s->out, s->err, sizeof(s->err));
	if (rc) {
		errmsg("%s", s->err);
		return rc == -ENOMEM || rc == -EIO || rc == -ENOSPC ? RECORD_EXIT_RUNTIME
								     : RECORD_EXIT_USAGE;
	}
	g.header_written = true;
	s->ctx.writer = s->w;
	s->ctx.capture_start_ns = s->run.start_mono;
	return RECORD_EXIT_OK;
}

/* Let the command run (a running target runs already), and say what is recorded. */
static int release_target(struct session *s)
{
	int rc = target__release(&s->t, s->err, sizeof(s->err));

	if (rc) {
		errmsg("%s", s->err);
		/* exec failed: not found (a file gone since the check), or not runnable */
		return rc == -ENOENT   ? RECORD_EXIT_CMD_NOT_FOUND
		       : rc == -ECHILD ? RECORD_EXIT_RUNTIME
				       : RECORD_EXIT_CMD_CANNOT_RUN;
	}
	s->started = true;
	if (s->o.quiet)
		return RECORD_EXIT_OK;
	fputs(s->summary, stderr);
	if (s->t.mode == PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP)
		errmsg("recording cgroup %s (%s) into %s", s->t.cgroup_path, s->t.cgroup_dir,
		       s->out.name);
	else
		errmsg("recording %s %d (%s) into %s", s->t.is_child ? "command, pid" : "pid",
		       s->t.pid, s->t.comm, s->out.name);
	return RECORD_EXIT_OK;
}

/* The loop, then the end: finish() closes or aborts the writer, stops the collectors,
 * and says the status. */
static int run_recording(struct session *s)
{
	struct run *run = &s->run;
	int status;

	run->o = &s->o;
	run->t = &s->t;
	run->cs = s->cs;
	run->n = s->n;
	run->ctx = &s->ctx;
	run->w = s->w;
	run->sfd = s->sfd;
	run->safe_ns = run->start_mono;
	run_loop(run);
	s->w = NULL;
	status = finish(run, &s->out);
	s->n = 0;
	return status;
}

/* What the steps left: a recording that never started leaves nothing behind (before
 * check(), only the collectors prepare() reached are due a stop()). */
static void close_session(struct session *s)
{
	if (!s->started) {
		if (s->checked)
			collectors_stop(s->cs, s->n);
		else
			for (size_t i = 0; i < s->n_prepared; i++)
				if (collector_runs(&s->cs[i]) && s->cs[i].ops->prepare)
					s->cs[i].ops->stop(&s->cs[i]);
		if (s->w)
			capture_writer__abort(s->w);
		record_output__discard(&s->out);
		target__kill(&s->t);
	}
	record_output__close(&s->out);
	exec_watch__free(s->run.ew);
	target__free(&s->t);
	drop_totals__free(&g.drops);
	record_opts__free(&s->o);
	if (s->sfd >= 0)
		close(s->sfd);
}

/* The steps up to the recording, after the options: 0 to record, else the status. */
static int set_up(struct session *s)
{
	int status = open_signals(s);

	if (status)
		return status;
	if (!s->o.no_ebpf && access(BTF_PATH, R_OK) != 0) {
		errmsg("this kernel has no BTF (" BTF_PATH " is missing), so the eBPF collectors "
		       "cannot run: use --no-ebpf to record with the /proc lanes only");
		return RECORD_EXIT_USAGE;
	}
	/* with -o -, descriptor 1 is standard error from here on (the command's too) */
	if (s->o.output && (status = open_output(s, s->o.output)))
		return status;
	if ((status = open_target(s)) || (status = open_writer(s)) ||
	    (status = start_collectors(s)) || (status = write_header(s)))
		return status;
	return release_target(s);
}

int record_main(int argc, char **argv)
{
	struct session s;
	int status = RECORD_EXIT_OK, rc;

	memset(&s, 0, sizeof(s));
	s.sfd = -1;
	record_output__init(&s.out);
	s.t.pidfd = s.t.go_fd = s.t.err_fd = -1;
	memset(&g, 0, sizeof(g));

	rc = record_opts__parse(&s.o, argc, argv, collector_table, s.err, sizeof(s.err));
	if (rc) {
		errmsg("%s", s.err);
		status = RECORD_EXIT_USAGE;
	} else if (s.o.help) {
		record_usage(stdout, collector_table);
	} else if (s.o.version) {
		printf("ptop-record %s (commit %s, built %s)\n", ptop_version, ptop_commit,
		       ptop_build_date);
	} else {
		g.verbose = s.o.verbose;
		/* libbpf output: one callback for the whole process (record/bpf_util.c);
		 * without --verbose, libbpf's warnings end up in the probe reasons */
		bpf_util__open_log(s.o.verbose);
		if (s.o.caps)
			status = open_signals(&s) ?: run_caps(&s.o);
		else
			status = set_up(&s) ?: run_recording(&s);
	}
	close_session(&s);
	/* a launched command's recorder failure before it ran is not the command's status
	 * (timeout(1) and env(1) use 125 so); finish() says its own */
	if (s.o.cmd && !s.started && status == RECORD_EXIT_RUNTIME)
		status = RECORD_EXIT_CMD_RECORDER;
	return status;
}
