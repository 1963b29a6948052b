/* record.h — the pure parts of the syscalls collector (collectors/syscalls/record.c), public
 * so collectors/syscalls/test_syscalls.c can check them without BPF: syscall names, per-CPU sums,
 * interval deltas of the cumulative kernel counters and the SyscallStats they make.
 */
#ifndef PTOP_RECORD_SYSCALLS_H
#define PTOP_RECORD_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "proto/ptop.pb-c.h"
#include "collectors/syscalls/syscalls.h"

/* The name of syscall NR in ptop's table for the architecture it was built for
 * (proto/syscall_table.h; x86_64: "getppid" for 110), or NULL when the table has
 * none. Static storage. */
const char *syscalls__name(uint32_t nr);

/* The length of HIST (N buckets) without its trailing zero buckets. */
size_t syscalls__hist_len(const uint64_t *hist, size_t n);

/* OUT = the N per-CPU copies at PERCPU (consecutive, the layout of a per-CPU map
 * value) added up. */
void syscalls__sum_cpus(const struct sc_stat *percpu, int n, struct sc_stat *out);

/* One syscall's change over an interval. */
struct sc_delta {
	uint64_t count, completed, errors, total_ns, unmatched;
	uint64_t hist[SC_HIST_BUCKETS];
};

/* OUT = CUR - PREV, field by field, modulo 2^64 (the kernel counters only grow, so
 * this is right across a wrap too). Returns true if any field changed. */
bool syscalls__delta(const struct sc_stat *cur, const struct sc_stat *prev, struct sc_delta *out);

/* One interval's SyscallStats message and the storage it points into. Large:
 * allocate it (syscalls__interval_new), not on the stack. */
struct sc_interval {
	Ptop__V1__SyscallStats msg;
	Ptop__V1__SyscallStat *ptrs[SC_MAX_NR];
	Ptop__V1__SyscallStat stats[SC_MAX_NR];
	struct sc_delta delta[SC_MAX_NR];
	char names[SC_MAX_NR][16];	/* "sys_NNN" for numbers the table lacks */
};

/* Fill IV->msg with one SyscallStat per syscall number in [0, N) whose counters
 * changed between PREV and CUR (cumulative sums over CPUs), in number order, with
 * the histogram trimmed of trailing zeros. IV->msg points into IV: it stays valid
 * until the next call. Returns the number of stats (0 is a valid interval with
 * no syscalls). N <= SC_MAX_NR. */
size_t syscalls__interval(const struct sc_stat *cur, const struct sc_stat *prev, size_t n,
			  struct sc_interval *iv);

#endif
