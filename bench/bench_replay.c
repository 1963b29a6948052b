/* bench_replay.c — how fast the replay viewer opens a long capture and seeks in it.
 *
 * Builds a DB holding a synthetic one-hour capture (3,600 one-second intervals with every
 * interval table filled: cpu, 40 syscalls with 4 histogram buckets each, memory, a VMA snapshot
 * of 300 VMAs every 10 s, a heap snapshot; io_sample, fd_sample and 8 net sockets), then
 * measures: opening the model plus the first frame (the overview, 160x48), and seeks to random
 * positions each redrawing a frame (syscalls, memory, overview, network, I/O and FDs tabs in
 * turn; a memory frame at a new snapshot reads its VMA groups; the last three query their
 * tables at each draw).
 *
 * Then a whole-cgroup capture of as many intervals with NPROC processes each (cgroup_sample,
 * cgroup_stat, cgroup_proc): the Memory tab's frame at the end, steps back and forward, and random
 * seeks, each against the same position drawn by a model opened there (which reads the process
 * rows from the start: the cost without the model's forward reads and checkpoints).
 *
 *   build-x/bench/bench_replay [INTERVALS] [SEEKS] [DIR]   (default 3600, 300, $TMPDIR or /tmp)
 *
 * Wall and CPU times (CLOCK_PROCESS_CPUTIME_ID) both; BENCH_REPLAY_CGROUP=0 skips the cgroup
 * capture.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze/replay.h"
#include "analyze/replay_views.h"

extern const char ptop_schema_sql[];

#define SEC 1000000000LL
#define BASE (1000 * SEC)
#define NSYS 40
#define NVMA 300
#define NPROC 100
#define CG_STEPS 10 /* each of: steps back, steps forward, random seeks */
#define NSOCK 8	    /* sockets per interval */
#define NSOCK_STR "8"

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

/* the CPU time of this process: on a shared, loaded machine the figure to compare */
static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static int exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "bench_replay: SQL failed: %s\n", msg ? msg : "?");
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

/* the schema, a transaction begun, the capture row (cap 1) */
static int begin_capture(sqlite3 *db)
{
	int err = exec(db, ptop_schema_sql);

	err = err ?: exec(db, "BEGIN");
	return err
		   ?: exec(db, "INSERT INTO capture (capture_id, format_version, recorder_version, "
			       "start_monotonic_ns, interval_ns, complete, read_end) VALUES "
			       "('00112233445566778899aabbccddeeff', 1, 'bench', 1000000000000, "
			       "1000000000, 1, 'clean')");
}

static int build(sqlite3 *db, int n)
{
	sqlite3_stmt *cpu = NULL, *sys = NULL, *hist = NULL, *mem = NULL, *snap = NULL, *vma = NULL,
		     *heap = NULL;
	int err = 0, i, j, k;

	err = begin_capture(db);
	err = err
		  ?: exec(db, "INSERT INTO target (cap, mode, pid, comm) VALUES (1, 'pid', 42, "
			      "'bench')");
	err = err
		  ?: exec(db,
			  "INSERT INTO probe (cap, seq, name, state, source) VALUES "
			  "(1, 0, 'cpu', 'active', 'ebpf'), (1, 1, 'syscalls', 'active', 'ebpf'), "
			  "(1, 2, 'memory', 'active', 'proc'), (1, 3, 'vmas', 'active', 'proc'), "
			  "(1, 4, 'heap', 'active', 'ebpf'), (1, 5, 'net', 'active', 'ebpf'), "
			  "(1, 6, 'io', 'active', 'proc'), (1, 7, 'fds', 'active', 'proc')");
	if (err)
		return err;
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO cpu_sample (cap, time_ns, interval_ns, pid, "
			       "oncpu_ns, user_ns, system_ns, threads) VALUES (1, ?, ?, 42, ?, "
			       "?, ?, 4)",
			       -1, &cpu, NULL) ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO syscall_stat (cap, time_ns, interval_ns, pid, nr, "
			       "name, count, completed, errors, total_ns) VALUES (1, ?, ?, 42, "
			       "?, ?, ?, ?, 0, ?)",
			       -1, &sys, NULL) ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO syscall_hist (cap, time_ns, pid, nr, bucket, count) "
			       "VALUES (1, ?, 42, ?, ?, ?)",
			       -1, &hist, NULL) ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO memory_sample (cap, time_ns, pid, rss, pss, uss, "
			       "pss_anon, pss_file, pss_shmem, swap) VALUES (1, ?, 42, ?, ?, ?, "
			       "?, ?, 0, 0)",
			       -1, &mem, NULL) ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO vma_snapshot (cap, snapshot_id, time_ns, pid, "
			       "vma_count) VALUES (1, ?, ?, 42, ?)",
			       -1, &snap, NULL) ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO vma (cap, snapshot_id, start, end, path, size, rss, "
			       "pss, uss, swap) VALUES (1, ?, ?, ?, ?, 4096, 4096, 2048, 1024, "
			       "0)",
			       -1, &vma, NULL) ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO heap_snapshot (cap, seq, time_ns, interval_ns, pid, "
			       "lane, sample_bytes, live_measured, alloc_count, alloc_bytes, "
			       "live_bytes, leak_bytes, sites, total_call_sites, "
			       "omitted_alloc_count, omitted_alloc_bytes, stack_failures) VALUES "
			       "(1, ?, ?, ?, 42, 'uprobe', 0, 1, 100, 6400, ?, 0, 0, 0, 0, 0, 0)",
			       -1, &heap, NULL)) {
		fprintf(stderr, "bench_replay: prepare: %s\n", sqlite3_errmsg(db));
		err = -EIO;
		goto cleanup;
	}
	for (i = 1; i <= n && !err; i++) {
		int64_t t = BASE + i * SEC;

		sqlite3_bind_int64(cpu, 1, t);
		sqlite3_bind_int64(cpu, 2, SEC);
		sqlite3_bind_int64(cpu, 3, (i % 100) * SEC / 100);
		sqlite3_bind_int64(cpu, 4, (i % 50) * SEC / 100);
		sqlite3_bind_int64(cpu, 5, SEC / 100);
		err = sqlite3_step(cpu) == SQLITE_DONE ? 0 : -EIO;
		sqlite3_reset(cpu);
		for (j = 0; j < NSYS && !err; j++) {
			char name[16];

			snprintf(name, sizeof(name), "sys_%d", j);
			sqlite3_bind_int64(sys, 1, t);
			sqlite3_bind_int64(sys, 2, SEC);
			sqlite3_bind_int(sys, 3, j);
			sqlite3_bind_text(sys, 4, name, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int(sys, 5, 100 + j * i % 1000);
			sqlite3_bind_int(sys, 6, 100 + j * i % 1000);
			sqlite3_bind_int64(sys, 7, (100 + j * i % 1000) * 500LL);
			err = sqlite3_step(sys) == SQLITE_DONE ? 0 : -EIO;
			sqlite3_reset(sys);
			for (k = 0; k < 4 && !err; k++) {
				sqlite3_bind_int64(hist, 1, t);
				sqlite3_bind_int(hist, 2, j);
				sqlite3_bind_int(hist, 3, 7 + k * 2);
				sqlite3_bind_int(hist, 4, 25 + j * i % 250);
				err = sqlite3_step(hist) == SQLITE_DONE ? 0 : -EIO;
				sqlite3_reset(hist);
			}
		}
		sqlite3_bind_int64(mem, 1, t);
		sqlite3_bind_int64(mem, 2, (100 + i) * 4096LL);
		sqlite3_bind_int64(mem, 3, (90 + i) * 4096LL);
		sqlite3_bind_int64(mem, 4, (80 + i) * 4096LL);
		sqlite3_bind_int64(mem, 5, (70 + i) * 4096LL);
		sqlite3_bind_int64(mem, 6, 20 * 4096LL);
		err = err ?: (sqlite3_step(mem) == SQLITE_DONE ? 0 : -EIO);
		sqlite3_reset(mem);
		sqlite3_bind_int(heap, 1, i);
		sqlite3_bind_int64(heap, 2, t);
		sqlite3_bind_int64(heap, 3, SEC);
		sqlite3_bind_int64(heap, 4, i * 1000LL);
		err = err ?: (sqlite3_step(heap) == SQLITE_DONE ? 0 : -EIO);
		sqlite3_reset(heap);
		if (i % 10 == 0 && !err) {
			sqlite3_bind_int(snap, 1, i / 10);
			sqlite3_bind_int64(snap, 2, t);
			sqlite3_bind_int(snap, 3, NVMA);
			err = sqlite3_step(snap) == SQLITE_DONE ? 0 : -EIO;
			sqlite3_reset(snap);
			for (k = 0; k < NVMA && !err; k++) {
				char path[64];

				snprintf(path, sizeof(path), k % 3 ? "/usr/lib/lib%d.so" : "",
					 k / 3);
				sqlite3_bind_int(vma, 1, i / 10);
				sqlite3_bind_int64(vma, 2, 4096LL * k);
				sqlite3_bind_int64(vma, 3, 4096LL * (k + 1));
				sqlite3_bind_text(vma, 4, path, -1, SQLITE_TRANSIENT);
				err = sqlite3_step(vma) == SQLITE_DONE ? 0 : -EIO;
				sqlite3_reset(vma);
			}
		}
	}
	/* the tabs that read their tables at each draw: io and fds one row per interval, net
	 * NSOCK sockets */
	err = err
		  ?: exec(db,
			  "INSERT INTO io_sample (cap, time_ns, interval_ns, pid, rchar, wchar, "
			  "syscr, syscw, read_bytes, write_bytes, cancelled_write_bytes) "
			  "SELECT 1, time_ns, interval_ns, 42, 4096 * (time_ns / 1000000000 % 50), "
			  "8192, 10, 20, 0, 4096, 0 FROM cpu_sample");
	err = err
		  ?: exec(db, "INSERT INTO fd_sample (cap, time_ns, interval_ns, pid, total, file, "
			      "socket, pipe, eventfd, epoll, timerfd, signalfd, anon_inode, other) "
			      "SELECT 1, time_ns, interval_ns, 42, 20, 10, 4, 2, 1, 1, 1, 0, 1, 0 "
			      "FROM cpu_sample");
	err =
	    err
		?: exec(db, "WITH RECURSIVE k(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM k "
			    "WHERE k + 1 < " NSOCK_STR ") "
			    "INSERT INTO net_socket (cap, time_ns, interval_ns, pid, sock, proto, "
			    "local, remote, state, tx_bytes, rx_bytes, closed) SELECT 1, time_ns, "
			    "interval_ns, 42, 1000 + k, 'tcp', '127.0.0.1:8080', '127.0.0.1:' || "
			    "(40000 + k), 'ESTABLISHED', 100 * k, 200 * k, 0 FROM cpu_sample, k");
	err = err ?: exec(db, "COMMIT");
cleanup:
	sqlite3_finalize(cpu);
	sqlite3_finalize(sys);
	sqlite3_finalize(hist);
	sqlite3_finalize(mem);
	sqlite3_finalize(snap);
	sqlite3_finalize(vma);
	sqlite3_finalize(heap);
	return err;
}

static int build_cgroup(sqlite3 *db, int n)
{
	char sql[1024];
	int err;

	err = begin_capture(db);
	err = err
		  ?: exec(db, "INSERT INTO target (cap, mode, cgroup_path) VALUES (1, 'cgroup', "
			      "'/bench.slice')");
	err = err
		  ?: exec(db, "INSERT INTO probe (cap, seq, name, state, source) VALUES "
			      "(1, 0, 'cgroup', 'active', 'proc')");
	snprintf(
	    sql, sizeof(sql),
	    "WITH RECURSIVE i(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM i WHERE v < %d) "
	    "INSERT INTO cgroup_sample (cap, seq, time_ns, interval_ns, path, lane, current, "
	    "limit_bytes, peak, oom_delta, oom_kill_delta, high_delta, max_delta, processes, "
	    "covered, denied, gone, skipped, walk_ns, budget_ns) SELECT 1, v, %lld + (v + 1) * "
	    "%lld, %lld, '/bench.slice', 'v2', v * 4096, 1073741824, v * 4096, 0, 0, 0, 0, %d, "
	    "%d, 0, 0, 0, 1000000, 100000000 FROM i",
	    n - 1, BASE, SEC, SEC, NPROC, NPROC);
	err = err ?: exec(db, sql);
	err =
	    err
		?: exec(db, "INSERT INTO cgroup_stat (cap, seq, key, value) SELECT 1, seq, k.key, "
			    "current FROM cgroup_sample, (SELECT 'anon' AS key UNION ALL SELECT "
			    "'file' UNION ALL SELECT 'shmem' UNION ALL SELECT 'kernel') k");
	snprintf(sql, sizeof(sql),
		 "WITH RECURSIVE p(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM p WHERE v < %d) "
		 "INSERT INTO cgroup_proc (cap, seq, pid, comm, exe, unit, state, rss, pss, uss, "
		 "swap) SELECT 1, s.seq, 1000 + p.v, 'proc' || p.v, '/usr/bin/proc' || p.v, "
		 "'app-' || (p.v %% 10) || '.scope', 'covered', (p.v + s.seq) * 8192, "
		 "(p.v + s.seq) * 4096, (p.v + s.seq) * 2048, 0 FROM cgroup_sample s, p",
		 NPROC - 1);
	err = err ?: exec(db, sql);
	return err ?: exec(db, "COMMIT");
}

/* the Memory tab at T: the time to seek and draw with model M, and with a model opened there */
static int cg_frame(sqlite3 *db, struct replay_model *m, struct grid *g, int64_t t, int64_t *d,
		    int64_t *d_fresh)
{
	struct replay_ui ui = {.tab = replay__find_view("memory")};
	struct replay_model *f;
	char err[256];
	int64_t a = now_ns();

	replay_model__seek(m, t);
	replay__render(m, &ui, g);
	*d = now_ns() - a;
	f = replay_model__open(db, "00112233445566778899aabbccddeeff", err, sizeof(err));
	if (!f) {
		fprintf(stderr, "bench_replay: %s\n", err);
		return -EIO;
	}
	a = now_ns();
	replay_model__seek(f, t);
	replay__render(f, &ui, g);
	*d_fresh = now_ns() - a;
	replay_model__free(f);
	return 0;
}

/* the cgroup capture: steps back and forward from the end, random seeks */
static int bench_cgroup(const char *dir, int n)
{
	static const char *const what[] = {"step back", "step forward", "random seek"};
	struct replay_model *m = NULL;
	struct grid *g = grid__new(160, 48);
	int64_t d, df, first, first_f, sum[3] = {0}, sum_f[3] = {0}, worst[3] = {0}, cnt[3] = {0};
	sqlite3 *db = NULL;
	char path[4096], err[256];
	int i, k, rc = -EIO;

	snprintf(path, sizeof(path), "%s/bench_replay_cgroup.%d.db", dir, (int)getpid());
	unlink(path);
	if (!g || sqlite3_open(path, &db) != SQLITE_OK || build_cgroup(db, n)) {
		fprintf(stderr, "bench_replay: cannot build %s\n", path);
		goto cleanup;
	}
	m = replay_model__open(db, "00112233445566778899aabbccddeeff", err, sizeof(err));
	if (!m) {
		fprintf(stderr, "bench_replay: %s\n", err);
		goto cleanup;
	}
	if (cg_frame(db, m, g, n * SEC, &first, &first_f))
		goto cleanup;
	srand(2);
	for (i = 0; i < 3 * CG_STEPS; i++) {
		k = i / CG_STEPS;
		if (cg_frame(db, m, g,
			     k == 0 ? (n - 1 - i) * SEC
			     : k == 1
				 ? (n - CG_STEPS + i - CG_STEPS) * SEC
				 : (int64_t)((double)rand() / RAND_MAX * (double)m->duration_ns),
			     &d, &df))
			goto cleanup;
		sum[k] += d;
		sum_f[k] += df;
		cnt[k]++;
		if (d > worst[k])
			worst[k] = d;
	}
	printf("replay cgroup: %d samples of %d processes; Memory tab, 160x48\n", n, NPROC);
	printf("replay cgroup: first frame at the end %.1f ms (a model opened there %.1f ms)\n",
	       (double)first / 1e6, (double)first_f / 1e6);
	for (k = 0; k < 3; k++)
		if (cnt[k])
			printf("replay cgroup: %s x%lld: mean %.2f ms, max %.2f ms; a model opened "
			       "there %.2f ms: ratio %.3f\n",
			       what[k], (long long)cnt[k], (double)sum[k] / (double)cnt[k] / 1e6,
			       (double)worst[k] / 1e6, (double)sum_f[k] / (double)cnt[k] / 1e6,
			       (double)sum[k] / (double)sum_f[k]);
	rc = 0;
cleanup:
	grid__free(g);
	replay_model__free(m);
	sqlite3_close(db);
	unlink(path);
	return rc;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3600, seeks = argc > 2 ? atoi(argv[2]) : 300;
	const char *dir = argc > 3 ? argv[3] : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	static const char *const tabs[] = {"syscalls", "memory", "overview",
					   "network",  "io",	 "fds"};
	struct replay_model *m = NULL;
	struct replay_ui ui = {0};
	struct grid *g = NULL;
	char path[4096], err[256];
	int64_t t0, t_open, t_first, worst = 0, sum = 0, c0, c_open, c_seeks;
	sqlite3 *db = NULL;
	int i, rc = 1;

	if (n < 1 || seeks < 1) {
		fprintf(stderr, "usage: bench_replay [INTERVALS] [SEEKS] [DIR]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/bench_replay.%d.db", dir, (int)getpid());
	unlink(path);
	if (sqlite3_open(path, &db) != SQLITE_OK || build(db, n)) {
		fprintf(stderr, "bench_replay: cannot build %s\n", path);
		goto cleanup;
	}
	sqlite3_close(db);
	db = NULL;
	/* what the viewer does: open the DB read-only, load the model, draw the first frame */
	t0 = now_ns();
	c0 = cpu_ns();
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		goto cleanup;
	m = replay_model__open(db, "00112233445566778899aabbccddeeff", err, sizeof(err));
	if (!m) {
		fprintf(stderr, "bench_replay: %s\n", err);
		goto cleanup;
	}
	t_open = now_ns();
	c_open = cpu_ns();
	g = grid__new(160, 48);
	if (!g)
		goto cleanup;
	replay__render(m, &ui, g);
	t_first = now_ns();
	srand(1);
	c_seeks = cpu_ns();
	for (i = 0; i < seeks; i++) {
		int64_t a = now_ns(), d;

		ui.tab = replay__find_view(tabs[i % 6]);
		replay_model__seek(m,
				   (int64_t)((double)rand() / RAND_MAX * (double)m->duration_ns));
		replay__render(m, &ui, g);
		d = now_ns() - a;
		sum += d;
		if (d > worst)
			worst = d;
	}
	c_seeks = cpu_ns() - c_seeks;
	printf("replay: %d intervals (%d syscall rows, %d VMA snapshots of %d VMAs, %d sockets)\n",
	       n, n * NSYS, n / 10, NVMA, NSOCK);
	printf("replay: open + load %.1f ms, first frame %.2f ms, open to first frame %.1f ms\n",
	       (double)(t_open - t0) / 1e6, (double)(t_first - t_open) / 1e6,
	       (double)(t_first - t0) / 1e6);
	printf("replay: %d seeks with redraw: mean %.3f ms, max %.3f ms\n", seeks,
	       (double)sum / seeks / 1e6, (double)worst / 1e6);
	printf("replay: CPU time: open + load %.1f ms, seek with redraw mean %.3f ms\n",
	       (double)(c_open - c0) / 1e6, (double)c_seeks / seeks / 1e6);
	/* BENCH_REPLAY_CGROUP=0: the per-interval capture only (rounds of before/after) */
	if (getenv("BENCH_REPLAY_CGROUP") && !strcmp(getenv("BENCH_REPLAY_CGROUP"), "0"))
		rc = 0;
	else
		rc = bench_cgroup(dir, n) ? 1 : 0;
cleanup:
	grid__free(g);
	replay_model__free(m);
	sqlite3_close(db);
	if (!getenv("BENCH_REPLAY_KEEP"))
		unlink(path);
	else
		fprintf(stderr, "kept %s\n", path);
	return rc;
}
