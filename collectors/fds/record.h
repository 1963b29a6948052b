/* record.h — the pure parts of the fds collector (collectors/fds/record.c), public so
 * collectors/fds/test_fds.c can check them: the type of an fd from its readlink, and a
 * scan of an fd directory into counts by type and a table.
 */
#ifndef PTOP_FDS_RECORD_H
#define PTOP_FDS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "collectors/fds/fds.h"

enum fd_type {
	FD_FILE,
	FD_SOCKET,
	FD_PIPE,
	FD_EVENTFD,
	FD_EPOLL,
	FD_TIMERFD,
	FD_SIGNALFD,
	FD_ANON_INODE,
	FD_OTHER,
	FD_TYPES,
};

#define FDS_TABLE_MAX 65536 /* fds kept in the table sent at the end */
#define FDS_TARGET_MAX 256  /* bytes of a readlink kept (longer: cut) */

/* The type of an fd whose /proc/PID/fd/N link reads LINK. */
enum fd_type fds__classify(const char *link);

/* What syscall SYSCALL (a name of the syscall table; NULL: none) does to the fd table:
 * FDS_K_NONE for the syscalls the eBPF lane does not follow. */
enum fds_kind fds__kind(const char *syscall);

/* Its name as the capture spells it ("file", "socket", ..., "anon_inode", "other"). */
const char *fds__type_name(enum fd_type t);

struct fd_ent {
	int fd;
	enum fd_type type;
	bool probe; /* ptop's own fd (fds__is_probe): in the table, not in the counts */
	char target[FDS_TARGET_MAX];
};

/* One read of an fd directory. */
struct fd_scan {
	uint32_t total; /* the target's fds: ptop's own (fds__is_probe) are not counted */
	uint32_t count[FD_TYPES];
	struct fd_ent *ents; /* sorted by fd; NULL when not asked */
	size_t nents, cap;
	bool truncated; /* more than FDS_TABLE_MAX fds: the lowest kept */
};

/* Is the fd whose link reads LINK ptop's own, not the target's (DESIGN.md principle 9):
 * the heap preload lane's memfd (common/probe_mapping.h), or the recorder's start pipe
 * (pipe:[START_PIPE_INO], rec_ctx.start_pipe_ino; 0: none). */
bool fds__is_probe(const char *link, uint64_t start_pipe_ino);

/* Read the fd directory DIR ("/proc/PID/fd") into S (counts from zero; the table too when
 * WANT_TABLE, into S->ents, grown as needed and kept across calls). An fd that goes away
 * between the listing and its readlink is not counted, nor is ptop's own
 * (fds__is_probe with START_PIPE_INO), which the table keeps marked probe. 0, or -errno of
 * opening DIR (-ENOENT: gone, -EACCES: not ours), -ENOMEM. */
int fds__scan(const char *dir, bool want_table, uint64_t start_pipe_ino, struct fd_scan *s);

/* Whether an fd_owner entry (FD, opened at OPENED_NS, CLOCK_MONOTONIC) is of an fd the
 * kernel closed without a close call (exec, close_range): S, a read of the fd table
 * begun at READ_NS, does not have it, and it was opened before the read began (an fd
 * opened since may be missing from S only because the read was earlier). A truncated S
 * says nothing of the fds above its last. */
bool fds__owner_closed(const struct fd_scan *s, uint64_t read_ns, int fd, uint64_t opened_ns);

#endif
