/* record.c — the vmas collector: the target's whole VMA list from /proc/PID/smaps
 * (range, perms, offset, device, inode, path, size, RSS, PSS, USS, anon, swap,
 * locked) as one VmaSnapshot event at the first poll, every --vma-interval, and
 * at the final poll (marked final).
 *
 * Built for targets with many thousands of VMAs: the smaps text goes into one
 * buffer kept across snapshots; the parser NUL-terminates each path inside it
 * and the Vma messages point there, so the only per-snapshot allocations are
 * two arrays (messages and pointers), sized once from a count of the text's
 * header lines and freed after the event is written. walk_ns is the time of
 * the smaps read, during which the kernel walks the VMAs holding the target's
 * mmap lock.
 *
 * The walk counts against the smaps budget (--smaps-budget, shared with the
 * memory collector's smaps_rollup reads through smaps_budget__get). A walk
 * that falls due while the budget refuses it is skipped and waits for the next
 * --vma-interval; the next snapshot counts it in skipped_walks. The first and
 * the final walk are taken regardless of the budget (and paid for: the reads
 * after them wait until it is paid back), so a capture always has the
 * target's VMAs at both ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/collector.h"
#include "record/procfs.h"
#include "collectors/vmas/record.h"

struct vma_slot {
	Ptop__V1__Vma msg;
	char perms[8];
	char dev[16];
};

struct vmas_priv {
	char *buf;                   /* the smaps text, reused */
	size_t cap;
	uint64_t last_ns;            /* the previous snapshot */
	bool have_last;
	uint32_t skipped;            /* walks skipped since the last snapshot */
	struct smaps_budget *budget; /* shared with memory */
};

struct fill {
	struct vma_slot *slots;
	Ptop__V1__Vma **ptrs;
	size_t n, max;
};

static int add_vma(const struct proc_vma *v, void *arg)
{
	struct fill *f = arg;
	struct vma_slot *s;
	Ptop__V1__Vma *m;

	if (f->n >= f->max)
		return -EOVERFLOW; /* cannot happen: max counts the header lines */
	s = &f->slots[f->n];
	m = &s->msg;
	ptop__v1__vma__init(m);
	memcpy(s->perms, v->perms, sizeof(s->perms));
	memcpy(s->dev, v->dev, sizeof(s->dev));
	m->start = v->start;
	m->end = v->end;
	m->perms = s->perms;
	m->offset = v->offset;
	m->dev = s->dev;
	m->inode = v->inode;
	m->path = (char *)v->path; /* inside the text buffer, NUL-terminated */
	m->size = v->c.size;
	m->rss = v->c.rss;
	m->pss = v->c.pss;
	m->uss = v->c.private_clean + v->c.private_dirty;
	m->shared_clean = v->c.shared_clean;
	m->shared_dirty = v->c.shared_dirty;
	m->anon = v->c.anonymous;
	m->swap = v->c.swap;
	m->swap_pss = v->c.swap_pss;
	m->locked = v->c.locked;
	f->ptrs[f->n++] = m;
	return 0;
}

/* An upper bound on the VMAs of a smaps text: lines starting with a lowercase
 * hex digit (counter lines start with an upper-case key). */
static size_t count_headers(const char *t)
{
	size_t n = 0;
	const char *p = t;

	while (*p) {
		if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
			n++;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

static Ptop__V1__ProbeState vmas_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	char path[64];

	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
	c->reason[0] = '\0';
	if (ctx->caps_only) {
		snprintf(c->detail, sizeof(c->detail),
			 "/proc/PID/smaps (PTRACE_MODE_READ: root, CAP_SYS_PTRACE or the target's "
			 "own uid; running as uid %u)", (unsigned)geteuid());
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	if (ctx->pid <= 0) {
		snprintf(c->reason, sizeof(c->reason),
			 "VMA snapshots are per process: record one process of the cgroup with "
			 "--pid (the cgroup collector has each one's RSS/PSS/USS)");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	/* Opening smaps makes the kernel's PTRACE_MODE_READ check. */
	if (procfs_check_open(ctx->pid, "smaps", c->reason, sizeof(c->reason)))
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)ctx->pid);
	if (vmas_settings.interval_ns)
		snprintf(c->detail, sizeof(c->detail),
			 "%s at start, every %.3g s (within a %.3g ms smaps budget per interval) and "
			 "at the end", path, (double)vmas_settings.interval_ns / 1e9,
			 (double)ctx->smaps_budget_ns / 1e6);
	else
		snprintf(c->detail, sizeof(c->detail), "%s at start and at the end", path);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static int vmas_start(struct collector *c)
{
	struct vmas_priv *p = calloc(1, sizeof(*p));

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	p->budget = smaps_budget__get(c->ctx->smaps_budget_ns, c->ctx->interval_ns);
	c->priv = p;
	return 0;
}

static void vmas_stop(struct collector *c)
{
	struct vmas_priv *p = c->priv;

	if (!p)
		return;
	smaps_budget__put(p->budget);
	free(p->buf);
	free(p);
	c->priv = NULL;
}

/* Take one snapshot and emit it. */
static int snapshot(struct collector *c, uint64_t now_ns, bool final)
{
	struct vmas_priv *p = c->priv;
	pid_t pid = c->ctx->pid;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__VmaSnapshot snap = PTOP__V1__VMA_SNAPSHOT__INIT;
	struct fill f = { 0 };
	uint64_t t0, t1;
	size_t len = 0;
	int n, err;

	t0 = rec_now_ns();
	err = procfs_read_file(pid, "smaps", &p->buf, &p->cap, &len);
	t1 = rec_now_ns();
	smaps_budget__spend(p->budget, t1 - t0);
	if (!err && len == 0)
		err = -ESRCH; /* no mm: exiting, or a zombie */
	if (err && procfs_is_gone(pid, err))
		return 0;
	if (err) {
		char detail[96];

		snprintf(detail, sizeof(detail), "smaps: %s", strerror(-err));
		return rec_emit_drop(c, "proc_unreadable", 1, detail);
	}
	f.max = count_headers(p->buf);
	f.slots = malloc((f.max + 1) * sizeof(*f.slots));
	f.ptrs = malloc((f.max + 1) * sizeof(*f.ptrs));
	if (!f.slots || !f.ptrs) {
		err = -ENOMEM;
		snprintf(c->reason, sizeof(c->reason), "out of memory for %zu VMAs", f.max);
		goto cleanup;
	}
	n = procfs_parse_smaps(p->buf, add_vma, &f);
	if (n < 0) {
		err = rec_emit_drop(c, "proc_malformed", 1, "smaps: does not parse");
		goto cleanup;
	}
	snap.vmas = f.ptrs;
	snap.n_vmas = f.n;
	snap.walk_ns = t1 - t0;
	snap.final = final;
	snap.budget_ns = p->budget->budget_ns;
	snap.skipped_walks = p->skipped;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_VMAS;
	ev.vmas = &snap;
	err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_VMAS, now_ns, 0);
	if (!err)
		p->skipped = 0;
cleanup:
	free(f.slots);
	free(f.ptrs);
	return err;
}

static int vmas_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct vmas_priv *p = c->priv;
	uint64_t every = vmas_settings.interval_ns;
	bool due;
	int err;

	if (!p || c->ctx->pid <= 0)
		return -EINVAL;
	due = (flags & (POLL_FIRST | POLL_FINAL)) || !p->have_last ||
	      (every && now_ns - p->last_ns >= every);
	if (!due)
		return 0;
	if (!(flags & (POLL_FIRST | POLL_FINAL)) && !smaps_budget__allow(p->budget, now_ns)) {
		/* skipped: the next try is one --vma-interval later */
		if (p->skipped < UINT32_MAX)
			p->skipped++;
		p->last_ns = now_ns;
		p->have_last = true;
		return 0;
	}
	err = snapshot(c, now_ns, flags & POLL_FINAL);
	p->last_ns = now_ns;
	p->have_last = true;
	return err;
}

struct vmas_settings vmas_settings;

static const struct collector_opt vmas_opts[] = {
	{
		.name = "vma-interval",
		.arg = "D",
		.def = "10s",
		.help = "period of the full VMA list (default 10s)",
		.section = COPT_TIMING,
		.order = 10,
		.parse = copt_parse_duration,
		.offset = offsetof(struct vmas_settings, interval_ns),
		.min = 1000000, /* 1 ms, as --interval */
	},
	{ .name = NULL },
};

static void vmas_header_options(Ptop__V1__Options *o)
{
	o->vma_interval_ns = vmas_settings.interval_ns;
}

const struct collector_ops vmas_collector = {
	.name = "vmas",
	.summary = "the VMA list with per-mapping RSS, PSS, USS, anon, swap (/proc smaps), every --vma-interval",
	.opts = vmas_opts,
	.settings = &vmas_settings,
	.settings_size = sizeof(vmas_settings),
	.header_options = vmas_header_options,
	.check = vmas_check,
	.start = vmas_start,
	.poll = vmas_poll,
	.stop = vmas_stop,
};
