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
 * Per-file figures (reads, writes and latency per file and per operation) and file-system
 * events need an eBPF lane this collector does not have yet: the probe detail says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collectors/io/io.h"
#include "collectors/io/io.pb-c.h"
#include "collectors/io/io.skel.h"
#include "collectors/io/record.h"
#include "proto/capture.h"
#include "proto/syscall_table.h"
#include "record/bpf_util.h"
#include "record/collector.h"
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
    {.name = NULL},
};

static const struct {
	const char *name;
	enum io_kind kind;
} io_kinds[] = {
    {"open", IO_K_OPEN},	  {"creat", IO_K_OPEN},	       {"openat", IO_K_OPENAT},
    {"openat2", IO_K_OPENAT},	  {"unlink", IO_K_UNLINK},     {"rmdir", IO_K_UNLINK},
    {"unlinkat", IO_K_UNLINKAT},  {"rename", IO_K_RENAME},     {"renameat", IO_K_RENAMEAT},
    {"renameat2", IO_K_RENAMEAT}, {"truncate", IO_K_TRUNCATE}, {"ftruncate", IO_K_FTRUNCATE},
};

struct io_bpf_lane {
	struct io_bpf *skel;
	struct ring_buffer *rb;
	struct collector *c;
	int err; /* the first emit error of a ring buffer callback */
	uint64_t prev_lost;
	uint64_t *lost_vals; /* ncpus */
};

struct io_priv {
	struct io_bpf_lane *bpf; /* --io-events with eBPF; NULL: the /proc lane alone */
	char *buf;
	size_t cap;
	struct proc_io prev;
	uint64_t prev_ticks, prev_ns, tick_ns;
	bool have_prev, delayacct;
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
		snprintf(c->detail, sizeof(c->detail),
			 "/proc/PID/io, /proc/PID/stat (the target's user, or CAP_SYS_PTRACE)");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	if (ctx->pid <= 0) {
		snprintf(c->reason, sizeof(c->reason),
			 "/proc/PID/io is one process's: use --pid or a command, not --cgroup");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	err = procfs_read_file(ctx->pid, "io", &buf, &cap, &len);
	if (!err && io__parse(buf, &io))
		err = -EINVAL;
	free(buf);
	if (err) {
		snprintf(c->reason, sizeof(c->reason), "cannot read /proc/%d/io: %s%s",
			 (int)ctx->pid, strerror(-err),
			 err == -EACCES	  ? " (another user's process: run as its user or as root)"
			 : err == -ENOENT ? " (a kernel without CONFIG_TASK_IO_ACCOUNTING)"
					  : "");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	{
		char why[256] = "";

		if (!io_settings.events)
			snprintf(why, sizeof(why),
				 "needs --io-events (eBPF at every syscall exit)");
		else if (ctx->no_ebpf)
			snprintf(why, sizeof(why), "--io-events: not with --no-ebpf");
		else
			bpf_util__can_trace(why, sizeof(why));
		if (!why[0])
			c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
		snprintf(c->detail, sizeof(c->detail),
			 "/proc/%d/io each interval; block I/O delay (/proc/%d/stat field 42): %s; "
			 "per-file figures not collected: no eBPF lane for them yet; file-system "
			 "events %s%s",
			 (int)ctx->pid, (int)ctx->pid,
			 delayacct_on() ? "measured"
					: "not measured (kernel.task_delayacct is 0: sysctl "
					  "kernel.task_delayacct=1 before the target starts)",
			 why[0] ? "not collected: " : "from raw_tp/sys_exit", why);
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

static const char *const ev_names[] = {"", "denied", "deleted", "renamed", "truncated"};

/* One ring buffer record: an IoFsEvent at its time. */
static int on_event(void *ctx, void *data, size_t size)
{
	struct io_bpf_lane *b = ctx;
	const struct io_fs_event *e = data;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__IoFsEvent m = PTOP__V1__IO_FS_EVENT__INIT;
	Ptop__V1__CollectorPayload cp;
	char path[IO_PATH_MAX], link[64], syscall[32];
	const char *name;
	int err;

	if (size < sizeof(*e) || b->err || e->kind < 1 || e->kind > 4)
		return 0;
	memcpy(path, e->path, sizeof(path));
	path[sizeof(path) - 1] = '\0';
	m.kind = (char *)ev_names[e->kind];
	name = syscall_table__name(syscall_table__native(), e->nr);
	if (!name) {
		snprintf(syscall, sizeof(syscall), "sys_%u", e->nr);
		name = syscall;
	}
	m.syscall = (char *)name;
	m.fd = e->fd;
	if (e->fd >= 0) { /* ftruncate: the fd's file, as its link reads now */
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)b->c->ctx->pid, e->fd);
		n = readlink(link, path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = '\0';
	}
	m.path = path;
	m.new_path = (char *)e->path2;
	m.flags = e->flags;
	m.error = e->kind == 1 ? (uint32_t)-e->ret : 0;
	m.length = e->length;
	m.tid = e->tid;
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

static void io_lane_free(struct io_bpf_lane *b)
{
	if (!b)
		return;
	ring_buffer__free(b->rb);
	io_bpf__destroy(b->skel);
	free(b->lost_vals);
	free(b);
}

static int io_lane_start(struct collector *c, struct io_bpf_lane **out, char *why, size_t len)
{
	const struct syscall_table *tab = syscall_table__native();
	struct io_bpf_lane *b = calloc(1, sizeof(*b));
	int err, fd, ncpus = bpf_util__ncpus();
	uint32_t nr;

	*out = NULL;
	if (!b || ncpus <= 0 || !(b->lost_vals = calloc((size_t)ncpus, sizeof(uint64_t)))) {
		free(b);
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	b->c = c;
	bpf_util__open_log(c->ctx->verbose);
	b->skel = io_bpf__open();
	if (!b->skel) {
		err = -errno;
		bpf_util__format_error(why, len, "open io BPF", err);
		goto fail;
	}
	b->skel->rodata->targ_tgid = (__u32)c->ctx->pid;
	err = io_bpf__load(b->skel);
	if (err) {
		bpf_util__format_error(why, len, "load io BPF", err);
		goto fail;
	}
	fd = bpf_map__fd(b->skel->maps.io_kind);
	for (nr = 0; nr < IO_MAX_NR; nr++) {
		const char *name = syscall_table__name(tab, nr);

		for (size_t i = 0; name && i < sizeof(io_kinds) / sizeof(io_kinds[0]); i++) {
			uint32_t k = io_kinds[i].kind;

			if (strcmp(io_kinds[i].name, name))
				continue;
			if (bpf_map_update_elem(fd, &nr, &k, BPF_ANY)) {
				err = -errno;
				bpf_util__format_error(why, len, "fill io_kind", err);
				goto fail;
			}
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
	*out = b;
	return 0;
fail:
	io_lane_free(b);
	return err;
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
			char *at = strstr(c->detail, "file-system events from raw_tp/sys_exit");

			c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
			if (at)
				snprintf(at, sizeof(c->detail) - (size_t)(at - c->detail),
					 "file-system events not collected: %s", why);
		}
	}
	p->delayacct = delayacct_on();
	p->tick_ns = hz > 0 ? 1000000000ull / (uint64_t)hz : 10000000ull;
	p->prev_ns = rec_now_ns();
	if (read_io(p, c->ctx->pid, &p->prev, &p->prev_ticks) == 0)
		p->have_prev = true;
	return 0;
}

static uint64_t d(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : 0;
}

static int io_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct io_priv *p = c->priv;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__IoSample s = PTOP__V1__IO_SAMPLE__INIT;
	Ptop__V1__CollectorPayload cp;
	struct proc_io io;
	uint64_t ticks = 0, interval;
	int err;

	(void)flags;
	if (!p)
		return -EINVAL;
	if (p->bpf && (err = io_lane_poll(c, p->bpf)))
		return err;
	err = read_io(p, c->ctx->pid, &io, &ticks);
	if (err && procfs_is_gone(c->ctx->pid, err))
		return 0;
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
	s.rchar = d(io.rchar, p->prev.rchar);
	s.wchar = d(io.wchar, p->prev.wchar);
	s.syscr = d(io.syscr, p->prev.syscr);
	s.syscw = d(io.syscw, p->prev.syscw);
	s.read_bytes = d(io.read_bytes, p->prev.read_bytes);
	s.write_bytes = d(io.write_bytes, p->prev.write_bytes);
	s.cancelled_write_bytes = d(io.cancelled_write_bytes, p->prev.cancelled_write_bytes);
	if (p->delayacct) {
		s.iowait_measured = true;
		s.iowait_ns = d(ticks, p->prev_ticks) * p->tick_ns;
	}
	p->prev = io;
	p->prev_ticks = ticks;
	p->prev_ns = now_ns;
	err = capture_payload__pack(&ev, &cp, "io", &s.base);
	if (err)
		return err;
	err =
	    rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, now_ns, interval);
	capture_payload__release(&cp);
	return err;
}

static void io_stop(struct collector *c)
{
	struct io_priv *p = c->priv;

	if (!p)
		return;
	io_lane_free(p->bpf);
	free(p->buf);
	free(p);
	c->priv = NULL;
}

const struct collector_ops io_collector = {
    .name = "io",
    .summary =
	"I/O counters per interval: bytes and syscalls read and written, disk bytes, "
	"block I/O delay (/proc/PID/io, stat); file-system events with --io-events (eBPF sys_exit)",
    .opts = io_opts,
    .settings = &io_settings,
    .settings_size = sizeof(io_settings),
    .check = io_check,
    .start = io_start,
    .poll = io_poll,
    .stop = io_stop,
};
