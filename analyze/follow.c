/* follow.c — the one follower of a capture still being written (analyze/follow.h). */
#include "analyze/follow.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/export.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void follow__nap(void)
{
	struct timespec ts = {0, (long)FOLLOW_POLL_NS};

	nanosleep(&ts, NULL);
}

static int64_t file_size(int fd)
{
	struct stat sb;

	return fstat(fd, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

/* Whether F's file grew past F->seen (then F->grew is now). */
static bool grown(struct capture_follow *f)
{
	int64_t now = file_size(f->fd);

	if (now == f->seen)
		return false;
	f->seen = now;
	f->grew = now_ns();
	return true;
}

static bool timed_out(const struct capture_follow *f)
{
	return now_ns() - f->grew >= f->timeout_ns;
}

/* The default timeout for a recording with options O: EXPORT_FOLLOW_TIMEOUT_NS, or three
 * of its longest gap between writes (its --interval or --flush-interval) when that is
 * more. */
static uint64_t default_timeout(const Ptop__V1__Options *o)
{
	uint64_t gap = o->interval_ns > o->flush_interval_ns ? o->interval_ns
							      : o->flush_interval_ns;

	return gap < EXPORT_FOLLOW_TIMEOUT_NS / 3 ? EXPORT_FOLLOW_TIMEOUT_NS : 3 * gap;
}

int follow__open(struct capture_follow *f, const char *path, bool follow, uint64_t timeout_ns)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->follow = follow;
	f->timeout_given = timeout_ns != 0;
	f->timeout_ns = timeout_ns ? timeout_ns : EXPORT_FOLLOW_TIMEOUT_NS;
	f->grew = now_ns();
	/* read-only, no lock: a follower never holds the writer back */
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	for (;;) {
		int e;

		f->seen = file_size(f->fd);
		f->r = capture_reader__open_fd(f->fd);
		if (f->r)
			return 0;
		e = errno;
		/* a follower may come before the recorder wrote the magic frame */
		if (e == EBADMSG && follow && f->seen >= 0 && f->seen < 20) {
			while (!grown(f) && !timed_out(f))
				follow__nap();
			if (f->seen >= 0 && f->seen < 20 && timed_out(f)) {
				follow__close(f);
				return -EBADMSG;
			}
			continue;
		}
		follow__close(f);
		return -e;
	}
}

int follow__next(struct capture_follow *f, Ptop__V1__Record **rec)
{
	for (;;) {
		const struct capture_status *st;
		int k = capture_reader__next(f->r, rec);

		if (k < 0)
			return k;
		if (k == 1) {
			const Ptop__V1__Record *r = *rec;

			if (!f->timeout_given && r->kind_case == PTOP__V1__RECORD__KIND_HEADER &&
			    r->header && r->header->options)
				f->timeout_ns = default_timeout(r->header->options);
			if (r->kind_case == PTOP__V1__RECORD__KIND_TRAILER)
				f->follow = false; /* the recorder's end: read what is there */
			return FOLLOW_RECORD;
		}
		st = capture_reader__status(f->r);
		if (!f->follow || (st->end != CAPTURE_END_TRUNCATED && st->end != CAPTURE_END_CLEAN))
			return FOLLOW_END;
		/* following: the end of what is there so far. Read on when it grew (a
		 * partial frame is waited for, never taken as damage); after the timeout
		 * without growth, end it as the reader sees it now: cut. */
		if (grown(f)) {
			capture_reader__resume(f->r);
			continue;
		}
		return timed_out(f) ? FOLLOW_END : FOLLOW_WAIT;
	}
}

const struct capture_status *follow__status(const struct capture_follow *f)
{
	return capture_reader__status(f->r);
}

void follow__close(struct capture_follow *f)
{
	capture_reader__free(f->r);
	f->r = NULL;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}
