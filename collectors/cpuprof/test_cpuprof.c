/* test_cpuprof.c — the cpuprof collector: its pure parts (delivered rate, counter sums
 * and set switching, the CPU list parser), its check() without eBPF, and, when run as root, the real perf_event + BPF profile of this
 * test's own thread burning CPU in a known function, and of a cgroup of two child
 * processes doing the same (counts and user stacks per process).
 *
 * The run loop's rec_emit_* are replaced by tests/rec_double.h, which keeps every record
 * the collector emits, packed, in order.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <gelf.h>
#include <libelf.h>

#include <bpf/bpf.h>

#include "record/collector.h"
#include "record/bpf_util.h"
#include "record/cgroupfs.h"
#include "record/stackcopy.h"
#include "collectors/cpuprof/record.h"
#include "record/stack_table.h"

extern const struct collector_ops cpuprof_collector;

#include "tests/rec_double.h"

/* ------------------------------------------------------------------ pure parts */




static void test_03_delivered_hz(void **state)
{
	(void)state;
	/* 198 ticks on 2 CPUs in 1 s: 99 Hz each */
	assert_float_equal(cpuprof__delivered_hz(198, 2, 1000000000ULL), 99.0, 1e-9);
	/* 499 ticks on one CPU in 0.5 s */
	assert_float_equal(cpuprof__delivered_hz(499, 1, 500000000ULL), 998.0, 1e-9);
	/* a week at 10 kHz on 4096 CPUs does not overflow */
	assert_float_equal(cpuprof__delivered_hz(10000ULL * 4096 * 604800, 4096,
						  604800ULL * 1000000000ULL), 10000.0, 1e-6);
	/* no interval or no CPU: nothing measured */
	assert_float_equal(cpuprof__delivered_hz(5, 0, 1000000000ULL), 0.0, 0);
	assert_float_equal(cpuprof__delivered_hz(5, 2, 0), 0.0, 0);
}

static void test_04_counters_and_sets(void **state)
{
	struct cp_counters pc[3] = {
		{ 10, 4, 1, 0, 0, 1 },
		{ 20, 0, 0, 0, 0, 0 },
		{ 5, 5, 0, 2, 1, 0 },
	};
	struct cp_counters s;
	uint32_t set = 0;
	int i;

	(void)state;
	cpuprof__sum_counters(pc, 3, &s);
	assert_int_equal(s.ticks, 35);
	assert_int_equal(s.samples, 9);
	assert_int_equal(s.no_user_stack, 1);
	assert_int_equal(s.no_kernel_stack, 2);
	assert_int_equal(s.lost_collision, 1);
	assert_int_equal(s.lost_map_full, 1);
	cpuprof__sum_counters(pc, 0, &s);
	assert_int_equal(s.ticks, 0);
	/* the sets alternate, and a switch never names the set being written */
	for (i = 0; i < 5; i++) {
		uint32_t next = cpuprof__other_set(set);

		assert_true(next < CP_SETS);
		assert_int_not_equal(next, set);
		assert_int_equal(cpuprof__other_set(next), set);
		set = next;
	}
}

static void test_05_cpulist(void **state)
{
	int cpus[16];

	(void)state;
	assert_int_equal(cpuprof__parse_cpulist("0-3,8,10-11\n", cpus, 16), 7);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[3], 3);
	assert_int_equal(cpus[4], 8);
	assert_int_equal(cpus[6], 11);
	assert_int_equal(cpuprof__parse_cpulist("0\n", cpus, 16), 1);
	assert_int_equal(cpuprof__parse_cpulist("5", cpus, 16), 1);
	assert_int_equal(cpus[0], 5);
	assert_int_equal(cpuprof__parse_cpulist("", cpus, 16), -EINVAL);
	assert_int_equal(cpuprof__parse_cpulist("\n", cpus, 16), -EINVAL);
	assert_int_equal(cpuprof__parse_cpulist("a", cpus, 16), -EINVAL);
	assert_int_equal(cpuprof__parse_cpulist("3-1", cpus, 16), -EINVAL);
	assert_int_equal(cpuprof__parse_cpulist("0-", cpus, 16), -EINVAL);
	assert_int_equal(cpuprof__parse_cpulist("1,,2", cpus, 16), -EINVAL);
	assert_int_equal(cpuprof__parse_cpulist("1 2", cpus, 16), -EINVAL);
	assert_int_equal(cpuprof__parse_cpulist("0-99999999999", cpus, 16), -EINVAL);
	assert_int_equal(cpuprof__parse_cpulist("0-16", cpus, 16), -E2BIG);
}

/* ------------------------------------------------------------------ collector */

static struct rec_ctx ctx;
static struct collector col;

static void init_col(pid_t pid, bool no_ebpf, unsigned hz)
{
	memset(&ctx, 0, sizeof(ctx));
	memset(&col, 0, sizeof(col));
	ctx.pid = pid;
	ctx.no_ebpf = no_ebpf;
	ctx.interval_ns = 1000000000ULL;
	cpuprof_settings.sample_hz = hz; /* --cpu-sample-hz */
	col.ops = &cpuprof_collector;
	col.ctx = &ctx;
	rec_double_reset();
}

static int teardown(void **state)
{
	(void)state;
	if (col.ops)
		col.ops->stop(&col);
	rec_double_reset();
	return 0;
}

static void test_06_no_ebpf(void **state)
{
	(void)state;
	init_col(getpid(), true, 99);
	assert_int_equal(col.ops->check(&col), PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED);
	assert_non_null(strstr(col.reason, "--no-ebpf"));
	assert_null(col.priv);		/* check() loads nothing */
	assert_int_equal(rec_double.n_records, 0);
	/* a cgroup is profiled, but only by eBPF too */
	init_col(0, true, 99);
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP;
	ctx.cgroup_id = 1;
	assert_int_equal(col.ops->check(&col), PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED);
	assert_non_null(strstr(col.reason, "--no-ebpf"));
	assert_null(col.priv);
}

/* ------------------------------------------------------------------ real BPF */

static volatile uint64_t sink;

static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The known function: burns this thread's CPU until its clock reaches UNTIL. */
__attribute__((noinline, noclone)) void cpuprof_test_spin(uint64_t until)
{
	uint64_t x = sink | 1;
	int i;

	do {
		for (i = 0; i < 50000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			__asm__ volatile("" : "+r"(x));
		}
		sink = x;
	} while (thread_ns() < until);
}

/* [*LO, *HI): where NAME lies in this process, from the executable's symbol table
 * (st_size), placed by the function's own address. 0 or -1. */
static int function_range(const char *name, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	Elf_Scn *scn = NULL;
	int fd, ret = -1;
	Elf *e;

	elf_version(EV_CURRENT);
	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && ret && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym))
				break;
			n = elf_strptr(e, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name) && sym.st_size) {
				*lo = addr;
				*hi = addr + sym.st_size;
				ret = 0;
				break;
			}
		}
	}
	elf_end(e);
	close(fd);
	return ret;
}

/* USER_STACKS: the --user-stacks mode the collector is checked with (-1: the default,
 * auto) */
static bool can_profile_with(int user_stacks)
{
	init_col(getpid(), false, 499);
	if (user_stacks >= 0)
		ctx.user_stacks = user_stacks;
	if (col.ops->check(&col) == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE)
		return true;
	printf("SKIP: %s\n", col.reason);
	return false;
}

static bool can_profile(void)
{
	return can_profile_with(-1);
}

/* Check the records emitted: every StackCount refers to a Stack written before the
 * event and the counts add up to the samples. Stack ids up to BASE were given by the
 * capture's table (shared by the whole program) in an earlier test, whose records are
 * gone: those are not looked for. *TOP_IP: the first ip of the user stack with the
 * highest count (0 if its record is an earlier test's). *EVP: the event, freed by the
 * caller. */
static Ptop__V1__CpuProfile *check_interval(int ev_i, uint64_t base, uint64_t *top_ip,
					    Ptop__V1__Event **evp)
{
	Ptop__V1__Event *ev = rec_double_event(ev_i, PTOP__V1__EVENT__PAYLOAD_CPUPROF);
	Ptop__V1__CpuProfile *p = ev->cpuprof;
	/* the sampled ips and their counts, summed over stacks: with stack copies
	 * (--user-stacks dwarf) nearly every sample is a stack of its own, so the top ip
	 * is the one most samples share, not the stack with the highest count */
	static uint64_t ip_of[8192], ip_n[8192];
	size_t n_ip = 0, best = 0;
	uint64_t total = 0;
	int end = rec_double.event_index[ev_i], r;
	size_t i;

	*top_ip = 0;
	for (i = 0; i < p->n_stacks; i++)
		total += p->stacks[i]->count;
	/* every sample on the target is in a stack count or counted as lost */
	assert_int_equal(total + p->lost, p->samples);
	for (i = 0; i < p->n_stacks; i++) {
		bool u = p->stacks[i]->user_stack_id <= base;
		bool k = p->stacks[i]->kernel_stack_id <= base;

		for (r = 0; r < end; r++) {
			Ptop__V1__Record *rec = rec_double_record(r);

			if (rec->kind_case == PTOP__V1__RECORD__KIND_STACK) {
				if (rec->stack->id == p->stacks[i]->user_stack_id) {
					assert_false(rec->stack->kernel);
					u = true;
					uint64_t ip;
					size_t k;

					if (rec->stack->copy) {
						/* --user-stacks dwarf: the ip, then the copy */
						assert_int_equal(rec->stack->n_ips, 0);
						assert_true(rec->stack->copy->stack.len >= 8);
						ip = rec->stack->copy->ip;
					} else {
						assert_true(rec->stack->n_ips > 0);
						ip = rec->stack->ips[0];
					}
					for (k = 0; k < n_ip && ip_of[k] != ip; k++)
						;
					if (k == n_ip) {
						assert_true(n_ip < 8192);
						ip_of[n_ip] = ip;
						ip_n[n_ip++] = 0;
					}
					ip_n[k] += p->stacks[i]->count;
				}
				if (rec->stack->id == p->stacks[i]->kernel_stack_id) {
					assert_true(rec->stack->kernel);
					k = true;
				}
			}
			ptop__v1__record__free_unpacked(rec, NULL);
		}
		assert_true(u && k);
	}
	for (i = 0; i < n_ip; i++)
		if (ip_n[i] > ip_n[best])
			best = i;
	if (n_ip)
		*top_ip = ip_of[best];
	*evp = ev;
	return p;
}

static void test_07_profile_own_thread(void **state)
{
	Ptop__V1__CpuProfile *p;
	Ptop__V1__Event *ev;
	uint64_t lo = 0, hi = 0, top, ids[4096], base;
	size_t nids = 0;
	int r, i;

	(void)state;
	/* frame-pointer walks: the test is about the sampled ip and the Stack records. Under
	 * auto, its ASan build (libasan has no frame pointers) takes stack copies, and the
	 * ip most samples share was then, in one interval of two, libasan's rather than the
	 * spin loop's (CI, twice in four runs); the copies are checked end to end by
	 * e2e/cpuprof/profile_nofp and test_unwind */
	if (!can_profile_with(USER_STACKS_FP))
		skip();
	if (function_range("cpuprof_test_spin", (uint64_t)(uintptr_t)&cpuprof_test_spin,
			   &lo, &hi) != 0) {
		printf("SKIP: no symbol table in /proc/self/exe to size cpuprof_test_spin\n");
		skip();
	}
	base = stack_table__count(stack_table__capture());
	if (col.ops->start(&col) != 0)
		fail_msg("start: %s", col.reason);
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), POLL_FIRST), 0);

	/* two intervals of ~0.5 s of this thread's CPU each, in the known function */
	for (i = 1; i <= 2; i++) {
		cpuprof_test_spin(thread_ns() + 500000000ULL);
		assert_int_equal(col.ops->poll(&col, rec_now_ns(), 0), 0);
		assert_int_equal(rec_double.n_events, i + 1);
		p = check_interval(i, base, &top, &ev);
		printf("# interval %d: ticks %llu, delivered %.1f Hz on %u CPUs, samples %llu, "
		       "stacks %zu, no user stack %llu, lost %llu, top ip %#llx "
		       "in [%#llx, %#llx)\n",
		       i, (unsigned long long)p->ticks, p->delivered_hz, p->cpus,
		       (unsigned long long)p->samples, p->n_stacks,
		       (unsigned long long)p->no_user_stack, (unsigned long long)p->lost,
		       (unsigned long long)top, (unsigned long long)lo, (unsigned long long)hi);
		assert_int_equal(p->requested_hz, 499);
		assert_true(p->cpus >= 1);
		assert_true(p->ticks >= p->samples);
		assert_true(p->samples > 0);
		assert_true(p->n_stacks > 0);
		/* the sampled ip itself, not a return address: inside the function */
		assert_true(top >= lo && top < hi);
		rec_double_free_event(ev);
	}
	/* each Stack record is written once over the whole run */
	for (r = 0; r < rec_double.n_records; r++) {
		Ptop__V1__Record *rec = rec_double_record(r);

		if (rec->kind_case == PTOP__V1__RECORD__KIND_STACK) {
			for (size_t k = 0; k < nids; k++)
				assert_true(ids[k] != rec->stack->id);
			assert_true(nids < 4096);
			ids[nids++] = rec->stack->id;
		}
		ptop__v1__record__free_unpacked(rec, NULL);
	}
	assert_true(nids > 0);
	/* Stacks are keyed by a 64-bit hash of their ips, so distinct stacks do not
	 * collide; what can still be lost (a full stack or count map, a stack not
	 * read back) is in a drop notice and in CpuProfile.lost (check_interval:
	 * samples = counted + lost), and none of it happens here. */
	{
		uint64_t lost = 0, dropped = 0;

		for (i = 1; i <= 2; i++) {
			p = check_interval(i, base, &top, &ev);
			lost += p->lost;
			rec_double_free_event(ev);
		}
		dropped = rec_double_drops("stack_map_full") + rec_double_drops("map_full") +
			  rec_double_drops("stack_unreadable");
		assert_int_equal(dropped, lost);
		assert_int_equal(lost, 0);
	}
	assert_int_equal(rec_double_drops("map_full"), 0);
}


/* ------------------------------------------------------------------ cgroup mode */

static pid_t cg_kids[2];
static char cg_dir[PATH_MAX + 64];

static int cg_teardown(void **state)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (cg_kids[i] > 0) {
			kill(cg_kids[i], SIGKILL);
			waitpid(cg_kids[i], NULL, 0);
		}
		cg_kids[i] = 0;
	}
	teardown(state);
	/* the cgroup is empty once its children are reaped; the bound is a guard only */
	for (i = 0; cg_dir[0] && i < 200; i++) {
		struct timespec ts = { 0, 10000000 };

		if (rmdir(cg_dir) == 0 || errno == ENOENT)
			break;
		nanosleep(&ts, NULL);
	}
	cg_dir[0] = '\0';
	return 0;
}

/* The Stack record ID among the records kept, unpacked (the caller frees it with
 * ptop__v1__record__free_unpacked), or NULL. */
static Ptop__V1__Record *stack_record(uint64_t id)
{
	int r;

	for (r = 0; r < rec_double.n_records; r++) {
		Ptop__V1__Record *rec = rec_double_record(r);

		if (rec->kind_case == PTOP__V1__RECORD__KIND_STACK && rec->stack->id == id)
			return rec;
		ptop__v1__record__free_unpacked(rec, NULL);
	}
	return NULL;
}

static bool same_ips(const Ptop__V1__Stack *a, const Ptop__V1__Stack *b)
{
	return a->n_ips == b->n_ips && !memcmp(a->ips, b->ips, a->n_ips * sizeof(*a->ips));
}

/* A cgroup of two child processes, each burning its CPU in the known function at the
 * same addresses (forked: one layout): every StackCount names one of the two, each has
 * samples, its top user stack starts in the function, and no user Stack is shared by
 * the two (each process's stack is its own record). */
static void test_09_cgroup_per_process(void **state)
{
	static struct cgroupfs_target tg;
	struct cgroupfs_mounts m;
	uint64_t lo = 0, hi = 0, top, count[2] = { 0 }, best[2] = { 0 }, best_id[2] = { 0 }, base;
	uint64_t uids[2][REC_DOUBLE_MAX];
	size_t nu[2] = { 0 }, a, b, j;
	char err[512], procs[PATH_MAX + 96], num[32];
	Ptop__V1__CpuProfile *p;
	Ptop__V1__Event *ev;
	int go[2], fd, i, k, st, same = 0;

	(void)state;
	if (!can_profile())
		skip();
	if (function_range("cpuprof_test_spin", (uint64_t)(uintptr_t)&cpuprof_test_spin,
			   &lo, &hi) != 0) {
		printf("SKIP: no symbol table in /proc/self/exe to size cpuprof_test_spin\n");
		skip();
	}
	if (cgroupfs_read_mounts(&m) != 0 || !m.v2[0]) {
		printf("SKIP: cgroup2 is not mounted\n");
		skip();
	}
	snprintf(cg_dir, sizeof(cg_dir), "%s/ptop-test-cpuprof-%d", m.v2, (int)getpid());
	if (mkdir(cg_dir, 0755) != 0) {
		printf("SKIP: cannot create the cgroup %s: %s\n", cg_dir, strerror(errno));
		cg_dir[0] = '\0';
		skip();
	}
	if (cgroupfs_resolve(&m, cg_dir, &tg, err, sizeof(err)) != 0)
		fail_msg("resolve %s: %s", cg_dir, err);
	assert_true(tg.level >= 1);

	/* two children, held on a pipe until they are in the cgroup and the profile runs */
	assert_int_equal(pipe(go), 0);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg_dir);
	for (i = 0; i < 2; i++) {
		pid_t pid = fork();
		char c;

		assert_true(pid >= 0);
		if (pid == 0) {
			char name[16];

			snprintf(name, sizeof(name), "cpuprof-kid-%d", i);
			prctl(PR_SET_NAME, name);
			close(go[1]);
			while (read(go[0], &c, 1) < 0 && errno == EINTR)
				;
			cpuprof_test_spin(thread_ns() + 300000000ULL);
			_exit(0);
		}
		cg_kids[i] = pid;
		fd = open(procs, O_WRONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		k = snprintf(num, sizeof(num), "%d\n", (int)pid);
		if (write(fd, num, (size_t)k) != k)
			fail_msg("move %d into %s: %s", (int)pid, cg_dir, strerror(errno));
		close(fd);
	}
	close(go[0]);

	init_col(0, false, 499);
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP;
	ctx.cgroup_id = tg.id;
	ctx.cgroup_level = tg.level;
	ctx.cgroup_path = tg.path;
	ctx.cgroup_dir = tg.dir;
	/* frame-pointer walks: a Stack's ips say whose it is (copies: test_07) */
	ctx.user_stacks = USER_STACKS_FP;
	assert_int_equal(col.ops->check(&col), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	assert_non_null(strstr(col.detail, "per process of the cgroup"));
	assert_non_null(strstr(col.detail, "user stacks fp (--user-stacks fp)"));
	base = stack_table__count(stack_table__capture());
	if (col.ops->start(&col) != 0)
		fail_msg("start: %s", col.reason);
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), POLL_FIRST), 0);
	close(go[1]);		/* go */
	for (i = 0; i < 2; i++) {
		assert_int_equal(waitpid(cg_kids[i], &st, 0), cg_kids[i]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), 0), 0);
	assert_int_equal(rec_double.n_events, 2);

	for (i = 0; i < 2; i++) {
		p = check_interval(i, base, &top, &ev);	/* stacks written first, counts add up */
		assert_int_equal(ev->pid, 0);		/* one event for the cgroup */
		/* each process with counts is named, as the kernel saw it when sampling:
		 * the children exited before this poll, and are named all the same */
		for (j = 0; j < p->n_stacks; j++) {
			char want[16];
			size_t q;

			for (q = 0; q < p->n_processes && p->processes[q]->pid != p->stacks[j]->pid;
			     q++)
				;
			assert_true(q < p->n_processes);
			snprintf(want, sizeof(want), "cpuprof-kid-%d",
				 p->stacks[j]->pid == cg_kids[0] ? 0 : 1);
			assert_string_equal(p->processes[q]->comm, want);
		}
		for (j = 1; j < p->n_processes; j++)	/* once each, by pid */
			assert_true(p->processes[j - 1]->pid < p->processes[j]->pid);
		for (j = 0; j < p->n_stacks; j++) {
			Ptop__V1__StackCount *sc = p->stacks[j];

			/* nothing else runs in the cgroup: every count is one child's */
			if (sc->pid == cg_kids[0])
				k = 0;
			else if (sc->pid == cg_kids[1])
				k = 1;
			else
				fail_msg("a StackCount of pid %d, not a child (%d, %d)", sc->pid,
					 (int)cg_kids[0], (int)cg_kids[1]);
			count[k] += sc->count;
			if (!sc->user_stack_id)
				continue;
			assert_true(sc->user_stack_id > base);	/* new to the capture */
			if (sc->count > best[k]) {
				best[k] = sc->count;
				best_id[k] = sc->user_stack_id;
			}
			for (a = 0; a < nu[k] && uids[k][a] != sc->user_stack_id; a++)
				;
			if (a == nu[k] && nu[k] < REC_DOUBLE_MAX)
				uids[k][nu[k]++] = sc->user_stack_id;
		}
		rec_double_free_event(ev);
	}
	for (k = 0; k < 2; k++) {
		Ptop__V1__Record *rec = stack_record(best_id[k]);

		assert_non_null(rec);
		assert_true(rec->stack->n_ips > 0);
		top = rec->stack->ips[0];
		ptop__v1__record__free_unpacked(rec, NULL);
		printf("# child %d: %llu samples, %zu user stacks, top ip %#llx in [%#llx, %#llx)\n",
		       (int)cg_kids[k], (unsigned long long)count[k], nu[k],
		       (unsigned long long)top, (unsigned long long)lo, (unsigned long long)hi);
		assert_true(count[k] > 0);
		assert_true(top >= lo && top < hi);
	}
	/* the same code at the same addresses, yet no user Stack of one is the other's:
	 * stacks of equal ips (the children spin in the same few instructions, called from
	 * the same place) are there in both, under two ids */
	for (a = 0; a < nu[0]; a++) {
		Ptop__V1__Record *ra = stack_record(uids[0][a]);

		assert_non_null(ra);
		for (b = 0; b < nu[1]; b++) {
			Ptop__V1__Record *rb = stack_record(uids[1][b]);

			assert_non_null(rb);
			assert_true(uids[0][a] != uids[1][b]);
			same += same_ips(ra->stack, rb->stack);
			ptop__v1__record__free_unpacked(rb, NULL);
		}
		ptop__v1__record__free_unpacked(ra, NULL);
	}
	printf("# %d user stacks of equal ips in both children, each its own record\n", same);
	assert_true(same > 0);
	for (i = 0; i < 2; i++)
		cg_kids[i] = 0;		/* reaped */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_03_delivered_hz),
		cmocka_unit_test(test_04_counters_and_sets),
		cmocka_unit_test(test_05_cpulist),
		cmocka_unit_test_teardown(test_06_no_ebpf, teardown),
		cmocka_unit_test_teardown(test_07_profile_own_thread, teardown),
		cmocka_unit_test_teardown(test_09_cgroup_per_process, cg_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
