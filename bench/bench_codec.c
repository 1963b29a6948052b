/* bench_codec.c — capture codec throughput: writes N realistic records (syscall
 * stats events with latency histograms, memory samples) to a temp file, reads
 * them back, and prints records/s, MB/s and bytes per record after compression,
 * next to a pack/unpack-only baseline measured in the same run.
 *
 *   make B=build bench   or   build/bench/bench_codec [N] [DIR]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "proto/capture.h"

#define NSTATS 8
#define NHIST 14

static const char *const names[NSTATS] = {"read",     "write",	"futex",	   "epoll_wait",
					  "recvfrom", "sendto", "clock_nanosleep", "getppid"};
static const uint32_t nrs[NSTATS] = {0, 1, 202, 232, 45, 44, 230, 110};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Storage for one record of either kind, rebuilt in place for each I. */
struct sample {
	Ptop__V1__Record rec;
	Ptop__V1__Event ev;
	Ptop__V1__SyscallStats ss;
	Ptop__V1__SyscallStat st[NSTATS];
	Ptop__V1__SyscallStat *stp[NSTATS];
	uint64_t hist[NSTATS][NHIST];
	Ptop__V1__MemorySample mem;
	Ptop__V1__Statm statm;
	Ptop__V1__SmapsRollup rollup;
	Ptop__V1__Faults faults;
};

static void build(struct sample *s, uint64_t i)
{
	ptop__v1__record__init(&s->rec);
	ptop__v1__event__init(&s->ev);
	s->ev.time_ns = 1000000000ull * (i / 2) + 17;
	s->ev.pid = 4242;
	s->ev.interval_ns = 1000000000ull;
	s->ev.cgroup_id = 9876;
	s->rec.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	s->rec.event = &s->ev;
	if (i % 2 == 0) {
		ptop__v1__syscall_stats__init(&s->ss);
		for (int k = 0; k < NSTATS; k++) {
			Ptop__V1__SyscallStat *st = &s->st[k];
			uint64_t count = 1000 + xorshift() % 50000, total = 0;
			size_t nh = 6 + xorshift() % (NHIST - 6);

			ptop__v1__syscall_stat__init(st);
			st->nr = nrs[k];
			st->name = (char *)names[k];
			st->count = count;
			st->completed = count - xorshift() % 3;
			st->errors = xorshift() % 4 ? 0 : xorshift() % 20;
			for (size_t b = 0; b < nh; b++) {
				s->hist[k][b] = b < 4 ? 0 : xorshift() % (count / 4 + 1);
				total += s->hist[k][b] << b;
			}
			st->total_ns = total;
			st->n_latency_log2_hist = nh;
			st->latency_log2_hist = s->hist[k];
			s->stp[k] = st;
		}
		s->ss.n_stats = NSTATS;
		s->ss.stats = s->stp;
		s->ev.category = PTOP__V1__CATEGORY__CATEGORY_SYSCALLS;
		s->ev.payload_case = PTOP__V1__EVENT__PAYLOAD_SYSCALLS;
		s->ev.syscalls = &s->ss;
	} else {
		uint64_t rss = (200ull << 20) + (xorshift() % 4096) * 4096;

		ptop__v1__memory_sample__init(&s->mem);
		ptop__v1__statm__init(&s->statm);
		ptop__v1__smaps_rollup__init(&s->rollup);
		ptop__v1__faults__init(&s->faults);
		s->statm.vsize = 2ull << 30;
		s->statm.rss = rss;
		s->statm.shared = 12ull << 20;
		s->statm.text = 4ull << 20;
		s->statm.data = rss - (16ull << 20);
		s->rollup.rss = rss;
		s->rollup.pss = rss - (6ull << 20);
		s->rollup.uss = rss - (12ull << 20);
		s->rollup.pss_anon = rss - (20ull << 20);
		s->rollup.pss_file = 14ull << 20;
		s->rollup.shared_clean = 12ull << 20;
		s->rollup.private_dirty = rss - (20ull << 20);
		s->rollup.anon = rss - (20ull << 20);
		s->rollup.read_ns = 20000 + xorshift() % 30000;
		s->faults.minflt = xorshift() % 500;
		s->faults.minflt_total = i * 100;
		s->mem.statm = &s->statm;
		s->mem.rollup = &s->rollup;
		s->mem.faults = &s->faults;
		s->ev.category = PTOP__V1__CATEGORY__CATEGORY_MEMORY;
		s->ev.payload_case = PTOP__V1__EVENT__PAYLOAD_MEMORY;
		s->ev.memory = &s->mem;
	}
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
	const char *dir = argc > 2 ? argv[2] : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	struct sample *s = calloc(1, sizeof(*s));
	struct capture_writer *w;
	struct capture_reader *r;
	Ptop__V1__Record *rec;
	uint64_t t0, t_pack, t_unpack, t_write, t_read, packed = 0, got = 0;
	uint8_t buf[8192];
	char path[4096];
	struct stat sb;
	int err, k;

	if (!s || n == 0) {
		fprintf(stderr, "usage: bench_codec [N>0] [DIR]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/ptop-bench-codec-%d.ptop", dir, (int)getpid());

	/* baseline: protobuf pack and unpack alone, no framing, compression or I/O */
	rng = 88172645463325252ull;
	t0 = now_ns();
	for (uint64_t i = 0; i < n; i++) {
		size_t len;

		build(s, i);
		len = ptop__v1__record__pack(&s->rec, buf);
		packed += len;
	}
	t_pack = now_ns() - t0;
	{
		/* unpack baseline: cycle over 1024 packed records of the same stream */
		static uint8_t pool[1024][1024];
		static size_t plen[1024];

		rng = 88172645463325252ull;
		for (int i = 0; i < 1024; i++) {
			build(s, (uint64_t)i);
			plen[i] = ptop__v1__record__get_packed_size(&s->rec);
			if (plen[i] > sizeof(pool[i]))
				return 1;
			ptop__v1__record__pack(&s->rec, pool[i]);
		}
		t0 = now_ns();
		for (uint64_t i = 0; i < n; i++) {
			rec = ptop__v1__record__unpack(NULL, plen[i % 1024], pool[i % 1024]);
			ptop__v1__record__free_unpacked(rec, NULL);
		}
		t_unpack = now_ns() - t0;
	}

	rng = 88172645463325252ull;
	t0 = now_ns();
	w = capture_writer__create(path, NULL);
	if (!w) {
		fprintf(stderr, "bench_codec: cannot create %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (uint64_t i = 0; i < n; i++) {
		build(s, i);
		err = capture_writer__append(w, &s->rec);
		if (err) {
			fprintf(stderr, "bench_codec: write failed: %s\n", strerror(-err));
			capture_writer__abort(w);
			unlink(path);
			return 1;
		}
	}
	err = capture_writer__close(w);
	t_write = now_ns() - t0;
	if (err || stat(path, &sb) < 0) {
		fprintf(stderr, "bench_codec: close failed: %s\n", strerror(err ? -err : errno));
		unlink(path);
		return 1;
	}

	t0 = now_ns();
	r = capture_reader__open(path);
	if (!r) {
		fprintf(stderr, "bench_codec: cannot read %s: %s\n", path, strerror(errno));
		unlink(path);
		return 1;
	}
	while ((k = capture_reader__next(r, &rec)) == 1) {
		got++;
		ptop__v1__record__free_unpacked(rec, NULL);
	}
	t_read = now_ns() - t0;
	if (k < 0 || got != n || capture_reader__status(r)->end != CAPTURE_END_CLEAN) {
		fprintf(stderr, "bench_codec: read back %llu of %llu records: %s\n",
			(unsigned long long)got, (unsigned long long)n,
			capture_reader__status(r)->message);
		capture_reader__free(r);
		unlink(path);
		return 1;
	}
	capture_reader__free(r);
	unlink(path);

	printf("records            %llu (syscall stats events with %d syscalls and histograms,"
	       " memory samples; alternating)\n",
	       (unsigned long long)n, NSTATS);
	printf("packed size        %.1f bytes/record, %.1f MB\n", (double)packed / n, packed / 1e6);
	printf("file size          %.1f bytes/record, %.1f MB (ratio %.2fx, zstd level 3)\n",
	       (double)sb.st_size / n, sb.st_size / 1e6, (double)packed / sb.st_size);
	printf("write              %.0f records/s, %.1f MB/s packed in, %.1f MB/s to disk\n",
	       n / (t_write / 1e9), packed / 1e6 / (t_write / 1e9),
	       sb.st_size / 1e6 / (t_write / 1e9));
	printf("read               %.0f records/s, %.1f MB/s packed out, %.1f MB/s from disk\n",
	       n / (t_read / 1e9), packed / 1e6 / (t_read / 1e9),
	       sb.st_size / 1e6 / (t_read / 1e9));
	printf("baseline pack      %.0f records/s (build + protobuf pack only)\n",
	       n / (t_pack / 1e9));
	printf("baseline unpack    %.0f records/s (protobuf unpack + free only)\n",
	       n / (t_unpack / 1e9));
	printf("write/pack ratio   %.2fx the time    read/unpack ratio %.2fx the time\n",
	       (double)t_write / t_pack, (double)t_read / t_unpack);
	free(s);
	return 0;
}
