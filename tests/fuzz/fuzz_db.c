/* fuzz_db.c — libFuzzer target for the reports, export, info and replay --dump over DBs
 * whose rows were changed: what `ptop-analyze` gets from a DB edited by hand, by another
 * tool or by a bug.
 *
 * At start the seed captures (tests/fuzz/corpus_records, or $PTOP_FUZZ_DB_BASE) are loaded
 * into base DBs kept in memory. An input is a program of SQL-level mutations: its first byte
 * picks the base, then each op of 8 bytes and its operand changes one value (an integer
 * from a list of edges or the input, NULL, text, a real, the value of another row), deletes
 * or repeats a row, or shifts a whole column, in any table of the schema. The result goes
 * through the DB check as in the commands, then every report, export, info and replay
 * --dump (tests/fuzz/fuzz_run.h).
 *
 *   make fuzz
 *   build/fuzz/fuzz_db -close_fd_mask=3 -max_total_time=60 NEW_CORPUS tests/fuzz/corpus_db
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_run.h"

#define MAX_BASES 16
#define MAX_TABLES 64
#define MAX_COLS 48

static struct {
	unsigned char *bytes; /* sqlite3_serialize of the loaded DB */
	sqlite3_int64 n;
	char cid[DB_CAPTURE_ID_LEN];
} bases[MAX_BASES];
static size_t nbases;

static struct {
	char name[64];
	char col[MAX_COLS][64];
	size_t ncol;
} tables[MAX_TABLES];
static size_t ntables;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_base(const char *path)
{
	char err[1024];
	sqlite3 *db;

	if (nbases == MAX_BASES)
		return;
	db = fuzz__new_db();
	if (!db__load_capture(db, path, false, bases[nbases].cid, NULL, err, sizeof(err))) {
		bases[nbases].bytes = sqlite3_serialize(db, "main", &bases[nbases].n, 0);
		if (bases[nbases].bytes)
			nbases++;
	} else {
		fprintf(stderr, "fuzz_db: %s: %s\n", path, err);
	}
	sqlite3_close(db);
}

static void load_tables(void)
{
	sqlite3 *db = fuzz__new_db();
	sqlite3_stmt *s = NULL, *c = NULL;

	if (sqlite3_prepare_v2(db,
			       "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT "
			       "LIKE 'sqlite_%' ORDER BY name",
			       -1, &s, NULL) != SQLITE_OK)
		abort();
	while (sqlite3_step(s) == SQLITE_ROW && ntables < MAX_TABLES) {
		char sql[128];

		snprintf(tables[ntables].name, sizeof(tables[0].name), "%s",
			 (const char *)sqlite3_column_text(s, 0));
		snprintf(sql, sizeof(sql), "PRAGMA table_info(%s)", tables[ntables].name);
		if (sqlite3_prepare_v2(db, sql, -1, &c, NULL) != SQLITE_OK)
			abort();
		while (sqlite3_step(c) == SQLITE_ROW && tables[ntables].ncol < MAX_COLS)
			snprintf(tables[ntables].col[tables[ntables].ncol++], 64, "%s",
				 (const char *)sqlite3_column_text(c, 1));
		sqlite3_finalize(c);
		ntables++;
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("PTOP_FUZZ_DB_BASE");
	char *names[256], path[4096];
	size_t n = 0;
	struct dirent *e;
	DIR *d;

	(void)argc, (void)argv;
	if (!dir)
		dir = "tests/fuzz/corpus_records";
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "fuzz_db: no seed captures in %s (run from the source tree, or set "
				"PTOP_FUZZ_DB_BASE)\n", dir);
		exit(1);
	}
	while ((e = readdir(d)) && n < 256)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str); /* the first byte picks a base: keep order */
	for (size_t k = 0; k < n; k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[k]);
		load_base(path);
		free(names[k]);
	}
	if (!nbases) {
		fprintf(stderr, "fuzz_db: no capture in %s loads\n", dir);
		exit(1);
	}
	load_tables();
	return 0;
}

static const int64_t edges[] = {0,	   1,	       -1,	  2,	     1000,
				 1000000000, INT32_MAX,	INT32_MIN, INT64_MAX, INT64_MIN,
				 INT64_MAX - 1, INT64_MIN + 1, 0x100000000, 255, -1000000000};

/* Bytes of the input as an integer, little-endian. */
static int64_t take_i64(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t k = 0; k < n && k < 8; k++)
		v |= (uint64_t)p[k] << (8 * k);
	return (int64_t)v;
}

/* Apply one op OP[0..8) with its operand at OPND (OPN bytes). */
static void apply(sqlite3 *db, const uint8_t *op, const uint8_t *opnd, size_t opn)
{
	size_t t = op[1] % ntables, c;
	const char *tab = tables[t].name, *col;
	unsigned row = (unsigned)op[2] | (unsigned)op[3] << 8;
	sqlite3_stmt *s = NULL;
	char sql[512], where[160];

	if (!tables[t].ncol)
		return;
	c = op[4] % tables[t].ncol;
	col = tables[t].col[c];
	snprintf(where, sizeof(where),
		 "rowid = (SELECT rowid FROM %s LIMIT 1 OFFSET %u %% MAX(1, (SELECT COUNT(*) "
		 "FROM %s)))",
		 tab, row, tab);
	switch (op[0] % 9) {
	case 0: /* an edge */
	case 1: /* the operand */
		snprintf(sql, sizeof(sql), "UPDATE %s SET \"%s\" = ?1 WHERE %s", tab, col, where);
		if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
			return;
		sqlite3_bind_int64(s, 1,
				   op[0] % 9 == 0 ? edges[op[5] % (sizeof(edges) / sizeof(edges[0]))]
						  : take_i64(opnd, opn));
		break;
	case 2:
		snprintf(sql, sizeof(sql), "UPDATE %s SET \"%s\" = NULL WHERE %s", tab, col, where);
		break;
	case 3:
		snprintf(sql, sizeof(sql), "UPDATE %s SET \"%s\" = ?1 WHERE %s", tab, col, where);
		if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
			return;
		sqlite3_bind_text(s, 1, (const char *)opnd, (int)opn, SQLITE_TRANSIENT);
		break;
	case 4: {
		static const double d[] = {0.0, -1.0, 1e300, -1e300, 0.5, 1e-300};

		snprintf(sql, sizeof(sql), "UPDATE %s SET \"%s\" = ?1 WHERE %s", tab, col, where);
		if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
			return;
		sqlite3_bind_double(s, 1, d[op[5] % (sizeof(d) / sizeof(d[0]))]);
		break;
	}
	case 5: /* the value another row has */
		snprintf(sql, sizeof(sql),
			 "UPDATE %s SET \"%s\" = (SELECT \"%s\" FROM %s LIMIT 1 OFFSET %u %% "
			 "MAX(1, (SELECT COUNT(*) FROM %s))) WHERE %s",
			 tab, col, col, tab, (unsigned)op[6], tab, where);
		break;
	case 6:
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE %s", tab, where);
		break;
	case 7:
		snprintf(sql, sizeof(sql), "INSERT INTO %s SELECT * FROM %s WHERE %s", tab, tab,
			 where);
		break;
	default: /* the whole column shifted */
		snprintf(sql, sizeof(sql), "UPDATE %s SET \"%s\" = \"%s\" + ?1", tab, col, col);
		if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
			return;
		sqlite3_bind_int64(s, 1, (int64_t)(int8_t)op[5] * (op[6] % 2 ? 1 : 1000000000));
		break;
	}
	if (!s && sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return;
	sqlite3_step(s); /* a constraint refusing it is fine */
	sqlite3_finalize(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sqlite3 *db = NULL;
	unsigned char *copy;
	char cid[DB_CAPTURE_ID_LEN] = "";
	size_t b, i;
	sqlite3_stmt *s = NULL;

	if (!size)
		return 0;
	b = data[0] % nbases;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		abort();
	copy = sqlite3_malloc64((sqlite3_uint64)bases[b].n);
	if (!copy)
		abort();
	memcpy(copy, bases[b].bytes, (size_t)bases[b].n);
	if (sqlite3_deserialize(db, "main", copy, bases[b].n, bases[b].n,
				SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) !=
	    SQLITE_OK)
		abort();
	/* ops: 8 bytes, then an operand of op[7] % 9 bytes */
	for (i = 1; i + 8 <= size;) {
		const uint8_t *op = data + i;
		size_t opn = op[7] % 9;

		i += 8;
		if (opn > size - i)
			opn = size - i;
		apply(db, op, data + i, opn);
		i += opn;
	}
	if (sqlite3_prepare_v2(db, "SELECT capture_id FROM capture ORDER BY cap LIMIT 1", -1, &s,
			       NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
		snprintf(cid, sizeof(cid), "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	if (cid[0])
		fuzz__run_checked(db, cid, fuzz__hash(data, size));
	sqlite3_close(db);
	return 0;
}
