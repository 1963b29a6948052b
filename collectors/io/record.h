/* record.h — the pure parts of the io collector (collectors/io/record.c), public so
 * collectors/io/test_io.c can check them: the parsers of /proc/PID/io and of
 * /proc/PID/stat's field 42.
 */
#ifndef PTOP_IO_RECORD_H
#define PTOP_IO_RECORD_H

#include <stdint.h>

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

#endif
