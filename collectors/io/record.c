/* record.c — the io collector's recorder side, its /proc lane: every --interval, the
 * change of the target's /proc/PID/io counters (rchar, wchar, syscr, syscw, read_bytes,
 * write_bytes, cancelled_write_bytes) and of its block I/O delay (/proc/PID/stat field 42,
 * delayacct_blkio_ticks) as one IoSample. Reads only: it costs the recorder, not the
 * target. Runs with and without eBPF.
 *
 * The block I/O delay is measured only when the kernel's delay accounting is on
 * (kernel.task_delayacct = 1): otherwise the field reads 0 whatever the target waited, so
 * it is not sent (absent, never 0) and the probe detail says why.
 *
 * Its eBPF lanes (collectors/io/io.bpf.c): --io-events, the file-system events (opens
 * denied, files created, deleted, renamed, truncated), one IoFsEvent each; --io-files (it
 * implies --io-events), per file and operation the calls, errors, bytes and time in the
 * call aggregated in the kernel, read each interval and sent as one IoFiles of the pairs
 * that had calls, with the io_uring requests by opcode. A file's path is the newest known:
 * the kernel's dentries when the file is first seen, then the target's /proc/PID/fd links
 * at each poll (an open file renamed by anyone) and the renames the target made.
 */
#include <errno.h>
#include <inttypes.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "collectors/io/io.h"
#include "collectors/io/io.pb-c.h"
#include "collectors/io/io.skel.h"
#include "collectors/io/record.h"
#include "proto/capture.h"
#include "proto/syscall_table.h"
#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/cgroupfs.h"
#include "record/kfeature.h"
#include "record/procfs.h"

static const char *const io_keys[] = {
    "rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes", "cancelled_write_bytes"};

int io__parse(const char *text, struct proc_io *io)
{
	uint64_t *f[] = {&io->rchar,
			 &io->wchar,
			 &io->syscr,
			 &io->syscw,
			 &io->read_bytes,
			 &io->write_bytes,
			 &io->cancelled_write_bytes};
	unsigned seen = 0;
	const char *line = text;

	while (line && *line) {
		const char *colon = strchr(line, ':'), *nl = strchr(line, '\n');

		for (size_t i = 0; colon && (!nl || colon < nl) && i < 7; i++) {
			size_t n = strlen(io_keys[i]);
			char *end;

			if ((size_t)(colon - line) != n || strncmp(line, io_keys[i], n))
				continue;
			errno = 0;
			*f[i] = strtoull(colon + 1, &end, 10);
			if (errno || end == colon + 1 || (*end && *end != '\n'))
				return -EINVAL;
			seen |= 1u << i;
		}
		line = nl ? nl + 1 : NULL;
	}
	return seen == 0x7f ? 0 : -EINVAL;
}

int io__parse_blkio_ticks(const char *text, uint64_t *ticks)
{
	const char *p = strrchr(text, ')');
	char *end;
	int field = 2; /* the ')' ends field 2, comm */

	if (!p)
		return -EINVAL;
	p++;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		field++;
		if (field == 42) {
			errno = 0;
			*ticks = strtoull(p, &end, 10);
			if (errno || end == p || (*end != ' ' && *end != '\n' && *end))
				return -EINVAL;
			return 0;
		}
		while (*p && *p != ' ')
			p++;
	}
	return -EINVAL;
}

/* ------------------------------------------------------------------ collector */

static struct io_settings {
	bool events; /* --io-events */
	bool files;  /* --io-files */
} io_settings;

static const struct collector_opt io_opts[] = {
    {
	.name = "io-events",
	.help = "io: also record the target's file-system events (opens\n"
		"denied, deletions, renames, truncations) with their\n"
		"paths (eBPF, at every syscall exit: not on by default)",
	.section = COPT_COLLECTORS,
	.order = 55,
	.parse = copt_parse_flag,
	.offset = offsetof(struct io_settings, events),
    },
    {
	.name = "io-files",
	.help = "io: also record per file and operation the target's\n"
		"reads, writes, fsyncs (calls, errors, bytes, time in the\n"
		"call, latency histogram) and its io_uring requests,\n"
		"aggregated in the kernel; implies --io-events (eBPF at\n"
		"every syscall entry and exit: not on by default)",
	.section = COPT_COLLECTORS,
	.order = 56,
	.parse = copt_parse_flag,
	.offset = offsetof(struct io_settings, files),
    },
    {.name = NULL},
};

static const struct {
	const char *name;
	enum io_kind kind;
} io_kinds[] = {
    {"open", IO_K_OPEN},	  {"creat", IO_K_CREAT},       {"openat", IO_K_OPENAT},
    {"openat2", IO_K_OPENAT2},	  {"unlink", IO_K_UNLINK},     {"rmdir", IO_K_UNLINK},
    {"unlinkat", IO_K_UNLINKAT},  {"rename", IO_K_RENAME},     {"renameat", IO_K_RENAMEAT},
    {"renameat2", IO_K_RENAMEAT}, {"truncate", IO_K_TRUNCATE}, {"ftruncate", IO_K_FTRUNCATE},
};

/* The per-file operations' syscalls, by enum io_op. */
static const char *const io_op_names[IO_OP_SYSCALLS] = {
    [IO_OP_READ] = "read",
    [IO_OP_WRITE] = "write",
    [IO_OP_PREAD64] = "pread64",
    [IO_OP_PWRITE64] = "pwrite64",
    [IO_OP_READV] = "readv",
    [IO_OP_WRITEV] = "writev",
    [IO_OP_PREADV] = "preadv",
    [IO_OP_PWRITEV] = "pwritev",
    [IO_OP_PREADV2] = "preadv2",
    [IO_OP_PWRITEV2] = "pwritev2",
    [IO_OP_SENDFILE] = "sendfile",
    [IO_OP_COPY_FILE_RANGE] = "copy_file_range",
    [IO_OP_SPLICE] = "splice",
    [IO_OP_FSYNC] = "fsync",
    [IO_OP_FDATASYNC] = "fdatasync",
    [IO_OP_SYNC_FILE_RANGE] = "sync_file_range",
};

const char *io__file_type(unsigned mode)
{
	switch (mode & 0170000) {
	case 0100000:
		return "file";
	case 0040000:
		return "dir";
	case 0010000:
		return "pipe";
	case 0140000:
		return "socket";
	case 0020000:
		return "chr";
	case 0060000:
		return "blk";
	case 0120000:
		return "link";
	default:
		return "unknown";
	}
}

int io__seen_path(const char (*name)[IO_NAME], unsigned depth, bool truncated, uint32_t cut,
		  char *out, size_t len)
{
	size_t at = 0;
	int n;

	if (!len)
		return -EINVAL;
	out[0] = '\0';
	if (depth > IO_DEPTH)
		return -EINVAL;
	if (truncated) {
		n = snprintf(out, len, "...");
		at = (size_t)n < len ? (size_t)n : len - 1;
	}
	if (!depth) {
		snprintf(out + at, len - at, "/");
		return 0;
	}
	for (unsigned i = depth; i-- > 0;) {
		n = snprintf(out + at, len - at, "/%.*s%s", IO_NAME, name[i],
			     cut & (1u << i) ? IO_CUT_MARK : "");
		if (n < 0 || (size_t)n >= len - at)
			return -ENAMETOOLONG;
		at += (size_t)n;
	}
	return 0;
}

int io__seen_long_path(const char *buf, size_t used, bool truncated, char *out, size_t len)
{
	size_t at = 0, end = used;
	int n;

	if (!len)
		return -EINVAL;
	out[0] = '\0';
	if (used && buf[used - 1])
		return -EINVAL; /* each name ends in its NUL */
	if (truncated) {
		n = snprintf(out, len, "...");
		at = (size_t)n < len ? (size_t)n : len - 1;
	}
	if (!used) {
		if ((size_t)snprintf(out + at, len - at, "/") >= len - at)
			return -ENAMETOOLONG;
		return 0;
	}
	while (end) { /* the names from the last (the top) down to the file's own */
		size_t start = end - 1;

		while (start && buf[start - 1])
			start--;
		n = snprintf(out + at, len - at, "/%s", buf + start);
		if (n < 0 || (size_t)n >= len - at)
			return -ENAMETOOLONG;
		at += (size_t)n;
		end = start;
	}
	return 0;
}

int io__rename_path(const char *path, const char *old, const char *new, char *out, size_t len)
{
	size_t n = strlen(old);

	if (!n || strncmp(path, old, n) || (path[n] && path[n] != '/'))
		return 0;
	if ((size_t)snprintf(out, len, "%s%s", new, path + n) >= len)
		return -ENAMETOOLONG;
	return 1;
}

_Static_assert(offsetof(struct io_file_val, max_gen) == IO_VAL_SUMMED * sizeof(__u64),
	       "io_file_val: the summed words come first");

/* A file's path, by identity (dev, ino, gen, tgid): the newest known. */
struct io_fpath {
	uint64_t ino;
	uint32_t dev, tgid; /* dev: the kernel's dev_t */
	uint32_t gen;	    /* i_generation: an inode number used again is another file */
	char *path;
};

/* One (file, op) entry of io_files, as last read (the sums over the CPUs). */
struct io_fent {
	struct io_file_key k;
	struct io_file_val prev;
};

struct io_bpf_lane {
	struct io_bpf *skel;
	struct ring_buffer *rb;
	struct collector *c;
	int err; /* the first emit error of a ring buffer callback */
	uint64_t prev_lost;
	uint64_t *lost_vals; /* ncpus */
	bool files;	     /* --io-files: the files lane too */
	bool uring;	     /* and its io_uring lane (the kernel has the tracepoints) */
	uint64_t prev_ns;    /* the files lane's last poll */
	bool events;	     /* --io-events asked by name (else implied by --io-files) */
	int ncpus;
	void *fpaths;	     /* tsearch tree of struct io_fpath */
	void *fnewest;	     /* the same, by (dev, ino, tgid): the generation seen last */
	void *fents;	     /* tsearch tree of struct io_fent */
	struct io_file_val *vals; /* ncpus values of io_files */
	uint64_t *u64s;		  /* ncpus */
	struct io_uring_val uprev[IO_URING_OPS];
	struct io_uring_val *uvals; /* ncpus */
	char *uring_names[IO_URING_OPS]; /* "io_uring:READ", from the kernel's BTF */
	uint64_t prev_cnt[IO_CNT_MAX];
	uint64_t gen;
};

/* --cgroup: one process of the subtree, as last read. */
struct io_proc {
	pid_t pid, ppid;
	struct proc_io prev;
	uint64_t prev_ticks;
	/* the last counters of its children reaped since the last poll: the kernel adds a
	 * child's counters to its parent's when the parent waits for it, and the child's
	 * rows had them already */
	struct proc_io reaped;
	uint64_t read_ns; /* when its counters (prev) were read */
	bool final;	  /* read as a zombie: its counters are final */
};

struct io_priv {
	struct io_bpf_lane *bpf; /* --io-events with eBPF; NULL: the /proc lane alone */
	char *buf;
	size_t cap;
	struct proc_io prev;
	uint64_t prev_ticks, prev_ns, tick_ns;
	bool have_prev, delayacct;
	bool gone; /* --pid: the target's end was found (its unread interval noted) */
	/* --cgroup: the processes of the last poll, by pid; the pids listed now */
	struct io_proc *procs;
	size_t nprocs;
	pid_t *pids;
	size_t npids, cappids;
	char *cgbuf;
	size_t cgcap;
	uint64_t prev_boot_ticks; /* CLOCK_BOOTTIME at the last poll, in clock ticks */
};

/* Whether the kernel measures block I/O delay (kernel.task_delayacct). */
static bool delayacct_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/task_delayacct", "r");
	int v = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v == 1;
}

/* The io collector's lanes: "proc" (/proc/PID/io, always), "events" (--io-events:
 * raw_tp/sys_exit), "files" (--io-files: raw_tp/sys_enter and sys_exit) and, with the files
 * lane, "io_uring" (its tracepoints, Linux 6.3+: io_uring_submit_req). WHY: why the eBPF
 * lane cannot run ("" when it can), FWHY: why the files lane cannot. UWHY gets why the
 * io_uring requests are not counted when the files lane runs without them ("" else). */
static void io_lanes(struct collector *c, const char *why, const char *fwhy, char *uwhy,
		     size_t ulen)
{
	const Ptop__V1__ProbeSource ebpf = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
	const Ptop__V1__ProbeState off = PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED,
				   no = PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED,
				   on = PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	bool asked = io_settings.events || io_settings.files;

	uwhy[0] = '\0';
	collector_lane(c, "proc", on, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC, "%s", "");
	bool none = c->ctx->no_ebpf; /* --no-ebpf: the user's choice */

	collector_lane(c, "events", !asked || none ? off : why[0] ? no : on, ebpf, "%s",
		       !asked && !why[0] ? "with --io-events or --io-files" : why);
	collector_lane(c, "files", !io_settings.files || none ? off : fwhy[0] ? no : on, ebpf,
		       "%s", fwhy);
	if (!io_settings.files || fwhy[0]) {
		/* --caps: whether --io-files would have its io_uring lane here */
		if (c->ctx->caps_only && !why[0]) {
			if (kfeature_have(KF_TP_IO_URING_SUBMIT, uwhy, ulen) &&
			    kfeature_have(KF_TP_IO_URING_COMPLETE, uwhy, ulen))
				collector_lane(c, "io_uring", off, ebpf, "with --io-files");
			else
				collector_lane(c, "io_uring", no, ebpf, "%s", uwhy);
		}
		uwhy[0] = '\0';
		return;
	}
	if (kfeature_have(KF_TP_IO_URING_SUBMIT, uwhy, ulen) &&
	    kfeature_have(KF_TP_IO_URING_COMPLETE, uwhy, ulen)) {
		uwhy[0] = '\0';
		collector_lane(c, "io_uring", on, ebpf, "%s", "");
	} else {
		collector_lane(c, "io_uring", no, ebpf, "%s", uwhy);
	}
}

static Ptop__V1__ProbeState io_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	char *buf = NULL;
	size_t cap = 0, len;
	struct proc_io io;
	int err;

	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
	c->reason[0] = '\0';
	if (ctx->caps_only) {
		char why[256] = "", uwhy[200];

		if (!ctx->no_ebpf)
			bpf_util__can_trace(why, sizeof(why));
		io_lanes(c, why, io_settings.files ? why : "with --io-files", uwhy, sizeof(uwhy));
		snprintf(c->detail, sizeof(c->detail),
			 "/proc/PID/io, /proc/PID/stat (the target's user, or CAP_SYS_PTRACE)");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	if (ctx->pid <= 0 && !ctx->cgroup_dir) {
		snprintf(c->reason, sizeof(c->reason), "no target process or cgroup");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	if (ctx->pid <= 0) { /* --cgroup: each process of its subtree, from cgroup.procs */
		err = cgroupfs_read(ctx->cgroup_dir, "cgroup.procs", &buf, &cap, &len);
		free(buf);
		if (err) {
			snprintf(c->reason, sizeof(c->reason), "cannot read %s/cgroup.procs: %s",
				 ctx->cgroup_dir, strerror(-err));
			return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
		}
	} else {
		err = procfs_read_file(ctx->pid, "io", &buf, &cap, &len);
		if (!err && io__parse(buf, &io))
			err = -EINVAL;
		free(buf);
	}
	if (err) {
		char dir[32];

		/* ENOENT: the process is gone (it ended before this check), or its folder
		 * is there without an io file, which is a kernel without task I/O accounting */
		snprintf(dir, sizeof(dir), "/proc/%d", (int)ctx->pid);
		snprintf(c->reason, sizeof(c->reason), "cannot read /proc/%d/io: %s%s",
			 (int)ctx->pid, strerror(-err),
			 err == -EACCES ? " (another user's process: run as its user or as root)"
			 : err != -ENOENT	? ""
			 : access(dir, F_OK)	? " (the process ended before the recorder looked)"
						: " (a kernel without CONFIG_TASK_IO_ACCOUNTING)");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	{
		char why[256] = "", fwhy[256] = "", uwhy[200] = "", what[256];

		if (!io_settings.events && !io_settings.files)
			snprintf(why, sizeof(why),
				 "needs --io-events or --io-files (eBPF at every syscall exit)");
		else if (ctx->no_ebpf)
			snprintf(why, sizeof(why), "--io-%s: not with --no-ebpf",
				 io_settings.files ? "files" : "events");
		else
			bpf_util__can_trace(why, sizeof(why));
		if (!io_settings.files)
			snprintf(fwhy, sizeof(fwhy),
				 "off by default: needs --io-files (eBPF at every syscall entry "
				 "and exit: about 0.6 us more per read or write of the target, "
				 "1.6-1.8x the tracepoint floor, bench/overhead_io.sh)");
		else if (why[0])
			snprintf(fwhy, sizeof(fwhy), "%s", why);
		if (!why[0])
			c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
		io_lanes(c, why, fwhy, uwhy, sizeof(uwhy));
		if (ctx->pid > 0)
			snprintf(what, sizeof(what),
				 "/proc/%d/io each interval; block I/O delay "
				 "(/proc/%d/stat field 42)",
				 (int)ctx->pid, (int)ctx->pid);
		else
			snprintf(what, sizeof(what),
				 "/proc/PID/io of each process of the cgroup's subtree "
				 "(cgroup.procs) each interval (one started since the last: from "
				 "0); block I/O delay (/proc/PID/stat field 42)");
		if (snprintf(c->detail, sizeof(c->detail),
			 "%s: %s; per-file %s%s%s%s; file-system events %s%s", what,
			 delayacct_on() ? "measured"
					: "not measured (kernel.task_delayacct is 0: sysctl "
					  "kernel.task_delayacct=1 before the target starts)",
			 fwhy[0]    ? "figures not collected: "
			 : uwhy[0] ? "figures from raw_tp/sys_enter, raw_tp/sys_exit"
				   : "figures from raw_tp/sys_enter, raw_tp/sys_exit, "
				     "tp_btf/io_uring_submit_req, tp_btf/io_uring_complete",
			 fwhy, uwhy[0] ? "; " IO_URING_NOT : "", uwhy,
			 why[0] ? "not collected: " : "from raw_tp/sys_exit", why) >=
		    (int)sizeof(c->detail))
			c->detail[sizeof(c->detail) - 1] = '\0'; /* cut: the reasons come first */
	}
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

/* Read the counters and the delay ticks (*TICKS untouched when not measured). */
static int read_io(struct io_priv *p, pid_t pid, struct proc_io *io, uint64_t *ticks)
{
	size_t len;
	int err;

	err = procfs_read_file(pid, "io", &p->buf, &p->cap, &len);
	if (err)
		return err;
	if (io__parse(p->buf, io))
		return -EINVAL;
	if (!p->delayacct)
		return 0;
	err = procfs_read_file(pid, "stat", &p->buf, &p->cap, &len);
	if (err)
		return err;
	return io__parse_blkio_ticks(p->buf, ticks) ? -EINVAL : 0;
}

static const char *const ev_names[] = {"",	 "denied",  "deleted",
				       "renamed", "truncated", "created"};

/* By (dev, ino, tgid), whatever the generation. */
static int fpath_cmp3(const void *a, const void *b)
{
	const struct io_fpath *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

static int fpath_cmp(const void *a, const void *b)
{
	const struct io_fpath *x = a, *y = b;
	int r = fpath_cmp3(a, b);

	return r ? r : x->gen < y->gen ? -1 : x->gen > y->gen;
}

static int fent_cmp(const void *a, const void *b)
{
	return memcmp(&((const struct io_fent *)a)->k, &((const struct io_fent *)b)->k,
		      sizeof(struct io_file_key));
}

/* Set the path of (DEV, INO, GEN, TGID) to PATH (copied). 0 or -ENOMEM. */
static int fpath_set(struct io_bpf_lane *b, uint32_t dev, uint64_t ino, uint32_t gen,
		     uint32_t tgid, const char *path)
{
	struct io_fpath key = {.ino = ino, .dev = dev, .tgid = tgid, .gen = gen}, *e, **at;
	char *copy;

	at = tfind(&key, &b->fpaths, fpath_cmp);
	if (at) {
		if (!strcmp((*at)->path, path))
			return 0;
		if (!(copy = strdup(path)))
			return -ENOMEM;
		free((*at)->path);
		(*at)->path = copy;
		return 0;
	}
	e = malloc(sizeof(*e));
	if (!e || !(e->path = strdup(path))) {
		free(e);
		return -ENOMEM;
	}
	*e = (struct io_fpath){.ino = ino, .dev = dev, .tgid = tgid, .gen = gen, .path = e->path};
	if (!tsearch(e, &b->fpaths, fpath_cmp)) {
		free(e->path);
		free(e);
		return -ENOMEM;
	}
	at = tsearch(e, &b->fnewest, fpath_cmp3); /* this generation is the newest now */
	if (!at)
		return -ENOMEM;
	*at = e;
	return 0;
}

static const char *fpath_get(struct io_bpf_lane *b, uint32_t dev, uint64_t ino, uint32_t gen,
			     uint32_t tgid)
{
	struct io_fpath key = {.ino = ino, .dev = dev, .tgid = tgid, .gen = gen}, **at;

	at = tfind(&key, &b->fpaths, fpath_cmp);
	return at ? (*at)->path : NULL;
}

/* The newest generation seen of (DEV, INO, TGID): the file an open fd of it is. */
static struct io_fpath *fpath_newest(struct io_bpf_lane *b, uint32_t dev, uint64_t ino,
				     uint32_t tgid)
{
	struct io_fpath key = {.ino = ino, .dev = dev, .tgid = tgid}, **at;

	at = tfind(&key, &b->fnewest, fpath_cmp3);
	return at ? *at : NULL;
}

/* Room for a path the recorder builds: a working directory and a path relative to it,
 * PATH_MAX each (an absolute path may be longer than PATH_MAX; no argument is). */
#define IO_PATH_BUF (2 * IO_PATH_LONG + 16)

/* Apply a rename OLD -> NEW (absolute) the target made to every path known. */
static struct {
	const char *old, *new;
	int err;
} rename_walk;

static void rename_one(const void *node, VISIT which, int depth)
{
	struct io_fpath *e = *(struct io_fpath *const *)node;
	char buf[IO_PATH_BUF];
	int r;

	(void)depth;
	if ((which != postorder && which != leaf) || rename_walk.err)
		return;
	r = io__rename_path(e->path, rename_walk.old, rename_walk.new, buf, sizeof(buf));
	if (r == 1) {
		char *copy = strdup(buf);

		if (!copy) {
			rename_walk.err = -ENOMEM;
			return;
		}
		free(e->path);
		e->path = copy;
	}
}

/* PATH made absolute against the target's current directory (as it is now). */
static void absolute(pid_t pid, const char *path, char *out, size_t len)
{
	char link[64], cwd[IO_PATH_LONG];
	ssize_t n;

	if (path[0] == '/' || pid <= 0) {
		snprintf(out, len, "%s", path);
		return;
	}
	snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
	n = readlink(link, cwd, sizeof(cwd) - 1);
	if (n <= 0) {
		snprintf(out, len, "%s", path);
		return;
	}
	cwd[n] = '\0';
	if ((size_t)snprintf(out, len, "%s/%s", strcmp(cwd, "/") ? cwd : "", path) >= len)
		snprintf(out, len, "%s", path);
}

/* A file first seen, its path too long for io_seen: from the dentries, whole to
 * PATH_MAX bytes. */
static int on_seen_long(struct io_bpf_lane *b, const struct io_seen_long *e)
{
	char path[sizeof(e->buf) + 8];

	if (e->len > sizeof(e->buf) ||
	    io__seen_long_path(e->buf, e->len, e->truncated, path, sizeof(path)))
		return 0;
	return fpath_set(b, e->dev, e->ino, e->gen, e->tgid, path);
}

/* A file first seen: its path from the dentries. */
static int on_seen(struct io_bpf_lane *b, const struct io_seen *e)
{
	char path[IO_DEPTH * (IO_NAME + sizeof(IO_CUT_MARK)) + 8];

	if (e->depth > IO_DEPTH)
		return 0;
	if (io__seen_path(e->name, e->depth, e->truncated, e->cut, path, sizeof(path)))
		return 0;
	return fpath_set(b, e->dev, e->ino, e->gen, e->tgid, path);
}

/* The path of the file ftruncate's event E truncated (the fd's file at the call, E's
 * dev, ino and gen) into OUT: as the files lane knows it, else the fd's link if that fd
 * is still the file; else "" (unknown: the fd closed, or its number given to another). */
static void truncated_path(struct io_bpf_lane *b, const struct io_fs_event *e, char *out,
			   size_t len)
{
	const char *known = e->dev ? fpath_get(b, e->dev, e->ino, e->gen, e->tgid) : NULL;
	char link[64];
	struct stat st;
	ssize_t n;

	out[0] = '\0';
	if (known) {
		snprintf(out, len, "%s", known);
		return;
	}
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)e->tgid, e->fd);
	if (!e->dev || stat(link, &st) || (uint64_t)st.st_ino != e->ino ||
	    (uint32_t)(major(st.st_dev) << 20 | (minor(st.st_dev) & 0xfffff)) != e->dev)
		return;
	n = readlink(link, out, len - 1);
	out[n > 0 ? n : 0] = '\0';
}

/* One ring buffer record: an IoFsEvent at its time. */
static int on_event(void *ctx, void *data, size_t size)
{
	struct io_bpf_lane *b = ctx;
	const struct io_fs_event *e = data;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__IoFsEvent m = PTOP__V1__IO_FS_EVENT__INIT;
	Ptop__V1__CollectorPayload cp;
	char path[IO_PATH_LONG + sizeof(IO_CUT_MARK)], path2[IO_PATH_LONG + sizeof(IO_CUT_MARK)];
	char syscall[32];
	const char *name;
	int err;

	if (size >= sizeof(struct io_seen) && e->kind == IO_EV_SEEN && !b->err) {
		err = on_seen(b, data);
		if (err)
			b->err = err;
		return 0;
	}
	if (size >= sizeof(struct io_seen_long) && e->kind == IO_EV_SEEN_LONG && !b->err) {
		err = on_seen_long(b, data);
		if (err)
			b->err = err;
		return 0;
	}
	if (size < sizeof(*e) || b->err || e->kind < 1 || e->kind > IO_EV_CREATED ||
	    (e->plen != IO_PATH_MAX && e->plen != IO_PATH_LONG) ||
	    size < sizeof(*e) + 2 * (size_t)e->plen)
		return 0;
	memcpy(path, e->path, e->plen);
	path[e->plen - 1] = '\0';
	memcpy(path2, e->path + e->plen, e->plen);
	path2[e->plen - 1] = '\0';
	if (e->cut & IO_CUT_PATH) /* longer than kept: marked */
		strcat(path, IO_CUT_MARK);
	if (e->cut & IO_CUT_PATH2)
		strcat(path2, IO_CUT_MARK);
	/* the newest path of what it renamed (not from a cut old path: it is no file's) */
	if (e->kind == IO_EV_RENAMED && b->files && !(e->cut & IO_CUT_PATH)) {
		char old[IO_PATH_BUF], new[IO_PATH_BUF];

		absolute((pid_t)e->tgid, path, old, sizeof(old));
		absolute((pid_t)e->tgid, path2, new, sizeof(new));
		rename_walk.old = old;
		rename_walk.new = new;
		rename_walk.err = 0;
		twalk(b->fpaths, rename_one);
		if (rename_walk.err) {
			b->err = rename_walk.err;
			return 0;
		}
	}
	m.kind = (char *)ev_names[e->kind];
	name = syscall_table__name(syscall_table__native(), e->nr);
	if (!name) {
		snprintf(syscall, sizeof(syscall), "sys_%u", e->nr);
		name = syscall;
	}
	m.syscall = (char *)name;
	m.fd = e->fd;
	if (e->fd >= 0) /* ftruncate: its file's path, "" when unknown */
		truncated_path(b, e, path, sizeof(path));
	m.path = path;
	m.new_path = path2;
	m.flags = e->flags;
	m.error = e->kind == IO_EV_DENIED ? (uint32_t)-e->ret : 0;
	m.length = e->length;
	m.tid = e->tid;
	if (b->c->ctx->pid <= 0) /* --cgroup: Event.pid is 0 */
		m.pid = e->tgid;
	err = capture_payload__pack(&ev, &cp, "io", &m.base);
	if (err) {
		b->err = err;
		return 0;
	}
	err = rec_emit_event(b->c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, e->ts, 0);
	capture_payload__release(&cp);
	if (err)
		b->err = err;
	return 0;
}

static void fpath_keep(void *p)
{
	(void)p;
}

static void fpath_free(void *p)
{
	struct io_fpath *e = p;

	free(e->path);
	free(e);
}

static void io_lane_free(struct io_bpf_lane *b)
{
	if (!b)
		return;
	ring_buffer__free(b->rb);
	io_bpf__destroy(b->skel);
	tdestroy(b->fnewest, fpath_keep); /* the entries are fpaths' */
	tdestroy(b->fpaths, fpath_free);
	tdestroy(b->fents, free);
	for (int i = 0; i < IO_URING_OPS; i++)
		free(b->uring_names[i]);
	free(b->lost_vals);
	free(b->vals);
	free(b->u64s);
	free(b->uvals);
	free(b);
}

/* The io_uring opcodes' names from the running kernel's BTF (enum io_uring_op), else
 * "io_uring:opN". 0 or -ENOMEM. */
static int uring_names(struct io_bpf_lane *b)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t = NULL;
	int id;

	if (btf && (id = btf__find_by_name_kind(btf, "io_uring_op", BTF_KIND_ENUM)) > 0)
		t = btf__type_by_id(btf, (__u32)id);
	for (int i = 0; t && i < btf_vlen(t); i++) {
		const struct btf_enum *e = btf_enum(t) + i;
		const char *name = btf__name_by_offset(btf, e->name_off);

		if (e->val < 0 || e->val >= IO_URING_OPS || !name)
			continue;
		if (!strncmp(name, "IORING_OP_", 10))
			name += 10;
		free(b->uring_names[e->val]);
		if (asprintf(&b->uring_names[e->val], "io_uring:%s", name) < 0) {
			b->uring_names[e->val] = NULL;
			btf__free(btf);
			return -ENOMEM;
		}
	}
	btf__free(btf);
	for (int i = 0; i < IO_URING_OPS; i++)
		if (!b->uring_names[i] && asprintf(&b->uring_names[i], "io_uring:op%d", i) < 0) {
			b->uring_names[i] = NULL;
			return -ENOMEM;
		}
	return 0;
}

static int io_lane_start(struct collector *c, struct io_bpf_lane **out, char *why, size_t len)
{
	const struct syscall_table *tab = syscall_table__native();
	struct io_bpf_lane *b = calloc(1, sizeof(*b));
	int err, fd, ncpus = bpf_util__ncpus();
	uint32_t nr;

	*out = NULL;
	if (!b || ncpus <= 0 || !(b->lost_vals = calloc((size_t)ncpus, sizeof(uint64_t))) ||
	    !(b->vals = calloc((size_t)ncpus, sizeof(struct io_file_val))) ||
	    !(b->u64s = calloc((size_t)ncpus, sizeof(uint64_t))) ||
	    !(b->uvals = calloc((size_t)ncpus, sizeof(struct io_uring_val)))) {
		io_lane_free(b);
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	b->c = c;
	b->ncpus = ncpus;
	b->files = io_settings.files;
	b->events = io_settings.events;
	if (b->files && uring_names(b)) {
		io_lane_free(b);
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	bpf_util__open_log(c->ctx->verbose);
	b->skel = io_bpf__open();
	if (!b->skel) {
		err = -errno;
		bpf_util__format_error(why, len, "open io BPF", err);
		goto fail;
	}
	b->skel->rodata->targ_tgid = (__u32)c->ctx->pid;
	b->skel->rodata->targ_cgid = c->ctx->cgroup_id;
	b->skel->rodata->targ_cglevel = c->ctx->cgroup_level;
	b->skel->rodata->events_on = true; /* --io-events, or implied by --io-files */
	b->skel->rodata->files_on = b->files;
	if (b->files && bpf_map__set_max_entries(b->skel->maps.io_events, IO_RINGBUF_FILES)) {
		err = -errno;
		bpf_util__format_error(why, len, "size io_events", err);
		goto fail;
	}
	/* the io_uring tracepoints are the io_uring lane's: a kernel before 6.3 has no
	 * io_uring_submit_req (check() said so in the lanes and the detail) */
	b->uring = b->files && kfeature_have(KF_TP_IO_URING_SUBMIT, NULL, 0) &&
		   kfeature_have(KF_TP_IO_URING_COMPLETE, NULL, 0);
	if (!b->files)
		bpf_program__set_autoload(b->skel->progs.io_enter, false);
	if (!b->uring) {
		bpf_program__set_autoload(b->skel->progs.io_uring_submit, false);
		bpf_program__set_autoload(b->skel->progs.io_uring_done, false);
	}
	err = io_bpf__load(b->skel);
	err = err ?: bpf_util__loaded(b->skel->obj, "io");
	if (err) {
		bpf_util__format_error(why, len, "load io BPF", err);
		goto fail;
	}
	fd = bpf_map__fd(b->skel->maps.io_kind);
	for (nr = 0; nr < IO_MAX_NR; nr++) {
		const char *name = syscall_table__name(tab, nr);
		uint32_t k = IO_K_NONE;

		for (size_t i = 0; name && i < sizeof(io_kinds) / sizeof(io_kinds[0]); i++)
			if (!strcmp(io_kinds[i].name, name))
				k = io_kinds[i].kind;
		for (uint32_t op = 0; name && b->files && op < IO_OP_SYSCALLS; op++)
			if (!strcmp(io_op_names[op], name))
				k = IO_K_OP + op;
		if (k != IO_K_NONE && bpf_map_update_elem(fd, &nr, &k, BPF_ANY)) {
			err = -errno;
			bpf_util__format_error(why, len, "fill io_kind", err);
			goto fail;
		}
	}
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.io_events), on_event, b, NULL);
	if (!b->rb) {
		err = -errno;
		bpf_util__format_error(why, len, "ring buffer", err);
		goto fail;
	}
	b->skel->links.io_exit = bpf_program__attach(b->skel->progs.io_exit);
	if (!b->skel->links.io_exit) {
		err = -errno;
		bpf_util__format_error(why, len, "attach raw_tp/sys_exit", err);
		goto fail;
	}
	if (b->files) {
		struct {
			struct bpf_program *p;
			struct bpf_link **l;
			const char *what;
		} at[] = {
		    {b->skel->progs.io_enter, &b->skel->links.io_enter, "attach raw_tp/sys_enter"},
		    {b->skel->progs.io_uring_submit, &b->skel->links.io_uring_submit,
		     "attach tp_btf/io_uring_submit_req"},
		    {b->skel->progs.io_uring_done, &b->skel->links.io_uring_done,
		     "attach tp_btf/io_uring_complete"},
		};

		for (size_t i = 0; i < (b->uring ? 3 : 1); i++) {
			*at[i].l = bpf_program__attach(at[i].p);
			if (!*at[i].l) {
				err = -errno;
				bpf_util__format_error(why, len, at[i].what, err);
				goto fail;
			}
		}
	}
	*out = b;
	return 0;
fail:
	io_lane_free(b);
	return err;
}

/* The kernel's dev_t (major << 20 | minor) as stat(2)'s st_dev. */
static uint64_t user_dev(uint32_t kdev)
{
	return makedev(kdev >> 20, kdev & 0xfffff);
}

/* The paths of the files the target has open now, from /proc/PID/fd (renamed by anyone,
 * deleted: " (deleted)"), for the files known. Unreadable: nothing changes. */
static int refresh_paths_of(struct io_bpf_lane *b, pid_t pid)
{
	char dir[64], link[300], path[4096];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		struct io_fpath *e;
		struct stat st;
		ssize_t n;
		uint32_t kdev;

		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(link, sizeof(link), "%s/%s", dir, de->d_name) >= sizeof(link) ||
		    stat(link, &st))
			continue;
		kdev = (uint32_t)(major(st.st_dev) << 20 | (minor(st.st_dev) & 0xfffff));
		/* an open inode is not used again: the newest generation seen is this file */
		e = fpath_newest(b, kdev, st.st_ino, (uint32_t)pid);
		if (!e)
			continue; /* not a file it read or wrote */
		n = readlink(link, path, sizeof(path) - 1);
		if (n <= 0)
			continue;
		path[n] = '\0';
		err = fpath_set(b, kdev, st.st_ino, e->gen, (uint32_t)pid, path);
	}
	closedir(d);
	return err;
}

/* refresh_paths_of the target, or of each process of the cgroup (at the last poll). */
static int refresh_paths(struct io_bpf_lane *b)
{
	struct io_priv *p = b->c->priv;
	int err = 0;

	if (b->c->ctx->pid > 0)
		return refresh_paths_of(b, b->c->ctx->pid);
	for (size_t i = 0; !err && p && i < p->nprocs; i++)
		err = refresh_paths_of(b, p->procs[i].pid);
	return err;
}

static uint64_t d(uint64_t cur, uint64_t prev);

/* File operation O from its key, its sums SUM over the CPUs and the last poll's PV:
 * its deltas, its histogram into HIST (IO_HIST), MAX the generation's maximum; NAME
 * (NAME_SIZE): a pipe's or socket's name, "" for the others (the path is looked up
 * later). */
static void file_op_fill(struct io_bpf_lane *b, const struct io_file_key *key,
			 const struct io_file_val *sum, const struct io_file_val *pv,
			 uint64_t max, Ptop__V1__IoFileOp *o, uint64_t *hist, char *name,
			 size_t name_size)
{
	size_t nh = 0;

	ptop__v1__io_file_op__init(o);
	o->dev = user_dev(key->dev);
	o->ino = key->ino;
	o->gen = key->gen;
	o->pid = key->tgid;
	o->op = key->op >= IO_OP_URING ? b->uring_names[(key->op - IO_OP_URING) % IO_URING_OPS]
	    : key->op < IO_OP_SYSCALLS ? (char *)io_op_names[key->op]
				      : (char *)"unknown";
	o->type = (char *)io__file_type(key->mode);
	name[0] = '\0';
	if (key->mode == 0010000 || key->mode == 0140000) /* no path: as /proc's links */
		snprintf(name, name_size, "%s:[%llu]",
			 key->mode == 0010000 ? "pipe" : "socket", (unsigned long long)key->ino);
	/* the path and the histogram: after the loop (the tables move as they grow) */
	o->calls = d(sum->calls, pv->calls);
	o->errors = d(sum->errors, pv->errors);
	o->bytes = d(sum->bytes, pv->bytes);
	o->call_ns = d(sum->time_ns, pv->time_ns);
	o->timed = d(sum->timed, pv->timed);
	for (size_t i = 0; i < IO_HIST; i++) {
		hist[i] = d(sum->hist[i], pv->hist[i]);
		if (hist[i])
			nh = i + 1;
	}
	/* the maximum: the generation's; at least the lowest value of the highest
	 * bucket (a call that ended as the generation flipped has it in the next) */
	o->max_ns = max;
	if (nh && o->max_ns < (1ull << (nh - 1)))
		o->max_ns = 1ull << (nh - 1);
	if (!o->timed)
		o->max_ns = 0;
	o->n_hist = nh;
}

/* IoUringOp per io_uring opcode with requests since the last poll, into MSG (UOPS,
 * UOPP: room for IO_URING_OPS). */
static void files_uring(struct io_bpf_lane *b, Ptop__V1__IoFiles *msg,
			Ptop__V1__IoUringOp *uops, Ptop__V1__IoUringOp **uopp)
{
	for (uint32_t op = 0; op < IO_URING_OPS; op++) {
		struct io_uring_val sum = {0};
		uint64_t w[4];

		if (bpf_util__percpu_sum(b->skel->maps.io_uring, op, b->uvals, sizeof(*b->uvals), w,
					 4))
			continue;
		sum.submitted = w[0];
		sum.completed = w[1];
		sum.errors = w[2];
		sum.bytes = w[3];
		if (!memcmp(&sum, &b->uprev[op], sizeof(sum)))
			continue;
		ptop__v1__io_uring_op__init(&uops[msg->n_uring]);
		uops[msg->n_uring].opcode = op;
		uops[msg->n_uring].op = b->uring_names[op] + strlen("io_uring:");
		uops[msg->n_uring].submitted = d(sum.submitted, b->uprev[op].submitted);
		uops[msg->n_uring].completed = d(sum.completed, b->uprev[op].completed);
		uops[msg->n_uring].errors = d(sum.errors, b->uprev[op].errors);
		uops[msg->n_uring].bytes = d(sum.bytes, b->uprev[op].bytes);
		uopp[msg->n_uring] = &uops[msg->n_uring];
		msg->n_uring++;
		b->uprev[op] = sum;
	}
}

/* The files lane's drops since the last poll (its counters), one drop each. */
static int files_drops(struct collector *c, struct io_bpf_lane *b)
{
	static const char *const cnt_kind[IO_CNT_MAX] = {"map_full", "map_full", "unresolved",
							 "ringbuf_paths"};
	static const char *const cnt_detail[IO_CNT_MAX] = {
	    "io_files full: per-file operations not counted",
	    "io_start full: per-file calls not timed",
	    "per-file operations whose fd was no file at their exit (closed meanwhile)",
	    "io_events full: the paths of files first seen lost"};
	uint64_t cnt[IO_CNT_MAX] = {0};
	int err = 0;

	if (bpf_util__percpu_sum(b->skel->maps.io_counters, 0, b->lost_vals, sizeof(uint64_t),
				 &cnt[0], 1) == 0) {
		for (uint32_t i = 1; i < IO_CNT_MAX; i++)
			bpf_util__percpu_sum(b->skel->maps.io_counters, i, b->lost_vals,
					     sizeof(uint64_t), &cnt[i], 1);
		for (int i = 0; !err && i < IO_CNT_MAX; i++) {
			err = rec_emit_drop(c, cnt_kind[i], d(cnt[i], b->prev_cnt[i]),
					    cnt_detail[i]);
			b->prev_cnt[i] = cnt[i];
		}
	}
	return err;
}

/* The files lane's interval: IoFileOp per (file, op) with calls since the last poll and
 * IoUringOp per opcode with requests, in one IoFiles; its drops. */
static int files_poll(struct collector *c, struct io_bpf_lane *b, uint64_t now_ns,
		      uint64_t interval)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__IoFiles msg = PTOP__V1__IO_FILES__INIT;
	Ptop__V1__CollectorPayload cp;
	Ptop__V1__IoFileOp *ops = NULL, **opp = NULL;
	Ptop__V1__IoUringOp uops[IO_URING_OPS], *uopp[IO_URING_OPS];
	uint64_t *hists = NULL;
	struct {
		uint32_t kdev, gen;
		char name[64]; /* a pipe's or socket's ("pipe:[INO]"); "" for the others */
	} *files = NULL;
	size_t n = 0, cap = 0;
	int fd = bpf_map__fd(b->skel->maps.io_files), err;
	struct io_file_key key, next, *prev = NULL;

	err = refresh_paths(b);
	b->gen++;
	b->skel->bss->io_gen = b->gen; /* programs write the next generation's maxima now */
	while (!err && !bpf_map_get_next_key(fd, prev, &next)) {
		struct io_file_val sum = {0}, *pv;
		struct io_fent probe = {.k = next}, **at, *e;
		uint64_t max = 0;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, b->vals))
			continue;
		/* the recorder's start pipe, read by the command before its exec: not its I/O */
		if (c->ctx->start_pipe_ino && key.ino == c->ctx->start_pipe_ino &&
		    key.mode == 0010000 && key.tgid == (uint32_t)c->ctx->pid)
			continue;
		for (int i = 0; i < b->ncpus; i++) {
			/* __u64, as the struct's fields (uint64_t is another type: aliasing) */
			__u64 *dst = (__u64 *)&sum;
			const __u64 *src = (const __u64 *)&b->vals[i];

			for (size_t w = 0; w < IO_VAL_SUMMED; w++)
				dst[w] += src[w];
			/* the maximum of the generation that just ended */
			if (b->vals[i].max_gen == b->gen - 1 && b->vals[i].max_ns > max)
				max = b->vals[i].max_ns;
		}
		at = tfind(&probe, &b->fents, fent_cmp);
		if (!at) {
			e = calloc(1, sizeof(*e));
			if (e)
				e->k = key;
			if (!e || !tsearch(e, &b->fents, fent_cmp)) {
				free(e);
				err = -ENOMEM;
				break;
			}
		} else {
			e = *at;
		}
		pv = &e->prev;
		if (sum.calls == pv->calls && sum.bytes == pv->bytes && sum.errors == pv->errors)
			continue;
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			void *a1 = realloc(ops, nc * sizeof(*ops)), *a2, *a3, *a4;

			if (a1)
				ops = a1;
			a2 = realloc(opp, nc * sizeof(*opp));
			if (a2)
				opp = a2;
			a3 = realloc(hists, nc * IO_HIST * sizeof(*hists));
			if (a3)
				hists = a3;
			a4 = realloc(files, nc * sizeof(*files));
			if (a4)
				files = a4;
			if (!a1 || !a2 || !a3 || !a4) {
				err = -ENOMEM;
				break;
			}
			cap = nc;
		}
		file_op_fill(b, &key, &sum, pv, max, &ops[n], &hists[n * IO_HIST], files[n].name,
			     sizeof(files[n].name));
		files[n].kdev = key.dev;
		files[n].gen = key.gen;
		n++;
		*pv = sum;
	}
	/* The paths of the files first seen since the ring buffer was read: a program
	 * sends a file's path before it adds the file's first call to io_files. */
	if (!err && ring_buffer__consume(b->rb) < 0 && !b->err)
		b->err = -EIO;
	if (!err)
		err = b->err;
	/* the pointers into ops, hists and files, now that none of them moves any more */
	for (size_t i = 0; !err && i < n; i++) {
		const char *path = files[i].name[0] ? files[i].name
				 : fpath_get(b, files[i].kdev, ops[i].ino, files[i].gen, ops[i].pid);

		opp[i] = &ops[i];
		ops[i].hist = &hists[i * IO_HIST];
		ops[i].path = (char *)(path ? path : "");
	}
	msg.ops = opp;
	msg.n_ops = n;
	msg.generations = true;
	if (!err && b->uring)
		files_uring(b, &msg, uops, uopp);
	msg.uring = uopp;
	if (!err && (msg.n_ops || msg.n_uring)) {
		err = capture_payload__pack(&ev, &cp, "io", &msg.base);
		if (!err) {
			err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED,
					     now_ns, interval);
			capture_payload__release(&cp);
		}
	}
	free(ops);
	free(opp);
	free(hists);
	free(files);
	return err ? err : files_drops(c, b);
}

/* The events since the last poll, and what the ring buffer could not take. */
static int io_lane_poll(struct collector *c, struct io_bpf_lane *b)
{
	uint64_t lost = 0;
	int err;

	if (ring_buffer__consume(b->rb) < 0 && !b->err)
		b->err = -EIO;
	err = b->err;
	if (err)
		return err;
	if (bpf_util__percpu_sum(b->skel->maps.io_lost, 0, b->lost_vals, sizeof(uint64_t), &lost,
				 1) == 0) {
		err = rec_emit_drop(c, "ringbuf", lost - b->prev_lost,
				    "io_events full: file-system events lost");
		b->prev_lost = lost;
	}
	return err;
}

static int cg_poll(struct collector *c, struct io_priv *p, uint64_t now_ns, bool emit);

static int io_start(struct collector *c)
{
	struct io_priv *p = calloc(1, sizeof(*p));
	long hz = sysconf(_SC_CLK_TCK);

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	c->priv = p;
	if (c->source == PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF) {
		char why[256];
		int err = io_lane_start(c, &p->bpf, why, sizeof(why));

		if (err == -ENOMEM)
			return err;
		if (err) { /* the /proc lane alone, and the probe says why */
			char *at = strstr(c->detail, "per-file figures from ");

			collector_lane(c, "events", PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
				       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", why);
			if (io_settings.files)
				collector_lane(c, "files",
					       PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
					       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s",
					       why);
			if (collector_lane_get(c, "io_uring"))
				collector_lane(c, "io_uring",
					       PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
					       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s",
					       why);

			if (!at)
				at = strstr(c->detail, "file-system events from raw_tp/sys_exit");
			c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
			if (at && io_settings.files)
				snprintf(at, sizeof(c->detail) - (size_t)(at - c->detail),
					 "per-file figures not collected: %s; file-system events "
					 "not collected: %s", why, why);
			else if (at)
				snprintf(at, sizeof(c->detail) - (size_t)(at - c->detail),
					 "file-system events not collected: %s", why);
		}
		if (p->bpf)
			p->bpf->prev_ns = rec_now_ns();
	}
	p->delayacct = delayacct_on();
	p->tick_ns = hz > 0 ? 1000000000ull / (uint64_t)hz : 10000000ull;
	p->prev_ns = rec_now_ns();
	if (c->ctx->pid <= 0) /* --cgroup: the baselines of the processes there now */
		return cg_poll(c, p, p->prev_ns, false);
	if (read_io(p, c->ctx->pid, &p->prev, &p->prev_ticks) == 0)
		p->have_prev = true;
	return 0;
}

static uint64_t d(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : 0;
}

/* One IoSample: the change from PREV (ticks PREV_TICKS) to IO (TICKS) over INTERVAL, of
 * process PID in --cgroup mode (0: the target's, Event.pid). */
static int emit_sample(struct collector *c, struct io_priv *p, pid_t pid,
		       const struct proc_io *io, uint64_t ticks, const struct proc_io *prev,
		       uint64_t prev_ticks, uint64_t now_ns, uint64_t interval)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__IoSample s = PTOP__V1__IO_SAMPLE__INIT;
	Ptop__V1__CollectorPayload cp;
	int err;

	s.rchar = d(io->rchar, prev->rchar);
	s.wchar = d(io->wchar, prev->wchar);
	s.syscr = d(io->syscr, prev->syscr);
	s.syscw = d(io->syscw, prev->syscw);
	s.read_bytes = d(io->read_bytes, prev->read_bytes);
	s.write_bytes = d(io->write_bytes, prev->write_bytes);
	s.cancelled_write_bytes = d(io->cancelled_write_bytes, prev->cancelled_write_bytes);
	if (p->delayacct) {
		s.iowait_measured = true;
		s.iowait_ns = d(ticks, prev_ticks) * p->tick_ns;
	}
	s.pid = (uint32_t)pid;
	err = capture_payload__pack(&ev, &cp, "io", &s.base);
	if (err)
		return err;
	err =
	    rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, now_ns, interval);
	capture_payload__release(&cp);
	return err;
}

/* A process PID ended and was reaped before the recorder could read its counters: what it
 * did from SINCE_NS (CLOCK_MONOTONIC: its last read; 0: none, from the recording's start) to
 * its end is not counted. A drop notice of kind "ended_unread", one per process; `report io`
 * reads the pid and the start back from its detail ("pid N from_ns T: ..."). */
static int note_unread(struct collector *c, pid_t pid, uint64_t since_ns)
{
	char detail[256];

	snprintf(detail, sizeof(detail),
		 "pid %d from_ns %" PRIu64 ": the process ended and was reaped before the "
		 "recorder's read; its I/O from then to its end is not counted",
		 (int)pid, since_ns);
	return rec_emit_drop(c, "ended_unread", 1, detail);
}

/* cgroupfs_walk callback: append the processes of one directory of the subtree. */
static int cg_list_dir(const char *dir, const char *rel, void *arg)
{
	struct io_priv *p = arg;
	size_t len;

	(void)rel;
	if (cgroupfs_read(dir, "cgroup.procs", &p->cgbuf, &p->cgcap, &len))
		return 0; /* removed meanwhile */
	return cgroupfs_parse_procs(p->cgbuf, &p->pids, &p->npids, &p->cappids) == -ENOMEM
		   ? -ENOMEM
		   : 0;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

/* CLOCK_BOOTTIME in clock ticks (as /proc/PID/stat's starttime). */
static uint64_t boot_ticks(const struct io_priv *p)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) / p->tick_ns;
}

/* A + B, field by field, into A. */
static void io_add(struct proc_io *a, const struct proc_io *b)
{
	a->rchar += b->rchar;
	a->wchar += b->wchar;
	a->syscr += b->syscr;
	a->syscw += b->syscw;
	a->read_bytes += b->read_bytes;
	a->write_bytes += b->write_bytes;
	a->cancelled_write_bytes += b->cancelled_write_bytes;
}

/* --cgroup: the processes of the subtree now; for each, its IoSample since the last poll
 * (EMIT; else only the baselines). A process not seen at the last poll is counted from 0
 * when it started since then (a new process's counters start at 0), else from now. A
 * process that started and ended between two polls is not seen itself: its counters are
 * in its parent's once the parent waits for it (the kernel's accounting). A process seen
 * and reaped (gone from /proc) by a parent of the cgroup: its last counters are taken off
 * the parent's next change, so they are not counted twice (what it did after its last
 * poll is its parent's then). One that left cgroup.procs but is still in /proc (a
 * zombie) is kept until it is reaped; a zombie's counters are final: read once, its last
 * row. One reaped by a parent outside the cgroup before that read: its last interval is
 * lost, said by a drop ended_unread (note_unread). 0 or -errno. */
static int cg_poll(struct collector *c, struct io_priv *p, uint64_t now_ns, bool emit)
{
	uint64_t interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0, now_ticks;
	struct io_proc *next = NULL;
	size_t n = 0, unreadable = 0, malformed = 0;
	int err;

	p->npids = 0;
	err = cgroupfs_walk(c->ctx->cgroup_dir, cg_list_dir, p);
	if (err == -ENOMEM)
		return err;
	if (err) /* the cgroup itself is gone or unreadable: no process this interval */
		p->npids = 0;
	now_ticks = boot_ticks(p);
	if (p->npids > 1)
		qsort(p->pids, p->npids, sizeof(*p->pids), pid_cmp);
	if (!(next = calloc(p->npids + p->nprocs + 1, sizeof(*next))))
		return -ENOMEM;
	/* those gone from cgroup.procs: reaped (their parent owes their counters), or
	 * zombies (kept) */
	for (size_t i = 0; i < p->nprocs; i++) {
		struct io_proc *o = &p->procs[i], key, *parent;
		char dir[32];

		if (p->npids && bsearch(&o->pid, p->pids, p->npids, sizeof(*p->pids), pid_cmp))
			continue;
		snprintf(dir, sizeof(dir), "/proc/%d", (int)o->pid);
		if (!access(dir, F_OK)) {
			struct proc_stat st;
			struct proc_io io, base = o->prev;
			uint64_t ticks = 0;

			next[n] = *o;
			memset(&next[n].reaped, 0, sizeof(o->reaped));
			/* a zombie not yet reaped: its counters are final, read once, so its
			 * last interval is not lost when a parent outside the cgroup reaps it */
			if (emit && !o->final && !procfs_read_stat(o->pid, &st) && st.state == 'Z' &&
			    !read_io(p, o->pid, &io, &ticks)) {
				io_add(&base, &o->reaped);
				err = emit_sample(c, p, o->pid, &io, ticks, &base, o->prev_ticks,
						  now_ns, interval);
				if (err) {
					free(next);
					return err;
				}
				next[n].prev = io;
				next[n].prev_ticks = ticks;
				next[n].read_ns = now_ns;
				next[n].final = true;
			}
			n++;
			continue;
		}
		key.pid = o->ppid;
		/* in this loop nprocs > 0: procs is not NULL */
		parent = bsearch(&key, p->procs, p->nprocs, sizeof(*p->procs), pid_cmp);
		if (parent)
			io_add(&parent->reaped, &o->prev);
		else if (emit && !o->final && (err = note_unread(c, o->pid, o->read_ns))) {
			/* reaped by a parent outside the cgroup: its last interval is lost */
			free(next);
			return err;
		}
	}
	for (size_t i = 0; !err && i < p->npids; i++) {
		struct io_proc key = {.pid = p->pids[i]}, *old, *e;
		struct proc_stat st;
		struct proc_io io;
		uint64_t ticks = 0;
		int rc;

		if (i && p->pids[i] == p->pids[i - 1])
			continue;
		rc = read_io(p, key.pid, &io, &ticks);
		rc = rc ?: procfs_read_stat(key.pid, &st);
		if (rc) {
			if (!procfs_is_gone(key.pid, rc))
				*(rc == -EINVAL ? &malformed : &unreadable) += 1;
			continue;
		}
		e = &next[n++];
		*e = (struct io_proc){.pid = key.pid,
				      .ppid = st.ppid,
				      .prev = io,
				      .prev_ticks = ticks,
				      .read_ns = now_ns};
		old = p->nprocs ? bsearch(&key, p->procs, p->nprocs, sizeof(*p->procs), pid_cmp)
				: NULL;
		if (old) {
			struct proc_io base = old->prev;

			io_add(&base, &old->reaped);
			if (emit)
				err = emit_sample(c, p, key.pid, &io, ticks, &base, old->prev_ticks,
						  now_ns, interval);
		} else if (emit && st.starttime >= p->prev_boot_ticks) {
			struct proc_io zero = {0};

			err = emit_sample(c, p, key.pid, &io, ticks, &zero, 0, now_ns, interval);
		}
	}
	if (err) {
		free(next);
		return err;
	}
	if (n > 1)
		qsort(next, n, sizeof(*next), pid_cmp);
	free(p->procs);
	p->procs = next;
	p->nprocs = n;
	p->prev_ns = now_ns;
	p->prev_boot_ticks = now_ticks;
	err = rec_emit_drop(c, "proc_malformed", malformed, "io");
	return err ?: rec_emit_drop(c, "proc_unreadable", unreadable, "io");
}

static int io_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct io_priv *p = c->priv;
	struct proc_io io;
	uint64_t ticks = 0, interval;
	int err;

	(void)flags;
	if (!p)
		return -EINVAL;
	if (p->bpf && (err = io_lane_poll(c, p->bpf)))
		return err;
	if (p->bpf && p->bpf->files) {
		err = files_poll(c, p->bpf, now_ns,
				 now_ns > p->bpf->prev_ns ? now_ns - p->bpf->prev_ns : 0);
		p->bpf->prev_ns = now_ns;
		if (err)
			return err;
	}
	if (c->ctx->pid <= 0)
		return cg_poll(c, p, now_ns, true);
	err = read_io(p, c->ctx->pid, &io, &ticks);
	if (err && procfs_is_gone(c->ctx->pid, err)) {
		/* reaped by its parent before this read: the interval since the last read
		 * (or since the start) is not measured; said once */
		if (p->gone)
			return 0;
		p->gone = true;
		return note_unread(c, c->ctx->pid, p->have_prev ? p->prev_ns : 0);
	}
	if (err == -EINVAL)
		return rec_emit_drop(c, "proc_malformed", 1, "io");
	if (err)
		return rec_emit_drop(c, "proc_unreadable", 1, "io");
	if (!p->have_prev) { /* the baseline of the next interval */
		p->prev = io;
		p->prev_ticks = ticks;
		p->prev_ns = now_ns;
		p->have_prev = true;
		return 0;
	}
	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	err = emit_sample(c, p, 0, &io, ticks, &p->prev, p->prev_ticks, now_ns, interval);
	p->prev = io;
	p->prev_ticks = ticks;
	p->prev_ns = now_ns;
	return err;
}

static void io_stop(struct collector *c)
{
	struct io_priv *p = c->priv;

	if (!p)
		return;
	io_lane_free(p->bpf);
	free(p->buf);
	free(p->procs);
	free(p->pids);
	free(p->cgbuf);
	free(p);
	c->priv = NULL;
}

const struct collector_ops io_collector = {
    .name = "io",
    .summary =
	"I/O counters per interval: bytes and syscalls read and written, disk bytes, "
	"block I/O delay (/proc/PID/io, stat); file-system events with --io-events (eBPF sys_exit); "
	"per file and operation with --io-files (eBPF sys_enter/sys_exit, io_uring tracepoints)",
    .opts = io_opts,
    .settings = &io_settings,
    .settings_size = sizeof(io_settings),
    .check = io_check,
    .start = io_start,
    .poll = io_poll,
    .stop = io_stop,
};
