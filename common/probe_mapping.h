/* probe_mapping.h — the name of the memory ptop maps into a target of its own (the heap
 * preload lane's memfd, preload/ptop_preload.c), so that the recorder and the analyzer tell
 * it from the target's: probe overhead, out of the target's figures and out of diff
 * (DESIGN.md principle 9). /proc/PID/maps shows it as "/memfd:ptop-preload (deleted)".
 */
#ifndef PTOP_COMMON_PROBE_MAPPING_H
#define PTOP_COMMON_PROBE_MAPPING_H

#include <stdbool.h>
#include <string.h>

#define PTOP_PROBE_MEMFD "ptop-preload"		   /* memfd_create's name */
#define PTOP_PROBE_MAPPING "memfd:" PTOP_PROBE_MEMFD /* as a mapping's path, without the '/' */

/* The file name of ptop's own code in a target: the heap preload library (preload/),
 * whatever folder it was found in (collectors/heap/record_preload.h). */
#define PTOP_PRELOAD_LIB_NAME "libptop-preload.so"

/* Is PATH (a mapping's path as smaps prints it, or its base name) ptop's own mapping? */
static inline bool probe_mapping__is(const char *path)
{
	const char *p = path[0] == '/' ? path + 1 : path;
	size_t n = strlen(PTOP_PROBE_MAPPING);

	return !strncmp(p, PTOP_PROBE_MAPPING, n) && (!p[n] || !strcmp(p + n, " (deleted)"));
}

/* Is PATH (a code mapping's path, or its base name) ptop's own code: the preload library?
 * A CPU sample with its innermost user frame there is probe overhead (principle 9). */
static inline bool probe_code__is(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	size_t n = strlen(PTOP_PRELOAD_LIB_NAME);

	b = b ? b + 1 : path;
	return b && !strncmp(b, PTOP_PRELOAD_LIB_NAME, n) &&
	       (!b[n] || !strcmp(b + n, " (deleted)"));
}

#endif
