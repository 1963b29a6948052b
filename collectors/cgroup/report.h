/* report.h — the cgroup collector's reports (`report cgroup`, `report apps`) and the
 * loaders they share with its replay view and its figures. */
#ifndef PTOP_CGROUP_REPORT_H
#define PTOP_CGROUP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "analyze/report.h"

/* The cgroup collector's samples as `report cgroup` reads them, for the replay viewer too.
 * Figures NULL in the DB (not measured) are -1. */

#define CG_PSI_N 6 /* PSI lines: resource x kind, slot = resource * 2 + kind */
extern const char *const cg_psi_resource[3]; /* memory, cpu, io */
extern const char *const cg_psi_kind[2];     /* some, full */

struct cg_sample {
	int64_t seq, time_ns; /* time_ns: absolute monotonic */
	char lane[4];	      /* "v2", "v1", "" (no memory controller read) */
	int64_t current;      /* -1: NULL */
	int64_t limit;	      /* -1: NULL (no limit, or not read) */
	int64_t peak;
	int64_t oom, oom_kill, oom_kill_total, high, max, failcnt, under_oom; /* deltas; -1 */
	int64_t processes, covered, denied, gone, skipped, walk_ns, budget_ns;
	double psi_avg10[CG_PSI_N]; /* NAN: no such line */
};

struct cg_psi_agg {
	size_t samples;
	double avg10_max, avg10_last, avg60_last, avg300_last;
	uint64_t stall_us; /* sum of total_delta_us */
};

struct cg_data {
	struct cg_sample *s; /* by seq */
	size_t n;
	char path[512], v1_path[512]; /* of the last sample that names one */
	struct cg_psi_agg psi[CG_PSI_N];
};

/* The samples of capture M in window W (a sample is in it when its time is), their PSI lines.
 * D must be zeroed; free with cg_data__free. 0, -ENOMEM, -EIO. */
int cg_data__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		  struct cg_data *d);
void cg_data__free(struct cg_data *d);

struct cg_proc {
	int64_t pid;
	char comm[64], exe[512], unit[256];
	char state[16];		     /* covered | denied | gone | skipped, at its last appearance */
	int64_t last_seen_ns;	     /* time of the last sample it was in (absolute) */
	int64_t value_ns;	     /* time of its last covered read; -1: never covered */
	int64_t rss, pss, uss, swap; /* of that read; -1: never covered */
	bool in_last;		     /* in the window's last sample */
};

/* Every pid of the cgroup_proc rows in window W: its last state and the values of its last
 * covered read; LAST_SEQ is the window's last sample (sets in_last). By pid; *OUT malloc'd
 * (caller frees). 0, -ENOMEM, -EIO. */
int cg_procs__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		   int64_t last_seq, struct cg_proc **out, size_t *n);

/* An application of `report apps`: the processes of the cgroup's last sample grouped by their
 * systemd app-*.scope unit, else their executable, else their comm. */
struct cg_app {
	char name[512];
	const char *kind; /* "unit", "exe", "comm", "others" */
	int64_t processes, covered;
	int64_t rss, pss, uss, swap; /* sums over the covered processes; -1: none covered */
	int64_t folded;		     /* others: apps folded in */
};

/* The applications of capture M's window W as `report apps` groups them (the cgroup probe's
 * processes in the window's last sample, gone ones left out), unsorted; *AT_NS that sample's
 * time (-1: none). *OUT malloc'd (caller frees). 0, -ENOMEM, -EIO. */
int cg_apps__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		  struct cg_app **out, size_t *n, int64_t *at_ns);

/* qsort order: PSS descending, not measured last, then pid. */
int cg_proc__cmp_pss(const void *x, const void *y);

#define CG_STAT_FIGS 21

struct cg_stat_kv {
	char key[64];
	int64_t value;
};

/* memory.stat of the last sample with a memory lane: the breakdown figures (anon, file, shmem,
 * ... named by cg_stat__fig_name) from the v2 key, or on v1 the hierarchical total_* key. */
struct cg_stat {
	const struct cg_sample *at; /* that sample; NULL: none */
	struct cg_stat_kv *kv;	    /* its memory.stat, by key */
	size_t n;
	int64_t fig[CG_STAT_FIGS];	   /* -1: not in memory.stat */
	const char *fig_key[CG_STAT_FIGS]; /* the key it came from */
};

/* Fill CS from D's last sample with a lane (CS->at points into D). Free CS->kv. 0, -ENOMEM,
 * -EIO. */
int cg_stat__load(sqlite3 *db, const struct capture_meta *m, const struct cg_data *d,
		  struct cg_stat *cs);
const char *cg_stat__fig_name(size_t k); /* NULL past CG_STAT_FIGS */

/* OOM events summed over D's samples. */
struct cg_oom {
	int64_t oom, oom_kill, high, max, failcnt; /* sums; -1: not in the lane */
	int64_t oom_kill_total;			   /* last; -1 */
	int64_t under_oom_samples, under_oom_last; /* v1; -1 */
};
void cg_oom__of(const struct cg_data *d, struct cg_oom *o);

/* Coverage of the per-process reads summed over D's samples. */
struct cg_cov {
	size_t intervals; /* samples with coverage */
	int64_t processes, covered, denied, gone, skipped, walk_ns, walk_max_ns, budget_ns;
};
void cg_cov__of(const struct cg_data *d, struct cg_cov *c);

/* `report apps`' own options (o->own): --by */
enum apps_by {
	APPS_BY_DEFAULT = 0, /* pss */
	APPS_BY_PSS,
	APPS_BY_USS,
	APPS_BY_RSS,
};

struct apps_opts {
	enum apps_by by;
};

/* The report: print to OUT in o->fmt. Returns 0, or -errno for an internal
 * failure (the caller maps it to the exit code); -EBADMSG for figures no capture can
 * hold (a corrupt DB, said on stderr: "corrupt DB: ..."). A probe that was not active
 * makes the report say "not collected" (JSON: "collected": false) and return 0. */
/* report_cgroup.c: the cgroup collector's memory, OOM, pressure and processes (probe cgroup);
 * the processes grouped into applications (apps: a single-process capture's one process from
 * memory_sample when the cgroup probe did not run). */
int report_cgroup(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);
int report_apps(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);

#endif
