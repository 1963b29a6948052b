/* collector.h — the one interface every ptop-record collector implements.
 *
 * A collector is a folder collectors/NAME/ whose record.c defines one
 * `const struct collector_ops NAME_collector`, listed once in collectors/collectors.def
 * (record/collectors.c builds the table from it). The recorder calls, for each collector
 * not disabled by the user:
 *
 *   prepare() optional, COMMAND mode only, before the command is launched: set up what
 *             must exist before its first instruction (e.g. its environment)
 *   check()  once, before the target runs: can it run here, from which source?
 *   start()  once, if check() said ACTIVE: load/attach BPF, open /proc files
 *   poll()   once per --interval, and once more with POLL_FINAL at the end:
 *            read the interval's data and emit records through rec_emit()
 *   stop()   once, always (also after a failed start): free everything
 *
 * A collector's command-line options are its own (struct collector_opt, below): it
 * declares them in a table, the recorder parses them into the collector's settings,
 * lists them in --help and records them in the capture header.
 *
 * Every function returns 0 or -errno. On failure a collector writes a one-line
 * reason into c->reason ("needs CAP_BPF: run as root or see --caps").
 */
#ifndef PTOP_COLLECTOR_H
#define PTOP_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proto/ptop.pb-c.h"

struct capture_writer;
struct exec_feed;

/* What the recorder knows about the run, what every collector needs; collectors only
 * read it. A collector's own settings are not here: its options table fills them. */
struct rec_ctx {
	pid_t pid;                   /* target tgid in the root pid namespace; 0 for --caps */
	Ptop__V1__TargetMode mode;
	uint64_t interval_ns;        /* --interval */
	uint64_t start_ns;           /* CLOCK_MONOTONIC when recording started */
	/* CLOCK_MONOTONIC the capture starts at (its header's clock; 0 before the header):
	 * rec_emit_event starts no interval before it */
	uint64_t capture_start_ns;
	bool no_ebpf;                /* --no-ebpf: /proc lanes only */
	bool caps_only;              /* --caps: check() only, nothing starts */
	bool verbose;                /* libbpf debug output */
	/* --smaps-budget: the time smaps reads (which hold the target's mmap lock) may
	 * take per interval, over every collector that reads them (memory, vmas, cgroup
	 * share it: record/procfs.h smaps_budget__get), so the core's */
	uint64_t smaps_budget_ns;
	/* --user-stacks: how the eBPF lanes take user stacks (enum user_stacks,
	 * record/stackcopy.h: auto, fp, dwarf) */
	int user_stacks;
	const char *exe;             /* the launched command's executable (COMMAND mode), or NULL */
	/* COMMAND mode: the inode of the recorder's pipe the command reads one byte from
	 * before its exec (the recorder's, not the target's I/O); 0 in other modes */
	uint64_t start_pipe_ino;
	/* during collector_ops.exec: the new program is held (stopped before its first
	 * instruction) until every collector has followed it */
	bool exec_held;
	/* CGROUP mode (pid 0): the cgroup v2 subtree recorded. BPF collectors set
	 * targ_cgid/targ_cglevel from these where they set targ_tgid. */
	uint64_t cgroup_id;          /* inode of its v2 directory; 0 in other modes */
	unsigned cgroup_level;       /* its depth below the v2 root */
	const char *cgroup_path;     /* root-relative ("/a/b"); NULL in other modes */
	const char *cgroup_dir;      /* its v2 directory; NULL in other modes */
	struct capture_writer *writer;
	uint64_t events;             /* Event records emitted so far */
	/* ptop maps memory of its own into the target (the heap's preload lane: its memfd,
	 * common/probe_mapping.h): the memory collector measures it apart, as probe overhead,
	 * out of the target's figures (DESIGN.md principle 9) */
	bool probe_mapping;
};

enum poll_flags {
	POLL_FIRST = 1 << 0,         /* the first poll, right after start */
	POLL_FINAL = 1 << 1,         /* the last poll, at the end of recording */
};

struct collector;

/* ------------------------------------------------------------------ options */

/* The heading of --help an option is listed under. */
enum copt_section {
	COPT_TIMING,                 /* "Timing", after --interval */
	COPT_COLLECTORS,             /* "Collectors", after --caps */
};

/* One command-line option of a collector, in the manner of Fluent Bit's config_map:
 * the collector declares it, the core (record/options.c) adds it to getopt_long,
 * resets it to its default before each parse, gives each value to PARSE, and lists it
 * in --help. Its value lives in the collector's settings (collector_ops.settings, a
 * static struct in the collector's record.c that its code reads), at OFFSET. */
struct collector_opt {
	const char *name;            /* the long option without "--": "heap-top" */
	/* its one-letter form where perf's means the same thing ('F' for -F N, perf's
	 * sampling frequency), so that muscle memory works; 0: none */
	char short_name;
	/* its argument as --help names it ("N", "D"); NULL: none (a flag); one that
	 * starts with '[' is optional and given as --NAME=VALUE ("[=debug]") */
	const char *arg;
	/* the default, as the command line would give it: PARSE takes it before the
	 * command line is read; NULL: the setting stays zero (a flag: off) */
	const char *def;
	/* its --help text: the lines after the name column, '\n' between them (the
	 * core indents the second and later ones) */
	const char *help;
	enum copt_section section;   /* the --help heading */
	/* its place under that heading: lower first; equal ones in collectors.def
	 * order, then in table order (it keeps --help as it was before the options
	 * moved to their collectors) */
	unsigned order;
	/* Write the value ARG (NULL: a flag, or an optional argument not given) into
	 * FIELD, the setting at OFFSET in the collector's settings. 0, or -EINVAL with a
	 * one-line message in ERR ("--NAME ..."; the recorder exits with status 2). The
	 * copt_parse_* helpers below serve the common kinds. */
	int (*parse)(const struct collector_opt *o, const char *arg, void *field, char *err,
		     size_t errlen);
	size_t offset;               /* of the setting in collector_ops.settings */
	uint64_t min, max;           /* the limits copt_parse_uint and _duration check */
};

/* PARSE helpers (record/options.c):
 *   copt_parse_flag      a bool set to true
 *   copt_parse_uint      an unsigned int, a whole number from MIN to MAX ("--NAME takes a
 *                        whole number from MIN to MAX, not 'ARG'")
 *   copt_parse_duration  a uint64_t of ns, a duration as --interval takes it, at least
 *                        MIN ns (MIN 1000000: "the minimum is 1ms") */
int copt_parse_flag(const struct collector_opt *o, const char *arg, void *field, char *err,
		    size_t errlen);
int copt_parse_uint(const struct collector_opt *o, const char *arg, void *field, char *err,
		    size_t errlen);
int copt_parse_duration(const struct collector_opt *o, const char *arg, void *field, char *err,
			size_t errlen);

/* What the command line chose about a collector, for collector_ops.opts_check. */
struct copt_choice {
	bool runs;                   /* it runs: not --disable'd, on by default or --enable'd */
	bool command;                /* a command is launched (-- COMMAND) */
};

struct collector_ops {
	const char *name;            /* "cpu", "syscalls", ...: as --disable takes it */
	const char *summary;         /* one line for --help and --caps */
	/* Off unless --enable names it: what it costs the target is not the cheap
	 * default (DESIGN.md). The text says why, for the probe set and --help. */
	const char *off_by_default;
	/* Optional: its options, ended by an entry with a NULL name, and the settings
	 * they fill (SETTINGS_SIZE bytes, zeroed then given the defaults at each parse) */
	const struct collector_opt *opts;
	void *settings;
	size_t settings_size;
	/* Optional: check the settings against the rest of the command line once it is
	 * parsed (not with --caps). 0, or -EINVAL with a message in ERR (exit status 2). */
	int (*opts_check)(const struct copt_choice *ch, char *err, size_t errlen);
	/* Optional: write the settings into their fields of the header's Options (the
	 * wire fields are the collector's, as its payload messages are). Strings it sets
	 * must live until the header is written (static, or in its settings). */
	void (*header_options)(Ptop__V1__Options *o);
	/* Optional. COMMAND mode only, for a collector not disabled, before check(): the
	 * command is about to be launched; make what must exist before it runs its first
	 * instruction. *ENVP is the environment it will be given (NULL: the recorder's
	 * own); the collector may replace it with one it owns (built from *ENVP), which
	 * must stay valid until stop(). ctx->pid is 0 until the launch: the pid is known
	 * from check() on. What it keeps is its own (c->priv, or its file's: one
	 * collector of a kind runs), for the later calls; stop() frees it, and is called
	 * even when the run ends before check(). Returns 0 or
	 * -errno (-ENOMEM ends the run: the command is not launched); a lane that cannot
	 * be prepared is no error: check() gives the reason. */
	int (*prepare)(struct collector *c, char *const **envp);
	/* Decide whether the collector can run for CTX and from which source;
	 * write the reason when it cannot. Must not change anything. Returns
	 * PROBE_STATE_ACTIVE, _UNSUPPORTED or _FAILED. */
	Ptop__V1__ProbeState (*check)(struct collector *c);
	int (*start)(struct collector *c);
	int (*poll)(struct collector *c, uint64_t now_ns, unsigned flags);
	void (*stop)(struct collector *c);
	/* Optional. The target exec'd: ctx->exe now names the new program. Called for
	 * every collector not disabled, active or not, in COMMAND mode before the new
	 * program runs its first instruction (the recorder holds it), in PID mode at
	 * the next interval (the loader has mapped its libraries by then). The collector re-decides for the new
	 * program (hand over to another lane, re-attach, start, stop), flushing what
	 * it holds first with a poll, and sets c->state, reason and detail. Returns 0
	 * or -errno. The recorder compares the probe before and after, and writes a
	 * ProbeChange when it differs. */
	int (*exec)(struct collector *c, uint64_t now_ns);
	/* Optional. An extra look between intervals, soon after each exec of a launched
	 * command (REFRESH_AFTER_EXEC_MS), while the new program's loader maps its
	 * libraries: for what a program that ends before the next interval would take
	 * with it (its mappings). Only for an active collector; no per-interval figures.
	 * Returns 0 or -errno. Its presence makes the recorder watch the command's execs,
	 * without holding them. */
	int (*refresh)(struct collector *c, uint64_t now_ns);
	/* Optional. Provide the exec watch's eBPF feed (record/exec_watch.h): fill F with
	 * a loaded BPF object whose attached program on tp_btf/sched_process_exec calls
	 * exec_watch_on_exec() (bpf/exec_watch.bpf.h), so that the run has one program
	 * there. The recorder asks the first collector that has it, after start(), when a
	 * collector follows execs (not with --no-ebpf, not in CGROUP mode): whether this
	 * collector runs or not. One that runs with its program attached gives its own
	 * object; one that does not (disabled, not active, or its start failed) loads that
	 * program alone, recording nothing of its own, and sets F->release to free it.
	 * F->by and F->prog name the provider for the probe set. 0, or -errno with the
	 * reason in F->why (the watch then falls back to /proc). */
	int (*exec_feed)(struct collector *c, struct exec_feed *f);
};

/* One lane of a collector (a way of measuring, with the kernel feature it needs): which
 * ran, and why the others did not; recorded as the probe's ProbeLane entries. */
struct collector_lane {
	const char *name;              /* static: "uprobe_multi", "perf_uprobe", "io_uring" */
	Ptop__V1__ProbeState state;    /* ACTIVE, STANDBY (a richer lane runs), UNSUPPORTED,
					* FAILED, DISABLED */
	Ptop__V1__ProbeSource source;
	char reason[240];              /* why not active */
	const char *instead;           /* static: the lane that runs in its place and measures
					* the same ("perf_uprobe" for "uprobe_multi"); NULL */
	bool instead_loses;            /* INSTEAD runs in its place but measures less ("fp"
					* for "stack_copy": chains break where frame pointers
					* are not kept): still a lost lane for --strict */
	const char *instead_by;        /* static: the option that asks for INSTEAD
					* ("--user-stacks fp"); NULL */
};

#define COLLECTOR_MAX_LANES 6

struct collector {
	const struct collector_ops *ops;
	struct rec_ctx *ctx;
	Ptop__V1__ProbeState state;
	Ptop__V1__ProbeSource source;  /* set by check() */
	char reason[512];              /* why not active; empty when active */
	char detail[512];              /* optional: attach points, lane details */
	void *priv;                    /* the collector's own state */
	uint64_t dropped;              /* total lost, as reported by rec_emit_drop */
	struct collector_lane lanes[COLLECTOR_MAX_LANES];
	unsigned n_lanes;
};

/* Set C's lane NAME (a static string) to STATE, from SOURCE, with the reason FMT (""
 * when active): replaces the lane of that name, else adds one (beyond
 * COLLECTOR_MAX_LANES, nothing). A collector's check() records its lanes (so --caps
 * shows them), start() updates them when a lane fails or falls back. */
void collector_lane(struct collector *c, const char *name, Ptop__V1__ProbeState state,
		    Ptop__V1__ProbeSource source, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* C's lane NAME is replaced by its lane INSTEAD (both static strings), which measures
 * the same: a lane not running is no loss (--strict). */
void collector_lane_instead(struct collector *c, const char *name, const char *instead);

/* C's lane NAME is replaced by its lane INSTEAD, which measures less: shown as in its
 * place, but still a lost lane (--strict), whose error says to accept INSTEAD or to ask
 * for it by the option BY (static strings). */
void collector_lane_fallback(struct collector *c, const char *name, const char *instead,
			     const char *by);

/* Has C lost a lane: one FAILED, or UNSUPPORTED with no active lane instead? WHICH gets
 * its name (NULL: none). */
bool collector_lane_lost(const struct collector *c, const struct collector_lane **which);

/* C's lane NAME, or NULL. */
const struct collector_lane *collector_lane_get(const struct collector *c, const char *name);

/* Does any lane of C have STATE? */
bool collector_lane_any(const struct collector *c, Ptop__V1__ProbeState state);

/* The collectors, in start order, NULL-terminated (record/collectors.c). */
extern const struct collector_ops *const collector_table[];

/* Emit one record to the capture. Counts events. 0 or -errno from the writer;
 * a writer error ends the recording (the run loop sees it). */
int rec_emit(struct rec_ctx *ctx, const Ptop__V1__Record *rec);

/* Fill the common envelope of an interval event for the target and emit it
 * with its payload already set in EV (ev->payload_case and the member).
 * Sets time_ns = NOW_NS, interval_ns, pid, category. */
int rec_emit_event(struct rec_ctx *ctx, Ptop__V1__Event *ev, Ptop__V1__Category cat,
		   uint64_t now_ns, uint64_t interval_ns);

/* Record LOST events lost by collector C (kind: "ringbuf", "map_full",
 * "proc_unreadable"...). Emits a DropNotice and adds to c->dropped and the
 * trailer totals. LOST == 0 is a no-op. */
int rec_emit_drop(struct collector *c, const char *kind, uint64_t lost, const char *detail);

/* CLOCK_MONOTONIC now, in ns. */
uint64_t rec_now_ns(void);

#endif
