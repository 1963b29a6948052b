/* gen.c — writes the golden captures (tests/golden/README): synthetic, fixed to the byte
 * (fixed ids, times, pids, addresses; paths and build-ids that name no file on any
 * machine, a boot id that is no machine's), so that the analyzer's answers over them are
 * the same on every machine with the same build.
 *
 * usage: gen DIR   writes DIR/{full,truncated,noheap,noebpf,cgroup}.ptop
 *
 *   full       a --command capture with every probe active, every payload kind (cpu both
 *              lanes, syscalls, memory, vmas, context, cpuprof, heap, heap events) and
 *              every record kind (header, events, stacks, mappings start/new/gone/end,
 *              drops, a perf map, embedded module symbols (an ELF made here, so that
 *              the plugin's frames are named), probe changes, trailer)
 *   truncated  the same records without a trailer, cut inside its last frame
 *   noheap     a --pid capture with the heap probe failed, goalloc unsupported, vmas and
 *              cpuprof disabled, a SIGINT end
 *   noebpf     --no-ebpf: the /proc lanes only, every eBPF probe unsupported
 *   cgroup     a --cgroup capture: cgroup samples (v2 and v1 memory, PSI, processes in
 *              every coverage state), the cpu cgroup lane, a profile of two processes
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/capbuild.h"
#include "collectors/fds/fds.pb-c.h"
#include "collectors/io/io.pb-c.h"

#define SEC 1000000000ull
#define MS 1000000ull
#define MIB (1024ull * 1024)
#define T0 (5000 * SEC)			  /* monotonic ns at the start */
#define REALTIME (1790000000ull * SEC) /* 2026-09-21T...Z */
#define NINT 5				  /* intervals of one second */
#define PID 4321

#define APP "/opt/ptop-golden/bin/app"
#define LIBC "/opt/ptop-golden/lib/libc.so.6"
#define PLUG "/opt/ptop-golden/lib/libplug.so"
#define APP_BASE 0x555500000000ull
#define LIBC_BASE 0x7f1000000000ull
#define PLUG_BASE 0x7f2000000000ull
#define JIT_BASE 0x7f3000000000ull
#define KBASE 0xffffffff81000000ull

static const uint8_t app_bid[20] = {0x90, 0x1d, 0xe7, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
				    0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10};
static const uint8_t libc_bid[20] = {0x90, 0x1d, 0xe7, 0xcc, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
				     0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x11};
static const uint8_t plug_bid[20] = {0x90, 0x1d, 0xe7, 0xdd, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
				     0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x12};

static char dir[4096];

static struct capture_writer *create(const char *name, char *path, size_t len)
{
	struct capture_writer_opts o = {.force = true, .level = 3};
	struct capture_writer *w;

	snprintf(path, len, "%s/%s", dir, name);
	w = capture_writer__create(path, &o);
	if (!w) {
		fprintf(stderr, "gen: cannot create %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return w;
}

static void flush(struct capture_writer *w)
{
	int rc = capture_writer__flush(w);

	CAPB_CHECK(rc);
}

static void finish(struct capture_writer *w)
{
	int rc = capture_writer__close(w);

	CAPB_CHECK(rc);
}

/* ---------------------------------------------------------------- header */

static void header_common(struct capb_header *b, uint8_t id0)
{
	static char *argv[] = {"ptop-record", "-o", "run.ptop", "--", APP, "--golden"};

	capb__header_init(b);
	for (int k = 0; k < 16; k++)
		b->id[k] = (uint8_t)(0xa0 + k);
	b->id[0] = id0;
	b->rec.version = "0.1.0";
	b->rec.commit = "0123456789ab";
	b->rec.build_date = "2026-09-01T00:00:00Z";
	b->host.hostname = "golden-host";
	b->host.kernel_release = "6.18.0-golden";
	b->host.kernel_version = "#1 SMP PREEMPT_DYNAMIC Golden";
	b->host.boot_id = "00000000-0000-4000-8000-00000000601d";
	b->host.cpus = 4;
	b->host.page_size = 4096;
	b->host.clock_tick = 100;
	b->host.machine = "x86_64";
	b->clk.monotonic_ns = T0;
	b->clk.realtime_ns = REALTIME;
	b->clk.boottime_ns = T0 + 7 * SEC;
	b->opt.argv = argv;
	b->opt.n_argv = sizeof(argv) / sizeof(argv[0]);
	b->opt.interval_ns = SEC;
	b->opt.vma_interval_ns = 2 * SEC;
	b->opt.flush_interval_ns = SEC;
	b->opt.cpu_sample_hz = 99;
	b->opt.heap_sample_bytes = 0;
	b->opt.heap_top = 20;
	b->opt.leak_age_ns = 2 * SEC;
	b->opt.heap_events = true;
	b->opt.smaps_budget_ns = 50 * MS;
	b->opt.heap_lane = "auto";
	b->t.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND;
	b->t.pid = PID;
	b->t.comm = "app";
	b->t.exe = APP;
	b->t.exe_build_id.data = (uint8_t *)app_bid;
	b->t.exe_build_id.len = sizeof(app_bid);
	b->t.cgroup_path = "0::/golden.slice/run-1.scope";
	b->t.cgroup_id = 4242;
}

#define ACTIVE PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE
#define DISABLED PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED
#define FAILED PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED
#define UNSUPPORTED PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED
#define EBPF PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF
#define PROC PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC
#define PRELOAD PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PRELOAD

/* ---------------------------------------------------------------- events */

static void put_cpu(struct capture_writer *w, int i, int32_t pid, bool ebpf, bool proc)
{
	Ptop__V1__Event ev = capb__event(T0 + (uint64_t)i * SEC, pid, 0,
					 PTOP__V1__CATEGORY__CATEGORY_CPU, SEC);
	Ptop__V1__CpuSample c = PTOP__V1__CPU_SAMPLE__INIT;
	Ptop__V1__CpuEbpf e = PTOP__V1__CPU_EBPF__INIT;
	Ptop__V1__CpuProc p = PTOP__V1__CPU_PROC__INIT;

	e.oncpu_ns = (uint64_t)(100 + 150 * i) * MS;
	e.switches = 1000u * (unsigned)i + 7;
	p.user_ns = (uint64_t)(80 + 120 * i) * MS;
	p.system_ns = (uint64_t)(20 + 10 * i) * MS;
	p.user_ticks_total = 20u * (unsigned)i * (unsigned)(i + 1);
	p.system_ticks_total = 3u * (unsigned)i * (unsigned)(i + 1);
	p.threads = i < 3 ? 2 : 4;
	p.voluntary_switches = 100u * (unsigned)i;
	p.involuntary_switches = i == 2 ? 0 : 5u * (unsigned)i; /* a measured zero */
	c.ebpf = ebpf ? &e : NULL;
	c.proc = proc ? &p : NULL;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPU;
	ev.cpu = &c;
	capb__put_event(w, &ev);
}

static void put_syscalls(struct capture_writer *w, int i)
{
	Ptop__V1__Event ev = capb__event(T0 + (uint64_t)i * SEC, PID, 0,
					 PTOP__V1__CATEGORY__CATEGORY_SYSCALLS, SEC);
	Ptop__V1__SyscallStats ss = PTOP__V1__SYSCALL_STATS__INIT;
	Ptop__V1__SyscallStat s[5], *sp[5];
	static uint64_t h_getppid[] = {0, 0, 0, 0, 0, 0, 0, 120, 9000, 880};
	static uint64_t h_read[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 40, 300, 60, 0, 0, 0, 0, 2};
	static uint64_t h_write[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25, 25};
	static uint64_t h_openat[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3};
	static uint64_t h_unknown[] = {1};
	size_t n = 0;

	for (int k = 0; k < 5; k++) {
		ptop__v1__syscall_stat__init(&s[k]);
		sp[k] = &s[k];
	}
	s[n].nr = 110;
	s[n].name = "getppid";
	s[n].count = s[n].completed = 10000u * (unsigned)i;
	s[n].total_ns = 3100000ull * (uint64_t)i;
	s[n].latency_log2_hist = h_getppid;
	s[n].n_latency_log2_hist = sizeof(h_getppid) / sizeof(h_getppid[0]);
	n++;
	s[n].nr = 0;
	s[n].name = "read";
	s[n].count = 403;
	s[n].completed = 402;
	s[n].errors = 2;
	s[n].total_ns = 1500000ull + 250000000ull * (i == 3);
	s[n].latency_log2_hist = h_read;
	s[n].n_latency_log2_hist = sizeof(h_read) / sizeof(h_read[0]);
	s[n].unmatched = i == 1 ? 1 : 0;
	n++;
	s[n].nr = 1;
	s[n].name = "write";
	s[n].count = s[n].completed = 50;
	s[n].errors = i == 4 ? 50 : 0;
	s[n].total_ns = 200000;
	s[n].latency_log2_hist = h_write;
	s[n].n_latency_log2_hist = sizeof(h_write) / sizeof(h_write[0]);
	n++;
	if (i % 2) {
		s[n].nr = 257;
		s[n].name = "openat";
		s[n].count = 3;
		s[n].completed = 3;
		s[n].errors = 1;
		s[n].total_ns = 3 * 5000;
		s[n].latency_log2_hist = h_openat;
		s[n].n_latency_log2_hist = sizeof(h_openat) / sizeof(h_openat[0]);
		n++;
	}
	if (i == 5) {
		s[n].nr = 999;
		s[n].name = "sys_999";
		s[n].count = 1;
		s[n].completed = 1;
		s[n].errors = 1;
		s[n].total_ns = 0;
		s[n].latency_log2_hist = h_unknown;
		s[n].n_latency_log2_hist = 1;
		n++;
	}
	ss.stats = sp;
	ss.n_stats = n;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_SYSCALLS;
	ev.syscalls = &ss;
	capb__put_event(w, &ev);
}

static void put_memory(struct capture_writer *w, int i)
{
	Ptop__V1__Event ev = capb__event(T0 + (uint64_t)i * SEC, PID, 0,
					 PTOP__V1__CATEGORY__CATEGORY_MEMORY, SEC);
	Ptop__V1__MemorySample m = PTOP__V1__MEMORY_SAMPLE__INIT;
	Ptop__V1__Statm st = PTOP__V1__STATM__INIT;
	Ptop__V1__SmapsRollup ro = PTOP__V1__SMAPS_ROLLUP__INIT;
	Ptop__V1__Faults f = PTOP__V1__FAULTS__INIT;
	Ptop__V1__SmapsBudget bu = PTOP__V1__SMAPS_BUDGET__INIT;
	static char *missing[] = {"Pss_Shmem"};
	uint64_t grow = (uint64_t)i * 4 * MIB;

	st.vsize = 300 * MIB + grow;
	st.rss = 40 * MIB + grow;
	st.shared = 12 * MIB;
	st.text = 2 * MIB;
	st.data = 30 * MIB + grow;
	ro.rss = st.rss;
	ro.pss = 33 * MIB + grow;
	ro.uss = 28 * MIB + grow;
	ro.pss_anon = 26 * MIB + grow;
	ro.pss_file = 7 * MIB;
	ro.pss_shmem = 0;
	ro.shared_clean = 10 * MIB;
	ro.shared_dirty = 2 * MIB;
	ro.private_clean = 3 * MIB;
	ro.private_dirty = 25 * MIB + grow;
	ro.anon = 27 * MIB + grow;
	ro.swap = i >= 4 ? MIB : 0;
	ro.swap_pss = i >= 4 ? MIB / 2 : 0;
	ro.locked = 0;
	ro.read_ns = 120000 + 1000 * (uint64_t)i;
	if (i == 2) {
		ro.missing = missing;
		ro.n_missing = 1;
	}
	f.minflt = 1000u * (unsigned)i;
	f.majflt = i == 1 ? 3 : 0;
	f.minflt_total = 500u * (unsigned)i * (unsigned)(i + 1);
	f.majflt_total = 3;
	m.statm = &st;
	m.rollup = i == 3 ? NULL : &ro;
	m.faults = &f;
	if (i == 3) { /* the budget was spent: smaps_rollup not read */
		bu.budget_ns = 50 * MS;
		bu.spent_ns = 61 * MS;
		bu.rollup_skipped = true;
		m.budget = &bu;
	}
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_MEMORY;
	ev.memory = &m;
	capb__put_event(w, &ev);
}

struct vma_def {
	uint64_t start, end;
	const char *perms, *path;
	uint64_t offset, inode;
	uint64_t rss_kib, pss_kib, uss_kib, anon_kib, swap_kib;
};

static void put_vmas(struct capture_writer *w, int i, bool final)
{
	Ptop__V1__Event ev = capb__event(T0 + (uint64_t)i * SEC, PID, 0,
					 PTOP__V1__CATEGORY__CATEGORY_VMAS, 0);
	Ptop__V1__VmaSnapshot vs = PTOP__V1__VMA_SNAPSHOT__INIT;
	/* the heap grows 4 MiB a second; the plugin is mapped from 2 s to 4 s */
	uint64_t hk = 4096u * (unsigned)i;
	const struct vma_def d[] = {
	    {APP_BASE, APP_BASE + 0x1000, "r--p", APP, 0, 77, 4, 4, 0, 0, 0},
	    {APP_BASE + 0x1000, APP_BASE + 0x5000, "r-xp", APP, 0x1000, 77, 16, 16, 0, 0, 0},
	    {APP_BASE + 0x5000, APP_BASE + 0x6000, "rw-p", APP, 0x5000, 77, 4, 4, 4, 4, 0},
	    {APP_BASE + 0x10000, APP_BASE + 0x10000 + hk * 1024, "rw-p", "[heap]", 0, 0, hk, hk,
	     hk, hk, 0},
	    {LIBC_BASE, LIBC_BASE + 0x28000, "r--p", LIBC, 0, 88, 160, 20, 0, 0, 0},
	    {LIBC_BASE + 0x28000, LIBC_BASE + 0x1bd000, "r-xp", LIBC, 0x28000, 88, 1200, 150,
	     0, 0, 0},
	    {PLUG_BASE, PLUG_BASE + 0x4000, "r-xp", PLUG, 0, 99, 8, 8, 8, 0, 0},
	    {JIT_BASE, JIT_BASE + 0x10000, "rwxp", "", 0, 0, 64, 64, 64, 64, 0},
	    {0x7f4000000000ull, 0x7f4000800000ull, "rw-p", "[anon:arena]", 0, 0, 2048, 2048,
	     2048, 2048, i >= 4 ? 512 : 0},
	    {0x7ffd00000000ull, 0x7ffd00021000ull, "rw-p", "[stack]", 0, 0, 32, 32, 32, 32, 0},
	    {0x7ffd00100000ull, 0x7ffd00102000ull, "r-xp", "[vdso]", 0, 0, 4, 0, 0, 0, 0},
	};
	size_t nd = sizeof(d) / sizeof(d[0]), n = 0;
	Ptop__V1__Vma v[sizeof(d) / sizeof(d[0])], *vp[sizeof(d) / sizeof(d[0])];

	for (size_t k = 0; k < nd; k++) {
		if (d[k].start == PLUG_BASE && (i < 2 || i >= 4))
			continue;
		ptop__v1__vma__init(&v[n]);
		vp[n] = &v[n];
		v[n].start = d[k].start;
		v[n].end = d[k].end;
		v[n].perms = (char *)d[k].perms;
		v[n].offset = d[k].offset;
		v[n].dev = d[k].inode ? "fd:01" : "00:00";
		v[n].inode = d[k].inode;
		v[n].path = (char *)d[k].path;
		v[n].size = d[k].end - d[k].start;
		v[n].rss = d[k].rss_kib * 1024;
		v[n].pss = d[k].pss_kib * 1024;
		v[n].uss = d[k].uss_kib * 1024;
		v[n].shared_clean = (d[k].rss_kib - d[k].uss_kib) * 1024;
		v[n].anon = d[k].anon_kib * 1024;
		v[n].swap = d[k].swap_kib * 1024;
		v[n].swap_pss = d[k].swap_kib * 1024;
		n++;
	}
	vs.vmas = vp;
	vs.n_vmas = n;
	vs.walk_ns = 900000 + 1000 * (uint64_t)i;
	vs.final = final;
	vs.budget_ns = 50 * MS;
	vs.skipped_walks = i == 3 ? 1 : 0;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_VMAS;
	ev.vmas = &vs;
	capb__put_event(w, &ev);
}

static void put_context(struct capture_writer *w, int i, const char *comm)
{
	Ptop__V1__Event ev = capb__event(T0 + (uint64_t)i * SEC, PID, PID,
					 PTOP__V1__CATEGORY__CATEGORY_CONTEXT, 0);
	Ptop__V1__ProcContext c = PTOP__V1__PROC_CONTEXT__INIT;
	Ptop__V1__Namespace ns[3], *nsp[3];
	static const char *types[] = {"pid", "mnt", "net"};
	int32_t nspid[2] = {PID, 7};

	for (int k = 0; k < 3; k++) {
		ptop__v1__namespace__init(&ns[k]);
		ns[k].type = (char *)types[k];
		ns[k].inode = 4026531836ull + (uint64_t)k;
		nsp[k] = &ns[k];
	}
	c.ppid = 4000;
	c.comm = (char *)comm;
	c.uid = c.euid = 1000;
	c.gid = c.egid = 1000;
	c.namespaces = nsp;
	c.n_namespaces = 3;
	c.cgroup_path = "0::/golden.slice/run-1.scope";
	c.cgroup_id = 4242;
	c.container_id = "";
	c.nspid = nspid;
	c.n_nspid = 2;
	ev.uid = ev.gid = 1000;
	ev.cgroup_id = 4242;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CONTEXT;
	ev.context = &c;
	capb__put_event(w, &ev);
}

/* user stacks 1..6 (innermost first), kernel stacks 101, 102 */
enum { S_LEAK = 1, S_CHURN, S_GROW, S_PLUG, S_JIT, S_CPU, K_READ = 101, K_FAULT };

static void put_stacks(struct capture_writer *w)
{
	const uint64_t app = APP_BASE + 0x1000, libc = LIBC_BASE + 0x28000;
	const uint64_t leak[] = {libc + 0x100, app + 0x150, app + 0x40, libc + 0x2000};
	const uint64_t churn[] = {libc + 0x100, app + 0x250, app + 0x48, libc + 0x2000};
	const uint64_t grow[] = {libc + 0x180, app + 0x350, app + 0x50, libc + 0x2000};
	const uint64_t plug[] = {libc + 0x100, PLUG_BASE + 0x1234, app + 0x58};
	const uint64_t jit[] = {JIT_BASE + 0x110, JIT_BASE + 0x2010, app + 0x60};
	const uint64_t cpu[] = {app + 0x450, app + 0x460, app + 0x40, libc + 0x2000};
	const uint64_t kread[] = {KBASE + 0x1234, KBASE + 0x5678, KBASE + 0x9abc};
	const uint64_t kfault[] = {KBASE + 0x2222, KBASE + 0x3333};

	capb__put_stack(w, S_LEAK, leak, 4, false);
	capb__put_stack(w, S_CHURN, churn, 4, false);
	capb__put_stack(w, S_GROW, grow, 4, false);
	capb__put_stack(w, S_PLUG, plug, 3, false);
	capb__put_stack(w, S_JIT, jit, 3, false);
	capb__put_stack(w, S_CPU, cpu, 4, false);
	capb__put_stack(w, K_READ, kread, 3, true);
	capb__put_stack(w, K_FAULT, kfault, 2, true);
}

static void put_cpuprof(struct capture_writer *w, int i, int32_t pid, const int32_t *pids,
			size_t npids)
{
	Ptop__V1__Event ev = capb__event(T0 + (uint64_t)i * SEC, pid, 0,
					 PTOP__V1__CATEGORY__CATEGORY_CPUPROF, SEC);
	Ptop__V1__CpuProfile p = PTOP__V1__CPU_PROFILE__INIT;
	Ptop__V1__StackCount sc[8], *scp[8];
	Ptop__V1__ProcessName pn[2], *pnp[2];
	static const char *comms[] = {"app", "helper"};
	const struct {
		uint64_t user, kernel, count;
	} d[] = {
	    {S_CPU, 0, 40u + 5u * (unsigned)i},
	    {S_LEAK, 0, 7},
	    {S_JIT, 0, 3u * (unsigned)i},
	    {S_CHURN, K_READ, 5},
	    {0, K_FAULT, 2},
	};
	size_t n = 0;
	uint64_t total = 0;

	for (size_t r = 0; r < (npids ? npids : 1); r++) {
		for (size_t k = 0; k < sizeof(d) / sizeof(d[0]); k++) {
			if (r == 1 && k >= 2)
				break;
			ptop__v1__stack_count__init(&sc[n]);
			scp[n] = &sc[n];
			sc[n].user_stack_id = d[k].user;
			sc[n].kernel_stack_id = d[k].kernel;
			sc[n].count = d[k].count + (uint64_t)r * 10;
			sc[n].pid = npids ? pids[r] : 0;
			total += sc[n].count;
			n++;
		}
	}
	for (size_t r = 0; r < npids && r < 2; r++) {
		ptop__v1__process_name__init(&pn[r]);
		pn[r].pid = pids[r];
		pn[r].comm = (char *)comms[r];
		pnp[r] = &pn[r];
	}
	p.requested_hz = 99;
	p.cpus = 4;
	p.ticks = 396;
	p.delivered_hz = 99.0;
	p.samples = total + 2;
	p.no_user_stack = 2 + 2;
	p.no_kernel_stack = 1;
	p.lost = i == 4 ? 3 : 0;
	p.stacks = scp;
	p.n_stacks = n;
	p.processes = npids ? pnp : NULL;
	p.n_processes = npids;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPUPROF;
	ev.cpuprof = &p;
	capb__put_event(w, &ev);
}

/* Interval I's I/O counters (the io collector's /proc lane, delay accounting on). */
static void put_io(struct capture_writer *w, int i)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__IoSample s = PTOP__V1__IO_SAMPLE__INIT;
	Ptop__V1__CollectorPayload cp;

	s.rchar = 65536 * (uint64_t)i + 123;
	s.wchar = MIB * (uint64_t)i;
	s.syscr = 16 * (uint64_t)i + 1;
	s.syscw = 256 * (uint64_t)i;
	s.read_bytes = 4096;
	s.write_bytes = i > 1 ? MIB * (uint64_t)(i - 1) : 0;
	s.cancelled_write_bytes = i == 3 ? 8192 : 0;
	s.iowait_measured = true;
	s.iowait_ns = 10 * MS * (uint64_t)i;
	CAPB_CHECK(capture_payload__pack(&ev, &cp, "io", &s.base));
	ev.time_ns = T0 + (uint64_t)i * SEC;
	ev.interval_ns = SEC;
	ev.pid = PID;
	capb__put_event(w, &ev);
	capture_payload__release(&cp);
}

/* The fds collector's payload (a CollectorPayload) at interval I. */
static void put_fds_payload(struct capture_writer *w, uint64_t t, uint64_t iv,
			    const ProtobufCMessage *msg)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CollectorPayload cp;

	CAPB_CHECK(capture_payload__pack(&ev, &cp, "fds", msg));
	ev.time_ns = t;
	ev.interval_ns = iv;
	ev.pid = PID;
	capb__put_event(w, &ev);
	capture_payload__release(&cp);
}

/* Interval I's fd table by type: sockets leak, 10 an interval; at the last interval the
 * table itself. */
static void put_fds(struct capture_writer *w, int i)
{
	Ptop__V1__FdSample s = PTOP__V1__FD_SAMPLE__INIT;

	s.file = 5;
	s.socket = 10 * (uint32_t)i;
	s.pipe = 2;
	s.eventfd = 1;
	s.epoll = 1;
	s.anon_inode = i > 2;
	s.total = s.file + s.socket + s.pipe + s.eventfd + s.epoll + s.anon_inode;
	put_fds_payload(w, T0 + (uint64_t)i * SEC, SEC, &s.base);
	if (i == NINT) {
		Ptop__V1__FdEntry e[4] = {PTOP__V1__FD_ENTRY__INIT, PTOP__V1__FD_ENTRY__INIT,
					  PTOP__V1__FD_ENTRY__INIT, PTOP__V1__FD_ENTRY__INIT};
		Ptop__V1__FdEntry *ep[4] = {&e[0], &e[1], &e[2], &e[3]};
		Ptop__V1__FdTable tab = PTOP__V1__FD_TABLE__INIT;

		e[0].fd = 0;
		e[0].type = "file";
		e[0].target = "/dev/null";
		e[1].fd = 3;
		e[1].type = "epoll";
		e[1].target = "anon_inode:[eventpoll]";
		e[2].fd = 7;
		e[2].type = "socket";
		e[2].target = "socket:[424242]";
		e[3].fd = 9;
		e[3].type = "file";
		e[3].target = "/opt/ptop-golden/var/log, \"app\".log (deleted)";
		tab.entries = ep;
		tab.n_entries = 4;
		tab.truncated = false;
		put_fds_payload(w, T0 + (uint64_t)i * SEC, 0, &tab.base);
	}
}

static void put_heap(struct capture_writer *w, int i)
{
	Ptop__V1__Event ev = capb__event(T0 + (uint64_t)i * SEC, PID, 0,
					 PTOP__V1__CATEGORY__CATEGORY_HEAP, SEC);
	Ptop__V1__HeapSnapshot h = PTOP__V1__HEAP_SNAPSHOT__INIT;
	Ptop__V1__HeapSite s[4], *sp[4];
	uint64_t ui = (uint64_t)i;
	const struct {
		uint64_t id, ac, ab, lc, lb, fc, life, oldest;
	} d[] = {
	    /* leak: 600 pages in the first interval, kept */
	    {S_LEAK, i == 1 ? 600 : 0, i == 1 ? 600 * 4096 : 0, 600, 600 * 4096, 0, 0,
	     T0 + SEC / 2},
	    /* churn: 100,000 x 64 B a second, each freed after 1 us */
	    {S_CHURN, 100000, 6400000, 0, 0, 100000, 100000 * 1000ull, 0},
	    /* grow: 100 x 1000 B a second, none freed */
	    {S_GROW, 100, 100000, 100 * ui, 100000 * ui, 0, 0, T0 + SEC / 2},
	    /* the plugin, while it is mapped */
	    {S_PLUG, i >= 2 && i < 4 ? 10 : 0, i >= 2 && i < 4 ? 5120 : 0, 10, 5120, 0, 0,
	     T0 + 2 * SEC},
	};

	for (int k = 0; k < 4; k++) {
		ptop__v1__heap_site__init(&s[k]);
		sp[k] = &s[k];
		s[k].stack_id = d[k].id;
		s[k].alloc_count = d[k].ac;
		s[k].alloc_bytes = d[k].ab;
		s[k].live_count = d[k].lc;
		s[k].live_bytes = d[k].lb;
		s[k].freed_count = d[k].fc;
		s[k].lifetime_ns_sum = d[k].life;
		s[k].oldest_live_ns = d[k].oldest;
		h.alloc_count += d[k].ac;
		h.alloc_bytes += d[k].ab;
		h.free_count += d[k].fc;
		h.free_bytes += d[k].fc * 64;
		h.live_count += d[k].lc;
		h.live_bytes += d[k].lb;
		if (d[k].oldest && d[k].oldest + 2 * SEC <= T0 + ui * SEC) {
			h.leak_count += d[k].lc;
			h.leak_bytes += d[k].lb;
		}
	}
	h.lane = "uprobe";
	h.module = LIBC;
	h.sample_bytes = 0;
	h.live_measured = true;
	h.leak_age_ns = 2 * SEC;
	h.sites = sp;
	h.n_sites = 4;
	h.total_call_sites = i == 5 ? 7 : 4;
	if (i == 5) {
		h.omitted_alloc_count = 9;
		h.omitted_alloc_bytes = 900;
		h.omitted_live_bytes = 300;
		h.alloc_count += 9;
		h.alloc_bytes += 900;
	}
	h.live_untracked = i == 2 ? 4 : 0;
	h.stack_failures = 1;
	h.free_untracked = 3;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_HEAP;
	ev.heap = &h;
	capb__put_event(w, &ev);
}

static void put_heap_event(struct capture_writer *w, uint64_t t, int kind, uint64_t addr,
			   uint64_t size, uint64_t stack, const char *fn)
{
	Ptop__V1__Event ev = capb__event(t, PID, PID + 1, PTOP__V1__CATEGORY__CATEGORY_HEAP, 0);
	Ptop__V1__HeapEvent h = PTOP__V1__HEAP_EVENT__INIT;

	h.kind = kind;
	h.address = addr;
	h.size = size;
	h.stack_id = stack;
	h.function = (char *)fn;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_HEAP_EVENT;
	ev.heap_event = &h;
	capb__put_event(w, &ev);
}

/* ---------------------------------------------------------------- mappings */

static void put_map(struct capture_writer *w, uint64_t t, int32_t pid, uint64_t start,
		    uint64_t end, uint64_t off, const char *path, const uint8_t *bid,
		    Ptop__V1__MappingEvent e, const char *bid_error, bool elf)
{
	Ptop__V1__Mapping m = capb__mapping(t, pid, start, end, off, path, bid, bid ? 20 : 0, e);
	Ptop__V1__ElfAddress ea = PTOP__V1__ELF_ADDRESS__INIT;

	m.inode = bid ? 77 : 0;
	m.dev = bid ? "fd:01" : "00:00";
	if (bid_error)
		m.build_id_error = (char *)bid_error;
	if (elf) {
		ea.vaddr = off;
		m.elf = &ea;
	}
	capb__put_mapping(w, &m);
}

#define M_START PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START
#define M_NEW PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_NEW
#define M_GONE PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_GONE
#define M_END PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_END

static void put_maps(struct capture_writer *w, uint64_t t, int32_t pid,
		     Ptop__V1__MappingEvent e)
{
	put_map(w, t, pid, APP_BASE + 0x1000, APP_BASE + 0x5000, 0x1000, APP, app_bid, e, NULL,
		true);
	put_map(w, t, pid, LIBC_BASE + 0x28000, LIBC_BASE + 0x1bd000, 0x28000, LIBC, libc_bid, e,
		NULL, true);
	put_map(w, t, pid, JIT_BASE, JIT_BASE + 0x10000, 0, "", NULL, e, NULL, false);
	put_map(w, t, pid, 0x7ffd00100000ull, 0x7ffd00102000ull, 0, "[vdso]", NULL, e,
		"no file", false);
}

/* ---------------------------------------------------------------- captures */

static const char perf_map[] = "7f3000000100 80 LazyCompiled:~handle_request app.js:12\n"
			       "7f3000002000 40 Builtin:InterpreterEntryTrampoline\n";

/* Embedded symbols (--embed-symbols) of libplug.so: a small ELF made here, with the
 * plugin's build-id note and a symbol table naming plug_init and plug_alloc, so that its
 * frames are named the same on every machine. Returns its size; the image is in ELF_IMG. */
static uint8_t elf_img[1024];

static size_t make_plug_elf(void)
{
	static const char strtab[] = "\0plug_alloc\0plug_init";
	static const char shstr[] = "\0.note.gnu.build-id\0.text\0.symtab\0.strtab\0.shstrtab";
	const size_t note_off = sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr);
	const size_t note_len = sizeof(Elf64_Nhdr) + 4 + sizeof(plug_bid);
	const size_t sym_off = (note_off + note_len + 7) & ~(size_t)7;
	const size_t str_off = sym_off + 3 * sizeof(Elf64_Sym);
	const size_t shs_off = str_off + sizeof(strtab);
	const size_t sh_off = (shs_off + sizeof(shstr) + 7) & ~(size_t)7;
	const size_t size = sh_off + 6 * sizeof(Elf64_Shdr);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)elf_img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(elf_img + sizeof(*eh));
	Elf64_Nhdr *nh = (Elf64_Nhdr *)(elf_img + note_off);
	Elf64_Sym *sym = (Elf64_Sym *)(elf_img + sym_off);
	Elf64_Shdr *sh = (Elf64_Shdr *)(elf_img + sh_off);

	if (size > sizeof(elf_img))
		abort();
	memset(elf_img, 0, sizeof(elf_img));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = sh_off;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 2;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 6;
	eh->e_shstrndx = 5;
	ph[0].p_type = PT_LOAD;
	ph[0].p_flags = PF_R | PF_X;
	ph[0].p_filesz = size;
	ph[0].p_memsz = 0x4000;
	ph[0].p_align = 0x1000;
	ph[1].p_type = PT_NOTE;
	ph[1].p_flags = PF_R;
	ph[1].p_offset = ph[1].p_vaddr = note_off;
	ph[1].p_filesz = ph[1].p_memsz = note_len;
	ph[1].p_align = 4;
	nh->n_namesz = 4;
	nh->n_descsz = sizeof(plug_bid);
	nh->n_type = NT_GNU_BUILD_ID;
	memcpy((uint8_t *)(nh + 1), "GNU", 4);
	memcpy((uint8_t *)(nh + 1) + 4, plug_bid, sizeof(plug_bid));
	/* symbol 1: plug_alloc at 0x1200, 2: plug_init at 0x1100 */
	sym[1].st_name = 1;
	sym[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[1].st_shndx = 2;
	sym[1].st_value = 0x1200;
	sym[1].st_size = 0x100;
	sym[2].st_name = 12;
	sym[2].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[2].st_shndx = 2;
	sym[2].st_value = 0x1100;
	sym[2].st_size = 0x80;
	memcpy(elf_img + str_off, strtab, sizeof(strtab));
	memcpy(elf_img + shs_off, shstr, sizeof(shstr));
	sh[1] = (Elf64_Shdr){.sh_name = 1, .sh_type = SHT_NOTE, .sh_flags = SHF_ALLOC,
			     .sh_addr = note_off, .sh_offset = note_off, .sh_size = note_len,
			     .sh_addralign = 4};
	sh[2] = (Elf64_Shdr){.sh_name = 20, .sh_type = SHT_NOBITS,
			     .sh_flags = SHF_ALLOC | SHF_EXECINSTR, .sh_addr = 0x1000,
			     .sh_offset = 0x1000, .sh_size = 0x2000, .sh_addralign = 16};
	sh[3] = (Elf64_Shdr){.sh_name = 26, .sh_type = SHT_SYMTAB, .sh_offset = sym_off,
			     .sh_size = 3 * sizeof(Elf64_Sym), .sh_link = 4, .sh_info = 1,
			     .sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym)};
	sh[4] = (Elf64_Shdr){.sh_name = 34, .sh_type = SHT_STRTAB, .sh_offset = str_off,
			     .sh_size = sizeof(strtab), .sh_addralign = 1};
	sh[5] = (Elf64_Shdr){.sh_name = 42, .sh_type = SHT_STRTAB, .sh_offset = shs_off,
			     .sh_size = sizeof(shstr), .sh_addralign = 1};
	return size;
}

/* The records of the full capture; TRAILER: end with one (else the writer is left open,
 * its last frame flushed). Returns the bytes written after each interval in *AT. */
static struct capture_writer *write_full(const char *name, bool trailer, uint64_t at[NINT + 1])
{
	char path[4200];
	struct capture_writer *w = create(name, path, sizeof(path));
	struct capb_header b;
	Ptop__V1__Probe heap2 = PTOP__V1__PROBE__INIT, gone = PTOP__V1__PROBE__INIT;
	size_t elf_size;

	header_common(&b, 0xf1);
	b.t.cmdline = (char *[]){APP, "--golden"};
	b.t.n_cmdline = 2;
	capb__probe(&b, "cpu", ACTIVE, EBPF, NULL, "tp_btf/sched_switch");
	capb__probe(&b, "syscalls", ACTIVE, EBPF, NULL, "raw_tp/sys_enter, raw_tp/sys_exit");
	capb__probe(&b, "cpuprof", ACTIVE, EBPF, NULL, "perf_event cpu-clock 99 Hz");
	capb__probe(&b, "heap", ACTIVE, EBPF, NULL, "uprobe " LIBC);
	capb__probe(&b, "goalloc", DISABLED, EBPF, "not a Go program", NULL);
	capb__probe(&b, "memory", ACTIVE, PROC, NULL, "smaps_rollup, statm, stat");
	capb__probe(&b, "vmas", ACTIVE, PROC, NULL, "smaps");
	capb__probe(&b, "proccontext", ACTIVE, PROC, NULL, NULL);
	capb__probe(&b, "mappings", ACTIVE, PROC, NULL, "maps");
	capb__probe(&b, "cgroup", UNSUPPORTED, PROC, "not a --cgroup recording", NULL);
	capb__probe(&b, "io", ACTIVE, PROC, NULL,
		    "/proc/4321/io each interval; per-file figures not collected: no eBPF lane for "
		    "them yet; file-system events not collected: needs --io-events (eBPF at every "
		    "syscall exit)");
	capb__probe(&b, "fds", ACTIVE, PROC, NULL,
		    "/proc/4321/fd: one readlink per fd each interval; opens and closes not "
		    "collected: needs --fd-stacks (eBPF at every syscall exit)");
	capb__put_header(w, &b);

	put_maps(w, T0 + 1000, PID, M_START);
	elf_size = make_plug_elf();
	capb__put_module_symbols(w, plug_bid, 20, PLUG, false, elf_img, 200, 0, 2, elf_size);
	capb__put_module_symbols(w, plug_bid, 20, PLUG, false, elf_img + 200, elf_size - 200, 1,
				 2, elf_size);
	put_stacks(w);
	put_context(w, 0, "app");
	at[0] = capture_writer__bytes(w);
	for (int i = 1; i <= NINT; i++) {
		uint64_t t = T0 + (uint64_t)i * SEC;

		if (i == 2) {
			put_map(w, t - SEC / 2, PID, PLUG_BASE, PLUG_BASE + 0x4000, 0, PLUG,
				plug_bid, M_NEW, NULL, true);
			capb__put_drop(w, t - SEC / 4, "syscalls", "ringbuf", 12,
				       "ring buffer full");
		}
		if (i == 3) {
			heap2 = *b.pp[3];
			heap2.detail = "uprobe " LIBC " (re-attached)";
			capb__put_probe_change(w, t - SEC / 2, &heap2, "exec " APP);
			ptop__v1__probe__init(&gone);
			gone.name = "goalloc";
			gone.state = FAILED;
			gone.source = EBPF;
			gone.reason = "no runtime.mallocgc symbol";
			capb__put_probe_change(w, t - SEC / 2, &gone, "exec " APP);
			capb__put_perf_map(w, t - SEC / 4, PID, "/tmp/perf-7.map", perf_map, 40,
					   0, 2);
			capb__put_perf_map(w, t - SEC / 4, PID, "/tmp/perf-7.map", perf_map + 40,
					   sizeof(perf_map) - 1 - 40, 1, 2);
			put_context(w, i, "app-worker");
		}
		if (i == 4) {
			put_map(w, t - SEC / 2, PID, PLUG_BASE, PLUG_BASE + 0x4000, 0, PLUG,
				plug_bid, M_GONE, NULL, true);
			capb__put_drop(w, t - SEC / 4, "memory", "proc_unreadable", 1,
				       "smaps_rollup: Permission denied");
		}
		put_heap_event(w, t - SEC / 2, PTOP__V1__HEAP_EVENT__KIND__KIND_ALLOC,
			       0x5555000000ull + 0x1000 * (uint64_t)i, 4096, S_LEAK, "malloc");
		if (i > 1)
			put_heap_event(w, t - SEC / 3, PTOP__V1__HEAP_EVENT__KIND__KIND_FREE,
				       0x5555000000ull + 0x1000 * (uint64_t)(i - 1), 4096, S_LEAK,
				       "free");
		put_cpu(w, i, PID, true, true);
		put_syscalls(w, i);
		put_memory(w, i);
		if (i % 2 || i == NINT)
			put_vmas(w, i, i == NINT);
		put_cpuprof(w, i, PID, NULL, 0);
		put_heap(w, i);
		put_io(w, i);
		put_fds(w, i);
		flush(w);
		at[i] = capture_writer__bytes(w);
	}
	put_maps(w, T0 + NINT * SEC, PID, M_END);
	if (trailer) {
		Ptop__V1__CaptureTrailer tr = PTOP__V1__CAPTURE_TRAILER__INIT;
		Ptop__V1__TargetExit te = PTOP__V1__TARGET_EXIT__INIT;
		Ptop__V1__DropTotal dt[2] = {PTOP__V1__DROP_TOTAL__INIT,
					     PTOP__V1__DROP_TOTAL__INIT};
		Ptop__V1__DropTotal *dtp[2] = {&dt[0], &dt[1]};

		te.exited = true;
		te.exit_code = 3;
		te.status_known = true;
		dt[0].collector = "syscalls";
		dt[0].kind = "ringbuf";
		dt[0].lost = 12;
		dt[1].collector = "memory";
		dt[1].kind = "proc_unreadable";
		dt[1].lost = 1;
		tr.reason = PTOP__V1__END_REASON__END_REASON_TARGET_EXIT;
		tr.end_time_ns = T0 + NINT * SEC + SEC / 10;
		tr.target_exit = &te;
		tr.records = capture_writer__records(w);
		tr.events = 80;
		tr.drops = dtp;
		tr.n_drops = 2;
		capb__put_trailer(w, &tr);
	}
	return w;
}

static void write_truncated(void)
{
	char path[4200];
	uint64_t at[NINT + 1];
	struct capture_writer *w = write_full("truncated.ptop", false, at);

	capture_writer__abort(w);
	snprintf(path, sizeof(path), "%s/truncated.ptop", dir);
	/* cut inside the frame of the fourth interval: three intervals stay */
	if (truncate(path, (off_t)(at[3] + (at[4] - at[3]) / 2))) {
		perror("gen: truncate");
		exit(1);
	}
}

static void write_noheap(void)
{
	char path[4200];
	struct capture_writer *w = create("noheap.ptop", path, sizeof(path));
	struct capb_header b;
	Ptop__V1__CaptureTrailer tr = PTOP__V1__CAPTURE_TRAILER__INIT;
	static char *disabled[] = {"vmas", "cpuprof"};

	header_common(&b, 0xf2);
	b.t.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	b.opt.disabled = disabled;
	b.opt.n_disabled = 2;
	b.opt.heap_events = false;
	b.rec.commit = "";
	capb__probe(&b, "cpu", ACTIVE, EBPF, NULL, "tp_btf/sched_switch");
	capb__probe(&b, "syscalls", ACTIVE, EBPF, NULL, NULL);
	capb__probe(&b, "cpuprof", DISABLED, EBPF, "--disable cpuprof", NULL);
	capb__probe(&b, "heap", FAILED, EBPF, "uprobe malloc: Permission denied", NULL);
	capb__probe(&b, "goalloc", UNSUPPORTED, EBPF, "not a Go program", NULL);
	capb__probe(&b, "memory", ACTIVE, PROC, NULL, NULL);
	capb__probe(&b, "vmas", DISABLED, PROC, "--disable vmas", NULL);
	capb__probe(&b, "mappings", ACTIVE, PROC, NULL, NULL);
	capb__probe(&b, "io", FAILED, PROC, "cannot read /proc/4321/io: Permission denied", NULL);
	capb__probe(&b, "fds", FAILED, PROC, "cannot read /proc/4321/fd: Permission denied", NULL);
	capb__put_header(w, &b);
	put_maps(w, T0 + 1000, PID, M_START);
	for (int i = 1; i <= 3; i++) {
		put_cpu(w, i, PID, true, true);
		put_syscalls(w, i);
		put_memory(w, i);
	}
	tr.reason = PTOP__V1__END_REASON__END_REASON_SIGNAL;
	tr.signal = 2;
	tr.end_time_ns = T0 + 3 * SEC + SEC / 2;
	tr.records = capture_writer__records(w);
	tr.events = 9;
	capb__put_trailer(w, &tr);
	finish(w);
}

static void write_noebpf(void)
{
	char path[4200];
	struct capture_writer *w = create("noebpf.ptop", path, sizeof(path));
	struct capb_header b;
	Ptop__V1__CaptureTrailer tr = PTOP__V1__CAPTURE_TRAILER__INIT;
	const char *why = "--no-ebpf";

	header_common(&b, 0xf3);
	b.opt.no_ebpf = true;
	b.opt.heap_events = false;
	capb__probe(&b, "cpu", ACTIVE, PROC, NULL, "/proc/PID/stat");
	capb__probe(&b, "syscalls", UNSUPPORTED, EBPF, why, NULL);
	capb__probe(&b, "cpuprof", UNSUPPORTED, EBPF, why, NULL);
	capb__probe(&b, "heap", UNSUPPORTED, EBPF, why, NULL);
	capb__probe(&b, "memory", ACTIVE, PROC, NULL, NULL);
	capb__probe(&b, "vmas", ACTIVE, PROC, NULL, NULL);
	capb__probe(&b, "proccontext", ACTIVE, PROC, NULL, NULL);
	capb__probe(&b, "mappings", ACTIVE, PROC, NULL, NULL);
	capb__put_header(w, &b);
	put_maps(w, T0 + 1000, PID, M_START);
	put_context(w, 0, "app");
	for (int i = 1; i <= 4; i++) {
		put_cpu(w, i, PID, false, true);
		put_memory(w, i);
		if (i == 1 || i == 4)
			put_vmas(w, i, i == 4);
	}
	tr.reason = PTOP__V1__END_REASON__END_REASON_DURATION;
	tr.end_time_ns = T0 + 4 * SEC;
	tr.records = capture_writer__records(w);
	tr.events = 11;
	capb__put_trailer(w, &tr);
	finish(w);
}

static Ptop__V1__PsiLine psi_line(double a10, double a60, double a300, uint64_t total,
				  uint64_t delta)
{
	Ptop__V1__PsiLine l = PTOP__V1__PSI_LINE__INIT;

	l.avg10 = a10;
	l.avg60 = a60;
	l.avg300 = a300;
	l.total_us = total;
	l.total_delta_us = delta;
	return l;
}

static void put_cgroup(struct capture_writer *w, int i)
{
	Ptop__V1__Event ev = capb__event(T0 + (uint64_t)i * SEC, 0, 0,
					 PTOP__V1__CATEGORY__CATEGORY_CGROUP, SEC);
	Ptop__V1__CgroupSample c = PTOP__V1__CGROUP_SAMPLE__INIT;
	Ptop__V1__CgroupMemV2 v2 = PTOP__V1__CGROUP_MEM_V2__INIT;
	Ptop__V1__CgroupMemV1 v1 = PTOP__V1__CGROUP_MEM_V1__INIT;
	Ptop__V1__StatEntry st[4], *stp[4];
	static const char *keys[] = {"anon", "file", "shmem", "kernel"};
	Ptop__V1__Psi psi[3], *psip[3];
	static const char *res[] = {"memory", "cpu", "io"};
	Ptop__V1__PsiLine some[3], full[3];
	Ptop__V1__ProcMem pm[5], *pmp[5];
	Ptop__V1__ProcCoverage cov = PTOP__V1__PROC_COVERAGE__INIT;
	uint64_t ui = (uint64_t)i;
	const struct {
		int32_t pid;
		const char *comm, *exe, *unit;
		Ptop__V1__ProcMemState state;
		uint64_t rss, pss, uss, swap;
	} p[] = {
	    {501, "app", APP, "app-golden-1.scope", PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_COVERED,
	     60 + 2 * ui, 50 + 2 * ui, 40 + 2 * ui, 0},
	    {502, "helper", "/opt/ptop-golden/bin/helper", "app-golden-1.scope",
	     PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_COVERED, 20, 12, 10, 1},
	    {503, "sidecar", "/opt/ptop-golden/bin/sidecar", "",
	     PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_COVERED, 30, 25, 22, 0},
	    {504, "root-tool", "", "", PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_DENIED, 0, 0, 0,
	     0},
	    {505, "shortlived", "/opt/ptop-golden/bin/short", "",
	     i == 2 ? PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_GONE
		    : PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_SKIPPED,
	     0, 0, 0, 0},
	};
	size_t np = i >= 2 ? 5 : 4;

	for (int k = 0; k < 4; k++) {
		ptop__v1__stat_entry__init(&st[k]);
		st[k].key = (char *)keys[k];
		st[k].value = (uint64_t)(k + 1) * 10 * MIB + ui * MIB;
		stp[k] = &st[k];
	}
	v2.current = (100 + 4 * ui) * MIB;
	v2.max = 512 * MIB;
	v2.peak = (100 + 4 * ui) * MIB;
	v2.has_peak = true;
	v2.stat = stp;
	v2.n_stat = 4;
	v2.oom_delta = i == 3 ? 1 : 0;
	v2.oom_kill_delta = i == 3 ? 1 : 0;
	v2.oom_total = i >= 3 ? 1 : 0;
	v2.oom_kill_total = i >= 3 ? 1 : 0;
	v2.high_delta = i == 4 ? 2 : 0;
	v1.usage = (90 + 4 * ui) * MIB;
	v1.limit_unlimited = true;
	v1.max_usage = (95 + 4 * ui) * MIB;
	v1.failcnt_delta = i == 3 ? 5 : 0;
	v1.failcnt_total = i >= 3 ? 5 : 0;
	v1.stat = stp;
	v1.n_stat = 2;
	for (int k = 0; k < 3; k++) {
		ptop__v1__psi__init(&psi[k]);
		psi[k].resource = (char *)res[k];
		some[k] = psi_line(1.5 * (k + 1) + (double)i, 1.0, 0.25, 1000 * ui * (uint64_t)(k + 1),
				   1000 * (uint64_t)(k + 1));
		full[k] = psi_line(0.5 * (k + 1), 0.25, 0.125, 400 * ui, 400);
		psi[k].some = &some[k];
		psi[k].full = k == 1 ? NULL : &full[k];
		psip[k] = &psi[k];
	}
	for (size_t k = 0; k < np; k++) {
		bool covered = p[k].state == PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_COVERED;

		ptop__v1__proc_mem__init(&pm[k]);
		pm[k].pid = p[k].pid;
		pm[k].comm = (char *)p[k].comm;
		pm[k].exe = (char *)p[k].exe;
		pm[k].unit = (char *)p[k].unit;
		pm[k].state = p[k].state;
		pm[k].rss = p[k].rss * MIB;
		pm[k].pss = p[k].pss * MIB;
		pm[k].uss = p[k].uss * MIB;
		pm[k].swap = p[k].swap * MIB;
		pm[k].read_ns = covered ? 100000 : 0;
		pm[k].cgroup_path = "/golden.slice/app.scope";
		pmp[k] = &pm[k];
		cov.processes++;
		cov.covered += covered;
		cov.denied += p[k].state == PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_DENIED;
		cov.gone += p[k].state == PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_GONE;
		cov.skipped += p[k].state == PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_SKIPPED;
	}
	cov.walk_ns = 300000;
	cov.budget_ns = 50 * MS;
	c.path = "/golden.slice/app.scope";
	c.v2 = &v2;
	c.v1 = i == 1 ? NULL : &v1;
	c.v1_path = i == 1 ? "" : "/golden.slice";
	c.psi = psip;
	c.n_psi = 3;
	c.procs = pmp;
	c.n_procs = np;
	c.coverage = &cov;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CGROUP;
	ev.cgroup = &c;
	capb__put_event(w, &ev);
}

static void put_cpu_cgroup(struct capture_writer *w, int i)
{
	Ptop__V1__Event ev = capb__event(T0 + (uint64_t)i * SEC, 0, 0,
					 PTOP__V1__CATEGORY__CATEGORY_CPU, SEC);
	Ptop__V1__CpuSample c = PTOP__V1__CPU_SAMPLE__INIT;
	Ptop__V1__CpuCgroup cg = PTOP__V1__CPU_CGROUP__INIT;

	cg.usage_ns = (uint64_t)(500 + 100 * i) * MS;
	cg.user_ns = (uint64_t)(400 + 80 * i) * MS;
	cg.system_ns = cg.usage_ns - cg.user_ns;
	cg.throttling = i != 1;
	if (cg.throttling) {
		cg.periods = 10;
		cg.throttled_periods = i == 4 ? 3 : 0;
		cg.throttled_ns = i == 4 ? 30 * MS : 0;
	}
	c.cgroup = &cg;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPU;
	ev.cpu = &c;
	capb__put_event(w, &ev);
}

static void write_cgroup(void)
{
	char path[4200];
	struct capture_writer *w = create("cgroup.ptop", path, sizeof(path));
	struct capb_header b;
	Ptop__V1__CaptureTrailer tr = PTOP__V1__CAPTURE_TRAILER__INIT;
	static const int32_t pids[] = {501, 502};

	header_common(&b, 0xf4);
	b.t.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP;
	b.t.pid = 0;
	b.t.comm = "";
	b.t.exe = "";
	b.t.exe_build_id.len = 0;
	b.t.exe_build_id.data = NULL;
	b.t.cgroup_path = "/golden.slice/app.scope";
	b.t.cgroup_id = 9001;
	b.t.container_id = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	b.opt.heap_events = false;
	capb__probe(&b, "cpu", ACTIVE, PROC, NULL, "cpu.stat");
	capb__probe(&b, "syscalls", UNSUPPORTED, EBPF, "cgroup mode", NULL);
	capb__probe(&b, "cpuprof", ACTIVE, EBPF, NULL, "perf_event cpu-clock 99 Hz, cgroup");
	capb__probe(&b, "heap", UNSUPPORTED, EBPF, "cgroup mode", NULL);
	capb__probe(&b, "memory", UNSUPPORTED, PROC, "cgroup mode", NULL);
	capb__probe(&b, "mappings", ACTIVE, PROC, NULL, NULL);
	capb__probe(&b, "cgroup", ACTIVE, PROC, NULL, "memory.stat, memory.events, *.pressure");
	capb__probe(&b, "io", UNSUPPORTED, PROC,
		    "/proc/PID/io is one process's: use --pid or a command, not --cgroup", NULL);
	capb__probe(&b, "fds", UNSUPPORTED, PROC,
		    "the fd table is one process's: use --pid or a command, not --cgroup", NULL);
	capb__put_header(w, &b);
	put_maps(w, T0 + 1000, 501, M_START);
	put_maps(w, T0 + 1000, 502, M_START);
	put_stacks(w);
	for (int i = 1; i <= 4; i++) {
		put_cgroup(w, i);
		put_cpu_cgroup(w, i);
		put_cpuprof(w, i, 0, pids, 2);
		flush(w);
	}
	tr.reason = PTOP__V1__END_REASON__END_REASON_DURATION;
	tr.end_time_ns = T0 + 4 * SEC;
	tr.records = capture_writer__records(w);
	tr.events = 12;
	capb__put_trailer(w, &tr);
	finish(w);
}

int main(int argc, char **argv)
{
	uint64_t at[NINT + 1];

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	finish(write_full("full.ptop", true, at));
	write_truncated();
	write_noheap();
	write_noebpf();
	write_cgroup();
	return 0;
}
