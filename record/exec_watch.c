/* exec_watch.c — seeing the target exec a new program (see exec_watch.h).
 *
 * The eBPF lane reads the ring buffer of bpf/exec_watch.bpf.h (in the provider's BPF
 * object: struct exec_feed, whose maps it finds by name and keeps its own descriptors
 * and mappings of); each event is one exec, and
 * with HOLD the program is stopped until exec_watch__continue(). The /proc lane, and
 * the eBPF lane when its ring buffer had no room for an event, compare the identity
 * (device and inode) of /proc/PID/exe with the last one seen.
 *
 * A held program must not outlive the recorder stopped: with HOLD, a guard process is
 * forked when the watch opens (before the command runs), in its own session (a kill of
 * the recorder's process group spares it), spared by the OOM killer when it may be
 * (oom_score_adj -1000 needs CAP_SYS_RESOURCE; else it is a few MB resident against the
 * recorder's tens). It keeps
 * nothing of the recorder but a pidfd of it, a pidfd of the target and the mapping of
 * ew_state (bpf/exec_watch.h), where hold_seq counts the holds and release_seq is the last
 * hold the recorder continued. When the recorder dies, whatever kills it, its BPF
 * program is detached with its files; the guard waits for a program still running to
 * end (an RCU grace period) and sends SIGCONT through the pidfd only when a hold is open
 * (hold_seq > release_seq): never to a process ptop did not stop (a user's SIGSTOP
 * outside a hold stays), nor to a pid reused by another process.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/membarrier.h>
#include <linux/types.h>

#include <bpf/libbpf.h>

#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/exec_watch.h"
#include "bpf/exec_watch.h"

#define EW_QUEUE 32

struct exec_watch {
	pid_t pid;
	unsigned flags;
	struct exec_feed feed;	/* the provider's (its release is due at free) */
	int state_fd, events_fd;	/* our own descriptors of its maps */
	struct exec_watch_state *st;	/* ew_state, mapped; NULL in the /proc lane */
	struct ring_buffer *rb;
	struct exec_watch_event q[EW_QUEUE];
	unsigned nq;
	uint64_t overflow;	/* events the queue had no room for */
	uint64_t seen_lost;	/* the kernel side's lost + send_failed, last read */
	bool launch_pending;	/* the next event is the command's own exec */
	bool held;
	uint64_t held_seq;	/* the hold's number, when held */
	pid_t guard;		/* the guard process (HOLD), or 0 */
	bool have_id;
	dev_t dev;
	ino_t ino;
	uint64_t count;
	char how[256];
};

static int on_event(void *arg, void *data, size_t size)
{
	struct exec_watch *w = arg;

	if (size < sizeof(struct exec_watch_event))
		return 0;
	if (w->nq == EW_QUEUE) {
		w->overflow++;
		return 0;
	}
	memcpy(&w->q[w->nq++], data, sizeof(struct exec_watch_event));
	return 0;
}

/* The identity of PATH (or of /proc/PID/exe when PATH is NULL). */
static int identity(const struct exec_watch *w, const char *path, dev_t *dev, ino_t *ino)
{
	char buf[64];
	struct stat st;

	if (!path) {
		snprintf(buf, sizeof(buf), "/proc/%d/exe", (int)w->pid);
		path = buf;
	}
	if (stat(path, &st))
		return -errno;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

static void remember_exe(struct exec_watch *w)
{
	w->have_id = identity(w, NULL, &w->dev, &w->ino) == 0;
}

/* A descriptor of OBJ's map NAME of its own (dup): it outlives the provider's object. */
static int map_dup(struct bpf_object *obj, const char *name, char *why, size_t wlen)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);
	int fd = m ? bpf_map__fd(m) : -1;

	if (fd < 0) {
		snprintf(why, wlen, "the exec feed's object has no loaded map %s", name);
		return -ENOENT;
	}
	fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0) {
		int err = -errno;

		bpf_util__format_error(why, wlen, "dup the exec feed's map", err);
		return err;
	}
	return fd;
}

static int open_bpf(struct exec_watch *w, char *why, size_t wlen)
{
	int err;

	if (!w->feed.obj) {
		snprintf(why, wlen, "%s", w->feed.why[0] ? w->feed.why : "no eBPF exec feed");
		return -EOPNOTSUPP;
	}
	w->state_fd = map_dup(w->feed.obj, EXEC_WATCH_STATE_MAP, why, wlen);
	if (w->state_fd < 0)
		return w->state_fd;
	w->events_fd = map_dup(w->feed.obj, EXEC_WATCH_EVENTS_MAP, why, wlen);
	if (w->events_fd < 0)
		return w->events_fd;
	w->st = mmap(NULL, sizeof(*w->st), PROT_READ | PROT_WRITE, MAP_SHARED, w->state_fd, 0);
	if (w->st == MAP_FAILED) {
		err = -errno;
		w->st = NULL;
		bpf_util__format_error(why, wlen, "map the exec watch's state", err);
		return err;
	}
	w->rb = ring_buffer__new(w->events_fd, on_event, w, NULL);
	if (!w->rb) {
		err = -errno;
		bpf_util__format_error(why, wlen, "open the exec watch ring buffer", err);
		return err;
	}
	/* from here the program reports the target's execs (and holds them) */
	w->st->hold = !!(w->flags & EXEC_WATCH_HOLD);
	__atomic_store_n(&w->st->tgid, (__u32)w->pid, __ATOMIC_RELEASE);
	return 0;
}

/* Stop watching: the program reports and holds nothing from the end of a grace period
 * (a run of it that had read the old tgid may still hold the target until then). */
static void unwatch(struct exec_watch *w)
{
	struct timespec nap = { 0, 100000000L };

	if (!w->st || !w->st->tgid)
		return;
	__atomic_store_n(&w->st->tgid, 0, __ATOMIC_RELEASE);
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) != 0)
		nanosleep(&nap, NULL);
}

/* Undo open_bpf. */
static void close_bpf(struct exec_watch *w)
{
	unwatch(w);
	ring_buffer__free(w->rb);
	w->rb = NULL;
	if (w->st)
		munmap(w->st, sizeof(*w->st));
	w->st = NULL;
	if (w->events_fd >= 0)
		close(w->events_fd);
	if (w->state_fd >= 0)
		close(w->state_fd);
	w->events_fd = w->state_fd = -1;
}

static void release_feed(struct exec_watch *w)
{
	if (w->feed.release)
		w->feed.release(w->feed.arg);
	w->feed.release = NULL;
	w->feed.obj = NULL;
}

/* ------------------------------------------------------------------ the guard */

static int sys_pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* Close every fd but A and B (A < B). */
static void close_all_but(int a, int b)
{
	if (a > 0)
		syscall(SYS_close_range, 0U, (unsigned)a - 1, 0U);
	if (b > a + 1)
		syscall(SYS_close_range, (unsigned)a + 1, (unsigned)b - 1, 0U);
	syscall(SYS_close_range, (unsigned)b + 1, ~0U, 0U);
}

/* The guard, in the forked child: only async-signal-safe calls (the recorder may have
 * threads). Never returns. */
static void guard_main(int rec_fd, int tgt_fd, const volatile __u64 *hold,
		       const volatile __u64 *release)
{
	struct timespec nap = { 0, 100000000L };
	struct pollfd pfd[2];
	sigset_t none;
	int fd;

	/* the recorder blocks SIGINT and SIGTERM for its signalfd: the guard takes them
	 * again, so that `kill ptop-guard` ends it as it ends any process */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	prctl(PR_SET_NAME, "ptop-guard", 0, 0, 0);	/* what ps shows */
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "-1000", 5) < 0) {
			/* no CAP_SYS_RESOURCE: the default score, by its small size */
		}
		close(fd);
	}
	/* nothing of the recorder stays open here: its BPF links above all, which must
	 * go with it */
	close_all_but(rec_fd < tgt_fd ? rec_fd : tgt_fd, rec_fd < tgt_fd ? tgt_fd : rec_fd);
	for (;;) {
		pfd[0].fd = rec_fd;
		pfd[0].events = POLLIN;
		pfd[0].revents = 0;
		pfd[1].fd = tgt_fd;
		pfd[1].events = POLLIN;
		pfd[1].revents = 0;
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		if (pfd[1].revents)
			_exit(0);	/* the target is gone: nothing to release */
		if (pfd[0].revents)
			break;
	}
	/* the recorder is gone and its BPF program detached; a run of it that had begun
	 * may still hold the target: wait an RCU grace period (else a while) */
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) != 0)
		nanosleep(&nap, NULL);
	if (*hold > *release)
		syscall(SYS_pidfd_send_signal, tgt_fd, SIGCONT, NULL, 0);
	_exit(0);
}

/* Fork the guard (see the top of this file). 0, or -errno with WHY. */
static int start_guard(struct exec_watch *w, char *why, size_t wlen)
{
	int rec_fd = -1, tgt_fd = -1, err = 0;
	pid_t pid;

	rec_fd = sys_pidfd_open(getpid());
	tgt_fd = rec_fd >= 0 ? sys_pidfd_open(w->pid) : -1;
	if (rec_fd < 0 || tgt_fd < 0) {
		err = -errno;
		snprintf(why, wlen, "pidfd_open: %s", strerror(-err));
		goto cleanup;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		snprintf(why, wlen, "fork: %s", strerror(-err));
		goto cleanup;
	}
	if (pid == 0)
		guard_main(rec_fd, tgt_fd, &w->st->hold_seq, &w->st->release_seq);
	w->guard = pid;
cleanup:
	if (rec_fd >= 0)
		close(rec_fd);
	if (tgt_fd >= 0)
		close(tgt_fd);
	return err;
}

/* The guard's work is done: end it (it ends by itself when the recorder exits). */
static void stop_guard(struct exec_watch *w)
{
	if (w->guard <= 0)
		return;
	kill(w->guard, SIGKILL);	/* our child, not yet waited for: the pid is its own */
	while (waitpid(w->guard, NULL, 0) < 0 && errno == EINTR)
		;
	w->guard = 0;
}

/* The recorder continued the hold SEQ (and every one before). */
static void note_release(struct exec_watch *w, uint64_t seq)
{
	if (w->st && seq > w->st->release_seq)
		__atomic_store_n(&w->st->release_seq, seq, __ATOMIC_RELEASE);
}

int exec_watch__open(pid_t pid, const char *exe, unsigned flags, struct exec_feed *feed,
		     struct exec_watch **out, char *why, size_t wlen)
{
	struct exec_watch *w;
	char bwhy[200] = "", gwhy[120] = "";
	int err = -EOPNOTSUPP;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		if (feed && feed->release)
			feed->release(feed->arg);
		snprintf(why, wlen, "out of memory");
		return -ENOMEM;
	}
	w->state_fd = w->events_fd = -1;
	if (feed)
		w->feed = *feed;
	w->pid = pid;
	w->flags = flags;
	w->launch_pending = flags & EXEC_WATCH_LAUNCH;
	w->have_id = identity(w, exe, &w->dev, &w->ino) == 0;
	if (flags & EXEC_WATCH_BPF) {
		err = open_bpf(w, bwhy, sizeof(bwhy));
		if (err) {
			close_bpf(w);
			release_feed(w);
		}
	} else {
		release_feed(w);
		snprintf(bwhy, sizeof(bwhy), "--no-ebpf");
	}
	if (!err && (flags & EXEC_WATCH_HOLD) && start_guard(w, gwhy, sizeof(gwhy)))
		snprintf(w->how, sizeof(w->how),
			 "execs followed at once (sched_process_exec, %s's %s; held until "
			 "probes attach; no guard process (%.60s): a recorder killed during a "
			 "hold leaves the program stopped)",
			 w->feed.by ? w->feed.by : "?", w->feed.prog ? w->feed.prog : "?", gwhy);
	else if (!err && (flags & EXEC_WATCH_HOLD))
		snprintf(w->how, sizeof(w->how),
			 "execs followed at once (sched_process_exec, %s's %s; held until "
			 "probes attach)",
			 w->feed.by ? w->feed.by : "?", w->feed.prog ? w->feed.prog : "?");
	else if (!err)
		snprintf(w->how, sizeof(w->how),
			 "execs seen at once (sched_process_exec, %s's %s), followed at the "
			 "next interval",
			 w->feed.by ? w->feed.by : "?", w->feed.prog ? w->feed.prog : "?");
	else
		snprintf(w->how, sizeof(w->how),
			 "execs seen each interval from /proc/PID/exe, late (%.150s)", bwhy);
	*out = w;
	return 0;
}

int exec_watch__fd(const struct exec_watch *w)
{
	return w && w->rb ? ring_buffer__epoll_fd(w->rb) : -1;
}

const char *exec_watch__how(const struct exec_watch *w)
{
	return w ? w->how : "";
}

uint64_t exec_watch__count(const struct exec_watch *w)
{
	return w ? w->count : 0;
}

uint64_t exec_watch__lost(const struct exec_watch *w)
{
	if (!w || !w->st)
		return 0;
	return w->overflow + __atomic_load_n(&w->st->lost, __ATOMIC_RELAXED) +
	       __atomic_load_n(&w->st->send_failed, __ATOMIC_RELAXED);
}

static void read_exe(const struct exec_watch *w, char *exe, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)w->pid);
	n = len ? readlink(path, exe, len - 1) : -1;
	if (n < 0)
		n = 0;
	if (len)
		exe[n] = '\0';
}

/* The eBPF lane lost an event, or this is the /proc lane: has the executable changed? */
static bool exe_changed(struct exec_watch *w)
{
	uint64_t lost = exec_watch__lost(w);
	dev_t dev;
	ino_t ino;

	if (w->st) {
		if (lost == w->seen_lost)
			return false;
		w->seen_lost = lost;
	}
	if (identity(w, NULL, &dev, &ino))
		return false;	/* gone, or unreadable */
	if (w->have_id && dev == w->dev && ino == w->ino)
		return false;
	w->dev = dev;
	w->ino = ino;
	w->have_id = true;
	return true;
}

int exec_watch__next(struct exec_watch *w, char *exe, size_t len, uint64_t *time_ns)
{
	struct exec_watch_event e;

	if (!w)
		return 0;
	exec_watch__continue(w);	/* never two held at once */
	if (w->rb && !w->nq) {
		int n = ring_buffer__consume(w->rb);

		if (n < 0)
			return n;
	}
	while (w->nq) {
		e = w->q[0];
		memmove(&w->q[0], &w->q[1], --w->nq * sizeof(w->q[0]));
		w->held = e.held;
		w->held_seq = e.seq;
		if (w->launch_pending) {
			w->launch_pending = false;
			remember_exe(w);
			exec_watch__continue(w);
			continue;
		}
		w->count++;
		read_exe(w, exe, len);
		remember_exe(w);
		*time_ns = e.time_ns;
		return 1;
	}
	if (!exe_changed(w))
		return 0;
	w->launch_pending = false;
	w->count++;
	read_exe(w, exe, len);
	*time_ns = rec_now_ns();
	return 1;
}

bool exec_watch__held(const struct exec_watch *w)
{
	return w && w->held;
}

void exec_watch__continue(struct exec_watch *w)
{
	if (!w || !w->held)
		return;
	kill(w->pid, SIGCONT);
	note_release(w, w->held_seq);	/* after: a guard may continue it twice, never 0 */
	w->held = false;
}

void exec_watch__free(struct exec_watch *w)
{
	if (!w)
		return;
	exec_watch__continue(w);
	/* no new holds from here; an event not read yet may hold the program: continue it */
	unwatch(w);
	if (w->rb) {
		ring_buffer__consume(w->rb);
		while (w->nq) {
			if (w->q[--w->nq].held) {
				kill(w->pid, SIGCONT);
				note_release(w, w->q[w->nq].seq);
			}
		}
	}
	stop_guard(w);
	close_bpf(w);
	release_feed(w);
	free(w);
}
