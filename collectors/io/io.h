/* io.h — structs and constants shared by collectors/io/io.bpf.c and collectors/io/record.c. */
#ifndef PTOP_BPF_IO_H
#define PTOP_BPF_IO_H

#define IO_MAX_NR 1024	/* syscall numbers classified: [0, IO_MAX_NR) */
#define IO_PATH_MAX 256 /* bytes of an event's path in a short record (longer: a long one) */
#define IO_PATH_LONG 4096 /* PATH_MAX: bytes of an event's path in a long record (a syscall
			   * takes no longer path: longer is cut, and marked in cut) */
#define IO_CUT_PATH 1	/* io_fs_event.cut: path was cut */
#define IO_CUT_PATH2 2	/* path2 was cut */
#define IO_CUT_MARK "\xe2\x80\xa6" /* what ends a cut path in the capture: U+2026 (...) */
#define IO_RINGBUF (256 * 1024)
/* --io-files: the ring carries a path record (struct io_seen, 1.6 KiB) per file first seen
 * too; this size holds those of about 2,500 files between two polls (a file whose path
 * does not fit in io_seen sends a struct io_seen_long, 4.4 KiB, instead) */
#define IO_RINGBUF_FILES (4u << 20)

/* What a syscall is to the file-system events, by number (io_kind, filled by user space
 * from the syscall table's names). The argument numbers are 1-based. */
enum io_kind {
	IO_K_NONE = 0,
	IO_K_OPEN = 1,	   /* open(path 1, flags 2) */
	IO_K_OPENAT = 2,   /* openat(dfd, path 2, flags 3) */
	IO_K_UNLINK = 3,   /* unlink(path 1), rmdir(path 1) */
	IO_K_UNLINKAT = 4, /* unlinkat(dfd, path 2, flags 3) */
	IO_K_RENAME = 5,   /* rename(old 1, new 2) */
	IO_K_RENAMEAT = 6, /* renameat/renameat2(ofd, old 2, nfd, new 4) */
	IO_K_TRUNCATE = 7, /* truncate(path 1, length 2) */
	IO_K_FTRUNCATE = 8, /* ftruncate(fd 1, length 2) */
	IO_K_CREAT = 9,	    /* creat(path 1, mode 2): flags O_CREAT | O_WRONLY | O_TRUNC */
	IO_K_OPENAT2 = 10,  /* openat2(dfd, path 2, struct open_how *how 3): flags how->flags */
	IO_K_OP = 32	    /* IO_K_OP + enum io_op: a per-file operation (--io-files) */
};

/* The per-file operations (--io-files), by syscall; the fd is argument 1 (sendfile: 2,
 * its in_fd, the file it reads). io_uring submissions are IO_OP_URING + the request's
 * opcode (IORING_OP_*). */
enum io_op {
	IO_OP_READ,
	IO_OP_WRITE,
	IO_OP_PREAD64,
	IO_OP_PWRITE64,
	IO_OP_READV,
	IO_OP_WRITEV,
	IO_OP_PREADV,
	IO_OP_PWRITEV,
	IO_OP_PREADV2,
	IO_OP_PWRITEV2,
	IO_OP_SENDFILE,
	IO_OP_COPY_FILE_RANGE,
	IO_OP_SPLICE,
	IO_OP_FSYNC,
	IO_OP_FDATASYNC,
	IO_OP_SYNC_FILE_RANGE,
	IO_OP_SYSCALLS, /* the syscalls above: [0, IO_OP_SYSCALLS) */
	IO_OP_URING = 64 /* [64, 64 + IO_URING_OPS): io_uring requests by opcode */
};

#define IO_URING_OPS 128     /* opcodes counted: [0, IO_URING_OPS) */
#define IO_HIST 32	     /* log2 latency buckets: [2^i, 2^(i+1)) ns; the last holds the rest */
#define IO_MAX_FILES 8192    /* (file, op) entries of io_files */
#define IO_MAX_INFLIGHT 16384 /* threads inside an operation at once */
#define IO_DEPTH 24	     /* path components walked (deeper: the path starts with "...") */
#define IO_NAME 64	     /* bytes of one component kept */

/* io_files's key: one file (dev, ino, gen) of one process and one operation. */
struct io_file_key {
	__u64 ino;
	__u32 dev;  /* the kernel's dev_t: major << 20 | minor */
	__u32 tgid;
	__u16 op;   /* enum io_op */
	__u16 mode; /* i_mode's S_IFMT bits (the file's type) */
	__u32 gen;  /* i_generation: an inode number used again is another file */
};

/* io_files's value (per CPU, cumulative since the start, but the maximum). io_uring
 * rows: calls are completions; time from the submission to the completion. */
struct io_file_val {
	__u64 calls;
	__u64 errors;  /* returned < 0 */
	__u64 bytes;   /* the sum of the returns > 0 (read/write-like operations) */
	__u64 time_ns; /* in the call, from sys_enter to sys_exit */
	__u64 timed;   /* the calls whose entry was seen (the others: no time) */
	__u64 hist[IO_HIST];
	/* not summed: the longest call of generation max_gen (io_gen: the recorder flips it
	 * each poll and reads the maxima of the generation that ended) */
	__u64 max_gen;
	__u64 max_ns;
};

#define IO_VAL_SUMMED 37 /* the words of io_file_val summed over the CPUs: calls .. hist */

/* The io_uring requests of the target by opcode (per CPU, cumulative). */
struct io_uring_val {
	__u64 submitted;
	__u64 completed;
	__u64 errors; /* completions with res < 0 */
	__u64 bytes;  /* the sum of the completions' res > 0 */
};

/* Counters (per CPU) of what the files lane could not do. */
enum io_cnt {
	IO_CNT_FILES_FULL,    /* io_files full: an operation not counted */
	IO_CNT_INFLIGHT_FULL, /* io_start full: a call not timed */
	IO_CNT_NO_FILE,	      /* the fd did not resolve to a file at exit */
	IO_CNT_SEEN_LOST,     /* a file-seen record lost (ring buffer full) */
	IO_CNT_MAX
};

/* One file-system event of the target (the ring buffer's record). */
enum io_ev_kind {
	IO_EV_DENIED = 1,
	IO_EV_DELETED = 2,
	IO_EV_RENAMED = 3,
	IO_EV_TRUNCATED = 4,
	IO_EV_CREATED = 5, /* an open with O_CREAT that created the file (FMODE_CREATED) */
	IO_EV_SEEN = 6,	   /* not a file-system event: a file first seen (struct io_seen) */
	IO_EV_SEEN_LONG = 7 /* the same, its path too long for io_seen (struct io_seen_long) */
};

/* One event; its paths follow it: path and path2 (a rename's new path), plen bytes each,
 * NUL-terminated. plen is IO_PATH_MAX; when a path does not fit in IO_PATH_MAX - 1 bytes,
 * the record is reserved again with plen IO_PATH_LONG (a rare, 8 KiB record). */
struct io_fs_event {
	__u64 ts; /* bpf_ktime_get_ns at the syscall's exit */
	__u32 tid;
	__u32 kind;   /* enum io_ev_kind */
	__s64 ret;    /* the syscall's return (a denial: -EACCES or -EPERM) */
	__u64 flags;  /* open flags (denied), unlinkat flags */
	__u64 length; /* truncated to */
	__s32 fd;     /* ftruncate's fd (path empty), else -1 */
	__u32 nr;     /* the syscall number */
	__u32 tgid;   /* the caller's process */
	__u32 dev;    /* ftruncate: its fd's file at the call (0: not resolved) */
	__u64 ino;
	__u32 gen;
	__u32 cut;    /* IO_CUT_*: a path longer than plen - 1 bytes, cut */
	__u32 plen;   /* IO_PATH_MAX or IO_PATH_LONG */
	__u32 pad;
	char path[];  /* path[plen], then path2[plen] */
};

/* A file first seen by the files lane: its path as the kernel's dentries spell it,
 * components from the file up (name[0] is the file's own name), crossing mounts. */
struct io_seen {
	__u64 ts;
	__u32 tid;
	__u32 kind; /* IO_EV_SEEN */
	__u64 ino;
	__u32 dev;
	__u32 depth; /* components in name[]; IO_DEPTH and truncated: deeper */
	__u32 truncated;
	__u32 tgid; /* the process that saw it */
	__u32 gen;  /* the inode's i_generation */
	__u32 cut;  /* bit i: name[i] is cut (the name is longer than IO_NAME - 1 bytes) */
	char name[IO_DEPTH][IO_NAME];
};

#define IO_SEEN_NAME 256 /* bytes of one name in io_seen_long (NAME_MAX + 1) */

/* A file first seen whose path does not fit in struct io_seen (deeper than IO_DEPTH or a
 * name longer than IO_NAME - 1 bytes), sent instead of it (kind IO_EV_SEEN_LONG): the
 * names from the file up, each NUL-terminated, packed in buf[0, len). truncated: the walk
 * stopped with IO_PATH_LONG bytes of names or more (or at a name longer than
 * IO_SEEN_NAME - 1 bytes) before the root. */
struct io_seen_long {
	__u64 ts;
	__u32 tid;
	__u32 kind; /* IO_EV_SEEN_LONG */
	__u64 ino;
	__u32 dev;
	__u32 len;
	__u32 truncated;
	__u32 tgid;
	__u32 gen;
	__u32 pad;
	char buf[IO_PATH_LONG + IO_SEEN_NAME];
};

/* In the io probe's detail when the files lane runs without its io_uring lane (a kernel
 * without the io_uring_submit_req tracepoint), before the reason: report io reads it. */
#define IO_URING_NOT "io_uring requests not counted: "

#endif
