/* record.h — the testable parts of the mappings collector (collectors/mappings/record.c):
 * the executable mappings of a maps text, their diff between two polls, the
 * JIT perf map's location in the target's mount namespace, and the process
 * lists of cgroup mode.
 */
#ifndef PTOP_MAPPINGS_H
#define PTOP_MAPPINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proto/ptop.pb-c.h"

/* --embed-symbols[=debug]: its settings (filled by the recorder from its options table,
 * mappings_collector.opts) */
struct mappings_settings {
	Ptop__V1__EmbedSymbols embed;  /* what of each module goes into the capture; default none */
};
extern struct mappings_settings mappings_settings;

/* One executable mapping as /proc/PID/maps prints it. */
struct xmap {
	uint64_t start, end, offset, inode;
	char perms[8];               /* "r-xp" */
	char dev[16];                /* "fd:01" */
	const char *path;            /* "" for anonymous; owned by the set when it owns paths */
};

/* A list of executable mappings, in the order of the maps text (by start). */
struct xmap_set {
	struct xmap *v;
	size_t n, cap;
	bool owns_paths;             /* paths were strdup'ed (mappings__set_copy) */
};

/* Replace SET's contents with the executable mappings (perms "..x.") of the
 * maps TEXT. The text is modified in place and the paths point into it (SET
 * must not own paths). 0, -EINVAL when the text does not parse, -ENOMEM. */
int mappings__parse(char *text, struct xmap_set *set);

/* Whether A and B are the same mapping: range, offset, perms, dev, inode, path. */
bool mappings__same(const struct xmap *a, const struct xmap *b);

/* Walk OLD and CUR (both sorted by start) and call FN(m, added, ARG) for each
 * mapping of OLD not in CUR (added false: gone) and each of CUR not in OLD
 * (added true: new), gone ones first at each address. Returns the number of
 * differences, or FN's first non-zero return. */
int mappings__diff(const struct xmap_set *old, const struct xmap_set *cur,
		   int (*fn)(const struct xmap *m, bool added, void *arg), void *arg);

/* Make DST an owning copy of SRC (paths duplicated). 0 or -ENOMEM (DST then
 * empty). */
int mappings__set_copy(struct xmap_set *dst, const struct xmap_set *src);

/* Free what SET holds (and its paths if it owns them); SET is left empty and
 * reusable. NULL is fine. */
void mappings__set_clear(struct xmap_set *set);

/* The JIT perf map of process PID whose innermost-namespace pid is NSPID:
 * INNER gets the path as the target sees it ("/tmp/perf-NSPID.map"), HOST the
 * path through its root ("/proc/PID/root/tmp/perf-NSPID.map"). 0 or
 * -ENAMETOOLONG. */
int mappings__perf_map_paths(pid_t pid, pid_t nspid, char *inner, size_t ilen, char *host,
			     size_t hlen);

/* Cgroup mode: sort PIDS and drop repeats (a process moved between two cgroups
 * while they were listed). Returns how many are left. */
size_t mappings__sort_pids(pid_t *pids, size_t n);

/* Cgroup mode: of the N sorted, unique PIDS, keep at most CAP in KEPT: every one
 * TRACKED(pid, ARG) says is followed already, then the others in pid order; the
 * rest go to LEFT. KEPT and LEFT (N entries each) come out sorted. Returns how
 * many were kept; the other N less that many were left out. */
size_t mappings__cap_pids(const pid_t *pids, size_t n, size_t cap,
			  bool (*tracked)(pid_t pid, void *arg), void *arg, pid_t *kept,
			  pid_t *left);

/* How many of the N sorted CUR are not among the NP sorted PREV. */
size_t mappings__count_new(const pid_t *cur, size_t n, const pid_t *prev, size_t np);

/* Cgroup mode: processes whose mappings are read per poll, at most. */
#define MAPPINGS_PROC_CAP 4096u

/* Chunk sizes of the records (bytes of content per record). */
#define MAPPINGS_PERF_MAP_CHUNK (512u << 10)
#define MAPPINGS_SYMBOLS_CHUNK (4u << 20)
/* A perf map larger than this is copied up to it and counted as truncated. */
#define MAPPINGS_PERF_MAP_MAX (256u << 20)

#endif
