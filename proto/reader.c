/* reader.c — streams .ptop capture files frame by frame with bounded memory,
 * says exactly where and why reading stopped, and never trusts its input.
 *
 * Memory: one input buffer (IN_BUF), one decompressed frame (at most
 * CAPTURE_MAX_FRAME_BYTES), the zstd context (window at most 2^WINDOW_LOG_MAX),
 * the record being returned, and the time index (32 bytes per frame).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "proto/capture.h"
#include "proto/capture_internal.h"

#define IN_BUF (128u * 1024)
#define WINDOW_LOG_MAX 26 /* 64 MiB, the largest frame we accept */
#define MAX_INDEX_ENTRIES (1u << 24)

struct capture_reader {
	int fd;
	bool own_fd;
	uint64_t pos; /* file offset of in[in_pos] */
	uint8_t *in;  /* in[in_pos, in_len) are the bytes at pos... */
	size_t in_pos, in_len;
	uint64_t data_start; /* first byte after the magic frame */
	ZSTD_DCtx *dctx;
	uint8_t *out; /* the decompressed current frame */
	size_t out_len, out_cap;
	uint64_t frame_off;	/* the current frame: file offset */
	uint64_t frame_size;	/* ... compressed size */
	uint64_t frame_no;	/* zstd frames started, 1-based number of the current */
	uint64_t frame_no0;	/* frame_no before the current frame began (resume) */
	size_t rec_off;		/* next record's varint in out */
	uint32_t rec_left;	/* records of the current frame not yet returned */
	uint32_t rec_no;	/* records of the current frame returned */
	uint64_t ret_frame_off; /* frame of the last returned record */
	uint64_t ret_frame_size;
	struct capture_status st;
	struct capture_index_entry *index;
	size_t nindex;
	bool index_ready;	  /* index holds the file's index or a rebuilt one */
	uint64_t index_frame_off; /* start of the file's index frame (has_index) */
	bool oom;		  /* the protobuf allocator failed */
	ProtobufCAllocator alloc;
};

static void *pb_alloc(void *data, size_t size)
{
	struct capture_reader *r = data;
	void *p = malloc(size);

	if (!p)
		r->oom = true;
	return p;
}

static void pb_free(void *data, void *p)
{
	(void)data;
	free(p);
}

static void set_end(struct capture_reader *r, enum capture_end end, uint64_t at, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));

static void set_end(struct capture_reader *r, enum capture_end end, uint64_t at, const char *fmt,
		    ...)
{
	va_list ap;
	struct stat sb;

	r->st.end = end;
	r->st.at_byte = at;
	r->rec_left = 0;
	if (fstat(r->fd, &sb) == 0 && S_ISREG(sb.st_mode))
		r->st.file_size = (uint64_t)sb.st_size;
	va_start(ap, fmt);
	vsnprintf(r->st.message, sizeof(r->st.message), fmt, ap);
	va_end(ap);
}

static void set_truncated(struct capture_reader *r, bool skippable)
{
	if (skippable)
		set_end(r, CAPTURE_END_TRUNCATED, r->frame_off,
			"truncated at byte %" PRIu64 " (inside a skippable frame); %" PRIu64
			" complete frames read",
			r->frame_off, r->st.frames);
	else
		set_end(r, CAPTURE_END_TRUNCATED, r->frame_off,
			"truncated at byte %" PRIu64 " (inside frame %" PRIu64 "); %" PRIu64
			" complete frames read",
			r->frame_off, r->frame_no, r->st.frames);
}

static void set_io(struct capture_reader *r, int err)
{
	set_end(r, CAPTURE_END_IO, r->pos, "read error at byte %" PRIu64 ": %s", r->pos,
		strerror(err));
}

/* Make at least NEED bytes available at in[in_pos] if the file has them.
 * Returns the bytes available (fewer at the end of the file) or -errno. */
static ssize_t peek(struct capture_reader *r, size_t need)
{
	size_t avail = r->in_len - r->in_pos;

	if (need > IN_BUF)
		need = IN_BUF;
	if (avail >= need)
		return (ssize_t)avail;
	memmove(r->in, r->in + r->in_pos, avail);
	r->in_pos = 0;
	r->in_len = avail;
	while (r->in_len < need) {
		ssize_t k = pread(r->fd, r->in + r->in_len, IN_BUF - r->in_len,
				  (off_t)(r->pos + r->in_len));

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			break;
		r->in_len += (size_t)k;
	}
	return (ssize_t)r->in_len;
}

static void consume(struct capture_reader *r, size_t n)
{
	r->in_pos += n;
	r->pos += n;
}

/* Move the read position to file offset OFF, dropping the buffer. */
static void reposition(struct capture_reader *r, uint64_t off)
{
	r->in_pos = r->in_len = 0;
	r->pos = off;
}

static uint64_t current_size(const struct capture_reader *r)
{
	struct stat sb;

	if (fstat(r->fd, &sb) < 0 || !S_ISREG(sb.st_mode))
		return UINT64_MAX; /* not a regular file: learn the end by reading */
	return (uint64_t)sb.st_size;
}

/* Decode one varint at P (END bounds it). Returns its length, 0 when malformed. */
static size_t get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < CAPTURE_VARINT_MAX && p + i < end; i++) {
		uint64_t b = p[i] & 0x7f;

		if (i == 9 && b > 1)
			return 0; /* more than 64 bits */
		x |= b << (7 * i);
		if (!(p[i] & 0x80)) {
			*v = x;
			return i + 1;
		}
	}
	return 0;
}

/* Walk the records of the decompressed frame; 0 or -1 (status set) when one
 * has a bad length. */
static int check_records(struct capture_reader *r)
{
	const uint8_t *p = r->out, *end = r->out + r->out_len;
	uint32_t n = 0;

	while (p < end) {
		uint64_t len;
		size_t k = get_varint(p, end, &len);

		if (!k || len > (uint64_t)(end - p - k)) {
			set_end(r, CAPTURE_END_CORRUPT, r->frame_off,
				"corrupt frame at byte %" PRIu64 " (frame %" PRIu64
				"): record %" PRIu32 " at frame offset %zu has a bad length",
				r->frame_off, r->frame_no, n + 1, (size_t)(p - r->out));
			return -1;
		}
		p += k + len;
		n++;
	}
	r->rec_off = 0;
	r->rec_left = n;
	r->rec_no = 0;
	return 0;
}

static int grow_out(struct capture_reader *r, size_t want)
{
	void *p;

	if (want > CAPTURE_MAX_FRAME_BYTES + 1)
		want = CAPTURE_MAX_FRAME_BYTES + 1;
	if (want <= r->out_cap)
		return 0;
	p = realloc(r->out, want);
	if (!p)
		return -ENOMEM;
	r->out = p;
	r->out_cap = want;
	return 0;
}

/* Decompress the zstd frame at pos whole. 0 when done (records ready, or the
 * status set), -ENOMEM. */
static int read_zstd_frame(struct capture_reader *r)
{
	unsigned long long declared;
	ssize_t avail;

	ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
	r->out_len = 0;
	avail = peek(r, 18) /* ZSTD_FRAMEHEADERSIZE_MAX */;
	if (avail < 0) {
		set_io(r, (int)-avail);
		return 0;
	}
	declared = ZSTD_getFrameContentSize(r->in + r->in_pos, (size_t)avail);
	if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR &&
	    declared <= CAPTURE_MAX_FRAME_BYTES) {
		/* a lying header costs at most 4 MiB up front; more only as it decodes */
		if (grow_out(r, declared < (4u << 20) ? (size_t)declared + 1 : (4u << 20)))
			goto oom;
	}
	for (;;) {
		ZSTD_inBuffer in;
		ZSTD_outBuffer out;
		size_t ret;

		avail = peek(r, 1);
		if (avail < 0) {
			set_io(r, (int)-avail);
			return 0;
		}
		if (avail == 0) {
			set_truncated(r, false);
			return 0;
		}
		if (r->out_len == r->out_cap) {
			if (r->out_cap > CAPTURE_MAX_FRAME_BYTES)
				goto too_big;
			if (grow_out(r, r->out_cap ? r->out_cap * 2 : 256 * 1024))
				goto oom;
		}
		in = (ZSTD_inBuffer){r->in + r->in_pos, (size_t)avail, 0};
		out = (ZSTD_outBuffer){r->out, r->out_cap, r->out_len};
		ret = ZSTD_decompressStream(r->dctx, &out, &in);
		consume(r, in.pos);
		r->out_len = out.pos;
		if (ZSTD_isError(ret)) {
			if (ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation)
				goto oom;
			set_end(r, CAPTURE_END_CORRUPT, r->frame_off,
				"corrupt frame at byte %" PRIu64 " (frame %" PRIu64 "): %s",
				r->frame_off, r->frame_no, ZSTD_getErrorName(ret));
			return 0;
		}
		if (r->out_len > CAPTURE_MAX_FRAME_BYTES)
			goto too_big;
		if (ret == 0)
			break;
	}
	r->frame_size = r->pos - r->frame_off;
	if (check_records(r) == 0 && r->rec_left == 0)
		r->st.frames++; /* nothing in it to return: complete now */
	return 0;

too_big:
	set_end(r, CAPTURE_END_CORRUPT, r->frame_off,
		"corrupt frame at byte %" PRIu64 " (frame %" PRIu64
		"): decompresses to more than %u bytes",
		r->frame_off, r->frame_no, CAPTURE_MAX_FRAME_BYTES);
	return 0;
oom:
	set_end(r, CAPTURE_END_IO, r->frame_off, "out of memory decoding frame at byte %" PRIu64,
		r->frame_off);
	return -ENOMEM;
}

/* Read the next frame: skip a skippable one, decode a zstd one, or set the
 * status at the end of the file. 0 or -ENOMEM. */
static int read_frame(struct capture_reader *r)
{
	uint32_t magic, size;
	ssize_t avail;

	r->frame_off = r->pos;
	r->frame_no0 = r->frame_no;
	avail = peek(r, 8);
	if (avail < 0) {
		set_io(r, (int)-avail);
		return 0;
	}
	if (avail == 0) {
		set_end(r, CAPTURE_END_CLEAN, r->pos,
			"complete: %" PRIu64 " frames, %" PRIu64 " records, ends at byte %" PRIu64
			"%s",
			r->st.frames, r->st.records, r->pos,
			r->st.has_index ? " with a time index" : " without a time index");
		return 0;
	}
	if (avail < 4) {
		/* say which kind of frame the partial magic begins */
		uint8_t skip[4];

		capture_put_u32(skip, CAPTURE_SKIPPABLE_HEADER);
		if ((r->in[r->in_pos] & 0xf0) == 0x50 &&
		    !memcmp(r->in + r->in_pos + 1, skip + 1, (size_t)avail - 1)) {
			set_truncated(r, true);
			return 0;
		}
		r->frame_no++;
		set_truncated(r, false);
		return 0;
	}
	magic = capture_get_u32(r->in + r->in_pos);
	if ((magic & CAPTURE_SKIPPABLE_MASK) == CAPTURE_SKIPPABLE_HEADER) {
		if (avail < 8) {
			set_truncated(r, true);
			return 0;
		}
		size = capture_get_u32(r->in + r->in_pos + 4);
		if (r->pos + 8 + size > current_size(r)) {
			set_truncated(r, true);
			return 0;
		}
		if ((size_t)avail >= 8 + (size_t)size)
			consume(r, 8 + (size_t)size);
		else
			reposition(r, r->pos + 8 + size);
		return 0;
	}
	r->frame_no++;
	if (magic != CAPTURE_ZSTD_MAGIC) {
		set_end(r, CAPTURE_END_CORRUPT, r->frame_off,
			"corrupt frame at byte %" PRIu64 " (frame %" PRIu64
			"): not a zstd frame (magic 0x%08" PRIx32 ")",
			r->frame_off, r->frame_no, magic);
		return 0;
	}
	return read_zstd_frame(r);
}

int capture_reader__next(struct capture_reader *r, Ptop__V1__Record **rec)
{
	if (!r || !rec)
		return -EINVAL;
	*rec = NULL;
	for (;;) {
		if (r->rec_left > 0) {
			const uint8_t *p = r->out + r->rec_off, *end = r->out + r->out_len;
			uint64_t len;
			size_t k = get_varint(p, end, &len); /* checked by check_records */
			Ptop__V1__Record *m;

			r->oom = false;
			m = ptop__v1__record__unpack(&r->alloc, (size_t)len, p + k);
			if (!m && r->oom)
				return -ENOMEM; /* nothing consumed: the caller may retry */
			r->rec_off += k + (size_t)len;
			r->rec_left--;
			r->rec_no++;
			if (r->rec_left == 0)
				r->st.frames++; /* every record of the frame returned */
			if (!m) {
				/* its length was checked: the next record starts where it
				 * ends. Passed over as a lost event, the rest still read. */
				r->st.skipped++;
				continue;
			}
			r->st.records++;
			r->ret_frame_off = r->frame_off;
			r->ret_frame_size = r->frame_size;
			*rec = m;
			return 1;
		}
		if (r->st.end != CAPTURE_END_NONE)
			return 0;
		if (read_frame(r) < 0)
			return -ENOMEM;
	}
}

/* Load the file's time index if the file ends with a valid one. */
static int load_index(struct capture_reader *r, uint64_t size)
{
	uint8_t tail[8], head[8];
	uint64_t count, content, start, prev_end;
	struct capture_index_entry *e = NULL;
	uint8_t *buf = NULL;
	int err = 0;

	if (size == UINT64_MAX || size < r->data_start + 16)
		return 0;
	if (pread(r->fd, tail, 8, (off_t)(size - 8)) != 8)
		return 0;
	if (capture_get_u32(tail + 4) != CAPTURE_INDEX_FOOTER_MAGIC)
		return 0;
	count = capture_get_u32(tail);
	if (count > MAX_INDEX_ENTRIES)
		return 0;
	content = count * CAPTURE_INDEX_ENTRY_BYTES + 8;
	if (content + 8 > size - r->data_start)
		return 0;
	start = size - 8 - content;
	if (pread(r->fd, head, 8, (off_t)start) != 8 ||
	    capture_get_u32(head) != CAPTURE_SKIPPABLE_INDEX ||
	    capture_get_u32(head + 4) != content)
		return 0;
	if (count) {
		buf = malloc(count * CAPTURE_INDEX_ENTRY_BYTES);
		e = calloc(count, sizeof(*e));
		if (!buf || !e) {
			err = -ENOMEM;
			goto cleanup;
		}
		if (pread(r->fd, buf, count * CAPTURE_INDEX_ENTRY_BYTES, (off_t)(start + 8)) !=
		    (ssize_t)(count * CAPTURE_INDEX_ENTRY_BYTES))
			goto cleanup;
	}
	prev_end = r->data_start;
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *p = buf + i * CAPTURE_INDEX_ENTRY_BYTES;

		e[i].offset = capture_get_u64(p);
		e[i].first_ns = capture_get_u64(p + 8);
		e[i].last_ns = capture_get_u64(p + 16);
		e[i].records = capture_get_u32(p + 24);
		e[i].compressed_size = capture_get_u32(p + 28);
		if (e[i].offset < prev_end || e[i].compressed_size == 0 ||
		    e[i].offset + e[i].compressed_size > start || e[i].first_ns > e[i].last_ns)
			goto cleanup; /* not an index this reader can trust */
		prev_end = e[i].offset + e[i].compressed_size;
	}
	/* the writer puts the index right after the last frame, which is a zstd frame */
	if (count) {
		uint8_t m[4];

		if (prev_end != start || pread(r->fd, m, 4, (off_t)e[count - 1].offset) != 4 ||
		    capture_get_u32(m) != CAPTURE_ZSTD_MAGIC)
			goto cleanup;
	}
	r->index = e;
	r->nindex = count;
	r->index_ready = true;
	r->index_frame_off = start;
	r->st.has_index = true;
	e = NULL;
cleanup:
	free(buf);
	free(e);
	return err;
}

void capture_reader__free(struct capture_reader *r)
{
	if (!r)
		return;
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	ZSTD_freeDCtx(r->dctx);
	free(r->in);
	free(r->out);
	free(r->index);
	free(r);
}

struct capture_reader *capture_reader__open_fd(int fd)
{
	struct capture_reader *r;
	uint32_t size, version;
	uint64_t fsize;
	ssize_t avail;
	int err;

	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = fd;
	r->alloc = (ProtobufCAllocator){pb_alloc, pb_free, r};
	r->in = malloc(IN_BUF);
	r->dctx = ZSTD_createDCtx();
	if (!r->in || !r->dctx) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (ZSTD_isError(ZSTD_DCtx_setParameter(r->dctx, ZSTD_d_windowLogMax, WINDOW_LOG_MAX))) {
		err = -EINVAL;
		goto cleanup;
	}
	avail = peek(r, CAPTURE_MAGIC_FRAME_BYTES);
	if (avail < 0) {
		err = (int)avail;
		goto cleanup;
	}
	if (avail < (ssize_t)CAPTURE_MAGIC_FRAME_BYTES ||
	    capture_get_u32(r->in) != CAPTURE_SKIPPABLE_HEADER ||
	    memcmp(r->in + 8, CAPTURE_MAGIC, 8) != 0) {
		err = -EBADMSG;
		goto cleanup;
	}
	size = capture_get_u32(r->in + 4);
	version = capture_get_u32(r->in + 16);
	if (version == 0 || size < 12) {
		err = -EBADMSG;
		goto cleanup;
	}
	if (version > CAPTURE_FORMAT_VERSION) {
		err = -ENOTSUP;
		goto cleanup;
	}
	if (size != 12) { /* version 1 defines exactly these 12 bytes */
		err = -EBADMSG;
		goto cleanup;
	}
	fsize = current_size(r);
	r->data_start = 8 + (uint64_t)size;
	if (r->data_start > fsize) {
		err = -EBADMSG;
		goto cleanup;
	}
	r->st.file_size = fsize == UINT64_MAX ? 0 : fsize;
	reposition(r, r->data_start);
	err = load_index(r, fsize);
	if (err)
		goto cleanup;
	return r;

cleanup:
	r->own_fd = false;
	capture_reader__free(r);
	errno = -err;
	return NULL;
}

struct capture_reader *capture_reader__open(const char *path)
{
	struct capture_reader *r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	r = capture_reader__open_fd(fd);
	if (!r) {
		int err = errno;

		close(fd);
		errno = err;
		return NULL;
	}
	r->own_fd = true;
	return r;
}

int capture_reader__resume(struct capture_reader *r)
{
	if (!r)
		return -EINVAL;
	if (r->st.end != CAPTURE_END_TRUNCATED && r->st.end != CAPTURE_END_CLEAN)
		return -EINVAL;
	/* at_byte is the start of the incomplete frame, or the end of the last whole one */
	reposition(r, r->st.at_byte);
	r->frame_no = r->frame_no0;
	r->rec_left = 0;
	r->st.end = CAPTURE_END_NONE;
	r->st.at_byte = 0;
	r->st.message[0] = '\0';
	return 0;
}

uint64_t capture_reader__frame_offset(const struct capture_reader *r)
{
	return r ? r->ret_frame_off : 0;
}

uint64_t capture_reader__frame_size(const struct capture_reader *r)
{
	return r ? r->ret_frame_size : 0;
}

int capture_reader__fd(const struct capture_reader *r)
{
	return r ? r->fd : -1;
}

const struct capture_status *capture_reader__status(const struct capture_reader *r)
{
	return r ? &r->st : NULL;
}

/* Rebuild the index by reading the whole file once with a second reader. */
static int rebuild_index(struct capture_reader *r)
{
	struct capture_reader *s;
	struct capture_index_entry *e = NULL, *cur = NULL;
	size_t n = 0, cap = 0;
	Ptop__V1__Record *rec;
	int err = 0, k;

	s = capture_reader__open_fd(r->fd);
	if (!s)
		return -errno;
	while ((k = capture_reader__next(s, &rec)) == 1) {
		uint64_t ns;

		if (!cur || cur->offset != s->ret_frame_off) {
			if (n == cap) {
				size_t c = cap ? cap * 2 : 64;
				void *p = c > MAX_INDEX_ENTRIES ? NULL : realloc(e, c * sizeof(*e));

				if (!p) {
					ptop__v1__record__free_unpacked(rec, NULL);
					err = -ENOMEM;
					goto cleanup;
				}
				e = p;
				cap = c;
			}
			cur = &e[n++];
			*cur = (struct capture_index_entry){
			    .offset = s->ret_frame_off,
			    .compressed_size = (uint32_t)s->ret_frame_size,
			};
		}
		cur->records++;
		if (capture_record_time(rec, &ns)) {
			if (!(cur->first_ns || cur->last_ns) || ns < cur->first_ns)
				cur->first_ns = ns;
			if (ns > cur->last_ns)
				cur->last_ns = ns;
		}
		ptop__v1__record__free_unpacked(rec, NULL);
	}
	if (k < 0) {
		err = k;
		goto cleanup;
	}
	free(r->index);
	r->index = e;
	r->nindex = n;
	r->index_ready = true;
	e = NULL;
cleanup:
	free(e);
	capture_reader__free(s);
	return err;
}

const struct capture_index_entry *capture_reader__index(struct capture_reader *r, size_t *n)
{
	if (n)
		*n = 0;
	if (!r)
		return NULL;
	if (!r->index_ready && rebuild_index(r) < 0)
		return NULL;
	if (n)
		*n = r->nindex;
	return r->index;
}

int capture_reader__seek_time(struct capture_reader *r, uint64_t ns)
{
	const struct capture_index_entry *idx;
	uint64_t target;
	size_t n, i;

	if (!r)
		return -EINVAL;
	if (!r->index_ready) {
		int err = rebuild_index(r);

		if (err)
			return err;
	}
	idx = r->index;
	n = r->nindex;
	for (i = 0; i < n; i++) {
		bool timed = idx[i].first_ns || idx[i].last_ns;

		if (timed && idx[i].last_ns >= ns)
			break;
	}
	if (i < n)
		target = idx[i].offset;
	else if (r->st.has_index)
		target = r->index_frame_off;
	else if (n)
		target = idx[n - 1].offset + idx[n - 1].compressed_size;
	else
		target = r->data_start;
	reposition(r, target);
	r->rec_left = 0;
	r->frame_no = i;
	r->st.end = CAPTURE_END_NONE;
	r->st.at_byte = 0;
	r->st.message[0] = '\0';
	return 0;
}
