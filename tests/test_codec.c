/* test_codec.c — the capture writer, reader and salvage together: round trips
 * of every record kind, frames closed by size and by age, the time index and
 * seeking, file mode and O_EXCL, a full disk, and salvaging a cut file; never a
 * symlink, fifo or device as the output; a pipe as the output.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "proto/capture.h"
#include "proto/capture_internal.h"
#include "proto/names.h"
#include "collectors/cgroup/names.h"
#include "collectors/heap/names.h"
#include "collectors/memory/names.h"
#include "tests/codec_samples.h"

#define MAX_RECS 4096

static char tmpdir[] = "/tmp/ptop-test-codec-XXXXXX";

static const char *tpath(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct recs {
	Ptop__V1__Record *r[MAX_RECS];
	uint64_t frame[MAX_RECS]; /* frame offset each record was read from */
	size_t n;
};

static void recs_free(struct recs *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		ptop__v1__record__free_unpacked(rs->r[i], NULL);
	rs->n = 0;
}

/* Make N sample records; event times 1000 * (i + 1). */
static void make_samples(struct recs *rs, size_t n)
{
	rs->n = 0;
	for (size_t i = 0; i < n; i++)
		rs->r[rs->n++] = sample_record((unsigned)i, 1000 * (i + 1));
}

static void write_recs(const char *path, const struct capture_writer_opts *opts,
		       const struct recs *rs)
{
	struct capture_writer *w = capture_writer__create(path, opts);

	assert_non_null(w);
	for (size_t i = 0; i < rs->n; i++)
		assert_int_equal(capture_writer__append(w, rs->r[i]), 0);
	assert_int_equal(capture_writer__records(w), rs->n);
	assert_int_equal(capture_writer__close(w), 0);
}

/* Read every record of PATH into RS; the status into *ST. */
static void read_recs(const char *path, struct recs *rs, struct capture_status *st)
{
	struct capture_reader *r = capture_reader__open(path);
	Ptop__V1__Record *rec;
	int k;

	assert_non_null(r);
	rs->n = 0;
	while ((k = capture_reader__next(r, &rec)) == 1) {
		assert_true(rs->n < MAX_RECS);
		rs->frame[rs->n] = capture_reader__frame_offset(r);
		rs->r[rs->n++] = rec;
	}
	assert_int_equal(k, 0);
	*st = *capture_reader__status(r);
	capture_reader__free(r);
}

static void assert_same(const struct recs *a, const struct recs *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_true(sample_equal(a->r[i], b->r[i]));
}

static off_t file_size(const char *path)
{
	struct stat sb;

	assert_int_equal(stat(path, &sb), 0);
	return sb.st_size;
}

static void test_01_roundtrip_every_kind(void **state)
{
	struct recs in, out;
	struct capture_status st;
	const char *p = tpath("rt.ptop");
	(void)state;

	make_samples(&in, 3 * SAMPLE_KINDS);
	write_recs(p, NULL, &in);
	read_recs(p, &out, &st);
	assert_int_equal(out.n, in.n);
	assert_same(&in, &out, in.n);
	/* every kind and every event payload came back as itself */
	for (unsigned k = 0; k < SAMPLE_KINDS; k++)
		assert_int_equal(out.r[k]->kind_case, in.r[k]->kind_case);
	assert_int_equal(out.r[0]->kind_case, PTOP__V1__RECORD__KIND_HEADER);
	assert_int_equal(out.r[0]->header->n_probes, 2);
	assert_string_equal(out.r[0]->header->probes[1]->reason, "no BPF");
	assert_int_equal(out.r[2]->event->payload_case, PTOP__V1__EVENT__PAYLOAD_SYSCALLS);
	assert_int_equal(out.r[2]->event->syscalls->stats[0]->n_latency_log2_hist, 6);
	assert_int_equal(out.r[9]->kind_case, PTOP__V1__RECORD__KIND_TRAILER);
	assert_int_equal(st.end, CAPTURE_END_CLEAN);
	assert_true(st.has_index);
	assert_int_equal(st.records, in.n);
	assert_int_equal(st.frames, 1);
	assert_int_equal(st.file_size, file_size(p));
	recs_free(&in);
	recs_free(&out);
}

static void test_02_frames_closed_by_size(void **state)
{
	struct capture_writer_opts o = {.frame_bytes = 300};
	struct recs in, out;
	struct capture_status st;
	struct capture_reader *r;
	const struct capture_index_entry *idx;
	const char *p = tpath("size.ptop");
	size_t n, total = 0;
	(void)state;

	make_samples(&in, 200);
	write_recs(p, &o, &in);
	read_recs(p, &out, &st);
	assert_int_equal(out.n, in.n);
	assert_same(&in, &out, in.n);
	assert_true(st.frames > 10);
	r = capture_reader__open(p);
	assert_non_null(r);
	idx = capture_reader__index(r, &n);
	assert_int_equal(n, st.frames);
	for (size_t i = 0; i < n; i++) {
		size_t in_frame = 0, bytes = 0;

		for (size_t j = 0; j < out.n; j++) {
			if (out.frame[j] != idx[i].offset)
				continue;
			in_frame++;
			size_t sz = ptop__v1__record__get_packed_size(out.r[j]);

			bytes += sz + (sz < 128 ? 1 : sz < 16384 ? 2 : 3);
		}
		assert_int_equal(in_frame, idx[i].records);
		/* a frame stays under the bound unless one record alone exceeds it */
		assert_true(bytes <= 300 || idx[i].records == 1);
		total += idx[i].records;
	}
	assert_int_equal(total, in.n);
	capture_reader__free(r);
	recs_free(&in);
	recs_free(&out);
}

static void test_03_frames_closed_by_tick(void **state)
{
	struct capture_writer_opts o = {.flush_interval_ns = 500000000ull};
	struct capture_reader *r;
	const struct capture_index_entry *idx;
	struct recs in;
	const char *p = tpath("tick.ptop");
	struct capture_writer *w;
	uint64_t t0, t1, b0;
	size_t n;
	(void)state;

	make_samples(&in, 5);
	w = capture_writer__create(p, &o);
	assert_non_null(w);
	b0 = capture_writer__bytes(w);
	assert_int_equal(b0, 20);
	t0 = mono_ns();
	for (int i = 0; i < 3; i++)
		assert_int_equal(capture_writer__append(w, in.r[i]), 0);
	t1 = mono_ns();
	/* younger than the interval: stays open, whatever the clock did */
	assert_int_equal(capture_writer__tick(w, t0 + o.flush_interval_ns - 1), 0);
	assert_int_equal(capture_writer__bytes(w), b0);
	/* older than the interval: written out */
	assert_int_equal(capture_writer__tick(w, t1 + o.flush_interval_ns), 0);
	assert_true(capture_writer__bytes(w) > b0);
	b0 = capture_writer__bytes(w);
	/* nothing open: a tick writes nothing */
	assert_int_equal(capture_writer__tick(w, t1 + 10 * o.flush_interval_ns), 0);
	assert_int_equal(capture_writer__bytes(w), b0);
	for (int i = 3; i < 5; i++)
		assert_int_equal(capture_writer__append(w, in.r[i]), 0);
	assert_int_equal(capture_writer__flush(w), 0);
	assert_true(capture_writer__bytes(w) > b0);
	assert_int_equal(capture_writer__close(w), 0);

	r = capture_reader__open(p);
	assert_non_null(r);
	assert_true(capture_reader__status(r)->has_index);
	idx = capture_reader__index(r, &n);
	assert_int_equal(n, 2);
	assert_int_equal(idx[0].records, 3);
	assert_int_equal(idx[1].records, 2);
	assert_int_equal(idx[0].offset, 20);
	assert_int_equal(idx[1].offset, 20 + idx[0].compressed_size);
	capture_reader__free(r);
	recs_free(&in);
}

/* The index: each entry's times are the earliest and latest timed record of the
 * frame; seek_time lands on the first frame that reaches the time. */
static void check_index_and_seek(const char *p, const struct recs *in, bool want_index)
{
	struct capture_reader *r;
	const struct capture_index_entry *idx;
	struct recs out;
	struct capture_status st;
	size_t n;

	read_recs(p, &out, &st);
	assert_int_equal(out.n, in->n);
	r = capture_reader__open(p);
	assert_non_null(r);
	assert_int_equal(capture_reader__status(r)->has_index, want_index);
	idx = capture_reader__index(r, &n);
	assert_non_null(idx);
	assert_int_equal(n, st.frames);
	for (size_t i = 0; i < n; i++) {
		uint64_t lo = 0, hi = 0, ns;
		bool any = false;

		for (size_t j = 0; j < out.n; j++) {
			if (out.frame[j] != idx[i].offset || !capture_record_time(out.r[j], &ns))
				continue;
			lo = any && lo < ns ? lo : ns;
			hi = any && hi > ns ? hi : ns;
			any = true;
		}
		assert_int_equal(idx[i].first_ns, lo);
		assert_int_equal(idx[i].last_ns, hi);
		if (i)
			assert_true(idx[i].offset > idx[i - 1].offset);
	}
	/* seek to several times, including before the first and after the last */
	for (uint64_t t = 0; t <= 1000 * (in->n + 2); t += 1700) {
		Ptop__V1__Record *rec;
		uint64_t ns, frame;
		size_t j;

		assert_int_equal(capture_reader__seek_time(r, t), 0);
		/* the expected frame: the first whose latest time reaches t */
		for (j = 0; j < n; j++)
			if ((idx[j].first_ns || idx[j].last_ns) && idx[j].last_ns >= t)
				break;
		if (j == n) {
			assert_int_equal(capture_reader__next(r, &rec), 0);
			assert_int_equal(capture_reader__status(r)->end, CAPTURE_END_CLEAN);
			continue;
		}
		assert_int_equal(capture_reader__next(r, &rec), 1);
		frame = capture_reader__frame_offset(r);
		assert_int_equal(frame, idx[j].offset);
		ptop__v1__record__free_unpacked(rec, NULL);
		/* nothing at or after t was in an earlier frame */
		for (size_t k = 0; k < out.n; k++)
			if (out.frame[k] < frame && capture_record_time(out.r[k], &ns))
				assert_true(ns < t);
	}
	capture_reader__free(r);
	recs_free(&out);
}

static void test_04_index_and_seek(void **state)
{
	struct capture_writer_opts o = {.frame_bytes = 400};
	struct recs in;
	const char *p = tpath("seek.ptop"), *q = tpath("seek-noindex.ptop");
	struct capture_reader *r;
	const struct capture_index_entry *idx;
	uint8_t *buf;
	size_t n, len;
	FILE *f;
	(void)state;

	make_samples(&in, 120);
	write_recs(p, &o, &in);
	check_index_and_seek(p, &in, true);

	/* the same file without its index frame: the index is rebuilt by a scan */
	r = capture_reader__open(p);
	assert_non_null(r);
	idx = capture_reader__index(r, &n);
	len = idx[n - 1].offset + idx[n - 1].compressed_size;
	capture_reader__free(r);
	buf = malloc(len);
	assert_non_null(buf);
	f = fopen(p, "rb");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, len, f), len);
	fclose(f);
	f = fopen(q, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
	free(buf);
	check_index_and_seek(q, &in, false);
	recs_free(&in);
}

static void test_05_mode_0600(void **state)
{
	struct stat sb;
	const char *p = tpath("mode.ptop");
	struct capture_writer *w;
	mode_t old = umask(0);
	(void)state;

	w = capture_writer__create(p, NULL);
	umask(old);
	assert_non_null(w);
	assert_int_equal(capture_writer__close(w), 0);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
}

static void test_06_exists_needs_force(void **state)
{
	struct capture_writer_opts force = {.force = true};
	struct recs a, b, out;
	struct capture_status st;
	const char *p = tpath("exists.ptop");
	struct stat sb;
	off_t before;
	(void)state;

	make_samples(&a, 12);
	write_recs(p, NULL, &a);
	before = file_size(p);
	errno = 0;
	assert_null(capture_writer__create(p, NULL));
	assert_int_equal(errno, EEXIST);
	assert_int_equal(file_size(p), before); /* untouched */
	read_recs(p, &out, &st);
	assert_int_equal(out.n, 12);
	recs_free(&out);

	assert_int_equal(chmod(p, 0644), 0);
	make_samples(&b, 3);
	write_recs(p, &force, &b);
	read_recs(p, &out, &st);
	assert_int_equal(out.n, 3);
	assert_same(&b, &out, 3);
	assert_int_equal(st.end, CAPTURE_END_CLEAN);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	recs_free(&out);
	recs_free(&a);
	recs_free(&b);
}

/* A disk that takes BUDGET more bytes, the last write short, then ENOSPC. */
static size_t budget;
static size_t hook_writes;

static ssize_t full_disk(int fd, const void *buf, size_t n)
{
	hook_writes++;
	if (budget == 0) {
		errno = ENOSPC;
		return -1;
	}
	if (n > budget)
		n = budget;
	budget -= n;
	return write(fd, buf, n);
}

static void test_07_enospc_keeps_written_frames(void **state)
{
	struct capture_writer_opts o = {.frame_bytes = 300};
	struct recs in, out;
	struct capture_status st;
	const char *p = tpath("full.ptop");
	struct capture_writer *w;
	uint64_t good;
	size_t i;
	int err = 0;
	(void)state;

	make_samples(&in, 400);
	budget = 3000;
	capture_write_hook = full_disk;
	w = capture_writer__create(p, &o);
	assert_non_null(w);
	for (i = 0; i < in.n; i++) {
		err = capture_writer__append(w, in.r[i]);
		if (err)
			break;
	}
	capture_write_hook = NULL;
	assert_int_equal(err, -ENOSPC);
	assert_int_equal(capture_writer__error(w), -ENOSPC);
	/* refuses more, whatever comes */
	hook_writes = 0;
	assert_int_equal(capture_writer__append(w, in.r[0]), -ENOSPC);
	assert_int_equal(capture_writer__flush(w), -ENOSPC);
	assert_int_equal(capture_writer__tick(w, UINT64_MAX), -ENOSPC);
	assert_int_equal(hook_writes, 0);
	good = capture_writer__bytes(w);
	assert_true(good > 20 && good <= 3000);
	/* no garbage tail: the file ends at the last complete frame */
	assert_int_equal(file_size(p), good);
	assert_int_equal(capture_writer__close(w), -ENOSPC);
	assert_int_equal(file_size(p), good); /* and no index was added */

	read_recs(p, &out, &st);
	assert_int_equal(st.end, CAPTURE_END_CLEAN);
	assert_false(st.has_index);
	assert_true(out.n > 0 && out.n < i);
	assert_same(&in, &out, out.n);
	recs_free(&out);
	recs_free(&in);
}

/* The same on a real full file system: a 64 KiB tmpfs in a private mount
 * namespace (needs CAP_SYS_ADMIN; skipped with the reason otherwise). */
static void test_08_enospc_real_tmpfs(void **state)
{
	struct capture_writer_opts o = {.frame_bytes = 4096, .level = 1};
	char dir[300], path[340];
	struct capture_writer *w;
	struct capture_status st;
	struct recs out;
	uint64_t good, n = 0;
	unsigned i;
	int err = 0;
	(void)state;

	snprintf(dir, sizeof(dir), "%s/small", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, "size=64k") < 0) {
		fprintf(stderr, "skip: cannot mount a tmpfs here (%s); test_07 covers ENOSPC\n",
			strerror(errno));
		rmdir(dir);
		skip();
	}
	snprintf(path, sizeof(path), "%s/run.ptop", dir);
	w = capture_writer__create(path, &o);
	assert_non_null(w);
	/* records that compress poorly, so the disk fills quickly */
	for (i = 0; i < 100000 && !err; i++) {
		Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;
		Ptop__V1__Stack s = PTOP__V1__STACK__INIT;
		uint64_t ips[16];

		for (int k = 0; k < 16; k++)
			ips[k] = (uint64_t)rand() << 32 | (uint64_t)rand();
		s.id = i;
		s.n_ips = 16;
		s.ips = ips;
		rec.kind_case = PTOP__V1__RECORD__KIND_STACK;
		rec.stack = &s;
		err = capture_writer__append(w, &rec);
		n++;
	}
	assert_int_equal(err, -ENOSPC);
	good = capture_writer__bytes(w);
	assert_int_equal(capture_writer__close(w), -ENOSPC);
	assert_int_equal(file_size(path), good);
	read_recs(path, &out, &st);
	assert_int_equal(st.end, CAPTURE_END_CLEAN);
	assert_true(out.n > 0 && out.n < n);
	for (size_t k = 0; k < out.n; k++)
		assert_int_equal(out.r[k]->stack->id, k);
	recs_free(&out);
	umount(dir);
	rmdir(dir);
}

static void test_09_create_failure_leaves_nothing(void **state)
{
	const char *p = tpath("never.ptop");
	(void)state;

	errno = 0;
	assert_null(capture_writer__create(tpath("no/such/dir.ptop"), NULL));
	assert_int_equal(errno, ENOENT);
	budget = 7; /* the magic frame does not fit */
	capture_write_hook = full_disk;
	errno = 0;
	assert_null(capture_writer__create(p, NULL));
	capture_write_hook = NULL;
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(access(p, F_OK), -1);
	assert_int_equal(errno, ENOENT);
}

static void copy_prefix(const char *from, const char *to, size_t len)
{
	uint8_t *buf = malloc(len ? len : 1);
	FILE *f = fopen(from, "rb");

	assert_non_null(buf);
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, len, f), len);
	fclose(f);
	f = fopen(to, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
	free(buf);
}

static void test_10_salvage_cut_file(void **state)
{
	struct capture_writer_opts o = {.frame_bytes = 500};
	struct recs in, out;
	struct capture_status st, sst;
	const char *p = tpath("salv-in.ptop"), *cut = tpath("salv-cut.ptop");
	const char *s = tpath("salv-out.ptop");
	const Ptop__V1__CaptureTrailer *t;
	struct stat sb;
	uint64_t events = 0, last = 0, ns;
	size_t n = 0;
	(void)state;

	/* no trailer record in the input: samples 0..8 only */
	in.n = 0;
	for (unsigned i = 0; in.n < 90; i++)
		if (i % SAMPLE_KINDS != 9)
			in.r[in.n++] = sample_record(i, 1000 * (i + 1));
	write_recs(p, &o, &in);
	copy_prefix(p, cut, (size_t)file_size(p) * 2 / 3);
	read_recs(cut, &out, &st);
	assert_int_equal(st.end, CAPTURE_END_TRUNCATED);
	n = out.n;
	assert_true(n > 0 && n < in.n);
	for (size_t i = 0; i < n; i++) {
		if (out.r[i]->kind_case == PTOP__V1__RECORD__KIND_EVENT) {
			events++;
			last = out.r[i]->event->time_ns > last ? out.r[i]->event->time_ns : last;
		}
	}
	recs_free(&out);

	assert_int_equal(capture__salvage(cut, s, &sst), 0);
	assert_int_equal(sst.end, CAPTURE_END_TRUNCATED);
	assert_int_equal(sst.at_byte, st.at_byte);
	assert_int_equal(stat(s, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	read_recs(s, &out, &st);
	assert_int_equal(st.end, CAPTURE_END_CLEAN);
	assert_true(st.has_index);
	assert_int_equal(out.n, n + 1);
	assert_same(&in, &out, n);
	assert_int_equal(out.r[n]->kind_case, PTOP__V1__RECORD__KIND_TRAILER);
	t = out.r[n]->trailer;
	assert_int_equal(t->reason, PTOP__V1__END_REASON__END_REASON_SALVAGED);
	assert_true(t->salvaged);
	assert_int_equal(t->records, n);
	assert_int_equal(t->events, events);
	assert_int_equal(t->end_time_ns, last);
	/* the drop notices are summed per collector and kind */
	{
		uint64_t lost = 0;

		for (size_t i = 0; i < n; i++)
			if (out.r[i]->kind_case == PTOP__V1__RECORD__KIND_DROP)
				lost += out.r[i]->drop->lost;
		assert_true(lost > 0);
		assert_int_equal(t->n_drops, 1);
		assert_int_equal(t->drops[0]->lost, lost);
	}
	recs_free(&out);
	check_index_and_seek(s, &(struct recs){.n = n + 1}, true);

	/* never over an existing file */
	assert_int_equal(capture__salvage(cut, s, NULL), -EEXIST);
	/* a bad input gives its open error, and no output */
	assert_int_equal(capture__salvage(tpath("nothing.ptop"), tpath("x.ptop"), NULL), -ENOENT);
	assert_int_equal(access(tpath("x.ptop"), F_OK), -1);
	(void)ns;
	recs_free(&in);
}

static void test_11_salvage_keeps_existing_trailer(void **state)
{
	struct recs in, out;
	struct capture_status st;
	const char *p = tpath("tr-in.ptop"), *s = tpath("tr-out.ptop");
	(void)state;

	make_samples(&in, 2 * SAMPLE_KINDS); /* record 9 and 19 are trailers */
	write_recs(p, NULL, &in);
	assert_int_equal(capture__salvage(p, s, &st), 0);
	assert_int_equal(st.end, CAPTURE_END_CLEAN);
	read_recs(s, &out, &st);
	assert_int_equal(out.n, in.n);
	assert_same(&in, &out, in.n);
	assert_true(st.has_index);
	recs_free(&out);
	recs_free(&in);
}

static void test_12_bad_arguments(void **state)
{
	struct capture_writer *w;
	const char *p = tpath("args.ptop");
	(void)state;

	assert_int_equal(capture_writer__append(NULL, NULL), -EINVAL);
	w = capture_writer__create(p, NULL);
	assert_non_null(w);
	assert_int_equal(capture_writer__append(w, NULL), -EINVAL);
	assert_int_equal(capture_writer__error(w), 0);
	capture_writer__abort(w);
	capture_writer__abort(NULL);
	capture_reader__free(NULL);
	assert_null(capture_reader__status(NULL));
}

/* A file's content, mode and kind, to see that the writer left it alone. */
static void assert_untouched(const char *path, const char *content, mode_t mode)
{
	struct stat sb;
	char buf[64] = "";
	FILE *f;

	assert_int_equal(lstat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, mode);
	if (!content)
		return;
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, content);
}

static void test_13_symlink_refused(void **state)
{
	struct capture_writer_opts force = {.force = true};
	const char *target = tpath("real.txt"), *link = tpath("link.ptop");
	const char *dangling = tpath("dangling.ptop");
	FILE *f;
	(void)state;

	f = fopen(target, "w");
	assert_non_null(f);
	fputs("precious\n", f);
	fclose(f);
	assert_int_equal(chmod(target, 0644), 0);
	assert_int_equal(symlink(target, link), 0);
	errno = 0;
	assert_null(capture_writer__create(link, &force));
	assert_int_equal(errno, ELOOP);
	errno = 0;
	assert_null(capture_writer__create(link, NULL));
	assert_int_equal(errno, EEXIST);
	assert_untouched(target, "precious\n", 0644); /* neither written, truncated nor chmod'ed */
	/* a dangling link is not followed to create its target */
	assert_int_equal(symlink(tpath("made-through-link.ptop"), dangling), 0);
	errno = 0;
	assert_null(capture_writer__create(dangling, &force));
	assert_int_equal(errno, ELOOP);
	assert_int_equal(access(tpath("made-through-link.ptop"), F_OK), -1);
}

static void test_14_fifo_and_device_refused(void **state)
{
	struct capture_writer_opts force = {.force = true};
	const char *fifo = tpath("fifo.ptop"), *dev = tpath("null.ptop");
	(void)state;

	/* a fifo without a reader: refused at once, not a blocked open */
	assert_int_equal(mkfifo(fifo, 0644), 0);
	errno = 0;
	assert_null(capture_writer__create(fifo, &force));
	assert_int_equal(errno, EINVAL);
	assert_untouched(fifo, NULL, 0644);
	/* a device node of our own (/dev/null's numbers) in the test's folder: its
	 * mode is not touched and, after the refusal, it is not removed */
	if (mknod(dev, S_IFCHR | 0644, makedev(1, 3)) < 0) {
		print_message("skipping the device node part: mknod: %s\n", strerror(errno));
		return;
	}
	errno = 0;
	assert_null(capture_writer__create(dev, &force));
	assert_true(errno == EINVAL || errno == EACCES); /* EACCES on a nodev mount */
	assert_untouched(dev, NULL, 0644);
	/* the write error path: nothing made by the writer is not removed either */
	budget = 0;
	capture_write_hook = full_disk;
	errno = 0;
	assert_null(capture_writer__create(dev, &force));
	capture_write_hook = NULL;
	assert_untouched(dev, NULL, 0644);
}

static void test_15_forced_file_kept_after_write_error(void **state)
{
	struct capture_writer_opts force = {.force = true};
	const char *p = tpath("forced.ptop");
	FILE *f;
	(void)state;

	f = fopen(p, "w");
	assert_non_null(f);
	fputs("old\n", f);
	fclose(f);
	budget = 7; /* the magic frame does not fit */
	capture_write_hook = full_disk;
	errno = 0;
	assert_null(capture_writer__create(p, &force));
	capture_write_hook = NULL;
	assert_int_equal(errno, ENOSPC);
	/* the writer did not create it: it is not unlinked */
	assert_int_equal(access(p, F_OK), 0);
}

static void test_16_pipe_stream(void **state)
{
	struct recs in, out;
	struct capture_status st;
	struct capture_writer *w;
	const char *p = tpath("from-pipe.ptop");
	uint8_t buf[65536];
	ssize_t k;
	int fds[2];
	FILE *f;
	(void)state;

	/* a pipe cannot seek: the whole format, time index included, goes through */
	make_samples(&in, 2 * SAMPLE_KINDS);
	assert_int_equal(pipe(fds), 0);
	w = capture_writer__create_fd(fds[1], NULL);
	assert_non_null(w);
	for (size_t i = 0; i < in.n; i++)
		assert_int_equal(capture_writer__append(w, in.r[i]), 0);
	assert_int_equal(capture_writer__close(w), 0); /* closes fds[1] */
	f = fopen(p, "wb");
	assert_non_null(f);
	while ((k = read(fds[0], buf, sizeof(buf))) > 0)
		assert_int_equal(fwrite(buf, 1, (size_t)k, f), (size_t)k);
	assert_int_equal(k, 0);
	fclose(f);
	close(fds[0]);
	read_recs(p, &out, &st);
	assert_int_equal(out.n, in.n);
	assert_same(&in, &out, in.n);
	assert_int_equal(st.end, CAPTURE_END_CLEAN);
	assert_true(st.has_index);
	recs_free(&in);
	recs_free(&out);
}

static void test_17_pending_since(void **state)
{
	struct recs in;
	struct capture_writer *w;
	uint64_t before;
	(void)state;

	make_samples(&in, 2);
	w = capture_writer__create(tpath("pending.ptop"), NULL);
	assert_non_null(w);
	assert_int_equal(capture_writer__pending_since(w), 0); /* the magic is written */
	before = mono_ns();
	assert_int_equal(capture_writer__append(w, in.r[0]), 0);
	assert_true(capture_writer__pending_since(w) >= before);
	assert_true(capture_writer__pending_since(w) <= mono_ns());
	assert_int_equal(capture_writer__append(w, in.r[1]), 0);
	assert_int_equal(capture_writer__flush(w), 0);
	assert_int_equal(capture_writer__pending_since(w), 0);
	assert_int_equal(capture_writer__pending_since(NULL), 0);
	assert_int_equal(capture_writer__close(w), 0);
	recs_free(&in);
}

/* A failed salvage says which file failed: the input that is no capture, or the
 * output that cannot be created (issue 10: both used to name the input). */
static void test_18_salvage_names_the_failing_file(void **state)
{
	struct recs in;
	struct capture_status st;
	const char *p = tpath("sv-in.ptop"), *text = tpath("sv-text.txt");
	const char *out = tpath("no-such-dir/sv-out.ptop");
	FILE *f;
	(void)state;

	f = fopen(text, "w");
	assert_non_null(f);
	fputs("root:x:0:0:root:/root:/bin/bash\n", f);
	fclose(f);
	assert_int_equal(capture__salvage(text, tpath("sv-x.ptop"), &st), -EBADMSG);
	assert_non_null(strstr(st.message, "not a ptop capture"));
	assert_non_null(strstr(st.message, text));
	assert_int_equal(access(tpath("sv-x.ptop"), F_OK), -1);

	make_samples(&in, SAMPLE_KINDS);
	write_recs(p, NULL, &in);
	assert_int_equal(capture__salvage(p, out, &st), -ENOENT);
	assert_non_null(strstr(st.message, "cannot create"));
	assert_non_null(strstr(st.message, out));
	assert_non_null(strstr(st.message, strerror(ENOENT)));
	recs_free(&in);
}

/* Two Events as a recorder before HeapSnapshot.lane_kind and SmapsRollup.missing_fields
 * packed them (bytes kept from that build): a go-lane heap snapshot (lane "go", module
 * "/bin/g", sample_bytes 524288, alloc_count 3), and a memory sample whose rollup (rss 4096,
 * pss 2048) names Pss_Anon, Private_Dirty and Locked missing. */
static const uint8_t old_heap[] = {
	0x12, 0x25, 0x08, 0x80, 0xa8, 0xd6, 0xb9, 0x07, 0x10, 0x2a, 0x20, 0x07,
	0x40, 0x80, 0x94, 0xeb, 0xdc, 0x03, 0xb2, 0x01, 0x12, 0x0a, 0x02, 0x67,
	0x6f, 0x12, 0x06, 0x2f, 0x62, 0x69, 0x6e, 0x2f, 0x67, 0x18, 0x80, 0x80,
	0x20, 0x28, 0x03,
};
static const uint8_t old_memory[] = {
	0x12, 0x3f, 0x08, 0x80, 0xa8, 0xd6, 0xb9, 0x07, 0x10, 0x2a, 0x20, 0x03,
	0x40, 0x80, 0x94, 0xeb, 0xdc, 0x03, 0x92, 0x01, 0x2c, 0x12, 0x2a, 0x08,
	0x80, 0x20, 0x10, 0x80, 0x10, 0x82, 0x01, 0x08, 0x50, 0x73, 0x73, 0x5f,
	0x41, 0x6e, 0x6f, 0x6e, 0x82, 0x01, 0x0d, 0x50, 0x72, 0x69, 0x76, 0x61,
	0x74, 0x65, 0x5f, 0x44, 0x69, 0x72, 0x74, 0x79, 0x82, 0x01, 0x06, 0x4c,
	0x6f, 0x63, 0x6b, 0x65, 0x64,
};

#define SMAPS_BIT(f) (1u << PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_##f)

/* Old records read as they did: the heap lane from its string, the missing counters
 * from their /proc keys (any case, and the two memory_sample column names that are
 * not a key). */
static void test_19_old_records_read_the_same(void **state)
{
	Ptop__V1__Record *r;
	Ptop__V1__SmapsRollup ro = PTOP__V1__SMAPS_ROLLUP__INIT;
	char *aliases[] = { "anon", "SWAP_PSS", "pss_file", "Future_Counter", NULL };
	(void)state;

	r = ptop__v1__record__unpack(NULL, sizeof(old_heap), old_heap);
	assert_non_null(r);
	assert_int_equal(r->event->payload_case, PTOP__V1__EVENT__PAYLOAD_HEAP);
	assert_int_equal(r->event->heap->lane_kind, PTOP__V1__HEAP_LANE__HEAP_LANE_UNSPECIFIED);
	assert_string_equal(capture_heap_snapshot_lane(r->event->heap), "go");
	ptop__v1__record__free_unpacked(r, NULL);

	r = ptop__v1__record__unpack(NULL, sizeof(old_memory), old_memory);
	assert_non_null(r);
	assert_int_equal(r->event->memory->rollup->n_missing_fields, 0);
	assert_int_equal(capture_smaps_missing(r->event->memory->rollup),
			 SMAPS_BIT(PSS_ANON) | SMAPS_BIT(PRIVATE_DIRTY) | SMAPS_BIT(LOCKED));
	ptop__v1__record__free_unpacked(r, NULL);

	ro.n_missing = 5;
	ro.missing = aliases;
	assert_int_equal(capture_smaps_missing(&ro),
			 SMAPS_BIT(ANONYMOUS) | SMAPS_BIT(SWAP_PSS) | SMAPS_BIT(PSS_FILE));
}

/* New records carry the enums, and beside them exactly the words old readers read:
 * with the new fields cleared they pack to the old bytes. The enums decide when both
 * are there. */
static void test_20_new_records_keep_old_words(void **state)
{
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT, *r;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__HeapSnapshot hs = PTOP__V1__HEAP_SNAPSHOT__INIT;
	Ptop__V1__MemorySample ms = PTOP__V1__MEMORY_SAMPLE__INIT;
	Ptop__V1__SmapsRollup ro = PTOP__V1__SMAPS_ROLLUP__INIT;
	Ptop__V1__SmapsField fields[] = { PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_ANON,
					  PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PRIVATE_DIRTY,
					  PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_LOCKED };
	char *keys[3], *lane;
	uint8_t buf[256];
	size_t n;
	(void)state;

	rec.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	rec.event = &ev;
	ev.time_ns = 2000000000;
	ev.pid = 42;
	ev.interval_ns = 1000000000;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_HEAP;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_HEAP;
	ev.heap = &hs;
	hs.lane_kind = PTOP__V1__HEAP_LANE__HEAP_LANE_GO;
	hs.lane = (char *)capture_heap_lane_name(hs.lane_kind);
	hs.module = "/bin/g";
	hs.sample_bytes = 524288;
	hs.alloc_count = 3;
	n = ptop__v1__record__pack(&rec, buf);
	r = ptop__v1__record__unpack(NULL, n, buf);
	assert_non_null(r);
	assert_int_equal(r->event->heap->lane_kind, PTOP__V1__HEAP_LANE__HEAP_LANE_GO);
	assert_string_equal(capture_heap_snapshot_lane(r->event->heap), "go");
	lane = r->event->heap->lane;
	r->event->heap->lane = "uprobe"; /* lane_kind decides */
	assert_string_equal(capture_heap_snapshot_lane(r->event->heap), "go");
	r->event->heap->lane = lane;
	ptop__v1__record__free_unpacked(r, NULL);
	hs.lane_kind = PTOP__V1__HEAP_LANE__HEAP_LANE_UNSPECIFIED;
	n = ptop__v1__record__pack(&rec, buf);
	assert_int_equal(n, sizeof(old_heap));
	assert_memory_equal(buf, old_heap, n);

	ev.category = PTOP__V1__CATEGORY__CATEGORY_MEMORY;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_MEMORY;
	ev.memory = &ms;
	ms.rollup = &ro;
	ro.rss = 4096;
	ro.pss = 2048;
	for (size_t i = 0; i < 3; i++)
		keys[i] = (char *)capture_smaps_field_name(fields[i]);
	ro.n_missing = 3;
	ro.missing = keys;
	ro.n_missing_fields = 2; /* the fields decide: Locked is not missing */
	ro.missing_fields = fields;
	n = ptop__v1__record__pack(&rec, buf);
	r = ptop__v1__record__unpack(NULL, n, buf);
	assert_non_null(r);
	assert_int_equal(capture_smaps_missing(r->event->memory->rollup),
			 SMAPS_BIT(PSS_ANON) | SMAPS_BIT(PRIVATE_DIRTY));
	ptop__v1__record__free_unpacked(r, NULL);
	ro.n_missing_fields = 0;
	n = ptop__v1__record__pack(&rec, buf);
	assert_int_equal(n, sizeof(old_memory));
	assert_memory_equal(buf, old_memory, n);
}

/* The words of the wire enums, one each, as the database stores them. */
static void test_21_wire_words(void **state)
{
	static const char *const lanes[] = { NULL, "uprobe", "preload", "go", NULL };
	static const char *const events[] = { NULL, "start", "new", "gone", "end", NULL };
	static const char *const keys[] = { NULL, "Pss_Anon", "Pss_File", "Pss_Shmem",
		"Shared_Clean", "Shared_Dirty", "Private_Clean", "Private_Dirty", "Anonymous",
		"Swap", "SwapPss", "Locked", NULL };
	(void)state;

#define WORD(got, want) \
	((want) ? assert_string_equal((got), (want)) : assert_null((got)))
	for (int i = 0; i < 5; i++)
		WORD(capture_heap_lane_name((Ptop__V1__HeapLane)i), lanes[i]);
	for (int i = 0; i < 6; i++)
		WORD(capture_mapping_event_name((Ptop__V1__MappingEvent)i), events[i]);
	for (int i = 0; i < 13; i++)
		WORD(capture_smaps_field_name((Ptop__V1__SmapsField)i), keys[i]);
#undef WORD
	assert_string_equal(capture_build_id_kind_name(PTOP__V1__BUILD_ID_KIND__BUILD_ID_KIND_GNU),
			    "gnu");
	assert_string_equal(capture_build_id_kind_name(PTOP__V1__BUILD_ID_KIND__BUILD_ID_KIND_GO),
			    "go");
	assert_string_equal(capture_build_id_kind_name((Ptop__V1__BuildIdKind)9), "gnu");
	assert_string_equal(capture_probe_state_name(PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE),
			    "active");
}

/* A collector not named in ptop.proto's oneof: its message (here ProcessName stands in
 * for one) travels packed in Event.collector_payload, through a file and back; the
 * reader gets it only for its collector and its type. */
static void test_22_collector_payload(void **state)
{
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CollectorPayload cp;
	Ptop__V1__ProcessName pn = PTOP__V1__PROCESS_NAME__INIT;
	Ptop__V1__ProcessName *got;
	const Ptop__V1__Event *e;
	struct recs in = { .n = 0 }, out;
	struct capture_status st;
	const char *p = tpath("payload.ptop");
	(void)state;

	pn.pid = 4242;
	pn.comm = "toyd";
	ev.time_ns = 5000;
	ev.interval_ns = 1000;
	assert_int_equal(capture_payload__pack(&ev, &cp, "toy", &pn.base), 0);
	assert_string_equal(cp.type, "ptop.v1.ProcessName");
	rec.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	rec.event = &ev;
	in.r[in.n++] = sample_copy(&rec);
	capture_payload__release(&cp);
	assert_null(cp.data.data);
	write_recs(p, NULL, &in);
	read_recs(p, &out, &st);
	assert_int_equal(out.n, 1);
	assert_int_equal(st.end, CAPTURE_END_CLEAN);
	e = out.r[0]->event;
	assert_int_equal(e->payload_case, PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD);
	assert_string_equal(e->collector_payload->collector, "toy");
	assert_int_equal(e->time_ns, 5000);

	got = (Ptop__V1__ProcessName *)capture_payload__unpack(
	    e, "toy", &ptop__v1__process_name__descriptor);
	assert_non_null(got);
	assert_int_equal(got->pid, 4242);
	assert_string_equal(got->comm, "toyd");
	protobuf_c_message_free_unpacked(&got->base, NULL);

	errno = 0;
	assert_null(capture_payload__unpack(e, "other", &ptop__v1__process_name__descriptor));
	assert_int_equal(errno, ENOENT);
	assert_null(capture_payload__unpack(e, "toy", &ptop__v1__stack__descriptor));
	assert_int_equal(errno, EPROTO);
	/* data that is not a ProcessName (field 2, comm, longer than what is left) */
	e->collector_payload->data.data[0] = 0x12;
	e->collector_payload->data.data[1] = 0x7f;
	errno = 0;
	assert_null(capture_payload__unpack(e, "toy", &ptop__v1__process_name__descriptor));
	assert_int_equal(errno, EBADMSG);
	/* an event with a built-in payload is no collector's */
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPU;
	ev.cpu = NULL;
	errno = 0;
	assert_null(capture_payload__unpack(&ev, "toy", &ptop__v1__process_name__descriptor));
	assert_int_equal(errno, ENOENT);
	recs_free(&in);
	recs_free(&out);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];
	(void)state;

	snprintf(cmd, sizeof(cmd), "%s/small", tmpdir);
	umount2(cmd, MNT_DETACH); /* test_08's tmpfs, if a failure left it mounted */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_roundtrip_every_kind),
	    cmocka_unit_test(test_02_frames_closed_by_size),
	    cmocka_unit_test(test_03_frames_closed_by_tick),
	    cmocka_unit_test(test_04_index_and_seek),
	    cmocka_unit_test(test_05_mode_0600),
	    cmocka_unit_test(test_06_exists_needs_force),
	    cmocka_unit_test(test_07_enospc_keeps_written_frames),
	    cmocka_unit_test(test_08_enospc_real_tmpfs),
	    cmocka_unit_test(test_09_create_failure_leaves_nothing),
	    cmocka_unit_test(test_10_salvage_cut_file),
	    cmocka_unit_test(test_11_salvage_keeps_existing_trailer),
	    cmocka_unit_test(test_12_bad_arguments),
	    cmocka_unit_test(test_13_symlink_refused),
	    cmocka_unit_test(test_14_fifo_and_device_refused),
	    cmocka_unit_test(test_15_forced_file_kept_after_write_error),
	    cmocka_unit_test(test_16_pipe_stream),
	    cmocka_unit_test(test_17_pending_since),
	    cmocka_unit_test(test_18_salvage_names_the_failing_file),
	    cmocka_unit_test(test_19_old_records_read_the_same),
	    cmocka_unit_test(test_20_new_records_keep_old_words),
	    cmocka_unit_test(test_21_wire_words),
	    cmocka_unit_test(test_22_collector_payload),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
