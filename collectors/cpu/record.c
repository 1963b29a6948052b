/* record.c — the cpu collector: the target's CPU time per interval, from two lanes.
 *
 * eBPF lane (collectors/cpu/cpu.bpf.c, tp_btf/sched_switch): exact on-CPU nanoseconds and
 * switch-outs of the target's threads. The kernel keeps cumulative per-CPU totals
 * of finished slices and, per CPU, the start of the target slice running there;
 * each poll sums the totals, adds the slices still in progress (now - start), and
 * emits the change since the previous poll. A thread that was on CPU when
 * recording started has no start stamp: its first slice is counted from the attach
 * time when it switches out (until then it is not visible in progress).
 *
 * /proc lane (/proc/PID/stat and /proc/PID/status), always when readable: utime
 * and stime deltas in ns, thread count, voluntary/involuntary switch deltas. A file
 * that cannot be read drops the lane for that interval with a "proc_unreadable"
 * notice; the process having exited (ENOENT/ESRCH) is not an error.
 *
 * With --no-ebpf, or without the privileges for BPF, only the /proc lane runs and
 * the probe's source is PROC; if loading the BPF program fails, the collector
 * falls back to the /proc lane and says so in its probe detail.
 *
 * In cgroup mode the eBPF lane covers the subtree, and the /proc lane's place is taken
 * by the cgroup lane: the subtree's usage, user and system time (and, with the v2 cpu
 * controller enabled, its cpu.max throttling) as deltas of the cgroup's cpu.stat,
 * which the kernel keeps for every v2 cgroup. It needs no eBPF.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/collector.h"
#include "record/bpf_util.h"
#include "record/cgroupfs.h"
#include "collectors/cpu/record.h"
#include "record/procfs.h"
#include "collectors/cpu/cpu.h"
#include "collectors/cpu/cpu.skel.h"

uint64_t cpu__ticks_to_ns(uint64_t ticks, long clk_tck)
{
	if (clk_tck <= 0)
		return 0;
	/* whole seconds first so that ticks * 1e9 cannot overflow */
	return ticks / clk_tck * 1000000000ULL + ticks % clk_tck * 1000000000ULL / clk_tck;
}

static uint64_t grow(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : 0;
}

void cpu__proc_sample(const struct proc_stat *prev_st, const struct proc_status *prev_ss,
		      const struct proc_stat *st, const struct proc_status *ss, long clk_tck,
		      Ptop__V1__CpuProc *out)
{
	out->user_ns = cpu__ticks_to_ns(grow(st->utime, prev_st->utime), clk_tck);
	out->system_ns = cpu__ticks_to_ns(grow(st->stime, prev_st->stime), clk_tck);
	out->user_ticks_total = st->utime;
	out->system_ticks_total = st->stime;
	out->threads = st->num_threads > 0 ? (uint32_t)st->num_threads : 0;
	out->voluntary_switches = grow(ss->voluntary_ctxt_switches,
				       prev_ss->voluntary_ctxt_switches);
	out->involuntary_switches = grow(ss->nonvoluntary_ctxt_switches,
					 prev_ss->nonvoluntary_ctxt_switches);
}

uint64_t cpu__oncpu_advance(uint64_t *emitted, uint64_t est)
{
	uint64_t d = est > *emitted ? est - *emitted : 0;

	*emitted += d;
	return d;
}

int cpu__parse_cg_stat(const char *text, struct cpu_cg_stat *s)
{
	struct cgroupfs_kvs kv = { 0 };
	int err = cgroupfs_parse_kv(text, &kv);

	memset(s, 0, sizeof(*s));
	if (!err && (!cgroupfs_kv_get(&kv, "usage_usec", &s->usage_us) ||
		     !cgroupfs_kv_get(&kv, "user_usec", &s->user_us) ||
		     !cgroupfs_kv_get(&kv, "system_usec", &s->system_us)))
		err = -EINVAL;
	if (!err)
		s->throttling = cgroupfs_kv_get(&kv, "nr_periods", &s->periods) &&
				cgroupfs_kv_get(&kv, "nr_throttled", &s->throttled) &&
				cgroupfs_kv_get(&kv, "throttled_usec", &s->throttled_us);
	cgroupfs_kvs_free(&kv);
	return err;
}

void cpu__cg_sample(const struct cpu_cg_stat *prev, const struct cpu_cg_stat *cur,
		    Ptop__V1__CpuCgroup *out)
{
	out->usage_ns = grow(cur->usage_us, prev->usage_us) * 1000;
	out->user_ns = grow(cur->user_us, prev->user_us) * 1000;
	out->system_ns = grow(cur->system_us, prev->system_us) * 1000;
	out->throttling = prev->throttling && cur->throttling;
	if (out->throttling) {
		out->periods = grow(cur->periods, prev->periods);
		out->throttled_periods = grow(cur->throttled, prev->throttled);
		out->throttled_ns = grow(cur->throttled_us, prev->throttled_us) * 1000;
	}
}

/* ------------------------------------------------------------------ collector */

struct cpu_priv {
	struct cpu_bpf *skel;		/* NULL: /proc lane only */
	int ncpus;
	void *vals;			/* ncpus per-CPU values of the larger struct */
	uint64_t emitted_oncpu;		/* on-CPU ns emitted so far */
	uint64_t prev_switches;
	uint64_t prev_misses;
	long clk_tck;
	uint64_t prev_ns;		/* CLOCK_MONOTONIC of the previous poll (or start) */
	bool have_base;			/* prev_st/prev_ss hold a reading */
	struct proc_stat prev_st;
	struct proc_status prev_ss;
	/* the cgroup lane (cgroup mode): runs when cpu.stat could be read at start */
	bool have_cg;			/* prev_cg holds a reading */
	struct cpu_cg_stat prev_cg;
	char *cgbuf;
	size_t cgcap;
};

/* Read the cgroup's cpu.stat into S. 0 or -errno. */
static int read_cg_stat(const char *dir, char **buf, size_t *cap, struct cpu_cg_stat *s)
{
	size_t len;
	int err = cgroupfs_read(dir, "cpu.stat", buf, cap, &len);

	return err ? err : cpu__parse_cg_stat(*buf, s);
}

static Ptop__V1__ProbeState cpu_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	char why[200] = "";
	struct proc_stat st;
	int err;

	c->reason[0] = '\0';
	if (ctx->pid > 0) {
		err = procfs_read_stat(ctx->pid, &st);
		if (err) {
			snprintf(c->reason, sizeof(c->reason), "/proc/%d/stat: %s", (int)ctx->pid,
				 strerror(-err));
			c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
			return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
		}
	}
	if (ctx->pid <= 0 && !ctx->caps_only) {
		/* cgroup mode: the eBPF lane covers the subtree (Event.pid 0); cpu.stat
		 * takes the /proc lane's place, which reads one process */
		struct cpu_cg_stat cg;
		char *buf = NULL, cgwhy[160] = "";
		size_t cap = 0;
		bool ebpf = !ctx->no_ebpf && bpf_util__can_trace(why, sizeof(why)) == 0;

		err = ctx->cgroup_dir ? read_cg_stat(ctx->cgroup_dir, &buf, &cap, &cg) : -ENOENT;
		free(buf);
		if (err)
			snprintf(cgwhy, sizeof(cgwhy), "%.100s/cpu.stat: %s",
				 ctx->cgroup_dir ? ctx->cgroup_dir : "(no cgroup)", strerror(-err));
		if (!ebpf && err) {
			c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
			snprintf(c->reason, sizeof(c->reason),
				 "neither lane can run: eBPF (%.150s), %s",
				 ctx->no_ebpf ? "--no-ebpf given" : why, cgwhy);
			return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
		}
		c->source = ebpf ? PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF
				 : PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
		snprintf(c->detail, sizeof(c->detail), "%s%s%s%s",
			 ebpf ? "tp_btf/sched_switch on-CPU time of the cgroup subtree" : "",
			 ebpf && !err ? " + " : "",
			 err ? "" : "cpu.stat of the cgroup (usage, user, system",
			 err ? "" : cg.throttling ? "; cpu.max throttling)" :
						    "; no throttling: the v2 cpu controller is off)");
		if (err || !ebpf) {
			size_t len = strlen(c->detail);

			snprintf(c->detail + len, sizeof(c->detail) - len, " (%s %.200s)",
				 err ? "no cgroup lane:" : "no eBPF lane:",
				 err ? cgwhy : ctx->no_ebpf ? "--no-ebpf" : why);
		}
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	if (!ctx->no_ebpf && bpf_util__can_trace(why, sizeof(why)) == 0) {
		c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
		snprintf(c->detail, sizeof(c->detail),
			 "tp_btf/sched_switch on-CPU time + /proc/PID/stat,status");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
	if (ctx->no_ebpf)
		snprintf(c->detail, sizeof(c->detail), "/proc/PID/stat,status (--no-ebpf)");
	else
		snprintf(c->detail, sizeof(c->detail), "/proc/PID/stat,status (eBPF lane off: %s)",
			 why);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void cpu_stop(struct collector *c)
{
	struct cpu_priv *p = c->priv;

	if (!p)
		return;
	cpu_bpf__destroy(p->skel);
	free(p->vals);
	free(p->cgbuf);
	free(p);
	c->priv = NULL;
}

/* Load and attach collectors/cpu/cpu.bpf.c. 0, or -errno with the reason in BUF. */
static int start_ebpf(struct collector *c, struct cpu_priv *p, char *buf, size_t len)
{
	struct timespec ts;
	int err;

	p->ncpus = bpf_util__ncpus();
	if (p->ncpus <= 0) {
		err = p->ncpus < 0 ? p->ncpus : -EINVAL;
		snprintf(buf, len, "cannot count possible CPUs: %s", strerror(-err));
		return err;
	}
	p->vals = calloc(p->ncpus, sizeof(struct cpu_total) > sizeof(struct cpu_slot) ?
			 sizeof(struct cpu_total) : sizeof(struct cpu_slot));
	if (!p->vals) {
		snprintf(buf, len, "out of memory");
		return -ENOMEM;
	}
	bpf_util__open_log(c->ctx->verbose);
	p->skel = cpu_bpf__open();
	if (!p->skel) {
		err = -errno;
		bpf_util__format_error(buf, len, "open cpu BPF", err);
		return err;
	}
	p->skel->rodata->targ_tgid = (__u32)c->ctx->pid;
	p->skel->rodata->targ_cgid = c->ctx->cgroup_id;
	p->skel->rodata->targ_cglevel = c->ctx->cgroup_level;
	err = cpu_bpf__load(p->skel);
	err = err ?: bpf_util__loaded(p->skel->obj, "cpu");
	if (err) {
		bpf_util__format_error(buf, len, "load cpu BPF", err);
		return err;
	}
	/* bpf_ktime_get_ns() is CLOCK_MONOTONIC; set before the program can run */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	p->skel->bss->attach_ns = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	err = cpu_bpf__attach(p->skel);
	if (err) {
		bpf_util__format_error(buf, len, "attach tp_btf/sched_switch", err);
		return err;
	}
	return 0;
}

static int cpu_start(struct collector *c)
{
	struct cpu_priv *p;
	char why[200];
	int err;

	p = calloc(1, sizeof(*p));
	if (!p) {
		c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	c->priv = p;
	p->clk_tck = sysconf(_SC_CLK_TCK);
	if (p->clk_tck <= 0)
		p->clk_tck = 100;
	/* the cgroup lane's first reading, to know whether it can run; read again below,
	 * once the eBPF lane is attached, so that both start at the same time */
	if (c->ctx->pid <= 0 && c->ctx->cgroup_dir)
		p->have_cg = read_cg_stat(c->ctx->cgroup_dir, &p->cgbuf, &p->cgcap,
					  &p->prev_cg) == 0;
	if (c->source == PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF) {
		err = start_ebpf(c, p, why, sizeof(why));
		if (err && c->ctx->pid <= 0 && !p->have_cg) {
			snprintf(c->reason, sizeof(c->reason), "%s", why);
			return err; /* no cgroup lane to fall back on */
		}
		if (err && c->ctx->pid <= 0) {
			size_t len = strlen(c->detail);

			cpu_bpf__destroy(p->skel);
			p->skel = NULL;
			c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
			snprintf(c->detail + len, sizeof(c->detail) - len,
				 " (eBPF lane failed: %.200s)", why);
		} else if (err) {
			/* keep the /proc lane: CPU time from /proc beats none */
			cpu_bpf__destroy(p->skel);
			p->skel = NULL;
			c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
			snprintf(c->detail, sizeof(c->detail),
				 "/proc/PID/stat,status (eBPF lane failed: %s)", why);
		}
	}
	/* the /proc baseline; if it cannot be read now, the first poll takes it */
	p->have_base = c->ctx->pid > 0 && procfs_read_stat(c->ctx->pid, &p->prev_st) == 0 &&
		       procfs_read_status(c->ctx->pid, &p->prev_ss) == 0;
	if (p->have_cg)
		read_cg_stat(c->ctx->cgroup_dir, &p->cgbuf, &p->cgcap, &p->prev_cg);
	p->prev_ns = rec_now_ns();
	return 0;
}

/* Fill E with the eBPF lane of the interval. 0 or -errno. */
static int poll_ebpf(struct collector *c, struct cpu_priv *p, Ptop__V1__CpuEbpf *e)
{
	struct cpu_total tot = { 0 };
	const struct cpu_slot *slot;
	uint64_t sum[3], now, inprog = 0, misses;
	struct timespec ts;
	char detail[128];
	int cpu, err;

	err = bpf_util__percpu_sum(p->skel->maps.cpu_totals, 0, p->vals, sizeof(struct cpu_total),
				   sum, 3);
	if (err)
		return err;
	tot.oncpu_ns = sum[0];
	tot.switches = sum[1];
	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.cpu_slots), &(__u32){ 0 }, p->vals))
		return -errno;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	for (cpu = 0; cpu < p->ncpus; cpu++) {
		slot = (const struct cpu_slot *)((const char *)p->vals +
						 (size_t)cpu * sizeof(struct cpu_slot));
		if (slot->ts && slot->ts < now)
			inprog += now - slot->ts;
	}
	e->oncpu_ns = cpu__oncpu_advance(&p->emitted_oncpu, tot.oncpu_ns + inprog);
	e->switches = tot.switches - p->prev_switches;
	p->prev_switches = tot.switches;

	if (bpf_util__prog_misses(p->skel->progs.sched_switch, &misses) == 0) {
		snprintf(detail, sizeof(detail), "sched_switch: runs skipped by the kernel");
		err = rec_emit_drop(c, "recursion_miss", misses - p->prev_misses, detail);
		if (err)
			return err;
		p->prev_misses = misses;
	}
	return 0;
}

/* Fill CG with the cgroup lane of the interval. 1 if filled, 0 if not (the cgroup
 * is gone, or cpu.stat could not be read: a drop notice says so), -errno on a writer
 * error. */
static int poll_cgroup(struct collector *c, struct cpu_priv *p, Ptop__V1__CpuCgroup *cg)
{
	struct cpu_cg_stat s;
	char detail[160];
	int err = read_cg_stat(c->ctx->cgroup_dir, &p->cgbuf, &p->cgcap, &s);

	if (err == -ENOENT || err == -ENODEV)
		return 0;	/* the cgroup was removed: the recording ends */
	if (err) {
		snprintf(detail, sizeof(detail), "cpu.stat: %s", strerror(-err));
		err = rec_emit_drop(c, "cgroup_unreadable", 1, detail);
		return err ? err : 0;
	}
	cpu__cg_sample(&p->prev_cg, &s, cg);
	p->prev_cg = s;
	return 1;
}

/* Fill PR with the /proc lane of the interval. Returns 1 if filled, 0 if not
 * (no baseline yet, or the process is gone), -errno on a writer error. */
static int poll_proc(struct collector *c, struct cpu_priv *p, Ptop__V1__CpuProc *pr)
{
	struct proc_status ss;
	struct proc_stat st;
	const char *file = "stat";
	char detail[160];
	int err;

	err = procfs_read_stat(c->ctx->pid, &st);
	if (!err) {
		file = "status";
		err = procfs_read_status(c->ctx->pid, &ss);
	}
	if (err == -ENOENT || err == -ESRCH)
		return 0;	/* the process has exited: nothing to read, not an error */
	if (err) {
		snprintf(detail, sizeof(detail), "%s: %s", file, strerror(-err));
		err = rec_emit_drop(c, "proc_unreadable", 1, detail);
		return err ? err : 0;
	}
	if (!p->have_base) {
		p->prev_st = st;
		p->prev_ss = ss;
		p->have_base = true;
		return 0;
	}
	cpu__proc_sample(&p->prev_st, &p->prev_ss, &st, &ss, p->clk_tck, pr);
	p->prev_st = st;
	p->prev_ss = ss;
	return 1;
}

static int cpu_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct cpu_priv *p = c->priv;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CpuSample sample = PTOP__V1__CPU_SAMPLE__INIT;
	Ptop__V1__CpuEbpf e = PTOP__V1__CPU_EBPF__INIT;
	Ptop__V1__CpuProc pr = PTOP__V1__CPU_PROC__INIT;
	Ptop__V1__CpuCgroup cg = PTOP__V1__CPU_CGROUP__INIT;
	uint64_t interval;
	int err;

	(void)flags;
	if (!p)
		return -EINVAL;
	if (p->skel) {
		err = poll_ebpf(c, p, &e);
		if (err) {
			snprintf(c->reason, sizeof(c->reason), "read cpu BPF maps: %s",
				 strerror(-err));
			return err;
		}
		sample.ebpf = &e;
	}
	err = c->ctx->pid > 0 ? poll_proc(c, p, &pr) : 0;
	if (err < 0)
		return err;
	if (err > 0)
		sample.proc = &pr;
	err = p->have_cg ? poll_cgroup(c, p, &cg) : 0;
	if (err < 0)
		return err;
	if (err > 0)
		sample.cgroup = &cg;
	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	p->prev_ns = now_ns;
	if (!sample.ebpf && !sample.proc && !sample.cgroup)
		return 0;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPU;
	ev.cpu = &sample;
	return rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_CPU, now_ns, interval);
}

const struct collector_ops cpu_collector = {
	.name = "cpu",
	.summary = "on-CPU time and context switches (eBPF sched_switch; /proc/PID/stat,status; "
		   "a cgroup's cpu.stat)",
	.check = cpu_check,
	.start = cpu_start,
	.poll = cpu_poll,
	.stop = cpu_stop,
};
