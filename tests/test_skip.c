/* test_skip.c — one bad record must not sink the capture (issue 21).
 *
 * The harness takes the seed captures of the structure-aware fuzzers (real captures of
 * the fixtures, tests/fuzz/corpus_records/seed-NN), breaks records in them and frames
 * them again (zstd checksums pass, record lengths hold), then loads the result beside
 * the same capture with those records left out. The property: the load succeeds, its
 * skipped count is the number of records broken, every other table equals the one of
 * the capture without them (the other records all load), and the reports' DB check
 * passes. A record is broken in one of two ways: its collector payload's bytes replaced
 * by ones no message unpacks (the Event still decodes: the part that claims it skips
 * it), or the whole record's bytes replaced by ones that are no Record (the reader skips
 * it). Every record of every seed is broken alone, then random sets of 2 to 4.
 *
 * Beside it: rows that load but that the reports' check refuses (a sample twice at one
 * time) are left out at load, counted as the part's drop, and the check passes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "analyze/analyze.h"
#include "analyze/db.h"
#include "common/hash.h"
#include "proto/capture.h"
#include "proto/capture_internal.h"
#include "tests/tmpdir.h"

extern const char ptop_schema_sql[];

#define SEEDS "tests/fuzz/corpus_records"
#define NSEEDS 6
#define RANDOM_SETS 10 /* per seed */

/* The scratch folder on tmpfs when there is one: the writer syncs each capture it
 * closes, and this writes about a thousand. */
static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/dev/shm/ptop-test-skip.XXXXXX");
	if (mkdtemp(tmpdir))
		return 0;
	return tmpdir__make("skip");
}

/* ------------------------------------------------------------------ records */

struct rec {
	uint8_t *p;
	size_t n;
	bool collector_payload; /* an Event whose payload is a CollectorPayload */
};

struct recs {
	struct rec *r;
	size_t n;
};

/* The records of the capture at PATH, packed again one by one. */
static void read_recs(const char *path, struct recs *rs)
{
	struct capture_reader *r = capture_reader__open(path);
	Ptop__V1__Record *rec;
	size_t cap = 0;

	assert_non_null(r);
	memset(rs, 0, sizeof(*rs));
	while (capture_reader__next(r, &rec) == 1) {
		struct rec *x;

		if (rs->n == cap) {
			cap = cap ? 2 * cap : 64;
			rs->r = realloc(rs->r, cap * sizeof(*rs->r));
			assert_non_null(rs->r);
		}
		x = &rs->r[rs->n++];
		x->n = ptop__v1__record__get_packed_size(rec);
		x->p = malloc(x->n ? x->n : 1);
		assert_non_null(x->p);
		ptop__v1__record__pack(rec, x->p);
		x->collector_payload =
		    rec->kind_case == PTOP__V1__RECORD__KIND_EVENT && rec->event &&
		    rec->event->payload_case == PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD &&
		    rec->event->collector_payload;
		ptop__v1__record__free_unpacked(rec, NULL);
	}
	assert_int_equal(capture_reader__status(r)->end, CAPTURE_END_CLEAN);
	assert_int_equal(capture_reader__status(r)->skipped, 0);
	capture_reader__free(r);
}

static void free_recs(struct recs *rs)
{
	for (size_t k = 0; k < rs->n; k++)
		free(rs->r[k].p);
	free(rs->r);
}

/* No message unpacks these bytes: field 1, length-delimited, 255 bytes long, past the
 * end (whatever field 1 is, protobuf-c must read the length to pass it over). */
static const uint8_t broken[] = {0x0A, 0xFF};

/* Record K of RS with its collector payload's data made BROKEN, packed into *OUT. */
static void break_payload(const struct rec *x, uint8_t **out, size_t *n)
{
	Ptop__V1__Record *rec = ptop__v1__record__unpack(NULL, x->n, x->p);
	ProtobufCBinaryData keep;

	assert_non_null(rec);
	keep = rec->event->collector_payload->data;
	rec->event->collector_payload->data.data = (uint8_t *)broken;
	rec->event->collector_payload->data.len = sizeof(broken);
	*n = ptop__v1__record__get_packed_size(rec);
	*out = malloc(*n);
	assert_non_null(*out);
	ptop__v1__record__pack(rec, *out);
	rec->event->collector_payload->data = keep;
	ptop__v1__record__free_unpacked(rec, NULL);
}

enum mode { KEEP, LEAVE_OUT, BREAK_PAYLOAD, BREAK_RECORD };

/* Append the records BUF..END (N of them) as one zstd frame with its checksum, as the
 * writer makes them. */
static void put_frame(struct capture_writer *w, const uint8_t *buf, const uint8_t *end, size_t n)
{
	size_t cap = ZSTD_compressBound((size_t)(end - buf)), z;
	ZSTD_CCtx *c = ZSTD_createCCtx();
	uint8_t *out = malloc(cap);

	assert_non_null(c);
	assert_non_null(out);
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	z = ZSTD_compress2(c, out, cap, buf, (size_t)(end - buf));
	assert_false(ZSTD_isError(z));
	assert_int_equal(capture_writer__append_frame(w, out, z, (uint32_t)n, false, 0, 0), 0);
	ZSTD_freeCCtx(c);
	free(out);
}

static void put_varint(uint8_t **p, uint64_t v)
{
	while (v >= 0x80) {
		*(*p)++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*(*p)++ = (uint8_t)v;
}

/* Write RS to PATH, record k as MODES[k] says, in frames of 8 records, with the real
 * writer (checksums pass). */
static void write_recs(const char *path, const struct recs *rs, const enum mode *modes)
{
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w = capture_writer__create(path, &o);
	size_t total = 0, in_frame = 0;
	uint8_t *buf, *p;

	assert_non_null(w);
	for (size_t k = 0; k < rs->n; k++)
		total += rs->r[k].n + 10 + 64;
	buf = malloc(total + 1);
	assert_non_null(buf);
	p = buf;
	for (size_t k = 0; k < rs->n; k++) {
		uint8_t *bytes = rs->r[k].p, *mine = NULL;
		size_t n = rs->r[k].n;

		if (modes[k] == LEAVE_OUT)
			continue;
		if (modes[k] == BREAK_PAYLOAD) {
			break_payload(&rs->r[k], &mine, &n);
			bytes = mine;
		} else if (modes[k] == BREAK_RECORD) {
			bytes = (uint8_t *)broken;
			n = sizeof(broken);
		}
		put_varint(&p, n);
		memcpy(p, bytes, n);
		p += n;
		free(mine);
		if (++in_frame == 8) {
			put_frame(w, buf, p, in_frame);
			p = buf;
			in_frame = 0;
		}
	}
	if (in_frame)
		put_frame(w, buf, p, in_frame);
	free(buf);
	assert_int_equal(capture_writer__close(w), 0);
}

/* ------------------------------------------------------------------ DBs */

static sqlite3 *new_db(void)
{
	sqlite3 *db = NULL;
	char sql[64];

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", DB_SCHEMA_VERSION);
	assert_int_equal(sqlite3_exec(db, ptop_schema_sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	return db;
}

/* Every table of DB but the capture's own bookkeeping (capture: path, size, records;
 * record_count; drop_notice, where the skips are noted), as a sum of a hash per row
 * (order aside) and a count, folded into one value. */
static uint64_t digest(sqlite3 *db)
{
	sqlite3_stmt *t = NULL, *s = NULL;
	uint64_t all = FNV1A64_INIT;
	char sql[256];

	assert_int_equal(
	    sqlite3_prepare_v2(db,
			       "SELECT name FROM sqlite_master WHERE type = 'table' "
			       "AND name NOT IN ('capture', 'record_count', "
			       "'drop_notice') AND name NOT LIKE 'sqlite_%' ORDER BY name",
			       -1, &t, NULL),
	    SQLITE_OK);
	while (sqlite3_step(t) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(t, 0);
		uint64_t sum = 0, rows = 0;

		snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\"", name);
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
		while (sqlite3_step(s) == SQLITE_ROW) {
			uint64_t h = FNV1A64_INIT;

			for (int c = 0; c < sqlite3_column_count(s); c++) {
				int type = sqlite3_column_type(s, c);
				const void *b = sqlite3_column_blob(s, c);
				int len = sqlite3_column_bytes(s, c);

				h = fnv1a64_word(h, (uint64_t)type);
				if (b && len > 0)
					h = fnv1a64_bytes(h, b, (size_t)len);
			}
			sum += h;
			rows++;
		}
		sqlite3_finalize(s);
		all = fnv1a64_str(all, name);
		all = fnv1a64_word(fnv1a64_word(all, sum), rows);
	}
	sqlite3_finalize(t);
	return all;
}

static int64_t q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;
	int64_t v = -1;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* Load PATH into a new DB; the load must succeed. */
static sqlite3 *load(const char *path, struct load_stats *st)
{
	char err[1024], id[DB_CAPTURE_ID_LEN];
	sqlite3 *db = new_db();
	int rc = db__load_capture(db, path, false, id, st, err, sizeof(err));

	if (rc)
		fail_msg("loading %s: %s (%d)", path, err, rc);
	return db;
}

/* ------------------------------------------------------------------ the property */

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* RS with the records MODES breaks loads as RS without them, with one skip each. */
static void check_breaks(const struct recs *rs, const enum mode *modes, const char *what)
{
	char broken_path[96], left_path[96], err[1024];
	enum mode *left = malloc(rs->n * sizeof(*left));
	struct load_stats sb, sl;
	sqlite3 *b, *l;
	uint64_t n = 0;

	assert_non_null(left);
	for (size_t k = 0; k < rs->n; k++) {
		left[k] = modes[k] == KEEP ? KEEP : LEAVE_OUT;
		n += modes[k] != KEEP;
	}
	snprintf(broken_path, sizeof(broken_path), "%s/broken.ptop", tmpdir);
	snprintf(left_path, sizeof(left_path), "%s/left.ptop", tmpdir);
	write_recs(broken_path, rs, modes);
	write_recs(left_path, rs, left);
	b = load(broken_path, &sb);
	l = load(left_path, &sl);
	if (sb.skipped != n)
		fail_msg("%s: %" PRIu64 " records skipped, %" PRIu64 " broken", what, sb.skipped,
			 n);
	assert_int_equal(sl.skipped, 0);
	if (digest(b) != digest(l))
		fail_msg("%s: the other records did not load as they do without the broken ones",
			 what);
	assert_int_equal(q_int(b, "SELECT COALESCE(SUM(lost), 0) FROM drop_notice WHERE kind = "
				  "'" LOAD_SKIP_UNDECODABLE "'"),
			 (int64_t)n);
	if (db__check_capture(b, 1, err, sizeof(err)))
		fail_msg("%s: the DB check refuses the load: %s", what, err);
	sqlite3_close(b);
	sqlite3_close(l);
	free(left);
}

static void test_01_one_bad_record_at_a_time(void **state)
{
	char path[64], what[128];
	size_t cases = 0, payloads = 0;
	(void)state;

	for (int s = 1; s <= NSEEDS; s++) {
		struct recs rs;
		enum mode *modes;

		snprintf(path, sizeof(path), SEEDS "/seed-%02d", s);
		read_recs(path, &rs);
		assert_true(rs.n > 2);
		modes = calloc(rs.n, sizeof(*modes));
		assert_non_null(modes);
		/* record 0 is the header: without it there is no capture to load */
		for (size_t k = 1; k < rs.n; k++) {
			modes[k] = BREAK_RECORD;
			snprintf(what, sizeof(what), "seed-%02d record %zu, its bytes broken", s,
				 k);
			check_breaks(&rs, modes, what);
			cases++;
			if (rs.r[k].collector_payload) {
				modes[k] = BREAK_PAYLOAD;
				snprintf(what, sizeof(what),
					 "seed-%02d record %zu, its payload broken", s, k);
				check_breaks(&rs, modes, what);
				cases++;
				payloads++;
			}
			modes[k] = KEEP;
		}
		free(modes);
		free_recs(&rs);
	}
	printf("broke %zu records one at a time (%zu collector payloads)\n", cases, payloads);
	assert_true(payloads > 20); /* the net, io and fds seeds have theirs */
}

static void test_02_random_sets_of_bad_records(void **state)
{
	char path[64], what[128];
	(void)state;

	for (int s = 1; s <= NSEEDS; s++) {
		struct recs rs;
		enum mode *modes;

		snprintf(path, sizeof(path), SEEDS "/seed-%02d", s);
		read_recs(path, &rs);
		modes = calloc(rs.n, sizeof(*modes));
		assert_non_null(modes);
		for (int set = 0; set < RANDOM_SETS; set++) {
			size_t m = 2 + rnd() % 3;

			memset(modes, 0, rs.n * sizeof(*modes));
			for (size_t j = 0; j < m; j++) {
				size_t k = 1 + rnd() % (rs.n - 1);

				modes[k] = rs.r[k].collector_payload && rnd() % 2 ? BREAK_PAYLOAD
										  : BREAK_RECORD;
			}
			snprintf(what, sizeof(what), "seed-%02d set %d", s, set);
			check_breaks(&rs, modes, what);
		}
		free(modes);
		free_recs(&rs);
	}
}

/* A cpu sample at the time of the one before it (the check the reports run refuses the
 * DB for: "time_ns ... is not after the previous sample's"): left out at load, counted as
 * cpu's drop, and the check passes; info says so. */
static void test_03_rows_the_check_refuses_are_left_out(void **state)
{
	char path[96], err[1024];
	struct capture_reader *r;
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w;
	Ptop__V1__Record *rec;
	struct load_stats st;
	uint64_t prev = 0;
	int dup = 0;
	sqlite3 *db;
	(void)state;

	r = capture_reader__open(SEEDS "/seed-02");
	assert_non_null(r);
	snprintf(path, sizeof(path), "%s/dup.ptop", tmpdir);
	w = capture_writer__create(path, &o);
	assert_non_null(w);
	while (capture_reader__next(r, &rec) == 1) {
		Ptop__V1__Event *ev =
		    rec->kind_case == PTOP__V1__RECORD__KIND_EVENT ? rec->event : NULL;

		if (ev && ev->payload_case == PTOP__V1__EVENT__PAYLOAD_CPU && ev->tid == 0) {
			if (prev && !dup++)
				ev->time_ns = prev; /* the second sample of the process */
			prev = ev->time_ns;
		}
		assert_int_equal(capture_writer__append(w, rec), 0);
		ptop__v1__record__free_unpacked(rec, NULL);
	}
	capture_reader__free(r);
	assert_int_equal(capture_writer__close(w), 0);
	assert_true(dup >= 2);

	db = load(path, &st);
	assert_int_equal(st.skipped, 0);
	assert_int_equal(st.bad_rows, 1);
	if (db__check_capture(db, 1, err, sizeof(err)))
		fail_msg("the DB check refuses the load: %s", err);
	assert_int_equal(q_int(db, "SELECT SUM(lost) FROM drop_notice WHERE collector = 'cpu' AND "
				   "kind = '" LOAD_SKIP_INVALID "'"),
			 1);
	sqlite3_close(db);
}

/* The commands' view: info says what was skipped, and salvage's copy of such a capture
 * loads the same way (it used to report success and copy a capture that failed). */
static void test_04_info_and_salvage(void **state)
{
	char path[96], copy[96], cid[DB_CAPTURE_ID_LEN], err[1024], *text = NULL;
	struct capture_status cs;
	struct load_stats st;
	struct recs rs;
	enum mode *modes;
	size_t k, len = 0;
	FILE *f;
	sqlite3 *db;
	(void)state;

	read_recs(SEEDS "/seed-06", &rs); /* --io-files: io payloads */
	modes = calloc(rs.n, sizeof(*modes));
	assert_non_null(modes);
	for (k = 1; k < rs.n && !rs.r[k].collector_payload; k++)
		;
	assert_true(k < rs.n);
	modes[k] = BREAK_PAYLOAD;
	snprintf(path, sizeof(path), "%s/io.ptop", tmpdir);
	write_recs(path, &rs, modes);

	db = load(path, &st);
	assert_int_equal(st.skipped, 1);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(q_int(db, "SELECT count(*) FROM capture"), 1);
	{
		sqlite3_stmt *s = NULL;

		assert_int_equal(
		    sqlite3_prepare_v2(db, "SELECT capture_id FROM capture", -1, &s, NULL),
		    SQLITE_OK);
		assert_int_equal(sqlite3_step(s), SQLITE_ROW);
		snprintf(cid, sizeof(cid), "%s", (const char *)sqlite3_column_text(s, 0));
		sqlite3_finalize(s);
	}
	assert_int_equal(info__print(db, cid, path, false, 0, f), 0);
	fclose(f);
	if (!strstr(text, "1 record skipped at load (io): not decodable"))
		fail_msg("info does not say what was skipped:\n%s", text);
	free(text);
	sqlite3_close(db);

	snprintf(copy, sizeof(copy), "%s/io-salvaged.ptop", tmpdir);
	assert_int_equal(capture__salvage(path, copy, &cs), 0);
	db = load(copy, &st);
	assert_int_equal(st.skipped, 1);
	if (db__check_capture(db, 1, err, sizeof(err)))
		fail_msg("the DB check refuses the salvaged copy: %s", err);
	sqlite3_close(db);
	free(modes);
	free_recs(&rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_one_bad_record_at_a_time),
	    cmocka_unit_test(test_02_random_sets_of_bad_records),
	    cmocka_unit_test(test_03_rows_the_check_refuses_are_left_out),
	    cmocka_unit_test(test_04_info_and_salvage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
