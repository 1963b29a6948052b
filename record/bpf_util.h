/* bpf_util.h — what the eBPF collectors share in user space: the libbpf message
 * capture, the privilege and BTF check, per-CPU reads and program miss counts.
 *
 * libbpf's print callback is process-global; bpf_util__open_log() installs the
 * one ptop uses. Without --verbose, libbpf's warnings go only into a small buffer
 * that a collector copies into its reason when a load fails; with it, every
 * message (debug included) also goes to stderr. Not thread-safe: collectors are
 * started one after another by the run loop.
 */
#ifndef PTOP_BPF_UTIL_H
#define PTOP_BPF_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_link;
struct bpf_map;
struct bpf_object;
struct bpf_program;

/* Install ptop's libbpf print callback (idempotent) and forget the previous
 * messages. VERBOSE: also print every libbpf message to stderr. */
void bpf_util__open_log(bool verbose);

/* The first libbpf warning since the last bpf_util__open_log() (usually the root
 * cause: "libbpf: prog 'sys_enter': BPF program load failed: Permission denied"),
 * without the trailing newline; "" when there was none. Owned by bpf_util. */
const char *bpf_util__last_error(void);

/* Write "WHAT: strerror(-ERR) (libbpf message)" into BUF (LEN bytes), for a
 * collector's reason after a failed open/load/attach. */
void bpf_util__format_error(char *buf, size_t len, const char *what, int err);

/* Can this process load and attach tracing BPF programs? Checks for kernel BTF
 * (/sys/kernel/btf/vmlinux) and the capabilities (CAP_BPF and CAP_PERFMON, or
 * CAP_SYS_ADMIN) in the effective set with capget(2). Loads nothing. Returns 0,
 * or -ENOTSUP (no BTF) / -EPERM (no capability) with a one-line reason in REASON. */
int bpf_util__can_trace(char *reason, size_t len);

/* bpf_link__destroy() each of the N LINKS (NULLs skipped), at the same time: each
 * uprobe detach waits for an RCU grace period in the kernel (about 110 ms measured on
 * a 6.18 guest), which threads share instead of queueing for one after another. */
void bpf_util__destroy_links(struct bpf_link **links, int n);

/* Call FN on each non-NULL ITEMS[i], each on a thread of its own (one at a time when
 * threads cannot be had), wait for them all, and set each ITEMS[i] to NULL: for work that
 * mostly waits in the kernel, such as a detach's grace period. */
void bpf_util__each_parallel(void **items, int n, void *(*fn)(void *));

/* Number of possible CPUs (the size of a per-CPU map value array), or -errno. */
int bpf_util__ncpus(void);

/* Read the per-CPU values of KEY in MAP into VALS (ncpus values of VALUE_SIZE,
 * VALUE_SIZE a multiple of 8) and sum them as arrays of NWORDS u64 into SUM.
 * 0 or -errno. */
int bpf_util__percpu_sum(const struct bpf_map *map, uint32_t key, void *vals, size_t value_size,
			 uint64_t *sum, size_t nwords);

/* The verifier's budget for one program: a quarter of the kernel's 1M-instruction
 * limit, so that another kernel's verifier (which may explore more states) still loads
 * it (bench/README.md, "Verified instructions"). */
#define BPF_UTIL_VERIFY_BUDGET 250000

/* Call right after a collector's object OBJ loaded (its programs verified): reads
 * each loaded program's bpf_prog_info.verified_insns and, under --verbose (the last
 * bpf_util__open_log()), prints one line per program to stderr:
 *   "ptop-record: verified: COLLECTOR/PROG N insns"
 * (N "unknown" on a kernel without the field, before Linux 5.16). Returns 0; or, when
 * the environment has PTOP_VERIFY_ONLY=1 (the test hook of tests/e2e/bpf_verify.sh,
 * which loads every program in every configuration and attaches none), -ECANCELED
 * after printing, so that the collector stops before it attaches anything; the
 * caller fails with its usual message (bpf_util__format_error names the hook). */
int bpf_util__loaded(struct bpf_object *obj, const char *collector);

/* Verify only, from here on, as PTOP_VERIFY_ONLY=1 does (bpf_util__loaded returns
 * -ECANCELED after each load), without its stderr lines unless --verbose; and keep each
 * collector's largest program for bpf_util__verified_largest (--caps). ON false: off. */
void bpf_util__set_verify_only(bool on);

/* The largest program COLLECTOR loaded since bpf_util__set_verify_only(true): its name
 * into *PROG and its verified instructions into *INSNS (0 when the kernel does not
 * report them, before Linux 5.16). 0, or -ENOENT when it loaded none. */
int bpf_util__verified_largest(const char *collector, const char **prog, uint32_t *insns);

/* The instructions the verifier processed for PROG (bpf_prog_info.verified_insns)
 * into *N: 0, -ENOTSUP when the kernel does not report it (0 there), or -errno. */
int bpf_util__verified_insns(const struct bpf_program *prog, uint32_t *n);

/* The kernel's count of runs of PROG skipped because it was already running on that
 * CPU (bpf_prog_info.recursion_misses) into *MISSES. 0 or -errno. */
int bpf_util__prog_misses(const struct bpf_program *prog, uint64_t *misses);

#endif
