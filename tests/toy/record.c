/* record.c — the toy collector's recorder side: every --interval, the target's minor page
 * faults since the last poll, read from /proc/PID/stat, times --toy-scale, as one ToySample;
 * with it, where the target's threads wait in a system call at that poll: the user address
 * each call returns to (/proc/PID/task/TID/syscall), a stack of one frame written once
 * through the capture's stack table, so `symbolize` names it and `export --profile toy`
 * writes it.
 *
 * The model collector of collectors/README.md ("Adding a collector"): it exists to show
 * what a collector is made of, and is built only by tests/e2e/toy_collector.sh (which
 * copies this folder to collectors/toy/ and adds COLLECTOR(toy) to collectors.def). It
 * follows the rules every collector follows (record/collector.h):
 *   - check() decides and explains, and changes nothing;
 *   - a value is sent only when it was measured: a 0 in a ToySample is a measurement;
 *   - what could not be read is counted as a drop (rec_emit_drop), never written as 0;
 *   - a target that is gone ends nothing here: the run loop notices the exit.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/stack_table.h" /* the capture's stack table (stack_table__emit) */
#include "collectors/toy/toy.pb-c.h" /* generated from toy.proto, in build/ */
#include "proto/capture.h"            /* capture_payload__pack */
#include "record/collector.h"
#include "record/procfs.h"

/* Its settings, filled by the core from the option table below (before each parse: the
 * defaults). Only this file reads them. */
static struct toy_settings {
	unsigned scale; /* --toy-scale */
} toy_settings;

static const struct collector_opt toy_opts[] = {
	{
		.name = "toy-scale",
		.arg = "N",
		.def = "1",
		.help = "toy: multiply the fault count by N (default 1, 1 to 1000)",
		.section = COPT_COLLECTORS,
		.order = 90, /* after the other collectors' options */
		.parse = copt_parse_uint,
		.offset = offsetof(struct toy_settings, scale),
		.min = 1,
		.max = 1000,
	},
	{ .name = NULL },
};

/* Its state between polls (c->priv), made by start(), freed by stop(). */
struct toy_priv {
	uint64_t prev_minflt; /* minflt at the previous poll (or at start) */
	uint64_t prev_ns;     /* time of that reading */
	bool have_prev;       /* prev_* hold a reading: a delta can be made */
};

/* Can it run? /proc/PID/stat is readable by anyone, but there must be one process. */
static Ptop__V1__ProbeState toy_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	struct proc_stat st;
	int err;

	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
	c->reason[0] = '\0';
	if (ctx->caps_only) {
		snprintf(c->detail, sizeof(c->detail), "/proc/PID/stat (any user)");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	if (ctx->pid <= 0) {
		snprintf(c->reason, sizeof(c->reason), "the toy counts one process: use --pid");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	err = procfs_read_stat(ctx->pid, &st); /* a read: it changes nothing */
	if (err) {
		snprintf(c->reason, sizeof(c->reason), "cannot read /proc/%d/stat: %s",
			 (int)ctx->pid, strerror(-err));
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	snprintf(c->detail, sizeof(c->detail), "/proc/%d/stat minflt, times %u", (int)ctx->pid,
		 toy_settings.scale);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static int toy_start(struct collector *c)
{
	struct toy_priv *p = calloc(1, sizeof(*p));
	struct proc_stat st;

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	p->prev_ns = rec_now_ns();
	if (procfs_read_stat(c->ctx->pid, &st) == 0) { /* the baseline of the first delta */
		p->prev_minflt = st.minflt;
		p->have_prev = true;
	}
	c->priv = p;
	return 0;
}

/* The places the threads wait at, at one poll. */
#define TOY_MAX_WAITS 64
struct toy_waits {
	Ptop__V1__ToyWait w[TOY_MAX_WAITS], *wp[TOY_MAX_WAITS];
	size_t n;
	uint64_t unplaced; /* threads in a call at a place past the first TOY_MAX_WAITS */
};

/* TEXT of /proc/PID/task/TID/syscall: "NR ARG1 .. ARG6 SP PC" while the thread is in a
 * system call, "-1 SP PC" when it is blocked outside one, "running" when it runs. 1 with
 * *PC the user address the call returns to, 0 when it is in no call, -EINVAL. */
static int toy_parse_syscall(const char *text, uint64_t *pc)
{
	unsigned long long a[8];
	long long nr;

	if (!strncmp(text, "running", 7))
		return 0;
	if (sscanf(text, "%lld", &nr) != 1)
		return -EINVAL;
	if (nr < 0)
		return 0;
	if (sscanf(text, "%lld %llx %llx %llx %llx %llx %llx %llx %llx", &nr, &a[0], &a[1], &a[2],
		   &a[3], &a[4], &a[5], &a[6], &a[7]) != 9 || !a[7])
		return -EINVAL;
	*pc = a[7];
	return 1;
}

/* Add thread TID of PID to W when it is in a call: its place's stack (written once) counts
 * one more thread. 0, or -errno reading its file (-ENOENT: the thread ended). */
static int toy_wait_of(struct collector *c, pid_t pid, const char *tid, struct toy_waits *w,
		       char **buf, size_t *cap)
{
	char name[sizeof("task//syscall") + sizeof(((struct dirent *)0)->d_name)];
	uint64_t pc, id = 0;
	size_t len, k;
	int err;

	snprintf(name, sizeof(name), "task/%s/syscall", tid);
	err = procfs_read_file(pid, name, buf, cap, &len);
	err = err ?: toy_parse_syscall(*buf, &pc);
	if (err <= 0)
		return err;
	err = stack_table__emit(c->ctx, stack_table__capture(), false, (uint32_t)pid, &pc,
				   1, &id);
	if (err || !id) /* no id: out of memory, the place goes unnamed */
		return err;
	for (k = 0; k < w->n && w->w[k].stack_id != id; k++)
		;
	if (k == TOY_MAX_WAITS) {
		w->unplaced++;
		return 0;
	}
	if (k == w->n) {
		ptop__v1__toy_wait__init(&w->w[k]);
		w->w[k].stack_id = id;
		w->wp[k] = &w->w[k];
		w->n++;
	}
	w->w[k].threads++;
	return 0;
}

/* Where PID's threads wait now, into W. 0, or -errno when a thread's file could not be
 * read (W is then not a measurement). */
static int toy_read_waits(struct collector *c, pid_t pid, struct toy_waits *w)
{
	char path[64], *buf = NULL;
	struct dirent *e;
	size_t cap = 0;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!err && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		err = toy_wait_of(c, pid, e->d_name, w, &buf, &cap);
		if (err == -ENOENT || err == -ESRCH) /* the thread ended since the listing */
			err = 0;
	}
	closedir(d);
	free(buf);
	return err;
}

static int toy_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct toy_priv *p = c->priv;
	pid_t pid = c->ctx->pid;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__ToySample ts = PTOP__V1__TOY_SAMPLE__INIT;
	Ptop__V1__CollectorPayload cp;
	struct toy_waits waits = {0};
	struct proc_stat st;
	uint64_t interval;
	int err;

	(void)flags; /* the first and the final poll are like the others */
	if (!p || pid <= 0)
		return -EINVAL;
	err = procfs_read_stat(pid, &st);
	if (err && procfs_is_gone(pid, err))
		return 0;
	if (err) /* not measured: counted, not sent as 0 */
		return rec_emit_drop(c, "proc_unreadable", 1, "stat");
	interval = p->have_prev && now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	if (!p->have_prev) { /* no baseline yet: the next poll has one */
		p->prev_minflt = st.minflt;
		p->prev_ns = now_ns;
		p->have_prev = true;
		return 0;
	}
	ts.count = (st.minflt >= p->prev_minflt ? st.minflt - p->prev_minflt : 0) *
		   toy_settings.scale;
	ts.total = st.minflt;
	ts.scale = toy_settings.scale;
	p->prev_minflt = st.minflt;
	p->prev_ns = now_ns;
	/* where its threads wait: a file that cannot be read is a drop, not "no waits" */
	err = toy_read_waits(c, pid, &waits);
	if (!err) {
		ts.waits_read = true;
		ts.n_waits = waits.n;
		ts.waits = waits.wp;
		if (waits.unplaced)
			err = rec_emit_drop(c, "waits_full", waits.unplaced, "threads past 64 places");
	} else if (!procfs_is_gone(pid, err)) {
		err = rec_emit_drop(c, "proc_unreadable", 1, "task syscall");
	} else {
		err = 0; /* gone: the run loop notices */
	}
	if (err)
		return err;

	/* A collector without a case in Event's oneof sends its message packed in
	 * Event.collector_payload, under its name. No Category of its own either: 0. */
	err = capture_payload__pack(&ev, &cp, "toy", &ts.base);
	if (err)
		return err;
	err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, now_ns,
			     interval);
	capture_payload__release(&cp);
	return err;
}

static void toy_stop(struct collector *c)
{
	free(c->priv);
	c->priv = NULL;
}

/* What collectors.def's COLLECTOR(toy) names for ptop-record (record/collectors.c). */
const struct collector_ops toy_collector = {
	.name = "toy",
	.summary = "toy: minor page faults per interval, times --toy-scale (/proc/PID/stat)",
	.opts = toy_opts,
	.settings = &toy_settings,
	.settings_size = sizeof(toy_settings),
	.check = toy_check,
	.start = toy_start,
	.poll = toy_poll,
	.stop = toy_stop,
};
