/* debuginfod.c — fetch debug info or an executable by build-id from debuginfod servers.
 *
 * Only called when the user asked (--debuginfod). libdebuginfod reads its servers from
 * $DEBUGINFOD_URLS, its cache from $DEBUGINFOD_CACHE_PATH and its timeout from
 * $DEBUGINFOD_TIMEOUT at each query, so explicit URLs and the symbol cache directory are
 * passed by setting those two variables around the call and restoring them after.
 */
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/sym_internal.h"

struct saved_env {
	const char *name;
	char *old;      /* NULL: was unset */
	bool changed;
};

static int env_set(struct saved_env *e, const char *name, const char *value)
{
	const char *cur = getenv(name);

	e->name = name;
	e->old = NULL;
	e->changed = false;
	if (!value)
		return 0;
	if (cur) {
		e->old = strdup(cur);
		if (!e->old)
			return -ENOMEM;
	}
	if (setenv(name, value, 1) != 0) {
		free(e->old);
		e->old = NULL;
		return -errno;
	}
	e->changed = true;
	return 0;
}

static void env_restore(struct saved_env *e)
{
	if (!e->changed)
		return;
	if (e->old)
		setenv(e->name, e->old, 1);
	else
		unsetenv(e->name);
	free(e->old);
	e->old = NULL;
	e->changed = false;
}

int sym_debuginfod_fetch(const uint8_t *id, size_t len, bool executable, const char *urls,
			 const char *cache_dir, char **path)
{
	struct saved_env eu = { 0 }, ec = { 0 };
	debuginfod_client *c = NULL;
	const char *u;
	int fd, err;

	*path = NULL;
	u = urls ? urls : getenv(DEBUGINFOD_URLS_ENV_VAR);
	if (!u || !*u)
		return -ENOSYS;
	err = env_set(&eu, DEBUGINFOD_URLS_ENV_VAR, urls);
	if (err)
		goto cleanup;
	err = env_set(&ec, DEBUGINFOD_CACHE_PATH_ENV_VAR, cache_dir);
	if (err)
		goto cleanup;
	c = debuginfod_begin();
	if (!c) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (executable)
		fd = debuginfod_find_executable(c, id, (int)len, path);
	else
		fd = debuginfod_find_debuginfo(c, id, (int)len, path);
	err = fd;
cleanup:
	debuginfod_end(c);
	env_restore(&ec);
	env_restore(&eu);
	if (err < 0) {
		free(*path);
		*path = NULL;
	}
	return err;
}
