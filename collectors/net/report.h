/* report.h — what the net collector's report (report.c) shares with its replay view
 * (view.c) and figures (figures.c). */
#ifndef PTOP_NET_REPORT_H
#define PTOP_NET_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

/* The TCP state changes of socket SOCK of capture CAP with time_ns in [LO, HI), as one
 * line into BUF: "CLOSE > SYN_SENT 1.25 s > ESTABLISHED +52.0 us > CLOSE +3.10 s", the
 * first change's time since BASE_NS (the capture's start), the others since the one
 * before; "..." where a change was not recorded (its old state is not the state before).
 * *N gets the number of changes (0: BUF is ""). 0, or -EIO when net_state cannot be
 * read. BUF is always NUL-terminated. */
int net_timeline__format(sqlite3 *db, int64_t cap, int64_t sock, int64_t lo, int64_t hi,
			 int64_t base_ns, char *buf, size_t len, size_t *n);

#endif
