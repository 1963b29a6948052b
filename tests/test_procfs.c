/* test_procfs.c — the /proc parsers of record/procfs.c on fixture texts
 * (tests/data/procfs/: captured from real processes, and hand-made edge
 * cases), on malformed and truncated input, and the readers on this process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/collector.h"
#include "record/procfs.h"
#include "collectors/vmas/record.h"

/* ---------------------------------------------------------------- helpers */

static char *data_path(const char *name)
{
	static char path[PATH_MAX];
	const char *src = __FILE__, *slash = strrchr(src, '/');
	int dir_len = slash ? (int)(slash - src) : 1;

	snprintf(path, sizeof(path), "%.*s/data/procfs/%s", dir_len, slash ? src : ".", name);
	return path;
}

/* The fixture NAME, NUL-terminated; the caller frees it. */
static char *load(const char *name)
{
	FILE *f = fopen(data_path(name), "r");
	char *buf;
	long n;

	if (!f)
		fail_msg("cannot open fixture %s", data_path(name));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A copy of the first N bytes of S. */
static char *prefix(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	assert_non_null(p);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* ---------------------------------------------------------------- stat */

static void test_01_stat_real(void **state)
{
	struct proc_stat st;
	char *t = load("real_prog_stat.txt");

	(void)state;
	assert_int_equal(procfs_parse_stat(t, &st), 0);
	assert_string_equal(st.comm, "my prog) x");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.minflt, 176);
	assert_int_equal(st.majflt, 2);
	assert_int_equal(st.utime, 0);
	assert_int_equal(st.stime, 0);
	assert_int_equal(st.num_threads, 1);
	assert_int_equal(st.starttime, 155127);
	assert_int_equal(st.vsize, 2801664);
	assert_int_equal(st.rss_pages, 442);
	free(t);

	t = load("real_kthread_stat.txt");
	assert_int_equal(procfs_parse_stat(t, &st), 0);
	assert_string_equal(st.comm, "rcu_exp_par_gp_kthread_worker/0");
	assert_int_equal(st.ppid, 2);
	assert_int_equal(st.starttime, 25);
	assert_int_equal(st.vsize, 0);
	assert_int_equal(st.rss_pages, 0);
	free(t);
}

static void test_02_stat_edge(void **state)
{
	struct proc_stat st;
	char *t = load("stat_edge.txt");

	(void)state;
	/* comm "a) (b) ) c": spaces and ')' inside, 44 fields (old kernel) */
	assert_int_equal(procfs_parse_stat(t, &st), 0);
	assert_string_equal(st.comm, "a) (b) ) c");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.minflt, 12345678901ULL);
	assert_int_equal(st.majflt, 89);
	assert_int_equal(st.utime, 250);
	assert_int_equal(st.stime, 125);
	assert_int_equal(st.num_threads, 17);
	assert_int_equal(st.starttime, 9876543);
	assert_int_equal(st.vsize, 10737418240ULL);
	assert_int_equal(st.rss_pages, -1);
	free(t);

	t = load("stat_zombie.txt");
	assert_int_equal(procfs_parse_stat(t, &st), 0);
	assert_string_equal(st.comm, "defunct worker");
	assert_int_equal(st.state, 'Z');
	assert_int_equal(st.utime, 3);
	assert_int_equal(st.stime, 4);
	free(t);

	/* a comm longer than the buffer is cut, not overflowed */
	char longc[200];
	memset(longc, 0, sizeof(longc));
	strcpy(longc, "1 (");
	memset(longc + 3, 'x', 100);
	strcat(longc, ") S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0\n");
	assert_int_equal(procfs_parse_stat(longc, &st), 0);
	assert_int_equal(strlen(st.comm), sizeof(st.comm) - 1);
}

static void test_03_stat_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"\n",
		"1234",
		"1234 (x",
		"1234 x) S 1",
		"1234 (x) S",
		"1234 (x) 5 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0",
		"1234 (x) S one 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0",
		"1234 (x) S 1 1 1 0 -1 0 99999999999999999999 0 0 0 0 0 0 0 20 0 1 0 1 0 0",
		"1234 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 0",
		"1234 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0x1",
		"ab (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0",
	};
	struct proc_stat st;
	char *t, *cut;
	const char *f24;
	size_t len, end24;
	int spaces = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(procfs_parse_stat(bad[i], &st), -EINVAL);
	assert_int_equal(procfs_parse_stat(NULL, &st), -EINVAL);

	/* Truncated at every byte: -EINVAL until field 24 has begun */
	t = load("real_prog_stat.txt");
	len = strlen(t);
	f24 = strrchr(t, ')');
	for (const char *p = f24; *p; p++)
		if (*p == ' ' && ++spaces == 22) {
			f24 = p + 1; /* first byte of field 24 */
			break;
		}
	assert_int_equal(spaces, 22);
	end24 = (size_t)(f24 - t);
	for (size_t n = 0; n <= len; n++) {
		int rc;

		cut = prefix(t, n);
		rc = procfs_parse_stat(cut, &st);
		if (n <= end24)
			assert_int_equal(rc, -EINVAL);
		else
			assert_int_equal(rc, 0);
		free(cut);
	}
	free(t);
}

/* ---------------------------------------------------------------- status */

static void test_04_status_real(void **state)
{
	struct proc_status st;
	char *t = load("real_prog_status.txt");

	(void)state;
	assert_int_equal(procfs_parse_status(t, &st), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(st.uid[i], 0);
		assert_int_equal(st.gid[i], 0);
	}
	assert_int_equal(st.n_nspid, 1);
	assert_int_equal(st.nspid[0], 6881);
	assert_true(st.has_threads);
	assert_int_equal(st.threads, 1);
	assert_true(st.has_ctxt_switches);
	assert_int_equal(st.voluntary_ctxt_switches, 2);
	assert_int_equal(st.nonvoluntary_ctxt_switches, 1);
	free(t);

	t = load("real_kthread_status.txt");
	assert_int_equal(procfs_parse_status(t, &st), 0);
	assert_int_equal(st.nspid[0], 16);
	assert_int_equal(st.voluntary_ctxt_switches, 2);
	assert_int_equal(st.nonvoluntary_ctxt_switches, 0);
	free(t);
}

static void test_05_status_variants(void **state)
{
	struct proc_status st;
	char *t = load("status_old_kernel.txt");

	(void)state;
	assert_int_equal(procfs_parse_status(t, &st), 0);
	assert_int_equal(st.uid[0], 1000);
	assert_int_equal(st.gid[3], 1000);
	assert_int_equal(st.n_nspid, 0); /* no NSpid line before Linux 4.1 */
	assert_int_equal(st.threads, 57);
	assert_int_equal(st.voluntary_ctxt_switches, 12);
	assert_int_equal(st.nonvoluntary_ctxt_switches, 3);
	free(t);

	t = load("status_nested_ns.txt");
	assert_int_equal(procfs_parse_status(t, &st), 0);
	assert_int_equal(st.uid[0], 101);
	assert_int_equal(st.uid[1], 102);
	assert_int_equal(st.uid[2], 103);
	assert_int_equal(st.uid[3], 104);
	assert_int_equal(st.gid[0], 201);
	assert_int_equal(st.gid[1], 202);
	assert_int_equal(st.n_nspid, 3);
	assert_int_equal(st.nspid[0], 91234);
	assert_int_equal(st.nspid[1], 7);
	assert_int_equal(st.nspid[2], 1);
	assert_int_equal(st.threads, 4);
	assert_int_equal(st.voluntary_ctxt_switches, 4000000000ULL);
	assert_int_equal(st.nonvoluntary_ctxt_switches, UINT64_MAX);
	free(t);

	t = load("status_no_ctxt.txt");
	assert_int_equal(procfs_parse_status(t, &st), 0);
	assert_int_equal(st.gid[0], 5);
	assert_false(st.has_ctxt_switches);
	assert_false(st.has_threads);
	assert_int_equal(st.threads, -1);
	free(t);
}

static void test_06_status_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"Name:\tx\n",
		"Uid:\t0\t0\t0\t0\n",                            /* no Gid */
		"Uid:\t0\t0\t0\nGid:\t0\t0\t0\t0\n",              /* three uids */
		"Uid:\t0\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n",        /* five */
		"Uid:\tx\t0\t0\t0\nGid:\t0\t0\t0\t0\n",
		"Uid:\t4294967296\t0\t0\t0\nGid:\t0\t0\t0\t0\n",  /* > uid_t */
		"Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nNSpid:\t1 2 3 4 5 6 7 8 9\n",
		"Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nNSpid:\t1 x\n",
		"Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nThreads:\t\n",
	};
	struct proc_status st;
	char *t;
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(procfs_parse_status(bad[i], &st), -EINVAL);
	/* Truncated anywhere: a clean result or -EINVAL, never a crash */
	t = load("status_nested_ns.txt");
	len = strlen(t);
	for (size_t n = 0; n <= len; n++) {
		char *cut = prefix(t, n);
		int rc = procfs_parse_status(cut, &st);

		assert_true(rc == 0 || rc == -EINVAL);
		if (n < (size_t)(strstr(t, "Gid:") - t) + 4)
			assert_int_equal(rc, -EINVAL);
		free(cut);
	}
	free(t);
}

/* ---------------------------------------------------------------- statm */

static void test_07_statm(void **state)
{
	static const char *const bad[] = {
		"", "1 2 3 4 5 6", "1 2 3 4 5 6 x", "1 2 3 4 5 6 7 8", "-1 2 3 4 5 6 7",
		"1 2 3 4 5 6 99999999999999999999",
	};
	struct proc_statm st;
	char *t = load("real_prog_statm.txt");

	(void)state;
	assert_int_equal(procfs_parse_statm(t, &st), 0);
	assert_int_equal(st.size, 684);
	assert_int_equal(st.resident, 475);
	assert_int_equal(st.shared, 395);
	assert_int_equal(st.text, 1);
	assert_int_equal(st.lib, 0);
	assert_int_equal(st.data, 144);
	assert_int_equal(st.dt, 0);
	free(t);
	assert_int_equal(procfs_parse_statm("0 0 0 0 0 0 0\n", &st), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(procfs_parse_statm(bad[i], &st), -EINVAL);
}

/* ---------------------------------------------------------------- rollup */

static void test_08_rollup_real(void **state)
{
	struct proc_smaps_counters c;
	char *t = load("real_prog_smaps_rollup.txt");

	(void)state;
	assert_int_equal(procfs_parse_smaps_rollup(t, &c), 0);
	assert_int_equal(c.rss, 1900 * 1024);
	assert_int_equal(c.pss, 577 * 1024);
	assert_int_equal(c.pss_anon, 320 * 1024);
	assert_int_equal(c.pss_file, 253 * 1024);
	assert_int_equal(c.pss_shmem, 4 * 1024);
	assert_int_equal(c.shared_clean, 1484 * 1024);
	assert_int_equal(c.shared_dirty, 0);
	assert_int_equal(c.private_clean, 80 * 1024);
	assert_int_equal(c.private_dirty, 336 * 1024);
	assert_int_equal(c.referenced, 1900 * 1024);
	assert_int_equal(c.anonymous, 320 * 1024);
	assert_int_equal(c.swap, 0);
	assert_true(c.present & PROCFS_SC_PSS_ANON);
	assert_true(c.present & PROCFS_SC_SWAP_PSS);
	assert_true(c.present & PROCFS_SC_LOCKED);
	assert_false(c.present & PROCFS_SC_SIZE); /* the rollup has no Size line */
	free(t);
}

static void test_09_rollup_old_kernel(void **state)
{
	struct proc_smaps_counters c;
	char *t = load("smaps_rollup_old_kernel.txt");

	(void)state;
	assert_int_equal(procfs_parse_smaps_rollup(t, &c), 0);
	assert_int_equal(c.rss, 804 * 1024);
	assert_int_equal(c.pss, 120 * 1024);
	assert_int_equal(c.private_clean, 24 * 1024);
	assert_int_equal(c.private_dirty, 92 * 1024);
	assert_int_equal(c.swap, 16 * 1024);
	assert_int_equal(c.swap_pss, 8 * 1024);
	/* Pss_Anon/File/Shmem came in Linux 5.9: not measured, not zero */
	assert_false(c.present & PROCFS_SC_PSS_ANON);
	assert_false(c.present & PROCFS_SC_PSS_FILE);
	assert_false(c.present & PROCFS_SC_PSS_SHMEM);
	assert_true(c.present & PROCFS_SC_SWAP);
	free(t);

	/* Without the header line, too */
	assert_int_equal(procfs_parse_smaps_rollup("Rss: 8 kB\nPss: 4 kB\n", &c), 0);
	assert_int_equal(c.rss, 8192);
	assert_int_equal(c.pss, 4096);
}

static void test_10_rollup_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"Rss: 8 kB\n",                            /* no Pss */
		"Pss: 8 kB\n",                            /* no Rss */
		"Rss: 8\nPss: 4 kB\n",                    /* no unit */
		"Rss: x kB\nPss: 4 kB\n",
		"Rss: 8 kB junk\nPss: 4 kB\n",
		"Rss 8 kB\nPss: 4 kB\n",
		"Rss: 99999999999999999999 kB\nPss: 4 kB\n",
		"Rss: 18014398509481984 kB\nPss: 4 kB\n", /* * 1024 overflows */
	};
	struct proc_smaps_counters c;
	char *t;
	size_t len, pss_end;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(procfs_parse_smaps_rollup(bad[i], &c), -EINVAL);
	t = load("real_prog_smaps_rollup.txt");
	len = strlen(t);
	pss_end = (size_t)(strstr(t, "Pss:") - t);
	for (size_t n = 0; n <= len; n++) {
		char *cut = prefix(t, n);
		int rc = procfs_parse_smaps_rollup(cut, &c);

		assert_true(rc == 0 || rc == -EINVAL);
		if (n <= pss_end)
			assert_int_equal(rc, -EINVAL);
		if (n == len)
			assert_int_equal(rc, 0);
		free(cut);
	}
	free(t);
}

/* ---------------------------------------------------------------- smaps */

#define MAX_SEEN 64
struct seen {
	int n;
	struct proc_vma v[MAX_SEEN];
	char path[MAX_SEEN][128];
	uint64_t rss, pss, uss, size;
	int stop_at;                 /* return 42 at this VMA (1-based); 0: never */
};

static int collect(const struct proc_vma *vma, void *arg)
{
	struct seen *s = arg;

	if (s->n < MAX_SEEN) {
		s->v[s->n] = *vma;
		assert_int_equal(strlen(vma->path), vma->path_len);
		snprintf(s->path[s->n], sizeof(s->path[0]), "%s", vma->path);
	}
	s->rss += vma->c.rss;
	s->pss += vma->c.pss;
	s->uss += vma->c.private_clean + vma->c.private_dirty;
	s->size += vma->c.size;
	s->n++;
	return s->stop_at && s->n == s->stop_at ? 42 : 0;
}

static void test_11_smaps_real(void **state)
{
	struct seen *s = calloc(1, sizeof(*s));
	char *t = load("real_prog_smaps.txt");

	(void)state;
	assert_int_equal(procfs_parse_smaps(t, collect, s), 28);
	assert_int_equal(s->n, 28);
	assert_int_equal(s->rss, 1900 * 1024);
	assert_int_equal(s->pss, 574 * 1024);
	assert_int_equal(s->uss, (80 + 336) * 1024);
	assert_int_equal(s->size, 2740 * 1024);
	/* the program itself: a path with spaces and ')' */
	assert_int_equal(s->v[0].start, 0x563dd97c4000ULL);
	assert_int_equal(s->v[0].end, 0x563dd97c5000ULL);
	assert_string_equal(s->v[0].perms, "r--p");
	assert_string_equal(s->v[0].dev, "fe:00");
	assert_int_equal(s->v[0].inode, 10953009);
	assert_string_equal(s->path[0], "/tmp/proc-fx/my prog) x");
	assert_int_equal(s->v[1].offset, 0x1000);
	assert_string_equal(s->v[1].perms, "r-xp");
	assert_string_equal(s->path[5], "[heap]");
	assert_string_equal(s->path[6], ""); /* anonymous */
	assert_string_equal(s->path[7], "/tmp/proc-fx/data file (v2).bin");
	assert_string_equal(s->v[7].perms, "r--s");
	assert_string_equal(s->path[15], "/dev/zero (deleted)");
	assert_string_equal(s->path[16], "/tmp/proc-fx/gone.bin (deleted)");
	assert_string_equal(s->path[27], "[vsyscall]");
	assert_int_equal(s->v[27].start, 0xffffffffff600000ULL);
	free(t);
	free(s);
}

static void test_12_smaps_edge(void **state)
{
	struct seen *s = calloc(1, sizeof(*s));
	char *t = load("smaps_edge.txt");
	const struct proc_vma *v;

	(void)state;
	assert_int_equal(procfs_parse_smaps(t, collect, s), 5);
	v = &s->v[0];
	assert_string_equal(s->path[0], "[anon:ptop_arena]");
	assert_int_equal(v->start, 0x7f1200000000ULL);
	assert_int_equal(v->end, 0x7f1200400000ULL);
	assert_int_equal(v->c.size, 4096 * 1024);
	assert_int_equal(v->c.rss, 3072 * 1024);
	assert_int_equal(v->c.pss, 3072 * 1024);
	assert_int_equal(v->c.pss_anon, 3072 * 1024);
	assert_int_equal(v->c.private_dirty, 3072 * 1024);
	assert_int_equal(v->c.anonymous, 3072 * 1024);
	assert_int_equal(v->c.swap, 512 * 1024);
	assert_int_equal(v->c.swap_pss, 512 * 1024);
	assert_int_equal(v->c.locked, 0);

	v = &s->v[1];
	assert_string_equal(s->path[1], "[anon_shmem:ring]");
	assert_string_equal(v->perms, "rw-s");
	assert_string_equal(v->dev, "00:01");
	assert_int_equal(v->inode, 2051);
	assert_int_equal(v->c.pss_shmem, 32 * 1024);
	assert_int_equal(v->c.shared_dirty, 64 * 1024);

	v = &s->v[2];
	assert_string_equal(s->path[2], "/var/lib/my app/data (copy).bin (deleted)");
	assert_int_equal(v->offset, 0x1000);
	assert_int_equal(v->c.shared_clean, 4 * 1024);
	assert_int_equal(v->c.private_clean, 4 * 1024);
	assert_int_equal(v->c.private_dirty, 4 * 1024);

	v = &s->v[3];
	assert_string_equal(s->path[3], "");
	assert_int_equal(v->path_len, 0);
	assert_int_equal(v->c.locked, 4 * 1024);

	v = &s->v[4];
	assert_string_equal(s->path[4], "/opt/lib/libx.so");
	assert_int_equal(v->offset, 0x1f0000000ULL);
	assert_string_equal(v->dev, "103:02");
	assert_int_equal(v->inode, 18446744073709551610ULL);
	assert_int_equal(v->c.shared_clean, 800 * 1024);
	free(t);
	free(s);
}

static void test_13_smaps_old_kernel_and_maps(void **state)
{
	struct seen *s = calloc(1, sizeof(*s));
	char *t = load("smaps_old_kernel.txt");

	(void)state;
	assert_int_equal(procfs_parse_smaps(t, collect, s), 2);
	assert_string_equal(s->path[0], "/bin/cat");
	assert_int_equal(s->v[0].start, 0x400000);
	assert_int_equal(s->v[0].c.private_clean, 44 * 1024);
	assert_false(s->v[0].c.present & PROCFS_SC_PSS_ANON);
	assert_true(s->v[0].c.present & PROCFS_SC_SWAP_PSS);
	assert_int_equal(s->v[1].c.private_dirty, 4 * 1024);
	assert_string_equal(s->v[1].dev, "08:01");
	free(t);

	memset(s, 0, sizeof(*s));
	t = load("maps_edge.txt");
	assert_int_equal(procfs_parse_smaps(t, collect, s), 6);
	assert_string_equal(s->path[0], "/usr/bin/my tool");
	assert_string_equal(s->path[2], "[heap]");
	assert_string_equal(s->path[3], "");
	assert_string_equal(s->path[5], "[vsyscall]");
	assert_int_equal(s->v[0].c.present, 0);
	assert_int_equal(s->rss, 0);
	free(t);
	free(s);
}

static void test_14_smaps_malformed(void **state)
{
	static const char *const bad[] = {
		"Rss: 4 kB\n",                                               /* counter first */
		"7f00-7e00 rw-p 00000000 00:00 0\n",                          /* end < start */
		"7f00 rw-p 00000000 00:00 0\n",
		"7f00-8f00 rw-p\n",
		"7f00-8f00 rwxps 00000000 00:00 0\n",
		"7f00-8f00 rw-p 00000000 0000 0\n",
		"7f00-8f00 rw-p 00000000 00:00 x\n",
		"7f00-8f00 rw-p 00000000 00:00 0\nRss: 4\n",
		"7f00-8f00 rw-p 00000000 00:00 0\nRss: 4 MB\n",
		"7f00-8f00 rw-p 00000000 00:00 0\nRss: 4 kB\nbogus line\n",
		"10000000000000000-8f00 rw-p 00000000 00:00 0\n",
	};
	struct seen *s = calloc(1, sizeof(*s));
	char *t, *cut;
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cut = strdup(bad[i]);
		assert_int_equal(procfs_parse_smaps(cut, collect, s), -EINVAL);
		free(cut);
	}
	cut = strdup("");
	assert_int_equal(procfs_parse_smaps(cut, collect, s), 0); /* a zombie's smaps */
	free(cut);

	/* The callback's non-zero return stops the walk and is returned */
	memset(s, 0, sizeof(*s));
	s->stop_at = 3;
	t = load("real_prog_smaps.txt");
	assert_int_equal(procfs_parse_smaps(t, collect, s), 42);
	assert_int_equal(s->n, 3);
	free(t);

	/* Truncated at every byte: a VMA count or -EINVAL, never a crash;
	 * cut at a line end, every whole header before the cut counts */
	t = load("smaps_edge.txt");
	len = strlen(t);
	for (size_t n = 0; n <= len; n++) {
		int rc, headers = 0;

		cut = prefix(t, n);
		memset(s, 0, sizeof(*s));
		for (const char *p = cut; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "")
			if (*p == '7')
				headers++;
		rc = procfs_parse_smaps(cut, collect, s);
		assert_true(rc == -EINVAL || (rc >= 0 && rc <= 5));
		if (n == len || (n > 0 && t[n - 1] == '\n'))
			assert_int_equal(rc, headers);
		free(cut);
	}
	free(t);
	free(s);
}

/* ---------------------------------------------------------------- cgroup */

static void test_15_cgroup_parse(void **state)
{
	static const struct {
		const char *file, *path;
	} cases[] = {
		{ "real_prog_cgroup.txt", "/" },
		{ "cgroup_hybrid_docker.txt", "/" },
		{ "cgroup_v1_only_docker.txt",
		  "/docker/3f9c1a2b4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8" },
		{ "cgroup_v1_only_plain.txt", "/user.slice" },
		{ "cgroup_v2_plain.txt", "/user.slice/user-1000.slice/session-3.scope" },
		{ "cgroup_v2_podman_rootless.txt",
		  "/user.slice/user-1000.slice/user@1000.service/user.slice/"
		  "libpod-fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210.scope/"
		  "container" },
	};
	static const char *const bad[] = { "", "\n", "x::/\n", "0:/\n", "0::\n", "0::relative\n",
					   "3:cpu\n" };
	char path[512], small[8];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *t = load(cases[i].file);

		assert_int_equal(procfs_parse_cgroup(t, path, sizeof(path)), 0);
		assert_string_equal(path, cases[i].path);
		free(t);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(procfs_parse_cgroup(bad[i], path, sizeof(path)), -EINVAL);
	/* A path with ':' in it stays whole */
	assert_int_equal(procfs_parse_cgroup("0::/a:b/c\n", path, sizeof(path)), 0);
	assert_string_equal(path, "/a:b/c");
	/* Too long: cut, and said so */
	assert_int_equal(procfs_parse_cgroup("0::/user.slice\n", small, sizeof(small)),
			 -ENAMETOOLONG);
	assert_string_equal(small, "/user.s");
}

static const char id_docker[] = "3f9c1a2b4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8";
static const char id_cri[] = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";
static const char id_crio[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
static const char id_podman[] = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
static const char id_kube[] = "5d4c3b2a19f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e";

static void test_16_container_id_forms(void **state)
{
	static const struct {
		const char *file;
		const char *id;
	} cases[] = {
		{ "cgroup_v2_docker_systemd.txt", id_docker },
		{ "cgroup_v1_only_docker.txt", id_docker },
		{ "cgroup_v2_kube_containerd.txt", id_cri },
		{ "cgroup_v2_crio.txt", id_crio },
		{ "cgroup_v2_podman_rootless.txt", id_podman },
		{ "cgroup_v1_kubepods_cgroupfs.txt", id_kube },
	};
	char path[512], id[65];
	char buf[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *t = load(cases[i].file);

		assert_int_equal(procfs_parse_cgroup(t, path, sizeof(path)), 0);
		memset(id, 0, sizeof(id));
		assert_true(procfs_container_id(path, id, sizeof(id)));
		assert_string_equal(id, cases[i].id);
		free(t);
	}
	/* containerd as a systemd service: "...slice:cri-containerd:<id>" */
	snprintf(buf, sizeof(buf),
		 "/system.slice/containerd.service/kubepods-burstable-pod12.slice:cri-containerd:%s",
		 id_cri);
	assert_true(procfs_container_id(buf, id, sizeof(id)));
	assert_string_equal(id, id_cri);
	/* docker in docker: the innermost id */
	snprintf(buf, sizeof(buf), "/docker/%s/docker/%s", id_docker, id_kube);
	assert_true(procfs_container_id(buf, id, sizeof(id)));
	assert_string_equal(id, id_kube);
	/* containerd without Kubernetes (ctr), namespace "default" */
	snprintf(buf, sizeof(buf), "/default/%s", id_crio);
	assert_true(procfs_container_id(buf, id, sizeof(id)));
	assert_string_equal(id, id_crio);
	/* a podman container's cgroup without the trailing component */
	snprintf(buf, sizeof(buf), "/machine.slice/libpod-%s.scope", id_podman);
	assert_true(procfs_container_id(buf, id, sizeof(id)));
	assert_string_equal(id, id_podman);
}

static void test_17_container_id_negative(void **state)
{
	char buf[512], id[65];
	char *t;

	(void)state;
	static const char *const none[] = {
		"",
		"/",
		"/user.slice/user-1000.slice/session-3.scope",
		"/system.slice/docker.service",
		"/process_api/2168183f67cdca181b9013183079164e",    /* 32 hex */
		"/kubepods/besteffort/pod7c1e4a52-3d6b-4e8f-9a10-b2c3d4e5f607",
		"/kubepods.slice/kubepods-burstable.slice",
	};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		assert_false(procfs_container_id(none[i], id, sizeof(id)));
	assert_false(procfs_container_id(NULL, id, sizeof(id)));
	/* 63 and 65 hex digits, upper case, junk after the id, conmon's scope */
	snprintf(buf, sizeof(buf), "/docker/%.63s", id_docker);
	assert_false(procfs_container_id(buf, id, sizeof(id)));
	snprintf(buf, sizeof(buf), "/docker/%s0", id_docker);
	assert_false(procfs_container_id(buf, id, sizeof(id)));
	snprintf(buf, sizeof(buf), "/docker/3F9C1A2B4D5E6F708192A3B4C5D6E7F8091A2B3C4D5E6F708192A3B4C5D6E7F8");
	assert_false(procfs_container_id(buf, id, sizeof(id)));
	snprintf(buf, sizeof(buf), "/system.slice/docker-%s.scopex", id_docker);
	assert_false(procfs_container_id(buf, id, sizeof(id)));
	snprintf(buf, sizeof(buf), "/system.slice/docker-%s.service", id_docker);
	assert_false(procfs_container_id(buf, id, sizeof(id)));
	snprintf(buf, sizeof(buf), "/system.slice/foo-%s.scope", id_docker);
	assert_false(procfs_container_id(buf, id, sizeof(id)));
	t = load("cgroup_v2_crio_conmon.txt");
	assert_int_equal(procfs_parse_cgroup(t, buf, sizeof(buf)), 0);
	assert_false(procfs_container_id(buf, id, sizeof(id)));
	free(t);
	/* too small a buffer: not found rather than cut */
	snprintf(buf, sizeof(buf), "/docker/%s", id_docker);
	assert_false(procfs_container_id(buf, id, 64));
	assert_false(procfs_container_id(buf, NULL, 65));
}

static void test_18_cgroup_text_container_id(void **state)
{
	char id[65];
	char *t;

	(void)state;
	/* hybrid host, Docker cgroupfs driver: v2 says "/", v1 has the id */
	t = load("cgroup_hybrid_docker.txt");
	assert_true(procfs_cgroup_text_container_id(t, id, sizeof(id)));
	assert_string_equal(id, id_docker);
	free(t);
	t = load("cgroup_v2_kube_containerd.txt");
	assert_true(procfs_cgroup_text_container_id(t, id, sizeof(id)));
	assert_string_equal(id, id_cri);
	free(t);
	t = load("real_prog_cgroup.txt");
	assert_false(procfs_cgroup_text_container_id(t, id, sizeof(id)));
	free(t);
	t = load("cgroup_v1_only_plain.txt");
	assert_false(procfs_cgroup_text_container_id(t, id, sizeof(id)));
	free(t);
	assert_false(procfs_cgroup_text_container_id("garbage", id, sizeof(id)));
}

static void test_19_mountinfo(void **state)
{
	char mnt[256], root[256], small[8];
	char *t;

	(void)state;
	t = load("real_mountinfo_hybrid.txt");
	assert_int_equal(procfs_parse_mountinfo_cgroup2(t, mnt, sizeof(mnt), root, sizeof(root)), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup/unified");
	assert_string_equal(root, "/");
	assert_int_equal(procfs_parse_mountinfo_cgroup2(t, small, sizeof(small), root, sizeof(root)),
			 -ENAMETOOLONG);
	free(t);
	t = load("mountinfo_v2_only.txt");
	assert_int_equal(procfs_parse_mountinfo_cgroup2(t, mnt, sizeof(mnt), root, sizeof(root)), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup");
	free(t);
	t = load("mountinfo_v1_only.txt");
	assert_int_equal(procfs_parse_mountinfo_cgroup2(t, mnt, sizeof(mnt), root, sizeof(root)),
			 -ENOENT);
	free(t);
	t = load("mountinfo_cgroupns_escaped.txt");
	assert_int_equal(procfs_parse_mountinfo_cgroup2(t, mnt, sizeof(mnt), root, sizeof(root)), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup x");
	assert_string_equal(root, "/kubepods.slice/pod a");
	free(t);
	assert_int_equal(procfs_parse_mountinfo_cgroup2("", mnt, sizeof(mnt), root, sizeof(root)),
			 -ENOENT);
	assert_int_equal(procfs_parse_mountinfo_cgroup2("1 2 3 - cgroup2 x\n", mnt, sizeof(mnt),
							root, sizeof(root)),
			 -ENOENT);
}

/* ---------------------------------------------------------------- live */

/* A pid that does not exist: a child that has exited and been reaped. */
static pid_t dead_pid(void)
{
	pid_t p = fork();

	assert_true(p >= 0);
	if (p == 0)
		_exit(0);
	assert_int_equal(waitpid(p, NULL, 0), p);
	return p;
}

static void test_20_read_self(void **state)
{
	struct proc_stat st;
	struct proc_status ss;
	struct proc_statm sm;
	struct proc_smaps_counters c;
	char *buf = NULL;
	size_t cap = 0, len = 0;
	pid_t dead;

	(void)state;
	assert_int_equal(procfs_read_stat(getpid(), &st), 0);
	assert_string_equal(st.comm, "test_procfs");
	assert_int_equal(st.ppid, getppid());
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.num_threads, 1);
	assert_true(st.minflt > 0);

	assert_int_equal(procfs_read_status(getpid(), &ss), 0);
	assert_int_equal(ss.uid[0], getuid());
	assert_int_equal(ss.uid[1], geteuid());
	assert_int_equal(ss.gid[0], getgid());
	assert_int_equal(ss.gid[1], getegid());
	assert_true(ss.n_nspid >= 1);
	assert_int_equal(ss.nspid[0], getpid());
	assert_int_equal(ss.threads, 1);

	assert_int_equal(procfs_read_statm(getpid(), &sm), 0);
	assert_true(sm.resident > 0);
	assert_true(sm.size >= sm.resident);

	assert_int_equal(procfs_read_file(getpid(), "smaps_rollup", &buf, &cap, &len), 0);
	assert_int_equal(strlen(buf), len);
	assert_int_equal(procfs_parse_smaps_rollup(buf, &c), 0);
	assert_true(c.rss > 0 && c.pss > 0 && c.pss <= c.rss);
	free(buf);

	dead = dead_pid();
	buf = NULL;
	cap = 0;
	assert_int_equal(procfs_read_stat(dead, &st), -ENOENT);
	assert_int_equal(procfs_read_status(dead, &ss), -ENOENT);
	assert_int_equal(procfs_read_statm(dead, &sm), -ENOENT);
	assert_int_equal(procfs_read_file(dead, "smaps", &buf, &cap, &len), -ENOENT);
	free(buf);
	assert_int_equal(procfs_read_file(getpid(), "no-such-file", &buf, &cap, &len), -ENOENT);
}

struct count_arg {
	int n;
	uint64_t last_end;
	bool ordered;
};

static int count_vma(const struct proc_vma *v, void *arg)
{
	struct count_arg *a = arg;

	if (v->start < a->last_end)
		a->ordered = false;
	a->last_end = v->end;
	a->n++;
	return 0;
}

static void test_21_walk_self(void **state)
{
	/* Buffers big enough up front, so reading maps then smaps does not
	 * change the mappings in between. */
	size_t cap1 = 8 << 20, cap2 = 8 << 20, len1 = 0, len2 = 0;
	char *maps = malloc(cap1), *smaps = malloc(cap2);
	struct count_arg a1 = { .ordered = true }, a2 = { .ordered = true };
	int n1, n2;

	(void)state;
	assert_non_null(maps);
	assert_non_null(smaps);
	assert_int_equal(procfs_read_file(getpid(), "maps", &maps, &cap1, &len1), 0);
	assert_int_equal(procfs_read_file(getpid(), "smaps", &smaps, &cap2, &len2), 0);
	assert_int_equal(cap1, 8 << 20);
	assert_true(len2 > 4096); /* bigger than one read: the loop was exercised */
	n1 = procfs_parse_smaps(maps, count_vma, &a1);
	n2 = procfs_parse_smaps(smaps, count_vma, &a2);
	assert_true(n1 > 5);
	assert_int_equal(n1, n2);
	assert_int_equal(a1.n, n1);
	assert_true(a1.ordered && a2.ordered);
	free(maps);
	free(smaps);
}

static void test_22_cgroup_id_self(void **state)
{
	char *buf = NULL, path[PATH_MAX], mnt[PATH_MAX], root[PATH_MAX], full[2 * PATH_MAX];
	size_t cap = 0, len = 0;
	uint64_t id = 0;
	struct stat sb;
	int rc;

	(void)state;
	assert_int_equal(procfs_read_file(getpid(), "cgroup", &buf, &cap, &len), 0);
	assert_int_equal(procfs_parse_cgroup(buf, path, sizeof(path)), 0);
	free(buf);
	buf = NULL;
	cap = 0;
	assert_int_equal(procfs_read_file(0, "self/mountinfo", &buf, &cap, &len), 0);
	rc = procfs_parse_mountinfo_cgroup2(buf, mnt, sizeof(mnt), root, sizeof(root));
	free(buf);
	if (rc == -ENOENT) {
		/* a v1-only host: there is no cgroup id to find */
		assert_int_equal(procfs_cgroup_id(path, &id), -ENOENT);
		return;
	}
	assert_int_equal(rc, 0);
	/* An independent route to the same directory: the cgroup2 file handle
	 * of a cgroup directory is its 64-bit id. */
	snprintf(full, sizeof(full), "%s%s", mnt, strcmp(root, "/") ? path + strlen(root) : path);
	{
		struct {
			struct file_handle fh;
			uint64_t id;
		} h = { .fh.handle_bytes = sizeof(uint64_t) };
		int mount_id;

		assert_int_equal(name_to_handle_at(AT_FDCWD, full, &h.fh, &mount_id, 0), 0);
		assert_int_equal(h.fh.handle_bytes, 8);
		memcpy(&id, h.fh.f_handle, 8);
	}
	assert_int_equal(stat(full, &sb), 0);
	{
		uint64_t got = 0;

		assert_int_equal(procfs_cgroup_id(path, &got), 0);
		assert_int_equal(got, id);
		assert_int_equal(got, sb.st_ino);
	}
	assert_int_equal(procfs_cgroup_id("/no/such/cgroup/ptop-test", &id), -ENOENT);
	assert_int_equal(procfs_cgroup_id("relative", &id), -EINVAL);
}

/* ---------------------------------------------------------------- collectors */

/* The run loop's emit functions, replaced: each event is packed and unpacked,
 * as the capture would hold it, and kept; drops are kept by kind. */
#define MAX_EVENTS 16
static Ptop__V1__Event *events[MAX_EVENTS];
static int n_events;
static char drop_kinds[8][32], drop_details[8][128];
static int n_drops;

static void reset_emits(void)
{
	for (int i = 0; i < n_events; i++)
		ptop__v1__event__free_unpacked(events[i], NULL);
	n_events = 0;
	n_drops = 0;
}

uint64_t rec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int rec_emit(struct rec_ctx *ctx, const Ptop__V1__Record *rec)
{
	(void)ctx;
	(void)rec;
	fail_msg("collectors emit through rec_emit_event/rec_emit_drop");
	return -EINVAL;
}

int rec_emit_event(struct rec_ctx *ctx, Ptop__V1__Event *ev, Ptop__V1__Category cat,
		   uint64_t now_ns, uint64_t interval_ns)
{
	size_t n;
	uint8_t *b;

	ev->time_ns = now_ns;
	ev->interval_ns = interval_ns;
	ev->pid = ctx->pid;
	ev->category = cat;
	n = ptop__v1__event__get_packed_size(ev);
	b = malloc(n + 1);
	assert_non_null(b);
	assert_int_equal(ptop__v1__event__pack(ev, b), n);
	assert_true(n_events < MAX_EVENTS);
	events[n_events] = ptop__v1__event__unpack(NULL, n, b);
	assert_non_null(events[n_events]);
	n_events++;
	free(b);
	ctx->events++;
	return 0;
}

int rec_emit_drop(struct collector *c, const char *kind, uint64_t lost, const char *detail)
{
	if (!lost)
		return 0;
	assert_true(n_drops < 8);
	snprintf(drop_kinds[n_drops], sizeof(drop_kinds[0]), "%s", kind);
	snprintf(drop_details[n_drops], sizeof(drop_details[0]), "%s", detail);
	n_drops++;
	c->dropped += lost;
	return 0;
}

extern const struct collector_ops memory_collector, vmas_collector, proccontext_collector;

/* A child with known memory: 64 separate 1-page VMAs (alternating protections
 * so that none merge) and one 4 MiB anonymous region, all touched. On each
 * byte read from its pipe it touches 256 fresh pages and answers. */
#define KID_REGION (4u << 20)
#define KID_SMALL 64
struct kid {
	pid_t pid;
	int to, from;
	uint64_t region;             /* address of the 4 MiB region */
};

static void kid_start(struct kid *k)
{
	int a[2], b[2];

	assert_int_equal(pipe(a), 0);
	assert_int_equal(pipe(b), 0);
	k->pid = fork();
	assert_true(k->pid >= 0);
	if (k->pid == 0) {
		long pg = sysconf(_SC_PAGESIZE);
		char *r, *more, c;
		uint64_t addr;
		int round = 0;

		close(a[1]);
		close(b[0]);
		for (int i = 0; i < KID_SMALL; i++) {
			char *m = mmap(NULL, (size_t)pg, i % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m == MAP_FAILED)
				_exit(1);
		}
		/* the region between two PROT_NONE guard pages: a VMA of its own */
		r = mmap(NULL, KID_REGION + 2 * (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		more = mmap(NULL, 64u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
		if (r == MAP_FAILED || more == MAP_FAILED)
			_exit(1);
		r += pg;
		if (mprotect(r, KID_REGION, PROT_READ | PROT_WRITE))
			_exit(1);
		memset(r, 7, KID_REGION);
		addr = (uint64_t)(uintptr_t)r;
		if (write(b[1], &addr, sizeof(addr)) != sizeof(addr))
			_exit(1);
		while (read(a[0], &c, 1) == 1) {
			for (int i = 0; i < 256; i++)
				more[((size_t)round * 256 + (size_t)i) * (size_t)pg] = 1;
			round++;
			if (write(b[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	k->to = a[1];
	k->from = b[0];
	assert_int_equal(read(k->from, &k->region, sizeof(k->region)), sizeof(k->region));
}

/* Make the child touch 256 more pages, and wait until it has. */
static void kid_touch(struct kid *k)
{
	char c = 't';

	assert_int_equal(write(k->to, &c, 1), 1);
	assert_int_equal(read(k->from, &c, 1), 1);
}

static void kid_kill(struct kid *k, bool reap)
{
	kill(k->pid, SIGKILL);
	close(k->to);
	close(k->from);
	if (reap) {
		assert_int_equal(waitpid(k->pid, NULL, 0), k->pid);
	} else {
		/* wait until it is a zombie, without reaping it */
		siginfo_t si;

		assert_int_equal(waitid(P_PID, (id_t)k->pid, &si, WEXITED | WNOWAIT), 0);
	}
}

static void run_collector(struct collector *c, struct rec_ctx *ctx, const struct collector_ops *ops)
{
	memset(c, 0, sizeof(*c));
	c->ops = ops;
	c->ctx = ctx;
	assert_int_equal(ops->check(c), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	assert_int_equal(c->source, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC);
	assert_string_equal(c->reason, "");
	assert_int_equal(ops->start(c), 0);
}

static void test_23_memory_collector(void **state)
{
	struct rec_ctx ctx = { .interval_ns = 1000000000ull };
	struct collector c;
	const Ptop__V1__MemorySample *m;
	long pg = sysconf(_SC_PAGESIZE);
	struct kid k;

	(void)state;
	reset_emits();
	kid_start(&k);
	ctx.pid = k.pid;
	ctx.start_ns = rec_now_ns();
	run_collector(&c, &ctx, &memory_collector);
	kid_touch(&k);
	assert_int_equal(memory_collector.poll(&c, rec_now_ns(), POLL_FIRST), 0);
	assert_int_equal(n_drops, 0);
	assert_int_equal(n_events, 1);
	assert_int_equal(events[0]->category, PTOP__V1__CATEGORY__CATEGORY_MEMORY);
	assert_int_equal(events[0]->payload_case, PTOP__V1__EVENT__PAYLOAD_MEMORY);
	m = events[0]->memory;
	assert_non_null(m->statm);
	assert_non_null(m->rollup);
	assert_non_null(m->faults);
	/* 4 MiB + 256 pages touched, all private anonymous */
	assert_true(m->statm->rss >= KID_REGION + 256 * (uint64_t)pg);
	assert_true(m->statm->vsize >= KID_REGION + (64u << 20));
	assert_int_equal(m->statm->rss % (uint64_t)pg, 0);
	assert_true(m->rollup->rss >= KID_REGION + 256 * (uint64_t)pg);
	assert_true(m->rollup->uss >= KID_REGION + 256 * (uint64_t)pg);
	assert_int_equal(m->rollup->uss, m->rollup->private_clean + m->rollup->private_dirty);
	assert_true(m->rollup->anon >= KID_REGION);
	assert_true(m->rollup->pss_anon >= KID_REGION);
	assert_true(m->rollup->pss <= m->rollup->rss);
	assert_int_equal(m->rollup->n_missing, 0);
	/* the 256 pages were touched between start and this poll */
	assert_true(m->faults->minflt >= 256);
	assert_true(m->faults->minflt_total >= m->faults->minflt + KID_REGION / (uint64_t)pg);
	assert_true(events[0]->interval_ns > 0);

	/* a second interval: exactly the fault delta since the first poll */
	kid_touch(&k);
	assert_int_equal(memory_collector.poll(&c, rec_now_ns(), 0), 0);
	assert_int_equal(n_events, 2);
	assert_true(events[1]->memory->faults->minflt >= 256);
	assert_int_equal(events[1]->memory->faults->minflt,
			 events[1]->memory->faults->minflt_total -
				 events[0]->memory->faults->minflt_total);

	/* a zombie, then gone: nothing emitted, no error, no drop */
	kid_kill(&k, false);
	assert_int_equal(memory_collector.poll(&c, rec_now_ns(), 0), 0);
	assert_int_equal(waitpid(k.pid, NULL, 0), k.pid);
	assert_int_equal(memory_collector.poll(&c, rec_now_ns(), POLL_FINAL), 0);
	assert_int_equal(n_events, 2);
	assert_int_equal(n_drops, 0);
	memory_collector.stop(&c);
	memory_collector.stop(&c); /* twice: harmless */
	reset_emits();
}

static void test_24_vmas_collector(void **state)
{
	struct rec_ctx ctx = { .interval_ns = 1000000000ull };
	const uint64_t s = 1000000000ull;
	const Ptop__V1__VmaSnapshot *v;
	const Ptop__V1__Vma *region = NULL;
	struct collector c;
	size_t n_small_ro = 0;
	struct kid k;

	(void)state;
	vmas_settings.interval_ns = 10 * s; /* --vma-interval */
	reset_emits();
	kid_start(&k);
	ctx.pid = k.pid;
	run_collector(&c, &ctx, &vmas_collector);
	/* first poll, then every 10 s, then the final one */
	assert_int_equal(vmas_collector.poll(&c, 100 * s, POLL_FIRST), 0);
	assert_int_equal(vmas_collector.poll(&c, 101 * s, 0), 0);
	assert_int_equal(vmas_collector.poll(&c, 109 * s, 0), 0);
	assert_int_equal(n_events, 1);
	assert_int_equal(vmas_collector.poll(&c, 110 * s, 0), 0);
	assert_int_equal(n_events, 2);
	assert_int_equal(vmas_collector.poll(&c, 111 * s, POLL_FINAL), 0);
	assert_int_equal(n_events, 3);
	assert_int_equal(n_drops, 0);
	assert_false(events[0]->vmas->final);
	assert_false(events[1]->vmas->final);
	assert_true(events[2]->vmas->final);
	assert_int_equal(events[0]->category, PTOP__V1__CATEGORY__CATEGORY_VMAS);
	assert_int_equal(events[0]->time_ns, 100 * s);

	v = events[0]->vmas;
	assert_true(v->n_vmas >= KID_SMALL + 2);
	assert_true(v->walk_ns > 0);
	for (size_t i = 0; i < v->n_vmas; i++) {
		const Ptop__V1__Vma *m = v->vmas[i];

		assert_true(m->end > m->start);
		assert_int_equal(m->size, m->end - m->start);
		assert_int_equal(strlen(m->perms), 4);
		if (i)
			assert_true(m->start >= v->vmas[i - 1]->end);
		if (m->start == k.region)
			region = m;
		if (m->end - m->start == (uint64_t)sysconf(_SC_PAGESIZE) && !strcmp(m->perms, "r--p") &&
		    !m->path[0])
			n_small_ro++;
	}
	assert_true(n_small_ro >= KID_SMALL / 2);
	assert_non_null(region);
	assert_int_equal(region->end - region->start, KID_REGION);
	assert_string_equal(region->perms, "rw-p");
	assert_string_equal(region->path, "");
	assert_int_equal(region->rss, KID_REGION);
	assert_int_equal(region->uss, KID_REGION);
	assert_int_equal(region->pss, KID_REGION);
	assert_int_equal(region->anon, KID_REGION);
	assert_int_equal(region->inode, 0);
	assert_int_equal(events[2]->vmas->n_vmas, v->n_vmas);

	kid_kill(&k, true);
	assert_int_equal(vmas_collector.poll(&c, 112 * s, POLL_FINAL), 0);
	assert_int_equal(n_events, 3);
	assert_int_equal(n_drops, 0);
	vmas_collector.stop(&c);
	reset_emits();
	vmas_settings.interval_ns = 0; /* as the other tests have it */
}

static void test_25_proccontext_collector(void **state)
{
	struct rec_ctx ctx = { .interval_ns = 1000000000ull };
	const Ptop__V1__ProcContext *pc;
	char *buf = NULL, cg[PATH_MAX];
	size_t cap = 0, len = 0;
	struct collector c;
	struct stat sb;
	bool saw_pid_ns = false;
	struct kid k;

	(void)state;
	reset_emits();
	kid_start(&k);
	ctx.pid = k.pid;
	run_collector(&c, &ctx, &proccontext_collector);
	assert_int_equal(proccontext_collector.poll(&c, 1, POLL_FIRST), 0);
	assert_int_equal(proccontext_collector.poll(&c, 2, 0), 0); /* unchanged: nothing */
	assert_int_equal(n_events, 1);
	assert_int_equal(n_drops, 0);
	assert_int_equal(events[0]->category, PTOP__V1__CATEGORY__CATEGORY_CONTEXT);
	pc = events[0]->context;
	assert_int_equal(pc->ppid, getpid());
	assert_string_equal(pc->comm, "test_procfs");
	assert_int_equal(pc->uid, getuid());
	assert_int_equal(pc->euid, geteuid());
	assert_int_equal(pc->gid, getgid());
	assert_int_equal(pc->egid, getegid());
	assert_true(pc->n_nspid >= 1);
	assert_int_equal(pc->nspid[0], k.pid);
	assert_true(pc->n_namespaces >= 7);
	assert_int_equal(stat("/proc/self/ns/pid", &sb), 0);
	for (size_t i = 0; i < pc->n_namespaces; i++)
		if (!strcmp(pc->namespaces[i]->type, "pid")) {
			assert_int_equal(pc->namespaces[i]->inode, sb.st_ino);
			saw_pid_ns = true;
		}
	assert_true(saw_pid_ns);
	/* the child is in our cgroup */
	assert_int_equal(procfs_read_file(0, "self/cgroup", &buf, &cap, &len), 0);
	assert_int_equal(procfs_parse_cgroup(buf, cg, sizeof(cg)), 0);
	free(buf);
	assert_string_equal(pc->cgroup_path, cg);
	{
		uint64_t id = 0;

		if (procfs_cgroup_id(cg, &id) == 0)
			assert_int_equal(pc->cgroup_id, id);
		else
			assert_int_equal(pc->cgroup_id, 0);
	}

	/* the final poll emits again */
	assert_int_equal(proccontext_collector.poll(&c, 3, POLL_FINAL), 0);
	assert_int_equal(n_events, 2);
	assert_string_equal(events[1]->context->comm, "test_procfs");

	kid_kill(&k, true);
	assert_int_equal(proccontext_collector.poll(&c, 4, POLL_FINAL), 0);
	assert_int_equal(n_events, 2);
	assert_int_equal(n_drops, 0);
	proccontext_collector.stop(&c);
	reset_emits();
}

/* procfs_check_open: the process's own files open; a missing pid gives its
 * errno and a reason naming the file. */
static void test_27_check_open(void **state)
{
	char reason[256] = "";
	pid_t gone;

	(void)state;
	assert_int_equal(procfs_check_open(getpid(), "smaps", reason, sizeof(reason)), 0);
	gone = fork();
	assert_true(gone >= 0);
	if (gone == 0)
		_exit(0);
	assert_int_equal(waitpid(gone, NULL, 0), gone);
	assert_int_equal(procfs_check_open(gone, "maps", reason, sizeof(reason)), -ENOENT);
	assert_non_null(strstr(reason, "/maps"));
	assert_non_null(strstr(reason, "No such file"));
}

static void test_26_collectors_gone_and_caps(void **state)
{
	const struct collector_ops *ops[] = { &memory_collector, &vmas_collector,
					      &proccontext_collector };
	struct rec_ctx ctx = { .caps_only = true };
	struct collector c;

	(void)state;
	reset_emits();
	for (size_t i = 0; i < 3; i++) {
		/* --caps: no target; says what access the target will need */
		memset(&c, 0, sizeof(c));
		c.ops = ops[i];
		c.ctx = &ctx;
		ctx.pid = 0;
		assert_int_equal(ops[i]->check(&c), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
		assert_non_null(strstr(c.detail, "PTRACE_MODE_READ"));
		/* a pid that does not exist: not active, with the reason */
		ctx.caps_only = false;
		ctx.pid = dead_pid();
		memset(&c, 0, sizeof(c));
		c.ops = ops[i];
		c.ctx = &ctx;
		assert_int_equal(ops[i]->check(&c), PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED);
		assert_non_null(strstr(c.reason, "No such file"));
		/* started anyway, polls of a gone target emit nothing */
		assert_int_equal(ops[i]->start(&c), 0);
		assert_int_equal(ops[i]->poll(&c, 1, POLL_FIRST), 0);
		assert_int_equal(ops[i]->poll(&c, 2, POLL_FINAL), 0);
		ops[i]->stop(&c);
		/* cgroup mode (no pid): unsupported, with the reason */
		ctx.pid = 0;
		memset(&c, 0, sizeof(c));
		c.ops = ops[i];
		c.ctx = &ctx;
		assert_int_equal(ops[i]->check(&c), PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED);
		assert_non_null(strstr(c.reason, "cgroup"));
		ctx.caps_only = true;
	}
	assert_int_equal(n_events, 0);
	assert_int_equal(n_drops, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_stat_real),
		cmocka_unit_test(test_02_stat_edge),
		cmocka_unit_test(test_03_stat_malformed),
		cmocka_unit_test(test_04_status_real),
		cmocka_unit_test(test_05_status_variants),
		cmocka_unit_test(test_06_status_malformed),
		cmocka_unit_test(test_07_statm),
		cmocka_unit_test(test_08_rollup_real),
		cmocka_unit_test(test_09_rollup_old_kernel),
		cmocka_unit_test(test_10_rollup_malformed),
		cmocka_unit_test(test_11_smaps_real),
		cmocka_unit_test(test_12_smaps_edge),
		cmocka_unit_test(test_13_smaps_old_kernel_and_maps),
		cmocka_unit_test(test_14_smaps_malformed),
		cmocka_unit_test(test_15_cgroup_parse),
		cmocka_unit_test(test_16_container_id_forms),
		cmocka_unit_test(test_17_container_id_negative),
		cmocka_unit_test(test_18_cgroup_text_container_id),
		cmocka_unit_test(test_19_mountinfo),
		cmocka_unit_test(test_20_read_self),
		cmocka_unit_test(test_21_walk_self),
		cmocka_unit_test(test_22_cgroup_id_self),
		cmocka_unit_test(test_23_memory_collector),
		cmocka_unit_test(test_24_vmas_collector),
		cmocka_unit_test(test_25_proccontext_collector),
		cmocka_unit_test(test_26_collectors_gone_and_caps),
		cmocka_unit_test(test_27_check_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
