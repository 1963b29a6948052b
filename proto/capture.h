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

/* Create PATH (mode 0600) and write the magic frame. OPTS may be NULL for
 * defaults. PATH is never followed if it is a symlink, and only a regular file
 * is written: an existing PATH is refused (EEXIST) unless opts->force, and with
 * force an existing regular file is truncated in place and set to 0600.
 * Returns NULL and sets errno on failure: EEXIST; ELOOP (PATH is a symlink);
 * EISDIR; EINVAL (PATH is a device, fifo or socket: its mode is not touched);
 * errors of open(2) and write(2). A file this call created is removed then;
 * an existing file it was given with force is never removed. */
struct capture_writer *capture_writer__create(const char *path,
					      const struct capture_writer_opts *opts);

/* Like capture_writer__create on FD, an open file, pipe or socket, which the
 * writer owns from now on (closed by capture_writer__close/abort, and on
 * failure here). The writer never seeks: it counts the bytes it wrote, so a
 * pipe carries the whole format, time index included (a write error cannot
 * cut a pipe back to the last complete frame: the reader stops at the cut). */
struct capture_writer *capture_writer__create_fd(int fd, const struct capture_writer_opts *opts);

/* Append one record to the open frame. The frame is written out when it reaches
 * the size bound (a record that does not fit closes the frame first; a record
 * never spans two frames). Returns 0 or -errno (-ENOSPC, -EIO...): after a
 * write error the writer accepts nothing more, the file is cut back to the end
 * of its last complete frame, and all frames written before stay readable.
 * -EMSGSIZE (a record over CAPTURE_MAX_FRAME_BYTES) and -ENOMEM leave the
 * writer usable. Not thread-safe: one thread per writer. */
int capture_writer__append(struct capture_writer *w, const Ptop__V1__Record *rec);

/* Close the open frame if it is older than the flush interval at monotonic
 * time NOW_NS (CLOCK_MONOTONIC). A frame's age counts from the append of its
 * first record. Call it from the run loop at least once per interval.
 * Returns 0 or -errno as capture_writer__append. */
int capture_writer__tick(struct capture_writer *w, uint64_t now_ns);

/* CLOCK_MONOTONIC time of the first record of the open frame (when the
 * records not yet written began to wait); 0 when no record waits (or after a
 * write error). Everything appended before it is written out. */
uint64_t capture_writer__pending_since(const struct capture_writer *w);

/* Write the open frame out now, whatever its age. 0 or -errno. */
int capture_writer__flush(struct capture_writer *w);

/* Flush, append the time index frame, fsync and close. The writer is freed
 * whatever the result. After a write error it returns that error and writes
 * no index. Returns 0 or -errno. */
int capture_writer__close(struct capture_writer *w);

/* Close the file without an index (after an error); frees W. NULL is fine.
 * Records still in the open frame are written out first unless the writer
 * already had a write error. */
void capture_writer__abort(struct capture_writer *w);

/* Records appended so far; bytes written to the file so far (complete
 * frames, not the open one); the first write error, 0 if none. */
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
	uint64_t frames;         /* zstd frames read whole, every record returned */
	uint64_t records;        /* records returned */
	uint64_t skipped;        /* records in whole, checked frames that did not unpack:
				  * passed over, as a lost event (see capture_reader__next) */
	bool has_index;          /* the file ends with a valid time index */
	char message[256];       /* "truncated at byte 1234 (inside frame 7)" */
};

struct capture_index_entry {
	uint64_t offset;         /* byte offset of the zstd frame */
	uint64_t first_ns;       /* earliest and latest time of the frame's Events, */
	uint64_t last_ns;        /* DropNotices and Mappings; both 0 if none */
	uint32_t records;
	uint32_t compressed_size;
};

struct capture_reader;

/* Open PATH and check the magic frame. Returns NULL and sets errno: ENOENT etc.
 * from open(2), EBADMSG when the magic frame is wrong or incomplete (a file
 * shorter than its 20 bytes included), ENOTSUP when the format version is newer
 * than this build reads. When the file ends with a valid time index (footer
 * magic, count, sizes, index frame header, increasing in-bounds entries, and
 * the last entry a zstd frame ending where the index frame begins) status->has_index is true. Memory stays bounded whatever the file
 * size: a 128 KiB read buffer, one decompressed frame (at most
 * CAPTURE_MAX_FRAME_BYTES), and the index (32 bytes per frame). */
struct capture_reader *capture_reader__open(const char *path);

/* Like capture_reader__open on an open, readable, seekable FD (read with
 * pread(2), so its file offset is not used). The reader does not own FD: the
 * caller closes it after capture_reader__free. */
struct capture_reader *capture_reader__open_fd(int fd);

/* Next record, in file order. Returns 1 and stores a record in *REC that the
 * caller frees with ptop__v1__record__free_unpacked(rec, NULL); 0 at the end
 * (clean, truncated or corrupt: see capture_reader__status); -errno on a
 * memory error. Never crashes on any input.
 *
 * Records of a frame are returned only after the whole frame decompressed and
 * its zstd checksum passed, and every record length in it checked, so a
 * truncated or damaged frame yields no record. A record that then fails to
 * unpack (its length checked, its bytes not a Record: a damaged payload in an
 * otherwise sound frame) is passed over and counted in status->skipped; the records
 * after it are returned as usual.
 * Skippable frames are skipped. Status messages:
 *   "truncated at byte N (inside frame K); X complete frames read"
 *   "corrupt frame at byte N (frame K): what was wrong"
 * where N is the start of the frame and K counts zstd frames from 1. */
int capture_reader__next(struct capture_reader *r, Ptop__V1__Record **rec);

/* For a file still being written: after capture_reader__next returned 0 with the
 * end TRUNCATED or CLEAN, read on from where reading stopped (the start of the
 * incomplete frame, or the end of the last whole one) as though the file had not
 * ended; the next capture_reader__next sees what was appended since. Nothing
 * returned is returned again. 0, or -EINVAL after another end. */
int capture_reader__resume(struct capture_reader *r);

/* Byte offset of the frame the last returned record came from. */
uint64_t capture_reader__frame_offset(const struct capture_reader *r);

/* Position the reader at the first frame that may hold events at or after
 * monotonic time NS, using the index (or one scan to rebuild it when the file
 * has none). Frames whose index entry holds no time (0/0) are passed over.
 * When no frame qualifies, the next capture_reader__next reads on from the end
 * of the last indexed frame. Resets the end status. Returns 0 or -errno. */
int capture_reader__seek_time(struct capture_reader *r, uint64_t ns);

/* The time index: from the file's index frame, or rebuilt by one scan when the
 * file has none (the scan stops where reading would: a truncated file's index
 * lists its complete frames). *N gets the entry count. The array belongs to
 * the reader. NULL with *N = 0 when empty or on error (errno set then). */
const struct capture_index_entry *capture_reader__index(struct capture_reader *r, size_t *n);

const struct capture_status *capture_reader__status(const struct capture_reader *r);

void capture_reader__free(struct capture_reader *r);

/* ------------------------------------------------------------------ collector payloads */

/* Make EV's payload the collector payload CP (Event.collector_payload): MSG, any
 * message, packed into CP->data (malloc'd), its type its descriptor's full name, for
 * collector COLLECTOR (its name in collectors/collectors.def; the string is not copied).
 * Release CP with capture_payload__release once EV is appended. 0 or -ENOMEM. */
int capture_payload__pack(Ptop__V1__Event *ev, Ptop__V1__CollectorPayload *cp,
			  const char *collector, const ProtobufCMessage *msg);

/* Free CP->data; CP can be packed again. */
void capture_payload__release(Ptop__V1__CollectorPayload *cp);

/* The message of type D that EV carries for COLLECTOR, unpacked; the caller frees it
 * with protobuf_c_message_free_unpacked(m, NULL). NULL with errno: ENOENT when EV holds
 * no collector payload or another collector's, EPROTO when its type is not D's
 * (an empty type is taken as D's), EBADMSG when data does not unpack as D (or memory
 * ran out: protobuf-c does not tell the two apart). */
ProtobufCMessage *capture_payload__unpack(const Ptop__V1__Event *ev, const char *collector,
					  const ProtobufCMessageDescriptor *d);

/* ------------------------------------------------------------------ salvage */

/* Write to OUT (0600, O_EXCL) a repaired copy of IN: every complete frame of IN
 * copied as is, then a trailer (reason SALVAGED, salvaged=true, totals
 * counted) unless IN already had one, and a fresh time index. STATUS, if not
 * NULL, gets how reading IN ended. Returns 0 or -errno: then nothing is left at
 * OUT, and STATUS->message names the file that failed and why ("IN is not a ptop
 * capture (...)", "cannot create OUT: Permission denied", "cannot write OUT: ...";
 * -EBADMSG when IN has no PTOPCAP magic frame, -EEXIST when OUT exists). */
int capture__salvage(const char *in, const char *out, struct capture_status *status);

#endif
