/* writer.c — writes .ptop capture files: the magic frame, zstd frames of
 * varint-delimited Records closed by size and by age, and the time index.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include "proto/capture.h"
#include "proto/capture_internal.h"

#define DEFAULT_FLUSH_NS 1000000000ull
#define DEFAULT_FRAME_BYTES (1u << 20)
#define DEFAULT_LEVEL 3

ssize_t (*capture_write_hook)(int fd, const void *buf, size_t n);

struct capture_writer {
	int fd;
	dev_t dev;  /* the file this writer created, */
	ino_t ino;  /* for its removal after a failed create */
	uint64_t flush_ns;  /* close a frame at least this often */
	size_t frame_bytes; /* close a frame at this uncompressed size */
	ZSTD_CCtx *cctx;
	uint8_t *buf; /* the open frame, uncompressed */
	size_t len, cap;
	uint8_t *zbuf; /* compressed frame */
	size_t zcap;
	uint32_t frame_records; /* records in the open frame */
	bool frame_has_time;
	uint64_t frame_first_ns, frame_last_ns; /* earliest and latest record time */
	uint64_t frame_born_ns; /* CLOCK_MONOTONIC when the open frame got its first record */
	uint64_t good_end;	/* file offset after the last complete frame */
	uint64_t records;	/* records appended (written or in the open frame) */
	struct capture_index_entry *index;
	size_t nindex, index_cap;
	int err; /* first write error, 0 if none */
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Write all of BUF at the file position, retrying short writes and EINTR. */
static int write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n > 0) {
		ssize_t k = capture_write_hook ? capture_write_hook(fd, p, n) : write(fd, p, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Write BUF as the next bytes of the file. On failure the file is cut back to
 * the end of the last complete frame and the writer refuses further work. */
static int emit(struct capture_writer *w, const void *buf, size_t n)
{
	int err = write_all(w->fd, buf, n);

	if (err) {
		w->err = err;
		/* keep every complete frame readable: no partial frame at the end */
		if (ftruncate(w->fd, (off_t)w->good_end) == 0)
			lseek(w->fd, (off_t)w->good_end, SEEK_SET);
		return err;
	}
	w->good_end += n;
	return 0;
}

static int index_add(struct capture_writer *w, uint64_t offset, uint32_t size, uint32_t records,
		     bool has_time, uint64_t first_ns, uint64_t last_ns)
{
	struct capture_index_entry *e;

	if (w->nindex == w->index_cap) {
		size_t cap = w->index_cap ? w->index_cap * 2 : 64;
		void *p = realloc(w->index, cap * sizeof(*w->index));

		if (!p)
			return -ENOMEM;
		w->index = p;
		w->index_cap = cap;
	}
	e = &w->index[w->nindex++];
	e->offset = offset;
	e->compressed_size = size;
	e->records = records;
	e->first_ns = has_time ? first_ns : 0;
	e->last_ns = has_time ? last_ns : 0;
	return 0;
}

static void frame_reset(struct capture_writer *w)
{
	w->len = 0;
	w->frame_records = 0;
	w->frame_has_time = false;
	w->frame_first_ns = w->frame_last_ns = 0;
}

/* Compress the open frame and write it out. */
static int write_frame(struct capture_writer *w)
{
	uint64_t offset = w->good_end;
	size_t z;
	int err;

	if (w->err)
		return w->err;
	if (w->frame_records == 0)
		return 0;
	z = ZSTD_compress2(w->cctx, w->zbuf, w->zcap, w->buf, w->len);
	if (ZSTD_isError(z))
		return -ENOMEM; /* the only failure with a bound-sized output */
	if (z > UINT32_MAX)
		return -EFBIG;
	/* reserve the index slot first, so a full memory never loses a written frame */
	err = index_add(w, offset, (uint32_t)z, w->frame_records, w->frame_has_time,
			w->frame_first_ns, w->frame_last_ns);
	if (err)
		return err;
	err = emit(w, w->zbuf, z);
	if (err) {
		w->nindex--;
		return err;
	}
	frame_reset(w);
	return 0;
}

static int ensure_cap(uint8_t **buf, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 4096;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	p = realloc(*buf, c);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = c;
	return 0;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void capture_writer__abort(struct capture_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0) {
		if (!w->err)
			write_frame(w);
		close(w->fd);
	}
	ZSTD_freeCCtx(w->cctx);
	free(w->buf);
	free(w->zbuf);
	free(w->index);
	free(w);
}

/* The writer without its file: buffers, zstd context, settings from OPTS. */
static struct capture_writer *writer_alloc(const struct capture_writer_opts *opts)
{
	struct capture_writer *w;
	int level = DEFAULT_LEVEL;
	size_t r;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fd = -1;
	w->flush_ns = opts && opts->flush_interval_ns ? opts->flush_interval_ns : DEFAULT_FLUSH_NS;
	w->frame_bytes = opts && opts->frame_bytes ? opts->frame_bytes : DEFAULT_FRAME_BYTES;
	if (w->frame_bytes > CAPTURE_MAX_FRAME_BYTES / 2)
		w->frame_bytes = CAPTURE_MAX_FRAME_BYTES / 2;
	if (opts && opts->level)
		level = opts->level;
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx) {
		err = -ENOMEM;
		goto cleanup;
	}
	r = ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1);
	if (ZSTD_isError(r)) {
		err = -EINVAL;
		goto cleanup;
	}
	if (ensure_cap(&w->buf, &w->cap, w->frame_bytes + 64) ||
	    ensure_cap(&w->zbuf, &w->zcap, ZSTD_compressBound(w->cap))) {
		err = -ENOMEM;
		goto cleanup;
	}
	return w;

cleanup:
	capture_writer__abort(w);
	errno = -err;
	return NULL;
}

static int write_magic(struct capture_writer *w)
{
	uint8_t magic[CAPTURE_MAGIC_FRAME_BYTES];

	capture_put_u32(magic, CAPTURE_SKIPPABLE_HEADER);
	capture_put_u32(magic + 4, 12);
	memcpy(magic + 8, CAPTURE_MAGIC, 8);
	capture_put_u32(magic + 16, CAPTURE_FORMAT_VERSION);
	return emit(w, magic, sizeof(magic));
}

/* Open PATH for a new capture without following a symlink or opening anything
 * but a regular file (O_NONBLOCK: a fifo must not block the open, a device is
 * refused before its mode is touched). *CREATED tells whether this call made
 * the file. Returns the descriptor or -errno. */
static int open_regular(const char *path, bool force, bool *created)
{
	const int base = O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
	struct stat st;
	int fd, err;

	*created = false;
	fd = open(path, base | O_CREAT | O_EXCL, 0600);
	if (fd >= 0) {
		*created = true;
	} else {
		if (errno != EEXIST || !force)
			return -errno;
		/* --force: the existing file, if it is a regular one, truncated in place */
		fd = open(path, base);
		if (fd < 0)
			return errno == ENXIO ? -EINVAL : -errno; /* ENXIO: a fifo, no reader */
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto cleanup;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto cleanup;
	}
	if (fcntl(fd, F_SETFL, O_WRONLY) < 0 || (!*created && ftruncate(fd, 0) < 0)) {
		err = -errno;
		goto cleanup;
	}
	return fd;

cleanup:
	close(fd);
	return err;
}

struct capture_writer *capture_writer__create(const char *path,
					      const struct capture_writer_opts *opts)
{
	struct capture_writer *w;
	bool created = false;
	struct stat st;
	int err;

	w = writer_alloc(opts);
	if (!w)
		return NULL;
	err = open_regular(path, opts && opts->force, &created);
	if (err < 0)
		goto cleanup;
	w->fd = err;
	if (created && fstat(w->fd, &st) == 0) {
		w->dev = st.st_dev;
		w->ino = st.st_ino;
	}
	/* with --force an existing file keeps its mode: captures are 0600 always */
	if (fchmod(w->fd, 0600) < 0) {
		err = -errno;
		goto cleanup;
	}
	err = write_magic(w);
	if (err)
		goto cleanup;
	return w;

cleanup:
	/* only the file this call made is removed; a replaced one stays (empty) */
	if (created && lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == w->dev &&
	    st.st_ino == w->ino)
		unlink(path);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	w->err = err;
	capture_writer__abort(w);
	errno = -err;
	return NULL;
}

struct capture_writer *capture_writer__create_fd(int fd, const struct capture_writer_opts *opts)
{
	struct capture_writer *w;
	int err;

	w = writer_alloc(opts);
	if (!w) {
		err = -errno;
		goto cleanup;
	}
	w->fd = fd;
	fd = -1;
	err = write_magic(w);
	if (err)
		goto cleanup;
	return w;

cleanup:
	if (fd >= 0)
		close(fd);
	if (w) {
		close(w->fd);
		w->fd = -1;
		w->err = err;
		capture_writer__abort(w);
	}
	errno = -err;
	return NULL;
}

int capture_writer__append(struct capture_writer *w, const Ptop__V1__Record *rec)
{
	size_t size, need;
	uint64_t ns;
	int err;

	if (!w || !rec)
		return -EINVAL;
	if (w->err)
		return w->err;
	size = ptop__v1__record__get_packed_size(rec);
	need = varint_len(size) + size;
	if (need > CAPTURE_MAX_FRAME_BYTES)
		return -EMSGSIZE;
	if (w->frame_records > 0 && w->len + need > w->frame_bytes) {
		err = write_frame(w);
		if (err)
			return err;
	}
	if (ensure_cap(&w->buf, &w->cap, w->len + need))
		return -ENOMEM;
	if (ZSTD_compressBound(w->cap) > w->zcap &&
	    ensure_cap(&w->zbuf, &w->zcap, ZSTD_compressBound(w->cap)))
		return -ENOMEM;
	if (w->frame_records == 0)
		w->frame_born_ns = monotonic_ns();
	w->len += put_varint(w->buf + w->len, size);
	w->len += ptop__v1__record__pack(rec, w->buf + w->len);
	w->frame_records++;
	w->records++;
	if (capture_record_time(rec, &ns)) {
		if (!w->frame_has_time || ns < w->frame_first_ns)
			w->frame_first_ns = ns;
		if (!w->frame_has_time || ns > w->frame_last_ns)
			w->frame_last_ns = ns;
		w->frame_has_time = true;
	}
	if (w->len >= w->frame_bytes)
		return write_frame(w);
	return 0;
}

int capture_writer__tick(struct capture_writer *w, uint64_t now_ns)
{
	if (!w)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (w->frame_records == 0 || now_ns < w->frame_born_ns ||
	    now_ns - w->frame_born_ns < w->flush_ns)
		return 0;
	return write_frame(w);
}

uint64_t capture_writer__pending_since(const struct capture_writer *w)
{
	return w && !w->err && w->frame_records ? w->frame_born_ns : 0;
}

int capture_writer__flush(struct capture_writer *w)
{
	if (!w)
		return -EINVAL;
	return write_frame(w);
}

int capture_writer__append_frame(struct capture_writer *w, const void *bytes, size_t len,
				 uint32_t records, bool has_time, uint64_t first_ns,
				 uint64_t last_ns)
{
	uint64_t offset;
	int err;

	if (!w || !bytes || len > UINT32_MAX)
		return -EINVAL;
	err = write_frame(w);
	if (err)
		return err;
	offset = w->good_end;
	err = index_add(w, offset, (uint32_t)len, records, has_time, first_ns, last_ns);
	if (err)
		return err;
	err = emit(w, bytes, len);
	if (err) {
		w->nindex--;
		return err;
	}
	w->records += records;
	return 0;
}

/* The index frame: skippable header, 32-byte entries, entry count, footer magic. */
static int write_index(struct capture_writer *w)
{
	size_t content = w->nindex * CAPTURE_INDEX_ENTRY_BYTES + 8;
	uint8_t *buf, *p;
	int err;

	if (content > UINT32_MAX || w->nindex > UINT32_MAX)
		return -EFBIG;
	buf = malloc(8 + content);
	if (!buf)
		return -ENOMEM;
	capture_put_u32(buf, CAPTURE_SKIPPABLE_INDEX);
	capture_put_u32(buf + 4, (uint32_t)content);
	p = buf + 8;
	for (size_t i = 0; i < w->nindex; i++, p += CAPTURE_INDEX_ENTRY_BYTES) {
		const struct capture_index_entry *e = &w->index[i];

		capture_put_u64(p, e->offset);
		capture_put_u64(p + 8, e->first_ns);
		capture_put_u64(p + 16, e->last_ns);
		capture_put_u32(p + 24, e->records);
		capture_put_u32(p + 28, e->compressed_size);
	}
	capture_put_u32(p, (uint32_t)w->nindex);
	capture_put_u32(p + 4, CAPTURE_INDEX_FOOTER_MAGIC);
	err = emit(w, buf, 8 + content);
	free(buf);
	return err;
}

int capture_writer__close(struct capture_writer *w)
{
	int err;

	if (!w)
		return -EINVAL;
	err = w->err;
	if (err)
		goto cleanup;
	err = write_frame(w);
	if (!err)
		err = write_index(w);
	if (!err && fsync(w->fd) < 0 && errno != EINVAL && errno != EROFS)
		err = -errno;
	if (!err && close(w->fd) < 0)
		err = -errno;
	else if (err)
		close(w->fd);
	w->fd = -1;
cleanup:
	if (w->fd >= 0) {
		close(w->fd);
		w->fd = -1;
	}
	capture_writer__abort(w);
	return err;
}

uint64_t capture_writer__records(const struct capture_writer *w)
{
	return w ? w->records : 0;
}

uint64_t capture_writer__bytes(const struct capture_writer *w)
{
	return w ? w->good_end : 0;
}

int capture_writer__error(const struct capture_writer *w)
{
	return w ? w->err : -EINVAL;
}
