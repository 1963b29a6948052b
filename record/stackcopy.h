/* stackcopy.h — the recorder's side of the stack copies (bpf/stackcopy.h): each copy a
 * collector's BPF program sends gets a capture stack id and is written once, as a Stack
 * record with its copy, before any event that counts samples under it; and the
 * per-module choice of --user-stacks auto (does a module's code keep frame pointers?).
 */
#ifndef PTOP_RECORD_STACKCOPY_H
#define PTOP_RECORD_STACKCOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "bpf/stackcopy.h"
#include "proto/ptop.pb-c.h"

struct collector;
struct rec_ctx;
struct stack_table;

/* The copies of a capture by key: (tgid, hash) -> stack id. */
struct stack_copies;

/* The capture's one set, shared by the collectors that take copies (cpuprof, heap), so
 * that one copy key is one stack id across the capture. Created on first use, never
 * freed; NULL with errno = ENOMEM. Not thread-safe (collectors run in one thread). */
struct stack_copies *stack_copies__capture(void);

/* A copy C of LEN bytes as the ring buffer delivered it (header and C->bytes of stack;
 * LEN may be short of that: then -EINVAL): give it an id from T and write its Stack
 * record through rec_emit() unless the set has its key already. 0, -EINVAL (a
 * malformed record: not written), -ENOMEM, or -errno from the writer. */
int stack_copies__add(struct rec_ctx *ctx, struct stack_copies *s, struct stack_table *t,
		      const struct sc_copy *c, size_t len);

/* The stack id of the copy keyed HASH in process TGID into *ID: 0, or -ENOENT when no
 * such copy was added (its record was lost on the way). */
int stack_copies__find(const struct stack_copies *s, uint32_t tgid, uint64_t hash, uint64_t *id);

/* Copies added so far (distinct keys) and their stack bytes. */
size_t stack_copies__count(const struct stack_copies *s);

/* Fill T (bpf/stackcopy.h) with what /proc/PID/maps says now: the executable
 * mappings first, then the stack, the heap and the other writable ones, as many as it
 * holds, and the inode of /proc/PID/exe (a table filled before an exec is not taken
 * for the new program's); the BPF programs start from it instead of learning each
 * VMA. 0 or -errno. */
int sc_vmas__read(pid_t pid, struct sc_vmas *t);

/* Seed process PID's entry of a program's per-CPU VMA table (SC_VMAS_MAP, file
 * descriptor FD; NCPUS possible CPUs) from what sc_vmas__read says now, so that the
 * copies seldom need to look a VMA up. 0 or -errno (a failure only costs lookups). */
int sc_vmas__seed(int fd, pid_t pid, int ncpus);

/* --user-stacks */
enum user_stacks {
	USER_STACKS_AUTO = 0,        /* frame pointers where every module keeps them */
	USER_STACKS_FP,              /* frame-pointer walks in the kernel */
	USER_STACKS_DWARF,           /* stack copies, unwound offline from CFI */
};

/* "auto", "fp", "dwarf"; NULL for another value. */
const char *user_stacks_name(enum user_stacks m);

/* Parse ARG into *M. 0, or -EINVAL. */
int user_stacks_parse(const char *arg, enum user_stacks *m);

/* What the CFI of one ELF module says about frame pointers. */
struct fp_census {
	unsigned functions;          /* functions with a frame (.eh_frame_hdr's table, each
				      * function's CFA rule a quarter, half and three
				      * quarters in: on %rbp, or %rsp beyond the return
				      * address); leaves and stubs are not counted */
	unsigned with_fp;            /* of those, whose CFA is on %rbp: a frame pointer */
	bool usable;                 /* the module could be read, has the table and a
				      * function with a frame */
};

/* Count, for the ELF file PATH, the functions with a frame and those whose frame is
 * kept by a frame pointer (x86-64: the CFA rule on %rbp). 0 with *C filled (usable
 * false when the file has no .eh_frame_hdr table: nothing to decide from), or -errno
 * when the file cannot be read. */
int fp_census__module(const char *path, struct fp_census *c);

/* Whether a module with census C keeps frame pointers: at least half of its functions
 * with a frame keep it on %rbp (measured: 81% in a -O2 -fno-omit-frame-pointer build,
 * where shrink-wrapping and leaves leave the rest; 0% without). A module that could
 * not be judged does not. */
bool fp_census__has_fp(const struct fp_census *c);

/* --user-stacks auto for process PID (its file-backed executable mappings), or for a
 * launched command (EXE not NULL: its executable and the libraries its DT_NEEDED
 * names, found in the usual folders): judge each module and choose frame pointers
 * only when each judged keeps them. glibc's modules (libc, ld.so, libm...) are not
 * judged: built without frame pointers nearly everywhere, their frames seldom break
 * a walk (the start frames are outermost, the leaf functions leave %rbp alone); nor
 * is a module without .eh_frame_hdr (Go's: Go keeps frame pointers). Returns
 * USER_STACKS_FP or USER_STACKS_DWARF; WHY gets the modules without frame pointers,
 * or that those judged keep them ("no frame pointers in heap_nofp (0 of 8
 * functions)"). */
enum user_stacks user_stacks__auto(pid_t pid, const char *exe, char *why, size_t len);

/* --user-stacks (CTX->user_stacks) resolved for CTX's target: FP or DWARF as asked,
 * else user_stacks__auto for a pid or a command, DWARF for a target not judged before
 * it runs: a cgroup (its processes are not known at the start), a command that is a
 * script (the program it runs is not known), --caps (no target). The one decision of
 * a run: cpuprof, heap and fds all take it from here. WHY gets the reason ("--user-stacks auto: no frame
 * pointers in ..."), at most LEN bytes (160 hold it). */
enum user_stacks user_stacks__choose(const struct rec_ctx *ctx, char *why, size_t len);

/* Can this kernel run stack copies (bpf_loop, bpf_find_vma and ring buffers: Linux
 * 5.17)? MODE as user_stacks__choose() gave it: when it is DWARF and a helper is
 * missing, KWHY (KLEN bytes) gets the missing feature, WHY (LEN bytes, the mode's
 * reason) gets "; no stack copies here: KWHY" appended, and USER_STACKS_FP is
 * returned; else KWHY is "" and MODE returned. */
enum user_stacks user_stacks__kernel(enum user_stacks mode, char *why, size_t len, char *kwhy,
				     size_t klen);

/* C's two lanes of user stacks for the MODE that runs: "stack_copy" (copies of the
 * stack's top, unwound offline) and "fp" (frame pointers, walked in the kernel), from
 * SRC. KWHY not empty (user_stacks__kernel's): the copies' lane is unsupported for it,
 * and fp runs in its place (collector_lane_fallback: --strict counts it, fp stacks of
 * code without frame pointers are shorter). The lane on standby says "not needed:
 * STANDBY_WHY", or when it is NULL "not needed: frame pointers" / "not needed: stack
 * copies". */
void user_stacks__lanes(struct collector *c, enum user_stacks mode, Ptop__V1__ProbeSource src,
			const char *kwhy, const char *standby_why);

/* Is the stack copies' load to be refused as a verifier would (PTOP_TEST_REFUSE=
 * stack_copy, record/kfeature.h), for a collector whose MODE is DWARF? */
bool user_stacks__copy_refused(enum user_stacks mode);

/* C's BPF object with stack copies did not load (ERR; WHAT names the load, "load heap
 * BPF with stack copies"): WHY (LEN bytes) gets the reason, the "stack_copy" lane of
 * source SRC is failed with it and "fp" runs in its place (collector_lane_fallback). The
 * caller loads again with frame-pointer stacks and says so in its detail. */
void user_stacks__copy_failed(struct collector *c, Ptop__V1__ProbeSource src, const char *what,
			      int err, char *why, size_t len);

#endif
