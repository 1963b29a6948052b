/* record.c — the cpuprof collector: where the target's CPU time goes, as stacks sampled
 * by a timer, counted in the kernel by collectors/cpuprof/cpuprof.bpf.c.
 *
 * One PERF_COUNT_SW_CPU_CLOCK event per online CPU (pid -1, all tasks) samples at
 * --cpu-sample-hz (freq mode; the cpu-clock hrtimer turns it into a fixed period) and
 * runs cp_sample, which counts every tick and, on a target thread, adds one to the
 * count of its (user stack, kernel stack) pair. Each poll turns the interval's pairs
 * into StackCounts of capture-wide stack ids, writes each stack not seen before as a
 * Stack record (before the event that refers to it), and emits one CpuProfile event
 * with the requested and delivered rates and what could not be counted.
 *
 * In --cgroup mode the kernel counts per process too (the count key's tgid), each
 * StackCount names its process (pid), and a user stack is interned per process: the
 * same ips in two processes are two Stack records, each placed by its own process's
 * Mapping records. Kernel stacks are shared. The event is still one per interval.
 *
 * Reading and resetting without a race: the kernel side writes one of two sets (its
 * own stack map, count-map keys tagged with the set, per-CPU counters), chosen once per
 * run by the global cp_active. A poll flips cp_active, then waits for an RCU grace
 * period (membarrier(MEMBARRIER_CMD_GLOBAL) is synchronize_rcu(); a perf_event BPF
 * program runs inside an RCU read-side section, in the timer interrupt), after which no
 * run can still be writing the old set. The old set is then read and cleared at leisure
 * — counts deleted, stack map emptied, counters zeroed — while samples go into the other
 * set. Nothing is added to a count that user space has already read, and every stack
 * map entry is freed each interval, so a long recording does not fill the map. Where
 * membarrier is unavailable (nohz_full), the poll sleeps 10 ms instead: a run of the
 * program takes microseconds (said in the probe detail).
 *
 * delivered_hz is ticks / (CPUs x interval): every timer run counts, on any task. An
 * idle CPU can skip timer runs (measured on a 6.18 guest: at 99 Hz an idle host
 * delivered 50-99 Hz per CPU, at 999 Hz the full rate), so on a partly idle host it can
 * read below the requested rate without any sample of the target being missed.
 *
 * No /proc lane: with --no-ebpf the collector is unsupported. This collector counts
 * samples; the exact on-CPU time is the cpu collector's, and nothing here scales one by
 * the other.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/collector.h"
#include "record/kfeature.h"
#include "record/bpf_util.h"
#include "collectors/cpuprof/record.h"
#include "record/stack_table.h"
#include "collectors/cpuprof/cpuprof.skel.h"
#include "common/hash.h"
#include "record/stackcopy.h"

#define MAX_CPUS 4096
#define ONLINE_PATH "/sys/devices/system/cpu/online"
#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"
#define MAX_RATE_PATH "/proc/sys/kernel/perf_event_max_sample_rate"

/* ------------------------------------------------------------------ pure parts */

double cpuprof__delivered_hz(uint64_t ticks, uint32_t cpus, uint64_t interval_ns)
{
	if (!cpus || !interval_ns)
		return 0;
	return (double)ticks * 1e9 / ((double)cpus * (double)interval_ns);
}

void cpuprof__sum_counters(const struct cp_counters *percpu, int n, struct cp_counters *out)
{
	int cpu;

	memset(out, 0, sizeof(*out));
	for (cpu = 0; cpu < n; cpu++) {
		out->ticks += percpu[cpu].ticks;
		out->samples += percpu[cpu].samples;
		out->no_user_stack += percpu[cpu].no_user_stack;
		out->no_kernel_stack += percpu[cpu].no_kernel_stack;
		out->lost_collision += percpu[cpu].lost_collision;
		out->lost_map_full += percpu[cpu].lost_map_full;
		out->lost_copy += percpu[cpu].lost_copy;
		out->copies += percpu[cpu].copies;
	}
}

int cpuprof__parse_cpulist(const char *s, int *cpus, int max)
{
	int n = 0;

	while (*s && *s != '\n') {
		unsigned long a, b;
		char *end;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		a = strtoul(s, &end, 10);
		b = a;
		s = end;
		if (*s == '-') {
			s++;
			if (*s < '0' || *s > '9')
				return -EINVAL;
			b = strtoul(s, &end, 10);
			s = end;
		}
		if (b < a || b > MAX_CPUS * 16UL)
			return -EINVAL;
		for (; a <= b; a++) {
			if (n == max)
				return -E2BIG;
			cpus[n++] = (int)a;
		}
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return n ? n : -EINVAL;
}

/* ------------------------------------------------------------------ collector */

struct cp_priv {
	struct cpuprof_bpf *skel;
	int ncpus;			/* possible CPUs: per-CPU value count */
	int nopen;			/* CPUs with a sampling event */
	int *pfds;			/* perf fds not (yet) owned by a link; -1 */
	struct bpf_link **links;
	struct cp_counters *cnt;	/* ncpus */
	struct cp_key *keys;		/* CP_COUNT_ENTRIES */
	uint64_t *vals;			/* CP_COUNT_ENTRIES */
	struct sm_ips stack;		/* one stack read back from a stack map */
	Ptop__V1__StackCount *sc;	/* CP_COUNT_ENTRIES */
	Ptop__V1__StackCount **scp;
	/* cgroup mode: the processes of an interval's counts, named from cp_comms */
	Ptop__V1__ProcessName *pn;	/* CP_COUNT_ENTRIES */
	Ptop__V1__ProcessName **pnp;
	struct cp_comm *comms;		/* their names' storage */
	int32_t *pids;
	struct stack_table *table;
	struct stack_copies *copies;	/* the capture's (dwarf mode) */
	struct ring_buffer *rb;		/* the copies' ring (dwarf mode) */
	int rb_err;			/* the writer's error while draining it */
	size_t bad_copies;		/* malformed copy records (not written) */
	uint32_t active;		/* the set the kernel writes */
	bool membarrier;		/* MEMBARRIER_CMD_GLOBAL works here */
	uint64_t prev_ns;
	uint64_t prev_misses;
};

static int read_int_file(const char *path, long *v)
{
	char buf[64];
	ssize_t n;
	char *end;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EINVAL;
	buf[n] = '\0';
	errno = 0;
	*v = strtol(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

/* How this run takes user stacks (USER_STACKS_FP or _DWARF), decided by cp_check. */
static enum user_stacks cp_mode = USER_STACKS_FP;

/* The lanes of user stacks: "stack_copy" (copies of the stack's top, unwound offline:
 * bpf_loop and bpf_find_vma, Linux 5.17) and "fp" (frame pointers, walked in the kernel).
 * Where the mode chosen (WHY says how) is dwarf but this kernel lacks a feature of the
 * copies, the copies' lane is unsupported and the mode falls back to fp, with WHY saying
 * so. fp stacks of code without frame pointers are shorter: not the same measure (no
 * lane "instead": --strict counts it). */
static void cp_lanes(struct collector *c, char *why, size_t len)
{
	char kwhy[200];

	cp_mode = user_stacks__kernel(cp_mode, why, len, kwhy, sizeof(kwhy));
	user_stacks__lanes(c, cp_mode, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, kwhy, why);
}

static Ptop__V1__ProbeState cp_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	long paranoid, max_rate;
	char why[180], ustacks[320];
	int err;

	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
	c->reason[0] = '\0';
	if (ctx->no_ebpf) {
		snprintf(c->reason, sizeof(c->reason),
			 "--no-ebpf: the CPU profile is taken only by eBPF on perf events "
			 "(there is no /proc lane for stacks)");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	err = read_int_file(PARANOID_PATH, &paranoid);
	if (err) {
		snprintf(c->reason, sizeof(c->reason),
			 "no perf events in this kernel (%s: %s): needs CONFIG_PERF_EVENTS",
			 PARANOID_PATH, strerror(-err));
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	if (bpf_util__can_trace(why, sizeof(why)) != 0) {
		snprintf(c->reason, sizeof(c->reason), "%s; perf_event_paranoid=%ld",
			 why, paranoid);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	if (read_int_file(MAX_RATE_PATH, &max_rate) == 0 && max_rate >= 0 &&
	    cpuprof_settings.sample_hz > (unsigned long)max_rate) {
		snprintf(c->reason, sizeof(c->reason),
			 "--cpu-sample-hz %u is above kernel.perf_event_max_sample_rate (%ld): "
			 "ask for less, or raise the sysctl",
			 cpuprof_settings.sample_hz, max_rate);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	cp_mode = user_stacks__choose(ctx, why, sizeof(why));
	cp_lanes(c, why, sizeof(why));
	if (cp_mode == USER_STACKS_DWARF)
		snprintf(ustacks, sizeof(ustacks),
			 "user stacks dwarf (%s): %d KiB stack copies, unwound offline; kernel "
			 "stacks by frame pointers",
			 why, SC_MAX_BYTES / 1024);
	else
		snprintf(ustacks, sizeof(ustacks),
			 "user stacks fp (%s) and kernel stacks by frame pointers, up to %d "
			 "frames", why, CP_MAX_DEPTH);
	snprintf(c->detail, sizeof(c->detail),
		 "perf_event cpu-clock at %u Hz on every online CPU; %s; counted in kernel per "
		 "interval%s",
		 cpuprof_settings.sample_hz, ustacks,
		 ctx->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP ?
			 ", per process of the cgroup (StackCount.pid; each process's user "
			 "stacks are its own Stack records)" : "");
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void cp_stop(struct collector *c)
{
	struct cp_priv *p = c->priv;
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nopen; i++) {
		bpf_link__destroy(p->links[i]);	/* closes its perf fd too */
		if (p->pfds[i] >= 0)
			close(p->pfds[i]);
	}
	ring_buffer__free(p->rb);
	cpuprof_bpf__destroy(p->skel);
	free(p->pfds);
	free(p->links);
	free(p->cnt);
	free(p->keys);
	free(p->vals);
	free(p->sc);
	free(p->scp);
	free(p->pn);
	free(p->pnp);
	free(p->comms);
	free(p->pids);
	free(p);	/* p->table is the capture's, shared */
	c->priv = NULL;
}

static int read_online(int *cpus, int max)
{
	char buf[4096];
	ssize_t n;
	int fd;

	fd = open(ONLINE_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EINVAL;
	buf[n] = '\0';
	return cpuprof__parse_cpulist(buf, cpus, max);
}

/* Open a cpu-clock sampling event on each online CPU and attach cp_sample to it.
 * 0, or -errno with the reason in c->reason. */
static int open_events(struct collector *c, struct cp_priv *p)
{
	struct perf_event_attr attr;
	int *cpus, n, i, k, fd, err = 0;

	cpus = calloc(MAX_CPUS, sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	n = read_online(cpus, MAX_CPUS);
	if (n < 0) {
		err = n;
		snprintf(c->reason, sizeof(c->reason), "read %s: %s", ONLINE_PATH,
			 strerror(-err));
		goto cleanup;
	}
	p->pfds = calloc(n, sizeof(*p->pfds));
	p->links = calloc(n, sizeof(*p->links));
	if (!p->pfds || !p->links) {
		err = -ENOMEM;
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		goto cleanup;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.freq = 1;
	attr.sample_freq = cpuprof_settings.sample_hz;
	attr.disabled = 1;	/* enabled by the attach, once the program is on it */
	for (i = 0; i < n; i++) {
		fd = syscall(SYS_perf_event_open, &attr, -1, cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (errno == ENODEV)
				continue;	/* went offline since the list was read */
			err = -errno;
			snprintf(c->reason, sizeof(c->reason),
				 "perf_event_open cpu-clock at %u Hz on CPU %d: %s",
				 cpuprof_settings.sample_hz, cpus[i], strerror(-err));
			goto cleanup;
		}
		k = p->nopen++;
		p->pfds[k] = fd;
		p->links[k] = bpf_program__attach_perf_event(p->skel->progs.cp_sample, fd);
		if (!p->links[k]) {
			err = -errno;
			bpf_util__format_error(c->reason, sizeof(c->reason),
					       "attach BPF to the cpu-clock event", err);
			goto cleanup;
		}
		p->pfds[k] = -1;	/* the link owns it now */
	}
	if (!p->nopen) {
		err = -ENODEV;
		snprintf(c->reason, sizeof(c->reason), "no online CPU took a cpu-clock event");
	}
cleanup:
	free(cpus);
	return err;
}

static void forget_all_vmas(int fd)
{
	__u32 key, next;
	void *prev = NULL;
	int guard = 0;

	while (guard++ <= CP_VMAS_ENTRIES && bpf_map_get_next_key(fd, prev, &next) == 0) {
		bpf_map_delete_elem(fd, &next);
		key = next;
		prev = &key;
	}
}

/* Forget the VMAs the copies learned (bpf/stackcopy.h): a process's mappings may have
 * changed since; the next copies learn them again. The one target of a --pid or a
 * command's capture starts from its /proc/PID/maps instead. */
static void forget_vmas(struct collector *c, struct cp_priv *p, int fd)
{
	struct sc_vmas t;
	__u32 pid = (__u32)c->ctx->pid;

	if (pid && !c->ctx->cgroup_id && sc_vmas__read(c->ctx->pid, &t) == 0) {
		struct sc_vmas *v = calloc((size_t)p->ncpus, sizeof(*v));

		if (v) {
			for (int i = 0; i < p->ncpus; i++)
				v[i] = t;
			bpf_map_update_elem(fd, &pid, v, BPF_ANY);
			free(v);
			return;
		}
	}
	forget_all_vmas(fd);
}

/* A stack copy from the ring: its Stack record, once per key. */
static int on_copy(void *arg, void *data, size_t size)
{
	struct collector *c = arg;
	struct cp_priv *p = c->priv;
	int err;

	if (p->rb_err)
		return 0;
	err = stack_copies__add(c->ctx, p->copies, p->table, data, size);
	if (err == -EINVAL)
		p->bad_copies++;
	else if (err)
		p->rb_err = err;
	return 0;
}

static int cp_start(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	struct cp_priv *p;
	int err, q;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	c->priv = p;
	p->ncpus = bpf_util__ncpus();
	if (p->ncpus <= 0) {
		err = p->ncpus < 0 ? p->ncpus : -EINVAL;
		snprintf(c->reason, sizeof(c->reason), "cannot count possible CPUs: %s",
			 strerror(-err));
		goto cleanup;
	}
	p->cnt = calloc(p->ncpus, sizeof(*p->cnt));
	p->keys = calloc(CP_COUNT_ENTRIES, sizeof(*p->keys));
	p->vals = calloc(CP_COUNT_ENTRIES, sizeof(*p->vals));
	p->sc = calloc(CP_COUNT_ENTRIES, sizeof(*p->sc));
	p->scp = calloc(CP_COUNT_ENTRIES, sizeof(*p->scp));
	p->table = stack_table__capture();
	if (ctx->cgroup_id) {
		p->pn = calloc(CP_COUNT_ENTRIES, sizeof(*p->pn));
		p->pnp = calloc(CP_COUNT_ENTRIES, sizeof(*p->pnp));
		p->comms = calloc(CP_COUNT_ENTRIES, sizeof(*p->comms));
		p->pids = calloc(CP_COUNT_ENTRIES, sizeof(*p->pids));
	}
	if (!p->cnt || !p->keys || !p->vals || !p->sc || !p->scp || !p->table ||
	    (ctx->cgroup_id && (!p->pn || !p->pnp || !p->comms || !p->pids))) {
		err = -ENOMEM;
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		goto cleanup;
	}

retry:
	bpf_util__open_log(ctx->verbose);
	p->skel = cpuprof_bpf__open();
	if (!p->skel) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason), "open cpuprof BPF", err);
		goto cleanup;
	}
	p->skel->rodata->targ_tgid = (__u32)ctx->pid;
	p->skel->rodata->targ_cgid = ctx->cgroup_id;
	p->skel->rodata->targ_cglevel = ctx->cgroup_level;
	if (!ctx->cgroup_id)	/* names are for a cgroup's processes only */
		bpf_map__set_max_entries(p->skel->maps.cp_comms, 1);
	p->skel->rodata->cp_user_stacks = cp_mode == USER_STACKS_DWARF ? CP_USER_COPY : CP_USER_FP;
	if (cp_mode != USER_STACKS_DWARF) {	/* the copies' maps stay small */
		bpf_map__set_max_entries(p->skel->maps.cp_copied, 1);
		bpf_map__set_max_entries(p->skel->maps.cp_copies, 4096);
		bpf_map__set_max_entries(p->skel->maps.cp_copy_scratch, 1);
		bpf_map__set_max_entries(p->skel->maps.cp_vmas, 1);
	}
	/* PTOP_TEST_REFUSE=stack_copy: the copies' program refused, as a verifier would */
	err = user_stacks__copy_refused(cp_mode) ? -E2BIG : cpuprof_bpf__load(p->skel);
	if (err && cp_mode == USER_STACKS_DWARF) {
		/* the stack copies' lane did not load: frame-pointer stacks, and the
		 * lanes say why (the copies' program is the larger one to verify) */
		char why[300], *at;

		user_stacks__copy_failed(c, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF,
					 "load cpuprof BPF with stack copies", err, why, sizeof(why));
		at = strstr(c->detail, "user stacks dwarf");
		if (at)
			snprintf(at, sizeof(c->detail) - (size_t)(at - c->detail),
				 "user stacks fp (the stack copies failed to load: %.200s) and "
				 "kernel stacks by frame pointers, up to %d frames", why,
				 CP_MAX_DEPTH);
		cp_mode = USER_STACKS_FP;
		cpuprof_bpf__destroy(p->skel);
		p->skel = NULL;
		goto retry;
	}
	err = err ?: bpf_util__loaded(p->skel->obj, "cpuprof");
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason), "load cpuprof BPF", err);
		goto cleanup;
	}
	q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	p->membarrier = q > 0 && (q & MEMBARRIER_CMD_GLOBAL) &&
			syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0;
	if (!p->membarrier) {
		size_t len = strlen(c->detail);

		snprintf(c->detail + len, sizeof(c->detail) - len,
			 "; no membarrier: sets switched with a 10 ms pause");
	}
	if (cp_mode == USER_STACKS_DWARF) {
		p->copies = stack_copies__capture();
		p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.cp_copies), on_copy, c, NULL);
		if (!p->copies || !p->rb) {
			err = p->rb ? -ENOMEM : -errno;
			snprintf(c->reason, sizeof(c->reason), "stack copies' ring buffer: %s",
				 strerror(-err));
			goto cleanup;
		}
	}
	if (p->rb)
		forget_vmas(c, p, bpf_map__fd(p->skel->maps.cp_vmas));
	err = open_events(c, p);
	if (err)
		goto cleanup;
	p->prev_ns = rec_now_ns();
	return 0;

cleanup:
	c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	cp_stop(c);
	return err;
}

/* Wait until no run of cp_sample that may have read the old cp_active is still going. */
static void quiesce(struct cp_priv *p)
{
	struct timespec ts = { 0, 10000000 };

	if (p->membarrier && syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		return;
	p->membarrier = false;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The capture id of the stack keyed SK in stack map SMFD, taken in process PID (cgroup
 * mode; 0 otherwise), writing its Stack record the first time the capture sees it.
 * *ID: 0 for no stack (SK->hash 0) or one that cannot be read back. 0 or -errno from
 * the writer. */
static int resolve(struct collector *c, struct cp_priv *p, int smfd, const struct sm_key *sk,
		   uint32_t pid, uint64_t *id)
{
	int n;

	*id = 0;
	if (sk->kernel == SM_KIND_COPY) {	/* its record came through the ring */
		if (stack_copies__find(p->copies, pid ? pid : (uint32_t)c->ctx->pid, sk->hash,
				       id))
			*id = 0;
		return 0;
	}
	n = stackmap__read(smfd, sk, (uint64_t *)p->stack.ips, SM_MAX_DEPTH);
	if (n <= 0)
		return 0;
	return stack_table__emit(c->ctx, p->table, sk->kernel, pid,
				    (const uint64_t *)p->stack.ips, (size_t)n, id);
}

static int cmp_pid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/* Cgroup mode: name each process of the K stack counts in p->sc from cp_comms, into
 * p->pn/p->pnp. Returns how many. A process the map no longer holds (more than
 * CP_COMM_ENTRIES sampled since) is left out: unnamed, not misnamed. */
static size_t name_processes(struct cp_priv *p, int k)
{
	int fd = bpf_map__fd(p->skel->maps.cp_comms);
	size_t n = 0, m = 0, i;

	for (i = 0; i < (size_t)k; i++)
		if (p->sc[i].pid)
			p->pids[n++] = p->sc[i].pid;
	qsort(p->pids, n, sizeof(*p->pids), cmp_pid);
	for (i = 0; i < n; i++) {
		__u32 key = (__u32)p->pids[i];

		if ((i && p->pids[i] == p->pids[i - 1]) ||
		    bpf_map_lookup_elem(fd, &key, &p->comms[m]) != 0)
			continue;
		p->comms[m].comm[sizeof(p->comms[m].comm) - 1] = '\0';
		ptop__v1__process_name__init(&p->pn[m]);
		p->pn[m].pid = p->pids[i];
		p->pn[m].comm = p->comms[m].comm;
		p->pnp[m] = &p->pn[m];
		m++;
	}
	return m;
}

/* Read the count-map entries of set SET into p->keys/p->vals. Returns how many, or -errno. */
static int read_counts(struct cp_priv *p, uint32_t set)
{
	int fd = bpf_map__fd(p->skel->maps.cp_counts);
	struct cp_key key, next;
	int n = 0, seen = 0;
	void *prev = NULL;

	/* keys of the old set do not change under us, so the walk cannot loop; the
	 * bound is a guard only */
	while (seen < 2 * CP_COUNT_ENTRIES) {
		if (bpf_map_get_next_key(fd, prev, &next) != 0) {
			if (errno != ENOENT)
				return -errno;
			break;
		}
		key = next;
		prev = &key;
		seen++;
		if (next.set != set || n == CP_COUNT_ENTRIES)
			continue;
		if (bpf_map_lookup_elem(fd, &next, &p->vals[n]) != 0)
			continue;
		p->keys[n++] = next;
	}
	return n;
}

/* Empty the stack map of the old set: every id is free for the set's next turn. */
static void clear_stacks(int smfd)
{
	struct sm_key key, next;
	void *prev = NULL;
	int guard = 0;

	while (guard++ <= CP_STACK_ENTRIES && bpf_map_get_next_key(smfd, prev, &next) == 0) {
		bpf_map_delete_elem(smfd, &next);
		key = next;
		prev = &key;
	}
}

static int emit_losses(struct collector *c, struct cp_priv *p, const struct cp_counters *s,
		       uint64_t unreadable)
{
	uint64_t misses;
	char detail[160];
	int err;

	err = rec_emit_drop(c, "stack_map_full", s->lost_collision,
			    "samples whose stack did not fit: the interval's stack map was full");
	if (!err)
		err = rec_emit_drop(c, "map_full", s->lost_map_full,
				    "samples not counted: the (user, kernel) count map was full");
	if (!err)
		err = rec_emit_drop(c, "stack_copy_ring_full", s->lost_copy,
				    "samples whose stack copy found its ring buffer full");
	if (!err)
		err = rec_emit_drop(c, "stack_copy_malformed", p->bad_copies,
				    "stack copies from the kernel too short for their size: not "
				    "written (their samples are stack_unreadable)");
	p->bad_copies = 0;
	if (!err)
		err = rec_emit_drop(c, "stack_unreadable", unreadable,
				    "samples whose stack could not be read back or stored");
	if (err)
		return err;
	if (bpf_util__prog_misses(p->skel->progs.cp_sample, &misses) == 0) {
		snprintf(detail, sizeof(detail), "cp_sample: timer samples skipped by the kernel");
		err = rec_emit_drop(c, "recursion_miss", misses - p->prev_misses, detail);
		if (err)
			return err;
		p->prev_misses = misses;
	}
	return 0;
}

static int cp_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct cp_priv *p = c->priv;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CpuProfile prof = PTOP__V1__CPU_PROFILE__INIT;
	static const Ptop__V1__StackCount sc_init = PTOP__V1__STACK_COUNT__INIT;
	struct cp_counters sum;
	uint64_t interval, unreadable = 0;
	uint32_t old;
	int smfd, cfd, n, i, k = 0, err;

	(void)flags;
	if (!p || !p->skel)
		return -EINVAL;
	old = p->active;
	p->active = cpuprof__other_set(old);
	__atomic_store_n(&p->skel->bss->cp_active, p->active, __ATOMIC_SEQ_CST);
	quiesce(p);
	/* from here on the old set is ours alone */
	smfd = bpf_map__fd(old ? p->skel->maps.cp_stacks1 : p->skel->maps.cp_stacks0);
	cfd = bpf_map__fd(p->skel->maps.cp_counts);

	err = bpf_util__percpu_sum(p->skel->maps.cp_counters, old, p->cnt,
				   sizeof(struct cp_counters), (uint64_t *)&sum,
				   sizeof(sum) / sizeof(uint64_t));
	if (err)
		goto read_err;
	memset(p->cnt, 0, (size_t)p->ncpus * sizeof(*p->cnt));
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.cp_counters), &old, p->cnt, BPF_ANY)) {
		err = -errno;
		goto read_err;
	}
	if (p->rb) {	/* every copy of the old set is in the ring now: theirs first */
		ring_buffer__consume(p->rb);
		if (p->rb_err)
			return p->rb_err;	/* the writer failed: the recording ends */
		forget_vmas(c, p, bpf_map__fd(p->skel->maps.cp_vmas));
	}
	n = read_counts(p, old);
	if (n < 0) {
		err = n;
		goto read_err;
	}
	for (i = 0; i < n; i++) {
		Ptop__V1__StackCount *s = &p->sc[k];
		uint32_t pid = p->keys[i].tgid;	/* cgroup mode; 0 otherwise */
		uint64_t uid = 0, kid = 0;

		err = resolve(c, p, smfd, &p->keys[i].user, pid, &uid);
		if (!err)
			err = resolve(c, p, smfd, &p->keys[i].kern, 0, &kid);
		if (err)
			return err;	/* the writer failed: the recording ends */
		if ((p->keys[i].user.hash && !uid) || (p->keys[i].kern.hash && !kid)) {
			unreadable += p->vals[i];
			continue;
		}
		*s = sc_init;
		s->user_stack_id = uid;
		s->kernel_stack_id = kid;
		s->count = p->vals[i];
		s->pid = (int32_t)pid;
		p->scp[k++] = s;
	}
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(cfd, &p->keys[i]);
	clear_stacks(smfd);

	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	p->prev_ns = now_ns;
	prof.requested_hz = cpuprof_settings.sample_hz;
	prof.ticks = sum.ticks;
	prof.cpus = (uint32_t)p->nopen;
	prof.delivered_hz = cpuprof__delivered_hz(sum.ticks, prof.cpus, interval);
	prof.samples = sum.samples;
	prof.no_user_stack = sum.no_user_stack;
	prof.no_kernel_stack = sum.no_kernel_stack;
	prof.lost = sum.lost_collision + sum.lost_map_full + sum.lost_copy + unreadable;
	prof.user_stacks = (char *)user_stacks_name(cp_mode);
	prof.stack_copies = sum.copies;
	prof.n_stacks = k;
	prof.stacks = k ? p->scp : NULL;
	if (p->pn) {
		prof.n_processes = name_processes(p, k);
		prof.processes = prof.n_processes ? p->pnp : NULL;
	}
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPUPROF;
	ev.cpuprof = &prof;
	err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_CPUPROF, now_ns, interval);
	if (err)
		return err;
	return emit_losses(c, p, &sum, unreadable);

read_err:
	snprintf(c->reason, sizeof(c->reason), "read cpuprof BPF maps: %s", strerror(-err));
	return err;
}

struct cpuprof_settings cpuprof_settings;

static const struct collector_opt cp_opts[] = {
	{
		.name = "cpu-sample-hz",
		.short_name = 'F', /* perf record -F: the sampling frequency */
		.arg = "N",
		.def = "99",
		.help = "CPU profile samples per second per CPU (default 99,\n"
			"1 to 10000)",
		.section = COPT_COLLECTORS,
		.order = 10,
		.parse = copt_parse_uint,
		.offset = offsetof(struct cpuprof_settings, sample_hz),
		.min = 1,
		.max = CPUPROF_MAX_SAMPLE_HZ,
	},
	{ .name = NULL },
};

static void cp_header_options(Ptop__V1__Options *o)
{
	o->cpu_sample_hz = cpuprof_settings.sample_hz;
}

const struct collector_ops cpuprof_collector = {
	.name = "cpuprof",
	.summary = "CPU profile: user and kernel stacks sampled at --cpu-sample-hz "
		   "(eBPF on perf_event cpu-clock)",
	.opts = cp_opts,
	.settings = &cpuprof_settings,
	.settings_size = sizeof(cpuprof_settings),
	.header_options = cp_header_options,
	.check = cp_check,
	.start = cp_start,
	.poll = cp_poll,
	.stop = cp_stop,
};
