/* fuzz_run.h — what the analyzer fuzzers drive over a loaded DB: every report (in text,
 * JSON or CSV; with a window, --growth, --mapping, --by, --sort, --top), the CPU profile
 * exported folded and as pprof, `info`, and `replay --dump` of every tab (at the start,
 * the middle or past the end).
 * Output goes to /dev/null. Include it once, in a fuzzer.
 */
#ifndef PTOP_TESTS_FUZZ_RUN_H
#define PTOP_TESTS_FUZZ_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analyze/analyze.h"
#include "analyze/db.h"
#include "analyze/replay.h"
#include "analyze/replay_views.h"
#include "analyze/report.h"
#include "analyze/symbolize.h"
#include "collectors/cpuprof/stacks.h"
#include "common/hash.h"

extern const char ptop_schema_sql[];

/* /dev/null as a stream, opened once. */
static FILE *fuzz__null(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}

/* An empty in-memory DB with ptop's schema: NULL on failure. */
static sqlite3 *fuzz__new_db(void)
{
	sqlite3 *db = NULL;
	char sql[64];

	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		abort();
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", DB_SCHEMA_VERSION);
	if (sqlite3_exec(db, ptop_schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		abort();
	return db;
}

/* Everything over capture CID of DB, as the commands do after their DB check passed. SEL
 * (a hash of the input) picks one output format and one set of options for the reports,
 * and the replay position, so that an input takes one path of each, quickly. */
static void fuzz__run_all(sqlite3 *db, const char *cid, uint64_t sel)
{
	static const enum out_format fmts[] = {OUT_TEXT, OUT_JSON, OUT_CSV};
	static const int64_t at[] = {0, 1500000000, INT64_MAX / 2};
	FILE *out = fuzz__null();
	struct report_opts o = {.fmt = fmts[sel % 3]};
	struct capture_meta m;
	struct window all = {0};
	struct profile *p = NULL;
	struct replay_model *rm;
	char err[512];
	uint8_t *pp = NULL;
	size_t pplen = 0;

	/* the kinds' own options picked: each kind gets those its table has and takes */
	static const char *const own[4][5][2] = {
	    [2] = {{"growth", NULL}, {"by", "count"}, {"by", "uss"}, {"sort", "total"}},
	    [3] = {{"mapping", "[heap]"}, {"by", "bytes"}},
	};

	switch (sel / 3 % 4) {
	case 1:
		o.win = (struct window){.has_start = true, .start_ns = 500000000, .has_end = true,
					.end_ns = 2500000000};
		o.top = 2;
		break;
	case 3:
		o.top = 1;
		o.win = (struct window){.has_start = true, .start_ns = 1, .has_end = true,
					.end_ns = INT64_MAX};
		break;
	default:
		break;
	}
	/* every collector's reports */
	for (const struct an_report *r = report_kind__next(NULL); r; r = report_kind__next(r)) {
		void *settings = calloc(1, r->settings_size ?: 1);

		if (!settings)
			continue;
		for (size_t k = 0; k < 5 && own[sel / 3 % 4][k][0]; k++)
			report_kind__set(r, settings, own[sel / 3 % 4][k][0],
					 own[sel / 3 % 4][k][1], err, sizeof(err));
		o.own = settings;
		report__run(r, db, cid, &o, out);
		o.own = NULL;
		free(settings);
	}
	info__print(db, cid, "fuzz", sel & 1, (sel & 2) ? 72 : 0, out);

	if (!capture_meta__load(db, cid, &m) && !profile__load(db, &m, &all, &p)) {
		export_folded(p, out);
		if (!export_pprof(p, 0, &pp, &pplen))
			free(pp);
	}
	profile__free(p);

	rm = replay_model__open(db, cid, err, sizeof(err));
	if (rm) {
		for (size_t t = 0; t < replay__tabs()->n; t++)
			replay_dump(rm, (int)t, at[sel / 12 % 3], 100, 30, out);
		replay_model__free(rm);
	}
}

/* FNV-1a of the input: the selector of fuzz__run_all. */
static uint64_t fuzz__hash(const uint8_t *d, size_t n)
{
	return fnv1a64_bytes(FNV1A64_INIT, d, n);
}

/* The key of capture CID in DB, -1 when there is none. */
static int64_t fuzz__cap_of(sqlite3 *db, const char *cid)
{
	sqlite3_stmt *s = NULL;
	int64_t cap = -1;

	if (sqlite3_prepare_v2(db, "SELECT cap FROM capture WHERE capture_id = ?1", -1, &s, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(s, 1, cid, -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_ROW)
			cap = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	return cap;
}

/* The commands' path: info always, the rest when db__check_capture passes. */
static void fuzz__run_checked(sqlite3 *db, const char *cid, uint64_t sel)
{
	char err[1024];
	int64_t cap = fuzz__cap_of(db, cid);

	if (cap < 0)
		return;
	if (db__check_capture(db, cap, err, sizeof(err))) {
		info__print(db, cid, "fuzz", false, 0, fuzz__null());
		return;
	}
	fuzz__run_all(db, cid, sel);
}

#endif
