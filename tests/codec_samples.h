/* codec_samples.h — sample Records of every kind for the codec tests, and helpers
 * to write them to a capture and compare records by their packed bytes.
 */
#ifndef PTOP_TESTS_CODEC_SAMPLES_H
#define PTOP_TESTS_CODEC_SAMPLES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/ptop.pb-c.h"

#define SAMPLE_KINDS 10

/* Heap copy of a record built on the stack (pack, then unpack). */
static inline Ptop__V1__Record *sample_copy(const Ptop__V1__Record *rec)
{
	size_t n = ptop__v1__record__get_packed_size(rec);
	uint8_t *buf = malloc(n ? n : 1);
	Ptop__V1__Record *out;

	if (!buf)
		abort();
	ptop__v1__record__pack(rec, buf);
	out = ptop__v1__record__unpack(NULL, n, buf);
	free(buf);
	if (!out)
		abort();
	return out;
}

/* Record number I of a varied stream; kind I % SAMPLE_KINDS: 0 header with
 * probes, 1..5 events (cpu, syscalls, memory, vmas, context), 6 stack,
 * 7 mapping, 8 drop notice, 9 trailer. TIME_NS stamps events, mappings and
 * drops. The caller frees it with ptop__v1__record__free_unpacked(r, NULL). */
static inline Ptop__V1__Record *sample_record(unsigned i, uint64_t time_ns)
{
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	char name[32];

	snprintf(name, sizeof(name), "sample-%u", i);
	ev.time_ns = time_ns;
	ev.pid = 1000 + (int32_t)i;
	ev.tid = 1001 + (int32_t)i;
	ev.uid = 1;
	ev.gid = 2;
	ev.cgroup_id = 77;
	ev.interval_ns = 1000000000ull;

	switch (i % SAMPLE_KINDS) {
	case 0: {
		Ptop__V1__CaptureHeader h = PTOP__V1__CAPTURE_HEADER__INIT;
		Ptop__V1__Recorder recd = PTOP__V1__RECORDER__INIT;
		Ptop__V1__Host host = PTOP__V1__HOST__INIT;
		Ptop__V1__Clocks clk = PTOP__V1__CLOCKS__INIT;
		Ptop__V1__Options opt = PTOP__V1__OPTIONS__INIT;
		Ptop__V1__TargetInfo tgt = PTOP__V1__TARGET_INFO__INIT;
		Ptop__V1__Probe p1 = PTOP__V1__PROBE__INIT, p2 = PTOP__V1__PROBE__INIT;
		Ptop__V1__Probe *probes[] = {&p1, &p2};
		char *argv[] = {"ptop-record", "--pid", "42"};
		char *cmd[] = {"./server", "--flag"};
		uint8_t id[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, (uint8_t)i};
		uint8_t bid[20] = {0xab, 0xcd, (uint8_t)i};

		h.format_version = 1;
		h.capture_id = (ProtobufCBinaryData){sizeof(id), id};
		recd.version = "0.1.0";
		recd.commit = "abcdef123456";
		recd.build_date = "2025-01-01T00:00:00Z";
		host.hostname = "box";
		host.kernel_release = "6.18.0";
		host.boot_id = "0b0e6a1c-0000-4000-8000-000000000000";
		host.cpus = 2;
		host.page_size = 4096;
		host.clock_tick = 100;
		host.machine = "x86_64";
		clk.monotonic_ns = time_ns;
		clk.realtime_ns = 1700000000000000000ull;
		clk.boottime_ns = time_ns + 5;
		opt.n_argv = 3;
		opt.argv = argv;
		opt.interval_ns = 1000000000ull;
		opt.flush_interval_ns = 1000000000ull;
		tgt.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
		tgt.pid = 42;
		tgt.comm = "server";
		tgt.exe = "/usr/bin/server";
		tgt.exe_build_id = (ProtobufCBinaryData){sizeof(bid), bid};
		tgt.n_cmdline = 2;
		tgt.cmdline = cmd;
		tgt.cgroup_path = "/user.slice";
		tgt.cgroup_id = 77;
		p1.name = "cpu";
		p1.state = PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
		p1.source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
		p2.name = "syscalls";
		p2.state = PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
		p2.source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
		p2.reason = "no BPF";
		h.recorder = &recd;
		h.host = &host;
		h.clocks = &clk;
		h.options = &opt;
		h.target = &tgt;
		h.n_probes = 2;
		h.probes = probes;
		rec.kind_case = PTOP__V1__RECORD__KIND_HEADER;
		rec.header = &h;
		return sample_copy(&rec);
	}
	case 1: {
		Ptop__V1__CpuSample cpu = PTOP__V1__CPU_SAMPLE__INIT;
		Ptop__V1__CpuEbpf eb = PTOP__V1__CPU_EBPF__INIT;
		Ptop__V1__CpuProc pr = PTOP__V1__CPU_PROC__INIT;

		eb.oncpu_ns = 123456789 + i;
		eb.switches = 17;
		pr.user_ns = 100000000;
		pr.system_ns = 2000000 + i;
		pr.threads = 4;
		cpu.ebpf = &eb;
		cpu.proc = &pr;
		ev.category = PTOP__V1__CATEGORY__CATEGORY_CPU;
		ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPU;
		ev.cpu = &cpu;
		rec.kind_case = PTOP__V1__RECORD__KIND_EVENT;
		rec.event = &ev;
		return sample_copy(&rec);
	}
	case 2: {
		Ptop__V1__SyscallStats ss = PTOP__V1__SYSCALL_STATS__INIT;
		Ptop__V1__SyscallStat s1 = PTOP__V1__SYSCALL_STAT__INIT,
				      s2 = PTOP__V1__SYSCALL_STAT__INIT;
		Ptop__V1__SyscallStat *st[] = {&s1, &s2};
		uint64_t h1[] = {0, 3, 9, 27, 81, 1000 + i}, h2[] = {5};

		s1.nr = 110;
		s1.name = "getppid";
		s1.count = 50000 + i;
		s1.completed = 50000 + i;
		s1.total_ns = 9999999;
		s1.n_latency_log2_hist = 6;
		s1.latency_log2_hist = h1;
		s2.nr = 0;
		s2.name = "read";
		s2.count = 5;
		s2.completed = 5;
		s2.errors = 1;
		s2.n_latency_log2_hist = 1;
		s2.latency_log2_hist = h2;
		ss.n_stats = 2;
		ss.stats = st;
		ev.category = PTOP__V1__CATEGORY__CATEGORY_SYSCALLS;
		ev.payload_case = PTOP__V1__EVENT__PAYLOAD_SYSCALLS;
		ev.syscalls = &ss;
		rec.kind_case = PTOP__V1__RECORD__KIND_EVENT;
		rec.event = &ev;
		return sample_copy(&rec);
	}
	case 3: {
		Ptop__V1__MemorySample m = PTOP__V1__MEMORY_SAMPLE__INIT;
		Ptop__V1__Statm sm = PTOP__V1__STATM__INIT;
		Ptop__V1__SmapsRollup ro = PTOP__V1__SMAPS_ROLLUP__INIT;
		Ptop__V1__Faults f = PTOP__V1__FAULTS__INIT;

		sm.vsize = 1ull << 30;
		sm.rss = (64ull << 20) + i * 4096;
		ro.rss = sm.rss;
		ro.pss = sm.rss - 4096;
		ro.uss = sm.rss - 8192;
		ro.anon = 1 << 20;
		f.minflt = 10;
		f.minflt_total = 1000 + i;
		m.statm = &sm;
		m.rollup = &ro;
		m.faults = &f;
		ev.category = PTOP__V1__CATEGORY__CATEGORY_MEMORY;
		ev.payload_case = PTOP__V1__EVENT__PAYLOAD_MEMORY;
		ev.memory = &m;
		rec.kind_case = PTOP__V1__RECORD__KIND_EVENT;
		rec.event = &ev;
		return sample_copy(&rec);
	}
	case 4: {
		Ptop__V1__VmaSnapshot vs = PTOP__V1__VMA_SNAPSHOT__INIT;
		Ptop__V1__Vma v1 = PTOP__V1__VMA__INIT, v2 = PTOP__V1__VMA__INIT;
		Ptop__V1__Vma *vv[] = {&v1, &v2};

		v1.start = 0x400000;
		v1.end = 0x401000;
		v1.perms = "r-xp";
		v1.dev = "fd:01";
		v1.inode = 1234;
		v1.path = "/usr/bin/server";
		v1.size = 4096;
		v1.rss = 4096;
		v2.start = 0x7f0000000000;
		v2.end = 0x7f0000100000 + i;
		v2.perms = "rw-p";
		v2.path = "[heap]";
		v2.anon = 65536;
		vs.n_vmas = 2;
		vs.vmas = vv;
		vs.walk_ns = 5000;
		vs.final = (i & 1);
		ev.category = PTOP__V1__CATEGORY__CATEGORY_VMAS;
		ev.payload_case = PTOP__V1__EVENT__PAYLOAD_VMAS;
		ev.vmas = &vs;
		rec.kind_case = PTOP__V1__RECORD__KIND_EVENT;
		rec.event = &ev;
		return sample_copy(&rec);
	}
	case 5: {
		Ptop__V1__ProcContext c = PTOP__V1__PROC_CONTEXT__INIT;
		Ptop__V1__Namespace n1 = PTOP__V1__NAMESPACE__INIT;
		Ptop__V1__Namespace *ns[] = {&n1};
		int32_t nspid[] = {42, 1};

		c.ppid = 1;
		c.comm = name;
		c.uid = c.euid = 1000;
		n1.type = "pid";
		n1.inode = 4026531836u;
		c.n_namespaces = 1;
		c.namespaces = ns;
		c.cgroup_path = "/system.slice/docker-abc.scope";
		c.container_id = "abc";
		c.n_nspid = 2;
		c.nspid = nspid;
		ev.category = PTOP__V1__CATEGORY__CATEGORY_CONTEXT;
		ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CONTEXT;
		ev.context = &c;
		rec.kind_case = PTOP__V1__RECORD__KIND_EVENT;
		rec.event = &ev;
		return sample_copy(&rec);
	}
	case 6: {
		Ptop__V1__Stack s = PTOP__V1__STACK__INIT;
		uint64_t ips[] = {0x401000 + i, 0x402000, 0x7f0000001234};

		s.id = i;
		s.n_ips = 3;
		s.ips = ips;
		s.kernel = false;
		rec.kind_case = PTOP__V1__RECORD__KIND_STACK;
		rec.stack = &s;
		return sample_copy(&rec);
	}
	case 7: {
		Ptop__V1__Mapping m = PTOP__V1__MAPPING__INIT;
		uint8_t bid[20] = {0x11, (uint8_t)i};

		m.time_ns = time_ns;
		m.pid = 42;
		m.start = 0x7f0000000000;
		m.end = 0x7f0000200000;
		m.path = "/usr/lib/x86_64-linux-gnu/libc.so.6";
		m.build_id = (ProtobufCBinaryData){sizeof(bid), bid};
		rec.kind_case = PTOP__V1__RECORD__KIND_MAPPING;
		rec.mapping = &m;
		return sample_copy(&rec);
	}
	case 8: {
		Ptop__V1__DropNotice d = PTOP__V1__DROP_NOTICE__INIT;

		d.time_ns = time_ns;
		d.collector = "syscalls";
		d.kind = "ringbuf";
		d.lost = 3 + i;
		rec.kind_case = PTOP__V1__RECORD__KIND_DROP;
		rec.drop = &d;
		return sample_copy(&rec);
	}
	default: {
		Ptop__V1__CaptureTrailer t = PTOP__V1__CAPTURE_TRAILER__INIT;
		Ptop__V1__TargetExit te = PTOP__V1__TARGET_EXIT__INIT;
		Ptop__V1__DropTotal d = PTOP__V1__DROP_TOTAL__INIT;
		Ptop__V1__DropTotal *dd[] = {&d};

		te.exited = true;
		te.exit_code = 3;
		te.status_known = true;
		d.collector = "syscalls";
		d.kind = "ringbuf";
		d.lost = 11;
		t.reason = PTOP__V1__END_REASON__END_REASON_TARGET_EXIT;
		t.end_time_ns = time_ns;
		t.target_exit = &te;
		t.records = i;
		t.events = i / 2;
		t.n_drops = 1;
		t.drops = dd;
		rec.kind_case = PTOP__V1__RECORD__KIND_TRAILER;
		rec.trailer = &t;
		return sample_copy(&rec);
	}
	}
}

/* True when A and B pack to the same bytes. */
static inline bool sample_equal(const Ptop__V1__Record *a, const Ptop__V1__Record *b)
{
	size_t na = ptop__v1__record__get_packed_size(a);
	size_t nb = ptop__v1__record__get_packed_size(b);
	uint8_t *ba, *bb;
	bool eq;

	if (na != nb)
		return false;
	ba = malloc(na + 1);
	bb = malloc(nb + 1);
	if (!ba || !bb)
		abort();
	ptop__v1__record__pack(a, ba);
	ptop__v1__record__pack(b, bb);
	eq = memcmp(ba, bb, na) == 0;
	free(ba);
	free(bb);
	return eq;
}

#endif
