/* tmpdir.h — a scratch directory for one test suite, made by the suite's setup and
 * removed with everything in it by teardown(). Include it once, in the test file.
 *
 *   static int setup(void **state) { (void)state; return tmpdir__make("load"); }
 *   ... cmocka_run_group_tests(tests, setup, teardown) ...
 */
#ifndef PTOP_TESTS_TMPDIR_H
#define PTOP_TESTS_TMPDIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static char tmpdir[64];

static int tmpdir__rm(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

/* Make /tmp/ptop-test-NAME.XXXXXX into tmpdir. 0, or -1. */
static inline int tmpdir__make(const char *name)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ptop-test-%s.XXXXXX", name);
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	nftw(tmpdir, tmpdir__rm, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* NAME in tmpdir. The result lives until 8 more calls. */
static inline const char *tpath(const char *name)
{
	static char buf[8][256];
	static int k;

	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

#endif
