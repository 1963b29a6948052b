/* cgroupfs.h — the cgroup files ptop-record reads in --cgroup mode, and the resolver
 * that turns a --cgroup SPEC (a cgroup path or a container id) into a cgroup v2
 * directory.
 *
 * The parsers work on the text of one file (memory.stat, memory.events, memory.max,
 * memory.limit_in_bytes, memory.oom_control, *.pressure, cgroup.procs, the lines of
 * /proc/PID/cgroup, /proc/self/mountinfo) and touch nothing else, so
 * tests/test_cgroupfs.c checks them on fixture text. The resolver and the subtree
 * walk take the mount points as arguments, so the tests run them on a fake tree in a
 * temporary directory. Functions return 0 or -errno; nothing allocates except where a
 * function says so.
 */
#ifndef PTOP_CGROUPFS_H
#define PTOP_CGROUPFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Where the cgroup hierarchies ptop uses are mounted. */
struct cgroupfs_mounts {
	char v2[PATH_MAX];           /* the cgroup2 mount point; "" when none */
	char v2_root[PATH_MAX];      /* the cgroup path the mount shows ("/" normally) */
	char v1_mem[PATH_MAX];       /* the cgroup v1 memory controller's mount; "" when none */
	char v1_mem_root[PATH_MAX];
	char v1_all[PATH_MAX];       /* the mount points of every cgroup v1 hierarchy
				      * (cpu, memory, name=systemd...), each ended by
				      * a NUL, an empty one last; those that do not fit
				      * are left out (only messages use it) */
};

/* From the text of /proc/PID/mountinfo, the first cgroup2 mount and the first
 * cgroup v1 mount whose super options hold the "memory" controller, and the list of
 * all cgroup v1 mounts. Missing ones stay "". 0, -ENOENT when neither cgroup2 nor v1
 * memory is there, -ENAMETOOLONG, -EINVAL. */
int cgroupfs_parse_mounts(const char *mountinfo, struct cgroupfs_mounts *m);

/* cgroupfs_parse_mounts() on /proc/self/mountinfo. */
int cgroupfs_read_mounts(struct cgroupfs_mounts *m);

/* The cgroup a --cgroup SPEC names. */
struct cgroupfs_target {
	char dir[PATH_MAX];          /* its cgroup v2 directory */
	char path[PATH_MAX];         /* root-relative, as /proc/PID/cgroup prints it ("/a/b") */
	uint64_t id;                 /* the directory's inode: the kernel's cgroup id */
	unsigned level;              /* depth below the v2 root (the root is 0) */
	char container_id[72];       /* the container id in path; "" when none */
};

/* Resolve SPEC against the cgroup2 mount of M into T:
 *  - an absolute path under the mount ("/sys/fs/cgroup/system.slice/x.service"),
 *  - a path as /proc/PID/cgroup prints it ("/system.slice/x.service"),
 *  - a container id: 1 to 64 lowercase hex digits, a prefix of the 64-hex id in the
 *    name of a directory of the tree (docker-<id>.scope, .../<id>, crio-<id>.scope).
 * A path under a cgroup v1 mount of M (v1_mem, v1_all) is refused with -EINVAL and a
 * message naming that v1 hierarchy and the cgroup2 mount to use instead.
 * Returns 0; -ENODEV with no cgroup2 mount; -EINVAL for a SPEC that is neither; -ENOENT
 * when nothing matches; -ENOTUNIQ when an id prefix matches more than one container (ERR
 * lists them, one "  ID  PATH" line each); or another -errno. ERR gets a message that
 * says what to do. */
int cgroupfs_resolve(const struct cgroupfs_mounts *m, const char *spec, struct cgroupfs_target *t,
		     char *err, size_t errlen);

/* Call FN for DIR and every directory below it, parents first. REL is the path
 * below DIR ("" for DIR itself, "a", "a/b"). A directory that vanishes or cannot be
 * opened during the walk is skipped. Stops at FN's first non-zero return and returns
 * it; else 0, or -errno when DIR itself cannot be opened. */
int cgroupfs_walk(const char *dir, int (*fn)(const char *dir, const char *rel, void *arg),
		  void *arg);

/* Read the whole file DIR/NAME into *BUF, NUL-terminated (grown as needed, like
 * procfs_read_file; the caller frees *BUF). 0 or -errno. */
int cgroupfs_read(const char *dir, const char *name, char **buf, size_t *cap, size_t *len);

/* A single number ("123\n"). 0 or -EINVAL. */
int cgroupfs_parse_u64(const char *text, uint64_t *v);

/* cgroup v2 memory.max / memory.high: a number, or "max" (*UNLIMITED true, *V 0). */
int cgroupfs_parse_max(const char *text, uint64_t *v, bool *unlimited);

/* cgroup v1 memory.limit_in_bytes: a number; the kernel's "no limit" is
 * PAGE_COUNTER_MAX pages, (INT64_MAX / PAGE_SIZE) * PAGE_SIZE bytes
 * (9223372036854771712 with 4 KiB pages): then *UNLIMITED is true and *V 0. */
int cgroupfs_parse_v1_limit(const char *text, long page_size, uint64_t *v, bool *unlimited);

/* "key value" lines (memory.stat, memory.events, memory.oom_control, cpu.stat). */
struct cgroupfs_kv {
	char key[64];
	uint64_t value;
};

struct cgroupfs_kvs {
	struct cgroupfs_kv *v;       /* owned; n used of cap */
	size_t n, cap;
};

/* Parse TEXT into KV (emptied first; its array is reused). 0, -EINVAL when a line is
 * not "KEY NUMBER" or a key is longer than 63 bytes, -ENOMEM. */
int cgroupfs_parse_kv(const char *text, struct cgroupfs_kvs *kv);

/* The value of KEY in KV. True if present. */
bool cgroupfs_kv_get(const struct cgroupfs_kvs *kv, const char *key, uint64_t *v);

/* Free the array (not KV itself) and reset KV. NULL is fine. */
void cgroupfs_kvs_free(struct cgroupfs_kvs *kv);

/* One line of a PSI file: "some avg10=0.12 avg60=0.05 avg300=0.01 total=12345". */
struct cgroupfs_psi_line {
	double avg10, avg60, avg300; /* percent */
	uint64_t total_us;
};

struct cgroupfs_psi {
	struct cgroupfs_psi_line some, full;
	bool has_some, has_full;     /* the file held that line */
};

/* memory.pressure, cpu.pressure, io.pressure (and the files of /proc/pressure). The "full"
 * line is optional (cpu at the system level before Linux 5.13). 0, -EINVAL when no
 * "some" line parses or a line is malformed. */
int cgroupfs_parse_psi(const char *text, struct cgroupfs_psi *p);

/* cgroup.procs: one pid a line. Appends to *PIDS (grown; *PIDS, *N, *CAP may start
 * NULL, 0, 0; the caller frees *PIDS). 0, -EINVAL, -ENOMEM. */
int cgroupfs_parse_procs(const char *text, pid_t **pids, size_t *n, size_t *cap);

/* From the text of /proc/PID/cgroup, the path of the hierarchy that has CONTROLLER
 * ("memory", "name=systemd"; "" for the cgroup v2 line "0::PATH"). PATH gets at most
 * LEN-1 bytes. 0, -ENOENT when no line has it, -EINVAL on malformed text,
 * -ENAMETOOLONG. */
int cgroupfs_proc_path(const char *text, const char *controller, char *path, size_t len);

/* The systemd unit a cgroup path belongs to: its deepest component ending in
 * ".scope" or ".service" ("/user.slice/user-1000.slice/app-foo-12.scope/sub" gives
 * "app-foo-12.scope"). True if there is one; UNIT gets at most LEN-1 bytes. */
bool cgroupfs_unit(const char *path, char *unit, size_t len);

#endif
