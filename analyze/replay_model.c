/* replay_model.c — the replay viewer's model: the capture's facts, the parts' series (opened
 * through their replay_series hooks), drops, the timeline, the interval ends; seeks. */
#include "analyze/replay_model.h"
#include "analyze/part.h"
#include "common/array.h"
#include "proto/names.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t rm_col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? RM_NULL : sqlite3_column_int64(st, i);
}

void rm_col_str(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	snprintf(buf, len, "%s", s ? (const char *)s : "");
}

int replay_model__prepare(const struct replay_model *m, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(m->db, sql, -1, st, NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_bind_parameter_count(*st) >= 1)
		sqlite3_bind_int64(*st, 1, m->meta.cap);
	if (sqlite3_bind_parameter_count(*st) >= 2)
		sqlite3_bind_int64(*st, 2, m->meta.base_ns);
	return 0;
}

int rm_rows(sqlite3_stmt *st, void *arr, size_t *n, size_t size,
	    void (*row)(sqlite3_stmt *st, void *element))
{
	void **a = arr;
	size_t cap = *n;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *e;
		int err = array__grow(a, &cap, *n, size);

		if (err)
			return err;
		e = (char *)*a + *n * size;
		memset(e, 0, size);
		row(st, e);
		(*n)++;
	}
	return rc == SQLITE_DONE ? 0 : -EIO;
}

int replay_model__read(const struct replay_model *m, const char *sql, void *arr, size_t *n,
		       size_t size, void (*row)(sqlite3_stmt *st, void *element))
{
	sqlite3_stmt *st = NULL;
	int err = replay_model__prepare(m, sql, &st);

	err = err ?: rm_rows(st, arr, n, size, row);
	sqlite3_finalize(st);
	return err;
}

static void time_row(sqlite3_stmt *st, void *element)
{
	*(int64_t *)element = sqlite3_column_int64(st, 0);
}

int replay_model__times(const struct replay_model *m, const char *sql, int64_t **t, size_t *n)
{
	return replay_model__read(m, sql, t, n, sizeof(**t), time_row);
}

void replay_model__prepare_each(const struct replay_model *m, const char *const *sql, size_t n,
				sqlite3_stmt **st)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (replay_model__prepare(m, sql[i], &st[i]))
			st[i] = NULL;
}

void rm_finalize_each(sqlite3_stmt **st, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sqlite3_finalize(st[i]);
}

sqlite3_stmt *rm_again(sqlite3_stmt *st)
{
	if (st)
		sqlite3_reset(st);
	return st;
}

#define col rm_col
#define col_str rm_col_str
#define prepare replay_model__prepare

static size_t nparts(void)
{
	size_t n = 0;

	while (an_parts[n])
		n++;
	return n;
}

static int load_facts(struct replay_model *m)
{
	static const char cap_sql[] =
	    "SELECT recorder_version, start_realtime_ns, interval_ns FROM capture WHERE cap = ?1";
	static const char tgt_sql[] =
	    "SELECT mode, pid, comm, cgroup_path, container_id FROM target WHERE cap = ?1";
	static const char ev_sql[] =
	    "SELECT SUM(count) FROM record_count WHERE cap = ?1 AND kind LIKE 'event:%'";
	sqlite3_stmt *st = NULL;
	size_t i, n = 0;
	int err = 0;

	m->pid = RM_NULL;
	m->start_realtime_ns = RM_NULL;
	m->interval_ns = 1000000000;
	err = prepare(m, cap_sql, &st);
	if (err)
		goto cleanup;
	if (sqlite3_step(st) == SQLITE_ROW) {
		col_str(st, 0, m->recorder_version, sizeof(m->recorder_version));
		m->start_realtime_ns = col(st, 1);
		if (col(st, 2) > 0)
			m->interval_ns = col(st, 2);
	}
	sqlite3_finalize(st);
	st = NULL;
	err = prepare(m, tgt_sql, &st);
	if (err)
		goto cleanup;
	if (sqlite3_step(st) == SQLITE_ROW) {
		col_str(st, 0, m->mode, sizeof(m->mode));
		m->pid = col(st, 1);
		col_str(st, 2, m->comm, sizeof(m->comm));
		col_str(st, 3, m->cgroup, sizeof(m->cgroup));
		col_str(st, 4, m->container, sizeof(m->container));
	}
	sqlite3_finalize(st);
	st = NULL;
	err = prepare(m, ev_sql, &st);
	if (err)
		goto cleanup;
	if (sqlite3_step(st) == SQLITE_ROW && col(st, 0) > 0)
		m->events = (uint64_t)col(st, 0);
	while (an_parts[n])
		n++;
	m->probes = calloc(n ? n : 1, sizeof(*m->probes));
	if (!m->probes) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		err = probe__lookup(m->db, m->meta.cap, an_parts[i]->name, &m->probes[i]);
		if (err)
			goto cleanup;
	}
cleanup:
	sqlite3_finalize(st);
	return err;
}

/* each part's series, through its hooks, in an_parts[] order */
static int open_series(struct replay_model *m, const char **what)
{
	size_t i, n = nparts();
	int err = 0;

	m->states = calloc(n ? n : 1, sizeof(*m->states));
	if (!m->states)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		const struct replay_series *r = an_parts[i]->replay;

		if (!r)
			continue;
		*what = r->what ? r->what : an_parts[i]->name;
		m->states[i] = calloc(1, r->state_size ? r->state_size : 1);
		if (!m->states[i])
			return -ENOMEM;
		if (r->open)
			err = r->open(m, m->states[i]);
	}
	return err;
}

static void drop_row(sqlite3_stmt *st, void *element)
{
	struct rm_drop *d = element;

	d->t = col(st, 0);
	col_str(st, 1, d->collector, sizeof(d->collector));
	col_str(st, 2, d->kind, sizeof(d->kind));
	d->lost = (uint64_t)sqlite3_column_int64(st, 3);
}

static int load_drops(struct replay_model *m)
{
	static const char sql[] = "SELECT time_ns - ?2, collector, kind, lost FROM drop_notice "
				  "WHERE cap = ?1 ORDER BY time_ns";

	return replay_model__read(m, sql, &m->drops, &m->ndrops, sizeof(*m->drops), drop_row);
}

static int event_v(struct replay_model *m, int64_t t, bool warn, const char *kind, int64_t pid,
		   const char *fmt, va_list ap)
{
	struct rm_event *e;
	int err = array__grow((void **)&m->events_list, &m->events_cap, m->nevents,
			      sizeof(*m->events_list));

	if (err)
		return err;
	e = &m->events_list[m->nevents++];
	e->t = t;
	e->warn = warn;
	e->pid = pid;
	snprintf(e->category, sizeof(e->category), "%s",
		 m->event_category ? m->event_category : "");
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	return 0;
}

int replay_model__event(struct replay_model *m, int64_t t, bool warn, const char *kind,
			const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = event_v(m, t, warn, kind, RM_NULL, fmt, ap);
	va_end(ap);
	return err;
}

int replay_model__event_pid(struct replay_model *m, int64_t t, bool warn, const char *kind,
			    int64_t pid, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = event_v(m, t, warn, kind, pid, fmt, ap);
	va_end(ap);
	return err;
}

int replay_model__events_sql(struct replay_model *m, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int err = prepare(m, sql, &st), rc = SQLITE_DONE;

	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *kind = sqlite3_column_text(st, 2),
				    *text = sqlite3_column_text(st, 4);

		err = replay_model__event_pid(m, sqlite3_column_int64(st, 0),
					      sqlite3_column_int64(st, 1) != 0,
					      kind ? (const char *)kind : "?", col(st, 3), "%s",
					      text ? (const char *)text : "");
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

static int cmp_event(const void *pa, const void *pb)
{
	const struct rm_event *a = pa, *b = pb;

	return a->t < b->t ? -1 : a->t > b->t;
}

/* the timeline: drops, then each part's events (replay_series.events: mappings that came or
 * went, VMA snapshots, ...), probes that changed (an exec), the end of the recording */
static int load_events(struct replay_model *m)
{
	static const char change_sql[] =
	    "SELECT time_ns - ?2, name, state, cause FROM probe_change WHERE cap = ?1";
	static const char end_sql[] =
	    "SELECT end_time_ns - ?2, end_reason, target_exit_code, target_term_signal, "
	    "end_signal, end_error FROM capture WHERE cap = ?1 AND end_reason IS NOT NULL";
	const char *active = capture_probe_state_name(PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	sqlite3_stmt *st = NULL;
	char text[200];
	size_t i;
	int err = 0, rc;

	m->event_category = "drop";
	for (i = 0; i < m->ndrops && !err; i++)
		err = replay_model__event(m, m->drops[i].t == RM_NULL ? 0 : m->drops[i].t, true,
					  "drop", "%s %s: %llu lost", m->drops[i].collector,
					  m->drops[i].kind, (unsigned long long)m->drops[i].lost);
	for (i = 0; an_parts[i] && !err; i++)
		if (an_parts[i]->replay && an_parts[i]->replay->events) {
			m->event_category = an_parts[i]->name;
			err = an_parts[i]->replay->events(m, m->states[i]);
		}
	m->event_category = "probe";
	err = err ?: prepare(m, change_sql, &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *name = sqlite3_column_text(st, 1),
				    *state = sqlite3_column_text(st, 2),
				    *cause = sqlite3_column_text(st, 3);

		err = replay_model__event(m, sqlite3_column_int64(st, 0),
					  !state || strcmp((const char *)state, active),
					  "probe change", "%s %s: %s",
					  name ? (const char *)name : "?",
					  state ? (const char *)state : "?",
					  cause ? (const char *)cause : "(no cause given)");
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	st = NULL;
	m->event_category = "end";
	err = err ?: prepare(m, end_sql, &st);
	if (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *why = sqlite3_column_text(st, 1);
		int n = snprintf(text, sizeof(text), "%s", why ? (const char *)why : "?");

		if (col(st, 2) != RM_NULL)
			snprintf(text + n, sizeof(text) - (size_t)n, " (exit code %lld)",
				 (long long)col(st, 2));
		else if (col(st, 3) != RM_NULL)
			snprintf(text + n, sizeof(text) - (size_t)n, " (killed by signal %lld)",
				 (long long)col(st, 3));
		else if (col(st, 4) != RM_NULL)
			snprintf(text + n, sizeof(text) - (size_t)n, " (signal %lld)",
				 (long long)col(st, 4));
		err = replay_model__event(m,
					  sqlite3_column_type(st, 0) == SQLITE_NULL
					      ? m->duration_ns
					      : sqlite3_column_int64(st, 0),
					  false, "end", "%s", text);
	}
	sqlite3_finalize(st);
	m->event_category = NULL;
	if (!err && m->nevents)
		qsort(m->events_list, m->nevents, sizeof(*m->events_list), cmp_event);
	return err;
}

void replay_model__covers(struct replay_model *m, int64_t t)
{
	if (t > m->duration_ns)
		m->duration_ns = t;
}

static int64_t time_of(struct rm_times s, size_t k)
{
	int64_t t;

	memcpy(&t, (const char *)s.t + k * s.stride, sizeof(t));
	return t;
}

static int cmp_i64(const void *pa, const void *pb)
{
	const int64_t *a = pa, *b = pb;

	return *a < *b ? -1 : *a > *b;
}

/* m->ends: the interval ends of every part's series that has them, merged (ascending, one per
 * time); the duration covers the last of them. -ENOMEM */
static int load_ends(struct replay_model *m)
{
	size_t i, k, n = 0, cap = 0;
	int err;

	for (i = 0; an_parts[i]; i++) {
		const struct replay_series *r = an_parts[i]->replay;
		struct rm_times s;

		if (!r || !r->ends)
			continue;
		s = r->ends(m->states[i]);
		for (k = 0; k < s.n; k++) {
			err = array__grow((void **)&m->ends, &cap, n, sizeof(*m->ends));
			if (err)
				return err;
			m->ends[n++] = time_of(s, k);
		}
	}
	if (n)
		qsort(m->ends, n, sizeof(*m->ends), cmp_i64);
	for (k = 0; k < n; k++)
		if (!m->nends || m->ends[k] > m->ends[m->nends - 1])
			m->ends[m->nends++] = m->ends[k];
	if (m->nends)
		replay_model__covers(m, m->ends[m->nends - 1]);
	if (m->meta.last_event_ns > 0)
		replay_model__covers(m, m->meta.last_event_ns - m->meta.base_ns);
	return 0;
}

struct replay_model *replay_model__open(sqlite3 *db, const char *capture_id, char *err,
					size_t errlen)
{
	struct replay_model *m = calloc(1, sizeof(*m));
	const char *what = "capture";
	int e;

	if (!m) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	m->db = db;
	e = capture_meta__load(db, capture_id, &m->meta);
	if (e == -ENOENT) {
		snprintf(err, errlen, "no capture %s in the DB", capture_id);
		goto fail;
	}
	e = e ?: load_facts(m);
	e = e ?: open_series(m, &what);
	what = e ? what : "drop notices";
	e = e ?: load_drops(m);
	if (e) {
		snprintf(err, errlen, "cannot read the %s: %s", what,
			 e == -ENOMEM ? "out of memory" : sqlite3_errmsg(db));
		goto fail;
	}
	e = load_ends(m);
	if (e) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	e = load_events(m);
	if (e) {
		snprintf(err, errlen, "cannot read the timeline: %s",
			 e == -ENOMEM ? "out of memory" : sqlite3_errmsg(db));
		goto fail;
	}
	if (m->nevents && m->events_list[m->nevents - 1].t > m->duration_ns)
		m->duration_ns = m->events_list[m->nevents - 1].t; /* the end of the recording */
	return m;
fail:
	replay_model__free(m);
	errno = -e;
	return NULL;
}

int replay_model__refresh(struct replay_model *m, char *err, size_t errlen)
{
	struct replay_model *n = replay_model__open(m->db, m->meta.capture_id, err, errlen);
	struct replay_model old;
	bool at_end = m->pos_ns >= m->duration_ns;

	if (!n)
		return -errno;
	/* the new one takes the old one's place (its address is the caller's); the
	 * position, playing and speed are kept */
	n->pos_ns = m->pos_ns;
	n->playing = m->playing;
	n->speed_log2 = m->speed_log2;
	old = *m;
	*m = *n;
	*n = old;
	replay_model__free(n);
	replay_model__seek(m, at_end ? m->duration_ns : m->pos_ns);
	return 0;
}

void replay_model__free(struct replay_model *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; m->states && an_parts[i]; i++) {
		if (m->states[i] && an_parts[i]->replay->free)
			an_parts[i]->replay->free(m->states[i]);
		free(m->states[i]);
	}
	free(m->states);
	free(m->drops);
	free(m->events_list);
	free(m->ends);
	free(m->probes);
	free(m);
}

static ssize_t part_index(const char *name)
{
	size_t i;

	if (!name)
		return -1;
	for (i = 0; an_parts[i]; i++)
		if (!strcmp(an_parts[i]->name, name))
			return (ssize_t)i;
	return -1;
}

const struct probe_info *replay_model__probe(const struct replay_model *m, const char *name)
{
	ssize_t i = part_index(name);

	return i < 0 || !m->probes ? NULL : &m->probes[i];
}

void *replay_model__state(const struct replay_model *m, const char *name)
{
	ssize_t i = part_index(name);

	return i < 0 || !m->states ? NULL : m->states[i];
}

void replay_model__seek(struct replay_model *m, int64_t t)
{
	if (t < 0)
		t = 0;
	if (t > m->duration_ns)
		t = m->duration_ns;
	m->pos_ns = t;
}

ssize_t replay_model__step(struct replay_model *m, int n)
{
	ssize_t i, k;

	if (!m->nends) {
		/* no interval series: a fixed grid of the capture's interval */
		int64_t iv = m->interval_ns, g = m->pos_ns / iv;

		g += n >= 0 || !(m->pos_ns % iv) ? n : n + 1;
		replay_model__seek(m, g * iv);
		return -1;
	}
	/* i: the first end after the position; the ends before it are at or before it */
	for (i = 0; i < (ssize_t)m->nends && m->ends[i] <= m->pos_ns; i++)
		;
	if (n > 0) {
		k = i + n - 1;
		if (k >= (ssize_t)m->nends) { /* past the last interval: the end of the recording */
			replay_model__seek(m, m->duration_ns);
			return m->pos_ns == m->ends[m->nends - 1] ? (ssize_t)m->nends - 1 : -1;
		}
	} else {
		/* the views show the interval ending at or before the position (ends[i - 1]),
		 * whether the position is its end, inside the next one or past the last (G):
		 * one step back is the interval before that one, so every press shows another
		 * interval */
		k = i - 2 + (n < 0 ? n + 1 : 0);
		if (k < 0) {
			replay_model__seek(m, 0);
			return -1;
		}
	}
	replay_model__seek(m, m->ends[k]);
	return k;
}

void replay_model__speed(struct replay_model *m, int dir)
{
	if (dir > 0 && m->speed_log2 < RM_SPEED_MAX)
		m->speed_log2++;
	else if (dir < 0 && m->speed_log2 > RM_SPEED_MIN)
		m->speed_log2--;
}

char *replay_model__speed_str(const struct replay_model *m, char *buf, size_t len)
{
	if (m->speed_log2 < 0)
		snprintf(buf, len, "1/%dx", 1 << -m->speed_log2);
	else
		snprintf(buf, len, "%dx", 1 << m->speed_log2);
	return buf;
}

void replay_model__tick(struct replay_model *m, int64_t wall_ns)
{
	int64_t d;

	if (!m->playing)
		return;
	d = m->speed_log2 >= 0 ? wall_ns << m->speed_log2 : wall_ns >> -m->speed_log2;
	replay_model__seek(m, m->pos_ns + d);
	if (m->pos_ns >= m->duration_ns)
		m->playing = false;
}

ssize_t rm_times__at(struct rm_times s, int64_t t)
{
	size_t lo = 0, hi = s.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (time_of(s, mid) <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ssize_t)lo - 1;
}

ssize_t replay_model__event_at(const struct replay_model *m, int64_t t)
{
	return rm_times__at(RM_TIMES(m->events_list, m->nevents), t);
}

uint64_t replay_model__drops_until(const struct replay_model *m, int64_t t)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < m->ndrops; i++)
		if (m->drops[i].t == RM_NULL || m->drops[i].t <= t)
			sum += m->drops[i].lost;
	return sum;
}
