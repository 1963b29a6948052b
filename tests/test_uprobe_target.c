/* test_uprobe_target.c — where a collector puts its uprobes (record/uprobe_target.h): the
 * prologue decoder on real byte sequences (glibc's free, malloc, posix_memalign,
 * memalign, ...), the ELF look-ups on this test and on the libc it maps, the target's
 * executable for --pid and for a launched command, and the first checks every uprobe
 * collector makes (--cgroup, --no-ebpf, --caps).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/collector.h"
#include "record/uprobe_target.h"
#include "tests/rec_double.h"

/* ------------------------------------------------------------------ decoder */

static void expect_probe(const uint8_t *code, size_t len, bool null_skip, uint32_t off,
			 bool emulated, bool skipped)
{
	struct uprobe_point pp;

	assert_int_equal(uprobe_target__choose_probe(code, len, null_skip, &pp), 0);
	printf("# %s\n", pp.why);
	assert_int_equal(pp.offset, off);
	assert_int_equal(pp.emulated, emulated);
	assert_int_equal(pp.null_skipped, skipped);
	assert_true(pp.why[0] == '+');
}

static void test_01_prologues(void **state)
{
	/* glibc 2.36 free: test %rdi,%rdi; je +0xbf; push %rbp; lea -0x10(%rdi),%rsi */
	static const uint8_t gfree[] = { 0x48, 0x85, 0xff, 0x0f, 0x84, 0xbf, 0x00, 0x00,
					 0x00, 0x55, 0x48, 0x8d, 0x77, 0xf0, 0x53 };
	/* malloc: push %r12; push %rbp; push %rbx */
	static const uint8_t gmalloc[] = { 0x41, 0x54, 0x55, 0x53, 0x48, 0x89, 0xfb };
	/* posix_memalign: cmpb $0,rip-rel; push %r12 */
	static const uint8_t gpmalign[] = { 0x80, 0x3d, 0x01, 0x02, 0x14, 0x00, 0x00, 0x41, 0x54 };
	/* memalign: cmpb $0,rip-rel; je +7; jmp */
	static const uint8_t gmemalign[] = { 0x80, 0x3d, 0x71, 0x0e, 0x14, 0x00, 0x00,
					     0x74, 0x07, 0xe9, 0x32, 0xf6, 0xff, 0xff };
	static const uint8_t endbr[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5 };
	static const uint8_t shortje[] = { 0x48, 0x85, 0xff, 0x74, 0x05, 0x53 };
	static const uint8_t subrsp[] = { 0x48, 0x83, 0xec, 0x18, 0x55 };
	static const uint8_t movarg[] = { 0x48, 0x89, 0xfd, 0x55 };	/* mov %rdi,%rbp */
	static const uint8_t movtmp[] = { 0x48, 0x89, 0xf8, 0x55 };	/* mov %rdi,%rax */
	static const uint8_t trunc[] = { 0x48, 0x85, 0xff, 0x0f };

	(void)state;
	expect_probe(gfree, sizeof(gfree), true, 9, true, true);
	/* not free: a NULL check may not be skipped (malloc(0) is a call) */
	expect_probe(gfree, sizeof(gfree), false, 0, false, false);
	expect_probe(gmalloc, sizeof(gmalloc), false, 0, true, false);
	expect_probe(gpmalign, sizeof(gpmalign), false, 7, true, false);
	expect_probe(gmemalign, sizeof(gmemalign), false, 7, true, false);
	expect_probe(endbr, sizeof(endbr), false, 4, true, false);
	expect_probe(shortje, sizeof(shortje), true, 5, true, true);
	expect_probe(subrsp, sizeof(subrsp), false, 0, false, false);
	expect_probe(movarg, sizeof(movarg), false, 0, false, false);
	expect_probe(movtmp, sizeof(movtmp), false, 3, true, false);
	expect_probe(trunc, sizeof(trunc), true, 0, false, false);
	expect_probe(gfree, 0, true, 0, false, false);
}

/* ------------------------------------------------------------------ ELF */

static int libc_path(char *buf, size_t len)
{
	char line[4352];
	FILE *f = fopen("/proc/self/maps", "re");
	int found = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (p && strstr(p, "/libc.so")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(buf, len, "%s", p);
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

static void test_02_elf(void **state)
{
	char libc[4096], needed[4096];
	uint64_t off, size;
	uint8_t code[32];
	struct uprobe_point pp;
	int fd, n, i;
	const char *nm;
	bool has_libc = false;

	(void)state;
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	/* the test calls malloc but does not define it */
	assert_int_equal(uprobe_target__elf_func(fd, "malloc", &off, &size), -ENOENT);
	assert_int_equal(uprobe_target__elf_needed(fd, needed, sizeof(needed), &n), 0);
	for (i = 0, nm = needed; i < n; i++, nm += strlen(nm) + 1)
		has_libc |= !strncmp(nm, "libc.so", 7);
	assert_true(has_libc);
	close(fd);

	if (libc_path(libc, sizeof(libc))) {
		printf("SKIP: no libc.so in /proc/self/maps\n");
		return;
	}
	fd = open(libc, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(uprobe_target__elf_func(fd, "malloc", &off, &size), 0);
	assert_true(off > 0 && size > 0);
	assert_int_equal(uprobe_target__elf_func(fd, "no_such_function_here", &off, &size), -ENOENT);
	/* this machine's free: its probe must not land on the single-stepped NULL check */
	assert_int_equal(uprobe_target__elf_func(fd, "free", &off, &size), 0);
	assert_int_equal(pread(fd, code, sizeof(code), (off_t)off), (ssize_t)sizeof(code));
	uprobe_target__choose_probe(code, sizeof(code), true, &pp);
	printf("# %s free at %#llx: %s\n", libc, (unsigned long long)off, pp.why);
	if (code[0] == 0x48 && code[1] == 0x85 && code[2] == 0xff) {
		assert_true(pp.emulated);
		assert_true(pp.null_skipped);
		assert_true(pp.offset > 0);
	}
	close(fd);
}

/* ------------------------------------------------------------------ the target */

static void test_03_exe(void **state)
{
	struct rec_ctx ctx = { 0 };
	char path[PATH_MAX], open_path[PATH_MAX + 32], why[200] = "", self[PATH_MAX + 32];
	ssize_t n;

	(void)state;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	/* --pid: the link, opened through the process's root */
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	ctx.pid = getpid();
	assert_int_equal(uprobe_target__exe(&ctx, path, sizeof(path), open_path, sizeof(open_path),
					    why, sizeof(why)), 0);
	assert_string_equal(path, self);
	snprintf(self, sizeof(self), "/proc/%d/root%s", (int)getpid(), path);
	assert_string_equal(open_path, self);
	/* a launched command: its path as launched */
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND;
	ctx.exe = "/bin/true";
	assert_int_equal(uprobe_target__exe(&ctx, path, sizeof(path), open_path, sizeof(open_path),
					    why, sizeof(why)), 0);
	assert_string_equal(path, "/bin/true");
	assert_string_equal(open_path, "/bin/true");
	/* a pid that is not there: the error says which file */
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	ctx.pid = INT_MAX;
	assert_true(uprobe_target__exe(&ctx, path, sizeof(path), open_path, sizeof(open_path), why,
				       sizeof(why)) < 0);
	assert_non_null(strstr(why, "cannot read /proc/2147483647/exe"));
}

static void test_04_precheck(void **state)
{
	struct rec_ctx ctx = { 0 };
	struct collector c = { 0 };

	(void)state;
	c.ctx = &ctx;
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP;
	ctx.pid = getpid();
	assert_int_equal(uprobe_target__precheck(&c, "one process only", "needs eBPF", "caps", false),
			 PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED);
	assert_string_equal(c.reason, "one process only");
	assert_int_equal(c.source, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF);
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	ctx.no_ebpf = true;
	assert_int_equal(uprobe_target__precheck(&c, "one process only", "needs eBPF", "caps", false),
			 PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED);
	assert_string_equal(c.reason, "needs eBPF");
	if (geteuid() != 0) {
		printf("SKIP: the rest needs the privileges to trace\n");
		return;
	}
	/* --caps: active with the caps detail, the reason cleared, the lanes recorded */
	ctx.no_ebpf = false;
	ctx.caps_only = true;
	assert_int_equal(uprobe_target__precheck(&c, "one process only", "needs eBPF", "caps", false),
			 PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	assert_string_equal(c.detail, "caps");
	assert_string_equal(c.reason, "");
	assert_non_null(collector_lane_get(&c, "perf_uprobe"));
	/* a target: the caller goes on to find its probe points */
	ctx.caps_only = false;
	assert_int_equal(uprobe_target__precheck(&c, "one process only", "needs eBPF", "caps", false),
			 PTOP__V1__PROBE_STATE__PROBE_STATE_UNSPECIFIED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_prologues),
		cmocka_unit_test(test_02_elf),
		cmocka_unit_test(test_03_exe),
		cmocka_unit_test(test_04_precheck),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
