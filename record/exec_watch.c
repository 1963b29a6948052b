/* exec_watch.c — seeing the target exec a new program (see exec_watch.h).
 *
 * The eBPF lane reads bpf/exec_watch.bpf.c's ring buffer; each event is one exec, and
 * with HOLD the program is stopped until exec_watch__continue(). The /proc lane, and
 * the eBPF lane when its ring buffer had no room for an event, compare the identity
 * (device and inode) of /proc/PID/exe with the last one seen.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/types.h>

#include <bpf/libbpf.h>

#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/exec_watch.h"
#include "bpf/exec_watch.h"
#include "bpf/exec_watch.skel.h"

#define EW_QUEUE 32

struct exec_watch {
	pid_t pid;
	unsigned flags;
	struct exec_watch_bpf *skel;
	struct ring_buffer *rb;
	struct exec_watch_event q[EW_QUEUE];
	unsigned nq;
	uint64_t overflow;	/* events the queue had no room for */
	uint64_t seen_lost;	/* the kernel side's lost + send_failed, last read */
	bool launch_pending;	/* the next event is the command's own exec */
	bool held;
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

static int open_bpf(struct exec_watch *w, char *why, size_t wlen)
{
	int err;

	err = bpf_util__can_trace(why, wlen);
	if (err)
		return err;
	bpf_util__open_log(w->flags & EXEC_WATCH_VERBOSE);
	w->skel = exec_watch_bpf__open();
	if (!w->skel) {
		err = -errno;
		bpf_util__format_error(why, wlen, "open the exec watch BPF", err);
		return err;
	}
	w->skel->rodata->targ_tgid = (__u32)w->pid;
	w->skel->rodata->hold = !!(w->flags & EXEC_WATCH_HOLD);
	err = exec_watch_bpf__load(w->skel);
	if (err) {
		bpf_util__format_error(why, wlen, "load the exec watch BPF", err);
		return err;
	}
	err = exec_watch_bpf__attach(w->skel);
	if (err) {
		bpf_util__format_error(why, wlen, "attach to sched_process_exec", err);
		return err;
	}
	w->rb = ring_buffer__new(bpf_map__fd(w->skel->maps.ew_events), on_event, w, NULL);
	if (!w->rb) {
		err = -errno;
		bpf_util__format_error(why, wlen, "open the exec watch ring buffer", err);
		return err;
	}
	return 0;
}

int exec_watch__open(pid_t pid, const char *exe, unsigned flags, struct exec_watch **out,
		     char *why, size_t wlen)
{
	struct exec_watch *w;
	char bwhy[200] = "";
	int err = -EOPNOTSUPP;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(why, wlen, "out of memory");
		return -ENOMEM;
	}
	w->pid = pid;
	w->flags = flags;
	w->launch_pending = flags & EXEC_WATCH_LAUNCH;
	w->have_id = identity(w, exe, &w->dev, &w->ino) == 0;
	if (flags & EXEC_WATCH_BPF) {
		err = open_bpf(w, bwhy, sizeof(bwhy));
		if (err) {
			ring_buffer__free(w->rb);
			w->rb = NULL;
			exec_watch_bpf__destroy(w->skel);
			w->skel = NULL;
		}
	} else {
		snprintf(bwhy, sizeof(bwhy), "--no-ebpf");
	}
	if (!err)
		snprintf(w->how, sizeof(w->how), "%s",
			 (flags & EXEC_WATCH_HOLD)
				 ? "execs followed at once (sched_process_exec; a new program is "
				   "held until its probes are attached)"
				 : "execs seen at once (sched_process_exec), followed at the next "
				   "interval");
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
	if (!w || !w->skel)
		return 0;
	return w->overflow + w->skel->bss->lost + w->skel->bss->send_failed;
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

	if (w->skel) {
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

void exec_watch__continue(struct exec_watch *w)
{
	if (!w || !w->held)
		return;
	kill(w->pid, SIGCONT);
	w->held = false;
}

void exec_watch__free(struct exec_watch *w)
{
	if (!w)
		return;
	exec_watch__continue(w);
	/* no new holds from here; an event not read yet may hold the program: continue it */
	if (w->skel)
		exec_watch_bpf__detach(w->skel);
	if (w->rb) {
		ring_buffer__consume(w->rb);
		while (w->nq)
			if (w->q[--w->nq].held)
				kill(w->pid, SIGCONT);
	}
	ring_buffer__free(w->rb);
	exec_watch_bpf__destroy(w->skel);
	free(w);
}
