/* bench_load.c — load throughput: writes a capture of N records in a realistic
 * mix (per 1 s interval: cpu, memory and syscalls events, stacks; a VMA
 * snapshot every 10 intervals, context every 60, a mapping and a drop now and
 * then), loads it into a fresh DB with db__load_capture, and prints records/s
 * and rows/s.
 *
 *   build-x/bench/bench_load [RECORDS] [DIR]     (default 1000000, $TMPDIR or /tmp)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/cache.h"
#include "analyze/db.h"
#include "proto/capture.h"

#define SEC 1000000000ull
#define PID 4321
#define NSYS 20     /* syscalls seen per interval */
#define NVMA 200    /* VMAs per snapshot */
#define NSTACK 5    /* new stacks per interval */
#define DEPTH 12    /* frames per stack */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

static int put(struct capture_writer *w, Ptop__V1__Record *r, uint64_t *n)
{
	int err = capture_writer__append(w, r);

	if (err)
		fprintf(stderr, "bench_load: append: %s\n", strerror(-err));
	(*n)++;
	return err;
}

static int put_event(struct capture_writer *w, Ptop__V1__Event *ev, uint64_t *n)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;

	r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	r.event = ev;
	return put(w, &r, n);
}

static int write_capture(const char *path, uint64_t target)
{
	static const char *const names[NSYS] = {
		"read",	 "write", "openat", "close", "fstat", "mmap",	    "munmap",
		"brk",	 "futex", "epoll_wait", "recvfrom", "sendto", "getppid",
		"clock_nanosleep", "lseek", "pread64", "ioctl", "poll", "madvise",
		"getrandom",
	};
	static const uint32_t nrs[NSYS] = { 0,	1,  257, 3,   5,   9,	11, 12,	 202, 232,
					    45, 44, 110, 230, 8, 17, 16, 7, 28, 318 };
	struct capture_writer_opts o = { .force = true };
	struct capture_writer *w = capture_writer__create(path, &o);
	uint8_t id[16];
	uint64_t n = 0, t = 1000 * SEC, stack_id = 1;
	int err = 0;

	if (!w) {
		fprintf(stderr, "bench_load: cannot create %s: %s\n", path, strerror(errno));
		return -errno;
	}
	for (int k = 0; k < 16; k++)
		id[k] = (uint8_t)rnd(256);
	{
		Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
		Ptop__V1__CaptureHeader h = PTOP__V1__CAPTURE_HEADER__INIT;
		Ptop__V1__TargetInfo ti = PTOP__V1__TARGET_INFO__INIT;
		Ptop__V1__Clocks clk = PTOP__V1__CLOCKS__INIT;

		ti.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
		ti.pid = PID;
		ti.comm = "bench";
		clk.monotonic_ns = t;
		h.format_version = CAPTURE_FORMAT_VERSION;
		h.capture_id.data = id;
		h.capture_id.len = 16;
		h.target = &ti;
		h.clocks = &clk;
		r.kind_case = PTOP__V1__RECORD__KIND_HEADER;
		r.header = &h;
		err = put(w, &r, &n);
	}

	for (uint64_t tick = 0; !err && n < target - 1; tick++) {
		t += SEC;
		{ /* cpu */
			Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
			Ptop__V1__CpuSample c = PTOP__V1__CPU_SAMPLE__INIT;
			Ptop__V1__CpuEbpf e = PTOP__V1__CPU_EBPF__INIT;
			Ptop__V1__CpuProc p = PTOP__V1__CPU_PROC__INIT;

			e.oncpu_ns = 400000000 + rnd(200000000);
			e.switches = 1000 + rnd(500);
			p.user_ns = e.oncpu_ns * 4 / 5;
			p.system_ns = e.oncpu_ns / 5;
			p.user_ticks_total = tick * 40;
			p.system_ticks_total = tick * 10;
			p.threads = 8;
			p.voluntary_switches = 900 + rnd(100);
			p.involuntary_switches = rnd(20);
			c.ebpf = &e;
			c.proc = &p;
			ev.time_ns = t;
			ev.pid = PID;
			ev.interval_ns = SEC;
			ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPU;
			ev.cpu = &c;
			err = put_event(w, &ev, &n);
		}
		if (!err) { /* memory */
			Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
			Ptop__V1__MemorySample m = PTOP__V1__MEMORY_SAMPLE__INIT;
			Ptop__V1__Statm sm = PTOP__V1__STATM__INIT;
			Ptop__V1__SmapsRollup ro = PTOP__V1__SMAPS_ROLLUP__INIT;
			Ptop__V1__Faults f = PTOP__V1__FAULTS__INIT;

			sm.vsize = (1ull << 30) + tick * 4096;
			sm.rss = (200ull << 20) + rnd(1 << 20);
			sm.shared = 20 << 20;
			sm.text = 4 << 20;
			sm.data = 300 << 20;
			ro.rss = sm.rss;
			ro.pss = sm.rss - (10 << 20);
			ro.uss = sm.rss - (20 << 20);
			ro.pss_anon = 150 << 20;
			ro.pss_file = 30 << 20;
			ro.private_dirty = 170 << 20;
			ro.anon = 150 << 20;
			ro.read_ns = 30000 + rnd(10000);
			f.minflt = rnd(1000);
			f.minflt_total = tick * 500;
			m.statm = &sm;
			m.rollup = &ro;
			m.faults = &f;
			ev.time_ns = t;
			ev.pid = PID;
			ev.interval_ns = SEC;
			ev.payload_case = PTOP__V1__EVENT__PAYLOAD_MEMORY;
			ev.memory = &m;
			err = put_event(w, &ev, &n);
		}
		if (!err) { /* syscalls: NSYS stats, ~6 non-zero buckets each */
			Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
			Ptop__V1__SyscallStats ss = PTOP__V1__SYSCALL_STATS__INIT;
			Ptop__V1__SyscallStat st[NSYS], *sp[NSYS];
			uint64_t hist[NSYS][16];

			for (int k = 0; k < NSYS; k++) {
				ptop__v1__syscall_stat__init(&st[k]);
				memset(hist[k], 0, sizeof(hist[k]));
				st[k].nr = nrs[k];
				st[k].name = (char *)names[k];
				st[k].count = 100 + rnd(10000);
				st[k].completed = st[k].count;
				st[k].errors = rnd(10);
				st[k].total_ns = st[k].count * (500 + rnd(5000));
				for (int b = 8; b < 14; b++)
					hist[k][b] = 1 + rnd(st[k].count / 6 + 1);
				st[k].n_latency_log2_hist = 14;
				st[k].latency_log2_hist = hist[k];
				sp[k] = &st[k];
			}
			ss.n_stats = NSYS;
			ss.stats = sp;
			ev.time_ns = t;
			ev.pid = PID;
			ev.interval_ns = SEC;
			ev.payload_case = PTOP__V1__EVENT__PAYLOAD_SYSCALLS;
			ev.syscalls = &ss;
			err = put_event(w, &ev, &n);
		}
		for (int s = 0; !err && s < NSTACK; s++) { /* stacks */
			Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
			Ptop__V1__Stack st = PTOP__V1__STACK__INIT;
			uint64_t ips[DEPTH];

			for (int k = 0; k < DEPTH; k++)
				ips[k] = 0x400000 + rnd(0x100000);
			st.id = stack_id++;
			st.n_ips = DEPTH;
			st.ips = ips;
			r.kind_case = PTOP__V1__RECORD__KIND_STACK;
			r.stack = &st;
			err = put(w, &r, &n);
		}
		if (!err && tick % 10 == 0) { /* VMA snapshot */
			Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
			Ptop__V1__VmaSnapshot vs = PTOP__V1__VMA_SNAPSHOT__INIT;
			static Ptop__V1__Vma v[NVMA];
			static Ptop__V1__Vma *vp[NVMA];

			for (int k = 0; k < NVMA; k++) {
				ptop__v1__vma__init(&v[k]);
				v[k].start = 0x7f0000000000ull + (uint64_t)k * 0x200000;
				v[k].end = v[k].start + 0x100000;
				v[k].perms = k % 3 ? "rw-p" : "r-xp";
				v[k].dev = k % 2 ? "fd:01" : "00:00";
				v[k].inode = k % 2 ? 1000 + k : 0;
				v[k].path = k % 2 ? "/usr/lib/x86_64-linux-gnu/libc.so.6" : "";
				v[k].size = 0x100000;
				v[k].rss = rnd(0x100000);
				v[k].pss = v[k].rss / 2;
				v[k].uss = v[k].rss / 3;
				v[k].anon = k % 2 ? 0 : v[k].rss;
				vp[k] = &v[k];
			}
			vs.n_vmas = NVMA;
			vs.vmas = vp;
			vs.walk_ns = 2000000;
			ev.time_ns = t;
			ev.pid = PID;
			ev.payload_case = PTOP__V1__EVENT__PAYLOAD_VMAS;
			ev.vmas = &vs;
			err = put_event(w, &ev, &n);
		}
		if (!err && tick % 60 == 0) { /* context */
			Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
			Ptop__V1__ProcContext c = PTOP__V1__PROC_CONTEXT__INIT;
			Ptop__V1__Namespace ns = PTOP__V1__NAMESPACE__INIT, *nsp = &ns;
			int32_t nspid = PID;

			ns.type = "pid";
			ns.inode = 4026531836u;
			c.ppid = 1;
			c.comm = "bench";
			c.n_namespaces = 1;
			c.namespaces = &nsp;
			c.n_nspid = 1;
			c.nspid = &nspid;
			ev.time_ns = t;
			ev.pid = PID;
			ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CONTEXT;
			ev.context = &c;
			err = put_event(w, &ev, &n);
		}
		if (!err && tick % 100 == 0) { /* mapping, drop */
			Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
			Ptop__V1__Mapping m = PTOP__V1__MAPPING__INIT;
			Ptop__V1__DropNotice d = PTOP__V1__DROP_NOTICE__INIT;
			uint8_t bid[20] = { 1, 2, 3 };

			m.time_ns = t;
			m.pid = PID;
			m.start = 0x7f0000000000ull + tick * 0x1000;
			m.end = m.start + 0x1000;
			m.path = "/usr/lib/libfoo.so";
			m.build_id.data = bid;
			m.build_id.len = 20;
			r.kind_case = PTOP__V1__RECORD__KIND_MAPPING;
			r.mapping = &m;
			err = put(w, &r, &n);
			d.time_ns = t;
			d.collector = "syscalls";
			d.kind = "ringbuf";
			d.lost = rnd(100);
			r.kind_case = PTOP__V1__RECORD__KIND_DROP;
			r.drop = &d;
			if (!err)
				err = put(w, &r, &n);
		}
	}
	if (!err) {
		Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
		Ptop__V1__CaptureTrailer tr = PTOP__V1__CAPTURE_TRAILER__INIT;

		tr.reason = PTOP__V1__END_REASON__END_REASON_SIGNAL;
		tr.end_time_ns = t;
		tr.records = n;
		r.kind_case = PTOP__V1__RECORD__KIND_TRAILER;
		r.trailer = &tr;
		err = put(w, &r, &n);
	}
	if (err) {
		capture_writer__abort(w);
		return err;
	}
	return capture_writer__close(w);
}

static double mb(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_size / 1e6;
}

int main(int argc, char **argv)
{
	uint64_t target = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	const char *dir = argc > 2 ? argv[2] : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char cap[4096], dbp[4096], cdir[4096], cpath[4096], id[DB_CAPTURE_ID_LEN], err[1024];
	struct load_stats st;
	uint64_t t0, t1, t2, t3, t4;
	sqlite3 *db = NULL;
	int rc, ret = 1;

	if (target < 10) {
		fprintf(stderr, "usage: bench_load [RECORDS >= 10] [DIR]\n");
		return 2;
	}
	snprintf(cap, sizeof(cap), "%s/bench_load-%d.ptop", dir, (int)getpid());
	snprintf(dbp, sizeof(dbp), "%s/bench_load-%d.db", dir, (int)getpid());
	snprintf(cdir, sizeof(cdir), "%s/bench_load-%d.cache", dir, (int)getpid());
	cpath[0] = 0;

	t0 = now_ns();
	rc = write_capture(cap, target);
	t1 = now_ns();
	if (rc) {
		fprintf(stderr, "bench_load: writing %s: %s\n", cap, strerror(-rc));
		goto cleanup;
	}
	printf("capture: %.1f MB, written in %.2f s\n", mb(cap), (t1 - t0) / 1e9);

	/* `ptop-analyze load FILE --db DB`: a new DB, synchronous=NORMAL, journal */
	rc = db__open(dbp, true, false, &db, err, sizeof(err));
	t1 = now_ns();
	if (!rc)
		rc = db__load_capture(db, cap, false, id, &st, err, sizeof(err));
	sqlite3_close(db);
	t2 = now_ns();
	if (rc) {
		fprintf(stderr, "bench_load: %s\n", err);
		goto cleanup;
	}
	printf("load --db:   %" PRIu64 " records, %" PRIu64 " rows in %.2f s: %.0f records/s, "
	       "%.0f rows/s; DB %.1f MB\n",
	       st.records, st.rows, (t2 - t1) / 1e9, st.records / ((t2 - t1) / 1e9),
	       st.rows / ((t2 - t1) / 1e9), mb(dbp));
	unlink(dbp); /* before the cache build: one big DB on disk at a time */

	/* a command given the .ptop: the cache DB is built (no journal, no sync), then reused */
	setenv("XDG_CACHE_HOME", cdir, 1);
	cache__path(cap, cpath, sizeof(cpath));
	t2 = now_ns();
	rc = db__open_input(cap, NULL, &db, id, err, sizeof(err));
	sqlite3_close(db);
	t3 = now_ns();
	if (rc) {
		fprintf(stderr, "bench_load: %s\n", err);
		goto cleanup;
	}
	rc = db__open_input(cap, NULL, &db, id, err, sizeof(err));
	sqlite3_close(db);
	t4 = now_ns();
	if (rc) {
		fprintf(stderr, "bench_load: %s\n", err);
		goto cleanup;
	}
	printf("cache build: %" PRIu64 " rows in %.2f s: %.0f records/s, %.0f rows/s; "
	       "reuse %.3f s\n",
	       st.rows, (t3 - t2) / 1e9, st.records / ((t3 - t2) / 1e9),
	       st.rows / ((t3 - t2) / 1e9), (t4 - t3) / 1e9);
	ret = 0;
cleanup:
	unlink(cap);
	unlink(dbp);
	if (cpath[0])
		unlink(cpath);
	strncat(cdir, "/ptop", sizeof(cdir) - strlen(cdir) - 1);
	rmdir(cdir);
	cdir[strlen(cdir) - 5] = 0;
	rmdir(cdir);
	return ret;
}
