/* follow.h — the one follower of a capture still being written (analyze/follow.c), used by
 * `export --format jsonl --follow` (analyze/export_jsonl.c) and by the loader's
 * incremental load behind `replay --follow` (db__follow_*, analyze/db.h).
 *
 * The file is opened read-only with no lock: a follower never holds the writer back. Its
 * records come through the capture reader; at the end of what is there so far the follower
 * looks at the file's size, and when it grew it resumes the reader there
 * (capture_reader__resume: a partial frame is waited for, never taken as damage). A file
 * that stops growing for the timeout ends as the reader sees it then: cut, as a run
 * without following reads it. A corrupt frame or a read error ends it at once. Without
 * FOLLOW it reads the file as it is, once.
 */
#ifndef PTOP_ANALYZE_FOLLOW_H
#define PTOP_ANALYZE_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/capture.h"

#define FOLLOW_POLL_NS 100000000ull /* how often a follower looks at the file's size */

struct capture_follow {
	int fd;
	struct capture_reader *r;
	bool follow;	     /* waits for growth (cleared once a trailer was returned) */
	bool timeout_given;  /* else the default, from the header's options */
	uint64_t timeout_ns; /* no growth for this long: the end */
	int64_t seen;	     /* the file's size when the reader last resumed */
	uint64_t grew;	     /* CLOCK_MONOTONIC ns of the last growth seen */
};

enum follow_next {
	FOLLOW_END = 0,	   /* the end: capture_reader__status says how */
	FOLLOW_RECORD = 1, /* a record */
	FOLLOW_WAIT = 2,   /* nothing more yet: call again later (follow__nap between) */
};

/* Open PATH into F. With FOLLOW, a file shorter than the magic frame is waited for (up to
 * the timeout: TIMEOUT_NS, 0 for the default, EXPORT_FOLLOW_TIMEOUT_NS or three of the
 * recording's longest gap between writes). 0 or -errno: -ENOENT and open(2)'s, -EBADMSG
 * (not a ptop capture), -ENOTSUP (a newer format). */
int follow__open(struct capture_follow *f, const char *path, bool follow, uint64_t timeout_ns);

/* The next record into *REC (the caller frees it; a header sets the default timeout, a
 * trailer ends the following: what is after it in the file is read, then the end), or
 * FOLLOW_WAIT when following and the file has not grown since the end of what was read,
 * or FOLLOW_END; -errno on a memory error. */
int follow__next(struct capture_follow *f, Ptop__V1__Record **rec);

/* Sleep one poll interval (FOLLOW_POLL_NS). */
void follow__nap(void);

const struct capture_status *follow__status(const struct capture_follow *f);

/* Free the reader and close the file. F is one follow__open filled (also a failed one);
 * closing it twice is fine. */
void follow__close(struct capture_follow *f);

#endif
