/* procfs.h — parsers for the /proc files ptop-record reads.
 *
 * Each file has a pure parser over its text (procfs_parse_*), unit-tested on
 * fixture text, and a reader that fetches /proc/PID/... and parses it
 * (procfs_read_*). Readers return 0 or -errno: -ENOENT/-ESRCH when the process
 * is gone, -EACCES/-EPERM when it may not be read, -EINVAL when the text does
 * not parse. Nothing here allocates except where a function says so.
 */
#ifndef PTOP_PROCFS_H
#define PTOP_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Read all of /proc/PID/NAME (PID 0: /proc/NAME) into *BUF, NUL-terminated,
 * growing it as needed (*BUF and *CAP may start as NULL/0; the caller frees
 * *BUF). *LEN gets the length. 0 or -errno. */
int procfs_read_file(pid_t pid, const char *name, char **buf, size_t *cap, size_t *len);

/* Whether ERR (from reading a file of /proc/PID) means the process is gone:
 * -ENOENT or -ESRCH while /proc/PID is no more, or is a zombie (state Z/X:
 * its memory files read as empty or zeros). -ENOENT for a file this kernel
 * lacks while the process lives is not "gone". */
bool procfs_is_gone(pid_t pid, int err);

/* Whether /proc/PID/NAME can be opened by this process (opening makes the
 * kernel's PTRACE_MODE_READ check for files such as smaps and maps). 0, or
 * -errno with REASON set to one line saying what to do. */
int procfs_check_open(pid_t pid, const char *name, char *reason, size_t len);

/* /proc/PID/stat. Times are clock ticks; comm may hold spaces and ')'. */
struct proc_stat {
	char comm[64];
	char state;
	pid_t ppid;
	uint64_t minflt, majflt;
	uint64_t utime, stime;       /* clock ticks */
	int64_t num_threads;
	uint64_t starttime;          /* clock ticks after boot */
	uint64_t vsize;              /* bytes */
	int64_t rss_pages;
};
int procfs_parse_stat(const char *text, struct proc_stat *st);
int procfs_read_stat(pid_t pid, struct proc_stat *st);

/* /proc/PID/status: the fields ptop uses. */
#define PROCFS_MAX_NSPID 8
struct proc_status {
	uid_t uid[4];                /* real, effective, saved, fs */
	gid_t gid[4];
	uint64_t voluntary_ctxt_switches;
	uint64_t nonvoluntary_ctxt_switches;
	int64_t threads;
	pid_t nspid[PROCFS_MAX_NSPID]; /* NSpid: outermost first */
	int n_nspid;                 /* 0: no NSpid line (kernel < 4.1) */
	bool has_ctxt_switches;      /* the *_ctxt_switches lines were present */
	bool has_threads;            /* the Threads line was present */
};
int procfs_parse_status(const char *text, struct proc_status *st);
int procfs_read_status(pid_t pid, struct proc_status *st);

/* /proc/PID/statm, in pages (multiply by the page size for bytes). */
struct proc_statm {
	uint64_t size, resident, shared, text, lib, data, dt;
};
int procfs_parse_statm(const char *text, struct proc_statm *st);
int procfs_read_statm(pid_t pid, struct proc_statm *st);

/* The per-mapping counters of smaps and smaps_rollup, in bytes. */
struct proc_smaps_counters {
	uint64_t size, rss, pss, pss_anon, pss_file, pss_shmem;
	uint64_t shared_clean, shared_dirty, private_clean, private_dirty;
	uint64_t referenced, anonymous, lazyfree, anon_huge, swap, swap_pss, locked;
	uint32_t present;            /* PROCFS_SC_* bits of the lines the text held:
				      * a counter whose bit is clear was not measured
				      * (e.g. Pss_Anon before Linux 5.9), not zero */
};

/* Bits of proc_smaps_counters.present, one per counter. */
enum {
	PROCFS_SC_SIZE = 1u << 0, PROCFS_SC_RSS = 1u << 1, PROCFS_SC_PSS = 1u << 2,
	PROCFS_SC_PSS_ANON = 1u << 3, PROCFS_SC_PSS_FILE = 1u << 4,
	PROCFS_SC_PSS_SHMEM = 1u << 5, PROCFS_SC_SHARED_CLEAN = 1u << 6,
	PROCFS_SC_SHARED_DIRTY = 1u << 7, PROCFS_SC_PRIVATE_CLEAN = 1u << 8,
	PROCFS_SC_PRIVATE_DIRTY = 1u << 9, PROCFS_SC_REFERENCED = 1u << 10,
	PROCFS_SC_ANONYMOUS = 1u << 11, PROCFS_SC_LAZYFREE = 1u << 12,
	PROCFS_SC_ANON_HUGE = 1u << 13, PROCFS_SC_SWAP = 1u << 14,
	PROCFS_SC_SWAP_PSS = 1u << 15, PROCFS_SC_LOCKED = 1u << 16,
};

/* /proc/PID/smaps_rollup. The "[rollup]" header line is optional. 0, or
 * -EINVAL when Rss or Pss is missing or a counter line does not parse. */
int procfs_parse_smaps_rollup(const char *text, struct proc_smaps_counters *c);

/* One VMA of /proc/PID/smaps (or maps: then only the header fields are set). */
struct proc_vma {
	uint64_t start, end, offset, inode;
	char perms[8];               /* "r-xp" */
	char dev[16];                /* "fd:01" */
	const char *path;            /* points into the parsed text; "" for anonymous */
	size_t path_len;
	struct proc_smaps_counters c;
};

/* Call FN once per VMA of the smaps (or maps) TEXT, in order. The text is
 * modified in place (paths are NUL-terminated inside it). Returns the number
 * of VMAs, -EINVAL on malformed text, or FN's first non-zero return. */
int procfs_parse_smaps(char *text, int (*fn)(const struct proc_vma *vma, void *arg), void *arg);

/* /proc/PID/cgroup: the cgroup v2 path (the "0::" line), or on a v1-only host
 * the first controller's path (the name=systemd hierarchy's when there is one).
 * PATH gets at most LEN-1 bytes. 0, -EINVAL when no line parses, -ENAMETOOLONG
 * when the path did not fit (PATH then holds its first LEN-1 bytes). */
int procfs_parse_cgroup(const char *text, char *path, size_t len);

/* The container id in a cgroup path (docker-<id>.scope, /docker/<id>,
 * cri-containerd-<id>.scope, crio-<id>.scope, libpod-<id>.scope, /kubepods/.../<id>):
 * a 64-hex id is copied to ID (LEN >= 65). Returns true if one was found. */
bool procfs_container_id(const char *cgroup_path, char *id, size_t len);

/* The container id of a whole /proc/PID/cgroup TEXT: the v2 path's, else the
 * first v1 hierarchy's that has one (on a hybrid host Docker's cgroupfs driver
 * puts the container in the v1 hierarchies only). True if one was found. */
bool procfs_cgroup_text_container_id(const char *text, char *id, size_t len);

/* From a /proc/PID/mountinfo TEXT, the first cgroup2 mount: its mount point
 * into MNT and the cgroup path it shows (the mountinfo root field, "/" unless
 * in a cgroup namespace or bind mount) into ROOT, octal escapes undone.
 * 0, -ENOENT when there is no cgroup2 mount, -ENAMETOOLONG, -EINVAL. */
int procfs_parse_mountinfo_cgroup2(const char *text, char *mnt, size_t mnt_len, char *root,
				   size_t root_len);

/* The cgroup id (inode of the cgroup v2 directory) of a path as /proc/PID/cgroup
 * prints it. The v2 mount is found in /proc/self/mountinfo on every call (no
 * cache: cheap, and safe from any thread). 0 or -errno (-ENOENT when no v2
 * hierarchy holds it). */
int procfs_cgroup_id(const char *cgroup_path, uint64_t *id);

/* ---------------------------------------------------------------- smaps budget */

/* The time budget of smaps reads (--smaps-budget). Reading /proc/PID/smaps or
 * smaps_rollup holds the target's mmap lock, so the recorder keeps the time it
 * spends on them within BUDGET_NS per INTERVAL_NS on average, over every
 * collector that reads them. A credit accrues at BUDGET_NS per INTERVAL_NS of
 * time, capped at one interval's budget (it starts full); a read is allowed
 * while the credit is positive, and its time is then taken from the credit,
 * which may go negative. So a read that took W lets the next one run only
 * after about W / BUDGET_NS intervals, and over any stretch of T ns the reads
 * take at most T * BUDGET_NS / INTERVAL_NS plus one budget plus one read.
 * Pure: time is whatever the caller passes (monotonic ns). */
struct smaps_budget {
	uint64_t budget_ns;          /* per interval; 0: no budget, every read allowed */
	uint64_t interval_ns;        /* the interval the budget is per */
	int64_t credit_ns;           /* negative: the debt of reads that overran */
	uint64_t last_ns;            /* when the credit was last brought up to date */
	bool started;                /* last_ns holds a time */
	uint64_t spent_ns;           /* time of all reads since init */
	uint64_t reads, skipped;     /* reads allowed and refused since init */
	unsigned users;              /* smaps_budget__get references */
};

/* Set B up for BUDGET_NS per INTERVAL_NS (INTERVAL_NS 0 counts as 1 s). */
void smaps_budget__init(struct smaps_budget *b, uint64_t budget_ns, uint64_t interval_ns);

/* May a read run at NOW_NS? Brings the credit up to date first. True always
 * without a budget. A refused read is counted in b->skipped. */
bool smaps_budget__allow(struct smaps_budget *b, uint64_t now_ns);

/* A read ran and took NS (allowed or not: a read the caller had to make
 * regardless, such as the final one, is paid for too). */
void smaps_budget__spend(struct smaps_budget *b, uint64_t ns);

/* The recorder's one budget, shared by the collectors that read smaps files of
 * the target (memory, vmas): the first get() sets it up with BUDGET_NS and
 * INTERVAL_NS, later ones share it; put() when done (the last one resets it).
 * Not thread-safe: the run loop polls collectors from one thread. */
struct smaps_budget *smaps_budget__get(uint64_t budget_ns, uint64_t interval_ns);
void smaps_budget__put(struct smaps_budget *b);

#endif
