/* test_security.c — the security collector's recorder helpers: the path its kernel side
 * read (components, the file's own first) put together, refused when the walk did not
 * reach the root or does not fit; a mapping's path found in /proc/self/maps by inode; the
 * capabilities' names. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "collectors/security/record.h"

static struct sec_event ev;

static void set_comps(const char *const *names, uint32_t n, uint32_t done)
{
	memset(&ev, 0, sizeof(ev));
	for (uint32_t i = 0; i < n; i++)
		snprintf(ev.comp[i], SEC_COMP_LEN, "%s", names[i]);
	ev.comps = n;
	ev.path_done = done;
}

static void test_kernel_path(void **state)
{
	const char *const libc[] = {"libc.so.6", "x86_64-linux-gnu", "lib", "usr"};
	const char *const memfd[] = {"memfd:jit"};
	char buf[256];

	(void)state;
	set_comps(libc, 4, 1);
	assert_int_equal(security__kernel_path(&ev, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	set_comps(memfd, 1, 1);
	assert_int_equal(security__kernel_path(&ev, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/memfd:jit");
	/* the walk stopped short of the root: no path, not a wrong one */
	set_comps(libc, 4, 0);
	assert_int_equal(security__kernel_path(&ev, buf, sizeof(buf)), -ENOENT);
	set_comps(libc, 0, 1);
	assert_int_equal(security__kernel_path(&ev, buf, sizeof(buf)), -ENOENT);
	/* does not fit */
	set_comps(libc, 4, 1);
	assert_int_equal(security__kernel_path(&ev, buf, 10), -ENOENT);
	/* a component as long as its slot (not NUL-terminated within it) */
	set_comps(libc, 1, 1);
	memset(ev.comp[0], 'a', SEC_COMP_LEN);
	assert_int_equal(security__kernel_path(&ev, buf, sizeof(buf)), 0);
	assert_int_equal(strlen(buf), SEC_COMP_LEN + 1);
}

static void test_map_path(void **state)
{
	char exe[4096], buf[4096];
	struct stat st;
	ssize_t n;

	(void)state;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(stat(exe, &st), 0);
	/* any mapping of the executable (start 0 matches none exactly) */
	assert_int_equal(security__map_path(getpid(), 0, st.st_ino, buf, sizeof(buf)), 0);
	assert_string_equal(buf, exe);
	assert_int_equal(security__map_path(getpid(), 0, 1, buf, sizeof(buf)), -ENOENT);
}

static void test_cap_names(void **state)
{
	(void)state;
	assert_string_equal(security__cap_name(21), "sys_admin");
	assert_string_equal(security__cap_name(19), "sys_ptrace");
	assert_string_equal(security__cap_name(40), "checkpoint_restore");
	assert_string_equal(security__cap_name(63), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kernel_path),
	    cmocka_unit_test(test_map_path),
	    cmocka_unit_test(test_cap_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
