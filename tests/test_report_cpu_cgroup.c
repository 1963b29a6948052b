/* test_report_cpu_cgroup.c — `report cpu` of cgroup captures with the cgroup lane (CpuSample.cgroup,
 * the subtree's cpu.stat): captures written with the capture writer, loaded, and reported in
 * text, JSON and CSV, figure by figure: the cgroup lane with eBPF, without eBPF (--no-ebpf),
 * with cpu.max throttling, and a single-process capture that keeps its /proc lanes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/db.h"
#include "analyze/report.h"
#include "proto/capture.h"
#include "tests/tmpdir.h"
#include "tests/capwrite.h"
#include "collectors/cpu/report.h"

#define T0 1000000000000ull /* monotonic ns at the start of the fake recording */
#define SEC 1000000000ull
#define MS 1000000ull

static char errbuf[1024];

static int setup(void **state)
{
	(void)state;
	return tmpdir__make("cgcpu");
}

/* ------------------------------------------------------- capture fixtures */

/* The header: a 4-CPU host, target MODE, the cpu probe from SOURCE with DETAIL. */
static void put_header(struct capture_writer *w, uint8_t id, Ptop__V1__TargetMode mode,
		       Ptop__V1__ProbeSource source, const char *detail)
{
	struct capb_header b;

	capb__header_init(&b);
	b.h.recorder = NULL;
	for (int k = 0; k < 16; k++)
		b.id[k] = (uint8_t)(0x40 + k);
	b.id[15] = id;
	capb__probe(&b, "cpu", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE, source, NULL, detail);
	b.host.cpus = 4;
	b.clk.monotonic_ns = T0;
	b.opt.interval_ns = SEC;
	b.t.mode = mode;
	b.t.pid = mode == PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP ? 0 : 4321;
	b.t.cgroup_path = "/test.slice/x";
	capb__put_header(w, &b);
}

/* One interval's figures, in ms; -1: the lane (or the throttling counters) not there. */
struct cpu_fig {
	int64_t oncpu;
	int64_t usage, user, system;	    /* the cgroup lane */
	int64_t periods, throttled, thr_ms; /* its throttling counters */
	int64_t proc_user, proc_system;	    /* the /proc lane */
};

/* A cpu sample ending at T0 + T seconds, of the subtree (PID 0) or of PID. */
static void put_cpu(struct capture_writer *w, int t, int32_t pid, const struct cpu_fig *f)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CpuSample c = PTOP__V1__CPU_SAMPLE__INIT;
	Ptop__V1__CpuEbpf e = PTOP__V1__CPU_EBPF__INIT;
	Ptop__V1__CpuProc p = PTOP__V1__CPU_PROC__INIT;
	Ptop__V1__CpuCgroup g = PTOP__V1__CPU_CGROUP__INIT;

	e.oncpu_ns = (uint64_t)f->oncpu * MS;
	c.ebpf = f->oncpu >= 0 ? &e : NULL;
	g.usage_ns = (uint64_t)f->usage * MS;
	g.user_ns = (uint64_t)f->user * MS;
	g.system_ns = (uint64_t)f->system * MS;
	g.throttling = f->periods >= 0;
	if (g.throttling) {
		g.periods = (uint64_t)f->periods;
		g.throttled_periods = (uint64_t)f->throttled;
		g.throttled_ns = (uint64_t)f->thr_ms * MS;
	}
	c.cgroup = f->usage >= 0 ? &g : NULL;
	p.user_ns = (uint64_t)f->proc_user * MS;
	p.system_ns = (uint64_t)f->proc_system * MS;
	c.proc = f->proc_user >= 0 ? &p : NULL;
	ev.time_ns = T0 + (uint64_t)t * SEC;
	ev.pid = pid;
	ev.interval_ns = SEC;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_CPU;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPU;
	ev.cpu = &c;
	r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	r.event = &ev;
	capw__append(w, &r);
}

#define CG PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP
#define EBPF PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF
#define PROC PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC

/* Write a capture of N intervals (t = 1..N s) and load it; the DB, its capture id in ID. */
static sqlite3 *make(const char *name, uint8_t idb, Ptop__V1__TargetMode mode,
		     Ptop__V1__ProbeSource source, const char *detail, const struct cpu_fig *f,
		     int n, char id[DB_CAPTURE_ID_LEN])
{
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w;
	char ptop[256], dbp[272];
	sqlite3 *db = NULL;

	snprintf(ptop, sizeof(ptop), "%s", tpath(name));
	snprintf(dbp, sizeof(dbp), "%s.db", ptop);
	w = capture_writer__create(ptop, &o);
	assert_non_null(w);
	put_header(w, idb, mode, source, detail);
	for (int k = 0; k < n; k++)
		put_cpu(w, k + 1, mode == CG ? 0 : 4321, &f[k]);
	capw__trailer(w, T0 + (uint64_t)n * SEC);
	assert_int_equal(capture_writer__close(w), 0);
	assert_int_equal(db__open(dbp, true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, ptop, false, id, NULL, errbuf, sizeof(errbuf)))
		fail_msg("load %s: %s", ptop, errbuf);
	return db;
}

/* report cpu in FMT (WINDOW may be NULL); the output, malloc'd. */
static char *run(sqlite3 *db, const char *id, enum out_format fmt, const char *window)
{
	struct report_opts o = {.fmt = fmt};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (window)
		assert_int_equal(window__parse(window, &o.win, errbuf, sizeof(errbuf)), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report_cpu(db, id, &o, f), 0);
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

/* ------------------------------------------------------------------ tests */

/* The text report up to the profile section (another module's). */
static void assert_text_head(const char *s, const char *want)
{
	const char *end = strstr(s, "\nprofile:");
	size_t n = end ? (size_t)(end - s) : strlen(s);

	size_t k = 0;

	while (k < n && want[k] && s[k] == want[k])
		k++;
	if (k < n || want[k])
		fail_msg("text report differs at byte %zu: \"%.40s\", wanted \"%.40s\"", k, s + k,
			 want + k);
}

/* The cgroup lane and eBPF: user, system and user+system from cpu.stat (user+system is
 * usage_usec, not user_usec + system_usec: 1250 ms in the first interval, not 1200), the
 * oncpu figure from eBPF, throttling not read. */
static void test_01_cgroup_lane_and_ebpf(void **state)
{
	static const struct cpu_fig f[] = {
	    {1200, 1250, 1000, 200, -1, 0, 0, -1, -1},
	    {500, 500, 300, 200, -1, 0, 0, -1, -1},
	    {2000, 2000, 1500, 500, -1, 0, 0, -1, -1},
	};
	char id[DB_CAPTURE_ID_LEN];
	sqlite3 *db;
	char *s;

	(void)state;
	db = make("a.ptop", 1, CG, EBPF, "tp_btf/sched_switch + cpu.stat", f, 3, id);
	s = run(db, id, OUT_TEXT, NULL);
	assert_text_head(
	    s, "cpu (whole capture): 3 intervals; 100% = one CPU busy all the interval (the host "
	       "has 4 CPUs)\n"
	       "drops: none recorded for cpu\n"
	       "\n"
	       "t (s)  oncpu%   user%  system%  user+system%\n"
	       "1.000  120.0%  100.0%    20.0%        125.0%\n"
	       "2.000   50.0%   30.0%    20.0%         50.0%\n"
	       "3.000  200.0%  150.0%    50.0%        200.0%\n"
	       "\n"
	       "figure         mean     max  cpu seconds  samples  lane\n"
	       "oncpu        123.3%  200.0%        3.700        3  ebpf: sched_switch on-CPU time\n"
	       "user          93.3%  150.0%        2.800        3  cgroup: cpu.stat user_usec\n"
	       "system        30.0%   50.0%        0.900        3  cgroup: cpu.stat system_usec\n"
	       "user+system  125.0%  200.0%        3.750        3  cgroup: cpu.stat usage_usec\n"
	       "\n"
	       "oncpu: eBPF lane (sched_switch, the cgroup subtree); user, system, user+system: "
	       "cgroup lane\n"
	       "(the subtree's cpu.stat: usage_usec is the scheduler's run time, user_usec and "
	       "system_usec\n"
	       "split it by clock ticks). mean: CPU time / length of the intervals with a value.\n"
	       "\n"
	       "throttling: not read (no nr_periods in cpu.stat: the cpu controller is not "
	       "enabled for the cgroup)\n");
	free(s);

	s = run(db, id, OUT_JSON, NULL);
	assert_contains(s, "  \"source\": \"ebpf\",\n  \"cpus\": 4,\n");
	assert_contains(s, "    \"oncpu\": {\n"
			   "      \"lane\": \"ebpf: sched_switch on-CPU time\",\n"
			   "      \"collected\": true,\n"
			   "      \"samples\": 3,\n"
			   "      \"mean_pct\": 123.33,\n"
			   "      \"max_pct\": 200,\n"
			   "      \"cpu_ns\": 3700000000,\n"
			   "      \"cpu_s\": 3.7,\n"
			   "      \"over_capacity_intervals\": 0\n"
			   "    },\n"
			   "    \"user\": {\n"
			   "      \"lane\": \"cgroup: cpu.stat user_usec\",\n"
			   "      \"collected\": true,\n"
			   "      \"samples\": 3,\n"
			   "      \"mean_pct\": 93.33,\n"
			   "      \"max_pct\": 150,\n"
			   "      \"cpu_ns\": 2800000000,\n"
			   "      \"cpu_s\": 2.8\n"
			   "    },\n"
			   "    \"system\": {\n"
			   "      \"lane\": \"cgroup: cpu.stat system_usec\",\n"
			   "      \"collected\": true,\n"
			   "      \"samples\": 3,\n"
			   "      \"mean_pct\": 30,\n"
			   "      \"max_pct\": 50,\n"
			   "      \"cpu_ns\": 900000000,\n"
			   "      \"cpu_s\": 0.9\n"
			   "    },\n"
			   "    \"user_system\": {\n"
			   "      \"lane\": \"cgroup: cpu.stat usage_usec\",\n"
			   "      \"collected\": true,\n"
			   "      \"samples\": 3,\n"
			   "      \"mean_pct\": 125,\n"
			   "      \"max_pct\": 200,\n"
			   "      \"cpu_ns\": 3750000000,\n"
			   "      \"cpu_s\": 3.75\n"
			   "    }\n"
			   "  },\n"
			   "  \"throttling\": null,\n"
			   "  \"intervals\": [\n"
			   "    {\n"
			   "      \"t_s\": 1,\n"
			   "      \"interval_ns\": 1000000000,\n"
			   "      \"oncpu_ns\": 1200000000,\n"
			   "      \"oncpu_pct\": 120,\n"
			   "      \"user_ns\": 1000000000,\n"
			   "      \"user_pct\": 100,\n"
			   "      \"system_ns\": 200000000,\n"
			   "      \"system_pct\": 20,\n"
			   "      \"user_system_ns\": 1250000000,\n"
			   "      \"user_system_pct\": 125,\n"
			   "      \"periods\": null,\n"
			   "      \"throttled_periods\": null,\n"
			   "      \"throttled_ns\": null,\n"
			   "      \"throttled_pct\": null\n"
			   "    },\n");
	free(s);

	s = run(db, id, OUT_CSV, NULL);
	assert_string_equal(s, "t_s,interval_ns,oncpu_ns,user_ns,system_ns,user_system_ns,"
			       "oncpu_pct,user_pct,system_pct,user_system_pct,periods,"
			       "throttled_periods,throttled_ns,throttled_pct\n"
			       "1,1000000000,1200000000,1000000000,200000000,1250000000,120,100,20,"
			       "125,,,,\n"
			       "2,1000000000,500000000,300000000,200000000,500000000,50,30,20,50,,,,\n"
			       "3,1000000000,2000000000,1500000000,500000000,2000000000,200,150,50,"
			       "200,,,,\n");
	free(s);
	sqlite3_close(db);
}

/* --no-ebpf in cgroup mode: the cgroup lane alone still gives CPU % per interval; oncpu
 * is not collected, with the probe's reason. */
static void test_02_cgroup_lane_only(void **state)
{
	static const struct cpu_fig f[] = {
	    {-1, 250, 150, 100, -1, 0, 0, -1, -1},
	    {-1, 750, 600, 150, -1, 0, 0, -1, -1},
	};
	char id[DB_CAPTURE_ID_LEN];
	sqlite3 *db;
	char *s;

	(void)state;
	db = make("b.ptop", 2, CG, PROC, "cpu.stat (--no-ebpf)", f, 2, id);
	s = run(db, id, OUT_TEXT, NULL);
	assert_text_head(
	    s, "cpu (whole capture): 2 intervals; 100% = one CPU busy all the interval (the host "
	       "has 4 CPUs)\n"
	       "drops: none recorded for cpu\n"
	       "\n"
	       "t (s)  oncpu%  user%  system%  user+system%\n"
	       "1.000       -  15.0%    10.0%         25.0%\n"
	       "2.000       -  60.0%    15.0%         75.0%\n"
	       "\n"
	       "figure        mean    max  cpu seconds  samples  lane\n"
	       "oncpu            -      -            -        0  not collected (the cpu probe read "
	       "the cgroup's cpu.stat only: cpu.stat (--no-ebpf))\n"
	       "user         37.5%  60.0%        0.750        2  cgroup: cpu.stat user_usec\n"
	       "system       12.5%  15.0%        0.250        2  cgroup: cpu.stat system_usec\n"
	       "user+system  50.0%  75.0%        1.000        2  cgroup: cpu.stat usage_usec\n"
	       "\n"
	       "oncpu: eBPF lane (sched_switch, the cgroup subtree); user, system, user+system: "
	       "cgroup lane\n"
	       "(the subtree's cpu.stat: usage_usec is the scheduler's run time, user_usec and "
	       "system_usec\n"
	       "split it by clock ticks). mean: CPU time / length of the intervals with a value.\n"
	       "\n"
	       "throttling: not read (no nr_periods in cpu.stat: the cpu controller is not "
	       "enabled for the cgroup)\n");
	free(s);

	s = run(db, id, OUT_JSON, NULL);
	assert_contains(s, "  \"collected\": true,\n  \"source\": \"proc\",\n");
	assert_contains(s, "    \"oncpu\": {\n"
			   "      \"lane\": \"ebpf: sched_switch on-CPU time\",\n"
			   "      \"collected\": false,\n"
			   "      \"reason\": \"the cpu probe read the cgroup's cpu.stat only: "
			   "cpu.stat (--no-ebpf)\"\n"
			   "    },\n");
	assert_contains(s, "    \"user_system\": {\n"
			   "      \"lane\": \"cgroup: cpu.stat usage_usec\",\n"
			   "      \"collected\": true,\n"
			   "      \"samples\": 2,\n"
			   "      \"mean_pct\": 50,\n"
			   "      \"max_pct\": 75,\n"
			   "      \"cpu_ns\": 1000000000,\n"
			   "      \"cpu_s\": 1\n"
			   "    }\n"
			   "  },\n"
			   "  \"throttling\": null,\n");
	assert_contains(s, "    {\n"
			   "      \"t_s\": 2,\n"
			   "      \"interval_ns\": 1000000000,\n"
			   "      \"oncpu_ns\": null,\n"
			   "      \"oncpu_pct\": null,\n"
			   "      \"user_ns\": 600000000,\n"
			   "      \"user_pct\": 60,\n"
			   "      \"system_ns\": 150000000,\n"
			   "      \"system_pct\": 15,\n"
			   "      \"user_system_ns\": 750000000,\n"
			   "      \"user_system_pct\": 75,\n");
	free(s);
	sqlite3_close(db);
}

/* cpu.max throttling: read in the first three intervals, not in the fourth (the controller
 * was disabled): 30 periods, 10 throttled, 1.2 s throttled over the 3 s that read it. */
static void test_03_throttling(void **state)
{
	static const struct cpu_fig f[] = {
	    {400, 400, 300, 100, 10, 4, 300, -1, -1},
	    {200, 200, 100, 100, 10, 0, 0, -1, -1},
	    {600, 600, 500, 100, 10, 6, 900, -1, -1},
	    {100, 100, 50, 50, -1, 0, 0, -1, -1},
	};
	char id[DB_CAPTURE_ID_LEN];
	sqlite3 *db;
	char *s;

	(void)state;
	db = make("c.ptop", 3, CG, EBPF, "tp_btf/sched_switch + cpu.stat", f, 4, id);
	s = run(db, id, OUT_TEXT, NULL);
	assert_contains(s, "\nthrottling (cpu.max): 30 periods, 10 throttled (33.3%); throttled "
			   "1.200 s = 40.0% of the 3.000 s recorded\n"
			   "(throttled time is summed over the CPUs the cgroup was throttled on: it "
			   "can pass 100%)\n");
	assert_lacks(s, "throttling: not read");
	free(s);

	s = run(db, id, OUT_JSON, NULL);
	assert_contains(s, "  \"throttling\": {\n"
			   "    \"samples\": 3,\n"
			   "    \"periods\": 30,\n"
			   "    \"throttled_periods\": 10,\n"
			   "    \"throttled_periods_pct\": 33.33,\n"
			   "    \"throttled_ns\": 1200000000,\n"
			   "    \"throttled_s\": 1.2,\n"
			   "    \"recorded_ns\": 3000000000,\n"
			   "    \"throttled_pct\": 40\n"
			   "  },\n");
	assert_contains(s, "      \"user_system_ns\": 200000000,\n"
			   "      \"user_system_pct\": 20,\n"
			   "      \"periods\": 10,\n"
			   "      \"throttled_periods\": 0,\n"
			   "      \"throttled_ns\": 0,\n"
			   "      \"throttled_pct\": 0\n");
	assert_contains(s, "      \"user_system_ns\": 100000000,\n"
			   "      \"user_system_pct\": 10,\n"
			   "      \"periods\": null,\n"
			   "      \"throttled_periods\": null,\n"
			   "      \"throttled_ns\": null,\n"
			   "      \"throttled_pct\": null\n");
	free(s);

	s = run(db, id, OUT_CSV, NULL);
	assert_string_equal(s, "t_s,interval_ns,oncpu_ns,user_ns,system_ns,user_system_ns,"
			       "oncpu_pct,user_pct,system_pct,user_system_pct,periods,"
			       "throttled_periods,throttled_ns,throttled_pct\n"
			       "1,1000000000,400000000,300000000,100000000,400000000,40,30,10,40,10,"
			       "4,300000000,30\n"
			       "2,1000000000,200000000,100000000,100000000,200000000,20,10,10,20,10,"
			       "0,0,0\n"
			       "3,1000000000,600000000,500000000,100000000,600000000,60,50,10,60,10,"
			       "6,900000000,90\n"
			       "4,1000000000,100000000,50000000,50000000,100000000,10,5,5,10,,,,\n");
	free(s);

	/* a window: the intervals ending at 3 s and 4 s (midpoints 2.5 s, 3.5 s) */
	s = run(db, id, OUT_JSON, "2..4");
	assert_contains(s, "  \"throttling\": {\n"
			   "    \"samples\": 1,\n"
			   "    \"periods\": 10,\n"
			   "    \"throttled_periods\": 6,\n"
			   "    \"throttled_periods_pct\": 60,\n"
			   "    \"throttled_ns\": 900000000,\n"
			   "    \"throttled_s\": 0.9,\n"
			   "    \"recorded_ns\": 1000000000,\n"
			   "    \"throttled_pct\": 90\n"
			   "  },\n");
	free(s);
	s = run(db, id, OUT_TEXT, "2..4");
	assert_contains(s, "\nthrottling (cpu.max): 10 periods, 6 throttled (60.0%); throttled "
			   "0.900 s = 90.0% of the 1.000 s recorded\n");
	free(s);
	/* a window without the intervals that read it: not read there */
	s = run(db, id, OUT_JSON, "3..");
	assert_contains(s, "  \"throttling\": null,\n");
	free(s);
	sqlite3_close(db);
}

/* Captures without the cgroup lane keep their lanes: a single process (/proc lane, no
 * throttling anywhere, the series as before) and a cgroup capture from before the lane
 * (eBPF only: user and system not collected, said why). */
static void test_04_without_cgroup_lane(void **state)
{
	static const struct cpu_fig single[] = {
	    {300, -1, 0, 0, -1, 0, 0, 200, 100},
	};
	static const struct cpu_fig old[] = {
	    {300, -1, 0, 0, -1, 0, 0, -1, -1},
	};
	char id[DB_CAPTURE_ID_LEN];
	sqlite3 *db;
	char *s;

	(void)state;
	db = make("d.ptop", 4, PTOP__V1__TARGET_MODE__TARGET_MODE_PID, EBPF, "", single, 1, id);
	s = run(db, id, OUT_TEXT, NULL);
	assert_contains(s, "t (s)  oncpu%  user%  system%\n1.000   30.0%  20.0%    10.0%\n");
	assert_contains(s, "user+system  30.0%  30.0%        0.300        1  proc: /proc/PID/stat "
			   "utime+stime\n\noncpu: eBPF lane (sched_switch); user, system: /proc "
			   "lane (utime/stime, clock-tick\nresolution).");
	assert_lacks(s, "throttl");
	assert_lacks(s, "cgroup");
	free(s);
	s = run(db, id, OUT_JSON, NULL);
	assert_lacks(s, "throttl");
	assert_lacks(s, "user_system_ns");
	assert_contains(s, "      \"system_ns\": 100000000,\n      \"system_pct\": 10\n    }\n");
	free(s);
	s = run(db, id, OUT_CSV, NULL);
	assert_string_equal(s, "t_s,interval_ns,oncpu_ns,user_ns,system_ns,oncpu_pct,user_pct,"
			       "system_pct\n1,1000000000,300000000,200000000,100000000,30,20,10\n");
	free(s);
	sqlite3_close(db);

	db = make("e.ptop", 5, CG, EBPF, "", old, 1, id);
	s = run(db, id, OUT_TEXT, NULL);
	assert_contains(s, "user             -      -            -        0  not collected (cgroup "
			   "mode: this capture has no cpu.stat lane)\n");
	assert_contains(s, "\noncpu: eBPF lane (sched_switch, the cgroup subtree); user, system: "
			   "no lane in this capture\n(the /proc lane reads one process; cpu.stat "
			   "was not read).");
	assert_lacks(s, "throttl");
	free(s);
	s = run(db, id, OUT_JSON, NULL);
	assert_lacks(s, "throttl");
	assert_contains(s, "    \"user\": {\n"
			   "      \"lane\": \"proc: /proc/PID/stat utime\",\n"
			   "      \"collected\": false,\n");
	free(s);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_cgroup_lane_and_ebpf),
	    cmocka_unit_test(test_02_cgroup_lane_only),
	    cmocka_unit_test(test_03_throttling),
	    cmocka_unit_test(test_04_without_cgroup_lane),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
