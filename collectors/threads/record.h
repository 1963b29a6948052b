/* record.h — the pure parts of the threads collector's recorder (collectors/threads/record.c),
 * public so that collectors/threads/test_threads.c checks them without BPF or a target. */
#ifndef PTOP_COLLECTORS_THREADS_RECORD_H
#define PTOP_COLLECTORS_THREADS_RECORD_H

#include <stdint.h>
#include <linux/types.h>

#include "collectors/threads/threads.h"

/* The state letter and the processor (field 39) of a /proc/PID/task/TID/stat TEXT, read
 * after the comm's last ')' (a comm may hold spaces and ')'). *CPU is -1 when the text
 * stops before field 39. 0, or -EINVAL when there is no state. */
int threads__parse_task_stat(const char *text, char *state, int *cpu);

/* A thread's cumulative figures at NOW from its map entry S, the periods still open counted
 * up to NOW: EST[0] on CPU, EST[1] runnable, EST[2] sleeping, EST[3] blocked. An open
 * off-CPU period counts for its reason up to its wakeup (when one was seen before NOW), and
 * as runnable from there; a period that starts after NOW counts nothing; an exited thread
 * has no open off-CPU period. */
void threads__estimate(const struct thr_stat *s, uint64_t now, uint64_t est[4]);

#endif
