/* test_replay.c — unit tests for the replay viewer: the grid, the model and frames rendered to text
 * at given times on hand-built DBs (analyze/replay_*.c). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/part.h"
#include "analyze/replay.h"
#include "analyze/replay_grid.h"
#include "analyze/replay_model.h"
#include "analyze/replay_views.h"
#include "collectors/cpu/replay.h"
#include "collectors/memory/replay.h"
#include "collectors/syscalls/replay.h"
#include "collectors/vmas/replay.h"

extern const char ptop_schema_sql[];

#define CID "00112233445566778899aabbccddeeff"
#define CAP_OF "(SELECT cap FROM capture WHERE capture_id = '%s')"
#define BASE 1000000000000LL /* start_monotonic_ns of the test capture */
#define SEC 1000000000LL
#define MIB (1024LL * 1024)

/* ------------------------------------------------------------------ helpers */

static void execf(sqlite3 *db, const char *fmt, ...)
{
	char *sql, *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	assert_non_null(sql);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("SQL failed: %s\n%s", msg ? msg : "?", sql);
	sqlite3_free(msg);
	sqlite3_free(sql);
}

static sqlite3 *new_db(int complete)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	execf(db, "%s", ptop_schema_sql);
	execf(
	    db,
	    "INSERT INTO capture (capture_id, format_version, recorder_version, "
	    "start_monotonic_ns, "
	    "start_realtime_ns, interval_ns, cpus, first_event_ns, last_event_ns, complete, "
	    "read_end, read_message) VALUES ('%s', 1, '9.8.7', %lld, 1764410400000000000, %lld, 4, "
	    "%lld, %lld, %d, '%s', %s)",
	    CID, BASE, SEC, BASE + SEC, BASE + 4 * SEC, complete, complete ? "clean" : "truncated",
	    complete ? "NULL" : "'truncated at byte 1234'");
	execf(db,
	      "INSERT INTO target (cap, mode, pid, comm) VALUES (" CAP_OF ", 'pid', 4242, 'demo')",
	      CID);
	return db;
}

static void add_probe(sqlite3 *db, const char *name, const char *state, const char *source,
		      const char *reason)
{
	static int seq;

	execf(db,
	      "INSERT INTO probe (cap, seq, name, state, source, reason) "
	      "VALUES (" CAP_OF ", %d, %Q, %Q, %Q, %Q)",
	      CID, seq++, name, state, source, reason);
}

static void add_syscall(sqlite3 *db, int t, int nr, const char *name, long long count,
			long long errors, long long total_ns, int bucket, long long bcount,
			int bucket2, long long bcount2)
{
	execf(db,
	      "INSERT INTO syscall_stat (cap, time_ns, interval_ns, pid, nr, name, count, "
	      "completed, errors, total_ns) VALUES (" CAP_OF ", %lld, %lld, 42, %d, %Q, %lld, "
	      "%lld, %lld, %lld)",
	      CID, BASE + t * SEC, SEC, nr, name, count, count, errors, total_ns);
	execf(db,
	      "INSERT INTO syscall_hist (cap, time_ns, pid, nr, bucket, count) "
	      "VALUES (" CAP_OF ", %lld, 42, %d, %d, %lld)",
	      CID, BASE + t * SEC, nr, bucket, bcount);
	if (bucket2 >= 0)
		execf(db,
		      "INSERT INTO syscall_hist (cap, time_ns, pid, nr, bucket, count) "
		      "VALUES (" CAP_OF ", %lld, 42, %d, %d, %lld)",
		      CID, BASE + t * SEC, nr, bucket2, bcount2);
}

/* A capture with every probe active: syscalls at t = 1, 2, 3 s (getppid 10, 20, 30 calls; read 5
 * each), CPU samples (10%, 50%, 25% on-CPU), memory (RSS 10, 20, 30 MiB), two VMA snapshots. */
static sqlite3 *full_db(void)
{
	sqlite3 *db = new_db(1);
	int t;

	add_probe(db, "cpu", "active", "ebpf", NULL);
	add_probe(db, "syscalls", "active", "ebpf", NULL);
	add_probe(db, "memory", "active", "proc", NULL);
	add_probe(db, "vmas", "active", "proc", NULL);
	add_probe(db, "heap", "disabled", NULL, "disabled by --disable heap");
	add_syscall(db, 1, 110, "getppid", 10, 0, 5000, 8, 10, -1, 0);
	add_syscall(db, 2, 110, "getppid", 20, 0, 10000, 8, 19, 12, 1);
	add_syscall(db, 3, 110, "getppid", 30, 0, 15000, 12, 30, -1, 0);
	for (t = 1; t <= 3; t++)
		add_syscall(db, t, 0, "read", 5, 1, 5000000, 20, 5, -1, 0);
	execf(db,
	      "INSERT INTO cpu_sample (cap, time_ns, interval_ns, pid, oncpu_ns, threads) VALUES "
	      "(" CAP_OF ", %lld, %lld, 42, %lld, 3), (" CAP_OF ", %lld, %lld, 42, %lld, 4), "
	      "(" CAP_OF ", %lld, %lld, 42, %lld, 5)",
	      CID, BASE + SEC, SEC, SEC / 10, CID, BASE + 2 * SEC, SEC, SEC / 2, CID,
	      BASE + 3 * SEC, SEC, SEC / 4);
	for (t = 1; t <= 3; t++)
		execf(db,
		      "INSERT INTO memory_sample (cap, time_ns, pid, rss, pss, uss, pss_anon, "
		      "pss_file, pss_shmem, swap) VALUES (" CAP_OF ", %lld, 42, %lld, %lld, %lld, "
		      "%lld, %lld, 0, 0)",
		      CID, BASE + t * SEC, t * 10 * MIB, t * 8 * MIB, t * 6 * MIB, t * 7 * MIB,
		      t * MIB);
	execf(db,
	      "INSERT INTO vma_snapshot (cap, snapshot_id, time_ns, pid, vma_count) VALUES "
	      "(" CAP_OF ", 0, %lld, 42, 2), (" CAP_OF ", 1, %lld, 42, 3)",
	      CID, BASE + SEC / 2, CID, BASE + 5 * SEC / 2);
	execf(db,
	      "INSERT INTO vma (cap, snapshot_id, start, end, path, size, rss, pss, uss) VALUES "
	      "(" CAP_OF ", 0, 4096, 8192, '/usr/lib/libfirst.so', 4096, 4096, 2048, 1024), "
	      "(" CAP_OF ", 0, 8192, 12288, '', 4096, 4096, 4096, 4096), "
	      "(" CAP_OF ", 1, 4096, 8192, '/usr/lib/x86_64-linux-gnu/deeper/libsecond.so', "
	      "4096, 4096, 2048, 1024), "
	      "(" CAP_OF ", 1, 8192, 12288, '', 4096, 4096, 4096, 4096), "
	      "(" CAP_OF ", 1, 12288, 16384, '', 8192, 8192, 8192, 8192)",
	      CID, CID, CID, CID, CID);
	return db;
}

static struct replay_model *open_model(sqlite3 *db)
{
	char err[256] = "";
	struct replay_model *m = replay_model__open(db, CID, err, sizeof(err));

	if (!m)
		fail_msg("replay_model__open: %s", err);
	return m;
}

/* the frame of TAB at T seconds (W x H) as text; caller frees */
static char *frame(struct replay_model *m, const char *tab, double t, int w, int h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ti = replay__find_view(tab);

	assert_non_null(f);
	assert_true(ti >= 0);
	assert_int_equal(replay_dump(m, ti, (int64_t)llround(t * 1e9), w, h, f), 0);
	fclose(f);
	return buf;
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("expected to find \"%s\" in:\n%s", needle, hay);
}

static void assert_lacks(const char *hay, const char *needle)
{
	if (strstr(hay, needle))
		fail_msg("did not expect \"%s\" in:\n%s", needle, hay);
}

/* the line of TEXT that contains NEEDLE, copied into BUF */
static const char *line_with(const char *text, const char *needle, char *buf, size_t len)
{
	const char *p = strstr(text, needle), *s, *e;

	if (!p)
		fail_msg("no line with \"%s\" in:\n%s", needle, text);
	for (s = p; s > text && s[-1] != '\n'; s--)
		;
	e = strchr(p, '\n');
	snprintf(buf, len, "%.*s", (int)(e ? e - s : (ptrdiff_t)strlen(s)), s);
	return buf;
}

/* ------------------------------------------------------------------ grid */

static void test_01_grid_text_clipping_and_wide(void **state)
{
	struct grid *g = grid__new(10, 2);
	char *t;

	(void)state;
	assert_non_null(g);
	assert_int_equal(grid__text(g, 0, 0, -1, "hello world", 0, 0), 10);
	assert_int_equal(grid__text(g, 8, 1, -1, "\xe4\xb8\xad\xe6\x96\x87", 0, 0), 2); /* 中文 */
	assert_int_equal(grid__text(g, -2, 5, -1, "off", 0, 0), 0); /* outside: nothing */
	t = grid__to_text(g);
	assert_string_equal(t, "hello worl\n        \xe4\xb8\xad\n");
	free(t);
	/* a control character and an invalid byte are shown, never passed through */
	grid__clear(g);
	grid__text(g, 0, 0, 5, "a\tb\xff", 0, 0);
	t = grid__to_text(g);
	assert_string_equal(t, "a?b\xef\xbf\xbd\n\n");
	free(t);
	assert_int_equal(grid__text_width("\xe4\xb8\xad"
					  "a"),
			 3);
	assert_int_equal(grid__resize(g, 0, 3), -EINVAL);
	grid__free(g);
	grid__free(NULL);
}

static void test_02_sparkline_measured_vs_missing(void **state)
{
	struct grid *g = grid__new(4, 1);
	double v[4] = {0, NAN, 10, 5};
	char *t;

	(void)state;
	grid__sparkline(g, 0, 0, 4, v, 4, 10, 0);
	t = grid__to_text(g);
	/* column 3: 0 (bottom-left dot 7) and missing (nothing): U+2840;
	 * column 4: 10 (full left column 1237) and 5 (right 8,6 -> level 3: 8,6,5): U+28F7 */
	assert_string_equal(t, "  \xe2\xa1\x80\xe2\xa3\xb7\n");
	free(t);
	grid__clear(g);
	grid__bar(g, 0, 0, 4, 0.5, 0);
	t = grid__to_text(g);
	assert_string_equal(t, "\xe2\x96\x88\xe2\x96\x88\n"); /* two full blocks */
	free(t);
	grid__free(g);
}

/* ------------------------------------------------------------------ model */

static void test_03_model_load_and_seek(void **state)
{
	sqlite3 *db = full_db();
	struct replay_model *m = open_model(db);
	char sp[16];

	(void)state;
	assert_int_equal(cpu_series(m)->n, 3);
	assert_int_equal(syscalls_series(m)->nsysi, 3);
	assert_int_equal(syscalls_series(m)->nsys, 6);
	assert_int_equal(memory_series(m)->n, 3);
	assert_int_equal(vmas_series(m)->nsnaps, 2);
	assert_int_equal(m->duration_ns, 4 * SEC); /* the last event */
	assert_int_equal(syscalls_series__at(syscalls_series(m), SEC - 1), -1);
	assert_int_equal(syscalls_series__at(syscalls_series(m), SEC), 0);
	assert_int_equal(syscalls_series__at(syscalls_series(m), 5 * SEC / 2), 1);
	assert_int_equal(vmas_series__at(vmas_series(m), 5 * SEC / 2), 1);
	assert_int_equal(memory_series__at(memory_series(m), 10 * SEC), 2);
	assert_true(fabs(cpu_series__pct(m, cpu_series(m), 1) - 50.0) < 1e-9);
	/* steps land on interval boundaries and are clamped */
	replay_model__seek(m, 2500000000LL);
	replay_model__step(m, 1);
	assert_int_equal(m->pos_ns, 3 * SEC);
	replay_model__step(m, -1);
	assert_int_equal(m->pos_ns, 2 * SEC);
	replay_model__step(m, -10);
	assert_int_equal(m->pos_ns, 0);
	replay_model__step(m, 10);
	assert_int_equal(m->pos_ns, 4 * SEC);
	/* speed 1/4x .. 64x; playing stops at the end */
	for (int i = 0; i < 10; i++)
		replay_model__speed(m, -1);
	assert_string_equal(replay_model__speed_str(m, sp, sizeof(sp)), "1/4x");
	for (int i = 0; i < 20; i++)
		replay_model__speed(m, 1);
	assert_string_equal(replay_model__speed_str(m, sp, sizeof(sp)), "64x");
	replay_model__seek(m, 0);
	m->playing = true;
	replay_model__tick(m, SEC / 64);
	assert_int_equal(m->pos_ns, SEC);
	replay_model__tick(m, SEC);
	assert_int_equal(m->pos_ns, 4 * SEC);
	assert_false(m->playing);
	replay_model__free(m);
	sqlite3_close(db);
}

static void test_04_model_errors(void **state)
{
	sqlite3 *db = new_db(1);
	char err[256] = "";

	(void)state;
	errno = 0;
	assert_null(replay_model__open(db, "ffffffffffffffffffffffffffffffff", err, sizeof(err)));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, "no capture"));
	replay_model__free(NULL);
	sqlite3_close(db);
}

/* ------------------------------------------------------------------ frames */

static void test_05_syscalls_frame_at_time(void **state)
{
	sqlite3 *db = full_db();
	struct replay_model *m = open_model(db);
	char line[512], *f;

	(void)state;
	f = frame(m, "syscalls", 2.5, 160, 48);
	assert_contains(f, "demo (pid 4242)");
	assert_contains(f, "mode pid");
	assert_contains(f, "recorder 9.8.7");
	assert_contains(f, "2025-11-29T10:00:00.000Z");
	assert_contains(f, "00:02.5 / 00:04.0");
	assert_contains(f, "paused");
	assert_contains(f, "speed 1x");
	assert_contains(f, "capture complete");
	/* the interval ending at 2 s: getppid 20 calls, p50 bucket 8 (362 ns), p99 bucket 12 */
	line_with(f, "getppid", line, sizeof(line));
	assert_contains(line, " 20 ");
	assert_contains(line, "20.0");
	assert_contains(line, "362 ns");
	assert_contains(line, "5.79 us");
	line_with(f, " read ", line, sizeof(line));
	assert_contains(line, " 5 ");
	/* ordered by count: getppid first */
	assert_true(strstr(f, "getppid") < strstr(f, " read "));
	free(f);

	f = frame(m, "syscalls", 1.5, 160, 48);
	line_with(f, "getppid", line, sizeof(line));
	assert_contains(line, " 10 ");
	assert_lacks(line, " 20 ");
	free(f);

	/* before the first interval ended: said so, no table */
	f = frame(m, "syscalls", 0.5, 160, 48);
	assert_contains(f, "no syscall interval has ended by 00:00.5");
	assert_lacks(f, "getppid");
	free(f);
	replay_model__free(m);
	sqlite3_close(db);
}

static void test_06_not_collected_never_zeros(void **state)
{
	sqlite3 *db = new_db(0);
	struct replay_model *m;
	char *f;

	(void)state;
	add_probe(db, "cpu", "active", "proc", NULL);
	add_probe(db, "syscalls", "unsupported", NULL, "eBPF off (--no-ebpf)");
	add_probe(db, "memory", "failed", "proc", "smaps_rollup unreadable");
	add_probe(db, "vmas", "disabled", NULL, "disabled by --disable vmas");
	execf(db,
	      "INSERT INTO cpu_sample (cap, time_ns, interval_ns, pid, user_ns, system_ns) "
	      "VALUES (" CAP_OF ", %lld, %lld, 42, %lld, %lld)",
	      CID, BASE + SEC, SEC, SEC / 10, SEC / 10);
	m = open_model(db);
	f = frame(m, "syscalls", 2, 160, 48);
	assert_contains(f, "not collected \xe2\x80\x94 unsupported: eBPF off (--no-ebpf)");
	assert_lacks(f, "count");
	free(f);
	f = frame(m, "overview", 2, 160, 48);
	assert_contains(f, "not collected \xe2\x80\x94 unsupported: eBPF off (--no-ebpf)");
	assert_contains(f, "not collected \xe2\x80\x94 failed: smaps_rollup unreadable");
	assert_contains(f, "20.0% /proc");
	assert_contains(f, "TRUNCATED (truncated): truncated at byte 1234");
	assert_lacks(f, "0 B");
	free(f);
	f = frame(m, "memory", 2, 160, 48);
	assert_contains(f, "not collected \xe2\x80\x94 failed: smaps_rollup unreadable");
	assert_contains(f, "not collected \xe2\x80\x94 disabled: disabled by --disable vmas");
	assert_lacks(f, "0 B");
	free(f);
	f = frame(m, "heap", 2, 160, 48);
	assert_contains(f, "not collected \xe2\x80\x94 absent");
	free(f);
	f = frame(m, "network", 2, 160, 48); /* the net collector's tab: its probe is absent */
	assert_contains(f, "not collected \xe2\x80\x94 absent");
	assert_lacks(f, "0 B");
	free(f);
	replay_model__free(m);
	/* a cgroup capture without eBPF: its CPU is the cpu.stat lane's */
	execf(db, "UPDATE target SET mode = 'cgroup'");
	execf(db, "UPDATE cpu_sample SET cg_user_ns = user_ns, cg_system_ns = system_ns, "
		  "user_ns = NULL, system_ns = NULL");
	m = open_model(db);
	f = frame(m, "overview", 2, 160, 48);
	assert_contains(f, "20.0% cpu.stat");
	free(f);
	replay_model__free(m);
	sqlite3_close(db);
}

static void test_07_memory_frame(void **state)
{
	sqlite3 *db = full_db();
	struct replay_model *m = open_model(db);
	char line[512], *f;

	(void)state;
	f = frame(m, "memory", 2.7, 160, 48);
	line_with(f, "RSS  ", line, sizeof(line));
	assert_contains(line, "20.0 MiB");
	line_with(f, "PSS  ", line, sizeof(line));
	assert_contains(line, "16.0 MiB");
	line_with(f, "USS  ", line, sizeof(line));
	assert_contains(line, "12.0 MiB");
	line_with(f, "anon", line, sizeof(line));
	assert_contains(line, "14.0 MiB");
	/* the snapshot at 2.5 s, not the one at 0.5 s; a path longer than its column keeps
	 * its end behind "...", never cut bare into what reads as another path */
	assert_contains(f, " ...x86_64-linux-gnu/deeper/libsecond.so ");
	assert_lacks(f, " ib/x86_64-linux-gnu/deeper/libsecond.so ");
	assert_lacks(f, "libfirst.so");
	line_with(f, "[anon]", line, sizeof(line));
	assert_contains(line, " 2 ");	   /* two anonymous VMAs */
	assert_contains(line, "12.0 KiB"); /* their PSS */
	free(f);
	f = frame(m, "memory", 1.0, 160, 48);
	assert_contains(f, "libfirst.so");
	line_with(f, "RSS  ", line, sizeof(line));
	assert_contains(line, "10.0 MiB");
	free(f);
	f = frame(m, "overview", 3, 160, 48);
	assert_contains(f, "25.0% eBPF");
	line_with(f, "getppid", line, sizeof(line));
	assert_contains(line, "30 calls");
	free(f);
	replay_model__free(m);
	sqlite3_close(db);
}

static void test_08_too_small_and_resize(void **state)
{
	sqlite3 *db = full_db();
	struct replay_model *m = open_model(db);
	char *f;

	(void)state;
	f = frame(m, "overview", 1, 79, 24);
	assert_contains(f, "terminal too small: 79x24");
	assert_lacks(f, "ptop replay  demo");
	free(f);
	f = frame(m, "overview", 1, 80, 24);
	assert_lacks(f, "too small");
	assert_contains(f, "ptop replay  demo");
	free(f);
	replay_model__free(m);
	sqlite3_close(db);
}

/* ------------------------------------------------------------------ keys */

static void test_09_keys(void **state)
{
	sqlite3 *db = full_db();
	struct replay_model *m = open_model(db);
	struct replay_ui ui = {0};
	struct grid *g = grid__new(160, 48);
	char *t;

	(void)state;
	assert_int_equal(replay__key(m, &ui, '2'), 0);
	assert_int_equal(ui.tab, 1);
	replay__key(m, &ui, RK_TAB);
	assert_int_equal(ui.tab, 2);
	replay__key(m, &ui, RK_BTAB);
	replay__key(m, &ui, RK_BTAB);
	replay__key(m, &ui, RK_BTAB);
	assert_int_equal(ui.tab, (int)replay__tabs()->n - 1);
	replay__key(m, &ui, RK_F1 + 7);
	assert_int_equal(ui.tab, 7);
	replay__key(m, &ui, RK_F1 + 1);
	replay__key(m, &ui, ' ');
	assert_true(m->playing);
	replay__key(m, &ui, 'p');
	assert_false(m->playing);
	replay__key(m, &ui, RK_RIGHT);
	replay__key(m, &ui, RK_RIGHT);
	assert_int_equal(m->pos_ns, 2 * SEC);
	replay__key(m, &ui, RK_SLEFT);
	assert_int_equal(m->pos_ns, 0);
	replay__key(m, &ui, 'G');
	assert_int_equal(m->pos_ns, 4 * SEC);
	replay__key(m, &ui, 'g');
	assert_int_equal(m->pos_ns, 0);
	/* t: jump to a time typed at the prompt */
	replay__key(m, &ui, 't');
	for (const char *p = "2.5"; *p; p++)
		replay__key(m, &ui, *p);
	replay__key(m, &ui, RK_ENTER);
	assert_int_equal(m->pos_ns, 2500000000LL);
	replay__key(m, &ui, 't');
	replay__key(m, &ui, 'x');
	replay__key(m, &ui, RK_ENTER);
	assert_int_equal(m->pos_ns, 2500000000LL);
	assert_non_null(strstr(ui.status, "not a time"));
	/* / filter: only read is left */
	replay__key(m, &ui, '/');
	for (const char *p = "rea"; *p; p++)
		replay__key(m, &ui, *p);
	replay__key(m, &ui, RK_ENTER);
	assert_string_equal(ui.filter, "rea");
	replay__render(m, &ui, g);
	t = grid__to_text(g);
	assert_contains(t, " read ");
	assert_lacks(t, "getppid");
	free(t);
	/* s: sort by errors puts read first without the filter */
	replay__key(m, &ui, '/');
	replay__key(m, &ui, RK_ESC);
	assert_string_equal(ui.filter, "");
	replay__key(m, &ui, 's');
	assert_int_equal(ui.sort, 1);
	replay__render(m, &ui, g);
	t = grid__to_text(g);
	assert_contains(t, "sort: errors");
	assert_true(strstr(t, " read ") < strstr(t, "getppid"));
	free(t);
	/* ? shows where the data came from, ? again closes it */
	replay__key(m, &ui, '?');
	replay__render(m, &ui, g);
	t = grid__to_text(g);
	assert_contains(t, "probe syscalls active (ebpf)");
	assert_contains(t, "not collected \xe2\x80\x94 disabled: disabled by --disable heap");
	free(t);
	replay__key(m, &ui, '?');
	assert_false(ui.help);
	replay__key(m, &ui, ']');
	replay__key(m, &ui, ']');
	replay__render(m, &ui, g);
	t = grid__to_text(g);
	assert_contains(t, "speed 4x");
	free(t);
	assert_int_equal(replay__key(m, &ui, 'q'), 1);
	grid__free(g);
	replay_model__free(m);
	sqlite3_close(db);
}

static void test_10_time_parse_and_format(void **state)
{
	int64_t ns;
	char buf[32];

	(void)state;
	assert_int_equal(replay__parse_time("12.5s", &ns), 0);
	assert_int_equal(ns, 12500000000LL);
	assert_int_equal(replay__parse_time("1500ms", &ns), 0);
	assert_int_equal(ns, 1500000000LL);
	assert_int_equal(replay__parse_time("1:30", &ns), 0);
	assert_int_equal(ns, 90 * SEC);
	assert_int_equal(replay__parse_time("1:00:01.5", &ns), 0);
	assert_int_equal(ns, 3601500000000LL);
	assert_int_equal(replay__parse_time("abc", &ns), -EINVAL);
	assert_int_equal(replay__parse_time("1:x", &ns), -EINVAL);
	assert_int_equal(replay__parse_time("", &ns), -EINVAL);
	assert_string_equal(replay__fmt_pos(buf, sizeof(buf), 12500000000LL), "00:12.5");
	assert_string_equal(replay__fmt_pos(buf, sizeof(buf), 300 * SEC), "05:00.0");
	assert_string_equal(replay__fmt_pos(buf, sizeof(buf), 3725 * SEC), "1:02:05.0");
	assert_int_equal(replay__find_view("syscalls"), 1);
	assert_int_equal(replay__find_view("Memory"), 7);
	assert_int_equal(replay__find_view("9"), 8);
	assert_int_equal(replay__find_view("nope"), -1);
}

static void test_11_drill_into_vma_group(void **state)
{
	sqlite3 *db = full_db();
	struct replay_model *m = open_model(db);
	struct replay_ui ui = {.tab = replay__find_view("memory")};
	struct grid *g = grid__new(160, 48);
	char *t;

	(void)state;
	replay_model__seek(m, 2700000000LL);
	replay__render(m, &ui, g);
	assert_string_equal(ui.selected, "[anon]"); /* the top row by PSS */
	replay__key(m, &ui, RK_DOWN);
	replay__render(m, &ui, g);
	assert_string_equal(ui.selected, "/usr/lib/x86_64-linux-gnu/deeper/libsecond.so");
	replay__key(m, &ui, RK_UP);
	replay__render(m, &ui, g);
	replay__key(m, &ui, RK_ENTER);
	assert_string_equal(ui.drill, "[anon]");
	replay__render(m, &ui, g);
	t = grid__to_text(g);
	assert_contains(t, "VMAs of [anon] at snapshot 00:02.5: 2");
	assert_contains(t, "0000000000002000-0000000000003000");
	assert_contains(t, "0000000000003000-0000000000004000");
	assert_lacks(t, "0000000000001000-0000000000002000"); /* libsecond.so's */
	free(t);
	replay__key(m, &ui, RK_ESC);
	assert_string_equal(ui.drill, "");
	replay__render(m, &ui, g);
	t = grid__to_text(g);
	assert_contains(t, "VMA groups at snapshot");
	free(t);
	/* Enter on a tab without rows to drill into says so */
	replay__key(m, &ui, '2');
	replay__key(m, &ui, RK_ENTER);
	assert_non_null(strstr(ui.status, "nothing to drill into"));
	grid__free(g);
	replay_model__free(m);
	sqlite3_close(db);
}

static void test_12_timeline(void **state)
{
	sqlite3 *db = full_db();
	struct replay_model *m;
	char *f;

	(void)state;
	execf(db,
	      "INSERT INTO drop_notice (cap, time_ns, collector, kind, lost) VALUES "
	      "(" CAP_OF ", %lld, 'syscalls', 'ringbuf', 7)",
	      CID, BASE + 3 * SEC / 2);
	execf(db,
	      "INSERT INTO mapping (cap, time_ns, pid, start, end, path, event) VALUES "
	      "(" CAP_OF ", %lld, 42, 65536, 131072, '/usr/lib/libnew.so', 'new')",
	      CID, BASE + 3 * SEC);
	execf(db,
	      "INSERT INTO probe_change (cap, seq, time_ns, name, state, source, cause) VALUES "
	      "(" CAP_OF ", 0, %lld, 'heap', 'active', 'ebpf', 'exec /usr/bin/static')",
	      CID, BASE + 4 * SEC);
	execf(db,
	      "UPDATE capture SET end_reason = 'target_exit', end_time_ns = %lld, "
	      "target_exit_code = 3 WHERE capture_id = '%s'",
	      BASE + 5 * SEC, CID);
	m = open_model(db);
	assert_int_equal(m->duration_ns, 5 * SEC); /* the end of the recording */
	f = frame(m, "timeline", 2, 160, 48);
	assert_contains(f, "00:01.5  drop       drop                  syscalls ringbuf: 7 lost");
	assert_contains(f, "00:00.5  vmas       vma snapshot          2 VMAs");
	assert_lacks(f, "libnew.so");
	assert_lacks(f, "/usr/bin/static");
	assert_lacks(f, "target_exit");
	/* newest first */
	assert_true(strstr(f, "ringbuf") < strstr(f, "2 VMAs"));
	free(f);
	f = frame(m, "timeline", 5, 160, 48);
	assert_contains(f, "00:03.0  mappings   mapping new           /usr/lib/libnew.so 10000-20000");
	assert_contains(f, "00:04.0  probe      probe change          heap active: exec /usr/bin/static");
	assert_contains(f, "00:05.0  end        end                   target_exit (exit code 3)");
	free(f);
	f = frame(m, "overview", 2, 160, 48);
	assert_contains(f, "drops by 00:02.0: 7");
	assert_contains(f, "latest event 00:01.5 drop: syscalls ringbuf: 7 lost");
	free(f);
	replay_model__free(m);
	sqlite3_close(db);
}

/* the timeline's events carry their category (the part's name, or the model's drop, probe,
 * end) and their process; the Timeline's c cycles the category filter, / takes a pid */
static void test_23_timeline_categories_and_filters(void **state)
{
	sqlite3 *db = full_db();
	struct replay_model *m;
	struct replay_ui ui = {0};
	struct grid *g = grid__new(160, 48);
	size_t i, forks = 0, signals = 0;
	char *t;

	(void)state;
	execf(db,
	      "INSERT INTO drop_notice (cap, time_ns, collector, kind, lost) VALUES "
	      "(" CAP_OF ", %lld, 'syscalls', 'ringbuf', 7)",
	      CID, BASE + 3 * SEC / 2);
	execf(db,
	      "INSERT INTO lifecycle_event (cap, time_ns, kind, pid, ppid, tid, comm) VALUES "
	      "(" CAP_OF ", %lld, 'fork', 501, 500, 500, 'kid'), "
	      "(" CAP_OF ", %lld, 'fork', 502, 500, 500, 'kid2')",
	      CID, BASE + 2 * SEC, CID, BASE + 3 * SEC);
	execf(db,
	      "INSERT INTO lifecycle_event (cap, time_ns, kind, pid, comm, signal, core_dumped) "
	      "VALUES (" CAP_OF ", %lld, 'exit', 501, 'kid', 9, 0)",
	      CID, BASE + 4 * SEC);
	/* a signal count: at its latest signal (last_ns), not at the interval's end */
	execf(db,
	      "INSERT INTO signal_count (cap, time_ns, interval_ns, pid, stage, sig, name, code, "
	      "result, sender_pid, sender_tid, sender_comm, tgid, tid, count, first_ns, last_ns) "
	      "VALUES (" CAP_OF ", %lld, %lld, 500, 'generate', 10, 'SIGUSR1', 0, 'delivered', "
	      "501, 501, 'kid', 500, 500, 37, %lld, %lld)",
	      CID, BASE + SEC, SEC, BASE + SEC / 2, BASE + 3 * SEC / 2);
	m = open_model(db);
	for (i = 0; i < m->nevents; i++) {
		const struct rm_event *e = &m->events_list[i];

		if (!strcmp(e->kind, "signal sent")) {
			assert_string_equal(e->category, "signals");
			assert_int_equal(e->t, 3 * SEC / 2);
			assert_int_equal(e->pid, 500);
			assert_string_equal(e->text,
					    "SIGUSR1 x37 from pid 501 (kid) to tid 500: delivered");
			signals++;
		}
		if (!strcmp(e->kind, "fork")) {
			assert_string_equal(e->category, "lifecycle");
			assert_true(e->pid == 501 || e->pid == 502);
			forks++;
		} else if (!strcmp(e->kind, "exit")) {
			assert_string_equal(e->category, "lifecycle");
			assert_int_equal(e->pid, 501);
			assert_string_equal(e->text, "kid killed by SIGKILL");
		} else if (!strcmp(e->kind, "drop")) {
			assert_string_equal(e->category, "drop");
			assert_int_equal(e->pid, RM_NULL);
		} else if (!strcmp(e->kind, "vma snapshot")) {
			assert_string_equal(e->category, "vmas");
		}
	}
	assert_int_equal(forks, 2);
	assert_int_equal(signals, 1);
	replay_model__seek(m, 5 * SEC);
	ui.tab = replay__find_view("timeline");
	replay__render(m, &ui, g);
	t = grid__to_text(g);
	assert_contains(t, "c category: all   / pid or word: any");
	assert_contains(t, "pid 501 forked by 500 (kid)");
	assert_contains(t, "syscalls ringbuf: 7 lost");
	free(t);
	/* c: the categories in order of their first event (vmas at 0.5 s, drop and signals at
	 * 1.5 s, lifecycle) */
	replay__key(m, &ui, 'c');
	assert_string_equal(ui.category, "vmas");
	replay__key(m, &ui, 'c');
	assert_true(!strcmp(ui.category, "drop") || !strcmp(ui.category, "signals"));
	replay__key(m, &ui, 'c');
	assert_true(!strcmp(ui.category, "drop") || !strcmp(ui.category, "signals"));
	replay__key(m, &ui, 'c');
	assert_string_equal(ui.category, "lifecycle");
	replay__render(m, &ui, g);
	t = grid__to_text(g);
	assert_contains(t, "c category: lifecycle");
	assert_contains(t, "pid 502 forked by 500 (kid2)");
	assert_lacks(t, "ringbuf");
	assert_lacks(t, "VMAs");
	free(t);
	/* / 501: that process's events only */
	replay__key(m, &ui, '/');
	replay__key(m, &ui, '5');
	replay__key(m, &ui, '0');
	replay__key(m, &ui, '1');
	replay__key(m, &ui, RK_ENTER);
	replay__render(m, &ui, g);
	t = grid__to_text(g);
	assert_contains(t, "/ pid or word: 501");
	assert_contains(t, "pid 501 forked by 500 (kid)");
	assert_contains(t, "kid killed by SIGKILL");
	assert_lacks(t, "kid2");
	free(t);
	/* past the last category: all again */
	while (*ui.category)
		replay__key(m, &ui, 'c');
	assert_string_equal(ui.category, "");
	grid__free(g);
	replay_model__free(m);
	sqlite3_close(db);
}

static void test_13_heap_tab(void **state)
{
	sqlite3 *db = full_db();
	struct replay_model *m;
	char line[512], *f;
	int t;

	(void)state;
	execf(db, "UPDATE probe SET state = 'active', source = 'ebpf', reason = NULL "
		  "WHERE name = 'heap'");
	for (t = 1; t <= 3; t++)
		execf(db,
		      "INSERT INTO heap_snapshot (cap, seq, time_ns, interval_ns, pid, lane, "
		      "sample_bytes, live_measured, alloc_count, alloc_bytes, live_bytes, "
		      "leak_bytes, "
		      "sites, total_call_sites, omitted_alloc_count, omitted_alloc_bytes, "
		      "stack_failures) VALUES (" CAP_OF
		      ", %d, %lld, %lld, 42, 'uprobe', 524288, 1, "
		      "%d, %lld, %lld, %lld, 0, 0, 0, 0, 0)",
		      CID, t, BASE + t * SEC, SEC, 100 * t, t * MIB, t * 3 * MIB, t * MIB);
	m = open_model(db);
	f = frame(m, "heap", 2.5, 160, 48);
	assert_contains(f, "Heap at 00:02.0 (lane uprobe, snapshot 2 of 3)");
	line_with(f, "this interval", line, sizeof(line));
	assert_contains(line, "200 allocations, 2.00 MiB");
	line_with(f, "live ", line, sizeof(line));
	assert_contains(line, "6.00 MiB");
	line_with(f, "older than the leak age", line, sizeof(line));
	assert_contains(line, "2.00 MiB");
	assert_contains(f, "sampled every 524288 bytes");
	free(f);
	f = frame(m, "overview", 3, 160, 48);
	line_with(f, " Heap   ", line, sizeof(line)); /* its line, not the tab bar's "9 Heap  " */
	assert_contains(line, "live 9.00 MiB");
	free(f);
	replay_model__free(m);
	sqlite3_close(db);
}


#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define BID_APP "abcd0001"
#define BID_LIBC "cdef0002"

/* frame DEPTH of stack SID: at file offset OFF of MODULE (build-id BID), named FUNC at FILE:LINE */
static void add_frame(sqlite3 *db, int sid, int depth, const char *module, const char *bid,
		      long long off, const char *func, const char *file, int line)
{
	execf(db,
	      "INSERT INTO stack_frame (cap, stack_id, depth, ip) VALUES (" CAP_OF
	      ", %d, %d, %lld)",
	      CID, sid, depth, 0x400000 + off);
	execf(db,
	      "INSERT INTO frame_module (cap, stack_id, depth, pid, ip, addr, kind, module, "
	      "build_id, file_offset, sym_space, sym_key, sym_addr) VALUES (" CAP_OF
	      ", %d, %d, 42, %lld, %lld, 'user', %Q, %Q, %lld, 'elf', %Q, %lld)",
	      CID, sid, depth, 0x400000 + off, 0x400000 + off, module, bid, off, bid, off);
	execf(db,
	      "INSERT OR IGNORE INTO symbol (space, key, addr, source, func_offset) VALUES "
	      "('elf', %Q, %lld, 'symtab', 4)",
	      bid, off);
	execf(db,
	      "INSERT OR IGNORE INTO symbol_frame (space, key, addr, depth, func, file, line, "
	      "inlined) VALUES ('elf', %Q, %lld, 0, %Q, %Q, %d, 0)",
	      bid, off, func, file, line);
}

/* Heap with call sites: snapshots at 1, 2, 3 s; stack 1 malloc <- leak_pages (leak.c:12) <- main
 * (10 pages a second up to 2 s, never freed; nothing in the third interval), stack 2 malloc <- churn (churn.c:7) <- main (100 t blocks of
 * 64 bytes, all freed). */
static sqlite3 *heap_sites_db(void)
{
	sqlite3 *db = full_db();
	int t, sid;

	execf(db, "UPDATE probe SET state = 'active', source = 'ebpf', reason = NULL "
		  "WHERE name = 'heap'");
	execf(db, "UPDATE target SET exe = '/usr/bin/app'");
	execf(db,
	      "INSERT INTO mapping (cap, time_ns, pid, start, end, offset, path, build_id, perms, "
	      "event, build_id_kind) VALUES (" CAP_OF ", %lld, 42, %lld, %lld, 0, '/usr/bin/app', "
	      "'" BID_APP "', 'r-xp', 'start', 'gnu')",
	      CID, BASE, 0x400000LL, 0x500000LL);
	for (sid = 1; sid <= 2; sid++) {
		execf(db,
		      "INSERT INTO stack (cap, stack_id, kernel, depth) VALUES (" CAP_OF
		      ", %d, 0, 3)",
		      CID, sid);
		add_frame(db, sid, 0, LIBC, BID_LIBC, 0x100, "malloc", "malloc.c", 3000);
		add_frame(db, sid, 1, "/usr/bin/app", BID_APP, sid == 1 ? 0x200 : 0x300,
			  sid == 1 ? "leak_pages" : "churn", sid == 1 ? "leak.c" : "churn.c",
			  sid == 1 ? 12 : 7);
		add_frame(db, sid, 2, "/usr/bin/app", BID_APP, 0x400, "main", "main.c", 30);
	}
	for (t = 1; t <= 3; t++) {
		execf(db,
		      "INSERT INTO heap_snapshot (cap, seq, time_ns, interval_ns, pid, lane, module, "
		      "sample_bytes, live_measured, alloc_count, alloc_bytes, live_bytes, "
		      "live_count, leak_bytes, leak_count, leak_age_ns, sites, total_call_sites, "
		      "omitted_alloc_count, omitted_alloc_bytes, omitted_live_bytes, "
		      "live_untracked, stack_failures, free_untracked) VALUES (" CAP_OF
		      ", %d, %lld, %lld, 42, 'uprobe', '" LIBC "', 0, 1, %d, %lld, %lld, %d, "
		      "%lld, %d, %lld, 2, 2, 0, 0, 0, 0, 0, 0)",
		      CID, t, BASE + t * SEC, SEC, (t < 3 ? 10 : 0) + 100 * t,
		      (t < 3 ? 40960LL : 0) + 6400LL * t, 40960LL * (t < 3 ? t : 2),
		      10 * (t < 3 ? t : 2), 40960LL * (t - 1), 10 * (t - 1), SEC);
		execf(db,
		      "INSERT INTO heap_site (cap, seq, stack_id, alloc_count, alloc_bytes, "
		      "live_count, live_bytes, freed_count, lifetime_ns_sum, oldest_live_ns) VALUES "
		      "(" CAP_OF ", %d, 1, %d, %lld, %d, %lld, 0, 0, %lld), "
		      "(" CAP_OF ", %d, 2, %d, %lld, 0, 0, %d, %lld, NULL)",
		      CID, t, t < 3 ? 10 : 0, t < 3 ? 40960LL : 0, 10 * (t < 3 ? t : 2),
		      40960LL * (t < 3 ? t : 2), BASE + SEC / 2, CID, t, 100 * t, 6400LL * t,
		      100 * t, 1000000LL * t);
	}
	return db;
}

static char *render(struct replay_model *m, struct replay_ui *ui, int w, int h)
{
	struct grid *g = grid__new(w, h);
	char *t;

	assert_non_null(g);
	replay__render(m, ui, g);
	t = grid__to_text(g);
	assert_non_null(t);
	grid__free(g);
	return t;
}

/* F9 Heap: the top call sites of the interval at the position, named, with the census; the leak
 * suspects up to it, ranked by trend; Enter drills into the selected site's stack, Esc back. */
static void test_16_heap_sites_and_stack(void **state)
{
	sqlite3 *db = heap_sites_db();
	struct replay_model *m;
	struct replay_ui ui = {0};
	char line[512], *f;

	(void)state;
	m = open_model(db);
	f = frame(m, "heap", 2.5, 160, 48);
	assert_contains(f, "census: the site lists are complete (2 sites in the last interval)");
	assert_contains(f, "Top call sites in this interval by live bytes: 2");
	line_with(f, "leak_pages", line, sizeof(line));
	assert_contains(line, "80.0 KiB"); /* live at 2 s */
	assert_contains(line, "40.0 KiB"); /* allocated in (1 s, 2 s] */
	assert_contains(line, "leak.c:12");
	assert_contains(line, "app");
	line_with(f, "churn", line, sizeof(line));
	assert_contains(line, "12.5 KiB"); /* 200 x 64 bytes in the interval, not the sum */
	assert_contains(line, "200");
	assert_contains(line, "churn.c:7");
	assert_lacks(f, "malloc.c"); /* the allocator's frame is not the site */
	/* suspects up to 2 s: leak_pages, two snapshots: no trend yet */
	line_with(f, "Leak suspects up to here", line, sizeof(line));
	assert_contains(line, ": 1 (live allocations older than 1.00 s");
	line_with(f, "score ", line, sizeof(line));
	assert_contains(line, "score 0.00 (none, 2 snapshots)");
	assert_contains(line, "leak_pages (app)");
	free(f);
	/* at 3 s leak_pages allocated nothing: still first by live bytes, still named */
	f = frame(m, "heap", 3, 160, 48);
	line_with(f, "leak_pages", line, sizeof(line));
	assert_contains(line, "80.0 KiB       20        0 B        0 leak_pages");
	assert_contains(line, "leak.c:12");
	line_with(f, "score ", line, sizeof(line));
	assert_contains(line, "(low, 3 snapshots)  live 80.0 KiB  oldest 2.50 s  leak_pages (app)");
	free(f);

	/* Enter on the selected (top) site: its stack, named */
	replay_model__seek(m, 3 * SEC);
	ui.tab = replay__find_view("heap");
	free(render(m, &ui, 160, 48));
	assert_string_equal(ui.selected, "leak_pages");
	replay__key(m, &ui, RK_ENTER);
	f = render(m, &ui, 160, 48);
	assert_contains(f, "Stack of leak_pages, the allocating function first");
	line_with(f, "leak_pages at", line, sizeof(line));
	assert_contains(line, "leak_pages at leak.c:12  (app)");
	line_with(f, "main at", line, sizeof(line));
	assert_contains(line, "main at main.c:30  (app)");
	assert_lacks(f, "malloc at");
	free(f);
	/* the second row: ↓ then Enter */
	replay__key(m, &ui, RK_ESC);
	replay__key(m, &ui, RK_DOWN);
	free(render(m, &ui, 160, 48));
	assert_string_equal(ui.selected, "churn");
	replay__key(m, &ui, RK_ENTER);
	f = render(m, &ui, 160, 48);
	assert_contains(f, "churn at churn.c:7  (app)");
	free(f);
	replay__key(m, &ui, RK_ESC);
	f = render(m, &ui, 80, 24); /* the small size: still the sites */
	assert_contains(f, "leak_pages");
	free(f);
	replay_model__free(m);
	sqlite3_close(db);
}

/* Every tab at many sizes and positions, with long names and odd bytes in the data: no crash, no
 * write outside the grid (ASan), and each frame has exactly H lines. */
static void test_14_every_tab_every_size(void **state)
{
	sqlite3 *db = full_db();
	struct replay_model *m;
	static const int sizes[][2] = {{80, 24},  {81, 25}, {100, 30}, {160, 48},
				       {250, 70}, {1, 1},   {79, 60},  {300, 24}};
	size_t v, z, k, lines;
	int p;

	(void)state;
	execf(db, "UPDATE target SET comm = 'x\x01\xffä¸­%s' WHERE 1",
	      "very-long-command-name-that-goes-on-and-on-and-on-and-on-and-on-and-on-and-on-"
	      "and-on-and-on-and-on-and-on-and-on-and-on-and-on");
	execf(db,
	      "INSERT INTO vma (cap, snapshot_id, start, end, path, size, rss, pss, uss) VALUES "
	      "(" CAP_OF ", 1, 1, 2, '/%s/ä¸­æ.so', 1, NULL, NULL, NULL)",
	      CID,
	      "a-very-long-directory-name/that-keeps-going/and-going/and-going/and-going/and-"
	      "going");
	m = open_model(db);
	for (v = 0; v < replay__tabs()->n; v++)
		for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
			for (p = -1; p <= 9; p += 2) {
				char *f = frame(m, replay__tabs()->tab[v].view[0]->id, p * 0.5,
						sizes[z][0], sizes[z][1]);

				for (k = 0, lines = 0; f[k]; k++)
					lines += f[k] == '\n';
				assert_int_equal(lines, sizes[z][1]);
				free(f);
			}
	replay_model__free(m);
	sqlite3_close(db);
}

/* A DB without the tables the model reads: an error with a reason, no crash. */
static void test_15_broken_db(void **state)
{
	sqlite3 *db = full_db();
	char err[256] = "";

	(void)state;
	execf(db, "DROP TABLE memory_sample");
	errno = 0;
	assert_null(replay_model__open(db, CID, err, sizeof(err)));
	assert_int_equal(errno, EIO);
	assert_non_null(strstr(err, "cannot read the memory samples"));
	sqlite3_close(db);
}

/* ------------------------------------------------------------------ a whole cgroup */

static void add_cg_sample(sqlite3 *db, int seq, int t, long long cur, long long peak, int oom,
			  int oom_kill, int max, int procs, int covered, int denied)
{
	execf(
	    db,
	    "INSERT INTO cgroup_sample (cap, seq, time_ns, interval_ns, path, lane, current, "
	    "limit_bytes, peak, oom_delta, oom_kill_delta, oom_kill_total, high_delta, max_delta, "
	    "processes, covered, denied, gone, skipped, walk_ns, budget_ns) VALUES (" CAP_OF
	    ", %d, %lld, %lld, '/work.slice/demo', 'v2', %lld, %lld, %lld, %d, %d, %d, 0, %d, "
	    "%d, %d, %d, 0, 0, 1500000, 50000000)",
	    CID, seq, BASE + t * SEC, SEC, cur, 64 * MIB, peak, oom, oom_kill, oom_kill, max, procs,
	    covered, denied);
}

static void add_cg_stat(sqlite3 *db, int seq, long long anon, long long file, long long shmem)
{
	execf(db,
	      "INSERT INTO cgroup_stat (cap, seq, key, value) VALUES (" CAP_OF
	      ", %d, 'anon', %lld), (" CAP_OF ", %d, 'file', %lld), (" CAP_OF
	      ", %d, 'shmem', %lld)",
	      CID, seq, anon, CID, seq, file, CID, seq, shmem);
}

static void add_cg_proc(sqlite3 *db, int seq, int pid, const char *comm, const char *unit,
			const char *state, long long rss, long long pss, long long uss)
{
	/* NULL unless covered, as the loader writes them */
	execf(db,
	      "INSERT INTO cgroup_proc (cap, seq, pid, comm, unit, state, rss, pss, uss) VALUES "
	      "(" CAP_OF ", %d, %d, %Q, %Q, %Q, %lld, %lld, %lld)",
	      CID, seq, pid, comm, unit, state, rss, pss, uss);
	if (strcmp(state, "covered"))
		execf(db,
		      "UPDATE cgroup_proc SET rss = NULL, pss = NULL, uss = NULL "
		      "WHERE seq = %d AND pid = %d",
		      seq, pid);
}

/* A capture of a whole cgroup (ptop-record --cgroup): the per-process memory and vmas probes
 * unsupported, the cgroup collector's samples at 1, 2 and 3 s: current 10, 30, 20 MiB of a 64 MiB
 * limit, an OOM kill in the second interval, web (app-web.scope) and worker covered, a third
 * process denied from the second on. */
static sqlite3 *cgroup_db(void)
{
	sqlite3 *db = new_db(1);

	execf(db, "UPDATE target SET mode = 'cgroup', pid = NULL, comm = NULL, "
		  "cgroup_path = '/work.slice/demo'");
	add_probe(db, "memory", "unsupported", NULL, "a cgroup capture: see the cgroup probe");
	add_probe(db, "vmas", "unsupported", NULL, "a cgroup capture: see the cgroup probe");
	add_probe(db, "cgroup", "active", "proc", NULL);
	add_cg_sample(db, 0, 1, 10 * MIB, 12 * MIB, 0, 0, 0, 2, 2, 0);
	add_cg_sample(db, 1, 2, 30 * MIB, 32 * MIB, 1, 1, 3, 3, 2, 1);
	add_cg_sample(db, 2, 3, 20 * MIB, 32 * MIB, 0, 0, 0, 3, 2, 1);
	add_cg_stat(db, 0, 6 * MIB, 3 * MIB, 1 * MIB);
	add_cg_stat(db, 1, 20 * MIB, 8 * MIB, 2 * MIB);
	execf(db,
	      "INSERT INTO cgroup_psi (cap, seq, resource, kind, avg10, avg60, avg300) VALUES "
	      "(" CAP_OF ", 0, 'memory', 'some', 1.5, 0, 0), (" CAP_OF
	      ", 0, 'memory', 'full', 0.5, 0, 0), (" CAP_OF ", 1, 'memory', 'some', 12.25, 0, 0), "
	      "(" CAP_OF ", 1, 'memory', 'full', 4, 0, 0), (" CAP_OF ", 1, 'cpu', 'some', 3, 0, 0)",
	      CID, CID, CID, CID, CID);
	add_cg_proc(db, 0, 100, "web", "app-web.scope", "covered", 8 * MIB, 6 * MIB, 5 * MIB);
	add_cg_proc(db, 0, 200, "worker", NULL, "covered", 4 * MIB, 3 * MIB, 2 * MIB);
	add_cg_proc(db, 1, 100, "web", "app-web.scope", "covered", 20 * MIB, 18 * MIB, 16 * MIB);
	add_cg_proc(db, 1, 200, "worker", NULL, "covered", 26 * MIB, 5 * MIB, 4 * MIB);
	add_cg_proc(db, 1, 300, "secret", NULL, "denied", 0, 0, 0);
	add_cg_proc(db, 2, 100, "web", "app-web.scope", "covered", 14 * MIB, 12 * MIB, 10 * MIB);
	add_cg_proc(db, 2, 200, "worker", NULL, "skipped", 0, 0, 0);
	add_cg_proc(db, 2, 300, "secret", NULL, "denied", 0, 0, 0);
	return db;
}

/* The Memory tab of a cgroup capture: the cgroup collector's sample at the position (usage,
 * memory.stat, OOM events so far, pressure, the processes by PSS, coverage), which changes with
 * the time; the s key sorts the process table; the Overview summarizes it. */
static void test_17_cgroup_memory(void **state)
{
	sqlite3 *db = cgroup_db();
	struct replay_model *m = open_model(db);
	struct replay_ui ui = {.tab = replay__find_view("memory")};
	char *f, l[256];

	(void)state;
	f = frame(m, "memory", 0.5, 120, 40);
	assert_contains(f, "no cgroup sample by 00:00.5");
	assert_lacks(f, "not collected");
	free(f);

	f = frame(m, "memory", 1.5, 120, 40);
	assert_contains(f, "cgroup /work.slice/demo  lane v2  sample 1 of 3 at 00:01.0");
	assert_contains(f, "current 10.0 MiB / limit 64.0 MiB (15.6%)  peak 12.0 MiB");
	assert_contains(f, "memory.stat: anon 6.00 MiB file 3.00 MiB shmem 1.00 MiB");
	assert_contains(f, "OOM events so far: oom 0, oom_kill 0, max 0, high 0");
	assert_contains(f, "pressure avg10: memory some 1.50% full 0.50%");
	assert_contains(line_with(f, " web ", l, sizeof(l)), "app-web.scope");
	assert_contains(l, "8.00 MiB   6.00 MiB   5.00 MiB covered");
	assert_lacks(f, "secret");
	assert_contains(f, "coverage this interval: 2 processes due: 2 covered, 0 denied, 0 gone, "
			   "0 skipped; reads took 1.50 ms, budget 50.0 ms");
	free(f);

	f = frame(m, "memory", 2.5, 120, 40);
	assert_contains(f, "sample 2 of 3 at 00:02.0");
	assert_contains(f, "current 30.0 MiB / limit 64.0 MiB (46.9%)  peak 32.0 MiB");
	assert_contains(f, "memory.stat: anon 20.0 MiB file 8.00 MiB shmem 2.00 MiB");
	assert_contains(f, "OOM events so far: oom 1, oom_kill 1, max 3, high 0");
	assert_contains(f, "memory some 12.25% full 4.00%  cpu some 3.00% full -");
	assert_contains(line_with(f, " web ", l, sizeof(l)), "18.0 MiB");
	assert_contains(line_with(f, " secret ", l, sizeof(l)), "denied");
	assert_contains(f, "3 processes due: 2 covered, 1 denied");
	/* by PSS: web (18 MiB) before worker (5 MiB), the denied one last */
	assert_true(strstr(f, " web ") < strstr(f, " worker "));
	assert_true(strstr(f, " worker ") < strstr(f, " secret "));
	free(f);

	/* at 3 s (read on from 2 s): the OOM kill stays counted; worker skipped shows its last
	 * covered read; the same frame as a model that jumps there from the start */
	f = frame(m, "memory", 3, 120, 40);
	{
		struct replay_model *m2 = open_model(db);
		char *f2 = frame(m2, "memory", 3, 120, 40);

		assert_string_equal(f, f2);
		free(f2);
		replay_model__free(m2);
	}
	assert_contains(f, "OOM events so far: oom 1, oom_kill 1");
	assert_contains(f, "memory.stat: none of its figures in this sample");
	assert_contains(line_with(f, " worker ", l, sizeof(l)), "5.00 MiB");
	assert_contains(l, "skipped");
	free(f);

	/* s: by RSS, worker (26 MiB) first */
	replay_model__seek(m, 2 * SEC);
	replay__key(m, &ui, 's');
	f = render(m, &ui, 120, 40);
	assert_contains(f, "sort rss (s)");
	assert_true(strstr(f, " worker ") < strstr(f, " web "));
	free(f);

	f = frame(m, "overview", 2.5, 120, 40);
	assert_contains(f, "cgroup /work.slice/demo v2  current 30.0 MiB / limit 64.0 MiB");
	assert_contains(f, "processes 3: 2 covered, 1 denied, 0 gone, 0 skipped");
	assert_contains(f, "OOM so far: oom 1, oom_kill 1");
	assert_lacks(f, "not collected \u2014 unsupported");
	free(f);
	replay_model__free(m);
	sqlite3_close(db);
}

/* A long cgroup capture (600 samples, more than two checkpoints of the processes seen): the
 * Memory tab at positions reached forward, backward and by jumps equals the one a model opened
 * there from the start draws. */
static void test_18_cgroup_seeks(void **state)
{
	static const double at[] = {599.5, 300, 255, 256, 10, 520, 257, 511, 512, 0.5, 600};
	sqlite3 *db = new_db(1);
	struct replay_model *m;
	size_t k;

	(void)state;
	execf(db, "UPDATE target SET mode = 'cgroup', pid = NULL, cgroup_path = '/long'");
	add_probe(db, "cgroup", "active", "proc", NULL);
	execf(db,
	      "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 599) "
	      "INSERT INTO cgroup_sample (cap, seq, time_ns, path, lane, current, processes, "
	      "covered, denied, gone, skipped) SELECT " CAP_OF ", i, %lld + (i + 1) * %lld, "
	      "'/long', 'v2', i * 4096, 2, 1, 0, 0, 1 FROM n",
	      CID, BASE, SEC);
	/* pid 100 covered in even samples (PSS 4 KiB x seq), skipped in odd ones; pid 200 covered
	 * every 100th, skipped otherwise; pid 300 only in samples 250 to 260, denied */
	execf(db,
	      "INSERT INTO cgroup_proc (cap, seq, pid, comm, state, rss, pss, uss) "
	      "SELECT cap, seq, 100, 'even', CASE WHEN seq %% 2 THEN 'skipped' ELSE 'covered' END, "
	      "CASE WHEN seq %% 2 THEN NULL ELSE seq * 8192 END, "
	      "CASE WHEN seq %% 2 THEN NULL ELSE seq * 4096 END, "
	      "CASE WHEN seq %% 2 THEN NULL ELSE seq * 2048 END FROM cgroup_sample");
	execf(db,
	      "INSERT INTO cgroup_proc (cap, seq, pid, comm, state, rss, pss, uss) "
	      "SELECT cap, seq, 200, 'rare', CASE WHEN seq %% 100 THEN 'skipped' ELSE 'covered' "
	      "END, CASE WHEN seq %% 100 THEN NULL ELSE 1048576 + seq END, "
	      "CASE WHEN seq %% 100 THEN NULL ELSE 1048576 + seq * 1024 END, NULL "
	      "FROM cgroup_sample");
	execf(db, "INSERT INTO cgroup_proc (cap, seq, pid, comm, state) SELECT cap, seq, 300, "
		  "'brief', 'denied' FROM cgroup_sample WHERE seq BETWEEN 250 AND 260");
	m = open_model(db);
	for (k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		struct replay_model *fresh = open_model(db);
		char *f = frame(m, "memory", at[k], 120, 30),
		     *f2 = frame(fresh, "memory", at[k], 120, 30);

		assert_string_equal(f, f2);
		if (at[k] == 257)
			assert_contains(f, " brief ");
		if (at[k] == 300) { /* sample 299: even skipped, its read of 298; rare of 200 */
			assert_contains(line_with(f, " even ", (char[256]){0}, 256), "1.16 MiB");
			assert_contains(line_with(f, " rare ", (char[256]){0}, 256), "1.20 MiB");
			assert_lacks(f, " brief ");
		}
		free(f);
		free(f2);
		replay_model__free(fresh);
	}
	replay_model__free(m);
	sqlite3_close(db);
}

/* The arrows step from one interval end to the next, whatever their lengths: a recording's
 * first interval is often short (30 ms, then 1 s each), and a fixed 1 s grid landed at 1.0 s,
 * where the last interval ended is the 30 ms one, so the second interval, holding the work,
 * was never shown by stepping. The status line says the interval and the step. */
static void test_19_step_by_interval_ends(void **state)
{
	sqlite3 *db = new_db(1);
	struct replay_model *m;
	struct replay_ui ui = {0};
	const int64_t ms = SEC / 1000;

	(void)state;
	add_probe(db, "cpu", "active", "ebpf", NULL);
	execf(db,
	      "INSERT INTO cpu_sample (cap, time_ns, interval_ns, pid, oncpu_ns, threads) VALUES "
	      "(" CAP_OF ", %lld, %lld, 42, 1, 1), (" CAP_OF ", %lld, %lld, 42, %lld, 1), "
	      "(" CAP_OF ", %lld, %lld, 42, %lld, 1)",
	      CID, BASE + 30 * ms, 30 * ms, CID, BASE + 1030 * ms, SEC, SEC / 2, CID,
	      BASE + 2030 * ms, SEC, SEC / 4);
	m = open_model(db);
	assert_int_equal(m->nends, 3);
	/* from the end (the capture's last event, at 4 s, past the last interval: the views
	 * show interval 3 there) back: each step shows another interval, 1.030 (the interval
	 * of the work), then 0.030, then none */
	replay_model__seek(m, m->duration_ns);
	assert_int_equal(m->pos_ns, 4 * SEC);
	assert_int_equal(cpu_series__at(cpu_series(m), m->pos_ns), 2);
	assert_int_equal(replay_model__step(m, -1), 1);
	assert_int_equal(m->pos_ns, 1030 * ms);
	assert_true(fabs(cpu_series__pct(m, cpu_series(m),
					 (size_t)cpu_series__at(cpu_series(m), m->pos_ns)) -
			 50.0) < 1e-9);
	assert_int_equal(replay_model__step(m, -1), 0);
	assert_int_equal(m->pos_ns, 30 * ms);
	assert_int_equal(replay_model__step(m, -1), -1);
	assert_int_equal(m->pos_ns, 0);
	/* forward from 0 and from between two ends */
	assert_int_equal(replay_model__step(m, 1), 0);
	assert_int_equal(m->pos_ns, 30 * ms);
	replay_model__seek(m, 500 * ms);
	assert_int_equal(replay_model__step(m, 1), 1);
	assert_int_equal(m->pos_ns, 1030 * ms);
	/* back from inside interval 2 (shown: interval 1, ended 0.030): to the start */
	replay_model__seek(m, 500 * ms);
	assert_int_equal(replay_model__step(m, -1), -1);
	assert_int_equal(m->pos_ns, 0);
	replay_model__seek(m, 30 * ms);
	assert_int_equal(replay_model__step(m, 2), 2);
	assert_int_equal(m->pos_ns, 2030 * ms);
	/* past the last interval: the end of the recording, in no interval */
	assert_int_equal(replay_model__step(m, 10), -1);
	assert_int_equal(m->pos_ns, 4 * SEC);
	/* the keys, and the status line that says where the step landed */
	replay_model__seek(m, 0);
	replay__key(m, &ui, RK_RIGHT);
	replay__key(m, &ui, RK_RIGHT);
	assert_int_equal(m->pos_ns, 1030 * ms);
	assert_non_null(strstr(ui.status, "interval 2 of 3: 0.030..1.030 s (1.000 s)"));
	assert_non_null(strstr(ui.status, "interval end to the next"));
	replay__key(m, &ui, RK_SLEFT);
	assert_int_equal(m->pos_ns, 0);
	/* G: the end of the recording, interval 3 shown; one left arrow shows interval 2 */
	replay__key(m, &ui, 'G');
	assert_int_equal(m->pos_ns, 4 * SEC);
	assert_non_null(strstr(ui.status, "end of the recording at 4.000 s: interval 3 of 3"));
	replay__key(m, &ui, RK_LEFT);
	assert_non_null(strstr(ui.status, "interval 2 of 3: 0.030..1.030 s"));
	replay_model__free(m);
	sqlite3_close(db);
}

/* The arrows step through the interval ends of every part that declares them, merged: here
 * cpu's (1 s, 2 s) and memory's (1.5 s, 3 s, at other times than cpu's), four ends in all.
 * (Before, only the first series the capture had stepped: cpu's two.) */
static void test_22_step_merged_ends(void **state)
{
	sqlite3 *db = new_db(1);
	struct replay_model *m;
	const int64_t ms = SEC / 1000;

	(void)state;
	add_probe(db, "cpu", "active", "ebpf", NULL);
	add_probe(db, "memory", "active", "proc", NULL);
	execf(db,
	      "INSERT INTO cpu_sample (cap, time_ns, interval_ns, pid, oncpu_ns, threads) VALUES "
	      "(" CAP_OF ", %lld, %lld, 42, 1, 1), (" CAP_OF ", %lld, %lld, 42, 1, 1)",
	      CID, BASE + SEC, SEC, CID, BASE + 2 * SEC, SEC);
	execf(db,
	      "INSERT INTO memory_sample (cap, time_ns, pid, rss) VALUES (" CAP_OF ", %lld, 42, "
	      "4096), (" CAP_OF ", %lld, 42, 8192)",
	      CID, BASE + 1500 * ms, CID, BASE + 3 * SEC);
	m = open_model(db);
	assert_int_equal(m->nends, 4);
	assert_int_equal(m->ends[0], SEC);
	assert_int_equal(m->ends[1], 1500 * ms);
	assert_int_equal(m->ends[2], 2 * SEC);
	assert_int_equal(m->ends[3], 3 * SEC);
	assert_int_equal(replay_model__step(m, 2), 1);
	assert_int_equal(m->pos_ns, 1500 * ms);
	assert_int_equal(replay_model__step(m, 1), 2);
	assert_int_equal(m->pos_ns, 2 * SEC);
	assert_int_equal(replay_model__step(m, 1), 3);
	assert_int_equal(m->pos_ns, 3 * SEC);
	replay_model__free(m);
	sqlite3_close(db);
}

/* The uprobe trampolines' syscalls (x86_64 uretprobe, uprobe) are probe overhead: a
 * line of their own, not among the target's rows, in neither its totals nor the
 * overview's top list. A DB's stored "sys_335" gets its name from ptop's table. */
static void test_20_syscalls_probe_overhead(void **state)
{
	sqlite3 *db = full_db();
	struct replay_model *m;
	char line[512], *f;
	int t;

	(void)state;
	execf(db, "UPDATE capture SET machine = 'x86_64'");
	for (t = 1; t <= 3; t++)
		add_syscall(db, t, 335, "sys_335", 100000, 0, 180000000, 10, 100000, -1, 0);
	m = open_model(db);
	f = frame(m, "syscalls", 2.5, 160, 48);
	/* the target's: getppid 20 + read 5 */
	assert_contains(f, "2 syscalls, 25 calls, 1 errors");
	line_with(f, "probe overhead, not counted above", line, sizeof(line));
	assert_contains(line, "100,000 calls, 180 ms in the uprobe trampolines' syscalls");
	assert_lacks(f, "sys_335");
	/* no row of the table is the probes' */
	assert_lacks(f, "\nuretprobe");
	assert_lacks(f, " uretprobe  ");
	line_with(f, "getppid", line, sizeof(line));
	assert_contains(line, " 20 ");
	free(f);
	f = frame(m, "overview", 2.5, 160, 48);
	line_with(f, "Top syscalls", line, sizeof(line));
	assert_lacks(f, "uretprobe");
	assert_contains(f, "getppid");
	free(f);
	replay_model__free(m);
	sqlite3_close(db);
}

/* ------------------------------------------------------------------ the tab bar */

static void fake_draw(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
		      int w, int h)
{
	(void)m, (void)ui, (void)g, (void)x, (void)y, (void)w, (void)h;
}

/* Whether V is a view of one of the parts of an_parts[]. */
static bool part_view(const struct replay_view *v)
{
	for (const struct an_part *const *p = an_parts; *p; p++)
		for (const struct replay_view *const *k = (*p)->views; k && *k; k++)
			if (*k == v)
				return true;
	return false;
}

/* The tabs come from the parts' views and the core's: the collectors' parts make today's nine, in
 * their order, the Memory tab with the memory collector's view and the cgroup collector's, the
 * one whose probe ran shown; a part's view with a placeholder's id takes its place, one with a new
 * id its declared position; too many views of an id or too many ids are refused. A collector
 * added to collectors.def (the toy of tests/e2e/toy_collector.sh) adds its tabs among them. */
static void test_21_tabs_from_parts(void **state)
{
	static const char *const ids[] = {"overview", "syscalls", "network", "threads", "io",
					  "fds",      "timeline", "memory",  "heap"};
	static const struct replay_view net = {
	    .name = "Net", .id = "network", .position = 30, .probe = "net", .draw = fake_draw};
	static const struct replay_view gpu = {
	    .name = "GPU", .id = "gpu", .position = 55, .probe = "gpu", .draw = fake_draw};
	static const struct replay_view late = {
	    .name = "Late", .id = "late", .position = 1000, .probe = "net", .draw = fake_draw};
	static const struct replay_view *const net_views[] = {&net, &late, NULL};
	static const struct replay_view *const gpu_views[] = {&gpu, NULL};
	static const struct replay_view *const five_net[] = {&net, &net, &net, &net, &net, NULL};
	const struct an_part net_part = {.name = "net", .views = net_views};
	const struct an_part gpu_part = {.name = "gpu", .views = gpu_views};
	const struct an_part none_part = {.name = "none"};
	const struct an_part over_part = {.name = "over", .views = five_net};
	const struct an_part *const parts[] = {&gpu_part, &none_part, &net_part, NULL};
	const struct an_part *const over[] = {&over_part, NULL};
	const struct replay_tabs *t = replay__tabs();
	struct replay_tabs b;
	struct replay_model *m;
	sqlite3 *db;
	size_t i, k = 0, added = 0;
	int mem, network;

	(void)state;
	assert_int_equal(replay_tabs__build(&b, an_parts), 0);
	assert_memory_equal(&b, t, sizeof(b));
	for (i = 0; i < t->n; i++) {
		const struct replay_view *v = t->tab[i].view[0];

		assert_int_equal(replay__find_view(v->id), (int)i);
		if (k < sizeof(ids) / sizeof(ids[0]) && !strcmp(v->id, ids[k])) {
			k++;
			continue;
		}
		assert_true(part_view(v)); /* an added collector's */
		added++;
	}
	assert_int_equal(k, sizeof(ids) / sizeof(ids[0]));
	assert_int_equal(t->n, k + added);
	mem = replay__find_view("memory");
	network = replay__find_view("network");
	assert_int_equal(t->tab[mem].nview, 2);
	assert_string_equal(t->tab[mem].view[0]->probe, "memory");
	assert_string_equal(t->tab[mem].view[1]->probe, "cgroup");
	assert_null(t->tab[0].view[0]->probe);
	assert_int_equal(replay__find_view("9"), 8);
	assert_int_equal(replay__find_view("I/O"), replay__find_view("io"));
	if (!added) /* today's nine */
		assert_int_equal(replay__find_view("I/O"), 4);

	/* the memory collector's view when it ran, the cgroup collector's when only that one did */
	db = full_db();
	m = open_model(db);
	assert_ptr_equal(replay__tab_view(m, mem), t->tab[mem].view[0]);
	assert_ptr_equal(replay__tab_view(m, network), t->tab[network].view[0]);
	assert_null(replay__tab_view(m, (int)t->n));
	assert_null(replay__tab_view(m, -1));
	assert_null(replay_model__probe(m, "nope"));
	assert_non_null(replay_model__probe(m, "cgroup"));
	assert_false(replay_model__probe(m, "cgroup")->found);
	replay_model__free(m);
	sqlite3_close(db);
	db = cgroup_db();
	m = open_model(db);
	assert_ptr_equal(replay__tab_view(m, mem), t->tab[mem].view[1]);
	replay_model__free(m);
	sqlite3_close(db);

	/* placeholders yield to a part's view of their id; new ids go where they say */
	assert_int_equal(replay_tabs__build(&b, parts), 0);
	/* overview, network, gpu, timeline, late: I/O and FDs are parts' */
	assert_int_equal(b.n, 5);
	assert_ptr_equal(b.tab[1].view[0], &net);
	assert_int_equal(b.tab[1].nview, 1);
	assert_ptr_equal(b.tab[2].view[0], &gpu);
	assert_string_equal(b.tab[3].view[0]->id, "timeline");
	assert_ptr_equal(b.tab[4].view[0], &late);
	assert_int_equal(replay_tabs__build(&b, over), -E2BIG);
	assert_int_equal(b.tab[1].nview, REPLAY_TAB_VIEWS);
	{ /* more ids than the bar holds: those that fit */
		static struct replay_view many[REPLAY_TABS_MAX];
		static const struct replay_view *many_views[REPLAY_TABS_MAX + 1];
		static char names[REPLAY_TABS_MAX][16];
		const struct an_part many_part = {.name = "many", .views = many_views};
		const struct an_part *const many_parts[] = {&many_part, NULL};

		for (i = 0; i < REPLAY_TABS_MAX; i++) {
			snprintf(names[i], sizeof(names[i]), "t%zu", i);
			many[i] = (struct replay_view){.name = names[i],
						       .id = names[i],
						       .position = (int)i,
						       .draw = fake_draw};
			many_views[i] = &many[i];
		}
		assert_int_equal(replay_tabs__build(&b, many_parts), -E2BIG);
		assert_int_equal(b.n, REPLAY_TABS_MAX);
		/* the parts' first: the core's views found no room */
		assert_string_equal(b.tab[0].view[0]->id, "t0");
		assert_string_equal(b.tab[REPLAY_TABS_MAX - 1].view[0]->id,
				    names[REPLAY_TABS_MAX - 1]);
	}
}

/* replay --follow: the model read again after the loader appended rows (its capture row's
 * event span moved on) has the new intervals; a position at the end stays at the end, any
 * other stays; speed and the model's address are kept; it draws what a model opened on the
 * grown DB draws. */
static void add_cpu(sqlite3 *db, int t)
{
	execf(db,
	      "INSERT INTO cpu_sample (cap, time_ns, interval_ns, pid, oncpu_ns, threads) VALUES "
	      "(" CAP_OF ", %lld, %lld, 42, %lld, 3)",
	      CID, BASE + t * SEC, SEC, SEC / 10 * t);
	execf(db, "UPDATE capture SET last_event_ns = %lld", BASE + t * SEC);
}

static void test_24_refresh(void **state)
{
	sqlite3 *db = new_db(0);
	struct replay_model *m, *other, *fresh, *before;
	char err[256], sp[16], *a, *b;

	(void)state;
	add_probe(db, "cpu", "active", "ebpf", NULL);
	add_cpu(db, 1);
	add_cpu(db, 2);
	m = open_model(db);
	other = open_model(db);
	replay_model__seek(m, INT64_MAX);
	assert_int_equal(m->pos_ns, 2 * SEC);
	replay_model__speed(m, 1);
	replay_model__seek(other, SEC);
	assert_int_equal(cpu_series(m)->n, 2);

	add_cpu(db, 3);
	add_cpu(db, 4);
	before = m;
	assert_int_equal(replay_model__refresh(m, err, sizeof(err)), 0);
	assert_ptr_equal(m, before);
	assert_int_equal(cpu_series(m)->n, 4);
	assert_int_equal(m->nends, 4);
	assert_int_equal(m->duration_ns, 4 * SEC);
	assert_int_equal(m->pos_ns, 4 * SEC); /* kept to the end */
	assert_string_equal(replay_model__speed_str(m, sp, sizeof(sp)), "2x");
	assert_int_equal(replay_model__refresh(other, err, sizeof(err)), 0);
	assert_int_equal(other->pos_ns, SEC); /* not at the end: stays */
	assert_int_equal(other->nends, 4);

	fresh = open_model(db);
	replay_model__speed(fresh, 1);
	a = frame(m, "overview", 4, 120, 40);
	b = frame(fresh, "overview", 4, 120, 40);
	assert_string_equal(a, b);
	free(a);
	free(b);
	replay_model__free(fresh);
	replay_model__free(other);
	replay_model__free(m);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_grid_text_clipping_and_wide),
	    cmocka_unit_test(test_02_sparkline_measured_vs_missing),
	    cmocka_unit_test(test_03_model_load_and_seek),
	    cmocka_unit_test(test_04_model_errors),
	    cmocka_unit_test(test_05_syscalls_frame_at_time),
	    cmocka_unit_test(test_06_not_collected_never_zeros),
	    cmocka_unit_test(test_07_memory_frame),
	    cmocka_unit_test(test_08_too_small_and_resize),
	    cmocka_unit_test(test_09_keys),
	    cmocka_unit_test(test_10_time_parse_and_format),
	    cmocka_unit_test(test_11_drill_into_vma_group),
	    cmocka_unit_test(test_12_timeline),
	    cmocka_unit_test(test_13_heap_tab),
	    cmocka_unit_test(test_14_every_tab_every_size),
	    cmocka_unit_test(test_15_broken_db),
	    cmocka_unit_test(test_16_heap_sites_and_stack),
	    cmocka_unit_test(test_17_cgroup_memory),
	    cmocka_unit_test(test_18_cgroup_seeks),
	    cmocka_unit_test(test_19_step_by_interval_ends),
	    cmocka_unit_test(test_20_syscalls_probe_overhead),
	    cmocka_unit_test(test_21_tabs_from_parts),
	    cmocka_unit_test(test_22_step_merged_ends),
	    cmocka_unit_test(test_24_refresh),
	    cmocka_unit_test(test_23_timeline_categories_and_filters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
