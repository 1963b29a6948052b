/* record.c — the lifecycle collector's recorder side: the forks, execs and exits of the
 * target's whole subtree (lifecycle.bpf.c), one LifecycleEvent each, at the time the
 * kernel saw it; and at the start one "present" event per process of the subtree then
 * (its parent, name and command line from /proc), so that the tree has its roots.
 *
 * With --no-ebpf, the /proc lane (record_proc.c): the subtree read each interval, its
 * differences as events at the poll's time (at_poll): no exit code but the launched
 * command's, and nothing of the processes that lived between two reads.
 *
 * A process (--pid, a command: its descendants are followed as they are made) or a cgroup
 * (every process in it; eBPF only). What is lost is counted: a full ring ("ringbuf"), a new
 * process the subtree's hash had no room for ("map_full": its events are not seen).
 *
 * The exec feed (collector_ops.exec_feed, record/exec_watch.h): lc_exec is the run's one
 * program on sched_process_exec, and also serves the exec watch that heap and goalloc
 * follow (bpf/exec_watch.bpf.h, called first in it). When lifecycle runs, the watch uses
 * this collector's object; when it does not (disabled, or it could not start), lc_exec
 * is loaded alone for the watch with lc_record 0: no lifecycle event, the maps minimal.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collectors/lifecycle/lifecycle.h"
#include "collectors/lifecycle/lifecycle.pb-c.h"
#include "collectors/lifecycle/lifecycle.skel.h"
#include "collectors/lifecycle/record_proc.h"
#include "proto/capture.h"
#include "record/bpf_util.h"
#include "record/cgroupfs.h"
#include "record/collector.h"
#include "record/exec_watch.h"
#include "record/procfs.h"
#include "record/tp_target.h"

struct lc_priv {
	struct lifecycle_bpf *skel;
	struct ring_buffer *rb;
	struct lc_proc_lane *proc; /* the /proc lane (--no-ebpf), else NULL */
	uint64_t prev_proc_untracked;
	struct collector *c;
	pid_t *present; /* the subtree at the start, sent at the first poll */
	size_t npresent, cap_present;
	uint64_t present_ns;
	uint64_t prev_lost, prev_untracked;
	int err; /* the first error of an event callback */
};

static Ptop__V1__ProbeState lc_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	Ptop__V1__ProbeState state;

	if (ctx->no_ebpf) {
		c->reason[0] = '\0';
		c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
		if (ctx->pid <= 0 && !ctx->caps_only) {
			snprintf(c->reason, sizeof(c->reason),
				 "--no-ebpf: the /proc lane follows a process (--pid or a command), "
				 "not a cgroup");
			return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
		}
		snprintf(c->detail, sizeof(c->detail),
			 "/proc lane: forks and exits seen at the poll, short-lived processes "
			 "missed (/proc/PID/task/*/children each interval; execs as exe/cmdline "
			 "changes, the last of an interval only; exit codes unknown but the "
			 "launched command's)");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	state = tp_target__precheck(c, "");
	if (state != PTOP__V1__PROBE_STATE__PROBE_STATE_UNSPECIFIED)
		return state;
	snprintf(c->detail, sizeof(c->detail),
		 "tp_btf sched_process_fork, sched_process_exec, sched_process_exit: %s; "
		 "argv capped at %d bytes; its exec program lc_exec is also the run's exec "
		 "watch (collectors that follow execs)",
		 ctx->pid > 0 || ctx->caps_only ? "the target and its descendants as they are made"
						: "every process of the cgroup",
		 LC_ARGS);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void lc_stop(struct collector *c)
{
	struct lc_priv *p = c->priv;

	if (!p)
		return;
	ring_buffer__free(p->rb);
	lifecycle_bpf__destroy(p->skel);
	lc_proc__free(p->proc);
	free(p->present);
	free(p);
	c->priv = NULL;
}

static int present_add(struct lc_priv *p, pid_t pid)
{
	for (size_t i = 0; i < p->npresent; i++)
		if (p->present[i] == pid)
			return 0;
	if (p->npresent == p->cap_present) {
		size_t nc = p->cap_present ? 2 * p->cap_present : 16;
		pid_t *np = realloc(p->present, nc * sizeof(*np));

		if (!np)
			return -ENOMEM;
		p->present = np;
		p->cap_present = nc;
	}
	p->present[p->npresent++] = pid;
	return 0;
}

/* PID and its descendants (each thread's children files) into the present list, and into
 * the kernel's hash of the subtree when FD >= 0. */
static int walk_subtree(struct lc_priv *p, pid_t pid, int fd, unsigned depth)
{
	char dir[64], *buf = NULL;
	size_t cap = 0, len;
	struct dirent *de;
	DIR *d;
	int err;
	__u32 k = (__u32)pid, v = 0;

	err = present_add(p, pid);
	if (err)
		return err;
	if (fd >= 0 && bpf_map_update_elem(fd, &k, &v, BPF_NOEXIST) && errno != EEXIST)
		return -errno;
	if (depth > 64)
		return 0;
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return 0; /* gone: nothing below it */
	while (!err && (de = readdir(d))) {
		char name[300];

		if (de->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "task/%s/children", de->d_name);
		if (procfs_read_file(pid, name, &buf, &cap, &len))
			continue;
		for (char *s = buf, *e; !err && s && *s; s = e) {
			long c = strtol(s, &e, 10);

			if (e == s)
				break;
			if (c > 0)
				err = walk_subtree(p, (pid_t)c, fd, depth + 1);
		}
	}
	closedir(d);
	free(buf);
	return err;
}

int lc_emit(struct collector *c, Ptop__V1__LifecycleEvent *le, uint64_t t)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CollectorPayload cp;
	int err = capture_payload__pack(&ev, &cp, "lifecycle", &le->base);

	if (err)
		return err;
	err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, t, 0);
	capture_payload__release(&cp);
	return err;
}

/* Split the NUL-ended strings of BUF (LEN bytes) into ARGV (at most MAX); the last may
 * lack its NUL (cut). The count. */
size_t lc_split_args(char *buf, size_t len, char **argv, size_t max)
{
	size_t n = 0, at = 0;

	while (at < len && n < max) {
		size_t l = strnlen(buf + at, len - at);

		argv[n++] = buf + at;
		at += l + 1;
	}
	return n;
}

/* The present processes, with what /proc says of them now. */
static int emit_present(struct collector *c, struct lc_priv *p)
{
	char *buf = NULL, *argv[LC_ARGV_MAX];
	size_t cap = 0, len;
	int err = 0;

	for (size_t i = 0; !err && i < p->npresent; i++) {
		Ptop__V1__LifecycleEvent le = PTOP__V1__LIFECYCLE_EVENT__INIT;
		struct proc_stat st;
		char *cmd = NULL;

		if (procfs_read_stat(p->present[i], &st))
			continue; /* gone already: its exit is an event */
		le.kind = "present";
		le.pid = (uint32_t)p->present[i];
		le.ppid = (uint32_t)st.ppid;
		le.comm = st.comm;
		if (!procfs_read_file(p->present[i], "cmdline", &buf, &cap, &len) && len) {
			cmd = malloc(len + 1);
			if (!cmd) {
				err = -ENOMEM;
				break;
			}
			memcpy(cmd, buf, len);
			cmd[len] = '\0';
			le.n_argv = lc_split_args(cmd, len, argv, LC_ARGV_MAX);
			le.argv = argv;
		}
		err = lc_emit(c, &le, p->present_ns);
		free(cmd);
	}
	free(buf);
	return err;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct lc_priv *p = ctx;
	const struct lc_event *e = data;
	Ptop__V1__LifecycleEvent le = PTOP__V1__LIFECYCLE_EVENT__INIT;
	char comm[sizeof(e->comm) + 1], fn[LC_FILENAME + 1], args[LC_ARGS + 1];
	char *argv[LC_ARGV_MAX];
	int err;

	if (p->err || size < sizeof(*e))
		return 0;
	memcpy(comm, e->comm, sizeof(e->comm));
	comm[sizeof(e->comm)] = '\0';
	le.pid = e->pid;
	le.tid = e->tid;
	le.comm = comm;
	switch (e->kind) {
	case LC_FORK:
		le.kind = "fork";
		le.ppid = e->ppid;
		break;
	case LC_EXEC: {
		const struct lc_exec *x = data;
		uint32_t n;

		if (size < sizeof(*x))
			return 0;
		le.kind = "exec";
		memcpy(fn, x->filename, LC_FILENAME);
		fn[LC_FILENAME] = '\0';
		le.filename = fn;
		n = x->args_len < LC_ARGS ? x->args_len : LC_ARGS;
		memcpy(args, x->args, n);
		args[n] = '\0';
		le.n_argv = lc_split_args(args, n, argv, LC_ARGV_MAX);
		le.argv = argv;
		le.argc = x->argc;
		le.argv_truncated = x->args_size > n || le.n_argv < x->argc;
		break;
	}
	case LC_EXIT:
		le.kind = "exit";
		le.has_status = true;
		le.signal = e->status & 0x7f;
		le.exit_code = le.signal ? 0 : (e->status >> 8) & 0xff;
		le.core_dumped = le.signal && (e->status & 0x80);
		le.has_cpu = true;
		le.cpu_ns = e->cpu_ns;
		break;
	default:
		return 0;
	}
	err = lc_emit(p->c, &le, e->time_ns);
	if (err)
		p->err = err;
	return 0;
}

static int lc_start(struct collector *c)
{
	struct lc_priv *p = calloc(1, sizeof(*p));
	struct rec_ctx *ctx = c->ctx;
	int err, fd;

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	c->priv = p;
	p->c = c;
	if (ctx->no_ebpf) {
		p->present_ns = rec_now_ns();
		err = lc_proc__start(c, &p->proc);
		err = err ?: walk_subtree(p, ctx->pid, -1, 0);
		if (err) {
			snprintf(c->reason, sizeof(c->reason), "the target's subtree from /proc: %s",
				 strerror(-err));
			goto fail;
		}
		return 0;
	}
	bpf_util__open_log(ctx->verbose);
	p->skel = lifecycle_bpf__open();
	if (!p->skel) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason), "open lifecycle BPF", err);
		goto fail;
	}
	p->skel->rodata->targ_tgid = (__u32)(ctx->pid > 0 ? ctx->pid : 0);
	p->skel->rodata->targ_cgid = ctx->pid > 0 ? 0 : ctx->cgroup_id;
	p->skel->rodata->targ_cglevel = ctx->cgroup_level;
	err = lifecycle_bpf__load(p->skel);
	err = err ?: bpf_util__loaded(p->skel->obj, "lifecycle");
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason), "load lifecycle BPF", err);
		goto fail;
	}
	fd = bpf_map__fd(p->skel->maps.lc_procs);
	if (ctx->pid > 0) { /* the target first, so that its forks are followed from here */
		__u32 k = (__u32)ctx->pid, v = 0;

		if (bpf_map_update_elem(fd, &k, &v, BPF_ANY)) {
			err = -errno;
			bpf_util__format_error(c->reason, sizeof(c->reason), "seed lc_procs", err);
			goto fail;
		}
	}
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.lc_events), on_event, p, NULL);
	if (!p->rb) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason), "ring buffer", err);
		goto fail;
	}
	err = lifecycle_bpf__attach(p->skel);
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason),
				       "attach the sched_process tracepoints", err);
		goto fail;
	}
	/* then the subtree as it is: a descendant made from here on is a fork event */
	p->present_ns = rec_now_ns();
	if (ctx->pid > 0) {
		err = walk_subtree(p, ctx->pid, fd, 0);
	} else if (ctx->cgroup_dir) {
		char path[4096], *text;
		pid_t *pids = NULL;
		size_t n = 0, cap = 0;
		FILE *f;

		snprintf(path, sizeof(path), "%s/cgroup.procs", ctx->cgroup_dir);
		f = fopen(path, "r");
		text = f ? calloc(1, 1 << 20) : NULL;
		if (text && fread(text, 1, (1 << 20) - 1, f) > 0 &&
		    !cgroupfs_parse_procs(text, &pids, &n, &cap))
			for (size_t i = 0; !err && i < n; i++)
				err = present_add(p, pids[i]);
		free(pids);
		free(text);
		if (f)
			fclose(f);
	}
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason), "the target's subtree", err);
		goto fail;
	}
	return 0;
fail:
	c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	lc_stop(c);
	return err ? err : -EINVAL;
}

static int lc_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct lc_priv *p = c->priv;
	uint64_t lost, untracked;
	int err = 0;

	if (!p || !(p->skel || p->proc))
		return -EINVAL;
	if (p->npresent) { /* the first poll: the roots, before any event after them */
		err = emit_present(c, p);
		p->npresent = 0;
	}
	if (p->proc) {
		err = err ?: lc_proc__poll(c, p->proc, now_ns);
		untracked = lc_proc__untracked(p->proc);
		if (!err && untracked > p->prev_proc_untracked)
			err = rec_emit_drop(c, "map_full", untracked - p->prev_proc_untracked,
					    "lifecycle: new processes of the subtree not followed "
					    "(the /proc lane's table is full)");
		p->prev_proc_untracked = untracked;
		(void)flags;
		return err;
	}
	if (!err) {
		ring_buffer__consume(p->rb);
		err = p->err;
	}
	lost = __atomic_load_n(&p->skel->bss->lc_lost, __ATOMIC_RELAXED);
	untracked = __atomic_load_n(&p->skel->bss->lc_untracked, __ATOMIC_RELAXED);
	if (!err && lost > p->prev_lost)
		err = rec_emit_drop(c, "ringbuf", lost - p->prev_lost,
				    "lifecycle: forks, execs or exits the ring had no room for");
	if (!err && untracked > p->prev_untracked)
		err = rec_emit_drop(c, "map_full", untracked - p->prev_untracked,
				    "lifecycle: new processes of the subtree not followed "
				    "(the hash of the subtree is full)");
	p->prev_lost = lost;
	p->prev_untracked = untracked;
	(void)flags;
	return err;
}

/* ------------------------------------------------------------------ the exec feed */

static void lc_feed_release(void *arg)
{
	lifecycle_bpf__destroy(arg);
}

/* lc_exec alone, with lc_record 0: the exec watch's program when lifecycle records
 * nothing itself (its maps made as small as they can be). */
static int lc_feed_alone(struct collector *c, struct exec_feed *f)
{
	struct lifecycle_bpf *skel;
	int err;

	bpf_util__open_log(c->ctx->verbose);
	skel = lifecycle_bpf__open();
	if (!skel) {
		err = -errno;
		bpf_util__format_error(f->why, sizeof(f->why), "open lifecycle BPF", err);
		return err;
	}
	skel->rodata->lc_record = 0;
	bpf_program__set_autoload(skel->progs.lc_fork, false);
	bpf_program__set_autoload(skel->progs.lc_exit, false);
	err = bpf_map__set_max_entries(skel->maps.lc_procs, 1);
	err = err ?: bpf_map__set_max_entries(skel->maps.lc_events, 4096);
	err = err ?: lifecycle_bpf__load(skel);
	err = err ?: bpf_util__loaded(skel->obj, "lifecycle");
	if (err) {
		bpf_util__format_error(f->why, sizeof(f->why), "load lifecycle's lc_exec", err);
		goto fail;
	}
	skel->links.lc_exec = bpf_program__attach(skel->progs.lc_exec);
	if (!skel->links.lc_exec) {
		err = -errno;
		bpf_util__format_error(f->why, sizeof(f->why), "attach lc_exec", err);
		goto fail;
	}
	f->obj = skel->obj;
	f->release = lc_feed_release;
	f->arg = skel;
	return 0;
fail:
	lifecycle_bpf__destroy(skel);
	return err;
}

/* The exec watch's feed (collector_ops.exec_feed): lc_exec, ours when lifecycle runs
 * with it attached, else loaded alone for the watch. */
static int lc_exec_feed(struct collector *c, struct exec_feed *f)
{
	struct lc_priv *p = c->priv;

	f->by = "lifecycle";
	f->prog = "lc_exec";
	if (c->state == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE && p && p->skel &&
	    p->skel->links.lc_exec) {
		f->obj = p->skel->obj;
		return 0;
	}
	return lc_feed_alone(c, f);
}

const struct collector_ops lifecycle_collector = {
	.name = "lifecycle",
	.summary = "lifecycle: forks, execs (file, argv) and exits (code, signal, CPU) of the "
		   "target's whole subtree (eBPF; /proc: seen at each poll)",
	.check = lc_check,
	.start = lc_start,
	.poll = lc_poll,
	.stop = lc_stop,
	.exec_feed = lc_exec_feed,
};
