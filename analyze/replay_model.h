/* replay_model.h — the replay viewer's data model: a capture's per-interval state in memory.
 *
 * replay_model__open reads a capture's interval tables (cpu_sample, syscall_stat, memory_sample,
 * vma_snapshot, heap_snapshot, cgroup_sample, drop_notice) once into sorted arrays, so a seek is a
 * binary search and never a scan. VMA groups of one snapshot and the latency histograms of one
 * interval are read on demand (and cached): they are the bulk of a capture. The model knows nothing
 * of curses: the views (analyze/replay_views.c, collectors/NAME/view.c) read it and draw into a
 * character grid. Its probe states are those of the collectors' parts (an_parts[]); the series
 * of each collector are still read here, by name.
 *
 * Times in the model are nanoseconds relative to the capture start (capture.start_monotonic_ns).
 * The state "at T" is the last interval that ended at or before T (what a live viewer would have
 * shown at T); the history is every interval before it. A figure that was not measured is
 * negative (RM_NULL) in the arrays, never 0.
 */
#ifndef PTOP_REPLAY_MODEL_H
#define PTOP_REPLAY_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <sqlite3.h>

#include "analyze/report.h"
#include "collectors/cgroup/report.h"
#include "collectors/heap/report.h"
#include "collectors/vmas/report.h"

#define RM_NULL (-1) /* a figure that was not measured */

struct rm_cpu {
	int64_t t, interval;  /* end of the interval, its length (ns) */
	int64_t oncpu;	      /* eBPF lane, ns; RM_NULL when absent */
	int64_t user, system; /* /proc lane, ns; RM_NULL when absent */
	int64_t threads;
};

struct rm_sys { /* one syscall in one interval (summed over the target's pids) */
	int64_t nr;
	const char *name; /* points into the model's name table */
	bool probe;	  /* a syscall of the uprobe trampolines: probe overhead, not the target's */
	uint64_t count, completed, errors, total_ns;
	uint32_t hist_off; /* its log2 latency buckets: model.hist[hist_off .. + hist_n) */
	uint32_t hist_n;
};

struct rm_bucket {
	uint8_t bucket;
	uint64_t count;
};

struct rm_sys_interval {
	int64_t t, interval;
	size_t first, n; /* model.sys[first .. first + n) */
};

struct rm_mem {
	int64_t t;
	int64_t rss, pss, uss, pss_anon, pss_file, pss_shmem, swap, vsize; /* bytes or RM_NULL */
	int64_t minflt, majflt;						   /* deltas or RM_NULL */
};

struct rm_vma_snap {
	int64_t id, t, vma_count;
};

struct rm_vma_group {
	char name[128];				 /* the path, or [anon] for anonymous mappings */
	int64_t vmas, size, rss, pss, uss, swap; /* bytes or RM_NULL */
};

struct rm_heap {
	int64_t t, interval;
	int64_t alloc_count, alloc_bytes;
	int64_t live_bytes, leak_bytes; /* RM_NULL when not measured */
	int64_t sample_bytes;		/* mean bytes between stack samples; 0: every allocation */
	char lane[16];
};

struct rm_drop {
	int64_t t; /* RM_NULL when the notice had no time */
	char collector[32], kind[32];
	uint64_t lost;
};

/* A discrete event for the timeline: a drop notice, a mapping that came or went, a VMA snapshot,
 * the end of the recording. */
struct rm_event {
	int64_t t;
	bool warn; /* a loss: drawn as a warning */
	char kind[16];
	char text[200];
};

/* The cgroup collector's state at one of its samples (replay_model__cgroup), read with
 * report_cgroup.c's loaders. */
struct rm_cgroup {
	size_t at;	       /* the sample: index into model.cg.s */
	struct cg_stat stat;   /* memory.stat at it (stat.at NULL: no memory lane read) */
	struct cg_oom oom;     /* OOM events summed from the start to it */
	struct cg_proc *procs; /* the processes in that sample (their last covered read), by PSS */
	size_t nprocs;
};

#define RM_CG_CP 256 /* samples between two checkpoints of the cgroup processes seen */

struct rm_cg_checkpoint {
	struct cg_proc *seen; /* NULL: not taken yet */
	size_t n;
};

enum { RM_SPEED_MIN = -2, RM_SPEED_MAX = 6 }; /* speed = 2^speed_log2: 1/4x .. 64x */

struct replay_model {
	sqlite3 *db; /* not owned */
	struct capture_meta meta;
	/* capture and target facts (empty strings when unknown) */
	char mode[16], comm[64], cgroup[256], container[80], recorder_version[32];
	int64_t pid;		   /* RM_NULL when unknown */
	int64_t start_realtime_ns; /* RM_NULL when unknown */
	int64_t interval_ns;	   /* the capture's sampling interval (default 1 s when unknown) */
	int64_t duration_ns;	   /* end of the last interval relative to the start */
	struct probe_info *probes; /* one per part of an_parts[], in its order */
	uint64_t events; /* records of type event (record_count), 0 when unknown */

	struct rm_cpu *cpu;
	size_t ncpu;
	struct rm_sys *sys;
	size_t nsys;
	struct rm_sys_interval *sysi;
	size_t nsysi;
	struct rm_bucket *hist; /* the buckets of one interval's rows (hist_iv), read on demand */
	size_t nhist, hist_cap;
	int64_t hist_iv; /* the interval whose buckets model.hist holds; RM_NULL: none */
	char **names;	 /* syscall names, one per distinct nr */
	bool sys_probe;	 /* some row is probe overhead (rm_sys.probe) */
	size_t nnames;
	struct rm_mem *mem;
	size_t nmem;
	struct rm_vma_snap *snaps;
	size_t nsnaps;
	struct rm_heap *heap;
	size_t nheap;
	struct cg_data cg; /* the cgroup samples of the whole capture (probe cgroup active) */
	struct rm_drop *drops;
	size_t ndrops;
	struct rm_event *events_list; /* in time order */
	size_t nevents;
	/* the interval ends the arrows step through, ascending: those of the first interval
	 * series the capture has (cpu, syscalls, heap, memory), not a fixed grid, since the
	 * first interval of a recording is often short (30 ms, then 1 s each) */
	int64_t *ends;
	size_t nends;

	/* the playback position */
	int64_t pos_ns;
	bool playing;
	int speed_log2; /* RM_SPEED_MIN .. RM_SPEED_MAX */

	/* the VMA groups of one snapshot, cached */
	int64_t groups_snap; /* snapshot id cached, RM_NULL: none */
	struct rm_vma_group *groups;
	size_t ngroups;

	/* the heap call sites of one snapshot, cached (replay_model__heap_sites) */
	int64_t sites_hi; /* heap index cached, RM_NULL: none */
	struct heap_sites *sites_iv, *sites_hist;

	/* the cgroup state at one sample, cached (replay_model__cgroup) */
	int64_t cg_cached; /* sample index cached, RM_NULL: none */
	struct rm_cgroup cgs;
	/* every process seen up to sample cg_seen_to, with its last covered read, by pid: moving
	 * forward reads only the samples after it; going back starts from the checkpoint before */
	struct cg_proc *cg_seen;
	size_t ncg_seen;
	int64_t cg_seen_to;		 /* sample index; RM_NULL: none read */
	struct rm_cg_checkpoint *cg_cps; /* cg_cps[k]: cg_seen at sample (k + 1) * RM_CG_CP - 1 */
	size_t ncg_cps;
};

/* Load capture CAPTURE_ID of DB (which stays the caller's and must outlive the model). Returns
 * the model at position 0, paused, speed 1x; NULL with errno set (ENOENT: no such capture,
 * ENOMEM, EIO: an SQLite error) and a one-line reason in ERR. Free with replay_model__free. */
struct replay_model *replay_model__open(sqlite3 *db, const char *capture_id, char *err,
					size_t errlen);

void replay_model__free(struct replay_model *m);

/* The probe of part NAME (an_parts[]) in the capture's probe set; NULL when no part is NAME. */
const struct probe_info *replay_model__probe(const struct replay_model *m, const char *name);

/* Move the position to T ns (clamped to [0, duration]). */
void replay_model__seek(struct replay_model *m, int64_t t);

/* Step N interval ends forward (negative: back) from the position, clamped to 0 and the
 * end; without any interval series, N times the capture's interval. Back steps count from
 * the interval the views show (the last ending at or before the position), so a step back
 * from inside an interval, or from past the last one, shows another interval. Returns the
 * index in
 * m->ends of the interval now ending at the position, -1 when none does (at 0, or at the
 * end of the recording past the last interval). */
ssize_t replay_model__step(struct replay_model *m, int n);

/* Double (DIR > 0) or halve (DIR < 0) the speed within 1/4x .. 64x. */
void replay_model__speed(struct replay_model *m, int dir);

/* The speed as text: "1/4x", "1/2x", "1x" .. "64x". Returns BUF. */
char *replay_model__speed_str(const struct replay_model *m, char *buf, size_t len);

/* Advance a playing model by WALL_NS of real time at its speed; stops (paused) at the end. */
void replay_model__tick(struct replay_model *m, int64_t wall_ns);

/* Index of the last sample ending at or before T in each series; -1 when none. */
ssize_t replay_model__cpu_at(const struct replay_model *m, int64_t t);
ssize_t replay_model__sys_at(const struct replay_model *m, int64_t t);
ssize_t replay_model__mem_at(const struct replay_model *m, int64_t t);
ssize_t replay_model__snap_at(const struct replay_model *m, int64_t t);
ssize_t replay_model__heap_at(const struct replay_model *m, int64_t t);
ssize_t replay_model__cg_at(const struct replay_model *m, int64_t t); /* into model.cg.s */

/* CPU use of sample I as a percentage of one CPU: the eBPF lane when measured, else the /proc
 * lane; NAN when neither was. */
double replay_model__cpu_pct(const struct replay_model *m, size_t i);

/* The PCT-th percentile latency estimate of syscall row S (hist_percentile over its buckets, as
 * `report syscalls` computes it); reads the histograms of S's interval when they are not the ones
 * in memory (one indexed query per syscall of the interval). 0 with *EST set, -ENODATA when it
 * has no histogram, -EIO on an SQLite error. */
int replay_model__sys_pct(struct replay_model *m, const struct rm_sys *s, unsigned pct,
			  uint64_t *est);

/* The VMA groups (one per path, anonymous ones together as [anon]) of snapshot index SI, sorted
 * by PSS (else RSS, else size) descending. *OUT points into the model (valid until the next call).
 * 0, or -errno (-EIO on an SQLite error, -ENOMEM). */
int replay_model__vma_groups(struct replay_model *m, size_t si, const struct rm_vma_group **out,
			     size_t *n);

struct rm_vma {
	uint64_t start, end;
	char perms[8];
	int64_t offset, size, rss, pss, uss, swap; /* RM_NULL when not measured */
};

/* The VMAs of group GROUP (a path, or [anon]) in snapshot index SI, by address. *OUT is malloc'd
 * (caller frees). 0, -EINVAL (no such snapshot), -EIO, -ENOMEM. */
int replay_model__vmas(struct replay_model *m, size_t si, const char *group, struct rm_vma **out,
		       size_t *n);

/* The heap call sites at heap snapshot index HI, folded by allocating function as `report heap`
 * does (collectors/heap/report.c): *IV over that snapshot's interval (live bytes at it, bytes and
 * count allocated in it), *HIST from the capture start to it, with the leak suspects as
 * `report leaks` ranks them. Both point into the model (valid until the next call with another
 * HI). 0, -EINVAL (no such snapshot), or -errno of heap_sites__load. */
int replay_model__heap_sites(struct replay_model *m, size_t hi, struct heap_sites **iv,
			     struct heap_sites **hist);

/* The cgroup state at cgroup sample index CI: *OUT points into the model (valid until the next
 * call with another CI). Reads the process rows of the samples after the last CI asked for (all
 * up to CI when it goes back). 0, -EINVAL (no such sample), -ENOMEM, -EIO. */
int replay_model__cgroup(struct replay_model *m, size_t ci, const struct rm_cgroup **out);

/* Index of the last event at or before T in events_list; -1 when none. */
ssize_t replay_model__event_at(const struct replay_model *m, int64_t t);

/* Lost events in drop notices at or before T. */
uint64_t replay_model__drops_until(const struct replay_model *m, int64_t t);

#endif
