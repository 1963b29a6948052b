/* stack_table.h — the capture's stack table, a shared service of the recorder: every
 * collector that writes Stack records (cpuprof, heap, fds, goalloc, ...) gives each
 * distinct stack one id through it, so that a stack id means one stack across the
 * capture, and writes the Stack record before the first event that refers to it.
 * Also the reader of a stack map of the bpf/stackmap.h layout.
 */
#ifndef PTOP_RECORD_STACK_TABLE_H
#define PTOP_RECORD_STACK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "bpf/stackmap.h"

struct rec_ctx;

/* The stacks of a capture by content: one id per distinct (kernel flag, pid, ips), where
 * pid is a user stack's process in a cgroup capture and 0 otherwise. */
struct stack_table;

/* An empty table. NULL with errno = ENOMEM. Free with stack_table__free(). */
struct stack_table *stack_table__new(void);

/* Free T and every stack it holds. T may be NULL. */
void stack_table__free(struct stack_table *t);

/* Find the stack (KERNEL, PID, IPS[0..N)) in T, or add it with the next id (1, 2, ...;
 * 0 is never an id: StackCount uses it for "no stack"). *ID gets its id. PID: the
 * process a user stack was taken in when the capture has several (cgroup mode: the
 * same ips in two processes are two stacks); 0 when it has one (every other caller).
 * A kernel stack ignores PID: it is the same in every process. The ips are copied.
 * Returns 1 when the stack is new (the caller writes its Stack record now, before any
 * event that refers to it), 0 when it was known, -ENOMEM. */
int stack_table__intern(struct stack_table *t, bool kernel, uint32_t pid, const uint64_t *ips,
			size_t n, uint64_t *id);

/* A new id in T for a stack that is not interned by its ips (a stack copy, whose ips
 * the analyzer finds: record/stackcopy.h). Never 0; never handed out again. */
uint64_t stack_table__reserve(struct stack_table *t);

/* The capture's one table, shared by every collector that writes Stack records, so
 * that a stack id means one stack across the capture. Created on first use, never
 * freed; NULL with errno = ENOMEM. Not thread-safe (collectors run in one thread). */
struct stack_table *stack_table__capture(void);

/* Number of distinct stacks in T. */
size_t stack_table__count(const struct stack_table *t);

/* The 64-bit content hash of a stack (FNV-1a over the flag and the ips, then a
 * final mix). Equal stacks hash equal; the table compares contents in full. */
uint64_t stack_table__hash(bool kernel, const uint64_t *ips, size_t n);

/* The capture id of the stack (KERNEL, PID, IPS[0..N)) in T (stack_table__intern), writing
 * its Stack record through rec_emit() the first time T sees it, so that the record comes
 * before any event that refers to it. *ID: 0 when N is 0 or T cannot take the stack (out
 * of memory: the stack goes unnamed, not the event). 0, or -errno from the writer. */
int stack_table__emit(struct rec_ctx *ctx, struct stack_table *t, bool kernel, uint32_t pid,
		      const uint64_t *ips, size_t n, uint64_t *id);

/* Read the stack keyed SK from the stack map open on FD (bpf/stackmap.h) into IPS, at
 * most MAX ips. Returns how many were written; 0 when SK is no stack (hash 0) or the
 * map does not hold it; -errno when the map cannot be read. */
int stackmap__read(int fd, const struct sm_key *sk, uint64_t *ips, size_t max);

#endif
