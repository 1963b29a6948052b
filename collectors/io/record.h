/* record.h — the pure parts of the io collector (collectors/io/record.c), public so
 * collectors/io/test_io.c can check them: the parsers of /proc/PID/io and of
 * /proc/PID/stat's field 42.
 */
#ifndef PTOP_IO_RECORD_H
#define PTOP_IO_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef IO_NAME
#define IO_NAME 64
#endif

/* /proc/PID/io's counters. */
struct proc_io {
	uint64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes, cancelled_write_bytes;
};

/* Parse the text of /proc/PID/io into IO. 0, or -EINVAL when a counter is missing or
 * malformed (a kernel without CONFIG_TASK_IO_ACCOUNTING has no such file). */
int io__parse(const char *text, struct proc_io *io);

/* Field 42 of the text of /proc/PID/stat (delayacct_blkio_ticks) into *TICKS. 0, or
 * -EINVAL (comm may hold spaces and ')': fields are counted after the last ')'). */
int io__parse_blkio_ticks(const char *text, uint64_t *ticks);

/* The name of a file type from i_mode's S_IFMT bits: file, dir, pipe, socket, chr, blk,
 * link, unknown. */
const char *io__file_type(unsigned mode);

/* The path of an io_seen record into OUT (LEN bytes): NAME[DEPTH-1] .. NAME[0] joined
 * with '/' after a leading '/', "..." before it when TRUNCATED, each NAME[i] whose bit i
 * of CUT is set followed by IO_CUT_MARK; "/" for depth 0.
 * 0, -EINVAL (DEPTH too large), -ENAMETOOLONG. */
int io__seen_path(const char (*name)[IO_NAME], unsigned depth, bool truncated, uint32_t cut,
		  char *out,
		  size_t len);

/* The path of an io_seen_long record into OUT (LEN bytes): the NUL-terminated names
 * packed in BUF[0, USED) (the file's own first) joined from the last with '/' after a
 * leading '/', "..." before it when TRUNCATED; "/" for none.
 * 0, -EINVAL (BUF does not end a name at USED), -ENAMETOOLONG. */
int io__seen_long_path(const char *buf, size_t used, bool truncated, char *out, size_t len);

/* PATH after a rename of OLD to NEW: when PATH is OLD or below it, the new path into OUT
 * and 1; 0 when the rename does not touch PATH; -ENAMETOOLONG. */
int io__rename_path(const char *path, const char *old, const char *new, char *out, size_t len);

#endif
