/* info.c — the `info` command: everything a capture says about itself, as text or JSON. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/output.h"
#include "analyze/report.h"

/* A prepared single-row statement over one table and its columns by name. */
struct row {
	sqlite3_stmt *st;
	bool found;
};

static int row_open(sqlite3 *db, struct row *r, const char *sql, int64_t cap)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if (sqlite3_prepare_v2(db, sql, -1, &r->st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(r->st, 1, cap);
	rc = sqlite3_step(r->st);
	if (rc == SQLITE_ROW)
		r->found = true;
	else if (rc != SQLITE_DONE)
		return -EIO;
	return 0;
}

static int col(const struct row *r, const char *name)
{
	int i, n;

	if (!r->found)
		return -1;
	n = sqlite3_column_count(r->st);
	for (i = 0; i < n; i++)
		if (!strcmp(sqlite3_column_name(r->st, i), name))
			return i;
	return -1;
}

static bool is_null(const struct row *r, const char *name)
{
	int i = col(r, name);

	return i < 0 || sqlite3_column_type(r->st, i) == SQLITE_NULL;
}

static const char *txt(const struct row *r, const char *name)
{
	int i = col(r, name);
	const unsigned char *s;

	if (i < 0)
		return NULL;
	s = sqlite3_column_text(r->st, i);
	return s ? (const char *)s : NULL;
}

static int64_t i64(const struct row *r, const char *name)
{
	int i = col(r, name);

	return i < 0 ? 0 : sqlite3_column_int64(r->st, i);
}

/* "-" for NULL, for text output */
static const char *txt_or(const struct row *r, const char *name, const char *dflt)
{
	const char *s = txt(r, name);

	return s && s[0] ? s : dflt;
}

/* The column as a JSON value of its SQLite type. */
static void jcol(struct json *j, const char *key, const struct row *r, const char *name)
{
	int i = col(r, name);

	json__key(j, key);
	if (i < 0) {
		json__null(j);
		return;
	}
	switch (sqlite3_column_type(r->st, i)) {
	case SQLITE_INTEGER:
		json__int(j, sqlite3_column_int64(r->st, i));
		break;
	case SQLITE_FLOAT:
		json__real(j, sqlite3_column_double(r->st, i));
		break;
	case SQLITE_NULL:
		json__null(j);
		break;
	default:
		json__string(j, (const char *)sqlite3_column_text(r->st, i));
	}
}

static void jbool(struct json *j, const char *key, const struct row *r, const char *name)
{
	json__key(j, key);
	if (is_null(r, name))
		json__null(j);
	else
		json__bool(j, i64(r, name) != 0);
}

/* A column holding a JSON array of strings: as JSON (validated by SQLite), or
 * joined with spaces for text. */
static void jarray(sqlite3 *db, struct json *j, const char *key, const char *value)
{
	sqlite3_stmt *st = NULL;

	json__key(j, key);
	if (!value) {
		json__null(j);
		return;
	}
	if (sqlite3_prepare_v2(db, "SELECT json(?1) WHERE json_valid(?1)", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, value, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			json__raw(j, (const char *)sqlite3_column_text(st, 0));
		else
			json__string(j, value);
	} else {
		json__string(j, value);
	}
	sqlite3_finalize(st);
}

static void text_array(sqlite3 *db, FILE *f, const char *value)
{
	sqlite3_stmt *st = NULL;
	bool first = true;

	if (!value || !value[0]) {
		fputs("-", f);
		return;
	}
	if (sqlite3_prepare_v2(db, "SELECT value FROM json_each(?1) WHERE json_valid(?1)", -1, &st,
			       NULL) != SQLITE_OK) {
		fputs(value, f);
		return;
	}
	sqlite3_bind_text(st, 1, value, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 0);

		if (!s)
			s = "";
		fputs(first ? "" : " ", f);
		if (!s[0] || strpbrk(s, " \t\n'\"\\$`*?"))
			fprintf(f, "'%s'", s); /* shown quoted; not a shell-exact quoting */
		else
			fputs(s, f);
		first = false;
	}
	if (first)
		fputs("-", f);
	sqlite3_finalize(st);
}

/* Run SQL (?1 the capture, ?2 its base time) and write its rows, built once as a table: into
 * J as an array under KEY when J, else to OUT as a text table, each line after INDENT. In
 * text, the last NOTES columns are not table columns: each that is not NULL goes under its
 * row, one line "NAME: text", so long reasons and details do not widen the table (the width
 * pass of info__print wraps them). 0, -EIO (SQLite), -ENOMEM. */
static int query_table(sqlite3 *db, const struct capture_meta *m, const char *sql, struct json *j,
		       const char *key, FILE *out, const char *indent, int notes)
{
	sqlite3_stmt *st = NULL;
	struct table *t = NULL;
	const char **names = NULL;
	size_t *shown = NULL; /* text: the table's columns, the notes left out */
	char *buf = NULL;
	size_t len = 0;
	int err = 0, rc, n, i, ncols;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->cap);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, m->base_ns);
	n = sqlite3_column_count(st);
	ncols = notes > n - 1 ? n : n - notes;
	names = calloc((size_t)n, sizeof(*names));
	shown = calloc((size_t)n, sizeof(*shown));
	if (!names || !shown) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		names[i] = sqlite3_column_name(st, i);
		shown[i] = (size_t)i;
	}
	t = table__new((size_t)n, names);
	if (!t) {
		err = -ENOMEM;
		goto cleanup;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		err = table__add_row(t);
		for (i = 0; i < n && !err; i++) {
			const char *s = (const char *)sqlite3_column_text(st, i);

			switch (sqlite3_column_type(st, i)) {
			case SQLITE_INTEGER:
				err =
				    table__set_int(t, (size_t)i, sqlite3_column_int64(st, i), NULL);
				break;
			case SQLITE_FLOAT: /* text shows SQLite's own text of it */
				err =
				    table__set_real(t, (size_t)i, sqlite3_column_double(st, i), s);
				break;
			case SQLITE_NULL:
				break;
			default:
				err = table__set_text(t, (size_t)i, s);
			}
		}
		if (err)
			goto cleanup;
	}
	if (rc != SQLITE_DONE) {
		err = -EIO;
		goto cleanup;
	}
	if (j) {
		json__key(j, key);
		table__json(t, j, NULL, 0);
	} else if (table__rows(t)) {
		FILE *mem = open_memstream(&buf, &len);
		char *line, *save = NULL;
		size_t row = 0;

		if (!mem) {
			err = -ENOMEM;
			goto cleanup;
		}
		err = table__print_cols(t, mem, OUT_TEXT, shown, (size_t)ncols);
		if (fclose(mem) && !err)
			err = -ENOMEM;
		/* the header line, then one line per row, each followed by its notes */
		for (line = strtok_r(buf, "\n", &save); !err && line;
		     line = strtok_r(NULL, "\n", &save)) {
			fprintf(out, "%s%s\n", indent, line);
			if (line == buf)
				continue;
			for (i = ncols; i < n; i++)
				if (table__value(t, row, (size_t)i))
					fprintf(out, "%s    %s: %s\n", indent, names[i],
						table__value(t, row, (size_t)i));
			row++;
		}
	} else {
		fprintf(out, "%s(none)\n", indent);
	}
cleanup:
	free(buf);
	table__free(t);
	free(shown);
	free(names);
	sqlite3_finalize(st);
	return err;
}

static const char probe_sql[] =
    "SELECT name, state, COALESCE(NULLIF(source, ''), '-') AS source, "
    "NULLIF(reason, '') AS reason, NULLIF(detail, '') AS detail FROM probe "
    "WHERE cap = ?1 ORDER BY seq";
/* probe changes (ProbeChange), time in seconds since the capture start (?2) */
static const char probe_change_sql[] =
    "SELECT printf('%.3f s', (time_ns - ?2) / 1e9) AS time, name, state, "
    "COALESCE(NULLIF(source, ''), '-') AS source, NULLIF(cause, '') AS cause, "
    "NULLIF(detail, '') AS detail, NULLIF(reason, '') AS reason FROM probe_change "
    "WHERE cap = ?1 ORDER BY seq";
static const char probe_change_json_sql[] =
    "SELECT time_ns, (time_ns - ?2) / 1e9 AS time_s, name, state, source, cause, detail, "
    "reason FROM probe_change WHERE cap = ?1 ORDER BY seq";
static const char probe_change_count_sql[] = "SELECT COUNT(*) FROM probe_change WHERE cap = ?1";
static const char records_sql[] =
    "SELECT kind, count FROM record_count WHERE cap = ?1 ORDER BY kind";
static const char notices_sql[] =
    "SELECT collector, kind, COUNT(*) AS notices, SUM(lost) AS lost FROM drop_notice "
    "WHERE cap = ?1 GROUP BY collector, kind ORDER BY collector, kind";
static const char totals_sql[] =
    "SELECT collector, kind, SUM(lost) AS lost FROM drop_total WHERE cap = ?1 "
    "GROUP BY collector, kind ORDER BY collector, kind";
static const char probe_counts_sql[] =
    "SELECT state, COUNT(*) FROM probe WHERE cap = ?1 GROUP BY state";

/* Time column NAME of C as seconds from BASE; "-" when NULL. A time so far from BASE that
 * the difference passes 2^63 ns (a corrupt DB) is printed as it is, and said so. */
static void rel_secs(FILE *f, const struct row *c, const char *name, int64_t base)
{
	char b[32];
	int64_t d;

	if (is_null(c, name))
		fputs("-", f);
	else if (__builtin_sub_overflow(i64(c, name), base, &d))
		fprintf(f, "? (%s %" PRId64 " is no time of this capture)", name, i64(c, name));
	else
		fprintf(f, "%s s", fmt_secs(b, sizeof(b), d));
}

static void text_target_exit(FILE *f, const struct row *c)
{
	if (is_null(c, "target_exited") && is_null(c, "target_term_signal")) {
		fputs("target still running (or its exit was not seen)", f);
		return;
	}
	if (!is_null(c, "target_status_known") && !i64(c, "target_status_known")) {
		fputs("target exited, status unknown (not the recorder's child)", f);
		return;
	}
	if (i64(c, "target_exited"))
		fprintf(f, "target exited with code %" PRId64, i64(c, "target_exit_code"));
	else if (i64(c, "target_term_signal"))
		fprintf(f, "target killed by signal %" PRId64 "%s", i64(c, "target_term_signal"),
			i64(c, "target_core_dumped") ? " (core dumped)" : "");
	else
		fputs("target exit status unknown", f);
}

static int info_text(sqlite3 *db, const char *cid, const char *path, const struct row *c,
		     const struct row *t, const struct capture_meta *m, FILE *f)
{
	char b1[64], b2[64], b3[64], b4[64], warn[512];
	sqlite3_stmt *st = NULL;
	int err = 0;

	fprintf(f, "capture    %s (format %" PRId64 ")\n", cid, i64(c, "format_version"));
	fprintf(f, "file       %s: ", txt_or(c, "source_path", path));
	if (m->complete)
		fprintf(f, "complete");
	else
		fprintf(f, "INCOMPLETE");
	fprintf(f, " (read %s, %" PRId64 " frames, %" PRId64 " records, %s)\n",
		txt_or(c, "read_end", "?"), i64(c, "frames"), i64(c, "records"),
		i64(c, "has_index") ? "time index present" : "no time index");
	capture_meta__warning(m, warn, sizeof(warn));
	if (warn[0])
		fprintf(f, "           %s\n", warn);
	fprintf(f, "recorder   ptop-record %s (commit %s, built %s)\n",
		txt_or(c, "recorder_version", "?"), txt_or(c, "recorder_commit", "?"),
		txt_or(c, "recorder_build_date", "?"));
	fprintf(f, "           command: ");
	text_array(db, f, txt(c, "recorder_argv"));
	fprintf(f, "\nhost       %s, Linux %s (%s), ", txt_or(c, "hostname", "?"),
		txt_or(c, "kernel_release", "?"), txt_or(c, "machine", "?"));
	if (is_null(c, "cpus"))
		fprintf(f, "? CPUs");
	else
		fprintf(f, "%" PRId64 " CPUs", i64(c, "cpus"));
	fprintf(f, ", page %" PRId64 " B, boot id %s\n", i64(c, "page_size"),
		txt_or(c, "boot_id", "-"));
	fprintf(f, "started    %s",
		is_null(c, "start_realtime_ns")
		    ? "-"
		    : fmt_wall(b1, sizeof(b1), i64(c, "start_realtime_ns")));
	fprintf(f, " (monotonic %" PRId64 " ns)\n", m->base_ns);

	fprintf(f, "target     ");
	if (!t->found) {
		fprintf(f, "(none recorded)\n");
	} else {
		fprintf(f, "%s mode, pid %" PRId64 ", comm %s\n", txt_or(t, "mode", "?"),
			i64(t, "pid"), txt_or(t, "comm", "-"));
		fprintf(f, "           exe %s (build-id %s)\n", txt_or(t, "exe", "-"),
			txt_or(t, "exe_build_id", "none"));
		fprintf(f, "           cmdline: ");
		text_array(db, f, txt(t, "cmdline"));
		fprintf(f, "\n           cgroup %s", txt_or(t, "cgroup_path", "-"));
		if (!is_null(t, "cgroup_id"))
			fprintf(f, " (id %" PRId64 ")", i64(t, "cgroup_id"));
		fprintf(f, ", container %s\n", txt_or(t, "container_id", "none"));
	}
	fprintf(f, "options    interval %s, vma interval %s, flush interval %s, duration %s,\n",
		is_null(c, "interval_ns") ? "-"
					  : fmt_ns(b1, sizeof(b1), (uint64_t)i64(c, "interval_ns")),
		is_null(c, "vma_interval_ns")
		    ? "-"
		    : fmt_ns(b2, sizeof(b2), (uint64_t)i64(c, "vma_interval_ns")),
		is_null(c, "flush_interval_ns")
		    ? "-"
		    : fmt_ns(b3, sizeof(b3), (uint64_t)i64(c, "flush_interval_ns")),
		i64(c, "duration_ns") > 0 ? fmt_ns(b4, sizeof(b4), (uint64_t)i64(c, "duration_ns"))
					  : "until the target exits or a signal");
	fprintf(f, "           eBPF %s, disabled: ", i64(c, "no_ebpf") ? "off (--no-ebpf)" : "on");
	text_array(db, f, txt(c, "disabled"));
	fputc('\n', f);

	fprintf(f, "time span  ");
	if (m->first_event_ns < 0) {
		fprintf(f, "no events\n");
	} else {
		fprintf(f, "first event ");
		rel_secs(f, c, "first_event_ns", m->base_ns);
		fprintf(f, ", last event ");
		rel_secs(f, c, "last_event_ns", m->base_ns);
		fprintf(f, ", duration %s (seconds from the start)\n",
			fmt_ns(b1, sizeof(b1),
			       (uint64_t)m->last_event_ns - (uint64_t)m->first_event_ns));
	}
	fprintf(f, "end        ");
	if (is_null(c, "end_reason")) {
		fprintf(f, "no trailer: the recording was cut short\n");
	} else {
		fprintf(f, "%s", txt(c, "end_reason"));
		if (!is_null(c, "end_time_ns")) {
			fprintf(f, " at ");
			rel_secs(f, c, "end_time_ns", m->base_ns);
		}
		if (i64(c, "end_signal"))
			fprintf(f, " (signal %" PRId64 ")", i64(c, "end_signal"));
		if (txt(c, "end_error") && txt(c, "end_error")[0])
			fprintf(f, " (error: %s)", txt(c, "end_error"));
		if (i64(c, "salvaged"))
			fprintf(f, " (salvaged copy)");
		fprintf(f, "; ");
		text_target_exit(f, c);
		fputc('\n', f);
	}

	fprintf(f, "\nprobes");
	if (sqlite3_prepare_v2(db, probe_counts_sql, -1, &st, NULL) == SQLITE_OK) {
		bool first = true;

		sqlite3_bind_int64(st, 1, m->cap);
		while (sqlite3_step(st) == SQLITE_ROW) {
			fprintf(f, "%s%" PRId64 " %s", first ? " (" : ", ",
				(int64_t)sqlite3_column_int64(st, 1), sqlite3_column_text(st, 0));
			first = false;
		}
		if (!first)
			fputc(')', f);
	}
	sqlite3_finalize(st);
	st = NULL;
	fprintf(f, ":\n");
	err = query_table(db, m, probe_sql, NULL, NULL, f, "  ", 2);
	if (!err && sqlite3_prepare_v2(db, probe_change_count_sql, -1, &st, NULL) != SQLITE_OK)
		err = -EIO;
	if (!err) {
		sqlite3_bind_int64(st, 1, m->cap);
		if (sqlite3_step(st) != SQLITE_ROW) {
			err = -EIO;
		} else if (sqlite3_column_int64(st, 0) > 0) { /* a section only when there are */
			fprintf(f, "\nprobe changes:\n");
			err = query_table(db, m, probe_change_sql, NULL, NULL, f, "  ", 3);
		}
	}
	sqlite3_finalize(st);
	fprintf(f, "\nrecords by type:\n");
	err = err ?: query_table(db, m, records_sql, NULL, NULL, f, "  ", 0);
	fprintf(f, "\ndrops reported during the recording (drop notices):\n");
	err = err ?: query_table(db, m, notices_sql, NULL, NULL, f, "  ", 0);
	fprintf(f, "\ndrops in the trailer (totals at the end):\n");
	if (is_null(c, "end_reason"))
		fprintf(f, "  (no trailer)\n");
	else
		err = err ?: query_table(db, m, totals_sql, NULL, NULL, f, "  ", 0);
	return err;
}

static int info_json(sqlite3 *db, const char *cid, const struct row *c, const struct row *t,
		     const struct capture_meta *m, FILE *f)
{
	char b[64], warn[512];
	struct json j;
	int err = 0;

	json__init(&j, f, true);
	json__begin_object(&j);
	json__kv_string(&j, "capture_id", cid);
	jcol(&j, "format_version", c, "format_version");

	json__key(&j, "file");
	json__begin_object(&j);
	jcol(&j, "path", c, "source_path");
	jcol(&j, "size", c, "source_size");
	json__kv_bool(&j, "complete", m->complete);
	jcol(&j, "read_end", c, "read_end");
	jcol(&j, "stopped_at_byte", c, "read_stopped_at");
	jcol(&j, "read_message", c, "read_message");
	capture_meta__warning(m, warn, sizeof(warn));
	json__kv_string(&j, "warning", warn[0] ? warn : NULL);
	jbool(&j, "has_index", c, "has_index");
	jcol(&j, "frames", c, "frames");
	jcol(&j, "records", c, "records");
	json__end_object(&j);

	json__key(&j, "recorder");
	json__begin_object(&j);
	jcol(&j, "version", c, "recorder_version");
	jcol(&j, "commit", c, "recorder_commit");
	jcol(&j, "build_date", c, "recorder_build_date");
	jarray(db, &j, "argv", txt(c, "recorder_argv"));
	json__end_object(&j);

	json__key(&j, "host");
	json__begin_object(&j);
	jcol(&j, "hostname", c, "hostname");
	jcol(&j, "kernel_release", c, "kernel_release");
	jcol(&j, "kernel_version", c, "kernel_version");
	jcol(&j, "machine", c, "machine");
	jcol(&j, "boot_id", c, "boot_id");
	jcol(&j, "cpus", c, "cpus");
	jcol(&j, "page_size", c, "page_size");
	jcol(&j, "clock_tick", c, "clock_tick");
	json__end_object(&j);

	json__key(&j, "start");
	json__begin_object(&j);
	jcol(&j, "monotonic_ns", c, "start_monotonic_ns");
	jcol(&j, "realtime_ns", c, "start_realtime_ns");
	jcol(&j, "boottime_ns", c, "start_boottime_ns");
	json__kv_string(&j, "wall_time",
			is_null(c, "start_realtime_ns")
			    ? NULL
			    : fmt_wall(b, sizeof(b), i64(c, "start_realtime_ns")));
	json__end_object(&j);

	json__key(&j, "target");
	if (!t->found) {
		json__null(&j);
	} else {
		json__begin_object(&j);
		jcol(&j, "mode", t, "mode");
		jcol(&j, "pid", t, "pid");
		jcol(&j, "comm", t, "comm");
		jcol(&j, "exe", t, "exe");
		jcol(&j, "exe_build_id", t, "exe_build_id");
		jarray(db, &j, "cmdline", txt(t, "cmdline"));
		jcol(&j, "cgroup_path", t, "cgroup_path");
		jcol(&j, "cgroup_id", t, "cgroup_id");
		jcol(&j, "container_id", t, "container_id");
		json__end_object(&j);
	}

	json__key(&j, "options");
	json__begin_object(&j);
	jcol(&j, "interval_ns", c, "interval_ns");
	jcol(&j, "vma_interval_ns", c, "vma_interval_ns");
	jcol(&j, "flush_interval_ns", c, "flush_interval_ns");
	jcol(&j, "duration_ns", c, "duration_ns");
	jbool(&j, "no_ebpf", c, "no_ebpf");
	jarray(db, &j, "disabled", txt(c, "disabled"));
	json__end_object(&j);

	err = query_table(db, m, probe_sql, &j, "probes", f, NULL, 0);
	err = err ?: query_table(db, m, probe_change_json_sql, &j, "probe_changes", f, NULL, 0);

	json__key(&j, "time_span");
	json__begin_object(&j);
	jcol(&j, "first_event_ns", c, "first_event_ns");
	jcol(&j, "last_event_ns", c, "last_event_ns");
	if (m->first_event_ns >= 0) {
		int64_t d;

		/* in double: a corrupt DB's times may be 2^63 apart */
		json__kv_real(&j, "first_s",
			      ((double)m->first_event_ns - (double)m->base_ns) / 1e9);
		json__kv_real(&j, "last_s", ((double)m->last_event_ns - (double)m->base_ns) / 1e9);
		if (__builtin_sub_overflow(m->last_event_ns, m->first_event_ns, &d))
			json__kv_null(&j, "duration_ns");
		else
			json__kv_int(&j, "duration_ns", d);
	} else {
		json__kv_null(&j, "first_s");
		json__kv_null(&j, "last_s");
		json__kv_null(&j, "duration_ns");
	}
	json__end_object(&j);

	err = err ?: query_table(db, m, records_sql, &j, "records", f, NULL, 0);

	json__key(&j, "drops");
	json__begin_object(&j);
	err = err ?: query_table(db, m, notices_sql, &j, "notices", f, NULL, 0);
	if (is_null(c, "end_reason"))
		json__kv_null(&j, "trailer");
	else
		err = err ?: query_table(db, m, totals_sql, &j, "trailer", f, NULL, 0);
	json__end_object(&j);

	json__key(&j, "end");
	if (is_null(c, "end_reason")) {
		json__null(&j);
	} else {
		json__begin_object(&j);
		jcol(&j, "reason", c, "end_reason");
		jcol(&j, "time_ns", c, "end_time_ns");
		jcol(&j, "signal", c, "end_signal");
		jcol(&j, "error", c, "end_error");
		jbool(&j, "salvaged", c, "salvaged");
		json__key(&j, "target_exit");
		if (is_null(c, "target_exited") && is_null(c, "target_term_signal")) {
			json__null(&j);
		} else {
			json__begin_object(&j);
			jbool(&j, "exited", c, "target_exited");
			jcol(&j, "exit_code", c, "target_exit_code");
			jcol(&j, "term_signal", c, "target_term_signal");
			jbool(&j, "core_dumped", c, "target_core_dumped");
			jbool(&j, "status_known", c, "target_status_known");
			json__end_object(&j);
		}
		json__end_object(&j);
	}
	json__end_object(&j);
	return err ?: json__end(&j);
}

/* Where a line of LEN bytes at S, too long, continues: under its value. A note ("    reason:
 * text") continues under its text, a labelled line ("host       vm, ...") under the value
 * after the label's spaces, any other line two columns in from its indentation. */
static size_t hanging_indent(const char *s, size_t len)
{
	size_t lead = 0, i;

	while (lead < len && s[lead] == ' ')
		lead++;
	if (!lead) { /* "label   value", the label maybe of two words ("time span") */
		for (i = 0; i + 1 < len && i < 16; i++)
			if (s[i] == ' ' && s[i + 1] == ' ') {
				while (i < len && s[i] == ' ')
					i++;
				return i;
			}
		return 2;
	}
	for (i = lead; i + 1 < len && s[i] != ' '; i++)
		if (s[i] == ':' && s[i + 1] == ' ')
			return i + 2; /* "name: text" */
	return lead + 2;
}

/* Write BUF to OUT with every line longer than WIDTH columns broken at spaces (a word
 * longer than the room is cut, never between the bytes of one UTF-8 character) and
 * continued at its hanging indent. */
static void print_wrapped(FILE *out, const char *buf, size_t width)
{
	const char *line = buf, *nl;

	for (; *line; line = *nl ? nl + 1 : nl) {
		size_t len, hang, room, cut, pad = 0;

		nl = strchrnul(line, '\n');
		len = (size_t)(nl - line);
		hang = hanging_indent(line, len);
		if (hang + 20 > width)
			hang = width > 24 ? 4 : 0;
		while (pad + len > width) {
			room = width - pad;
			for (cut = room; cut > 0 && line[cut] != ' '; cut--)
				;
			if (cut <= (pad ? 0 : hang)) { /* no space to break at: cut the word */
				cut = room;
				while (cut > 1 && ((unsigned char)line[cut] & 0xc0) == 0x80)
					cut--;
			}
			fprintf(out, "%*s%.*s\n", (int)pad, "", (int)cut, line);
			while (cut < len && line[cut] == ' ')
				cut++;
			line += cut;
			len -= cut;
			pad = hang;
		}
		fprintf(out, "%*s%.*s\n", (int)pad, "", (int)len, line);
	}
}

int info__print(sqlite3 *db, const char *capture_id, const char *path, bool json, int width,
		FILE *out)
{
	struct row c = {0}, t = {0};
	struct capture_meta m;
	char *buf = NULL;
	size_t len = 0;
	FILE *text = NULL;
	int err;

	err = capture_meta__load(db, capture_id, &m);
	err = err ?: row_open(db, &c, "SELECT * FROM capture WHERE cap = ?1", m.cap);
	err = err ?: row_open(db, &t, "SELECT * FROM target WHERE cap = ?1", m.cap);
	if (!err && !c.found)
		err = -ENOENT;
	if (!err && !json && width > 0) { /* the text, then the width pass */
		text = open_memstream(&buf, &len);
		if (!text)
			err = -ENOMEM;
		err = err ?: info_text(db, capture_id, path, &c, &t, &m, text);
		if (text && fclose(text) && !err)
			err = -ENOMEM;
		if (!err)
			print_wrapped(out, buf, (size_t)width);
		free(buf);
	} else if (!err) {
		err = json ? info_json(db, capture_id, &c, &t, &m, out)
			   : info_text(db, capture_id, path, &c, &t, &m, out);
	}
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
	sqlite3_finalize(c.st);
	sqlite3_finalize(t.st);
	return err;
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"capture", required_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	enum out_format fmt = OUT_TEXT;
	const char *capture_opt = NULL, *path;
	char cid[DB_CAPTURE_ID_LEN];
	sqlite3 *db = NULL;
	int ch, rc, err;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			if (out_format__parse(optarg, &fmt) || fmt == OUT_CSV)
				return analyze_usage(
				    "info", "--format takes text or json, not '%s'", optarg);
			break;
		case 'c':
			capture_opt = optarg;
			break;
		case 'h':
			analyze_cmd_help("info", stdout);
			return ANALYZE_EXIT_OK;
		case ':':
			return analyze_usage("info", "%s needs a value", argv[optind - 1]);
		default:
			return analyze_usage("info", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return analyze_usage("info", argc == optind ? "which FILE?" : "one FILE at a time");
	path = argv[optind];
	rc = analyze_open_input("info", path, capture_opt, &db, cid);
	if (rc)
		return rc;
	err = info__print(db, cid, path, fmt == OUT_JSON, out_width(stdout), stdout);
	rc = ANALYZE_EXIT_OK;
	if (err == -ENOENT) {
		fprintf(stderr, "ptop-analyze info: %s has no capture %s\n", path, cid);
		rc = ANALYZE_EXIT_USAGE;
	} else if (err) {
		fprintf(stderr, "ptop-analyze info: reading %s: %s\n", path,
			err == -EIO && sqlite3_errcode(db) != SQLITE_OK ? sqlite3_errmsg(db)
									: strerror(-err));
		rc = ANALYZE_EXIT_INTERNAL;
	}
	sqlite3_close(db);
	return rc;
}
