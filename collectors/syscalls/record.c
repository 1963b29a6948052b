/* record.c — the syscalls collector: per syscall per interval count, errors,
 * latency total and log2 histogram, aggregated in the kernel by collectors/syscalls/syscalls.bpf.c.
 *
 * There is no /proc lane: syscalls are counted only by the sys_enter/sys_exit
 * tracepoints, so with --no-ebpf this collector is unsupported (and the capture
 * says "not collected", never 0). Each poll reads the cumulative per-CPU arrays in
 * one batch, sums the CPUs, and emits one Event with the syscalls that changed
 * since the previous poll; an interval with no syscalls is emitted too (empty), as
 * it is a measurement. What the kernel side could not count (numbers out of the
 * table, lost entry stamps, skipped program runs) is emitted as drop notices.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/collector.h"
#include "record/bpf_util.h"
#include "collectors/syscalls/record.h"
#include "proto/syscall_table.h"
#include "collectors/syscalls/syscalls.skel.h"

const char *syscalls__name(uint32_t nr)
{
	return syscall_table__name(syscall_table__native(), nr);
}

size_t syscalls__hist_len(const uint64_t *hist, size_t n)
{
	while (n > 0 && hist[n - 1] == 0)
		n--;
	return n;
}

void syscalls__sum_cpus(const struct sc_stat *percpu, int n, struct sc_stat *out)
{
	int cpu;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (cpu = 0; cpu < n; cpu++) {
		const struct sc_stat *s = &percpu[cpu];

		out->count += s->count;
		out->completed += s->completed;
		out->errors += s->errors;
		out->total_ns += s->total_ns;
		out->unmatched += s->unmatched;
		for (i = 0; i < SC_HIST_BUCKETS; i++)
			out->hist[i] += s->hist[i];
	}
}

bool syscalls__delta(const struct sc_stat *cur, const struct sc_stat *prev, struct sc_delta *out)
{
	uint64_t any;
	size_t i;

	out->count = cur->count - prev->count;
	out->completed = cur->completed - prev->completed;
	out->errors = cur->errors - prev->errors;
	out->total_ns = cur->total_ns - prev->total_ns;
	out->unmatched = cur->unmatched - prev->unmatched;
	any = out->count | out->completed | out->errors | out->total_ns | out->unmatched;
	for (i = 0; i < SC_HIST_BUCKETS; i++) {
		out->hist[i] = cur->hist[i] - prev->hist[i];
		any |= out->hist[i];
	}
	return any != 0;
}

size_t syscalls__interval(const struct sc_stat *cur, const struct sc_stat *prev, size_t n,
			  struct sc_interval *iv)
{
	static const Ptop__V1__SyscallStats stats_init = PTOP__V1__SYSCALL_STATS__INIT;
	static const Ptop__V1__SyscallStat stat_init = PTOP__V1__SYSCALL_STAT__INIT;
	size_t nr, k = 0;

	if (n > SC_MAX_NR)
		n = SC_MAX_NR;
	iv->msg = stats_init;
	for (nr = 0; nr < n; nr++) {
		struct sc_delta *d = &iv->delta[k];
		Ptop__V1__SyscallStat *s = &iv->stats[k];
		const char *name;

		if (!syscalls__delta(&cur[nr], &prev[nr], d))
			continue;
		*s = stat_init;
		s->nr = nr;
		name = syscalls__name(nr);
		if (!name) {
			snprintf(iv->names[k], sizeof(iv->names[k]), "sys_%zu", nr);
			name = iv->names[k];
		}
		s->name = (char *)name;
		s->count = d->count;
		s->completed = d->completed;
		s->errors = d->errors;
		s->total_ns = d->total_ns;
		s->unmatched = d->unmatched;
		s->n_latency_log2_hist = syscalls__hist_len(d->hist, SC_HIST_BUCKETS);
		s->latency_log2_hist = s->n_latency_log2_hist ? d->hist : NULL;
		iv->ptrs[k++] = s;
	}
	iv->msg.n_stats = k;
	iv->msg.stats = k ? iv->ptrs : NULL;
	return k;
}

/* ------------------------------------------------------------------ collector */

static const char *const counter_kind[SC_CNT_MAX] = {
	[SC_CNT_NR_RANGE] = "nr_out_of_range",
	[SC_CNT_STAMP_FAIL] = "map_full",
	[SC_CNT_COMPAT] = "compat_syscall",
};
static const char *const counter_detail[SC_CNT_MAX] = {
	[SC_CNT_NR_RANGE] = "sys_enter with a syscall number outside the table: not counted",
	[SC_CNT_STAMP_FAIL] = "no task storage for the entry stamp: call counted, latency lost",
	[SC_CNT_COMPAT] = "32-bit (ia32) syscall: numbered by the i386 table, not counted per "
			  "syscall",
};

struct sc_priv {
	struct syscalls_bpf *skel;
	int ncpus;
	struct sc_stat *percpu;		/* batch read buffer: SC_MAX_NR x ncpus */
	__u32 *keys;			/* SC_MAX_NR */
	struct sc_stat *cur, *prev;	/* SC_MAX_NR cumulative sums */
	struct sc_interval *iv;
	uint64_t *cnt_vals;		/* ncpus: one per-CPU counter value */
	uint64_t prev_ns;
	uint64_t prev_counters[SC_CNT_MAX];
	uint64_t prev_misses[2];	/* sys_enter, sys_exit */
};

static Ptop__V1__ProbeState sc_check(struct collector *c)
{
	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
	c->reason[0] = '\0';
	if (c->ctx->no_ebpf) {
		snprintf(c->reason, sizeof(c->reason),
			 "--no-ebpf: syscalls are counted only by eBPF tracepoints");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	if (bpf_util__can_trace(c->reason, sizeof(c->reason)) != 0)
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	snprintf(c->detail, sizeof(c->detail),
		 "raw_tp/sys_enter + raw_tp/sys_exit (+ tp_btf/sched_switch for calls that block), "
		 "aggregated in kernel: %d syscall numbers, log2 latency histogram", SC_MAX_NR);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void sc_stop(struct collector *c)
{
	struct sc_priv *p = c->priv;

	if (!p)
		return;
	syscalls_bpf__destroy(p->skel);
	free(p->percpu);
	free(p->keys);
	free(p->cur);
	free(p->prev);
	free(p->iv);
	free(p->cnt_vals);
	free(p);
	c->priv = NULL;
}

/* Read the cumulative stats of every syscall number, summed over CPUs, into P->cur. */
static int read_stats(struct sc_priv *p)
{
	int fd = bpf_map__fd(p->skel->maps.sc_stats);
	__u32 count = SC_MAX_NR, out_batch = 0, i;
	int err;

	err = bpf_map_lookup_batch(fd, NULL, &out_batch, p->keys, p->percpu, &count, NULL);
	if (err && errno != ENOENT)
		count = 0;		/* no batch support: one lookup per key below */
	if (count == SC_MAX_NR) {
		for (i = 0; i < count; i++) {
			if (p->keys[i] >= SC_MAX_NR)
				return -EINVAL;
			syscalls__sum_cpus(&p->percpu[(size_t)i * p->ncpus], p->ncpus,
					   &p->cur[p->keys[i]]);
		}
		return 0;
	}
	for (i = 0; i < SC_MAX_NR; i++) {
		if (bpf_map_lookup_elem(fd, &i, p->percpu) != 0)
			return -errno;
		syscalls__sum_cpus(p->percpu, p->ncpus, &p->cur[i]);
	}
	return 0;
}

/* sc_switch and sys_exit first, sys_enter last: no stamp may exist before the
 * program that moves stamps off a CPU is live (sys_exit relies on it). The links
 * go into the skeleton, which destroys them. 0 or -errno. */
static int attach_in_order(struct syscalls_bpf *skel)
{
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} order[] = {
		{ skel->progs.sc_switch, &skel->links.sc_switch },
		{ skel->progs.sys_exit, &skel->links.sys_exit },
		{ skel->progs.sys_enter, &skel->links.sys_enter },
	};
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		*order[i].link = bpf_program__attach(order[i].prog);
		if (!*order[i].link)
			return -errno;
	}
	return 0;
}

static int sc_start(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	struct sc_priv *p;
	int err;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	c->priv = p;
	p->ncpus = bpf_util__ncpus();
	if (p->ncpus <= 0) {
		err = p->ncpus < 0 ? p->ncpus : -EINVAL;
		snprintf(c->reason, sizeof(c->reason), "cannot count possible CPUs: %s",
			 strerror(-err));
		goto cleanup;
	}
	p->percpu = calloc((size_t)SC_MAX_NR * p->ncpus, sizeof(*p->percpu));
	p->keys = calloc(SC_MAX_NR, sizeof(*p->keys));
	p->cur = calloc(SC_MAX_NR, sizeof(*p->cur));
	p->prev = calloc(SC_MAX_NR, sizeof(*p->prev));
	p->iv = calloc(1, sizeof(*p->iv));
	p->cnt_vals = calloc(p->ncpus, sizeof(*p->cnt_vals));
	if (!p->percpu || !p->keys || !p->cur || !p->prev || !p->iv || !p->cnt_vals) {
		err = -ENOMEM;
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		goto cleanup;
	}

	bpf_util__open_log(ctx->verbose);
	p->skel = syscalls_bpf__open();
	if (!p->skel) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason), "open syscalls BPF", err);
		goto cleanup;
	}
	p->skel->rodata->targ_tgid = (__u32)ctx->pid;
	p->skel->rodata->targ_cgid = ctx->cgroup_id;
	p->skel->rodata->targ_cglevel = ctx->cgroup_level;
	err = syscalls_bpf__load(p->skel);
	err = err ?: bpf_util__loaded(p->skel->obj, "syscalls");
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason), "load syscalls BPF", err);
		goto cleanup;
	}
	err = attach_in_order(p->skel);
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason),
				       "attach raw_tp sys_enter/sys_exit, tp_btf sched_switch", err);
		goto cleanup;
	}
	p->prev_ns = rec_now_ns();
	return 0;

cleanup:
	c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	sc_stop(c);
	return err;
}

/* Emit drop notices for what the kernel side could not count since the last poll. */
static int emit_losses(struct collector *c, struct sc_priv *p)
{
	struct bpf_program *progs[2] = { p->skel->progs.sys_enter, p->skel->progs.sys_exit };
	uint64_t v, misses;
	char detail[128];
	__u32 i;
	int err;

	for (i = 0; i < SC_CNT_MAX; i++) {
		err = bpf_util__percpu_sum(p->skel->maps.sc_counters, i, p->cnt_vals,
					   sizeof(__u64), &v, 1);
		if (err)
			return err;
		err = rec_emit_drop(c, counter_kind[i], v - p->prev_counters[i], counter_detail[i]);
		if (err)
			return err;
		p->prev_counters[i] = v;
	}
	for (i = 0; i < 2; i++) {
		if (bpf_util__prog_misses(progs[i], &misses) != 0)
			continue;
		snprintf(detail, sizeof(detail), "%s: runs skipped by the kernel (program busy)",
			 bpf_program__name(progs[i]));
		err = rec_emit_drop(c, "recursion_miss", misses - p->prev_misses[i], detail);
		if (err)
			return err;
		p->prev_misses[i] = misses;
	}
	return 0;
}

static int sc_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct sc_priv *p = c->priv;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	struct sc_stat *tmp;
	int err;

	(void)flags;
	if (!p || !p->skel)
		return -EINVAL;
	err = read_stats(p);
	if (err) {
		snprintf(c->reason, sizeof(c->reason), "read syscall stats: %s", strerror(-err));
		return err;
	}
	syscalls__interval(p->cur, p->prev, SC_MAX_NR, p->iv);
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_SYSCALLS;
	ev.syscalls = &p->iv->msg;
	err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_SYSCALLS, now_ns,
			     now_ns > p->prev_ns ? now_ns - p->prev_ns : 0);
	if (err)
		return err;
	tmp = p->prev;
	p->prev = p->cur;
	p->cur = tmp;
	p->prev_ns = now_ns;
	return emit_losses(c, p);
}

const struct collector_ops syscalls_collector = {
	.name = "syscalls",
	.summary = "per syscall: count, errors, latency total and log2 histogram (eBPF sys_enter/sys_exit)",
	.check = sc_check,
	.start = sc_start,
	.poll = sc_poll,
	.stop = sc_stop,
};
