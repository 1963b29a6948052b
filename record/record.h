/* record.h — the spine of ptop-record: options, target, header, run loop.
 *
 * main() hands over to record_main(). The pure parts (option parsing, the
 * default output name, the probe-set record and its summary text, the mapping
 * of a wait status to a TargetExit, drop totals) are separate functions so that
 * tests/test_record.c can check them without a target or a kernel.
 *
 * Files: record/options.c (command line), record/probes.c (probe set, summary,
 * --caps lines, drop totals, exit status), record/target.c (the process being
 * recorded: --pid or a launched command), record/header.c (the CaptureHeader),
 * record/record.c (record_main, the run loop, rec_emit*).
 */
#ifndef PTOP_RECORD_H
#define PTOP_RECORD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "proto/ptop.pb-c.h"
#include "record/collector.h"
#include "symbol/buildid.h"

/* Exit statuses of ptop-record. With --pid and --cgroup, its own; for a launched
 * command, the wrapper convention of timeout(1) and env(1): the command's status, 128+N
 * when signal N killed it, and the codes below for what is not the command's. */
#define RECORD_EXIT_OK 0
#define RECORD_EXIT_RUNTIME 1      /* runtime error: every probe failed, disk full... */
#define RECORD_EXIT_USAGE 2        /* bad usage or input: no such pid, unwritable path... */
#define RECORD_EXIT_CMD_DURATION 124 /* --duration ended the recording; the command was stopped */
#define RECORD_EXIT_CMD_RECORDER 125 /* a launched command's recorder failed (runtime error) */
#define RECORD_EXIT_CMD_CANNOT_RUN 126 /* the command was found but could not be executed */
#define RECORD_EXIT_CMD_NOT_FOUND 127 /* the command was not found */

#define RECORD_MAX_COLLECTORS 32
#define RECORD_BUILD_ID_MAX 64     /* bytes; a GNU build-id is usually 20 */

/* ------------------------------------------------------------------ options */

/* The core's options. A collector's own (--cpu-sample-hz, --heap-*, --vma-interval,
 * --embed-symbols...) are in its table (record/collector.h, struct collector_opt), parsed
 * into its settings by record_opts__parse. */
#define RECORD_DEFAULT_SMAPS_BUDGET_NS (150ull * 1000000ull)

struct record_opts {
	pid_t pid;                   /* --pid; 0 when not given */
	const char *cgroup;          /* --cgroup SPEC (points into argv); NULL when not given */
	char **cmd;                  /* the command after "--" (NULL-terminated, points into
				      * argv); NULL when none was given */
	const char *output;          /* -o; NULL: the default name */
	bool force;                  /* --force: replace an existing output file */
	bool no_ebpf;                /* --no-ebpf */
	bool caps;                   /* --caps */
	bool strict;                 /* --strict: a failed collector or lane is a start-up error */
	bool quiet;                  /* --quiet */
	bool verbose;                /* --verbose: libbpf debug output */
	bool help;                   /* --help: print usage, exit 0 */
	bool version;                /* --version */
	uint64_t duration_ns;        /* --duration; 0: until the target exits or a signal */
	uint64_t interval_ns;        /* --interval, default 1 s */
	uint64_t flush_interval_ns;  /* --flush-interval, default 1 s */
	uint64_t smaps_budget_ns;    /* --smaps-budget, default 150 ms */
	int user_stacks;             /* --user-stacks: enum user_stacks (record/stackcopy.h) */
	char **disabled;             /* --disable names (each checked), owned; n_disabled */
	size_t n_disabled;
	char **enabled;              /* --enable names (each checked), owned; n_enabled */
	size_t n_enabled;
	int argc;                    /* the recorder's own command line */
	char **argv;
};

/* Parse the command line into O (which it zeroes first and fills with
 * defaults). TABLE is the NULL-terminated collector table: --disable names are
 * checked against it, and its collectors' options (collector_ops.opts) are parsed
 * into their settings, which are first reset to their defaults; each collector's
 * opts_check then sees the result. Returns 0, or -EINVAL on a usage error with a one-line
 * message (no "ptop-record:" prefix, no newline) in ERR. --help and --version
 * only set o->help / o->version and skip the target checks. On success and on
 * failure the caller frees O with record_opts__free(). */
int record_opts__parse(struct record_opts *o, int argc, char **argv,
		       const struct collector_ops *const *table, char *err, size_t errlen);

/* Free what record_opts__parse allocated in O (not O itself). NULL is fine. */
void record_opts__free(struct record_opts *o);

/* True if NAME was given to --disable. */
bool record_opts__disabled(const struct record_opts *o, const char *name);

/* Whether --enable named collector NAME (one that is off by default). */
bool record_opts__enabled(const struct record_opts *o, const char *name);

/* Whether collector OPS runs by the command line: not --disable'd, and on by default
 * or --enable'd. */
bool record_opts__runs(const struct record_opts *o, const struct collector_ops *ops);

/* Print the --help text to F, listing the collectors of TABLE and their options
 * (each under its heading, struct collector_opt). */
void record_usage(FILE *f, const struct collector_ops *const *table);

/* The default output name "ptop-<comm>-<pid>-<YYYYmmdd-HHMMSS>.ptop" for WHEN
 * in local time. Characters of COMM that do not belong in a file name (/,
 * spaces, control characters, anything outside [A-Za-z0-9._+-]) become '_';
 * an empty COMM becomes "unknown". Returns 0, or -ENAMETOOLONG if BUF is too
 * small. */
int record_default_output(char *buf, size_t len, const char *comm, pid_t pid, time_t when);

/* ------------------------------------------------------------------ probes */

/* Fill PROBES[0..N) from the collectors CS[0..N) and point PTRS[i] at
 * PROBES[i], ready for CaptureHeader.probes. Strings point into CS (nothing is
 * copied, nothing to free); empty reason/detail stay empty. With LANES and LANE_PTRS
 * (N * COLLECTOR_MAX_LANES each), each probe gets its collector's lanes. */
void record_probe_set(const struct collector *cs, size_t n, Ptop__V1__Probe *probes,
		      Ptop__V1__Probe **ptrs, Ptop__V1__ProbeLane *lanes,
		      Ptop__V1__ProbeLane **lane_ptrs);

/* The probe summary printed at start:
 *   "probes: 3 active, 1 failed, 1 disabled, 0 unsupported\n"
 * then for each collector that is not active "  NAME: STATE: REASON\n".
 * Writes at most LEN bytes including the NUL (truncating); returns the length
 * the whole text needs, like snprintf. */
size_t record_probe_summary(const struct collector *cs, size_t n, char *buf, size_t len);

/* --caps: one lane of a collector, "      lane NAME  STATE  REASON\n" (the lane it
 * falls back to when it has one); one kernel feature, "  NAME  SINCE  yes|no (why)  PROBE\n".
 * Like snprintf. */
size_t record_caps_lane(const struct collector_lane *l, char *buf, size_t len);
size_t record_caps_feature(int feature, char *buf, size_t len);

/* --strict: is a collector of CS[0..N) FAILED, or has one lost a lane (a lane FAILED, or
 * UNSUPPORTED with no lane active in its place: collector_lane_lost)? Then a one-line
 * account in ERR ("heap failed: ...", "net lane sock_length unsupported: ...") and -1,
 * else 0. Disabled and unsupported collectors (not asked, or not for this target) are
 * not failures. */
int record_strict_check(const struct collector *cs, size_t n, char *err, size_t errlen);

/* Number of collectors in CS[0..N) whose state is STATE. */
size_t record_probe_count(const struct collector *cs, size_t n, Ptop__V1__ProbeState state);

/* One line of the --caps table for C (after check()):
 *   "  syscalls     yes  ebpf  per-syscall counts and latency...\n"
 *   "  syscalls     no   -     --no-ebpf given: eBPF lanes are off\n"
 * "yes" when the state is active (then the summary follows, and "; REASON" when an
 * active collector set a reason: the limit it runs within), else "no" and the
 * reason. Returns like snprintf. */
size_t record_caps_line(const struct collector *c, char *buf, size_t len);

/* The effective capability mask from the text of /proc/PID/status ("CapEff:").
 * 0 or -EINVAL. */
int record_parse_capeff(const char *status_text, uint64_t *mask);

/* Fill TE from a wait(2) status WSTATUS: exited + exit_code, or term_signal +
 * core_dumped; status_known = true. */
void record_target_exit(int wstatus, Ptop__V1__TargetExit *te);

/* Lost-event totals per (collector, kind), for the trailer. */
struct drop_total {
	char collector[32];
	char kind[32];
	uint64_t lost;
};

struct drop_totals {
	struct drop_total *v;        /* owned; n used of cap */
	size_t n, cap;
};

/* Add LOST to the total of (COLLECTOR, KIND), creating it. 0 or -ENOMEM.
 * Names longer than 31 bytes are truncated. */
int drop_totals__add(struct drop_totals *t, const char *collector, const char *kind,
		     uint64_t lost);

/* Point TR->drops at freshly allocated DropTotal messages for T (strings point
 * into T). Free them with drop_totals__release_trailer(). 0 or -ENOMEM. */
int drop_totals__fill_trailer(const struct drop_totals *t, Ptop__V1__CaptureTrailer *tr);
void drop_totals__release_trailer(Ptop__V1__CaptureTrailer *tr);

/* Free the totals (not T itself) and reset T. NULL is fine. */
void drop_totals__free(struct drop_totals *t);

/* ------------------------------------------------------------------ target */

/* The process being recorded. */
struct record_target {
	Ptop__V1__TargetMode mode;
	pid_t pid;                   /* tgid */
	char comm[64];
	char exe[PATH_MAX];          /* empty when unknown */
	uint8_t build_id[RECORD_BUILD_ID_MAX];
	size_t build_id_len;         /* 0: no build-id (or unreadable) */
	enum buildid_kind build_id_kind; /* GNU, or Go's build ID */
	char **cmdline;              /* owned copies; n_cmdline */
	size_t n_cmdline;
	char cgroup_path[1024];      /* empty when unknown */
	uint64_t cgroup_id;          /* 0 when unknown */
	char container_id[72];       /* empty when none */
	char cgroup_dir[PATH_MAX];   /* cgroup mode: the cgroup v2 directory recorded */
	unsigned cgroup_level;       /* cgroup mode: its depth below the v2 root (root 0) */
	int pidfd;                   /* -1 when pidfd_open is not available */
	int go_fd;                   /* command mode: write end that releases the child */
	uint64_t go_ino;             /* command mode: that pipe's inode (the child reads it) */
	int err_fd;                  /* command mode: read end, the child's exec errno */
	bool is_child;               /* we launched it (command mode) */
	bool exited;                 /* it has exited (seen through pidfd/wait) */
	bool reaped;                 /* waitpid() collected it; wstatus valid */
	bool status_known;           /* wstatus is its real wait status */
	int wstatus;
};

/* Check that PID exists, is a process (not a thread) and may be traced, and
 * describe it into T. Returns 0, or -errno with a one-line message in ERR:
 * -ESRCH no such process, -EPERM/-EACCES may not be traced, -EINVAL a thread
 * or a kernel thread. */
int target__open_pid(struct record_target *t, pid_t pid, char *err, size_t errlen);

/* Cgroup mode: resolve SPEC (a cgroup path or a container id, see
 * cgroupfs_resolve()) and describe the cgroup into T: mode CGROUP, pid 0, comm the
 * last component of its path, cgroup path, id, level, directory and container id.
 * Returns 0, or -errno with a message in ERR (the candidates when an id prefix is
 * ambiguous, -ENOTUNIQ): -ENOENT nothing matches, -EINVAL a malformed SPEC, -ENODEV
 * no cgroup v2 hierarchy. */
int target__open_cgroup(struct record_target *t, const char *spec, char *err, size_t errlen);

/* Find ARGV[0] (like execvp), fork a child that waits to be released, then
 * execs it with every signal disposition at its default and an empty signal
 * mask (the recorder's SIGPIPE ignore and blocked SIGINT/SIGTERM do not leak
 * into it), and describe it into T. Returns 0, or -errno with a message in
 * ERR: -ENOENT command not found, -EACCES not executable, or a fork/pipe
 * error. */
int target__launch(struct record_target *t, char **argv, char *err, size_t errlen);

/* target__launch() with the environment ENVP for the command (NULL: the
 * recorder's own), as the heap's preload lane makes it. ENVP must stay valid
 * until target__release(). */
int target__launch_env(struct record_target *t, char **argv, char *const *envp, char *err,
		       size_t errlen);

/* Command mode: let the child exec and wait until it has (or failed to).
 * Returns 0, or the child's exec errno as -errno with a message in ERR (the
 * child has then exited and is reaped). */
int target__release(struct record_target *t, char *err, size_t errlen);

/* True once the target has exited (nonblocking check through the pidfd, or
 * kill(pid, 0) without one; in cgroup mode, once its directory is gone). Sets
 * t->exited. */
bool target__has_exited(struct record_target *t);

/* Wait up to TIMEOUT_MS for the target to exit (also returns early when
 * STOP_FD, if >= 0, becomes readable). Returns true if it has exited. */
bool target__wait_exit(struct record_target *t, int timeout_ms, int stop_fd);

/* Command mode: reap the child (blocking) and fill t->wstatus. --pid mode:
 * ask the kernel for the exit status (PIDFD_GET_INFO, Linux 6.15+); when it
 * cannot tell, status_known stays false. Call after the target exited. */
void target__collect_status(struct record_target *t);

/* Kill a launched child that must not run (setup failed) and reap it. No-op
 * in --pid mode and when it has already been reaped. */
void target__kill(struct record_target *t);

/* Close the descriptors and free the copies (the process is left alone). */
void target__free(struct record_target *t);

/* ------------------------------------------------------------------ header */

/* CLOCK_MONOTONIC, CLOCK_REALTIME and CLOCK_BOOTTIME read back to back, so that
 * monotonic event times map onto wall time. */
struct record_clocks {
	uint64_t monotonic_ns, realtime_ns, boottime_ns;
};

void record_clocks_now(struct record_clocks *c);

struct record_header_in {
	const struct record_opts *opts;
	const struct record_target *target;
	const struct collector *collectors;
	size_t n_collectors;
	/* the collector table whose settings Options records (header_options); NULL: none */
	const struct collector_ops *const *table;
	/* the clocks the capture starts at (record_clocks_now); NULL: the header's time */
	const struct record_clocks *start_at;
	uint64_t *start_monotonic_ns;  /* out: the monotonic clock in Clocks */
	uint64_t *start_realtime_ns;   /* out: the realtime clock in Clocks */
};

/* Build the CaptureHeader (host, clocks, options, target, probe set) and
 * append it through W. Returns 0 or -errno (from getrandom or the writer). */
int record_write_header(struct capture_writer *w, const struct record_header_in *in);

/* ------------------------------------------------------------------ main */

/* The whole of ptop-record. Returns the exit status. */
int record_main(int argc, char **argv);

#endif
