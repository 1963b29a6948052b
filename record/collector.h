/* collector.h — the one interface every ptop-record collector implements.
 *
 * A collector is one file record/NAME.c (with its eBPF part in bpf/NAME.bpf.c
 * and bpf/NAME.h) that defines one `const struct collector_ops NAME_collector`
 * and is listed once in record/collectors.c. The run loop (record/record.c)
 * calls, for each collector not disabled by the user:
 *
 *   check()  once, before the target runs: can it run here, from which source?
 *   start()  once, if check() said ACTIVE: load/attach BPF, open /proc files
 *   poll()   once per --interval, and once more with POLL_FINAL at the end:
 *            read the interval's data and emit records through rec_emit()
 *   stop()   once, always (also after a failed start): free everything
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
struct heap_preload;

/* What the recorder knows about the run; collectors only read it. */
struct rec_ctx {
	pid_t pid;                   /* target tgid in the root pid namespace; 0 for --caps */
	Ptop__V1__TargetMode mode;
	uint64_t interval_ns;        /* --interval */
	uint64_t vma_interval_ns;    /* --vma-interval */
	uint64_t start_ns;           /* CLOCK_MONOTONIC when recording started */
	bool no_ebpf;                /* --no-ebpf: /proc lanes only */
	bool caps_only;              /* --caps: check() only, nothing starts */
	bool verbose;                /* libbpf debug output */
	unsigned cpu_sample_hz;      /* --cpu-sample-hz: profile samples per second per CPU */
	Ptop__V1__EmbedSymbols embed_symbols; /* --embed-symbols[=debug] */
	uint64_t heap_sample_bytes;  /* --heap-sample-bytes: mean bytes between heap stacks; 0 all */
	uint32_t heap_top;           /* --heap-top: sites kept per ranking */
	uint64_t leak_age_ns;        /* --leak-age */
	bool heap_events;            /* --heap-events */
	uint32_t heap_lane;          /* --heap-lane: enum heap_lane (collectors/heap/record_preload.h) */
	/* the preload lane's shared memory and environment, made before the command
	 * forked; NULL when not prepared (--pid, heap off, --heap-lane uprobe) */
	struct heap_preload *heap_preload;
	/* --smaps-budget: the time smaps reads (which hold the target's mmap lock) may
	 * take per interval, over every collector that reads them */
	uint64_t smaps_budget_ns;
	const char *exe;             /* the launched command's executable (COMMAND mode), or NULL */
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
};

enum poll_flags {
	POLL_FIRST = 1 << 0,         /* the first poll, right after start */
	POLL_FINAL = 1 << 1,         /* the last poll, at the end of recording */
};

struct collector;

struct collector_ops {
	const char *name;            /* "cpu", "syscalls", ...: as --disable takes it */
	const char *summary;         /* one line for --help and --caps */
	/* Off unless --enable names it: what it costs the target is not the cheap
	 * default (DESIGN.md). The text says why, for the probe set and --help. */
	const char *off_by_default;
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
};

struct collector {
	const struct collector_ops *ops;
	struct rec_ctx *ctx;
	Ptop__V1__ProbeState state;
	Ptop__V1__ProbeSource source;  /* set by check() */
	char reason[512];              /* why not active; empty when active */
	char detail[512];              /* optional: attach points, lane details */
	void *priv;                    /* the collector's own state */
	uint64_t dropped;              /* total lost, as reported by rec_emit_drop */
};

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
