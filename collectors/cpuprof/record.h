/* cpuprof.h — the pure parts of the cpuprof collector (collectors/cpuprof/record.c): the table
 * that gives each distinct stack of a capture its id, the delivered-rate arithmetic,
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

/* The stacks of a capture by content: one id per distinct (kernel flag, pid, ips), where
 * pid is a user stack's process in a cgroup capture and 0 otherwise. */
struct cp_stack_table;

/* An empty table. NULL with errno = ENOMEM. Free with cp_stack_table__free(). */
struct cp_stack_table *cp_stack_table__new(void);

/* Free T and every stack it holds. T may be NULL. */
void cp_stack_table__free(struct cp_stack_table *t);

/* Find the stack (KERNEL, PID, IPS[0..N)) in T, or add it with the next id (1, 2, ...;
 * 0 is never an id: StackCount uses it for "no stack"). *ID gets its id. PID: the
 * process a user stack was taken in when the capture has several (cgroup mode: the
 * same ips in two processes are two stacks); 0 when it has one (every other caller).
 * A kernel stack ignores PID: it is the same in every process. The ips are copied.
 * Returns 1 when the stack is new (the caller writes its Stack record now, before any
 * event that refers to it), 0 when it was known, -ENOMEM. */
int cp_stack_table__intern(struct cp_stack_table *t, bool kernel, uint32_t pid, const uint64_t *ips,
			   size_t n, uint64_t *id);

/* A new id in T for a stack that is not interned by its ips (a stack copy, whose ips
 * the analyzer finds: record/stackcopy.h). Never 0; never handed out again. */
uint64_t cp_stack_table__reserve(struct cp_stack_table *t);

/* The capture's one table, shared by every collector that writes Stack records (cpuprof,
 * heap), so that a stack id means one stack across the capture. Created on first use,
 * never freed; NULL with errno = ENOMEM. Not thread-safe (collectors run in one thread). */
struct cp_stack_table *cp_stack_table__capture(void);

/* Number of distinct stacks in T. */
size_t cp_stack_table__count(const struct cp_stack_table *t);

/* The 64-bit content hash of a stack (FNV-1a over the flag and the ips, then a
 * final mix). Equal stacks hash equal; the table compares contents in full. */
uint64_t cpuprof__stack_hash(bool kernel, const uint64_t *ips, size_t n);

/* --cpu-sample-hz: its settings (filled by the recorder from its options table,
 * cpuprof_collector.opts) */
#define CPUPROF_MAX_SAMPLE_HZ 10000
struct cpuprof_settings {
	unsigned sample_hz;          /* profile samples per second per CPU, default 99 */
};
extern struct cpuprof_settings cpuprof_settings;

struct rec_ctx;

/* The capture id of the stack (KERNEL, PID, IPS[0..N)) in T (cp_stack_table__intern), writing
 * its Stack record through rec_emit() the first time T sees it, so that the record comes
 * before any event that refers to it. *ID: 0 when N is 0 or T cannot take the stack (out
 * of memory: the stack goes unnamed, not the event). 0, or -errno from the writer. */
int cp_stack_table__emit(struct rec_ctx *ctx, struct cp_stack_table *t, bool kernel, uint32_t pid,
			 const uint64_t *ips, size_t n, uint64_t *id);

/* Read the stack keyed SK from the stack map open on FD (bpf/stackmap.h) into IPS, at
 * most MAX ips. Returns how many were written; 0 when SK is no stack (hash 0) or the
 * map does not hold it; -errno when the map cannot be read. */
int stackmap__read(int fd, const struct sm_key *sk, uint64_t *ips, size_t max);

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
