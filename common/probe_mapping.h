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

/* Is PATH (a mapping's path as smaps prints it, or its base name) ptop's own mapping? */
static inline bool probe_mapping__is(const char *path)
{
	const char *p = path[0] == '/' ? path + 1 : path;
	size_t n = strlen(PTOP_PROBE_MAPPING);

	return !strncmp(p, PTOP_PROBE_MAPPING, n) && (!p[n] || !strcmp(p + n, " (deleted)"));
}

#endif
