/* report.h — what the net collector's report (report.c) shares with its replay view
 * (view.c) and figures (figures.c). */
#ifndef PTOP_NET_REPORT_H
#define PTOP_NET_REPORT_H

#include <stdbool.h>
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

/* What the net figures (figures.c) read: the sums `report net` prints for a window. */
struct net_figs {
	bool ebpf;		 /* the eBPF lane ran: bytes, errors and connects measured */
	char no_bytes[256];	 /* why bytes were not measured though it ran (no sock_length
				  * lane: a kernel before 6.3); "" when they were */
	uint64_t sockets;	 /* the sockets of the window (the report's count) */
	uint64_t tx, rx;	 /* bytes (ebpf) */
	uint64_t retransmits;	 /* tcp_retransmit_skb on the window's sockets */
	struct {
		char kind[24];
		uint64_t count;
	} kinds[16];		 /* errors by kind, retransmit not among them */
	size_t nkinds;
	uint64_t connects;	 /* TCP connects established in the window (connect_ns) */
	uint64_t connect_hist[64]; /* their latencies, log2 buckets (HIST_BUCKETS) */
	uint64_t connect_max_ns;
};

struct capture_meta;
struct window;

/* The figures of window W of capture M into F. 0, -EIO, -ENOMEM. */
int net_figs__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		   struct net_figs *f);

#endif
