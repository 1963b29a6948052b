/* io.h — structs and constants shared by collectors/io/io.bpf.c and collectors/io/record.c. */
#ifndef PTOP_BPF_IO_H
#define PTOP_BPF_IO_H

#define IO_MAX_NR 1024	/* syscall numbers classified: [0, IO_MAX_NR) */
#define IO_PATH_MAX 256 /* bytes of a path kept (longer: cut) */
#define IO_RINGBUF (256 * 1024)

/* What a syscall is to the file-system events, by number (io_kind, filled by user space
 * from the syscall table's names). The argument numbers are 1-based. */
enum io_kind {
	IO_K_NONE = 0,
	IO_K_OPEN = 1,	   /* open(path 1, flags 2), creat(path 1) */
	IO_K_OPENAT = 2,   /* openat(dfd, path 2, flags 3) */
	IO_K_UNLINK = 3,   /* unlink(path 1), rmdir(path 1) */
	IO_K_UNLINKAT = 4, /* unlinkat(dfd, path 2, flags 3) */
	IO_K_RENAME = 5,   /* rename(old 1, new 2) */
	IO_K_RENAMEAT = 6, /* renameat/renameat2(ofd, old 2, nfd, new 4) */
	IO_K_TRUNCATE = 7, /* truncate(path 1, length 2) */
	IO_K_FTRUNCATE = 8 /* ftruncate(fd 1, length 2) */
};

/* One file-system event of the target (the ring buffer's record). */
enum io_ev_kind { IO_EV_DENIED = 1, IO_EV_DELETED = 2, IO_EV_RENAMED = 3, IO_EV_TRUNCATED = 4 };

struct io_fs_event {
	__u64 ts; /* bpf_ktime_get_ns at the syscall's exit */
	__u32 tid;
	__u32 kind;   /* enum io_ev_kind */
	__s64 ret;    /* the syscall's return (a denial: -EACCES or -EPERM) */
	__u64 flags;  /* open flags (denied), unlinkat flags */
	__u64 length; /* truncated to */
	__s32 fd;     /* ftruncate's fd (path empty), else -1 */
	__u32 nr;     /* the syscall number */
	char path[IO_PATH_MAX];
	char path2[IO_PATH_MAX]; /* a rename's new path */
};

#endif
