/* report_util.c — what the reports share: windows, capture facts, probes, drops, histograms. */
#include "analyze/report.h"
#include "analyze/symbolize.h"
#include "common/duration.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ windows */

/* One side of a window: "", or a duration (common/duration.h) of at most INT64_MAX ns. */
static int parse_side(const char *s, size_t len, bool *has, int64_t *ns)
{
	uint64_t v;
	int rc;

	*has = len > 0;
	if (!len)
		return 0;
	rc = duration__parse_n(s, len, INT64_MAX, 0, &v);
	if (!rc)
		*ns = (int64_t)v;
	return rc;
}

int window__parse(const char *s, struct window *w, char *err, size_t errlen)
{
	const char *dots;
	int rc;

	memset(w, 0, sizeof(*w));
	if (!s || !(dots = strstr(s, ".."))) {
		snprintf(err, errlen,
			 "bad window \"%s\": expected START..END (seconds from the capture start, "
			 "e.g. 2..5, 2s..5s, 500ms.., ..1m)",
			 s ? s : "");
		return -EINVAL;
	}
	rc = parse_side(s, (size_t)(dots - s), &w->has_start, &w->start_ns);
	if (!rc)
		rc = parse_side(dots + 2, strlen(dots + 2), &w->has_end, &w->end_ns);
	if (rc == -ERANGE) {
		snprintf(err, errlen, "bad window \"%s\": a time is too large", s);
		return -EINVAL;
	}
	if (rc) {
		snprintf(err, errlen,
			 "bad window \"%s\": each side is a number with an optional unit "
			 "ns, us, ms, s (default), m or h, e.g. 2..5, 500ms.., ..1m",
			 s);
		return -EINVAL;
	}
	if (w->has_start && w->has_end && w->start_ns >= w->end_ns) {
		snprintf(err, errlen, "bad window \"%s\": the start must be before the end", s);
		return -EINVAL;
	}
	return 0;
}

/* BASE + REL, saturated: a window side past 2^63 ns bounds nothing a capture holds. */
static int64_t bound_add(int64_t base, int64_t rel)
{
	int64_t v;

	if (__builtin_add_overflow(base, rel, &v))
		return rel > 0 ? INT64_MAX : INT64_MIN;
	return v;
}

void window__bounds(const struct window *w, const struct capture_meta *m, int64_t *lo, int64_t *hi)
{
	*lo = w->has_start ? bound_add(m->base_ns, w->start_ns) : INT64_MIN;
	*hi = w->has_end ? bound_add(m->base_ns, w->end_ns) : INT64_MAX;
}

int report__prepare_at(sqlite3 *db, const char *sql, const struct capture_meta *m, int64_t lo,
		       int64_t hi, sqlite3_stmt **st)
{
	*st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(*st, 1, m->cap) != SQLITE_OK ||
	    sqlite3_bind_int64(*st, 2, lo) != SQLITE_OK ||
	    sqlite3_bind_int64(*st, 3, hi) != SQLITE_OK) {
		sqlite3_finalize(*st);
		*st = NULL;
		return -EIO;
	}
	return 0;
}

int report__prepare(sqlite3 *db, const char *sql, const struct capture_meta *m,
		    const struct window *w, sqlite3_stmt **st)
{
	int64_t lo, hi;

	window__bounds(w, m, &lo, &hi);
	return report__prepare_at(db, sql, m, lo, hi, st);
}

void window__describe(const struct window *w, char *buf, size_t len)
{
	char a[40] = "start", b[40] = "end", t[32];

	if (!w->has_start && !w->has_end) {
		snprintf(buf, len, "whole capture");
		return;
	}
	if (w->has_start)
		snprintf(a, sizeof(a), "%s s", fmt_secs(t, sizeof(t), w->start_ns));
	if (w->has_end)
		snprintf(b, sizeof(b), "%s s", fmt_secs(t, sizeof(t), w->end_ns));
	snprintf(buf, len, "window %s .. %s", a, b);
}

/* ------------------------------------------------------------------ capture facts */

static void copy_col(sqlite3_stmt *st, int col, char *dst, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	snprintf(dst, len, "%s", s ? (const char *)s : "");
}

int64_t report__col(sqlite3_stmt *st, int col, int64_t dflt)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, col);
}

int capture_meta__load(sqlite3 *db, const char *capture_id, struct capture_meta *m)
{
	static const char sql[] =
	    "SELECT COALESCE(start_monotonic_ns, first_event_ns, 0), first_event_ns, "
	    "last_event_ns, cpus, complete, read_end, read_stopped_at, read_message, cap, machine "
	    "FROM capture WHERE capture_id = ?1";
	sqlite3_stmt *st = NULL;
	int err = 0, rc;

	memset(m, 0, sizeof(*m));
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		err = -EIO;
		goto cleanup;
	}
	sqlite3_bind_text(st, 1, capture_id, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		err = -ENOENT;
		goto cleanup;
	}
	if (rc != SQLITE_ROW) {
		err = -EIO;
		goto cleanup;
	}
	snprintf(m->capture_id, sizeof(m->capture_id), "%s", capture_id);
	m->base_ns = sqlite3_column_int64(st, 0);
	m->first_event_ns = report__col(st, 1, -1);
	m->last_event_ns = report__col(st, 2, -1);
	m->cpus = report__col(st, 3, -1);
	m->complete = sqlite3_column_int(st, 4) != 0;
	copy_col(st, 5, m->read_end, sizeof(m->read_end));
	m->read_stopped_at = report__col(st, 6, -1);
	copy_col(st, 7, m->read_message, sizeof(m->read_message));
	m->cap = sqlite3_column_int64(st, 8);
	copy_col(st, 9, m->machine, sizeof(m->machine));
cleanup:
	sqlite3_finalize(st);
	return err;
}

void capture_meta__warning(const struct capture_meta *m, char *buf, size_t len)
{
	/* read cleanly to the end but without a trailer: say so rather than "clean" */
	const char *end = !m->read_end[0]		  ? "?"
			  : !strcmp(m->read_end, "clean") ? "no trailer"
							  : m->read_end;
	char where[64] = "";

	if (m->complete) {
		buf[0] = '\0';
		return;
	}
	if (m->read_message[0]) {
		snprintf(buf, len,
			 "warning: capture incomplete (%s): %s; figures cover only what "
			 "was read",
			 end, m->read_message);
		return;
	}
	if (m->read_stopped_at >= 0)
		snprintf(where, sizeof(where), " at byte %" PRId64, m->read_stopped_at);
	snprintf(buf, len,
		 "warning: capture incomplete (%s)%s: the recording was cut short; "
		 "figures cover only what was read",
		 end, where);
}

int probe__lookup(sqlite3 *db, int64_t cap, const char *name, struct probe_info *p)
{
	static const char sql[] = "SELECT state, source, reason, detail FROM probe "
				  "WHERE cap = ?1 AND name = ?2";
	sqlite3_stmt *st = NULL;
	int err = 0, rc;

	memset(p, 0, sizeof(*p));
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		err = -EIO;
		goto cleanup;
	}
	sqlite3_bind_int64(st, 1, cap);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		p->found = true;
		copy_col(st, 0, p->state, sizeof(p->state));
		copy_col(st, 1, p->source, sizeof(p->source));
		copy_col(st, 2, p->reason, sizeof(p->reason));
		copy_col(st, 3, p->detail, sizeof(p->detail));
	} else if (rc == SQLITE_DONE) {
		snprintf(p->state, sizeof(p->state), "absent");
		snprintf(p->reason, sizeof(p->reason),
			 "the capture's probe set has no \"%s\" probe (recorded by a ptop-record "
			 "without it)",
			 name);
	} else {
		err = -EIO;
	}
cleanup:
	sqlite3_finalize(st);
	return err;
}

static int drops_add(struct drop_line **out, size_t *n, const char *collector, const char *kind,
		     uint64_t lost, bool trailer)
{
	struct drop_line *d;
	size_t i;

	for (i = 0; i < *n; i++) {
		d = &(*out)[i];
		if (!strcmp(d->collector, collector) && !strcmp(d->kind, kind)) {
			if (trailer) { /* the trailer's total wins over the notices' sum */
				d->lost = lost;
				d->from_trailer = true;
			} else {
				d->lost += lost;
			}
			return 0;
		}
	}
	d = realloc(*out, (*n + 1) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	*out = d;
	d = &d[(*n)++];
	memset(d, 0, sizeof(*d));
	snprintf(d->collector, sizeof(d->collector), "%s", collector);
	snprintf(d->kind, sizeof(d->kind), "%s", kind);
	d->lost = lost;
	d->from_trailer = trailer;
	return 0;
}

int drops__load(sqlite3 *db, const struct capture_meta *m, const char *collector,
		const struct window *w, struct drop_line **out, size_t *n)
{
	static const char notices[] =
	    "SELECT collector, kind, SUM(lost) FROM drop_notice WHERE cap = ?1 "
	    "AND collector = ?2 AND (time_ns IS NULL AND ?5 OR time_ns BETWEEN ?3 AND ?4) "
	    "GROUP BY collector, kind ORDER BY kind";
	static const char totals[] = "SELECT collector, kind, SUM(lost) FROM drop_total "
				     "WHERE cap = ?1 AND collector = ?2 "
				     "GROUP BY collector, kind ORDER BY kind";
	bool whole = !w->has_start && !w->has_end;
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int err = 0, pass, rc;

	*out = NULL;
	*n = 0;
	window__bounds(w, m, &lo, &hi);
	for (pass = 0; pass < (whole ? 2 : 1); pass++) {
		if (sqlite3_prepare_v2(db, pass ? totals : notices, -1, &st, NULL) != SQLITE_OK) {
			err = -EIO;
			goto cleanup;
		}
		sqlite3_bind_int64(st, 1, m->cap);
		sqlite3_bind_text(st, 2, collector, -1, SQLITE_TRANSIENT);
		if (!pass) {
			sqlite3_bind_int64(st, 3, lo);
			sqlite3_bind_int64(st, 4, hi);
			sqlite3_bind_int(st, 5, whole);
		}
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			err = drops_add(out, n, (const char *)sqlite3_column_text(st, 0),
					(const char *)sqlite3_column_text(st, 1),
					(uint64_t)sqlite3_column_int64(st, 2), pass == 1);
			if (err)
				goto cleanup;
		}
		if (rc != SQLITE_DONE) {
			err = -EIO;
			goto cleanup;
		}
		sqlite3_finalize(st);
		st = NULL;
	}
cleanup:
	sqlite3_finalize(st);
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return err;
}

/* ------------------------------------------------------------------ histograms */

uint64_t hist_bucket_estimate(unsigned b)
{
	if (b == 0)
		return 1;
	if (b >= 63)
		return UINT64_MAX;
	return (uint64_t)llroundl(ldexpl(sqrtl(2.0L), (int)b));
}

int hist_percentile(const uint64_t *h, size_t n, unsigned pct, uint64_t *est, uint64_t *lo,
		    uint64_t *hi)
{
	unsigned __int128 total = 0, rank, cum = 0;
	size_t b;

	if (pct < 1 || pct > 100)
		return -EINVAL;
	if (n > HIST_BUCKETS)
		n = HIST_BUCKETS;
	for (b = 0; b < n; b++)
		total += h[b];
	if (!total)
		return -ENODATA;
	rank = (total * pct + 99) / 100; /* nearest rank: ceil(total * pct / 100) */
	for (b = 0; b < n; b++) {
		cum += h[b];
		if (cum >= rank)
			break;
	}
	*est = hist_bucket_estimate((unsigned)b);
	if (lo)
		*lo = b == 0 ? 0 : 1ull << b;
	if (hi)
		*hi = b >= 63 ? UINT64_MAX : 1ull << (b + 1);
	return 0;
}

bool growth_per_minute(int64_t first, int64_t last, int64_t t0_ns, int64_t t1_ns, int64_t *out)
{
	__int128 num, dt;

	if (t1_ns <= t0_ns)
		return false;
	dt = (__int128)t1_ns - t0_ns;
	num = ((__int128)last - first) * 60000000000LL;
	/* round half away from zero */
	num = num >= 0 ? (num + dt / 2) / dt : -((-num + dt / 2) / dt);
	if (num > INT64_MAX || num < INT64_MIN)
		return false;
	*out = (int64_t)num;
	return true;
}

/* ------------------------------------------------------------------ report output */

void report__begin(struct json *j, FILE *out, const struct report_opts *o, const char *kind,
		   const struct capture_meta *m)
{
	char warn[512];

	capture_meta__warning(m, warn, sizeof(warn));
	if (o->fmt == OUT_TEXT) {
		if (warn[0])
			fprintf(out, "%s\n", warn);
		return;
	}
	if (o->fmt == OUT_CSV) {
		if (warn[0])
			fprintf(stderr, "%s\n", warn);
		return;
	}
	json__init(j, out, true);
	json__begin_object(j);
	json__kv_string(j, "report", kind);
	json__kv_string(j, "capture_id", m->capture_id);
	json__kv_bool(j, "complete", m->complete);
	json__kv_string(j, "read_end", m->read_end);
	json__kv_string(j, "read_message", m->read_message[0] ? m->read_message : NULL);
	json__kv_string(j, "warning", warn[0] ? warn : NULL);
	json__key(j, "window");
	if (!o->win.has_start && !o->win.has_end) {
		json__null(j);
	} else {
		json__begin_object(j);
		json__key(j, "start_s");
		if (o->win.has_start)
			json__real(j, (double)o->win.start_ns / 1e9);
		else
			json__null(j);
		json__key(j, "end_s");
		if (o->win.has_end)
			json__real(j, (double)o->win.end_ns / 1e9);
		else
			json__null(j);
		json__end_object(j);
	}
}

int report__not_collected(struct json *j, FILE *out, const struct report_opts *o, const char *kind,
			  const struct probe_info *p)
{
	const char *reason = p->reason[0] ? p->reason : "no reason recorded";

	switch (o->fmt) {
	case OUT_TEXT:
		fprintf(out, "%s: not collected (%s: %s)\n", kind, p->state, reason);
		return fflush(out) || ferror(out) ? -EIO : 0;
	case OUT_CSV:
		fprintf(stderr, "%s: not collected (%s: %s)\n", kind, p->state, reason);
		return 0;
	case OUT_JSON:
		json__kv_bool(j, "collected", false);
		json__kv_string(j, "state", p->state);
		json__kv_string(j, "reason", p->reason[0] ? p->reason : NULL);
		json__end_object(j);
		return json__end(j);
	}
	return -EINVAL;
}

void report__drops(struct json *j, FILE *out, const struct report_opts *o, const char *collector,
		   const struct drop_line *d, size_t n)
{
	char c[32];
	size_t i;

	if (o->fmt == OUT_JSON) {
		json__key(j, "drops");
		json__begin_array(j);
		for (i = 0; i < n; i++) {
			json__begin_object(j);
			json__kv_string(j, "collector", d[i].collector);
			json__kv_string(j, "kind", d[i].kind);
			json__kv_int(j, "lost", (int64_t)d[i].lost);
			json__kv_string(j, "source", d[i].from_trailer ? "trailer" : "notices");
			json__end_object(j);
		}
		json__end_array(j);
		return;
	}
	if (o->fmt == OUT_CSV) {
		for (i = 0; i < n; i++)
			if (d[i].lost)
				fprintf(stderr, "drops: %s %s: %s lost\n", d[i].collector,
					d[i].kind, fmt_count(c, sizeof(c), d[i].lost));
		return;
	}
	if (!n)
		fprintf(out, "drops: none recorded for %s\n", collector);
	for (i = 0; i < n; i++)
		fprintf(out, "drops: %s %s: %s lost (%s)\n", d[i].collector, d[i].kind,
			fmt_count(c, sizeof(c), d[i].lost),
			d[i].from_trailer ? "trailer total" : "sum of drop notices");
}

void report__json_opt_int(struct json *j, const char *key, int64_t v)
{
	json__key(j, key);
	if (v >= 0)
		json__int(j, v);
	else
		json__null(j);
}

int report__stacks(sqlite3 *db, const struct capture_meta *m, const struct report_opts *o,
		   const char *kind, struct profile **stacks)
{
	struct symstore_opts so = {.cache_dir = o->symbol_cache,
				   .debuginfod = o->debuginfod,
				   .debuginfod_urls = o->debuginfod_urls,
				   .retry_misses = o->symbol_cache || o->debuginfod};
	struct symstore_run run;
	char msg[512];
	int err;

	err = symstore__ensure(db, m->cap, &so, &run, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "ptop-analyze report %s: symbolizing: %s\n", kind, msg);
		return err;
	}
	return stacks__load(db, m->cap, stacks);
}
