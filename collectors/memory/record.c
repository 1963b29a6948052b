/* record.c — the memory collector: at every poll, the target's memory from
 * /proc/PID/statm (sizes), /proc/PID/smaps_rollup (RSS, PSS, USS, anon, swap;
 * its read is timed, as it holds the target's mmap lock) and the page faults
 * of /proc/PID/stat, as one MemorySample event.
 *
 * When ptop maps memory of its own into the target (rec_ctx.probe_mapping: the
 * heap preload lane's memfd), /proc/PID/smaps is read too at each rollup read,
 * and those mappings are taken out of the rollup's figures and written
 * apart (ProbeMemory): probe overhead, not the target's (DESIGN.md principle 9).
 *
 * The smaps_rollup read counts against the smaps budget (--smaps-budget,
 * shared with the vmas collector through smaps_budget__get): when the budget
 * refuses it, the sample carries SmapsBudget.rollup_skipped and no rollup
 * group; the budget group also says how long smaps reads took in the interval.
 * The final poll reads smaps_rollup regardless (its time is still paid for),
 * so a recording always ends with the target's last PSS/USS.
 *
 * Each group is present only when its file was read and parsed. A file that
 * cannot be read is counted as a "proc_unreadable" drop (one per poll and
 * file), one that does not parse as "proc_malformed"; nothing is written as 0
 * in its place. A target that is gone (or a zombie) emits nothing: the run
 * loop notices the exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/collector.h"
#include "record/procfs.h"
#include "proto/names.h"
#include "collectors/memory/names.h"
#include "common/probe_mapping.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct mem_priv {
	uint64_t page_size;
	char *buf;                   /* smaps_rollup text, reused */
	size_t cap;
	char *sbuf;                  /* smaps text (ptop's own mappings), reused */
	size_t scap;
	uint64_t prev_ns;            /* the previous poll (or start) */
	uint64_t prev_minflt, prev_majflt;
	bool have_prev;              /* prev_*flt hold a reading */
	struct smaps_budget *budget; /* shared with vmas */
	uint64_t spent_mark;         /* budget->spent_ns at the previous sample */
};

/* The rollup counters MemorySample carries beside Rss and Pss (which the
 * parser requires), for SmapsRollup.missing_fields (and missing, their /proc keys
 * as proto/names.c spells them, for readers older than missing_fields). */
static const struct {
	uint32_t bit;
	Ptop__V1__SmapsField field;
} rollup_fields[] = {
	{ PROCFS_SC_PSS_ANON, PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_ANON },
	{ PROCFS_SC_PSS_FILE, PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_FILE },
	{ PROCFS_SC_PSS_SHMEM, PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_SHMEM },
	{ PROCFS_SC_SHARED_CLEAN, PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SHARED_CLEAN },
	{ PROCFS_SC_SHARED_DIRTY, PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SHARED_DIRTY },
	{ PROCFS_SC_PRIVATE_CLEAN, PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PRIVATE_CLEAN },
	{ PROCFS_SC_PRIVATE_DIRTY, PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PRIVATE_DIRTY },
	{ PROCFS_SC_ANONYMOUS, PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_ANONYMOUS },
	{ PROCFS_SC_SWAP, PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SWAP },
	{ PROCFS_SC_SWAP_PSS, PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SWAP_PSS },
	{ PROCFS_SC_LOCKED, PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_LOCKED },
};

/* Can this process open /proc/PID/NAME for reading? 0 or -errno. Opening
 * smaps_rollup makes the kernel's PTRACE_MODE_READ check. */
static int can_open(pid_t pid, const char *name)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static Ptop__V1__ProbeState mem_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	int err;

	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
	c->reason[0] = '\0';
	if (ctx->caps_only) {
		snprintf(c->detail, sizeof(c->detail),
			 "/proc/PID/statm, stat (any user), smaps_rollup (PTRACE_MODE_READ: root, "
			 "CAP_SYS_PTRACE or the target's own uid; running as uid %u)",
			 (unsigned)geteuid());
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	if (ctx->pid <= 0) {
		snprintf(c->reason, sizeof(c->reason),
			 "per-process series need one process: in --cgroup mode each process's "
			 "RSS/PSS/USS is in the cgroup collector; use --pid for one in full");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	err = can_open(ctx->pid, "statm");
	if (err) {
		snprintf(c->reason, sizeof(c->reason), "cannot read /proc/%d/statm: %s",
			 (int)ctx->pid, strerror(-err));
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	err = can_open(ctx->pid, "smaps_rollup");
	if (err == -ENOENT && !procfs_is_gone(ctx->pid, err))
		snprintf(c->detail, sizeof(c->detail),
			 "statm + stat only: this kernel has no /proc/PID/smaps_rollup (Linux < 4.14), "
			 "PSS/USS not collected");
	else if (err)
		snprintf(c->detail, sizeof(c->detail),
			 "statm + stat only: /proc/%d/smaps_rollup: %s (needs PTRACE_MODE_READ: root or "
			 "the target's uid); PSS/USS not collected, counted as drops",
			 (int)ctx->pid, strerror(-err));
	else if (ctx->smaps_budget_ns)
		snprintf(c->detail, sizeof(c->detail),
			 "/proc/%d/statm, smaps_rollup (within a %.3g ms smaps budget per interval), "
			 "stat", (int)ctx->pid, (double)ctx->smaps_budget_ns / 1e6);
	else
		snprintf(c->detail, sizeof(c->detail), "/proc/%d/statm, smaps_rollup, stat",
			 (int)ctx->pid);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static int mem_start(struct collector *c)
{
	struct mem_priv *p;
	struct proc_stat st;
	long ps = sysconf(_SC_PAGESIZE);

	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	p->page_size = ps > 0 ? (uint64_t)ps : 4096;
	p->prev_ns = rec_now_ns();
	p->budget = smaps_budget__get(c->ctx->smaps_budget_ns, c->ctx->interval_ns);
	/* The fault baseline: the first interval's deltas count from here. */
	if (procfs_read_stat(c->ctx->pid, &st) == 0) {
		p->prev_minflt = st.minflt;
		p->prev_majflt = st.majflt;
		p->have_prev = true;
	}
	c->priv = p;
	return 0;
}

static void mem_stop(struct collector *c)
{
	struct mem_priv *p = c->priv;

	if (!p)
		return;
	smaps_budget__put(p->budget);
	free(p->buf);
	free(p->sbuf);
	free(p);
	c->priv = NULL;
}

/* Count a file that could not be read or parsed. */
static int count_loss(struct collector *c, const char *file, int err)
{
	char detail[128];

	snprintf(detail, sizeof(detail), "%s: %s", file,
		 err == -EINVAL ? "does not parse" : strerror(-err));
	return rec_emit_drop(c, err == -EINVAL ? "proc_malformed" : "proc_unreadable", 1, detail);
}

/* ptop's own mappings in the target (common/probe_mapping.h), their counters summed. */
static int add_probe_vma(const struct proc_vma *v, void *arg)
{
	struct proc_smaps_counters *sum = arg;

	if (!probe_mapping__is(v->path))
		return 0;
	sum->rss += v->c.rss;
	sum->pss += v->c.pss;
	sum->shared_clean += v->c.shared_clean;
	sum->shared_dirty += v->c.shared_dirty;
	sum->private_clean += v->c.private_clean;
	sum->private_dirty += v->c.private_dirty;
	return 0;
}

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* Read ptop's own mappings (ctx->probe_mapping) from /proc/PID/smaps into PM and take them
 * out of the rollup RO: its figures are the target's own (statm's, the kernel's counters
 * as they are, still hold them). 0, or -errno of the read (-EINVAL: smaps did not parse). */
static int take_out_probe(struct collector *c, Ptop__V1__SmapsRollup *ro,
			  Ptop__V1__ProbeMemory *pm)
{
	struct mem_priv *p = c->priv;
	struct proc_smaps_counters sum = {0};
	uint64_t t0, t1, uss;
	size_t len = 0;
	int err;

	t0 = rec_now_ns();
	err = procfs_read_file(c->ctx->pid, "smaps", &p->sbuf, &p->scap, &len);
	t1 = rec_now_ns();
	smaps_budget__spend(p->budget, t1 - t0);
	if (err)
		return err;
	if (!len)
		return -ESRCH;
	err = procfs_parse_smaps(p->sbuf, add_probe_vma, &sum);
	if (err < 0)
		return err;
	uss = sum.private_clean + sum.private_dirty;
	pm->rss = sum.rss;
	pm->pss = sum.pss;
	pm->uss = uss;
	pm->read_ns = t1 - t0;
	/* the memfd is shared memory: its pages are shmem, resident, shared or private */
	ro->rss = less(ro->rss, sum.rss);
	ro->pss = less(ro->pss, sum.pss);
	ro->uss = less(ro->uss, uss);
	ro->pss_shmem = less(ro->pss_shmem, sum.pss);
	ro->shared_clean = less(ro->shared_clean, sum.shared_clean);
	ro->shared_dirty = less(ro->shared_dirty, sum.shared_dirty);
	ro->private_clean = less(ro->private_clean, sum.private_clean);
	ro->private_dirty = less(ro->private_dirty, sum.private_dirty);
	return 0;
}

static int mem_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct mem_priv *p = c->priv;
	pid_t pid = c->ctx->pid;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__MemorySample ms = PTOP__V1__MEMORY_SAMPLE__INIT;
	Ptop__V1__Statm sm = PTOP__V1__STATM__INIT;
	Ptop__V1__SmapsRollup ro = PTOP__V1__SMAPS_ROLLUP__INIT;
	Ptop__V1__Faults fa = PTOP__V1__FAULTS__INIT;
	Ptop__V1__SmapsBudget bud = PTOP__V1__SMAPS_BUDGET__INIT;
	Ptop__V1__ProbeMemory pm = PTOP__V1__PROBE_MEMORY__INIT;
	char *missing[ARRAY_SIZE(rollup_fields)];
	Ptop__V1__SmapsField missing_fields[ARRAY_SIZE(rollup_fields)];
	struct proc_smaps_counters rc;
	struct proc_statm statm;
	struct proc_stat st;
	uint64_t t0, t1, interval;
	size_t len = 0;
	bool skip;
	int err;

	if (!p || pid <= 0)
		return -EINVAL;

	/* stat first: it also tells a zombie, whose statm reads as zeros */
	err = procfs_read_stat(pid, &st);
	if (err == 0 && (st.state == 'Z' || st.state == 'X'))
		return 0;
	if (err && procfs_is_gone(pid, err))
		return 0;
	if (err) {
		err = count_loss(c, "stat", err);
		if (err)
			return err;
	} else {
		/* No baseline yet (stat unreadable at start): totals next time. */
		if (p->have_prev) {
			fa.minflt = st.minflt >= p->prev_minflt ? st.minflt - p->prev_minflt : 0;
			fa.majflt = st.majflt >= p->prev_majflt ? st.majflt - p->prev_majflt : 0;
			fa.minflt_total = st.minflt;
			fa.majflt_total = st.majflt;
			ms.faults = &fa;
		}
		p->prev_minflt = st.minflt;
		p->prev_majflt = st.majflt;
		p->have_prev = true;
	}

	err = procfs_read_statm(pid, &statm);
	if (err && procfs_is_gone(pid, err))
		return 0;
	if (err) {
		err = count_loss(c, "statm", err);
		if (err)
			return err;
	} else {
		sm.vsize = statm.size * p->page_size;
		sm.rss = statm.resident * p->page_size;
		sm.shared = statm.shared * p->page_size;
		sm.text = statm.text * p->page_size;
		sm.data = statm.data * p->page_size;
		ms.statm = &sm;
	}

	/* the final read is made regardless of the budget, and paid for */
	skip = !(flags & POLL_FINAL) && !smaps_budget__allow(p->budget, now_ns);
	if (skip)
		goto budget;
	t0 = rec_now_ns();
	err = procfs_read_file(pid, "smaps_rollup", &p->buf, &p->cap, &len);
	t1 = rec_now_ns();
	smaps_budget__spend(p->budget, t1 - t0);
	if (!err && len == 0)
		err = -ESRCH; /* no mm any more: exiting */
	if (err && procfs_is_gone(pid, err))
		return 0;
	if (!err)
		err = procfs_parse_smaps_rollup(p->buf, &rc);
	if (err) {
		err = count_loss(c, "smaps_rollup", err);
		if (err)
			return err;
	} else {
		ro.rss = rc.rss;
		ro.pss = rc.pss;
		ro.uss = rc.private_clean + rc.private_dirty;
		ro.pss_anon = rc.pss_anon;
		ro.pss_file = rc.pss_file;
		ro.pss_shmem = rc.pss_shmem;
		ro.shared_clean = rc.shared_clean;
		ro.shared_dirty = rc.shared_dirty;
		ro.private_clean = rc.private_clean;
		ro.private_dirty = rc.private_dirty;
		ro.anon = rc.anonymous;
		ro.swap = rc.swap;
		ro.swap_pss = rc.swap_pss;
		ro.locked = rc.locked;
		ro.read_ns = t1 - t0;
		for (size_t i = 0; i < ARRAY_SIZE(rollup_fields); i++) {
			if (rc.present & rollup_fields[i].bit)
				continue;
			missing_fields[ro.n_missing_fields++] = rollup_fields[i].field;
			missing[ro.n_missing++] =
			    (char *)capture_smaps_field_name(rollup_fields[i].field);
		}
		ro.missing_fields = missing_fields;
		ro.missing = missing;
		ms.rollup = &ro;
		/* ptop's own memory out of the target's: a rollup that cannot be told from
		 * it is not the target's, and is left out (counted) */
		if (c->ctx->probe_mapping) {
			err = take_out_probe(c, &ro, &pm);
			if (err && procfs_is_gone(pid, err))
				return 0;
			if (err) {
				ms.rollup = NULL;
				err = count_loss(c, "smaps", err);
				if (err)
					return err;
			} else {
				ms.probe = &pm;
			}
		}
	}

budget:
	if (p->budget->budget_ns) {
		bud.budget_ns = p->budget->budget_ns;
		bud.spent_ns = p->budget->spent_ns - p->spent_mark;
		bud.rollup_skipped = skip;
		ms.budget = &bud;
	}
	p->spent_mark = p->budget->spent_ns;
	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	p->prev_ns = now_ns;
	if (!ms.statm && !ms.rollup && !ms.faults && !skip)
		return 0; /* nothing measured: the drops say why */
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_MEMORY;
	ev.memory = &ms;
	return rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_MEMORY, now_ns, interval);
}

const struct collector_ops memory_collector = {
	.name = "memory",
	.summary = "RSS, PSS, USS, anon, file, shmem, swap, page faults (/proc statm, smaps_rollup, stat)",
	.check = mem_check,
	.start = mem_start,
	.poll = mem_poll,
	.stop = mem_stop,
};
