/* test_syscall_table.c — proto/syscall_table.c: the names of known x86_64 numbers
 * (the kernel's syscall_64.tbl is the reference), the gaps, the probe syscalls, and
 * that the build machine's headers agree where they know a number (the table does
 * not come from them: uretprobe, 335, and everything after 450 are newer than
 * Debian 12's headers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "proto/syscall_table.h"

static const struct syscall_table *x86_64(void)
{
	const struct syscall_table *t = syscall_table__find("x86_64");

	assert_non_null(t);
	return t;
}

static void test_01_known_numbers(void **state)
{
	static const struct {
		uint32_t nr;
		const char *name;
	} known[] = {
	    {0, "read"},	      {1, "write"},		{39, "getpid"},
	    {60, "exit"},	      {110, "getppid"},		{156, "_sysctl"},
	    {166, "umount2"},	      {202, "futex"},		{231, "exit_group"},
	    {257, "openat"},	      {334, "rseq"},		{335, "uretprobe"},
	    {336, "uprobe"},	      {424, "pidfd_send_signal"}, {435, "clone3"},
	    {443, "quotactl_fd"},     {450, "set_mempolicy_home_node"},
	    {451, "cachestat"},	      {462, "mseal"},		{463, "setxattrat"},
	    {464, "getxattrat"},      {465, "listxattrat"},	{466, "removexattrat"},
	    {467, "open_tree_attr"},  {468, "file_getattr"},	{469, "file_setattr"},
	    {470, "listns"},
	};
	const struct syscall_table *t = x86_64();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const char *name = syscall_table__name(t, known[i].nr);

		if (!name || strcmp(name, known[i].name))
			fail_msg("x86_64 syscall %u: '%s', want '%s'", known[i].nr,
				 name ? name : "(none)", known[i].name);
	}
}

static void test_02_gaps_and_bounds(void **state)
{
	const struct syscall_table *t = x86_64();

	(void)state;
	/* 337..423 name nothing on x86_64; the x32 range 512..547 is another ABI */
	assert_null(syscall_table__name(t, 337));
	assert_null(syscall_table__name(t, 400));
	assert_null(syscall_table__name(t, 423));
	assert_null(syscall_table__name(t, 471));
	assert_null(syscall_table__name(t, 512));
	assert_null(syscall_table__name(t, UINT32_MAX));
	assert_null(syscall_table__name(NULL, 0));
}

static void test_03_find_and_native(void **state)
{
	(void)state;
	assert_null(syscall_table__find(NULL));
	assert_null(syscall_table__find(""));
	assert_null(syscall_table__find("x86"));
	assert_null(syscall_table__find("i686")); /* another numbering: no table, no names */
	assert_string_equal(syscall_table__describe(syscall_table__find("aarch64")),
			    "aarch64 syscalls 0-469 (Linux 6.18)");
	assert_string_equal(syscall_table__describe(x86_64()), "x86_64 syscalls 0-470 (Linux 6.19)");
	assert_string_equal(syscall_table__describe(NULL), "no syscall table");
#if defined(__x86_64__)
	assert_ptr_equal(syscall_table__native(), x86_64());
#endif
}

static void test_04_probe_syscalls(void **state)
{
	const struct syscall_table *t = x86_64();
	uint32_t nr;

	(void)state;
	assert_true(syscall_table__is_probe(t, 335));
	assert_true(syscall_table__is_probe(t, 336));
	for (nr = 0; nr < 1024; nr++)
		if (nr != 335 && nr != 336 && syscall_table__is_probe(t, nr))
			fail_msg("x86_64 syscall %u (%s) counted as probe overhead", nr,
				 syscall_table__name(t, nr) ? syscall_table__name(t, nr) : "-");
	assert_false(syscall_table__is_probe(NULL, 335));
}

/* aarch64: the generic numbering (read is 63, not 0), 64-bit entries (fstat, not
 * fstat64), no arch-specific or 32-bit-only numbers, no probe syscalls. */
static void test_06_aarch64(void **state)
{
	static const struct {
		uint32_t nr;
		const char *name;
	} known[] = {
	    {0, "io_setup"},	{25, "fcntl"},	      {38, "renameat"},	    {56, "openat"},
	    {62, "lseek"},	{63, "read"},	      {64, "write"},	    {79, "newfstatat"},
	    {80, "fstat"},	{93, "exit"},	      {94, "exit_group"},   {163, "getrlimit"},
	    {172, "getpid"},	{173, "getppid"},     {220, "clone"},	    {221, "execve"},
	    {222, "mmap"},	{223, "fadvise64"},   {260, "wait4"},	    {293, "rseq"},
	    {294, "kexec_file_load"}, {435, "clone3"}, {447, "memfd_secret"},
	    {462, "mseal"},	{469, "file_setattr"},
	};
	const struct syscall_table *t = syscall_table__find("aarch64");
	uint32_t nr;
	size_t i;

	(void)state;
	assert_non_null(t);
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const char *name = syscall_table__name(t, known[i].nr);

		if (!name || strcmp(name, known[i].name))
			fail_msg("aarch64 syscall %u: '%s', want '%s'", known[i].nr,
				 name ? name : "(none)", known[i].name);
	}
	for (nr = 244; nr <= 259; nr++)
		assert_null(syscall_table__name(t, nr));
	for (nr = 295; nr <= 423; nr++)
		assert_null(syscall_table__name(t, nr));
	assert_null(syscall_table__name(t, 470));
	for (nr = 0; nr < 1024; nr++)
		assert_false(syscall_table__is_probe(t, nr));
}

/* Where the build machine's headers know a number, they agree with the table. */
static void test_05_headers_agree(void **state)
{
	const struct syscall_table *t = x86_64();

	(void)state;
#if defined(__x86_64__)
#define SAME(nr, name) assert_string_equal(syscall_table__name(t, (nr)), (name))
	SAME(SYS_read, "read");
	SAME(SYS_mmap, "mmap");
	SAME(SYS_getppid, "getppid");
	SAME(SYS_clone, "clone");
	SAME(SYS_execve, "execve");
	SAME(SYS_openat, "openat");
	SAME(SYS_rseq, "rseq");
	SAME(SYS_io_uring_enter, "io_uring_enter");
	SAME(SYS_clone3, "clone3");
	SAME(SYS_landlock_restrict_self, "landlock_restrict_self");
#ifdef SYS_set_mempolicy_home_node
	SAME(SYS_set_mempolicy_home_node, "set_mempolicy_home_node");
#endif
#ifdef SYS_uretprobe
	SAME(SYS_uretprobe, "uretprobe");
#endif
#ifdef SYS_file_setattr
	SAME(SYS_file_setattr, "file_setattr");
#endif
#undef SAME
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_known_numbers),
	    cmocka_unit_test(test_02_gaps_and_bounds),
	    cmocka_unit_test(test_03_find_and_native),
	    cmocka_unit_test(test_04_probe_syscalls),
	    cmocka_unit_test(test_05_headers_agree),
	    cmocka_unit_test(test_06_aarch64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
