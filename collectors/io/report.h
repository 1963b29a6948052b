/* report.h — what `report io` loads from the per-file lane (--io-files), shared with the
 * io figures (collectors/io/figures.c) and the replay tab, so a figure is the number the
 * report prints.
 */
#ifndef PTOP_IO_REPORT_H
#define PTOP_IO_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/report.h"

/* io_file's operations that read, write and sync a file, as SQL conditions on its op. */
#define READ_OPS                                                                                \
	"op IN ('read','pread64','readv','preadv','preadv2','sendfile','copy_file_range',"     \
	"'splice') OR op GLOB 'io_uring:READ*'"
#define WRITE_OPS                                                                               \
	"op IN ('write','pwrite64','writev','pwritev','pwritev2') OR op GLOB 'io_uring:WRITE*'"
#define FSYNC_OPS                                                                               \
	"op IN ('fsync','fdatasync','sync_file_range','io_uring:FSYNC','io_uring:SYNC_FILE_RANGE')"

/* One file of the window (io_file summed over its intervals, processes and operations). */
struct io_file_sum {
	char *file;	/* "MAJOR:MINOR:INODE" */
	char *path;	/* the newest path known; NULL: never known */
	char *type;
	int64_t read_bytes, written_bytes; /* by the read-like and write-like operations */
	int64_t reads, writes, fsyncs;	   /* calls (fsync, fdatasync, sync_file_range) */
	int64_t ops, errors;		   /* every operation */
	int64_t call_ns;		   /* time in the calls (syscall entry to exit); -1: none timed */
	int64_t max_ns;			   /* -1: no call timed */
};

/* Whether the per-file lane ran in capture M (the io probe's detail says per-file figures
 * were collected); else *WHY (the probe's reason) is set. 0 or -errno. */
int io_files__collected(sqlite3 *db, const struct capture_meta *m, bool *yes, char *why,
			size_t len);

/* The files of window W of capture M, by bytes (read + written) descending, then by
 * operations: *OUT (malloc'd, N entries; io_files__free). 0, -ENOMEM or -EIO. */
int io_files__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		   struct io_file_sum **out, size_t *n);
void io_files__free(struct io_file_sum *f, size_t n);

/* The /proc lane's sums over window W (as `report io` prints them): SUM[0] rchar, [1]
 * wchar, [2] syscr, [3] syscw, [4] read_bytes, [5] write_bytes, [6] cancelled, [7] iowait
 * ns; *N the intervals. 0, -ENOMEM or -EIO. */
int io_rows__sum(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		 uint64_t sum[8], size_t *n);

/* The file-system events of window W by kind: N[0] denied, [1] deleted, [2] renamed, [3]
 * truncated, [4] created; *COLLECTED false (N zeros) when no eBPF lane of io ran. 0 or
 * -errno. */
int io_events__count(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     bool *collected, uint64_t n[5]);

/* An interval of the /proc lane not read: process PID ended and was reaped before the
 * recorder's read (drop notices "ended_unread"), so its I/O from FROM_NS (its last read, or
 * the recording's start) to its end, found at FOUND_NS, is not in the sums: they are lower
 * bounds then. */
struct io_unread {
	int pid;
	int64_t from_ns, found_ns; /* CLOCK_MONOTONIC, as the capture's times */
};

/* The unread intervals overlapping window W of capture M: *OUT (malloc'd, N entries, by
 * time). 0, -ENOMEM or -EIO. */
int io_unread__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		    struct io_unread **out, size_t *n);

/* `report io`'s own options (o->own) */
struct io_opts {
	const char *table; /* --table NAME, the table CSV prints; NULL: default */
	const char *file;  /* --file PATH|MAJ:MIN:INO, one file's intervals */
};

#endif
