/* capture.h — the one codec for .ptop capture files: writer, reader, salvage.
 *
 * File layout (man/ptop-capture.5):
 *   [skippable frame 0x184D2A50: "PTOPCAP\0" + u32le format version]
 *   [zstd frame]*          each decompresses to whole varint-delimited Records
 *   [skippable frame 0x184D2A5E: time index]   only at a clean end
 *
 * Every zstd frame decodes alone, so a file cut at any byte still yields all of
 * its complete frames. Both ptop-record and ptop-analyze use this code; there is
 * no other reader of the format.
 */
#ifndef PTOP_CAPTURE_H
#define PTOP_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/ptop.pb-c.h"

#define CAPTURE_FORMAT_VERSION 1
#define CAPTURE_MAGIC "PTOPCAP"            /* 7 chars + NUL = 8 bytes */
#define CAPTURE_SKIPPABLE_HEADER 0x184D2A50u /* magic frame */
#define CAPTURE_SKIPPABLE_INDEX 0x184D2A5Eu  /* time index frame */
#define CAPTURE_INDEX_FOOTER_MAGIC 0x58495450u /* "PTIX" little-endian */
/* The reader refuses a frame that decompresses to more than this: the writer
 * never writes frames near it, so a larger one is corrupt. */
#define CAPTURE_MAX_FRAME_BYTES (64u << 20)

/* ------------------------------------------------------------------ writer */

struct capture_writer_opts {
	bool force;                  /* replace an existing file (else EEXIST) */
	uint64_t flush_interval_ns;  /* close a frame at least this often; 0 = 1 s */
	size_t frame_bytes;          /* close a frame at this uncompressed size; 0 = 1 MiB */
	int level;                   /* zstd level; 0 = 3 */
};

struct capture_writer;

/* Create PATH (mode 0600, O_EXCL unless opts->force) and write the magic frame.
 * OPTS may be NULL for defaults. Returns NULL and sets errno on failure; nothing
 * is left on disk then. */
struct capture_writer *capture_writer__create(const char *path,
					      const struct capture_writer_opts *opts);

/* Append one record to the open frame. The frame is written out when it reaches
 * the size bound. Returns 0 or -errno (-ENOSPC, -EIO...): after an error the
 * writer accepts nothing more, and all frames written before stay readable. */
int capture_writer__append(struct capture_writer *w, const Ptop__V1__Record *rec);

/* Close the open frame if it is older than the flush interval at monotonic
 * time NOW_NS. Call it from the run loop at least once per interval. */
int capture_writer__tick(struct capture_writer *w, uint64_t now_ns);

/* Write the open frame out now, whatever its age. 0 or -errno. */
int capture_writer__flush(struct capture_writer *w);

/* Flush, append the time index frame, fsync and close. The writer is freed
 * whatever the result. Returns 0 or -errno. */
int capture_writer__close(struct capture_writer *w);

/* Close the file without an index (after an error); frees W. NULL is fine. */
void capture_writer__abort(struct capture_writer *w);

/* Records and bytes so far; the first error, 0 if none. */
uint64_t capture_writer__records(const struct capture_writer *w);
uint64_t capture_writer__bytes(const struct capture_writer *w);
int capture_writer__error(const struct capture_writer *w);

/* ------------------------------------------------------------------ reader */

enum capture_end {
	CAPTURE_END_NONE = 0,   /* still reading */
	CAPTURE_END_CLEAN,      /* reached the end of a well-formed file */
	CAPTURE_END_TRUNCATED,  /* the file ends inside a frame (cut short) */
	CAPTURE_END_CORRUPT,    /* a frame or record does not decode */
	CAPTURE_END_IO,         /* read(2) failed */
};

struct capture_status {
	enum capture_end end;
	uint64_t at_byte;        /* where reading stopped (start of the bad frame) */
	uint64_t file_size;
	uint64_t frames;         /* complete zstd frames read */
	uint64_t records;        /* records returned */
	bool has_index;          /* the file ends with a valid time index */
	char message[256];       /* "truncated at byte 1234 (inside frame 7)" */
};

struct capture_index_entry {
	uint64_t offset;         /* byte offset of the zstd frame */
	uint64_t first_ns;       /* first and last Event.time_ns in the frame; */
	uint64_t last_ns;        /* both 0 if the frame holds no event */
	uint32_t records;
	uint32_t compressed_size;
};

struct capture_reader;

/* Open PATH and check the magic frame. Returns NULL and sets errno: ENOENT etc.
 * from open(2), EBADMSG when the magic is wrong, ENOTSUP when the format
 * version is newer than this build reads. */
struct capture_reader *capture_reader__open(const char *path);

/* Next record, in file order. Returns 1 and stores a record in *REC that the
 * caller frees with ptop__v1__record__free_unpacked(rec, NULL); 0 at the end
 * (clean, truncated or corrupt: see capture_reader__status); -errno on a
 * memory error. Never crashes on any input. */
int capture_reader__next(struct capture_reader *r, Ptop__V1__Record **rec);

/* Byte offset of the frame the last returned record came from. */
uint64_t capture_reader__frame_offset(const struct capture_reader *r);

/* Position the reader at the first frame that may hold events at or after
 * monotonic time NS, using the index (or one scan to rebuild it when the file
 * has none). Returns 0 or -errno. */
int capture_reader__seek_time(struct capture_reader *r, uint64_t ns);

/* The time index: from the file's index frame, or rebuilt by one scan when the
 * file has none. *N gets the entry count. The array belongs to the reader. */
const struct capture_index_entry *capture_reader__index(struct capture_reader *r, size_t *n);

const struct capture_status *capture_reader__status(const struct capture_reader *r);

void capture_reader__free(struct capture_reader *r);

/* ------------------------------------------------------------------ salvage */

/* Write to OUT (0600, O_EXCL) a repaired copy of IN: every complete frame of IN
 * copied as is, then a trailer (reason SALVAGED, salvaged=true, totals
 * counted) unless IN already had one, and a fresh time index. STATUS, if not
 * NULL, gets how reading IN ended. Returns 0 or -errno. */
int capture__salvage(const char *in, const char *out, struct capture_status *status);

#endif
