/* test_reader.c — the capture reader on damaged input: a capture cut at every
 * byte, every bit of it flipped, garbage, empty and header-only files, wrong
 * versions, and hand-made frames that are corrupt in each way the reader knows.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "proto/capture.h"
#include "proto/capture_internal.h"
#include "tests/codec_samples.h"

#define NRECS 48

static char tmpdir[] = "/tmp/ptop-test-reader-XXXXXX";

/* The sample capture, kept for every test: bytes, records, frame layout. */
static uint8_t *cap;
static size_t cap_len;
static Ptop__V1__Record *orig[NRECS];
static struct capture_index_entry frames[NRECS];
static size_t nframes;
static uint64_t index_off; /* start of the index frame */

struct result {
	bool opened;
	int open_errno;
	size_t records;
	bool prefix; /* every record equals the original at its place */
	struct capture_status st;
};

/* Read BYTES (LEN) as a capture from a memfd, checking records against orig. */
static struct result read_bytes(const uint8_t *bytes, size_t len, bool also_seek)
{
	struct result res = {.prefix = true};
	struct capture_reader *r;
	Ptop__V1__Record *rec;
	int fd = memfd_create("capture", MFD_CLOEXEC), k;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, len), (ssize_t)len);
	errno = 0;
	r = capture_reader__open_fd(fd);
	if (!r) {
		res.open_errno = errno;
		close(fd);
		return res;
	}
	res.opened = true;
	while ((k = capture_reader__next(r, &rec)) == 1) {
		if (res.records >= NRECS || !sample_equal(rec, orig[res.records]))
			res.prefix = false;
		res.records++;
		ptop__v1__record__free_unpacked(rec, NULL);
	}
	assert_int_equal(k, 0);
	res.st = *capture_reader__status(r);
	if (also_seek) {
		size_t n;
		const struct capture_index_entry *idx = capture_reader__index(r, &n);

		for (size_t i = 0; i < n; i++)
			assert_true(idx[i].offset >= 20 && idx[i].offset < len);
		for (uint64_t t = 0; t < 1000 * (NRECS + 2); t += 7000) {
			assert_int_equal(capture_reader__seek_time(r, t), 0);
			while (capture_reader__next(r, &rec) == 1)
				ptop__v1__record__free_unpacked(rec, NULL);
			assert_true(capture_reader__status(r)->end != CAPTURE_END_NONE);
		}
	}
	capture_reader__free(r);
	close(fd);
	return res;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat sb;
	uint8_t *buf;
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &sb), 0);
	*len = (size_t)sb.st_size;
	buf = malloc(*len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

static size_t records_before(uint64_t end)
{
	size_t n = 0;

	for (size_t i = 0; i < nframes; i++)
		if (frames[i].offset + frames[i].compressed_size <= end)
			n += frames[i].records;
	return n;
}

static void test_01_cut_at_every_byte(void **state)
{
	(void)state;
	for (size_t len = 0; len <= cap_len; len++) {
		struct result res = read_bytes(cap, len, false);
		bool boundary = len == 20;
		size_t in_frame = SIZE_MAX;
		char want[256];

		if (len < 20) {
			assert_false(res.opened);
			assert_int_equal(res.open_errno, EBADMSG);
			continue;
		}
		assert_true(res.opened);
		assert_true(res.prefix);
		for (size_t i = 0; i < nframes; i++) {
			if (len == frames[i].offset + frames[i].compressed_size)
				boundary = true;
			if (len > frames[i].offset &&
			    len < frames[i].offset + frames[i].compressed_size)
				in_frame = i;
		}
		assert_int_equal(res.records, records_before(len));
		assert_int_equal(res.st.records, res.records);
		assert_int_equal(res.st.file_size, len);
		assert_int_equal(res.st.has_index, len == cap_len);
		if (boundary || len == cap_len) {
			assert_int_equal(res.st.end, CAPTURE_END_CLEAN);
			assert_int_equal(res.st.at_byte, len);
			continue;
		}
		assert_int_equal(res.st.end, CAPTURE_END_TRUNCATED);
		if (in_frame == SIZE_MAX) { /* inside the index frame */
			assert_true(len > index_off);
			assert_int_equal(res.st.at_byte, index_off);
			assert_int_equal(res.st.frames, nframes);
			snprintf(want, sizeof(want),
				 "truncated at byte %" PRIu64 " (inside a skippable frame); %zu "
				 "complete frames read",
				 index_off, nframes);
		} else {
			assert_int_equal(res.st.at_byte, frames[in_frame].offset);
			assert_int_equal(res.st.frames, in_frame);
			snprintf(want, sizeof(want),
				 "truncated at byte %" PRIu64 " (inside frame %zu); %zu complete "
				 "frames read",
				 frames[in_frame].offset, in_frame + 1, in_frame);
		}
		assert_string_equal(res.st.message, want);
	}
}

static void test_02_flip_every_bit(void **state)
{
	uint8_t *buf = malloc(cap_len);
	size_t clean_all = 0, damaged = 0;
	(void)state;

	assert_non_null(buf);
	for (size_t i = 0; i < cap_len; i++) {
		for (int bit = 0; bit < 8; bit++) {
			struct result res;

			memcpy(buf, cap, cap_len);
			buf[i] ^= (uint8_t)(1u << bit);
			res = read_bytes(buf, cap_len, bit == (int)(i % 8));
			if (!res.opened) {
				/* only the magic frame is checked at open */
				assert_true(i < 20);
				assert_true(res.open_errno == EBADMSG || res.open_errno == ENOTSUP);
				continue;
			}
			/* whatever is returned is what was written, in order */
			assert_true(res.prefix);
			assert_true(res.st.end != CAPTURE_END_NONE);
			if (res.st.end == CAPTURE_END_CLEAN) {
				clean_all += res.records == NRECS;
				continue;
			}
			damaged++;
			assert_true(res.st.end == CAPTURE_END_CORRUPT ||
				    res.st.end == CAPTURE_END_TRUNCATED);
			assert_true(res.st.at_byte >= 20 && res.st.at_byte < cap_len);
			assert_non_null(strstr(res.st.message, "at byte"));
			/* a flip inside a zstd frame is caught there: its checksum */
			for (size_t f = 0; f < nframes; f++)
				if (i >= frames[f].offset + 4 &&
				    i < frames[f].offset + frames[f].compressed_size)
					assert_true(res.records <=
						    records_before(frames[f].offset +
								   frames[f].compressed_size));
		}
	}
	/* flips in the index leave the records intact; flips in frames do not */
	assert_true(clean_all > 0);
	assert_true(damaged > 0);
	free(buf);
}

static void write_file(const char *path, const void *bytes, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, len, f), len);
	fclose(f);
}

static const char *tpath(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

static void test_03_garbage_empty_and_header_only(void **state)
{
	uint8_t junk[4096];
	struct result res;
	(void)state;

	srand(7);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)rand();
	res = read_bytes(junk, sizeof(junk), false);
	assert_false(res.opened);
	assert_int_equal(res.open_errno, EBADMSG);

	res = read_bytes(junk, 0, false);
	assert_false(res.opened);
	assert_int_equal(res.open_errno, EBADMSG);

	res = read_bytes(cap, 20, true);
	assert_true(res.opened);
	assert_int_equal(res.records, 0);
	assert_int_equal(res.st.end, CAPTURE_END_CLEAN);
	assert_int_equal(res.st.frames, 0);
	assert_false(res.st.has_index);

	/* garbage after a good magic frame: corrupt at byte 20 */
	memcpy(junk, cap, 20);
	junk[20] = 0x12;
	res = read_bytes(junk, sizeof(junk), true);
	assert_true(res.opened);
	assert_int_equal(res.records, 0);
	assert_int_equal(res.st.end, CAPTURE_END_CORRUPT);
	assert_int_equal(res.st.at_byte, 20);
	assert_non_null(strstr(res.st.message, "not a zstd frame"));

	/* by path too: a missing file is open(2)'s error */
	write_file(tpath("junk.ptop"), junk + 20, 100);
	errno = 0;
	assert_null(capture_reader__open(tpath("junk.ptop")));
	assert_int_equal(errno, EBADMSG);
	errno = 0;
	assert_null(capture_reader__open(tpath("missing.ptop")));
	assert_int_equal(errno, ENOENT);
}

static void test_04_wrong_version_and_magic(void **state)
{
	uint8_t buf[20];
	struct result res;
	(void)state;

	memcpy(buf, cap, 20);
	capture_put_u32(buf + 16, CAPTURE_FORMAT_VERSION + 1);
	res = read_bytes(buf, 20, false);
	assert_false(res.opened);
	assert_int_equal(res.open_errno, ENOTSUP);

	capture_put_u32(buf + 16, 0);
	res = read_bytes(buf, 20, false);
	assert_false(res.opened);
	assert_int_equal(res.open_errno, EBADMSG);

	memcpy(buf, cap, 20);
	buf[10] = 'X'; /* "PTXCAP" */
	res = read_bytes(buf, 20, false);
	assert_false(res.opened);
	assert_int_equal(res.open_errno, EBADMSG);

	memcpy(buf, cap, 20);
	capture_put_u32(buf + 4, 13); /* size of the magic frame */
	res = read_bytes(buf, 20, false);
	assert_false(res.opened);
	assert_int_equal(res.open_errno, EBADMSG);
}

/* A capture: magic frame, the first frame of the sample capture, then FRAME. */
static size_t build(uint8_t *out, const void *frame, size_t len)
{
	size_t n = frames[0].offset + frames[0].compressed_size;

	memcpy(out, cap, n);
	memcpy(out + n, frame, len);
	return n + len;
}

static size_t zframe(void *dst, size_t cap_, const void *src, size_t len)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t z;

	assert_non_null(c);
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	z = ZSTD_compress2(c, dst, cap_, src, len);
	ZSTD_freeCCtx(c);
	assert_false(ZSTD_isError(z));
	return z;
}

static void expect_corrupt(const void *content, size_t len, const char *what)
{
	uint8_t z[512], file[4096];
	size_t zl = zframe(z, sizeof(z), content, len);
	size_t n = build(file, z, zl);
	struct result res = read_bytes(file, n, true);
	char want[64];

	assert_true(res.opened);
	assert_true(res.prefix);
	assert_int_equal(res.st.end, CAPTURE_END_CORRUPT);
	assert_int_equal(res.st.at_byte, n - zl);
	snprintf(want, sizeof(want), "corrupt frame at byte %zu (frame 2)", n - zl);
	assert_non_null(strstr(res.st.message, want));
	assert_non_null(strstr(res.st.message, what));
	/* the good frame before it came out whole, nothing of the bad one */
	assert_int_equal(res.records, frames[0].records);
	assert_int_equal(res.st.frames, 1);
}

static void test_05_corrupt_records(void **state)
{
	uint8_t bad_varint[11], past_end[] = {0x05, 'a'}, no_unpack[] = {0x02, 0x0A, 0xFF};
	(void)state;

	memset(bad_varint, 0xff, sizeof(bad_varint));
	expect_corrupt(bad_varint, sizeof(bad_varint), "bad length");
	expect_corrupt(past_end, sizeof(past_end), "bad length");
	(void)no_unpack;
}

/* A record whose length is sound but whose bytes are no Record (a damaged payload in a
 * frame whose checksum passes) is passed over and counted as skipped; the record after
 * it in the same frame is read, and the read ends clean (issue 21: one bad record sank
 * the whole capture). */
static void test_05b_undecodable_record_is_skipped(void **state)
{
	uint8_t content[512], z[1024], file[4096];
	size_t next = frames[0].records, len, zl, n;
	struct result res;
	(void)state;

	assert_true(next < NRECS);
	len = ptop__v1__record__get_packed_size(orig[next]);
	assert_true(3 + 1 + len < sizeof(content) && len < 128);
	content[0] = 0x02; /* a record of 2 bytes: field 1, length 0xFF past its end */
	content[1] = 0x0A;
	content[2] = 0xFF;
	content[3] = (uint8_t)len;
	ptop__v1__record__pack(orig[next], content + 4);
	zl = zframe(z, sizeof(z), content, 4 + len);
	n = build(file, z, zl);
	res = read_bytes(file, n, true);
	assert_true(res.opened);
	assert_true(res.prefix); /* the good record after the bad one is returned, in order */
	assert_int_equal(res.st.end, CAPTURE_END_CLEAN);
	assert_int_equal(res.st.skipped, 1);
	assert_int_equal(res.records, next + 1);
	assert_int_equal(res.st.frames, 2);
}

static void test_06_corrupt_frames(void **state)
{
	uint8_t file[8192], z[256];
	size_t n, zl, body = frames[0].offset + frames[0].compressed_size;
	struct result res;
	(void)state;

	/* the checksum of a frame is wrong */
	zl = zframe(z, sizeof(z), "\x01\x00", 2);
	z[zl - 1] ^= 0x40;
	n = build(file, z, zl);
	res = read_bytes(file, n, true);
	assert_int_equal(res.st.end, CAPTURE_END_CORRUPT);
	assert_int_equal(res.st.at_byte, body);
	assert_non_null(strstr(res.st.message, "checksum"));
	assert_int_equal(res.records, frames[0].records);

	/* a frame whose header is not a zstd header */
	memset(z, 0xff, 40);
	memcpy(z, "\x28\xb5\x2f\xfd", 4);
	n = build(file, z, 40);
	res = read_bytes(file, n, true);
	assert_int_equal(res.st.end, CAPTURE_END_CORRUPT);
	assert_int_equal(res.st.at_byte, body);

	/* an unknown skippable frame is skipped; one past the end is truncation */
	capture_put_u32(z, 0x184D2A53);
	capture_put_u32(z + 4, 3);
	memcpy(z + 8, "abc", 3);
	n = build(file, z, 11);
	memcpy(file + n, cap + body, cap_len - body);
	res = read_bytes(file, n + cap_len - body, true);
	assert_int_equal(res.st.end, CAPTURE_END_CLEAN);
	assert_int_equal(res.records, NRECS);
	assert_true(res.prefix);
	assert_false(res.st.has_index); /* the entries point at the wrong offsets now */
	capture_put_u32(z + 4, 1000);
	n = build(file, z, 11);
	res = read_bytes(file, n, true);
	assert_int_equal(res.st.end, CAPTURE_END_TRUNCATED);
	assert_int_equal(res.st.at_byte, body);
}

/* A frame that decompresses past CAPTURE_MAX_FRAME_BYTES (content size not
 * declared, small window) is refused as corrupt, not allocated for. */
static void test_07_frame_too_large(void **state)
{
	size_t big = CAPTURE_MAX_FRAME_BYTES + 4096, zcap = 1 << 20;
	uint8_t *src = calloc(1, big), *z = malloc(zcap), *file;
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ZSTD_inBuffer in = {src, big, 0};
	ZSTD_outBuffer out = {z, zcap, 0};
	struct result res;
	size_t n;
	(void)state;

	assert_non_null(src);
	assert_non_null(z);
	ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 20);
	ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
	while (ZSTD_compressStream2(c, &out, &in, ZSTD_e_end) != 0)
		;
	ZSTD_freeCCtx(c);
	free(src);
	file = malloc(out.pos + 4096);
	assert_non_null(file);
	n = build(file, z, out.pos);
	res = read_bytes(file, n, false);
	assert_int_equal(res.st.end, CAPTURE_END_CORRUPT);
	assert_non_null(strstr(res.st.message, "decompresses to more than"));
	assert_int_equal(res.records, frames[0].records);
	free(z);
	free(file);
}

/* A file still being written (a follower, export --follow): cut at every byte, read to
 * where it ends, the rest appended, capture_reader__resume: every record comes once, in
 * order, and the end is as for the whole file read at once. */
static void test_09_resume_at_every_cut(void **state)
{
	struct result whole = read_bytes(cap, cap_len, false);

	(void)state;
	for (size_t len = 20; len <= cap_len; len++) {
		int fd = memfd_create("growing", MFD_CLOEXEC), k;
		struct capture_reader *r;
		Ptop__V1__Record *rec;
		const struct capture_status *st;
		size_t n = 0;

		assert_true(fd >= 0);
		assert_int_equal(write(fd, cap, len), (ssize_t)len);
		r = capture_reader__open_fd(fd);
		assert_non_null(r);
		for (int round = 0; round < 2; round++) {
			while ((k = capture_reader__next(r, &rec)) == 1) {
				assert_true(n < NRECS);
				assert_true(sample_equal(rec, orig[n]));
				n++;
				ptop__v1__record__free_unpacked(rec, NULL);
			}
			assert_int_equal(k, 0);
			st = capture_reader__status(r);
			if (round == 0) {
				assert_true(st->end == CAPTURE_END_TRUNCATED ||
					    st->end == CAPTURE_END_CLEAN);
				assert_int_equal(n, records_before(len));
				assert_int_equal(pwrite(fd, cap + len, cap_len - len, (off_t)len),
						 (ssize_t)(cap_len - len));
				assert_int_equal(capture_reader__resume(r), 0);
			}
		}
		assert_int_equal(n, NRECS);
		assert_int_equal(st->end, CAPTURE_END_CLEAN);
		assert_int_equal(st->records, NRECS);
		assert_int_equal(st->frames, whole.st.frames);
		capture_reader__free(r);
		close(fd);
	}
}

static void test_08_bad_index_is_ignored(void **state)
{
	uint8_t *buf = malloc(cap_len);
	struct result res;
	(void)state;

	assert_non_null(buf);
	/* an entry pointing past the index: not trusted, the file still reads */
	memcpy(buf, cap, cap_len);
	capture_put_u64(buf + index_off + 8, cap_len + 100);
	res = read_bytes(buf, cap_len, true);
	assert_false(res.st.has_index);
	assert_int_equal(res.st.end, CAPTURE_END_CLEAN);
	assert_int_equal(res.records, NRECS);
	/* a count that does not match the frame's size */
	memcpy(buf, cap, cap_len);
	capture_put_u32(buf + cap_len - 8, (uint32_t)nframes - 1);
	res = read_bytes(buf, cap_len, true);
	assert_false(res.st.has_index);
	assert_int_equal(res.records, NRECS);
	free(buf);
}

static int setup(void **state)
{
	struct capture_writer_opts o = {.frame_bytes = 350};
	struct capture_writer *w;
	struct capture_reader *r;
	const struct capture_index_entry *idx;
	const char *p;
	(void)state;

	if (!mkdtemp(tmpdir))
		return -1;
	p = tpath("sample.ptop");
	w = capture_writer__create(p, &o);
	if (!w)
		return -1;
	for (unsigned i = 0; i < NRECS; i++) {
		orig[i] = sample_record(i, 1000 * (i + 1));
		if (capture_writer__append(w, orig[i]))
			return -1;
	}
	if (capture_writer__close(w))
		return -1;
	cap = slurp(p, &cap_len);
	r = capture_reader__open(p);
	if (!r)
		return -1;
	idx = capture_reader__index(r, &nframes);
	if (!capture_reader__status(r)->has_index || nframes < 5 || nframes > NRECS)
		return -1;
	memcpy(frames, idx, nframes * sizeof(*idx));
	index_off = frames[nframes - 1].offset + frames[nframes - 1].compressed_size;
	capture_reader__free(r);
	fprintf(stderr, "sample capture: %zu bytes, %zu frames, %d records\n", cap_len, nframes,
		NRECS);
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];
	(void)state;

	for (unsigned i = 0; i < NRECS; i++)
		ptop__v1__record__free_unpacked(orig[i], NULL);
	free(cap);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_cut_at_every_byte),
	    cmocka_unit_test(test_02_flip_every_bit),
	    cmocka_unit_test(test_03_garbage_empty_and_header_only),
	    cmocka_unit_test(test_04_wrong_version_and_magic),
	    cmocka_unit_test(test_05_corrupt_records),
	    cmocka_unit_test(test_05b_undecodable_record_is_skipped),
	    cmocka_unit_test(test_06_corrupt_frames),
	    cmocka_unit_test(test_07_frame_too_large),
	    cmocka_unit_test(test_08_bad_index_is_ignored),
	    cmocka_unit_test(test_09_resume_at_every_cut),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
