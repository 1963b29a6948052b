/* replay_model.c — loads a capture's interval data into memory for the replay viewer; seeks. */
#include "analyze/replay_model.h"
#include "analyze/part.h"
#include "common/array.h"
#include "proto/names.h"
#include "proto/syscall_table.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* grow *P (element size SZ) to hold one more than *N; 0 or -ENOMEM */
static int64_t col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? RM_NULL : sqlite3_column_int64(st, i);
}

static void col_str(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	snprintf(buf, len, "%s", s ? (const char *)s : "");
}

static int prepare(struct replay_model *m, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(m->db, sql, -1, st, NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_bind_parameter_count(*st) >= 1)
		sqlite3_bind_int64(*st, 1, m->meta.cap);
	if (sqlite3_bind_parameter_count(*st) >= 2)
		sqlite3_bind_int64(*st, 2, m->meta.base_ns);
	return 0;
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

/* the CPU series, summed over the target's pids per interval end */
static int load_cpu(struct replay_model *m)
{
	static const char sql[] =
	    "SELECT time_ns - ?2, MAX(interval_ns), SUM(oncpu_ns), "
	    /* a cgroup capture's user and system time are its cpu.stat lane's */
	    "SUM(COALESCE(user_ns, cg_user_ns)), SUM(COALESCE(system_ns, cg_system_ns)), "
	    "SUM(threads) FROM cpu_sample WHERE cap = ?1 GROUP BY time_ns ORDER BY time_ns";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int err, rc;

	err = prepare(m, sql, &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rm_cpu *c;

		err = array__grow((void **)&m->cpu, &cap, m->ncpu, sizeof(*m->cpu));
		if (err)
			break;
		c = &m->cpu[m->ncpu++];
		c->t = sqlite3_column_int64(st, 0);
		c->interval = col(st, 1);
		c->oncpu = col(st, 2);
		c->user = col(st, 3);
		c->system = col(st, 4);
		c->threads = col(st, 5);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

static const char *intern_name(struct replay_model *m, const char *name, size_t *cap, int *err)
{
	size_t i;

	for (i = 0; i < m->nnames; i++)
		if (!strcmp(m->names[i], name))
			return m->names[i];
	*err = array__grow((void **)&m->names, cap, m->nnames, sizeof(*m->names));
	if (*err)
		return NULL;
	m->names[m->nnames] = strdup(name);
	if (!m->names[m->nnames]) {
		*err = -ENOMEM;
		return NULL;
	}
	return m->names[m->nnames++];
}

static int cmp_sys_nr(const void *pa, const void *pb)
{
	const struct rm_sys *a = pa, *b = pb;

	return a->nr < b->nr ? -1 : a->nr > b->nr;
}

/* add COUNT to bucket B of row S, whose buckets are the last ones in model.hist (moved there when
 * they are not: several pids' rows arrive one after the other, not interleaved) */
static int add_bucket(struct replay_model *m, struct rm_sys *s, int b, uint64_t count, size_t *hcap)
{
	uint32_t i;
	int err;

	for (i = 0; i < s->hist_n; i++)
		if (m->hist[s->hist_off + i].bucket == b) {
			m->hist[s->hist_off + i].count += count;
			return 0;
		}
	if (s->hist_n && s->hist_off + s->hist_n != m->nhist) {
		for (i = 0; i < s->hist_n; i++) { /* move its buckets to the end */
			err = array__grow((void **)&m->hist, hcap, m->nhist, sizeof(*m->hist));
			if (err)
				return err;
			m->hist[m->nhist++] = m->hist[s->hist_off + i];
		}
		s->hist_off = (uint32_t)(m->nhist - s->hist_n);
	}
	err = array__grow((void **)&m->hist, hcap, m->nhist, sizeof(*m->hist));
	if (err)
		return err;
	if (!s->hist_n)
		s->hist_off = (uint32_t)m->nhist;
	m->hist[m->nhist++] = (struct rm_bucket){.bucket = (uint8_t)b, .count = count};
	s->hist_n++;
	return 0;
}

/* syscall_stat per (interval end, nr), several pids' rows summed, read in the order of its index
 * (no sort in SQLite). The histograms are read per interval when shown (load_hist). */
static int load_syscalls(struct replay_model *m)
{
	static const char sql[] =
	    "SELECT time_ns - ?2, interval_ns, nr, name, count, completed, errors, total_ns "
	    "FROM syscall_stat WHERE cap = ?1 ORDER BY time_ns";
	const struct syscall_table *tab =
	    syscall_table__find(m->meta.machine[0] ? m->meta.machine : NULL);
	size_t cap = 0, icap = 0, ncap = 0, i;
	sqlite3_stmt *st = NULL;
	int err, rc;

	err = prepare(m, sql, &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0), nr = sqlite3_column_int64(st, 2);
		const unsigned char *name = sqlite3_column_text(st, 3);
		struct rm_sys_interval *iv;
		struct rm_sys *s = NULL;

		if (!m->nsysi || m->sysi[m->nsysi - 1].t != t) {
			err = array__grow((void **)&m->sysi, &icap, m->nsysi, sizeof(*m->sysi));
			if (err)
				break;
			m->sysi[m->nsysi++] = (struct rm_sys_interval){
			    .t = t, .interval = col(st, 1), .first = m->nsys, .n = 0};
		}
		iv = &m->sysi[m->nsysi - 1];
		for (i = iv->first; i < m->nsys; i++) /* another pid's row of the same syscall */
			if (m->sys[i].nr == nr) {
				s = &m->sys[i];
				break;
			}
		if (!s) {
			err = array__grow((void **)&m->sys, &cap, m->nsys, sizeof(*m->sys));
			if (err)
				break;
			const char *known = nr >= 0 && nr <= UINT32_MAX
						? syscall_table__name(tab, (uint32_t)nr)
						: NULL;

			s = &m->sys[m->nsys++];
			memset(s, 0, sizeof(*s));
			s->nr = nr;
			/* ptop's table names a DB's "sys_335" too, as `report syscalls` does */
			if (!known)
				known = name ? (const char *)name : "?";
			s->name = intern_name(m, known, &ncap, &err);
			s->probe = nr >= 0 && nr <= UINT32_MAX &&
				   syscall_table__is_probe(tab, (uint32_t)nr);
			m->sys_probe |= s->probe;
			if (err)
				break;
			iv->n++;
		}
		s->count += (uint64_t)sqlite3_column_int64(st, 4);
		s->completed += (uint64_t)sqlite3_column_int64(st, 5);
		s->errors += (uint64_t)sqlite3_column_int64(st, 6);
		s->total_ns += (uint64_t)sqlite3_column_int64(st, 7);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	st = NULL;
	if (err)
		return err;
	for (i = 0; i < m->nsysi; i++)
		if (m->sysi[i].n > 1)
			qsort(m->sys + m->sysi[i].first, m->sysi[i].n, sizeof(*m->sys), cmp_sys_nr);

	return err;
}

static int load_memory(struct replay_model *m)
{
	/* SUM keeps NULL when every pid's value is NULL: not measured stays not measured */
	static const char sql[] =
	    "SELECT time_ns - ?2, SUM(rss), SUM(pss), SUM(uss), SUM(pss_anon), SUM(pss_file), "
	    "SUM(pss_shmem), SUM(swap), SUM(vsize), SUM(minflt), SUM(majflt) FROM memory_sample "
	    "WHERE cap = ?1 GROUP BY time_ns ORDER BY time_ns";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int err, rc;

	err = prepare(m, sql, &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rm_mem *x;

		err = array__grow((void **)&m->mem, &cap, m->nmem, sizeof(*m->mem));
		if (err)
			break;
		x = &m->mem[m->nmem++];
		x->t = sqlite3_column_int64(st, 0);
		x->rss = col(st, 1);
		x->pss = col(st, 2);
		x->uss = col(st, 3);
		x->pss_anon = col(st, 4);
		x->pss_file = col(st, 5);
		x->pss_shmem = col(st, 6);
		x->swap = col(st, 7);
		x->vsize = col(st, 8);
		x->minflt = col(st, 9);
		x->majflt = col(st, 10);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

static int load_snaps(struct replay_model *m)
{
	static const char sql[] = "SELECT snapshot_id, time_ns - ?2, vma_count FROM vma_snapshot "
				  "WHERE cap = ?1 ORDER BY time_ns, snapshot_id";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int err, rc;

	err = prepare(m, sql, &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		err = array__grow((void **)&m->snaps, &cap, m->nsnaps, sizeof(*m->snaps));
		if (err)
			break;
		m->snaps[m->nsnaps++] = (struct rm_vma_snap){.id = sqlite3_column_int64(st, 0),
							     .t = sqlite3_column_int64(st, 1),
							     .vma_count = col(st, 2)};
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

static int load_heap(struct replay_model *m)
{
	static const char sql[] =
	    "SELECT time_ns - ?2, MAX(interval_ns), SUM(alloc_count), SUM(alloc_bytes), "
	    "SUM(live_bytes), SUM(leak_bytes), MAX(lane), MAX(sample_bytes) FROM heap_snapshot "
	    "WHERE cap = ?1 "
	    "GROUP BY time_ns ORDER BY time_ns";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int err, rc;

	if (sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0; /* a DB from before the heap collector: nothing to show */
	sqlite3_bind_int64(st, 1, m->meta.cap);
	sqlite3_bind_int64(st, 2, m->meta.base_ns);
	err = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rm_heap *h;

		err = array__grow((void **)&m->heap, &cap, m->nheap, sizeof(*m->heap));
		if (err)
			break;
		h = &m->heap[m->nheap++];
		h->t = sqlite3_column_int64(st, 0);
		h->interval = col(st, 1);
		h->alloc_count = col(st, 2);
		h->alloc_bytes = col(st, 3);
		h->live_bytes = col(st, 4);
		h->leak_bytes = col(st, 5);
		col_str(st, 6, h->lane, sizeof(h->lane));
		h->sample_bytes = col(st, 7);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

/* the cgroup samples, as `report cgroup` reads them (only when the cgroup probe ran: a DB made
 * before the cgroup tables has none) */
static int load_cgroup(struct replay_model *m)
{
	const struct probe_info *p = replay_model__probe(m, "cgroup");
	struct window all = {0};

	if (!p || !probe__active(p))
		return 0;
	return cg_data__load(m->db, &m->meta, &all, &m->cg);
}

static int load_drops(struct replay_model *m)
{
	static const char sql[] = "SELECT time_ns - ?2, collector, kind, lost FROM drop_notice "
				  "WHERE cap = ?1 ORDER BY time_ns";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int err, rc;

	err = prepare(m, sql, &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rm_drop *d;

		err = array__grow((void **)&m->drops, &cap, m->ndrops, sizeof(*m->drops));
		if (err)
			break;
		d = &m->drops[m->ndrops++];
		d->t = sqlite3_column_type(st, 0) == SQLITE_NULL ? RM_NULL
								 : sqlite3_column_int64(st, 0);
		col_str(st, 1, d->collector, sizeof(d->collector));
		col_str(st, 2, d->kind, sizeof(d->kind));
		d->lost = (uint64_t)sqlite3_column_int64(st, 3);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

static int add_event(struct replay_model *m, size_t *cap, int64_t t, bool warn, const char *kind,
		     const char *text)
{
	struct rm_event *e;
	int err = array__grow((void **)&m->events_list, cap, m->nevents, sizeof(*m->events_list));

	if (err)
		return err;
	e = &m->events_list[m->nevents++];
	e->t = t;
	e->warn = warn;
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	snprintf(e->text, sizeof(e->text), "%s", text);
	return 0;
}

static int cmp_event(const void *pa, const void *pb)
{
	const struct rm_event *a = pa, *b = pb;

	return a->t < b->t ? -1 : a->t > b->t;
}

/* the timeline: drops, mappings that came or went, VMA snapshots, probes that changed
 * (an exec), the end of the recording */
static int load_events(struct replay_model *m)
{
	static const char map_sql[] =
	    "SELECT time_ns - ?2, event, path, start, end FROM mapping WHERE cap = ?1 "
	    "AND event IN (?3, ?4) AND time_ns IS NOT NULL";
	static const char change_sql[] =
	    "SELECT time_ns - ?2, name, state, cause FROM probe_change WHERE cap = ?1";
	static const char end_sql[] =
	    "SELECT end_time_ns - ?2, end_reason, target_exit_code, target_term_signal, "
	    "end_signal, end_error FROM capture WHERE cap = ?1 AND end_reason IS NOT NULL";
	const char *new = capture_mapping_event_name(PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_NEW),
		   *gone = capture_mapping_event_name(PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_GONE),
		   *active = capture_probe_state_name(PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	sqlite3_stmt *st = NULL;
	char text[200];
	size_t cap = 0, i;
	int err = 0, rc;

	for (i = 0; i < m->ndrops && !err; i++) {
		snprintf(text, sizeof(text), "%s %s: %llu lost", m->drops[i].collector,
			 m->drops[i].kind, (unsigned long long)m->drops[i].lost);
		err = add_event(m, &cap, m->drops[i].t == RM_NULL ? 0 : m->drops[i].t, true, "drop",
				text);
	}
	for (i = 0; i < m->nsnaps && !err; i++) {
		snprintf(text, sizeof(text), "%lld VMAs", (long long)m->snaps[i].vma_count);
		err = add_event(m, &cap, m->snaps[i].t, false, "vma snapshot", text);
	}
	err = err ?: prepare(m, map_sql, &st);
	if (!err) {
		sqlite3_bind_text(st, 3, new, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, gone, -1, SQLITE_STATIC);
	}
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *ev = sqlite3_column_text(st, 1),
				    *path = sqlite3_column_text(st, 2);

		snprintf(text, sizeof(text), "%s %llx-%llx",
			 path && *path ? (const char *)path : "[anon]",
			 (unsigned long long)sqlite3_column_int64(st, 3),
			 (unsigned long long)sqlite3_column_int64(st, 4));
		err = add_event(m, &cap, sqlite3_column_int64(st, 0), false,
				ev && !strcmp((const char *)ev, new) ? "mapping new"
								      : "mapping gone",
				text);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	st = NULL;
	err = err ?: prepare(m, change_sql, &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *name = sqlite3_column_text(st, 1),
				    *state = sqlite3_column_text(st, 2),
				    *cause = sqlite3_column_text(st, 3);

		snprintf(text, sizeof(text), "%s %s: %s", name ? (const char *)name : "?",
			 state ? (const char *)state : "?",
			 cause ? (const char *)cause : "(no cause given)");
		err = add_event(m, &cap, sqlite3_column_int64(st, 0),
				!state || strcmp((const char *)state, active), "probe change",
				text);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	st = NULL;
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
		err = add_event(m, &cap,
				sqlite3_column_type(st, 0) == SQLITE_NULL
				    ? m->duration_ns
				    : sqlite3_column_int64(st, 0),
				false, "end", text);
	}
	sqlite3_finalize(st);
	if (!err && m->nevents)
		qsort(m->events_list, m->nevents, sizeof(*m->events_list), cmp_event);
	return err;
}

static void update_duration(struct replay_model *m)
{
	int64_t d = 0;

	if (m->ncpu && m->cpu[m->ncpu - 1].t > d)
		d = m->cpu[m->ncpu - 1].t;
	if (m->nsysi && m->sysi[m->nsysi - 1].t > d)
		d = m->sysi[m->nsysi - 1].t;
	if (m->nmem && m->mem[m->nmem - 1].t > d)
		d = m->mem[m->nmem - 1].t;
	if (m->nsnaps && m->snaps[m->nsnaps - 1].t > d)
		d = m->snaps[m->nsnaps - 1].t;
	if (m->nheap && m->heap[m->nheap - 1].t > d)
		d = m->heap[m->nheap - 1].t;
	if (m->cg.n && m->cg.s[m->cg.n - 1].time_ns - m->meta.base_ns > d)
		d = m->cg.s[m->cg.n - 1].time_ns - m->meta.base_ns;
	if (m->meta.last_event_ns > 0 && m->meta.last_event_ns - m->meta.base_ns > d)
		d = m->meta.last_event_ns - m->meta.base_ns;
	m->duration_ns = d;
}

/* m->ends from the first interval series the capture has; -ENOMEM */
static int load_ends(struct replay_model *m)
{
	const void *base = m->cpu;
	size_t n = m->ncpu, sz = sizeof(*m->cpu), off = offsetof(struct rm_cpu, t), i;

	if (!n) {
		base = m->sysi, n = m->nsysi, sz = sizeof(*m->sysi);
		off = offsetof(struct rm_sys_interval, t);
	}
	if (!n) {
		base = m->heap, n = m->nheap, sz = sizeof(*m->heap), off = offsetof(struct rm_heap, t);
	}
	if (!n) {
		base = m->mem, n = m->nmem, sz = sizeof(*m->mem), off = offsetof(struct rm_mem, t);
	}
	if (!n)
		return 0;
	m->ends = malloc(n * sizeof(*m->ends));
	if (!m->ends)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		int64_t t;

		memcpy(&t, (const char *)base + i * sz + off, sizeof(t));
		if (!m->nends || t > m->ends[m->nends - 1]) /* ascending, one per time */
			m->ends[m->nends++] = t;
	}
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
	m->groups_snap = RM_NULL;
	m->sites_hi = RM_NULL;
	m->hist_iv = RM_NULL;
	m->cg_cached = RM_NULL;
	m->cg_seen_to = RM_NULL;
	e = capture_meta__load(db, capture_id, &m->meta);
	if (e == -ENOENT) {
		snprintf(err, errlen, "no capture %s in the DB", capture_id);
		goto fail;
	}
	e = e ?: load_facts(m);
	what = e ? what : "cpu samples";
	e = e ?: load_cpu(m);
	what = e ? what : "syscall samples";
	e = e ?: load_syscalls(m);
	what = e ? what : "memory samples";
	e = e ?: load_memory(m);
	what = e ? what : "VMA snapshots";
	e = e ?: load_snaps(m);
	what = e ? what : "heap snapshots";
	e = e ?: load_heap(m);
	what = e ? what : "cgroup samples";
	e = e ?: load_cgroup(m);
	what = e ? what : "drop notices";
	e = e ?: load_drops(m);
	if (e) {
		snprintf(err, errlen, "cannot read the %s: %s", what,
			 e == -ENOMEM ? "out of memory" : sqlite3_errmsg(db));
		goto fail;
	}
	update_duration(m);
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

void replay_model__free(struct replay_model *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nnames; i++)
		free(m->names[i]);
	free(m->names);
	free(m->cpu);
	free(m->sys);
	free(m->sysi);
	free(m->hist);
	free(m->mem);
	free(m->snaps);
	free(m->heap);
	free(m->drops);
	free(m->events_list);
	free(m->ends);
	free(m->groups);
	heap_sites__free(m->sites_iv);
	heap_sites__free(m->sites_hist);
	cg_data__free(&m->cg);
	free(m->cgs.stat.kv);
	free(m->cgs.procs);
	free(m->cg_seen);
	for (i = 0; i < m->ncg_cps; i++)
		free(m->cg_cps[i].seen);
	free(m->cg_cps);
	free(m->probes);
	free(m);
}

const struct probe_info *replay_model__probe(const struct replay_model *m, const char *name)
{
	size_t i;

	if (!name || !m->probes)
		return NULL;
	for (i = 0; an_parts[i]; i++)
		if (!strcmp(an_parts[i]->name, name))
			return &m->probes[i];
	return NULL;
}

/* Merge the process rows of the samples after cg_seen_to up to TO into model.cg_seen, by pid, a
 * newer covered read replacing an older one. */
static int cg_seen_merge(struct replay_model *m, size_t to)
{
	struct cg_proc *nw = NULL, *out = NULL;
	size_t nn = 0, a = 0, b = 0, k = 0;
	struct window w = {0};
	int err;

	if (m->cg_seen_to >= 0) { /* a sample is in [START, END] when its time is */
		w.has_start = true;
		w.start_ns = m->cg.s[m->cg_seen_to].time_ns - m->meta.base_ns + 1;
	}
	w.has_end = true;
	w.end_ns = m->cg.s[to].time_ns - m->meta.base_ns;
	err = cg_procs__load(m->db, &m->meta, &w, m->cg.s[to].seq, &nw, &nn);
	if (err)
		return err;
	out = calloc(m->ncg_seen + nn ? m->ncg_seen + nn : 1, sizeof(*out));
	if (!out) {
		free(nw);
		return -ENOMEM;
	}
	while (a < m->ncg_seen || b < nn) { /* both by pid */
		const struct cg_proc *o = a < m->ncg_seen ? &m->cg_seen[a] : NULL;
		const struct cg_proc *n = b < nn ? &nw[b] : NULL;

		if (o && (!n || o->pid < n->pid)) {
			out[k] = *o;
			out[k++].in_last = false; /* not in sample TO, which the new rows hold */
			a++;
			continue;
		}
		out[k] = *n;
		if (o && o->pid == n->pid) {
			if (n->value_ns < 0) { /* not covered since: its older read stands */
				out[k].value_ns = o->value_ns;
				out[k].rss = o->rss;
				out[k].pss = o->pss;
				out[k].uss = o->uss;
				out[k].swap = o->swap;
			}
			a++;
		}
		k++;
		b++;
	}
	free(nw);
	free(m->cg_seen);
	m->cg_seen = out;
	m->ncg_seen = k;
	m->cg_seen_to = (int64_t)to;
	return 0;
}

/* Set model.cg_seen to checkpoint K (a copy). 0 or -ENOMEM. */
static int cg_seen_restore(struct replay_model *m, size_t k)
{
	const struct rm_cg_checkpoint *cp = &m->cg_cps[k];
	struct cg_proc *v = malloc((cp->n ? cp->n : 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	memcpy(v, cp->seen, cp->n * sizeof(*v));
	free(m->cg_seen);
	m->cg_seen = v;
	m->ncg_seen = cp->n;
	m->cg_seen_to = (int64_t)((k + 1) * RM_CG_CP - 1);
	return 0;
}

/* Bring model.cg_seen to sample CI: from the last checkpoint at or before it when that is ahead of
 * cg_seen_to or CI is behind it, then a checkpoint's worth of samples at a time. */
static int cg_seen_update(struct replay_model *m, size_t ci)
{
	size_t k = (ci + 1) / RM_CG_CP; /* checkpoints at or before CI */
	int err;

	if (m->cg_seen_to == (int64_t)ci)
		return 0;
	if (m->cg_seen_to > (int64_t)ci) {
		free(m->cg_seen);
		m->cg_seen = NULL;
		m->ncg_seen = 0;
		m->cg_seen_to = RM_NULL;
	}
	while (k > 0 && (k > m->ncg_cps || !m->cg_cps[k - 1].seen))
		k--;
	if (k && (int64_t)(k * RM_CG_CP - 1) > m->cg_seen_to) {
		err = cg_seen_restore(m, k - 1);
		if (err)
			return err;
	}
	while (m->cg_seen_to < (int64_t)ci) {
		size_t next = (size_t)((m->cg_seen_to + 1) / RM_CG_CP + 1) * RM_CG_CP - 1;
		struct rm_cg_checkpoint *cp;

		err = cg_seen_merge(m, next < ci ? next : ci);
		if (err)
			return err;
		if (m->cg_seen_to != (int64_t)next)
			break;
		k = next / RM_CG_CP; /* take checkpoint k */
		if (k >= m->ncg_cps) {
			cp = realloc(m->cg_cps, (k + 1) * sizeof(*cp));
			if (!cp)
				return -ENOMEM;
			memset(cp + m->ncg_cps, 0, (k + 1 - m->ncg_cps) * sizeof(*cp));
			m->cg_cps = cp;
			m->ncg_cps = k + 1;
		}
		cp = &m->cg_cps[k];
		if (!cp->seen) {
			cp->seen = malloc((m->ncg_seen ? m->ncg_seen : 1) * sizeof(*cp->seen));
			if (!cp->seen)
				return -ENOMEM;
			memcpy(cp->seen, m->cg_seen, m->ncg_seen * sizeof(*cp->seen));
			cp->n = m->ncg_seen;
		}
	}
	return 0;
}

int replay_model__cgroup(struct replay_model *m, size_t ci, const struct rm_cgroup **out)
{
	struct rm_cgroup *c = &m->cgs;
	struct cg_data upto;
	size_t i, k;
	int err;

	if (ci >= m->cg.n)
		return -EINVAL;
	if (m->cg_cached == (int64_t)ci)
		goto done;
	m->cg_cached = RM_NULL;
	free(c->stat.kv);
	free(c->procs);
	memset(c, 0, sizeof(*c));
	c->at = ci;
	/* the samples from the start to this one: memory.stat at it, the OOM events so far */
	upto = m->cg;
	upto.n = ci + 1;
	cg_oom__of(&upto, &c->oom);
	err = cg_stat__load(m->db, &m->meta, &upto, &c->stat);
	err = err ?: cg_seen_update(m, ci);
	if (err)
		return err;
	c->procs = calloc(m->ncg_seen ? m->ncg_seen : 1, sizeof(*c->procs));
	if (!c->procs)
		return -ENOMEM;
	for (i = k = 0; i < m->ncg_seen; i++) /* the processes in this sample */
		if (m->cg_seen[i].in_last)
			c->procs[k++] = m->cg_seen[i];
	c->nprocs = k;
	if (k)
		qsort(c->procs, k, sizeof(*c->procs), cg_proc__cmp_pss);
	m->cg_cached = (int64_t)ci;
done:
	*out = c;
	return 0;
}

int replay_model__heap_sites(struct replay_model *m, size_t hi, struct heap_sites **iv,
			     struct heap_sites **hist)
{
	struct window w = {0};
	int err;

	if (hi >= m->nheap)
		return -EINVAL;
	if (m->sites_hi != (int64_t)hi || !m->sites_iv || !m->sites_hist) {
		heap_sites__free(m->sites_iv);
		heap_sites__free(m->sites_hist);
		m->sites_iv = m->sites_hist = NULL;
		m->sites_hi = RM_NULL;
		/* a snapshot is in a window when its midpoint is: [t - interval, t] holds
		 * this one only, [.., t] every one up to it */
		w.has_end = true;
		w.end_ns = m->heap[hi].t + 1;
		err = heap_sites__load(m->db, &m->meta, &w, true, &m->sites_hist);
		if (err)
			return err;
		w.has_start = true;
		w.start_ns = m->heap[hi].t - (m->heap[hi].interval > 0 ? m->heap[hi].interval : 0);
		err = heap_sites__load(m->db, &m->meta, &w, false, &m->sites_iv);
		if (err)
			return err;
		m->sites_hi = (int64_t)hi;
	}
	*iv = m->sites_iv;
	*hist = m->sites_hist;
	return 0;
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

/* the last index whose time (at byte offset OFF of elements of size SZ) is <= T; -1 if none */
static ssize_t last_at(const void *base, size_t n, size_t sz, size_t off, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t v;

		memcpy(&v, (const char *)base + mid * sz + off, sizeof(v));
		if (v <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ssize_t)lo - 1;
}

ssize_t replay_model__cpu_at(const struct replay_model *m, int64_t t)
{
	return last_at(m->cpu, m->ncpu, sizeof(*m->cpu), offsetof(struct rm_cpu, t), t);
}

ssize_t replay_model__sys_at(const struct replay_model *m, int64_t t)
{
	return last_at(m->sysi, m->nsysi, sizeof(*m->sysi), offsetof(struct rm_sys_interval, t), t);
}

ssize_t replay_model__mem_at(const struct replay_model *m, int64_t t)
{
	return last_at(m->mem, m->nmem, sizeof(*m->mem), offsetof(struct rm_mem, t), t);
}

ssize_t replay_model__snap_at(const struct replay_model *m, int64_t t)
{
	return last_at(m->snaps, m->nsnaps, sizeof(*m->snaps), offsetof(struct rm_vma_snap, t), t);
}

ssize_t replay_model__heap_at(const struct replay_model *m, int64_t t)
{
	return last_at(m->heap, m->nheap, sizeof(*m->heap), offsetof(struct rm_heap, t), t);
}

ssize_t replay_model__cg_at(const struct replay_model *m, int64_t t)
{
	return last_at(m->cg.s, m->cg.n, sizeof(*m->cg.s), offsetof(struct cg_sample, time_ns),
		       t + m->meta.base_ns);
}

ssize_t replay_model__event_at(const struct replay_model *m, int64_t t)
{
	return last_at(m->events_list, m->nevents, sizeof(*m->events_list),
		       offsetof(struct rm_event, t), t);
}

double replay_model__cpu_pct(const struct replay_model *m, size_t i)
{
	const struct rm_cpu *c = &m->cpu[i];
	int64_t iv = c->interval > 0 ? c->interval : m->interval_ns;

	if (c->oncpu >= 0)
		return 100.0 * (double)c->oncpu / (double)iv;
	if (c->user >= 0 && c->system >= 0)
		return 100.0 * (double)(c->user + c->system) / (double)iv;
	return NAN;
}

/* read the histograms of interval II (summed over pids) into model.hist, replacing the last */
static int load_hist(struct replay_model *m, size_t ii)
{
	static const char sql[] = "SELECT bucket, count FROM syscall_hist "
				  "WHERE cap = ?1 AND nr = ?2 AND time_ns = ?3";
	const struct rm_sys_interval *iv = &m->sysi[ii];
	sqlite3_stmt *st = NULL;
	size_t hcap = m->hist_cap, i;
	int err = 0, rc = SQLITE_DONE;

	m->nhist = 0;
	m->hist_iv = RM_NULL;
	if (sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	for (i = 0; i < iv->n && !err; i++) {
		struct rm_sys *s = &m->sys[iv->first + i];

		s->hist_n = 0;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, m->meta.cap);
		sqlite3_bind_int64(st, 2, s->nr);
		sqlite3_bind_int64(st, 3, iv->t + m->meta.base_ns);
		while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t b = sqlite3_column_int64(st, 0);

			if (b < 0 || b >= HIST_BUCKETS)
				continue; /* outside the log2 range of a u64 */
			err =
			    add_bucket(m, s, (int)b, (uint64_t)sqlite3_column_int64(st, 1), &hcap);
		}
		if (!err && rc != SQLITE_DONE)
			err = -EIO;
	}
	m->hist_cap = hcap;
	sqlite3_finalize(st);
	if (!err)
		m->hist_iv = (int64_t)ii;
	return err;
}

int replay_model__sys_pct(struct replay_model *m, const struct rm_sys *s, unsigned pct,
			  uint64_t *est)
{
	uint64_t h[HIST_BUCKETS] = {0};
	size_t r = (size_t)(s - m->sys), lo = 0, hi = m->nsysi;
	uint32_t i;
	int err;

	if (r >= m->nsys)
		return -EINVAL;
	while (hi - lo > 1) { /* the interval of row r */
		size_t mid = (lo + hi) / 2;

		if (m->sysi[mid].first <= r)
			lo = mid;
		else
			hi = mid;
	}
	if (m->hist_iv != (int64_t)lo) {
		err = load_hist(m, lo);
		if (err)
			return err;
	}
	if (!s->hist_n)
		return -ENODATA;
	for (i = 0; i < s->hist_n; i++)
		h[m->hist[s->hist_off + i].bucket] += m->hist[s->hist_off + i].count;
	return hist_percentile(h, HIST_BUCKETS, pct, est, NULL, NULL);
}

int replay_model__vma_groups(struct replay_model *m, size_t si, const struct rm_vma_group **out,
			     size_t *n)
{
	struct vma_group *g = NULL;
	size_t ng = 0, k;
	int err;

	*out = NULL;
	*n = 0;
	if (si >= m->nsnaps)
		return -EINVAL;
	if (m->groups_snap == m->snaps[si].id)
		goto done;
	free(m->groups);
	m->groups = NULL;
	m->ngroups = 0;
	m->groups_snap = RM_NULL;
	/* the groups `report vma` shows, in its order */
	err = vma_groups__load(m->db, m->meta.cap, m->snaps[si].id, &g, &ng);
	if (err)
		return err;
	if (ng) {
		m->groups = calloc(ng, sizeof(*m->groups));
		if (!m->groups) {
			vma_groups__free(g, ng);
			return -ENOMEM;
		}
	}
	for (k = 0; k < ng; k++) {
		struct rm_vma_group *r = &m->groups[k];

		snprintf(r->name, sizeof(r->name), "%s", g[k].name);
		r->vmas = g[k].vmas;
		r->size = g[k].v[VMA_SIZE];
		r->rss = g[k].v[VMA_RSS];
		r->pss = g[k].v[VMA_PSS];
		r->uss = g[k].v[VMA_USS];
		r->swap = g[k].v[VMA_SWAP];
	}
	m->ngroups = ng;
	vma_groups__free(g, ng);
	m->groups_snap = m->snaps[si].id;
done:
	*out = m->groups;
	*n = m->ngroups;
	return 0;
}

int replay_model__vmas(struct replay_model *m, size_t si, const char *group, struct rm_vma **out,
		       size_t *n)
{
	static const char sql[] =
	    "SELECT start, end, perms, offset, size, rss, pss, uss, swap FROM vma "
	    "WHERE cap = ?1 AND snapshot_id = ?2 AND (CASE WHEN path IS NULL OR path = '' "
	    "THEN '[anon]' ELSE path END) = ?3 ORDER BY start";
	struct rm_vma *v = NULL;
	sqlite3_stmt *st = NULL;
	size_t nv = 0, cap = 0;
	int err = 0, rc;

	*out = NULL;
	*n = 0;
	if (si >= m->nsnaps)
		return -EINVAL;
	if (sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->meta.cap);
	sqlite3_bind_int64(st, 2, m->snaps[si].id);
	sqlite3_bind_text(st, 3, group, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rm_vma *x;

		err = array__grow((void **)&v, &cap, nv, sizeof(*v));
		if (err)
			goto cleanup;
		x = &v[nv++];
		x->start = (uint64_t)sqlite3_column_int64(st, 0);
		x->end = (uint64_t)sqlite3_column_int64(st, 1);
		col_str(st, 2, x->perms, sizeof(x->perms));
		x->offset = col(st, 3);
		x->size = col(st, 4);
		x->rss = col(st, 5);
		x->pss = col(st, 6);
		x->uss = col(st, 7);
		x->swap = col(st, 8);
	}
	if (rc != SQLITE_DONE) {
		err = -EIO;
		goto cleanup;
	}
	*out = v;
	*n = nv;
	v = NULL;
cleanup:
	sqlite3_finalize(st);
	free(v);
	return err;
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
