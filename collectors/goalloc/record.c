/* record.c — the Go lane of the heap feature: who allocates in a Go program, from one
 * uprobe on the executable's runtime.mallocgc (collectors/goalloc/goalloc.bpf.c).
 *
 * check() reads the target's executable (the launched command's, or /proc/PID/exe): a
 * Go executable is one with a .gopclntab section (stripped -s -w builds and cgo builds
 * included). runtime.mallocgc is found in .symtab when there is one, else by name in
 * .gopclntab's function table. Its probe goes at the `jbe` of the stack check that
 * opens the function (`cmp 0x10(%r14),%rsp; jbe morestack`): a jcc the kernel emulates,
 * reached with the registers and the stack pointer as at entry. The BPF program skips
 * the hits whose jbe goes to morestack, by the cmp's flags (the function restarts from
 * its entry after the stack has grown or the goroutine was preempted: counted then). A prologue
 * not decoded falls back to +0 (single-stepped; a call that grows the stack is then
 * counted twice), said in the probe detail.
 *
 * A collector of its own, off by default like heap: `--enable goalloc`. heap's check()
 * looks for a malloc and knows nothing of Go; a cgo program has both allocators, and
 * `--enable heap,goalloc` measures both, each snapshot naming its lane and module.
 *
 * Each poll sums the exact per-CPU totals, reads the cumulative per-site counters
 * (taking this interval's deltas), ranks the sites like the libc lane (union of the top
 * --heap-top by bytes and count, census of the rest), writes each kept site's stack once
 * as a Stack record (capture-wide ids: record/stack_table.h) and emits one HeapSnapshot
 * with lane "go" and live_measured false: Go frees by collection, nothing probed sees
 * it, so live bytes, frees, lifetimes and leaks stay 0 and mean "not measured".
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/collector.h"
#include "record/bpf_util.h"
#include "record/stack_table.h"
#include "collectors/heap/record.h"
#include "record/uprobe_target.h"
#include "record/uprobe_link.h"
#include "symbol/sym_internal.h"
#include "collectors/goalloc/goalloc.skel.h"

#define GA_USITE_CAP (4 * HP_SITE_ENTRIES)


struct ga_priv {
	struct goalloc_bpf *skel;
	struct uprobe_link *link;
	char path[PATH_MAX];		/* the executable as the target maps it */
	char open_path[PATH_MAX + 32];	/* where we open it */
	uint64_t func_off;		/* runtime.mallocgc's file offset */
	uint32_t probe_off;		/* the probe's offset in it */
	bool stack_check;		/* the probe is at the stack check's jbe */
	int ncpus;
	struct hp_counters *cnt;	/* ncpus */
	struct hp_counters prev;
	struct heap_usite *sites;		/* open addressing, GA_USITE_CAP entries */
	struct heap_rank rank;		/* the sites ranked each poll */
	struct stack_table *table;
	uint64_t prev_ns;
	uint64_t prev_misses;
};

/* Where in mallocgc (CODE, LEN bytes) to probe: at the jbe of `cmp 0x10(%r14),%rsp;
 * jbe` (49 3b 66 10, then 76 rel8 or 0f 86 rel32), else +0. */
static void choose_go_probe(const uint8_t *c, size_t len, struct goalloc_probe *gp)
{
	gp->probe_off = 0;
	gp->stack_check = false;
	if (len >= 6 && c[0] == 0x49 && c[1] == 0x3b && c[2] == 0x66 && c[3] == 0x10 &&
	    (c[4] == 0x76 || (c[4] == 0x0f && c[5] == 0x86))) {
		gp->probe_off = 4;
		gp->stack_check = true;
	}
}

int goalloc__probe_point(const char *open_path, const char *path, struct goalloc_probe *gp,
			 char *why, size_t wlen)
{
	struct gopcln *g = NULL;
	uint64_t off, size, entry, end;
	uint8_t code[16];
	ssize_t got;
	Elf *elf = NULL;
	int fd, err;

	memset(gp, 0, sizeof(*gp));
	fd = open(open_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, wlen, "cannot open %.120s: %s", path, strerror(-err));
		return err;
	}
	if (elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		err = -EINVAL;
		snprintf(why, wlen, "%.150s is not an ELF file", path);
		goto cleanup;
	}
	g = gopcln_open(elf);
	if (!g) {
		err = errno == ENODATA ? -ENODATA : -(errno ? errno : EINVAL);
		snprintf(why, wlen, errno == ENODATA ? "%.150s is not a Go executable (no .gopclntab)" :
			 "%.140s: its .gopclntab cannot be read (a Go before 1.16?)", path);
		goto cleanup;
	}
	err = uprobe_target__elf_func(fd, "runtime.mallocgc", &off, &size);
	if (err) {
		err = gopcln_func_by_name(g, "runtime.mallocgc", &entry, &end);
		if (!err)
			err = uprobe_target__vaddr_to_offset(elf, entry, &off);
		if (err) {
			snprintf(why, wlen, "%.130s: runtime.mallocgc not found in .symtab or .gopclntab",
				 path);
			goto cleanup;
		}
	}
	gp->func_off = off;
	got = pread(fd, code, sizeof(code), (off_t)off);
	choose_go_probe(code, got > 0 ? (size_t)got : 0, gp);
	err = 0;
cleanup:
	gopcln_free(g);
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

/* Is the file at P->open_path a Go executable, and where is its runtime.mallocgc?
 * (goalloc__probe_point, into P.) */
static int find_mallocgc(struct ga_priv *p, char *why, size_t wlen)
{
	struct goalloc_probe gp;
	int err = goalloc__probe_point(p->open_path, p->path, &gp, why, wlen);

	p->func_off = gp.func_off;
	p->probe_off = gp.probe_off;
	p->stack_check = gp.stack_check;
	return err;
}

static Ptop__V1__ProbeState ga_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	Ptop__V1__ProbeState state;
	struct ga_priv *p;
	char why[200];
	int err;

	state = uprobe_target__precheck(
		c,
		"the Go heap uprobe attaches to one process's executable, not yet per process "
		"of a cgroup: record one of its processes with --pid",
		"--no-ebpf: Go allocations are measured only by an eBPF uprobe",
		"go lane: a uprobe on a Go executable's runtime.mallocgc", false);
	if (state != PTOP__V1__PROBE_STATE__PROBE_STATE_UNSPECIFIED)
		return state;
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	if (uprobe_target__exe(ctx, p->path, sizeof(p->path), p->open_path, sizeof(p->open_path),
			     c->reason, sizeof(c->reason))) {
		free(p);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	why[0] = '\0';
	err = find_mallocgc(p, why, sizeof(why));
	if (err) {
		snprintf(c->reason, sizeof(c->reason), "%.200s", why);
		free(p);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	if (heap_settings.sample_bytes)
		snprintf(why, sizeof(why), "a stack every %llu B",
			 (unsigned long long)heap_settings.sample_bytes);
	else
		snprintf(why, sizeof(why), "a stack for every allocation");
	snprintf(c->detail, sizeof(c->detail), "go lane, %.120s: runtime.mallocgc+%u%s; %s; "
		 "live not measured", p->path, p->probe_off,
		 p->stack_check ? " (stack-check jbe)" : " (stepped)", why);
	c->priv = p;
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void ga_stop(struct collector *c)
{
	struct ga_priv *p = c->priv;

	heap__reap_wait();
	if (!p)
		return;
	uprobe_link__destroy(&p->link, 1);
	goalloc_bpf__destroy(p->skel);
	free(p->cnt);
	free(p->sites);
	heap_rank__free(&p->rank);
	free(p);
	c->priv = NULL;
}

static int ga_start(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	struct ga_priv *p = c->priv;
	uint32_t table[HP_EXP_TABLE];
	uint64_t off;
	int err = 0;

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "no Go executable found");
		return -ENOENT;
	}
	p->ncpus = bpf_util__ncpus();
	if (p->ncpus <= 0) {
		err = p->ncpus < 0 ? p->ncpus : -EINVAL;
		snprintf(c->reason, sizeof(c->reason), "cannot count possible CPUs");
		goto cleanup;
	}
	p->cnt = calloc(p->ncpus, sizeof(*p->cnt));
	p->sites = calloc(GA_USITE_CAP, sizeof(*p->sites));
	p->table = stack_table__capture();
	if (heap_rank__alloc(&p->rank) || !p->cnt || !p->sites || !p->table) {
		err = -ENOMEM;
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		goto cleanup;
	}
	bpf_util__open_log(ctx->verbose);
	p->skel = goalloc_bpf__open();
	if (!p->skel) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason), "open goalloc BPF", err);
		goto cleanup;
	}
	p->skel->rodata->targ_tgid = (__u32)ctx->pid;
	p->skel->rodata->targ_cgid = ctx->cgroup_id;
	p->skel->rodata->targ_cglevel = ctx->cgroup_level;
	p->skel->rodata->ga_sample_bytes = heap_settings.sample_bytes;
	p->skel->rodata->ga_stack_check = p->stack_check;
	heap__exp_table(table, HP_EXP_TABLE);
	memcpy((void *)p->skel->rodata->ga_exp_table, table, sizeof(table));
	/* a uprobe_multi link: no detach holds up an attach (record/uprobe_link.h) */
	err = uprobe_link__prepare(p->skel->progs.ga_mallocgc);
	if (!err)
		err = goalloc_bpf__load(p->skel);
	err = err ?: bpf_util__loaded(p->skel->obj, "goalloc");
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason), "load goalloc BPF", err);
		goto cleanup;
	}
	off = p->func_off + p->probe_off;
	p->link = uprobe_link__attach(p->skel->progs.ga_mallocgc, ctx->pid, p->open_path, &off,
				      NULL, 1, false);
	if (!p->link) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason),
				       "attach uprobe to runtime.mallocgc", err);
		goto cleanup;
	}
	p->prev_ns = rec_now_ns();
	return 0;

cleanup:
	c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	ga_stop(c);
	return err ? err : -EINVAL;
}

static int emit_drops(struct collector *c, struct ga_priv *p, const struct hp_counters *d)
{
	uint64_t misses = 0, lost = 0;
	int err;

	err = rec_emit_drop(c, "stack_failure", d->stack_failures,
			    "sampled Go allocations whose user stack could not be taken");
	if (!err)
		err = rec_emit_drop(c, "site_map_full", d->site_full,
				    "sampled Go allocations whose site did not fit the site map");
	if (err)
		return err;
	if (!bpf_util__prog_misses(p->skel->progs.ga_mallocgc, &misses)) {
		lost = misses - p->prev_misses;
		p->prev_misses = misses;
	}
	return rec_emit_drop(c, "recursion_miss", lost,
			     "Go allocations the kernel did not run the goalloc probe for");
}

static int ga_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct ga_priv *p = c->priv;
	struct rec_ctx *ctx = c->ctx;
	Ptop__V1__HeapSnapshot hs = PTOP__V1__HEAP_SNAPSHOT__INIT;
	struct hp_counters sum, d;
	struct heap_census census;
	struct heap_stack_src src;
	uint64_t interval;
	size_t nrows, k = 0;
	int err;

	(void)flags;
	if (!p || !p->skel)
		return -EINVAL;
	err = bpf_util__percpu_sum(p->skel->maps.ga_counters, 0, p->cnt,
				   sizeof(struct hp_counters), (uint64_t *)&sum,
				   sizeof(sum) / sizeof(uint64_t));
	if (err)
		goto read_err;
	heap__counters_delta((const uint64_t *)&sum, (uint64_t *)&p->prev, (uint64_t *)&d,
			     sizeof(sum) / sizeof(uint64_t));

	nrows = heap__read_site_map(bpf_map__fd(p->skel->maps.ga_sites), p->sites, GA_USITE_CAP,
				    &p->rank, false, NULL, NULL);
	err = heap__select_sites(p->rank.rows, nrows, heap_settings.top, p->rank.keep, &census);
	if (err)
		goto read_err;
	src = heap_stack_src__map(bpf_map__fd(p->skel->maps.ga_stacks));
	err = heap__fill_sites(c->ctx, &src, p->table, p->sites, &p->rank, nrows, &k);
	if (err)
		return err;

	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	p->prev_ns = now_ns;
	/* live, frees, lifetimes, leaks: 0 = not measured */
	heap__snapshot_init(&hs, PTOP__V1__HEAP_LANE__HEAP_LANE_GO, p->path, false, &census, p->rank.hsp,
			    k);
	hs.alloc_count = d.alloc_count;
	hs.alloc_bytes = d.alloc_bytes;
	hs.stack_failures = d.stack_failures + d.site_full;
	err = heap__emit_snapshot(ctx, &hs, now_ns, interval);
	if (err)
		return err;
	return emit_drops(c, p, &d);

read_err:
	snprintf(c->reason, sizeof(c->reason), "read goalloc BPF maps: %s", strerror(-err));
	return err;
}

const struct collector_ops goalloc_collector = {
	.name = "goalloc",
	.summary = "goalloc: Go allocations by call site, exact rate and volume (eBPF uprobe "
		   "on a Go executable's runtime.mallocgc; live heap not measured)",
	/* measured: 2,000,000 allocations of 256 B, the target's on-CPU time 0.22 s alone,
	 * 1.68 s probed (sampled every 512 KiB), 4.1 s with --heap-sample-bytes 0 */
	.off_by_default = "its uprobe costs the target about 0.7 us per Go allocation "
			  "(a trap on every runtime.mallocgc call)",
	.check = ga_check,
	.start = ga_start,
	.poll = ga_poll,
	.stop = ga_stop,
	.exec = heap__exec_follow,
};
