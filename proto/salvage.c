/* salvage.c — writes a repaired copy of a capture that was cut short or damaged:
 * its complete frames copied verbatim, a trailer marked salvaged, a fresh index.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/capture.h"
#include "proto/capture_internal.h"

struct drop_sum {
	char *collector;
	char *kind;
	uint64_t lost;		 /* counted so far, the open frame included */
	uint64_t lost_committed; /* counted in frames already copied */
	bool committed;
};

struct totals {
	uint64_t records; /* records before any trailer */
	uint64_t events;
	uint64_t last_ns; /* latest event time */
	bool has_trailer;
};

struct salvage {
	struct capture_reader *r;
	struct capture_writer *w;
	struct totals now, committed;
	struct drop_sum *drops;
	size_t ndrops, drops_cap;
	/* the frame being read */
	bool open;
	uint64_t off, size;
	uint32_t records;
	bool has_time;
	uint64_t first_ns, last_ns;
};

static int count_drop(struct salvage *s, const Ptop__V1__DropNotice *d)
{
	const char *c = d->collector ? d->collector : "";
	const char *k = d->kind ? d->kind : "";
	struct drop_sum *e;

	for (size_t i = 0; i < s->ndrops; i++) {
		if (!strcmp(s->drops[i].collector, c) && !strcmp(s->drops[i].kind, k)) {
			s->drops[i].lost += d->lost;
			return 0;
		}
	}
	if (s->ndrops == s->drops_cap) {
		size_t cap = s->drops_cap ? s->drops_cap * 2 : 8;
		void *p = realloc(s->drops, cap * sizeof(*s->drops));

		if (!p)
			return -ENOMEM;
		s->drops = p;
		s->drops_cap = cap;
	}
	e = &s->drops[s->ndrops];
	*e = (struct drop_sum){.collector = strdup(c), .kind = strdup(k), .lost = d->lost};
	if (!e->collector || !e->kind) {
		free(e->collector);
		free(e->kind);
		return -ENOMEM;
	}
	s->ndrops++;
	return 0;
}

/* Copy the frame just read, verbatim, and take its counts as final. */
static int commit_frame(struct salvage *s)
{
	uint8_t *buf;
	ssize_t k;
	int err;

	if (!s->open)
		return 0;
	s->open = false;
	buf = malloc(s->size ? s->size : 1);
	if (!buf)
		return -ENOMEM;
	k = pread(capture_reader__fd(s->r), buf, s->size, (off_t)s->off);
	if (k != (ssize_t)s->size) {
		free(buf);
		return k < 0 ? -errno : -EIO;
	}
	err = capture_writer__append_frame(s->w, buf, s->size, s->records, s->has_time, s->first_ns,
					   s->last_ns);
	free(buf);
	if (err)
		return err;
	s->committed = s->now;
	for (size_t i = 0; i < s->ndrops; i++) {
		s->drops[i].lost_committed = s->drops[i].lost;
		s->drops[i].committed = true;
	}
	return 0;
}

static int count_record(struct salvage *s, const Ptop__V1__Record *rec)
{
	uint64_t off = capture_reader__frame_offset(s->r), ns;
	int err;

	if (!s->open || off != s->off) {
		err = commit_frame(s);
		if (err)
			return err;
		s->open = true;
		s->off = off;
		s->size = capture_reader__frame_size(s->r);
		s->records = 0;
		s->has_time = false;
		s->first_ns = s->last_ns = 0;
	}
	s->records++;
	if (capture_record_time(rec, &ns)) {
		if (!s->has_time || ns < s->first_ns)
			s->first_ns = ns;
		if (!s->has_time || ns > s->last_ns)
			s->last_ns = ns;
		s->has_time = true;
	}
	if (rec->kind_case == PTOP__V1__RECORD__KIND_TRAILER)
		s->now.has_trailer = true;
	if (s->now.has_trailer)
		return 0;
	s->now.records++;
	if (rec->kind_case == PTOP__V1__RECORD__KIND_EVENT && rec->event) {
		s->now.events++;
		if (rec->event->time_ns > s->now.last_ns)
			s->now.last_ns = rec->event->time_ns;
	}
	if (rec->kind_case == PTOP__V1__RECORD__KIND_DROP && rec->drop)
		return count_drop(s, rec->drop);
	return 0;
}

static int append_trailer(struct salvage *s)
{
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;
	Ptop__V1__CaptureTrailer t = PTOP__V1__CAPTURE_TRAILER__INIT;
	Ptop__V1__DropTotal *totals = NULL, **ptrs = NULL;
	size_t n = 0;
	int err;

	if (s->ndrops) {
		totals = calloc(s->ndrops, sizeof(*totals));
		ptrs = calloc(s->ndrops, sizeof(*ptrs));
		if (!totals || !ptrs) {
			err = -ENOMEM;
			goto cleanup;
		}
	}
	for (size_t i = 0; i < s->ndrops; i++) {
		if (!s->drops[i].committed)
			continue;
		ptop__v1__drop_total__init(&totals[n]);
		totals[n].collector = s->drops[i].collector;
		totals[n].kind = s->drops[i].kind;
		totals[n].lost = s->drops[i].lost_committed;
		ptrs[n] = &totals[n];
		n++;
	}
	t.reason = PTOP__V1__END_REASON__END_REASON_SALVAGED;
	t.salvaged = true;
	t.records = s->committed.records;
	t.events = s->committed.events;
	t.end_time_ns = s->committed.last_ns;
	t.n_drops = n;
	t.drops = ptrs;
	rec.kind_case = PTOP__V1__RECORD__KIND_TRAILER;
	rec.trailer = &t;
	err = capture_writer__append(s->w, &rec);
cleanup:
	free(totals);
	free(ptrs);
	return err;
}

static void say(struct capture_status *status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* STATUS->message (when STATUS is not NULL) gets what failed. */
static void say(struct capture_status *status, const char *fmt, ...)
{
	va_list ap;

	if (!status)
		return;
	va_start(ap, fmt);
	vsnprintf(status->message, sizeof(status->message), fmt, ap);
	va_end(ap);
}

int capture__salvage(const char *in, const char *out, struct capture_status *status)
{
	struct salvage s = {0};
	Ptop__V1__Record *rec;
	const struct capture_status *st;
	int err = 0, k;

	if (status)
		memset(status, 0, sizeof(*status));
	s.r = capture_reader__open(in);
	if (!s.r) {
		err = -errno;
		if (err == -EBADMSG)
			say(status,
			    "%s is not a ptop capture (no PTOPCAP magic frame at its start)", in);
		else if (err == -ENOTSUP)
			say(status, "%s: the capture format is newer than this build reads", in);
		else
			say(status, "cannot read %s: %s", in, strerror(-err));
		return err;
	}
	s.w = capture_writer__create(out, NULL);
	if (!s.w) {
		err = -errno;
		say(status, "cannot create %s: %s", out, strerror(-err));
		goto cleanup;
	}
	while ((k = capture_reader__next(s.r, &rec)) == 1) {
		err = count_record(&s, rec);
		ptop__v1__record__free_unpacked(rec, NULL);
		if (err)
			goto write_failed;
	}
	if (k < 0) {
		err = k;
		say(status, "cannot read %s: %s", in, strerror(-err));
		goto cleanup;
	}
	st = capture_reader__status(s.r);
	if (status)
		*status = *st;
	/* a frame whose records stopped unpacking half way is not copied */
	if (!(st->end == CAPTURE_END_CORRUPT && s.open && st->at_byte == s.off)) {
		err = commit_frame(&s);
		if (err)
			goto write_failed;
	}
	if (!s.committed.has_trailer) {
		err = append_trailer(&s);
		if (err)
			goto write_failed;
	}
	err = capture_writer__close(s.w);
	s.w = NULL;
	if (err) {
		unlink(out);
		goto write_failed;
	}
	goto cleanup;
write_failed:
	if (err == -ENOMEM)
		say(status, "out of memory while salvaging %s", in);
	else
		say(status, "cannot write %s: %s", out, strerror(-err));
cleanup:
	if (s.w) {
		capture_writer__abort(s.w);
		unlink(out);
	}
	capture_reader__free(s.r);
	for (size_t i = 0; i < s.ndrops; i++) {
		free(s.drops[i].collector);
		free(s.drops[i].kind);
	}
	free(s.drops);
	return err;
}
