/* exec_watch.h — seeing the target exec a new program, so that collectors whose probes
 * depend on the program (collector_ops.exec) can follow it.
 *
 * One watcher: the eBPF lane has no program of its own. Its kernel half is
 * bpf/exec_watch.bpf.h, which the run's one program on sched_process_exec calls; that
 * program belongs to the collector that provides the exec feed (collector_ops.exec_feed:
 * the recorder asks the collector list for the first that has one), whether that
 * collector records its own events in this run or not (when it does not, it loads only
 * its exec program, recording nothing of its own). The recorder core names no provider:
 * it gets a BPF object (struct exec_feed) and finds the watch's maps in it by name
 * (bpf/exec_watch.h). The probe set says which collector's program follows execs
 * (exec_watch__how).
 *
 * With eBPF the recorder learns of each exec as it happens, and
 * with HOLD (COMMAND mode: the command is the recorder's child) the new program is
 * stopped before its first instruction until exec_watch__continue(); a guard process
 * forked by exec_watch__open() continues it if the recorder dies meanwhile, whatever
 * kills it (exec_watch.c says how). Without eBPF (--no-ebpf, no provider, or one that
 * could not load) the
 * target's executable (/proc/PID/exe) is compared at each check: an exec is seen late,
 * and what the program did before is missed.
 */
#ifndef PTOP_EXEC_WATCH_H
#define PTOP_EXEC_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct exec_watch;
struct bpf_object;

/* The eBPF lane's kernel half, from its provider: a loaded BPF object whose program on
 * tp_btf/sched_process_exec is attached and calls exec_watch_on_exec()
 * (bpf/exec_watch.bpf.h). The watch takes its own references to the object's maps;
 * the program stays attached as long as the provider keeps it (the watch writes
 * tgid 0 into ew_state when it is freed: the program then reports and holds nothing). */
struct exec_feed {
	struct bpf_object *obj;      /* NULL: no eBPF lane, for the reason in WHY */
	const char *by;              /* the provider's name, for the probe set */
	const char *prog;            /* its program's name, for the probe set */
	/* called once by exec_watch__free (or by exec_watch__open when it does not use
	 * the feed) when the watch no longer needs OBJ: the provider frees what it loaded
	 * for the watch alone; NULL: nothing to free */
	void (*release)(void *arg);
	void *arg;
	char why[200];               /* with OBJ NULL: why there is no feed */
};

enum exec_watch_flags {
	EXEC_WATCH_BPF = 1 << 0,     /* try the feed's eBPF first (else /proc only) */
	EXEC_WATCH_HOLD = 1 << 1,    /* stop the new program until exec_watch__continue */
	EXEC_WATCH_LAUNCH = 1 << 2,  /* the first exec is the command's own launch: not
				      * reported (and continued at once) */
};

/* Watch PID. EXE is the program it runs now (or is launched as, with
 * EXEC_WATCH_LAUNCH): the /proc lane compares /proc/PID/exe with it. FEED (with
 * EXEC_WATCH_BPF; NULL or one without an object: the /proc lane) is the eBPF lane's
 * kernel half; its release is called by exec_watch__free, or here on failure. Returns 0
 * and *OUT, or -errno with the reason in WHY. A feed that could not be used falls back
 * to /proc and says why in exec_watch__how(). With EXEC_WATCH_HOLD, PID must be this process's
 * child not yet waited for; the guard process is forked here (call it before PID runs,
 * from the thread that will free the watch), and a guard that could not be started is
 * said in exec_watch__how(). */
int exec_watch__open(pid_t pid, const char *exe, unsigned flags, struct exec_feed *feed,
		     struct exec_watch **out, char *why, size_t wlen);

/* The fd that becomes readable when an exec may be waiting (the ring buffer's epoll
 * fd), or -1 in the /proc lane: then call exec_watch__next() each interval. */
int exec_watch__fd(const struct exec_watch *w);

/* One line for the probe details: how execs are followed. */
const char *exec_watch__how(const struct exec_watch *w);

/* The next exec not yet handled: 1 with the new program's path in EXE (LEN bytes;
 * "" when /proc/PID/exe cannot be read) and its CLOCK_MONOTONIC time in *TIME_NS; 0
 * when there is none; -errno. After a 1, call exec_watch__continue() once the
 * collectors have followed it. */
int exec_watch__next(struct exec_watch *w, char *exe, size_t len, uint64_t *time_ns);

/* Is the program of the last exec exec_watch__next() reported held (stopped until
 * exec_watch__continue)? False in the /proc lane and without HOLD. */
bool exec_watch__held(const struct exec_watch *w);

/* Let a held program run (SIGCONT). A no-op when nothing is held. */
void exec_watch__continue(struct exec_watch *w);

/* Execs seen so far (the launch not counted), and events lost (the target then ran on
 * without being held, and its exec was found from /proc instead). */
uint64_t exec_watch__count(const struct exec_watch *w);

/* Execs the eBPF lane could not report or hold (its ring buffer was full, or the
 * SIGSTOP could not be sent): found later from /proc, the new program ran meanwhile.
 * Cumulative; 0 in the /proc lane, where every exec is seen late (exec_watch__how). */
uint64_t exec_watch__lost(const struct exec_watch *w);

/* Continue a held program, stop watching (tgid 0 in ew_state, then a grace period
 * for a program run still going), end the guard (SIGKILL, waited for), release the
 * feed, free. NULL is fine. */
void exec_watch__free(struct exec_watch *w);

#endif
