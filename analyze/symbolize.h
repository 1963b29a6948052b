/* symbolize.h — the analyzer's symbol store and the stacks model built on it.
 *
 * symstore__update places every stack frame of a capture in its module
 * (table frame_module: the Mapping of the same pid covering the address at the
 * time the stack was first seen; file offset = addr - start + offset, with
 * addr = ip - 1 for the return addresses at depth > 0) and names each distinct
 * (module build-id, file offset), JIT (pid, address) and kernel (boot id,
 * address) once through symbol/symbolizer.h, storing the result in the tables
 * symbol and symbol_frame, which no capture owns: a binary named once stays
 * named for every capture in the DB. The embedded symbols (ModuleSymbols) and
 * perf maps of the capture are given to the symbolizer first.
 *
 * struct profile is a set of stacks with their placed frames and names: stacks__load
 * gives every stack of a capture; a collector's profile loader builds its own on the
 * helpers below (the CPU profile: collectors/cpuprof/stacks_load.c). Which tables hold
 * stacks, the parts declare (struct an_stack_col).
 */
#ifndef PTOP_SYMBOLIZE_H
#define PTOP_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "analyze/output.h"
#include "analyze/report.h"
#include "symbol/symbolizer.h"

/* A column of a collector's table that holds stack ids (stack.stack_id), declared by its
 * part (analyze/part.h, .stack_cols, NULL-terminated): symstore__update
 * places each stack it names in the mappings of the process and at the time the row gives.
 * A stack no column names is placed in the target's mappings, time unknown. The SQL below
 * is read as
 *   SELECT TABLE.COLUMN, PID, TIME, OWN FROM FROM
 *   WHERE TABLE.cap = ?1 AND TABLE.COLUMN IS NOT NULL
 * where the main table keeps its name (no alias) and FROM may join it to the table
 * holding the row's process and time. */
struct an_stack_col {
	const char *table;  /* the table holding the column: "heap_site" */
	const char *column; /* "stack_id" */
	const char *kind;   /* the stacks it holds: "user" or "kernel" (the stack row's kernel
			     * flag decides where a frame is placed; this one is for readers) */
	const char *from;   /* NULL: TABLE alone; else TABLE joined: "heap_site JOIN
			     * heap_snapshot h USING (cap, seq)" */
	const char *pid;    /* the process the stack was taken in; NULL: the target's */
	const char *time;   /* when the stack was first used (monotonic ns); NULL: unknown
			     * (the mappings still there at the end are used) */
	const char *own;    /* true when PID is the stack's own process, so no other
			     * process's mapping may name it; NULL: false */
};

struct symstore_opts {
	const char *cache_dir;	     /* --symbol-cache DIR; NULL: none */
	bool debuginfod;	     /* --debuginfod */
	const char *debuginfod_urls; /* --debuginfod-urls; NULL: $DEBUGINFOD_URLS */
	bool retry_misses;	     /* resolve again what the store holds as unnamed
				      * (`symbolize` does; reports only name what is new) */
};

struct symstore_run {
	uint64_t placed;   /* frames placed in a module by this run */
	uint64_t resolved; /* distinct addresses the symbolizer was asked for */
	bool stored;	   /* results written to the DB (false: it was read-only) */
	struct sym_debuginfod_stats debuginfod; /* what the servers were asked (--debuginfod) */
};

/* Place and name the frames of capture CAP in DB (see above). DB must be
 * writable. O may be NULL (defaults, no network). RUN may be NULL. Returns 0 or
 * -errno with a one-line message in ERR (-EIO: SQLite; -ENOMEM). */
int symstore__update(sqlite3 *db, int64_t cap, const struct symstore_opts *o,
		     struct symstore_run *run, char *err, size_t errlen);

/* symstore__update for a handle that may be read-only (the reports get one):
 * a read-only DB is reopened read-write on the same file for the update; when
 * that is refused (a DB the user cannot write), nothing is stored, RUN->stored
 * is false and 0 is returned: the caller shows the names the store already has. */
int symstore__ensure(sqlite3 *db, int64_t cap, const struct symstore_opts *o,
		     struct symstore_run *run, char *err, size_t errlen);

/* One line on what debuginfod was asked in run R: the servers, lookups found, not found
 * and failed, the first error; or that no server was configured. "" when --debuginfod
 * was not given. Returns BUF. */
char *symstore_run__debuginfod_text(const struct symstore_run *r, char *buf, size_t len);

/* The same as "debuginfod": {servers, wanted, lookups, found, not_found, failed,
 * first_error} in J (null when --debuginfod was not given). */
void symstore_run__debuginfod_json(const struct symstore_run *r, struct json *j);

/* ------------------------------------------------------- frame arithmetic */

/* The address to resolve for frame DEPTH of a user stack: IP for the innermost
 * frame, IP - 1 for the others (return addresses: the call is before them). */
static inline uint64_t frame_lookup_addr(uint64_t ip, unsigned depth)
{
	return depth > 0 && ip > 0 ? ip - 1 : ip;
}

struct map_entry {
	int32_t pid;	 /* 0: unknown */
	int64_t time_ns; /* 0: unknown (sorts first) */
	uint64_t start, end, offset;
	const char *path;     /* "" for anonymous */
	const char *build_id; /* hex; NULL when none */
	bool gone;	      /* a MAPPING_EVENT_GONE record */
	bool go_build_id;     /* build_id is Go's own build ID, not a GNU one */
};

/* The mapping of PID (0: any pid) covering ADDR at time T (0: unknown): the
 * latest record at or before T covering ADDR, unless that record says the
 * mapping is gone; with none at or before T, the earliest covering record
 * (mappings recorded at start are stamped after the first samples). Returns
 * its index in M[0..N), or -1. */
long mapping__find(const struct map_entry *m, size_t n, int32_t pid, int64_t t, uint64_t addr);

/* ---------------------------------------------------------- the profile */

enum frame_kind { FRAME_USER, FRAME_JIT, FRAME_KERNEL, FRAME_UNKNOWN };

/* One name of a location: a function (with its inlined callees before it). */
struct prof_func {
	const char *func; /* NULL when unnamed */
	const char *file; /* NULL when unknown */
	unsigned line;	  /* 0 when unknown */
	bool inlined;
};

struct prof_loc {
	enum frame_kind kind;
	const char *module;   /* mapping path, "[jit]", "[kernel]", "[unknown]" */
	const char *build_id; /* hex or NULL */
	uint64_t ip, addr;    /* as recorded; and the address resolved (ip - 1 for callers) */
	uint64_t offset;      /* file offset (user), else the address */
	const char *source;   /* "dwarf", ...; NULL when unnamed */
	const char *miss;     /* why unnamed: "no_file", "no_mapping", ...; NULL if named */
	size_t n; /* names: [0] innermost inlined ... [n-1] the function; 0 if unnamed */
	struct prof_func *f;
	/* user frames: the mapping that placed it (the record of frame_module.pid, else of
	 * any pid, with the same path covering addr at the same file offset); all 0 when
	 * no such record (a frame of another kind) */
	int32_t pid;		/* frame_module.pid; 0: unknown */
	uint64_t map_start, map_limit, map_offset;
	bool main_program; /* the mapping is of the process's executable: the path of its
			    * lowest-addressed file mapping */
};

struct prof_stack {
	int64_t stack_id; /* stacks__load: stack.stack_id (profile__load: 0) */
	uint64_t count;	  /* samples */
	size_t n;	/* locations, innermost first: kernel frames, then user frames */
	struct prof_loc **loc;
	bool no_user_stack; /* the sample had no user stack (user_stack_id NULL) */
	int32_t pid;	    /* the process sampled (cpu_profile_stack.pid, cgroup mode);
			     * 0: the profile's one process (cpu_profile.pid) */
	/* The user stack's walk was cut: after its last frame came a return address in
	 * no executable mapping (CUT_IP, not kept), what a frame-pointer walk reads in
	 * code built without frame pointers. CUT_MODULE is the module of the last frame
	 * kept, the code the walk could not leave; NULL when not cut. */
	const char *cut_module;
	uint64_t cut_ip;
};

/* A process of a per-process profile (cgroup mode). */
struct prof_proc {
	int32_t pid;
	const char *comm; /* the latest comm cgroup_proc has for it; NULL when unknown */
	const char *exe;  /* cgroup_proc's latest exe, else the path of its lowest-addressed
			   * executable file mapping (where the executable is loaded);
			   * NULL when unknown */
	uint64_t samples; /* its samples in cpu_profile_stack (in the window) */
};

struct profile {
	bool collected; /* the cpuprof probe was active */
	struct probe_info probe;
	uint64_t intervals;
	uint32_t requested_hz; /* the largest requested; 0 if no interval */
	double delivered_hz;   /* sum(ticks) / sum(cpus x interval s); NAN if unknown */
	uint64_t samples, no_user_stack, no_kernel_stack, lost; /* cpu_profile sums */
	uint64_t stacked;     /* samples in cpu_profile_stack (sum of the stacks' counts) */
	int64_t t0_ns, t1_ns; /* first interval start, last interval end (absolute); -1 */
	size_t n_stacks;
	struct prof_stack *stacks;
	int32_t pid;		/* profile__load_pid's PID: the stacks are its only; 0: all */
	uint64_t all_stacked;	/* samples in cpu_profile_stack of every process (= stacked
				 * unless PID) */
	uint64_t cut;		/* of stacked, the samples whose user stack was cut (struct
				 * prof_stack cut_module); stacks__load: the stacks cut */
	uint64_t cut_frames;	/* placed frames (of every stack of the capture) left out
				 * past the end of a cut walk */
	/* profile__load: samples whose innermost user frame is ptop's own code in the target
	 * (the heap preload library, common/probe_mapping.h probe_code__is), and how many
	 * distinct stacks: probe overhead (DESIGN.md principle 9), left out of STACKS and
	 * of STACKED, so out of every share, figure, diff and export of the profile */
	uint64_t overhead, overhead_stacks;
	size_t n_procs;		/* per-process profile (cgroup mode): its processes, whatever
				 * PID, by samples (most first, then by pid); 0 otherwise */
	struct prof_proc *procs;
	/* owned storage */
	size_t n_locs;
	struct prof_loc *locs;
	char **strs;
	size_t n_strs, cap_strs;
};

/* The process PID of P's procs, or NULL. */
const struct prof_proc *profile__proc(const struct profile *p, int32_t pid);

void profile__free(struct profile *p);

/* For a collector's loader of a profile (e.g. collectors/cpuprof/stacks_load.c):
 * profile__load_locs reads every placed frame of capture CAP into P->locs, grouped by
 * stack, and an index of them (*IX, NIX entries, malloc'd: the caller frees it);
 * profile__add_stack_locs appends the frames of stack SID (by that index) to ST (none
 * when it has no placed frame), noting a cut walk; profile__keep interns string S in P
 * (NULL for NULL or when out of memory). 0 or -errno (-EIO, -ENOMEM). */
struct loc_ix;
int profile__load_locs(sqlite3 *db, struct profile *p, int64_t cap, struct loc_ix **ix,
		       size_t *nix);
int profile__add_stack_locs(struct profile *p, struct prof_stack *st, const struct loc_ix *ix,
			    size_t nix, int64_t sid);
const char *profile__keep(struct profile *p, const char *s);

/* Every placed stack of capture CAP (frame_module rows, so symstore__ensure
 * first) with the names the store holds, for reports over stacks other than the
 * CPU profile's (report heap, report leaks): a profile with collected false,
 * no counts, one prof_stack per stack id (stack_id set), sorted by stack_id.
 * *OUT is the caller's (profile__free). 0 or -errno (-EIO, -ENOMEM). */
int stacks__load(sqlite3 *db, int64_t cap, struct profile **out);

/* The stack STACK_ID of P loaded by stacks__load, or NULL when it has no
 * placed frame. */
const struct prof_stack *profile__stack(const struct profile *p, int64_t stack_id);

/* The name of location L's function NAME_IX (0 innermost) as printed in flame
 * graphs and tables: the function, or "MODULE+0xOFFSET" (MODULE the base name)
 * for an unnamed location ("[unknown]+0xADDR" without a mapping). */
void prof_loc__name(const struct prof_loc *l, size_t name_ix, char *buf, size_t len);

/* A module whose code the cut stacks of a profile could not leave (struct prof_stack
 * cut_module), with their weight: samples (profile__load), else stacks. */
struct cut_mod {
	const char *module;
	uint64_t weight;
};

/* The modules P's cut stacks end in, most weight first, in *OUT (the caller frees)
 * and *N. 0 or -ENOMEM. */
int profile__cut_modules(const struct profile *p, struct cut_mod **out, size_t *n);

/* The fix for stacks cut in MODULE: "frame pointers missing in MODULE: ..." into BUF. */
char *stack_cut_fix(const char *module, char *buf, size_t len);

/* One line for a report of profile P whose cut stacks (P->cut) are out of OF UNIT
 * ("samples", "stacks"): how many, why, and the module; "" when none was cut.
 * 0 or -ENOMEM. */
int profile__cut_note(const struct profile *p, uint64_t of, const char *unit, char *buf,
		      size_t len);

/* A function of the profile: named (MODULE, FUNC), or one unnamed address. */
struct prof_fn {
	char *name; /* func, or "module+0xoffset" */
	const char *module;
	const char *file; /* where most of its samples were; NULL when unknown */
	unsigned line;
	bool named;
	uint64_t self;	      /* samples with it innermost */
	uint64_t total;	      /* samples with it anywhere in the stack, once per stack */
	uint64_t best, stamp; /* internal */
};

/* export.c: P as folded stacks to F, one line per distinct stack, outermost
 * frame first, "a;b;c COUNT", kernel frames suffixed "_[k]", lines sorted. A
 * stack of a process of a per-process profile (pid set) starts with a root
 * frame naming it, "COMM-PID" (COMM: its comm, else the base name of its exe,
 * else "[unknown]"), as stackcollapse-perf.pl --pid does.
 * 0 or -errno (-EIO: writing failed). */
int export_folded(const struct profile *p, FILE *f);

/* The commands (symbolize.c, export.c), registered in analyze.c. */
int cmd_symbolize(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* One line telling what would name the frames of a module that MISS leaves unnamed, after
 * what debuginfod was asked (D; NULL: not asked): a server that was asked and did not
 * have the file is not suggested again. */
const char *symbolize_fix_hint(const char *miss, const struct sym_debuginfod_stats *d);

#endif
