/* record_uprobe.c — the heap collector's uprobe lane: who allocates, who holds memory, who
 * leaks, from uprobes on the allocator the target actually uses (collectors/heap/heap.bpf.c),
 * behind the lane interface heap_uprobe_lane (collectors/heap/record.h).
 *
 * check() finds the allocator module: the executable itself when it defines malloc (a
 * static build, or its own allocator), else the first mapped library other than libc
 * that does (jemalloc, tcmalloc, mimalloc), else libc. A running target is read from
 * /proc/PID/maps; a launched command is still the recorder's fork at check() time, so
 * its executable, the recorder's LD_PRELOAD (which the command inherits) and its
 * DT_NEEDED libraries (found in the usual directories) are read instead. check() keeps
 * nothing (start() finds the module again), and does not switch lanes: which lane it
 * chose, the preload lane (collectors/heap/record_preload.c) or this one, is c->source,
 * which start(), poll(), stop() and exec() follow. Each function's entry probe goes at
 * the first instruction the kernel can emulate (record/uprobe_target.h,
 * uprobe_target__choose_probe): glibc's free starts with `test %rdi,%rdi`, which would be
 * single-stepped at ~10 µs a hit, so its probe goes past the NULL check.
 *
 * Each poll sums the exact per-CPU totals, reads the cumulative per-site counters
 * (taking this interval's deltas), walks the live set once for the leak figures and each
 * site's oldest allocation, ranks the sites (union of the top --heap-top by live bytes,
 * bytes and count, with the census of the rest), writes each kept site's stack once as
 * a Stack record (capture-wide ids: record/stack_table.h), and emits one HeapSnapshot.
 * With --heap-events the sampled allocations and frees are drained from the ring buffer
 * first, each as a HeapEvent.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/stackcopy.h"
#include "record/collector.h"
#include "record/bpf_util.h"
#include "record/stack_table.h"
#include "collectors/heap/record.h"
#include "record/uprobe_target.h"
#include "collectors/heap/record_preload.h"
#include "proto/names.h"
#include "record/kfeature.h"
#include "record/uprobe_link.h"
#include "common/units.h"
#include "collectors/heap/heap.skel.h"


/* ------------------------------------------------------------------ the module */

struct hp_module {
	char path[PATH_MAX];		/* as the target maps it */
	char open_path[PATH_MAX + 32];	/* where we open it (/proc/PID/root/... for --pid) */
	bool present[ALLOC_NFUNCS];
	uint64_t offset[ALLOC_NFUNCS];	/* the function's file offset */
	struct uprobe_point pp[ALLOC_NFUNCS];
};

/* Read the first bytes of the function at file offset OFF of FD. */
static ssize_t read_code(int fd, uint64_t off, uint8_t *buf, size_t len)
{
	return pread(fd, buf, len, (off_t)off);
}

/* Does the file at PATH define malloc? Fill MOD from it when it does. 1, 0, or -errno. */
static int module_from_file(const char *open_path, const char *path, struct hp_module *mod)
{
	uint64_t off, size;
	uint8_t code[32];
	ssize_t got;
	int fd, i, err;

	fd = open(open_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = uprobe_target__elf_func(fd, "malloc", &off, &size);
	if (err) {
		close(fd);
		return err == -ENOENT ? 0 : err;
	}
	memset(mod, 0, sizeof(*mod));
	snprintf(mod->path, sizeof(mod->path), "%s", path);
	snprintf(mod->open_path, sizeof(mod->open_path), "%s", open_path);
	for (i = 0; i < ALLOC_NFUNCS; i++) {
		if (uprobe_target__elf_func(fd, heap_func_names[i], &off, &size))
			continue;
		mod->present[i] = true;
		mod->offset[i] = off;
		got = read_code(fd, off, code, sizeof(code));
		if (size && (uint64_t)got > size)
			got = (ssize_t)size;
		uprobe_target__choose_probe(code, got > 0 ? (size_t)got : 0, i == ALLOC_FREE, &mod->pp[i]);
	}
	close(fd);
	return 1;
}

static bool is_libc(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5);
}

static bool is_ld_so(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return !strncmp(b, "ld-linux", 8) || !strncmp(b, "ld.so", 5);
}

/* A running target: its executable, then each mapped library (libc last). */
static int find_in_maps(pid_t pid, struct hp_module *mod, char *why, size_t wlen)
{
	char path[64], line[PATH_MAX + 256], exe[PATH_MAX], libc[PATH_MAX] = "", op[PATH_MAX + 32];
	char seen[64][256];
	int nseen = 0, r, i;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		snprintf(op, sizeof(op), "/proc/%d/exe", pid);
		r = module_from_file(op, exe, mod);
		if (r > 0) {
			snprintf(mod->open_path, sizeof(mod->open_path), "/proc/%d/root%s", pid,
				 exe);
			return 0;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f) {
		snprintf(why, wlen, "cannot read %s: %s", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		char perms[8], *p;
		bool dup = false;

		if (sscanf(line, "%*x-%*x %7s", perms) != 1 || perms[2] != 'x')
			continue;
		p = strchr(line, '/');
		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		if (strstr(p, " (deleted)") || !strcmp(p, exe) || is_ld_so(p))
			continue;
		for (i = 0; i < nseen; i++)
			dup |= !strncmp(seen[i], p, sizeof(seen[i]) - 1);
		if (dup)
			continue;
		if (nseen < 64)
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", p);
		if (is_libc(p)) {
			snprintf(libc, sizeof(libc), "%s", p);
			continue;
		}
		snprintf(op, sizeof(op), "/proc/%d/root%s", pid, p);
		if (module_from_file(op, p, mod) > 0) {
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	if (libc[0]) {
		snprintf(op, sizeof(op), "/proc/%d/root%s", pid, libc);
		if (module_from_file(op, libc, mod) > 0)
			return 0;
	}
	snprintf(why, wlen, "no module mapped by pid %d defines malloc (the executable %s, "
		 "libc %s)", pid, n > 0 ? "does not" : "is unreadable",
		 libc[0] ? "does not either" : "is not mapped");
	return -ENOENT;
}

/* A command not yet started: its executable, then its DT_NEEDED libraries. */
static int find_for_command(const char *exe, struct hp_module *mod, char *why, size_t wlen)
{
	static const char *const dirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
		"/lib", "/usr/lib", "/usr/local/lib",
	};
	char needed[4096], cand[PATH_MAX + 4096], libc[PATH_MAX + 4096] = "";
	const char *nm, *pre;
	int n = 0, k, fd, r;
	size_t d;

	r = module_from_file(exe, exe, mod);
	if (r > 0)
		return 0;
	/* the command inherits the recorder's environment: its LD_PRELOAD comes next */
	pre = getenv("LD_PRELOAD");
	if (pre && strlen(pre) < sizeof(needed)) {
		char list[4096], *tok, *save = NULL;

		snprintf(list, sizeof(list), "%s", pre);
		for (tok = strtok_r(list, " :", &save); tok; tok = strtok_r(NULL, " :", &save)) {
			if (strchr(tok, '/')) {
				if (module_from_file(tok, tok, mod) > 0)
					goto found_preload;
				continue;
			}
			for (d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
				snprintf(cand, sizeof(cand), "%s/%s", dirs[d], tok);
				if (!access(cand, R_OK)) {
					if (module_from_file(cand, cand, mod) > 0)
						goto found_preload;
					break;
				}
			}
		}
	}
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || uprobe_target__elf_needed(fd, needed, sizeof(needed), &n)) {
		if (fd >= 0)
			close(fd);
		snprintf(why, wlen, "%s does not define malloc and links no library", exe);
		return -ENOENT;
	}
	close(fd);
	for (k = 0, nm = needed; k < n; k++, nm += strlen(nm) + 1) {
		for (d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
			snprintf(cand, sizeof(cand), "%s/%s", dirs[d], nm);
			if (access(cand, R_OK))
				continue;
			if (is_libc(cand)) {
				if (!libc[0])
					snprintf(libc, sizeof(libc), "%s", cand);
				break;
			}
			if (module_from_file(cand, cand, mod) > 0)
				return 0;
			break;
		}
	}
	if (libc[0] && module_from_file(libc, libc, mod) > 0) {
		/* name it the way the process will map it */
		char real[PATH_MAX];

		if (realpath(libc, real))
			snprintf(mod->path, sizeof(mod->path), "%s", real);
		return 0;
	}
	snprintf(why, wlen, "neither %s nor the libraries it needs define malloc", exe);
	return -ENOENT;

found_preload:
	{
		char real[PATH_MAX];

		if (realpath(mod->open_path, real))
			snprintf(mod->path, sizeof(mod->path), "%s", real);
	}
	return 0;
}

/* ------------------------------------------------------------------ collector */

/* A site as user space knows it: the cumulative counters read last time, its stack. */

struct hp_priv {
	struct heap_bpf *skel;
	struct uprobe_link *links[2 * ALLOC_NFUNCS];
	int nlinks;
	struct ring_buffer *rb;
	struct ring_buffer *crb;	/* the stack copies' ring (dwarf) */
	struct stack_copies *copies;	/* the capture's (dwarf) */
	size_t bad_copies;		/* malformed copy records (not written) */
	struct hp_module mod;
	int ncpus;
	struct hp_counters *cnt;	/* ncpus */
	struct hp_counters prev;
	struct heap_usite *sites;		/* open addressing, cap entries */
	size_t cap;
	struct heap_rank rank;		/* the sites ranked each poll */
	__u64 *lkeys;
	struct hp_live *lvals;
	struct stack_table *table;
	uint64_t prev_ns;
	uint64_t prev_misses[3];
	uint64_t prev_peak_lost;	/* hp_peak.peak_lost at the last poll */
	uint64_t prev_last_lost;	/* hp_peak.last_lost at the last poll */
	uint64_t *temp_rows;		/* HP_SITE_ENTRIES: each row's temporaries this poll */
	uint64_t prev_marks;		/* hp_peak.marks at the last poll */
	struct heap_peak peak;		/* HP_SITE_ENTRIES: the sites at the last peak mark */
	int rb_err;
	struct collector *c;
	dev_t dev;			/* the module's file when its probes were attached */
	ino_t ino;
};

#define HP_USITE_CAP (4 * HP_SITE_ENTRIES)
#define HP_BATCH 4096

/* Old attachments being stopped in the background: releasing uprobe links waits for a
 * grace period in the kernel (record/uprobe_link.h), which the held new program need not
 * wait for. Until it is done, the old programs may still fire on a library the new
 * program maps too; their maps are no longer read. */
#define HP_REAPERS 8

static struct hp_reaper {
	pthread_t thread;
	struct collector c;	/* a copy: its ops and priv */
} reapers[HP_REAPERS];
static int n_reapers;
static __thread bool reaping;	/* this thread is a reaper */

static void *reap(void *arg)
{
	struct collector *c = arg;

	reaping = true;
	heap__lane_stop(c);
	return NULL;
}

void heap__reap_wait(void)
{
	int i;

	if (reaping)
		return;
	for (i = 0; i < n_reapers; i++)
		pthread_join(reapers[i].thread, NULL);
	n_reapers = 0;
}

/* Stop what C has attached, in the background when a thread can be had; C is left
 * with nothing attached. (After the new attach: attaching waits behind detaches.) */
static void stop_behind(struct collector *c)
{
	struct hp_reaper *r;

	if (!c->priv)
		return;
	if (n_reapers == HP_REAPERS)
		heap__reap_wait();
	r = &reapers[n_reapers];
	r->c = *c;
	c->priv = NULL;
	if (pthread_create(&r->thread, NULL, reap, &r->c)) {
		heap__lane_stop(&r->c);
		return;
	}
	n_reapers++;
}

extern const struct collector_ops heap_collector;

/* Empty the hash map M: its keys, read in batches, are deleted. 0 or -errno. */
static int clear_hash(struct bpf_map *m)
{
	enum { BATCH = 256 };
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	size_t ks = bpf_map__key_size(m), vs = bpf_map__value_size(m);
	void *keys = malloc(BATCH * ks), *vals = malloc(BATCH * vs), *in = NULL;
	int fd = bpf_map__fd(m), err = -ENOMEM, rounds = 0;
	__u64 batch = 0;
	__u32 n, count;
	bool last;

	while (keys && vals && rounds++ < 1 << 16) {
		n = BATCH;
		err = bpf_map_lookup_batch(fd, in, &batch, keys, vals, &n, &o);
		last = err && errno == ENOENT;
		if (err && !last) {
			err = -errno;
			break;
		}
		count = n;
		if (n && bpf_map_delete_batch(fd, keys, &count, &o)) {
			err = -errno;
			break;
		}
		err = 0;
		if (last)
			break;
		in = &batch;
	}
	free(keys);
	free(vals);
	return err;
}

/* The new program (NEW: checked, not started), held at its exec, has the same allocator
 * module as the old one (OLD: started), the same file at the same probe points: OLD's
 * probes stay (a
 * uprobe belongs to the process, and the new program gets it when it maps the file), its
 * maps and sites are emptied, as a new start would have them (the old program's live set
 * is gone with it), and it becomes NEW's. Loading the BPF object again (its vmlinux BTF,
 * its 1M-entry live map: 50-150 ms) is what a chain of execs of shell scripts waited on
 * each time. 0; -EXDEV when the modules differ; -errno when a map could not be emptied
 * (then OLD is to be stopped and NEW started as usual). */
/* The allocator module of C's target, into MOD: for a command not yet started its
 * executable and libraries, else /proc/PID/maps. 0, or -errno with WHY. */
static int hp_module_find(struct collector *c, struct hp_module *mod, char *why, size_t wlen)
{
	struct rec_ctx *ctx = c->ctx;

	why[0] = '\0';
	if (ctx->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND && ctx->exe && ctx->exe[0])
		return find_for_command(ctx->exe, mod, why, wlen);
	return find_in_maps(ctx->pid, mod, why, wlen);
}

static int keep_probes(struct collector *old, struct collector *new)
{
	struct hp_priv *op = old->priv;
	struct hp_module *nm;
	struct stat st;
	char why[200];
	__u32 zero = 0;
	bool same;
	int err;

	/* both the uprobe lane: the heap's (not the Go lane's), which check() chose for both */
	if (old->ops != &heap_collector || new->ops != &heap_collector ||
	    old->source != PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF ||
	    new->source != PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF || !op || !op->c ||
	    !op->skel || new->priv)
		return -EXDEV;
	/* only while the target is held does nothing fire while the maps are emptied (a
	 * --pid target, or an exec the watch could not hold, runs: attach anew) */
	if (!new->ctx->exec_held)
		return -EXDEV;
	/* the new program's module, as check() found it */
	nm = malloc(sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	same = !hp_module_find(new, nm, why, sizeof(why)) && !strcmp(op->mod.path, nm->path) &&
	       !strcmp(op->mod.open_path, nm->open_path) &&
	       !memcmp(op->mod.present, nm->present, sizeof(op->mod.present)) &&
	       !memcmp(op->mod.offset, nm->offset, sizeof(op->mod.offset)) &&
	       !memcmp(op->mod.pp, nm->pp, sizeof(op->mod.pp)) && !stat(op->mod.open_path, &st) &&
	       st.st_dev == op->dev && st.st_ino == op->ino;
	free(nm);
	if (!same)
		return -EXDEV;
	err = clear_hash(op->skel->maps.hp_live);
	if (!err)
		err = clear_hash(op->skel->maps.hp_sites);
	if (!err)
		err = clear_hash(op->skel->maps.hp_stacks);
	if (!err) {
		memset(op->cnt, 0, (size_t)op->ncpus * sizeof(*op->cnt));
		if (bpf_map_update_elem(bpf_map__fd(op->skel->maps.hp_counters), &zero, op->cnt, 0))
			err = -errno;
	}
	if (err)
		return err;
	memset(op->sites, 0, op->cap * sizeof(*op->sites));
	memset(&op->prev, 0, sizeof(op->prev));
	/* the new program starts from nothing live; the peak so far stays (the capture's) */
	__atomic_store_n(&op->skel->bss->hp_peak.live_total, 0, __ATOMIC_RELAXED);
	/* prev_misses stay: the programs' recursion misses go on counting */
	op->prev_ns = rec_now_ns();
	op->c = new;
	new->priv = op;
	old->priv = NULL;
	return 0;
}

int heap__exec_follow(struct collector *c, uint64_t now_ns)
{
	struct collector old;
	Ptop__V1__ProbeState st;
	int err = 0;

	if (c->state == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE && c->priv)
		err = c->ops->poll(c, now_ns, 0);
	old = *c;	/* detached once the new program's probes are attached */
	c->priv = NULL;
	c->reason[0] = '\0';
	c->detail[0] = '\0';
	st = c->ops->check(c);
	if (st == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE && keep_probes(&old, c) == 0) {
		c->state = st;
		return err;
	}
	err = heap__start_checked(c, st) ?: err;
	stop_behind(&old);
	return err;
}

int heap__start_checked(struct collector *c, Ptop__V1__ProbeState st)
{
	int err = 0;

	if (st == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE) {
		err = c->ops->start(c);
		if (err) {
			st = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
			if (!c->reason[0])
				snprintf(c->reason, sizeof(c->reason), "start failed: %s",
					 strerror(-err));
			heap__lane_stop(c);
		}
	} else if (!c->reason[0]) {
		snprintf(c->reason, sizeof(c->reason), "(no reason given)");
	}
	c->state = st;
	return err;
}

/* --caps, when the uprobe lane cannot run here (C->reason says why): the preload lane
 * still records the heap of a launched command, without privileges, when its library
 * is found and --heap-lane allows it. Then the heap is "yes" for launched commands,
 * and C->reason keeps what --pid would need; else the uprobe lane's answer stands. */
static Ptop__V1__ProbeState caps_preload_only(struct collector *c)
{
	char lib[PATH_MAX], why[300], uprobe_why[sizeof(c->reason)];

	if (heap_settings.lane == HEAP_LANE_UPROBE ||
	    heap_preload__find_lib("/proc/self/exe", lib, sizeof(lib), why, sizeof(why)))
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	snprintf(uprobe_why, sizeof(uprobe_why), "%s", c->reason);
	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PRELOAD;
	snprintf(c->detail, sizeof(c->detail), "lane preload: %.*s", (int)sizeof(c->detail) - 16,
		 lib);
	snprintf(c->reason, sizeof(c->reason),
		 "for a launched command (-- COMMAND) only: the preload lane (%s) needs no "
		 "privileges; --pid, and static or Go commands, need the uprobe lane (%.*s)",
		 HEAP_PRELOAD_LIB_NAME, (int)sizeof(c->reason) - 200, uprobe_why);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

/* How the uprobe lane takes stacks this run (USER_STACKS_FP or _DWARF), decided by its
 * check. */
static enum user_stacks hp_mode = USER_STACKS_FP;
static char hp_mode_why[180];	/* why; "" until decided */
/* why the stack copies cannot run when dwarf was chosen ("" when they can, or fp was) */
static char hp_copy_why[200];
static struct {
	pid_t pid;
	int opt;
	uint64_t start_ns;
} hp_mode_for;			/* the recording it was decided for */

Ptop__V1__ProbeState heap__uprobe_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	Ptop__V1__ProbeState state;
	struct hp_module mod;
	char why[200];
	size_t len;
	int i;

	state = uprobe_target__precheck(
		c,
		"heap uprobes attach to one process's allocator, not yet per process of a "
		"cgroup: record one of its processes with --pid --enable heap",
		"--no-ebpf: the heap is measured only by eBPF uprobes on the allocator",
		"uprobes on the target's allocator (malloc, free, ...)", true);
	if (ctx->caps_only && state == PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED)
		return caps_preload_only(c);
	if (state != PTOP__V1__PROBE_STATE__PROBE_STATE_UNSPECIFIED)
		return state;
	/* the module is found again by start(): check() keeps nothing */
	if (hp_module_find(c, &mod, why, sizeof(why))) {
		snprintf(c->reason, sizeof(c->reason), "no allocator module: %s", why);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	len = (size_t)snprintf(c->detail, sizeof(c->detail), "%s:", mod.path);
	for (i = 0; i < ALLOC_NFUNCS && len < sizeof(c->detail); i++) {
		if (!mod.present[i])
			continue;
		if (mod.pp[i].emulated)
			len += (size_t)snprintf(c->detail + len, sizeof(c->detail) - len, " %s+%u",
						heap_func_names[i], mod.pp[i].offset);
		else
			len += (size_t)snprintf(c->detail + len, sizeof(c->detail) - len,
						" %s+0(stepped)", heap_func_names[i]);
	}
	if (len < sizeof(c->detail))
		len += (size_t)snprintf(c->detail + len, sizeof(c->detail) - len,
					"; stack every %llu B",
					(unsigned long long)heap_settings.sample_bytes);
	/* once per target and recording: the BPF side keeps it across execs */
	if (!hp_mode_why[0] || hp_mode_for.pid != ctx->pid || hp_mode_for.opt != ctx->user_stacks ||
	    hp_mode_for.start_ns != ctx->start_ns) {
		hp_mode = user_stacks__choose(ctx, hp_mode_why, sizeof(hp_mode_why));
		hp_mode = user_stacks__kernel(hp_mode, hp_mode_why, sizeof(hp_mode_why), hp_copy_why,
					      sizeof(hp_copy_why));
		hp_mode_for.pid = ctx->pid;
		hp_mode_for.opt = ctx->user_stacks;
		hp_mode_for.start_ns = ctx->start_ns;
	}
	if (len < sizeof(c->detail))
		snprintf(c->detail + len, sizeof(c->detail) - len, "; user stacks %s (%s)%s",
			 user_stacks_name(hp_mode), hp_mode_why,
			 hp_mode == USER_STACKS_DWARF ? ": 16 KiB stack copies, unwound offline" : "");
	/* the user stacks' lanes, as cpuprof's: copies, else frame pointers */
	user_stacks__lanes(c, hp_mode, c->source, hp_copy_why, NULL);
	if (heap_settings.events) { /* its limit, said at start (an active probe's reason) */
		uint64_t n;

		heap_events_ring_bytes(ctx->interval_ns, &n);
		heap_events_limit_text(c->reason, sizeof(c->reason), "ring buffer", n,
				       ctx->interval_ns);
	}
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void hp_stop(struct collector *c)
{
	struct hp_priv *p = c->priv;

	heap__reap_wait();
	if (!p)
		return;
	if (p->c) {	/* start() got past finding the module */
		ring_buffer__free(p->rb);
		ring_buffer__free(p->crb);
		uprobe_link__destroy(p->links, p->nlinks);
		heap_bpf__destroy(p->skel);
		free(p->cnt);
		free(p->sites);
		heap_rank__free(&p->rank);
		free(p->lkeys);
		free(p->lvals);
		free(p->temp_rows);
		heap_peak__free(&p->peak);
	}
	free(p);
	c->priv = NULL;
}

static int attach_one(struct collector *c, struct hp_priv *p, struct bpf_program *prog,
		      bool ret, int func)
{
	uint64_t off = p->mod.offset[func] + p->mod.pp[func].offset, cookie = (uint64_t)func;
	struct uprobe_link *l;
	int err;

	l = uprobe_link__attach(prog, c->ctx->pid, p->mod.open_path, &off, &cookie, 1, ret);
	if (!l) {
		char what[96];

		err = -errno;
		snprintf(what, sizeof(what), "attach %s to %s", ret ? "uretprobe" : "uprobe",
			 heap_func_names[func]);
		bpf_util__format_error(c->reason, sizeof(c->reason), what, err);
		return err;
	}
	p->links[p->nlinks++] = l;
	return 0;
}

static int on_event(void *arg, void *data, size_t size);

/* A stack copy from the ring: its Stack record, once per key. */
static int on_copy(void *arg, void *data, size_t size)
{
	struct hp_priv *p = arg;
	int err;

	if (p->rb_err)
		return 0;
	err = stack_copies__add(p->c->ctx, p->copies, p->table, data, size);
	if (err == -EINVAL)
		p->bad_copies++;
	else if (err)
		p->rb_err = err;
	return 0;
}

/* The VMAs of the target for its stack copies (bpf/stackcopy.h), from its maps now. */
static void seed_vmas(struct hp_priv *p, __u32 pid, struct sc_vmas *t)
{
	int fd = bpf_map__fd(p->skel->maps.hp_vmas);
	struct sc_vmas *v;

	if (!pid || sc_vmas__read((pid_t)pid, t))
		return;
	v = calloc((size_t)p->ncpus, sizeof(*v));
	if (!v)
		return;
	for (int i = 0; i < p->ncpus; i++)
		v[i] = *t;
	bpf_map_update_elem(fd, &pid, v, BPF_ANY);
	free(v);
}

static int hp_start(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	struct hp_priv *p;
	char why[200];
	uint32_t table[HP_EXP_TABLE];
	uint64_t done[ALLOC_NFUNCS];
	int err = 0, i, j, nd = 0;

	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	c->priv = p;	/* the module as check() found it: found again */
	err = hp_module_find(c, &p->mod, why, sizeof(why));
	if (err) {
		snprintf(c->reason, sizeof(c->reason), "no allocator module: %s", why);
		hp_stop(c);
		return err;
	}
	p->c = c;
	p->ncpus = bpf_util__ncpus();
	if (p->ncpus <= 0) {
		err = p->ncpus < 0 ? p->ncpus : -EINVAL;
		snprintf(c->reason, sizeof(c->reason), "cannot count possible CPUs");
		goto cleanup;
	}
	p->cap = HP_USITE_CAP;
	p->cnt = calloc(p->ncpus, sizeof(*p->cnt));
	p->sites = calloc(p->cap, sizeof(*p->sites));
	p->lkeys = calloc(HP_BATCH, sizeof(*p->lkeys));
	p->lvals = calloc(HP_BATCH, sizeof(*p->lvals));
	p->temp_rows = calloc(HP_SITE_ENTRIES, sizeof(*p->temp_rows));
	p->table = stack_table__capture();
	if (heap_rank__alloc(&p->rank) || !p->cnt || !p->sites || !p->lkeys || !p->lvals ||
	    !p->temp_rows || heap_peak__alloc(&p->peak, HP_SITE_ENTRIES) || !p->table) {
		err = -ENOMEM;
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		goto cleanup;
	}

retry:
	bpf_util__open_log(ctx->verbose);
	p->skel = heap_bpf__open();
	if (!p->skel) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason), "open heap BPF", err);
		goto cleanup;
	}
	p->skel->rodata->targ_tgid = (__u32)ctx->pid;
	p->skel->rodata->targ_cgid = ctx->cgroup_id;
	p->skel->rodata->targ_cglevel = ctx->cgroup_level;
	p->skel->rodata->hp_sample_bytes = heap_settings.sample_bytes;
	p->skel->rodata->hp_events = heap_settings.events;
	heap__exp_table(table, HP_EXP_TABLE);
	memcpy((void *)p->skel->rodata->hp_exp_table, table, sizeof(table));
	if (!heap_settings.events)
		bpf_map__set_max_entries(p->skel->maps.hp_events_rb, 4096);
	else
		bpf_map__set_max_entries(p->skel->maps.hp_events_rb,
					 (__u32)heap_events_ring_bytes(ctx->interval_ns, NULL));
	p->skel->rodata->hp_user_stacks = hp_mode == USER_STACKS_DWARF ? HP_USER_COPY : HP_USER_FP;
	/* test hook: every stack scan's per-CPU state taken over (bpf/stackcopy.bpf.h) */
	p->skel->rodata->sc_test_clobber = getenv("PTOP_TEST_STACK_CLOBBER") != NULL;
	if (hp_mode != USER_STACKS_DWARF) {	/* the copies' maps stay small */
		bpf_map__set_max_entries(p->skel->maps.hp_copies, 4096);
		bpf_map__set_max_entries(p->skel->maps.hp_copied, 1);
	}
	/* uprobe_multi links: no detach holds up an attach (record/uprobe_link.h) */
	err = uprobe_link__prepare(p->skel->progs.hp_enter) ?:
	      uprobe_link__prepare(p->skel->progs.hp_exit) ?:
	      uprobe_link__prepare(p->skel->progs.hp_free);
	if (!err) /* PTOP_TEST_REFUSE=stack_copy: the copies' load refused, as by a verifier */
		err = user_stacks__copy_refused(hp_mode) ? -E2BIG : heap_bpf__load(p->skel);
	if (err && hp_mode == USER_STACKS_DWARF) {
		/* the stack copies did not load: frame-pointer stacks for the rest of the
		 * recording (hp_mode is kept for it), and the lanes say why */
		char why[300];

		user_stacks__copy_failed(c, c->source, "load heap BPF with stack copies", err, why,
					 sizeof(why));
		hp_mode = USER_STACKS_FP; /* and an exec's check says why, from here on */
		snprintf(hp_copy_why, sizeof(hp_copy_why), "%.199s", why);
		snprintf(hp_mode_why, sizeof(hp_mode_why), "the stack copies failed to load: %.140s",
			 why);
		{	/* the detail as check() now writes it, what follows it kept */
			static const char tail[] = ": 16 KiB stack copies, unwound offline";
			char *at = strstr(c->detail, "; user stacks dwarf"), rest[sizeof(c->detail)];
			char *end = at ? strstr(at, tail) : NULL;

			if (at && end) {
				snprintf(rest, sizeof(rest), "%s", end + strlen(tail));
				snprintf(at, sizeof(c->detail) - (size_t)(at - c->detail),
					 "; user stacks fp (%s)%s", hp_mode_why, rest);
			}
		}
		heap_bpf__destroy(p->skel);
		p->skel = NULL;
		err = 0;
		goto retry;
	}
	err = err ?: bpf_util__loaded(p->skel->obj, "heap");
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason), "load heap BPF", err);
		goto cleanup;
	}
	{
		struct stat st;	/* what the probes attach to, for an exec (keep_probes) */

		if (stat(p->mod.open_path, &st) == 0) {
			p->dev = st.st_dev;
			p->ino = st.st_ino;
		}
	}
	for (i = 0; i < ALLOC_NFUNCS; i++) {
		uint64_t at = p->mod.offset[i] + p->mod.pp[i].offset;
		bool dup = false;

		if (!p->mod.present[i])
			continue;
		for (j = 0; j < nd; j++)
			dup |= done[j] == at;	/* aligned_alloc is memalign in glibc */
		if (dup)
			continue;
		done[nd++] = at;
		if (i == ALLOC_FREE) {
			err = attach_one(c, p, p->skel->progs.hp_free, false, i);
		} else {
			/* the return probe first: a call that passes the entry probe
			 * has its return seen (collectors/heap/heap.bpf.c, nested_call) */
			err = attach_one(c, p, p->skel->progs.hp_exit, true, i);
			if (!err)
				err = attach_one(c, p, p->skel->progs.hp_enter, false, i);
		}
		if (err)
			goto cleanup;
	}
	if (hp_mode == USER_STACKS_DWARF) {
		struct sc_vmas t;
		__u32 pid = (__u32)ctx->pid;

		p->copies = stack_copies__capture();
		p->crb = ring_buffer__new(bpf_map__fd(p->skel->maps.hp_copies), on_copy, p, NULL);
		if (!p->copies || !p->crb) {
			err = p->crb ? -ENOMEM : -errno;
			snprintf(c->reason, sizeof(c->reason), "stack copies' ring buffer: %s",
				 strerror(-err));
			goto cleanup;
		}
		seed_vmas(p, pid, &t);
	}
	if (heap_settings.events) {
		uint64_t n;

		p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.hp_events_rb), on_event, p,
					 NULL);
		if (!p->rb) {
			err = -errno;
			bpf_util__format_error(c->reason, sizeof(c->reason),
					       "open the heap event ring buffer", err);
			goto cleanup;
		}
		/* the limit it runs within: the probe's reason, said at start */
		heap_events_ring_bytes(ctx->interval_ns, &n);
		heap_events_limit_text(c->reason, sizeof(c->reason), "ring buffer", n,
				       ctx->interval_ns);
	}
	p->prev_ns = rec_now_ns();
	return 0;

cleanup:
	c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	hp_stop(c);
	return err ? err : -EINVAL;
}

static int on_event(void *arg, void *data, size_t size)
{
	struct hp_priv *p = arg;
	const struct hp_event *e = data;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__HeapEvent he = PTOP__V1__HEAP_EVENT__INIT;
	struct heap_usite *s = NULL;
	int err;

	if (size < sizeof(*e))
		return 0;
	if (e->site.stack.hash)
		s = heap_usites__get(p->sites, p->cap, &e->site);
	if (s) {
		struct heap_stack_src src = heap_stack_src__map(bpf_map__fd(p->skel->maps.hp_stacks));

		err = heap_usite__resolve(p->c->ctx, &src, p->table, s);
		if (err) {
			p->rb_err = err;
			return err;
		}
		he.stack_id = s->capid;
	}
	he.kind = e->kind == 2 ? PTOP__V1__HEAP_EVENT__KIND__KIND_FREE :
				 PTOP__V1__HEAP_EVENT__KIND__KIND_ALLOC;
	he.address = e->addr;
	he.size = e->size;
	he.function = (char *)(e->func < ALLOC_NFUNCS ? heap_func_names[e->func] : "");
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_HEAP_EVENT;
	ev.heap_event = &he;
	err = rec_emit_event(p->c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_HEAP, e->time_ns, 0);
	if (err)
		p->rb_err = err;
	return err;
}

/* Walk the live set: leak totals and each site's oldest live allocation. */
static int walk_live(struct hp_priv *p, uint64_t now_ns, uint64_t leak_age, uint64_t *leak_bytes,
		     uint64_t *leak_count)
{
	int fd = bpf_map__fd(p->skel->maps.hp_live);
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	__u64 batch = 0;
	void *in = NULL;
	__u32 n, i;
	int err, rounds = 0;

	*leak_bytes = 0;
	*leak_count = 0;
	do {
		n = HP_BATCH;
		err = bpf_map_lookup_batch(fd, in, &batch, p->lkeys, p->lvals, &n, &o);
		if (err && errno != ENOENT)
			return -errno;
		for (i = 0; i < n; i++) {
			const struct hp_live *l = &p->lvals[i];

			if (now_ns > l->time_ns && now_ns - l->time_ns >= leak_age) {
				*leak_bytes += l->size;
				(*leak_count)++;
			}
			if (l->site.stack.hash) {
				struct heap_usite *s = heap_usites__get(p->sites, p->cap, &l->site);

				if (s && (!s->oldest || l->time_ns < s->oldest))
					s->oldest = l->time_ns;
			}
		}
		in = &batch;
	} while (!err && ++rounds < (int)(2 * HP_LIVE_MAX / HP_BATCH + 2));
	return 0;
}

static int emit_drops(struct collector *c, struct hp_priv *p, const struct hp_counters *d)
{
	struct bpf_program *progs[3] = { p->skel->progs.hp_enter, p->skel->progs.hp_exit,
					 p->skel->progs.hp_free };
	uint64_t misses, all = 0, lost;
	int err, i;

	err = rec_emit_drop(c, "map_full", d->live_untracked,
			    "allocations not tracked: the heap live-set map was full "
			    "(live figures leave them out)");
	if (!err)
		err = rec_emit_drop(c, "stack_failure", d->stack_failures,
				    "sampled allocations whose user stack could not be taken");
	if (!err)
		err = rec_emit_drop(c, "stack_state_clobbered", d->stack_clobbered,
				    "sampled allocations without their stack: another stack scan "
				    "on the same CPU (a preempted uprobe) overwrote the scan's "
				    "per-CPU state, so the copy was dropped, not sent mixed");
	if (!err)
		err = rec_emit_drop(c, "stack_copy_malformed", p->bad_copies,
				    "stack copies from the kernel too short for their size: not "
				    "written (their allocations' sites stay unnamed)");
	p->bad_copies = 0;
	if (!err)
		err = rec_emit_drop(c, "site_map_full", d->site_full,
				    "sampled allocations whose site did not fit the heap site map");
	if (!err)
		err = rec_emit_drop(c, "inflight_full", d->inflight_lost,
				    "allocator calls not counted: no per-thread storage for them");
	if (!err)
		err = rec_emit_drop(c, "unmatched_entry", d->unmatched_entry,
				    "allocator calls not counted: their return was not seen "
				    "(the kernel lost its return probe)");
	if (!err)
		err = rec_emit_drop(c, "unmatched_return", d->unmatched_return,
				    "allocator calls not counted: their entry was not seen "
				    "(the kernel did not run the entry probe)");
	if (!err)
		err = rec_emit_drop(c, "attaching", d->attaching,
				    "allocator calls not counted: in flight while the heap "
				    "probes were being attached, at the start or at an exec "
				    "followed (their return seen, not their entry)");
	if (!err)
		err = rec_emit_drop(c, "filtered", d->filtered,
				    "allocator calls in the target's memory by another process "
				    "(a vfork child, or a pid the filter does not match): not "
				    "counted");
	if (!err)
		err = rec_emit_drop(c, "ringbuf", d->events_lost,
				    "--heap-events records lost: the ring buffer was full");
	lost = __atomic_load_n(&p->skel->bss->hp_peak.peak_lost, __ATOMIC_RELAXED);
	if (!err)
		err = rec_emit_drop(c, "peak_race", lost - p->prev_peak_lost,
				    "new peaks of the live heap given up: other CPUs kept raising "
				    "it (the peak is at least the one said)");
	p->prev_peak_lost = lost;
	lost = __atomic_load_n(&p->skel->bss->hp_peak.last_lost, __ATOMIC_RELAXED);
	if (!err)
		err = rec_emit_drop(c, "temporary_untracked", lost - p->prev_last_lost,
				    "allocations whose thread had no storage for its last "
				    "allocation: not counted as temporaries if they were");
	p->prev_last_lost = lost;
	if (err)
		return err;
	for (i = 0; i < 3; i++) {
		if (bpf_util__prog_misses(progs[i], &misses))
			continue;
		all += misses - p->prev_misses[i];
		p->prev_misses[i] = misses;
	}
	return rec_emit_drop(c, "recursion_miss", all,
			     "allocator calls the kernel did not run the heap probes for");
}

/* What the poll takes of each site beside its row: its temporaries this interval, and
 * after a new peak mark what it held there. */
struct poll_visit {
	struct hp_priv *p;
	bool peak;		/* a peak mark since the last poll */
	size_t npeak;
};

static void poll_visit(void *arg, struct heap_usite *s, const struct hp_site *cur, size_t row)
{
	struct poll_visit *v = arg;
	struct hp_priv *p = v->p;

	p->temp_rows[row] = cur->temporary_count - s->prev.temporary_count;
	if (v->peak && (int64_t)cur->peak_live_bytes > 0) {
		p->peak.rows[v->npeak].site = (size_t)(s - p->sites);
		p->peak.rows[v->npeak].live_bytes = cur->peak_live_bytes;
		p->peak.rows[v->npeak].live_count = heap__live_total(cur->peak_live_count);
		v->npeak++;
	}
}

static int hp_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct hp_priv *p = c->priv;
	struct rec_ctx *ctx = c->ctx;
	Ptop__V1__HeapSnapshot hs = PTOP__V1__HEAP_SNAPSHOT__INIT;
	struct hp_counters sum, d;
	struct heap_census census;
	struct heap_stack_src src;
	struct poll_visit pv = { 0 };
	uint64_t interval, leak_bytes, leak_count;
	int err;
	size_t nrows, npeak, i, j, k = 0;
	uint64_t marks;

	(void)flags;
	if (!p || !p->skel)
		return -EINVAL;
	/* a peak mark since the last poll: the sites' peak_live_* are its copy */
	marks = __atomic_load_n(&p->skel->bss->hp_peak.marks, __ATOMIC_ACQUIRE);
	p->rb_err = 0;
	if (p->crb) {	/* the copies before the events and sites that refer to them */
		struct sc_vmas t;

		ring_buffer__consume(p->crb);
		if (p->rb_err)
			return p->rb_err;
		seed_vmas(p, (__u32)ctx->pid, &t);	/* the mappings may have changed */
	}
	if (p->rb) {
		ring_buffer__consume(p->rb);
		if (p->rb_err)
			return p->rb_err;
	}
	err = bpf_util__percpu_sum(p->skel->maps.hp_counters, 0, p->cnt,
				   sizeof(struct hp_counters), (uint64_t *)&sum,
				   sizeof(sum) / sizeof(uint64_t));
	if (err)
		goto read_err;
	heap__counters_delta((const uint64_t *)&sum, (uint64_t *)&p->prev, (uint64_t *)&d,
			     sizeof(sum) / sizeof(uint64_t));

	/* the sites: cumulative in the kernel, this interval's deltas here */
	for (i = 0; i < p->cap; i++)
		p->sites[i].oldest = 0;
	err = walk_live(p, now_ns, heap_settings.leak_age_ns, &leak_bytes, &leak_count);
	if (err)
		goto read_err;
	pv.p = p;
	pv.peak = marks != p->prev_marks;
	nrows = heap__read_site_map(bpf_map__fd(p->skel->maps.hp_sites), p->sites, p->cap,
				    &p->rank, true, poll_visit, &pv);
	npeak = pv.npeak;
	err = heap__select_sites(p->rank.rows, nrows, heap_settings.top, p->rank.keep, &census);
	if (err)
		goto read_err;
	if (p->crb) {	/* a site's copy went into the ring before the site was made */
		ring_buffer__consume(p->crb);
		if (p->rb_err)
			return p->rb_err;
	}
	src = heap_stack_src__map(bpf_map__fd(p->skel->maps.hp_stacks));
	err = heap__fill_sites(c->ctx, &src, p->table, p->sites, &p->rank, nrows, &k);
	if (err)
		return err;
	/* the temporaries of the sites kept (fill_sites keeps the rows' order) */
	for (i = 0, j = 0; i < nrows && j < k; i++)
		if (p->rank.keep[i])
			p->rank.hsp[j++]->temporary_count = p->temp_rows[i];

	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	p->prev_ns = now_ns;
	heap__snapshot_init(&hs, PTOP__V1__HEAP_LANE__HEAP_LANE_UPROBE, p->mod.path, true, &census,
			    p->rank.hsp, k);
	/* the peak: every tracked allocation and free moved the live total; the sites at
	 * it, the copy of the last peak mark */
	hs.peak_measured = true;
	hs.peak_live_bytes = __atomic_load_n(&p->skel->bss->hp_peak.peak_bytes, __ATOMIC_RELAXED);
	hs.peak_time_ns = __atomic_load_n(&p->skel->bss->hp_peak.peak_time_ns, __ATOMIC_RELAXED);
	hs.temporary_measured = true;
	hs.temporary_count = d.temporary_count;
	if (marks != p->prev_marks) {
		err = heap__peak_sites(c->ctx, &src, p->table, p->sites, &p->peak, npeak,
				       heap_settings.sample_bytes != 0,
				       __atomic_load_n(&p->skel->bss->hp_peak.mark_bytes, __ATOMIC_RELAXED),
				       __atomic_load_n(&p->skel->bss->hp_peak.mark_ns, __ATOMIC_RELAXED),
				       &hs);
		if (err)
			return err;
		p->prev_marks = marks;
	}
	hs.user_stacks = (char *)user_stacks_name(p->crb ? USER_STACKS_DWARF : USER_STACKS_FP);
	hs.alloc_count = d.alloc_count;
	hs.alloc_bytes = d.alloc_bytes;
	hs.free_count = d.free_count;
	hs.free_bytes = d.free_bytes;
	hs.live_bytes = heap__live_total(sum.live_bytes);
	hs.live_count = heap__live_total(sum.live_count);
	hs.leak_bytes = leak_bytes;
	hs.leak_count = leak_count;
	hs.live_untracked = d.live_untracked;
	hs.stack_failures = d.stack_failures + d.stack_clobbered + d.site_full;
	hs.free_untracked = d.free_untracked;
	err = heap__emit_snapshot(ctx, &hs, now_ns, interval);
	if (err)
		return err;
	return emit_drops(c, p, &d);

read_err:
	snprintf(c->reason, sizeof(c->reason), "read heap BPF maps: %s", strerror(-err));
	return err;
}

const struct heap_lane_ops heap_uprobe_lane = {
	.name = "uprobe",
	.check = heap__uprobe_check,
	.start = hp_start,
	.poll = hp_poll,
	.stop = hp_stop,
	.exec = heap__exec_follow,
};
