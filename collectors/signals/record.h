/* record.h — the pure parts of the signals collector's recorder (collectors/signals/record.c),
 * public so that collectors/signals/test_signals.c checks them without a target. */
#ifndef PTOP_COLLECTORS_SIGNALS_RECORD_H
#define PTOP_COLLECTORS_SIGNALS_RECORD_H

#include <stdint.h>

/* A thread's signal sets from /proc/PID/task/TID/status (the /proc lane): bit S-1 for
 * signal S. */
struct signals_sets {
	uint64_t pending;	 /* SigPnd: pending for the thread */
	uint64_t shared_pending; /* ShdPnd: pending for the whole process */
	uint64_t blocked;	 /* SigBlk */
	uint64_t ignored;	 /* SigIgn */
	uint64_t caught;	 /* SigCgt: with a handler */
	uint64_t queued, queue_limit; /* SigQ: queued for the real user, and its limit */
};

/* The sets of a status file's TEXT into S. 0, or -EINVAL when one of SigPnd, ShdPnd,
 * SigBlk, SigIgn, SigCgt is missing or not hexadecimal (SigQ, absent, leaves 0/0). */
int signals__parse_status(const char *text, struct signals_sets *s);

#endif
