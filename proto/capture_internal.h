/* capture_internal.h — helpers shared by the codec's own files (writer, reader,
 * salvage) and its tests; not part of the public contract in capture.h.
 */
#ifndef PTOP_CAPTURE_INTERNAL_H
#define PTOP_CAPTURE_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "proto/capture.h"

#define CAPTURE_ZSTD_MAGIC 0xFD2FB528u
#define CAPTURE_SKIPPABLE_MASK 0xFFFFFFF0u /* 0x184D2A50..0x184D2A5F */
#define CAPTURE_MAGIC_FRAME_BYTES 20u	   /* magic, size, "PTOPCAP\0", version */
#define CAPTURE_INDEX_ENTRY_BYTES 32u
#define CAPTURE_VARINT_MAX 10u

static inline void capture_put_u32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline void capture_put_u64(uint8_t *p, uint64_t v)
{
	capture_put_u32(p, (uint32_t)v);
	capture_put_u32(p + 4, (uint32_t)(v >> 32));
}

static inline uint32_t capture_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t capture_get_u64(const uint8_t *p)
{
	return (uint64_t)capture_get_u32(p) | (uint64_t)capture_get_u32(p + 4) << 32;
}

/* Time of a record for the index: Event, DropNotice and Mapping carry one.
 * Returns true and stores it in *NS when REC has a time. */
static inline bool capture_record_time(const Ptop__V1__Record *rec, uint64_t *ns)
{
	switch (rec->kind_case) {
	case PTOP__V1__RECORD__KIND_EVENT:
		if (!rec->event)
			return false;
		*ns = rec->event->time_ns;
		return true;
	case PTOP__V1__RECORD__KIND_DROP:
		if (!rec->drop)
			return false;
		*ns = rec->drop->time_ns;
		return true;
	case PTOP__V1__RECORD__KIND_MAPPING:
		if (!rec->mapping)
			return false;
		*ns = rec->mapping->time_ns;
		return true;
	default:
		return false;
	}
}

/* Test seam: when set, the writer calls this instead of write(2). It must
 * behave like write(2) (return bytes written, or -1 with errno set). */
extern ssize_t (*capture_write_hook)(int fd, const void *buf, size_t n);

/* Append an already compressed zstd frame (BYTES, LEN) as is, with its index
 * facts (record count, earliest and latest record time; HAS_TIME false when it
 * holds none). The open frame is flushed first. Used by salvage. 0 or -errno. */
int capture_writer__append_frame(struct capture_writer *w, const void *bytes, size_t len,
				 uint32_t records, bool has_time, uint64_t first_ns,
				 uint64_t last_ns);

/* Compressed size in bytes of the frame the last returned record came from. */
uint64_t capture_reader__frame_size(const struct capture_reader *r);

/* The reader's file descriptor (for salvage to copy frames with pread). */
int capture_reader__fd(const struct capture_reader *r);

#endif
