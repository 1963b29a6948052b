/* load.c — the cpu collector's loader (analyze/load.h): each CpuSample is one
 * cpu_sample row, its eBPF, /proc and cgroup lanes side by side (a lane that did not
 * run is NULL).
 */
#include <stddef.h>

#include "analyze/load.h"

enum { ST_SAMPLE, ST_N };

static const char sample_sql[] =
	"INSERT INTO cpu_sample (cap, time_ns, interval_ns, pid, oncpu_ns, switches, "
	"user_ns, system_ns, threads, voluntary_switches, involuntary_switches, "
	"user_ticks_total, system_ticks_total, cg_usage_ns, cg_user_ns, cg_system_ns, "
	"cg_periods, cg_throttled_periods, cg_throttled_ns)";

static int load_cpu(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	const Ptop__V1__CpuSample *c = ev->cpu;
	sqlite3_stmt *s = l->st[ST_SAMPLE];

	if (!c)
		return 0;
	bind_envelope(l, s, ev, true);
	if (c->ebpf) {
		bind_u64(s, 5, c->ebpf->oncpu_ns);
		bind_u64(s, 6, c->ebpf->switches);
	} else {
		sqlite3_bind_null(s, 5);
		sqlite3_bind_null(s, 6);
	}
	if (c->proc) {
		bind_u64(s, 7, c->proc->user_ns);
		bind_u64(s, 8, c->proc->system_ns);
		bind_u64(s, 9, c->proc->threads);
		bind_u64(s, 10, c->proc->voluntary_switches);
		bind_u64(s, 11, c->proc->involuntary_switches);
		bind_u64(s, 12, c->proc->user_ticks_total);
		bind_u64(s, 13, c->proc->system_ticks_total);
	} else {
		for (int i = 7; i <= 13; i++)
			sqlite3_bind_null(s, i);
	}
	/* the cgroup lane (cpu.stat); its throttling counters only when they were read */
	if (c->cgroup) {
		bind_u64(s, 14, c->cgroup->usage_ns);
		bind_u64(s, 15, c->cgroup->user_ns);
		bind_u64(s, 16, c->cgroup->system_ns);
	} else {
		for (int i = 14; i <= 16; i++)
			sqlite3_bind_null(s, i);
	}
	if (c->cgroup && c->cgroup->throttling) {
		bind_u64(s, 17, c->cgroup->periods);
		bind_u64(s, 18, c->cgroup->throttled_periods);
		bind_u64(s, 19, c->cgroup->throttled_ns);
	} else {
		for (int i = 17; i <= 19; i++)
			sqlite3_bind_null(s, i);
	}
	return load__step(l, ST_SAMPLE);
}

const struct an_load cpu_load = {
	AN_LOAD_PAYLOADS({ PTOP__V1__EVENT__PAYLOAD_CPU, "event:cpu", load_cpu }),
	AN_LOAD_STMTS([ST_SAMPLE] = sample_sql),
	AN_LOAD_CHECKS({ "cpu_sample", true, true, "rowid", "pid",
			 "oncpu_ns,switches,user_ns,system_ns,threads,voluntary_switches,"
			 "involuntary_switches,user_ticks_total,system_ticks_total,cg_usage_ns,"
			 "cg_user_ns,cg_system_ns,cg_periods,cg_throttled_periods,"
			 "cg_throttled_ns" }),
};
