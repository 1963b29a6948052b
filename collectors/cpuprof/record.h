/* record.h — the pure parts of the cpuprof collector (collectors/cpuprof/record.c): the
 * delivered-rate arithmetic,
 * the per-CPU counter sums and the online-CPU list parser. Public so that
 * collectors/cpuprof/test_cpuprof.c can check them without BPF or a target.
 */
#ifndef PTOP_RECORD_CPUPROF_H
#define PTOP_RECORD_CPUPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "collectors/cpuprof/cpuprof.h"

/* --cpu-sample-hz: its settings (filled by the recorder from its options table,
 * cpuprof_collector.opts) */
#define CPUPROF_MAX_SAMPLE_HZ 10000
struct cpuprof_settings {
	unsigned sample_hz;          /* profile samples per second per CPU, default 99 */
};
extern struct cpuprof_settings cpuprof_settings;

/* The rate the timer delivered: TICKS / (CPUS x INTERVAL_NS seconds), in Hz.
 * 0 when CPUS or INTERVAL_NS is 0 (no interval: nothing measured). */
double cpuprof__delivered_hz(uint64_t ticks, uint32_t cpus, uint64_t interval_ns);

/* Sum N per-CPU copies of the counters into OUT. */
void cpuprof__sum_counters(const struct cp_counters *percpu, int n, struct cp_counters *out);

/* Parse a kernel CPU list ("0-3,8,10-11\n", /sys/devices/system/cpu/online) into
 * CPUS (at most MAX numbers, ascending as listed). Returns how many, or -EINVAL
 * (malformed) / -E2BIG (more than MAX). */
int cpuprof__parse_cpulist(const char *s, int *cpus, int max);

/* The set the BPF program writes after a switch from OLD: the other one. */
static inline uint32_t cpuprof__other_set(uint32_t old)
{
	return (old + 1) % CP_SETS;
}

#endif
