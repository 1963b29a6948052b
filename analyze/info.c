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

/* ------------------------------------------------------------------ the capture's figures */

/* Every figure info shows of the capture, one cell each in a one-row table built once
 * (info_row): JSON writes them by their key, section by section (the *_json lists), the
 * text reads the same cells into its lines. */
enum info_col {
	/* top */
	I_CAPTURE_ID,
	I_FORMAT,
	/* file */
	I_PATH,
	I_SIZE,
	I_COMPLETE,
	I_READ_END,
	I_STOPPED,
	I_READ_MESSAGE,
	I_WARNING,
	I_HAS_INDEX, /* text: "time index present", "no time index" */
	I_FRAMES,
	I_RECORDS,
	/* recorder */
	I_VERSION,
	I_COMMIT,
	I_BUILD_DATE,
	I_ARGV, /* text: the words joined */
	/* host */
	I_HOSTNAME,
	I_KERNEL_RELEASE,
	I_KERNEL_VERSION,
	I_MACHINE,
	I_BOOT_ID,
	I_CPUS,
	I_PAGE_SIZE,
	I_CLOCK_TICK,
	/* start */
	I_START_MONO,
	I_START_REAL,
	I_START_BOOT,
	I_WALL,
	/* target */
	I_MODE,
	I_PID,
	I_COMM,
	I_EXE,
	I_EXE_BUILD_ID,
	I_CMDLINE, /* text: the words joined */
	I_CGROUP_PATH,
	I_CGROUP_ID,
	I_CONTAINER_ID,
	/* options; text: durations, "-" when not set */
	I_INTERVAL,
	I_VMA_INTERVAL,
	I_FLUSH_INTERVAL,
	I_DURATION, /* text: "until the target exits or a signal" when not set */
	I_NO_EBPF,  /* text: "off (--no-ebpf)", "on" */
	I_DISABLED, /* text: the words joined */
	I_USER_STACKS, /* --user-stacks: fp, dwarf, auto; text: "-" before the option */
	/* time span; text: seconds from the start */
	I_FIRST_EVENT,
	I_LAST_EVENT,
	I_FIRST_S,
	I_LAST_S,
	I_SPAN_NS, /* text: the span as a duration */
	/* end */
	I_END_REASON,
	I_END_TIME, /* text: seconds from the start */
	I_END_SIGNAL,
	I_END_ERROR,
	I_SALVAGED,
	/* end: the target's exit */
	I_EXITED,
	I_EXIT_CODE,
	I_TERM_SIGNAL,
	I_CORE_DUMPED,
	I_STATUS_KNOWN,
	I_N,
};

/* How a cell is read from its SQL column: as it is (of the column's SQLite type), as a
 * boolean, as a JSON array of words; DERIVED cells are computed by info_row. */
enum info_src { SRC_COL, SRC_BOOL, SRC_ARRAY, SRC_DERIVED };

static const struct {
	const char *key;    /* its JSON key */
	enum info_src src;  /* how it is read */
	bool target;	    /* from the target row, not the capture row */
	const char *column; /* its SQL column */
} info_cols[I_N] = {
    [I_CAPTURE_ID] = {"capture_id", SRC_DERIVED},
    [I_FORMAT] = {"format_version", SRC_COL, false, "format_version"},
    [I_PATH] = {"path", SRC_COL, false, "source_path"},
    [I_SIZE] = {"size", SRC_COL, false, "source_size"},
    [I_COMPLETE] = {"complete", SRC_DERIVED},
    [I_READ_END] = {"read_end", SRC_COL, false, "read_end"},
    [I_STOPPED] = {"stopped_at_byte", SRC_COL, false, "read_stopped_at"},
    [I_READ_MESSAGE] = {"read_message", SRC_COL, false, "read_message"},
    [I_WARNING] = {"warning", SRC_DERIVED},
    [I_HAS_INDEX] = {"has_index", SRC_BOOL, false, "has_index"},
    [I_FRAMES] = {"frames", SRC_COL, false, "frames"},
    [I_RECORDS] = {"records", SRC_COL, false, "records"},
    [I_VERSION] = {"version", SRC_COL, false, "recorder_version"},
    [I_COMMIT] = {"commit", SRC_COL, false, "recorder_commit"},
    [I_BUILD_DATE] = {"build_date", SRC_COL, false, "recorder_build_date"},
    [I_ARGV] = {"argv", SRC_ARRAY, false, "recorder_argv"},
    [I_HOSTNAME] = {"hostname", SRC_COL, false, "hostname"},
    [I_KERNEL_RELEASE] = {"kernel_release", SRC_COL, false, "kernel_release"},
    [I_KERNEL_VERSION] = {"kernel_version", SRC_COL, false, "kernel_version"},
    [I_MACHINE] = {"machine", SRC_COL, false, "machine"},
    [I_BOOT_ID] = {"boot_id", SRC_COL, false, "boot_id"},
    [I_CPUS] = {"cpus", SRC_COL, false, "cpus"},
    [I_PAGE_SIZE] = {"page_size", SRC_COL, false, "page_size"},
    [I_CLOCK_TICK] = {"clock_tick", SRC_COL, false, "clock_tick"},
    [I_START_MONO] = {"monotonic_ns", SRC_COL, false, "start_monotonic_ns"},
    [I_START_REAL] = {"realtime_ns", SRC_COL, false, "start_realtime_ns"},
    [I_START_BOOT] = {"boottime_ns", SRC_COL, false, "start_boottime_ns"},
    [I_WALL] = {"wall_time", SRC_DERIVED},
    [I_MODE] = {"mode", SRC_COL, true, "mode"},
    [I_PID] = {"pid", SRC_COL, true, "pid"},
    [I_COMM] = {"comm", SRC_COL, true, "comm"},
    [I_EXE] = {"exe", SRC_COL, true, "exe"},
    [I_EXE_BUILD_ID] = {"exe_build_id", SRC_COL, true, "exe_build_id"},
    [I_CMDLINE] = {"cmdline", SRC_ARRAY, true, "cmdline"},
    [I_CGROUP_PATH] = {"cgroup_path", SRC_COL, true, "cgroup_path"},
    [I_CGROUP_ID] = {"cgroup_id", SRC_COL, true, "cgroup_id"},
    [I_CONTAINER_ID] = {"container_id", SRC_COL, true, "container_id"},
    [I_INTERVAL] = {"interval_ns", SRC_COL, false, "interval_ns"},
    [I_VMA_INTERVAL] = {"vma_interval_ns", SRC_COL, false, "vma_interval_ns"},
    [I_FLUSH_INTERVAL] = {"flush_interval_ns", SRC_COL, false, "flush_interval_ns"},
    [I_DURATION] = {"duration_ns", SRC_COL, false, "duration_ns"},
    [I_NO_EBPF] = {"no_ebpf", SRC_BOOL, false, "no_ebpf"},
    [I_DISABLED] = {"disabled", SRC_ARRAY, false, "disabled"},
    [I_USER_STACKS] = {"user_stacks", SRC_COL, false, "user_stacks"},
    [I_FIRST_EVENT] = {"first_event_ns", SRC_COL, false, "first_event_ns"},
    [I_LAST_EVENT] = {"last_event_ns", SRC_COL, false, "last_event_ns"},
    [I_FIRST_S] = {"first_s", SRC_DERIVED},
    [I_LAST_S] = {"last_s", SRC_DERIVED},
    [I_SPAN_NS] = {"duration_ns", SRC_DERIVED},
    [I_END_REASON] = {"reason", SRC_COL, false, "end_reason"},
    [I_END_TIME] = {"time_ns", SRC_COL, false, "end_time_ns"},
    [I_END_SIGNAL] = {"signal", SRC_COL, false, "end_signal"},
    [I_END_ERROR] = {"error", SRC_COL, false, "end_error"},
    [I_SALVAGED] = {"salvaged", SRC_BOOL, false, "salvaged"},
    [I_EXITED] = {"exited", SRC_BOOL, false, "target_exited"},
    [I_EXIT_CODE] = {"exit_code", SRC_COL, false, "target_exit_code"},
    [I_TERM_SIGNAL] = {"term_signal", SRC_COL, false, "target_term_signal"},
    [I_CORE_DUMPED] = {"core_dumped", SRC_BOOL, false, "target_core_dumped"},
    [I_STATUS_KNOWN] = {"status_known", SRC_BOOL, false, "target_status_known"},
};

/* The JSON sections: their cells in order. */
static const size_t file_json[] = {I_PATH,	   I_SIZE,    I_COMPLETE,  I_READ_END, I_STOPPED,
				   I_READ_MESSAGE, I_WARNING, I_HAS_INDEX, I_FRAMES,   I_RECORDS};
static const size_t recorder_json[] = {I_VERSION, I_COMMIT, I_BUILD_DATE, I_ARGV};
static const size_t host_json[] = {I_HOSTNAME, I_KERNEL_RELEASE, I_KERNEL_VERSION, I_MACHINE,
				   I_BOOT_ID,  I_CPUS,		 I_PAGE_SIZE,	   I_CLOCK_TICK};
static const size_t start_json[] = {I_START_MONO, I_START_REAL, I_START_BOOT, I_WALL};
static const size_t target_json[] = {I_MODE,	    I_PID,	    I_COMM,
				     I_EXE,	    I_EXE_BUILD_ID, I_CMDLINE,
				     I_CGROUP_PATH, I_CGROUP_ID,    I_CONTAINER_ID};
static const size_t options_json[] = {I_INTERVAL, I_VMA_INTERVAL, I_FLUSH_INTERVAL,
				      I_DURATION, I_NO_EBPF,	  I_DISABLED, I_USER_STACKS};
static const size_t span_json[] = {I_FIRST_EVENT, I_LAST_EVENT, I_FIRST_S, I_LAST_S, I_SPAN_NS};
static const size_t end_json[] = {I_END_REASON, I_END_TIME, I_END_SIGNAL, I_END_ERROR, I_SALVAGED};
static const size_t exit_json[] = {I_EXITED, I_EXIT_CODE, I_TERM_SIGNAL, I_CORE_DUMPED,
				   I_STATUS_KNOWN};
#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

/* The cell's value as text: NULL when not set. */
static const char *cv(const struct table *t, size_t col)
{
	return table__value(t, 0, col);
}

static bool cnull(const struct table *t, size_t col)
{
	return table__type(t, 0, col) == CELL_NULL;
}

/* The cell as an integer, 0 when not set (a boolean: 1 or 0). */
static int64_t ci(const struct table *t, size_t col)
{
	const char *v = cv(t, col);

	if (!v)
		return 0;
	if (table__type(t, 0, col) == CELL_BOOL)
		return !strcmp(v, "true");
	if (table__type(t, 0, col) == CELL_REAL) {
		double d = strtod(v, NULL);

		/* a REAL where an integer belongs (a DB written by hand): saturated, as the
		 * conversion of a value outside int64_t is undefined */
		if (!(d == d))
			return 0;
		if (d >= 9223372036854775807.0)
			return INT64_MAX;
		if (d <= -9223372036854775808.0)
			return INT64_MIN;
		return (int64_t)d;
	}
	return strtoll(v, NULL, 10);
}

/* What text shows for the cell; DFLT when it is not set or empty. */
static const char *cs(const struct table *t, size_t col, const char *dflt)
{
	const char *v = cv(t, col);

	return v && v[0] ? table__shown(t, 0, col) : dflt;
}

/* Column NAME of R, or -1 (no row, no such column). */
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

/* A column holding a JSON array of words, as JSON (validated by SQLite; else the text as a
 * string), shown in text joined with spaces, a word quoted when it holds a space or a
 * quote. */
static int set_array(sqlite3 *db, struct table *t, size_t c, const char *value)
{
	sqlite3_stmt *st = NULL;
	char *shown = NULL;
	size_t len = 0;
	bool first = true;
	FILE *f;
	int err = 0;

	if (!value)
		return table__set_display(t, c, "-");
	if (sqlite3_prepare_v2(db, "SELECT json(?1) WHERE json_valid(?1)", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, value, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			err = table__set_json(t, c, (const char *)sqlite3_column_text(st, 0), NULL);
		else
			err = table__set_text(t, c, value);
	} else {
		err = table__set_text(t, c, value);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (err)
		return err;
	if (!value[0])
		return table__set_display(t, c, "-");
	if (sqlite3_prepare_v2(db, "SELECT value FROM json_each(?1) WHERE json_valid(?1)", -1, &st,
			       NULL) != SQLITE_OK)
		return table__set_display(t, c, value);
	f = open_memstream(&shown, &len);
	if (!f) {
		sqlite3_finalize(st);
		return -ENOMEM;
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
	if (fclose(f) || !shown) {
		free(shown);
		return -ENOMEM;
	}
	err = table__set_display(t, c, shown);
	free(shown);
	return err;
}

/* Copy cell C from its SQL column in R: of the column's SQLite type (a real shown in text
 * as SQLite writes it), or as a boolean. */
static int set_col(sqlite3 *db, struct table *t, size_t c, const struct row *r)
{
	int i = col(r, info_cols[c].column);
	const char *s;

	if (i < 0 || sqlite3_column_type(r->st, i) == SQLITE_NULL)
		return 0;
	s = (const char *)sqlite3_column_text(r->st, i);
	switch (info_cols[c].src) {
	case SRC_BOOL:
		return table__set_bool(t, c, sqlite3_column_int64(r->st, i) != 0, NULL);
	case SRC_ARRAY:
		return set_array(db, t, c, s);
	default:
		break;
	}
	switch (sqlite3_column_type(r->st, i)) {
	case SQLITE_INTEGER:
		return table__set_int(t, c, sqlite3_column_int64(r->st, i), NULL);
	case SQLITE_FLOAT:
		return table__set_real(t, c, sqlite3_column_double(r->st, i), s);
	default:
		return table__set_text(t, c, s);
	}
}

/* Time cell COL as seconds from BASE; "-" when not set. A time so far from BASE that the
 * difference passes 2^63 ns (a corrupt DB) is shown as it is, and said so. */
static int show_rel_secs(struct table *t, size_t col, int64_t base)
{
	char b[32], text[128];
	int64_t d;

	if (cnull(t, col))
		return table__set_display(t, col, "-");
	if (__builtin_sub_overflow(ci(t, col), base, &d)) {
		snprintf(text, sizeof(text), "? (%s %" PRId64 " is no time of this capture)",
			 info_cols[col].column, ci(t, col));
		return table__set_display(t, col, text);
	}
	snprintf(text, sizeof(text), "%s s", fmt_secs(b, sizeof(b), d));
	return table__set_display(t, col, text);
}

/* Duration cell COL shown as a duration, or NONE when not set. */
static int show_ns(struct table *t, size_t col, const char *none)
{
	char b[64];

	return table__set_display(
	    t, col, cnull(t, col) ? none : fmt_ns(b, sizeof(b), (uint64_t)ci(t, col)));
}

/* Build *OUT, the one row of the capture's figures, from its capture row C, its target row T
 * and its meta M. Free with table__free. 0 or -ENOMEM. */
static int info_row(sqlite3 *db, const char *cid, const struct row *c, const struct row *t,
		    const struct capture_meta *m, struct table **out)
{
	const char *names[I_N];
	char b[512];
	struct table *r;
	int64_t d;
	int err = 0;

	for (size_t k = 0; k < I_N; k++)
		names[k] = info_cols[k].key;
	r = table__new(I_N, names);
	if (!r)
		return -ENOMEM;
	err = table__add_row(r);
	for (size_t k = 0; k < I_N && !err; k++)
		if (info_cols[k].src != SRC_DERIVED)
			err = set_col(db, r, k, info_cols[k].target ? t : c);
	err = err ?: table__set_text(r, I_CAPTURE_ID, cid);
	err = err
		  ?: table__set_bool(r, I_COMPLETE, m->complete,
				     m->complete ? "complete" : "INCOMPLETE");
	capture_meta__warning(m, b, sizeof(b));
	if (b[0])
		err = err ?: table__set_text(r, I_WARNING, b);
	err =
	    err
		?: table__set_display(r, I_HAS_INDEX,
				      ci(r, I_HAS_INDEX) ? "time index present" : "no time index");
	if (!cnull(r, I_START_REAL))
		err =
		    err ?: table__set_text(r, I_WALL, fmt_wall(b, sizeof(b), ci(r, I_START_REAL)));
	err = err ?: show_ns(r, I_INTERVAL, "-");
	err = err ?: show_ns(r, I_VMA_INTERVAL, "-");
	err = err ?: show_ns(r, I_FLUSH_INTERVAL, "-");
	err = err
		  ?: table__set_display(r, I_DURATION,
					ci(r, I_DURATION) > 0
					    ? fmt_ns(b, sizeof(b), (uint64_t)ci(r, I_DURATION))
					    : "until the target exits or a signal");
	err = err ?: table__set_display(r, I_NO_EBPF, ci(r, I_NO_EBPF) ? "off (--no-ebpf)" : "on");
	err = err ?: show_rel_secs(r, I_FIRST_EVENT, m->base_ns);
	err = err ?: show_rel_secs(r, I_LAST_EVENT, m->base_ns);
	err = err ?: show_rel_secs(r, I_END_TIME, m->base_ns);
	if (m->first_event_ns >= 0) {
		/* in double: a corrupt DB's times may be 2^63 apart */
		err = err
			  ?: table__set_real(r, I_FIRST_S,
					     ((double)m->first_event_ns - (double)m->base_ns) / 1e9,
					     NULL);
		err = err
			  ?: table__set_real(r, I_LAST_S,
					     ((double)m->last_event_ns - (double)m->base_ns) / 1e9,
					     NULL);
		if (!__builtin_sub_overflow(m->last_event_ns, m->first_event_ns, &d))
			err = err ?: table__set_int(r, I_SPAN_NS, d, NULL);
		err = err
			  ?: table__set_display(
				 r, I_SPAN_NS,
				 fmt_ns(b, sizeof(b),
					(uint64_t)m->last_event_ns - (uint64_t)m->first_event_ns));
	}
	if (err) {
		table__free(r);
		return err;
	}
	*out = r;
	return 0;
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
/* the collectors' lanes (ProbeLane): which ran, why the others did not */
static const char probe_lane_sql[] =
    "SELECT probe, lane, state, COALESCE(NULLIF(source, ''), '-') AS source, "
    "COALESCE(NULLIF(instead, ''), '-') AS instead, "
    "NULLIF(reason, '') AS reason FROM probe_lane l WHERE cap = ?1 ORDER BY "
    "(SELECT seq FROM probe p WHERE p.cap = l.cap AND p.name = l.probe), seq";
static const char probe_lane_count_sql[] = "SELECT COUNT(*) FROM probe_lane WHERE cap = ?1";
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

static void text_target_exit(FILE *f, const struct table *r)
{
	if (cnull(r, I_EXITED) && cnull(r, I_TERM_SIGNAL)) {
		fputs("target still running (or its exit was not seen)", f);
		return;
	}
	if (!cnull(r, I_STATUS_KNOWN) && !ci(r, I_STATUS_KNOWN)) {
		fputs("target exited, status unknown (not the recorder's child)", f);
		return;
	}
	if (ci(r, I_EXITED))
		fprintf(f, "target exited with code %" PRId64, ci(r, I_EXIT_CODE));
	else if (ci(r, I_TERM_SIGNAL))
		fprintf(f, "target killed by signal %" PRId64 "%s", ci(r, I_TERM_SIGNAL),
			ci(r, I_CORE_DUMPED) ? " (core dumped)" : "");
	else
		fputs("target exit status unknown", f);
}

#define SHOWN(col) table__shown(r, 0, col)

/* What the loader skipped (drop_notice kinds LOAD_SKIP_*), under the file line: records
 * that do not decode, and rows whose values no recorder writes; nothing when none. */
static int text_skipped(sqlite3 *db, const struct capture_meta *m, FILE *f)
{
	static const char sql[] =
	    "SELECT kind, SUM(lost), group_concat(DISTINCT collector) FROM drop_notice "
	    "WHERE cap = ?1 AND kind IN ('" LOAD_SKIP_UNDECODABLE "', '" LOAD_SKIP_INVALID "') "
	    "GROUP BY kind ORDER BY kind DESC";
	sqlite3_stmt *s = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(s, 1, m->cap);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t n = sqlite3_column_int64(s, 1);
		bool undecodable =
		    !strcmp((const char *)sqlite3_column_text(s, 0), LOAD_SKIP_UNDECODABLE);

		fprintf(f, "           %" PRId64 " %s skipped at load (%s): %s; see the drops\n", n,
			undecodable ? (n == 1 ? "record" : "records") : (n == 1 ? "row" : "rows"),
			(const char *)sqlite3_column_text(s, 2),
			undecodable ? "not decodable, counted as lost events"
				    : "values no recorder writes");
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

static int info_text(sqlite3 *db, const char *path, const struct table *r, const struct row *t,
		     const struct capture_meta *m, FILE *f)
{
	sqlite3_stmt *st = NULL;
	int err = 0;

	fprintf(f, "capture    %s (format %" PRId64 ")\n", cv(r, I_CAPTURE_ID), ci(r, I_FORMAT));
	fprintf(f, "file       %s: %s", cs(r, I_PATH, path), SHOWN(I_COMPLETE));
	fprintf(f, " (read %s, %" PRId64 " frames, %" PRId64 " records, %s)\n",
		cs(r, I_READ_END, "?"), ci(r, I_FRAMES), ci(r, I_RECORDS), SHOWN(I_HAS_INDEX));
	if (cv(r, I_WARNING))
		fprintf(f, "           %s\n", cv(r, I_WARNING));
	err = text_skipped(db, m, f);
	if (err)
		return err;
	fprintf(f, "recorder   ptop-record %s (commit %s, built %s)\n", cs(r, I_VERSION, "?"),
		cs(r, I_COMMIT, "?"), cs(r, I_BUILD_DATE, "?"));
	fprintf(f, "           command: %s", SHOWN(I_ARGV));
	fprintf(f, "\nhost       %s, Linux %s (%s), ", cs(r, I_HOSTNAME, "?"),
		cs(r, I_KERNEL_RELEASE, "?"), cs(r, I_MACHINE, "?"));
	if (cnull(r, I_CPUS))
		fprintf(f, "? CPUs");
	else
		fprintf(f, "%" PRId64 " CPUs", ci(r, I_CPUS));
	fprintf(f, ", page %" PRId64 " B, boot id %s\n", ci(r, I_PAGE_SIZE), cs(r, I_BOOT_ID, "-"));
	fprintf(f, "started    %s", cs(r, I_WALL, "-"));
	fprintf(f, " (monotonic %" PRId64 " ns)\n", m->base_ns);

	fprintf(f, "target     ");
	if (!t->found) {
		fprintf(f, "(none recorded)\n");
	} else {
		fprintf(f, "%s mode, pid %" PRId64 ", comm %s\n", cs(r, I_MODE, "?"), ci(r, I_PID),
			cs(r, I_COMM, "-"));
		fprintf(f, "           exe %s (build-id %s)\n", cs(r, I_EXE, "-"),
			cs(r, I_EXE_BUILD_ID, "none"));
		fprintf(f, "           cmdline: %s", SHOWN(I_CMDLINE));
		fprintf(f, "\n           cgroup %s", cs(r, I_CGROUP_PATH, "-"));
		if (!cnull(r, I_CGROUP_ID))
			fprintf(f, " (id %" PRId64 ")", ci(r, I_CGROUP_ID));
		fprintf(f, ", container %s\n", cs(r, I_CONTAINER_ID, "none"));
	}
	fprintf(f, "options    interval %s, vma interval %s, flush interval %s, duration %s,\n",
		SHOWN(I_INTERVAL), SHOWN(I_VMA_INTERVAL), SHOWN(I_FLUSH_INTERVAL),
		SHOWN(I_DURATION));
	fprintf(f, "           eBPF %s, disabled: %s, user stacks: %s\n", SHOWN(I_NO_EBPF),
		SHOWN(I_DISABLED), SHOWN(I_USER_STACKS));

	fprintf(f, "time span  ");
	if (m->first_event_ns < 0)
		fprintf(f, "no events\n");
	else
		fprintf(f,
			"first event %s, last event %s, duration %s (seconds from the "
			"start)\n",
			SHOWN(I_FIRST_EVENT), SHOWN(I_LAST_EVENT), SHOWN(I_SPAN_NS));
	fprintf(f, "end        ");
	if (cnull(r, I_END_REASON)) {
		fprintf(f, "no trailer: the recording was cut short\n");
	} else {
		fprintf(f, "%s", cv(r, I_END_REASON));
		if (!cnull(r, I_END_TIME))
			fprintf(f, " at %s", SHOWN(I_END_TIME));
		if (ci(r, I_END_SIGNAL))
			fprintf(f, " (signal %" PRId64 ")", ci(r, I_END_SIGNAL));
		if (cv(r, I_END_ERROR) && cv(r, I_END_ERROR)[0])
			fprintf(f, " (error: %s)", cv(r, I_END_ERROR));
		if (ci(r, I_SALVAGED))
			fprintf(f, " (salvaged copy)");
		fprintf(f, "; ");
		text_target_exit(f, r);
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
	if (!err && sqlite3_prepare_v2(db, probe_lane_count_sql, -1, &st, NULL) != SQLITE_OK)
		err = -EIO;
	if (!err) {
		sqlite3_bind_int64(st, 1, m->cap);
		if (sqlite3_step(st) != SQLITE_ROW) {
			err = -EIO;
		} else if (sqlite3_column_int64(st, 0) > 0) { /* captures before lanes: none */
			fprintf(f, "\nprobe lanes (which ran, why the others did not):\n");
			err = query_table(db, m, probe_lane_sql, NULL, NULL, f, "  ", 1);
		}
	}
	sqlite3_finalize(st);
	st = NULL;
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
	if (cnull(r, I_END_REASON))
		fprintf(f, "  (no trailer)\n");
	else
		err = err ?: query_table(db, m, totals_sql, NULL, NULL, f, "  ", 0);
	return err;
}

#undef SHOWN

/* Under KEY, an object of the cells COLS of R. */
static void json_section(struct json *j, const char *key, const struct table *r, const size_t *cols,
			 size_t n)
{
	json__key(j, key);
	json__begin_object(j);
	table__json_fields(r, j, 0, cols, n);
	json__end_object(j);
}

static int info_json(sqlite3 *db, const struct table *r, const struct row *t,
		     const struct capture_meta *m, FILE *f)
{
	static const size_t top[] = {I_CAPTURE_ID, I_FORMAT};
	struct json j;
	int err = 0;

	json__init(&j, f, true);
	json__begin_object(&j);
	table__json_fields(r, &j, 0, top, NCOLS(top));
	json_section(&j, "file", r, file_json, NCOLS(file_json));
	json_section(&j, "recorder", r, recorder_json, NCOLS(recorder_json));
	json_section(&j, "host", r, host_json, NCOLS(host_json));
	json_section(&j, "start", r, start_json, NCOLS(start_json));
	if (t->found) {
		json_section(&j, "target", r, target_json, NCOLS(target_json));
	} else {
		json__key(&j, "target");
		json__null(&j);
	}
	json_section(&j, "options", r, options_json, NCOLS(options_json));

	err = query_table(db, m, probe_sql, &j, "probes", f, NULL, 0);
	err = err ?: query_table(db, m, probe_lane_sql, &j, "probe_lanes", f, NULL, 0);
	err = err ?: query_table(db, m, probe_change_json_sql, &j, "probe_changes", f, NULL, 0);
	json_section(&j, "time_span", r, span_json, NCOLS(span_json));
	err = err ?: query_table(db, m, records_sql, &j, "records", f, NULL, 0);

	json__key(&j, "drops");
	json__begin_object(&j);
	err = err ?: query_table(db, m, notices_sql, &j, "notices", f, NULL, 0);
	if (cnull(r, I_END_REASON))
		json__kv_null(&j, "trailer");
	else
		err = err ?: query_table(db, m, totals_sql, &j, "trailer", f, NULL, 0);
	json__end_object(&j);

	json__key(&j, "end");
	if (cnull(r, I_END_REASON)) {
		json__null(&j);
	} else {
		json__begin_object(&j);
		table__json_fields(r, &j, 0, end_json, NCOLS(end_json));
		if (cnull(r, I_EXITED) && cnull(r, I_TERM_SIGNAL)) {
			json__key(&j, "target_exit");
			json__null(&j);
		} else {
			json_section(&j, "target_exit", r, exit_json, NCOLS(exit_json));
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
	struct table *r = NULL;
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
	err = err ?: info_row(db, capture_id, &c, &t, &m, &r);
	if (!err && !json && width > 0) { /* the text, then the width pass */
		text = open_memstream(&buf, &len);
		if (!text)
			err = -ENOMEM;
		err = err ?: info_text(db, path, r, &t, &m, text);
		if (text && fclose(text) && !err)
			err = -ENOMEM;
		if (!err)
			print_wrapped(out, buf, (size_t)width);
		free(buf);
	} else if (!err) {
		err = json ? info_json(db, r, &t, &m, out) : info_text(db, path, r, &t, &m, out);
	}
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
	table__free(r);
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
