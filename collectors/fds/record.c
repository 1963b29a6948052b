/* record.c — the fds collector's recorder side: every --interval, the target's fd table by
 * type from /proc/PID/fd (a listing and one readlink per fd: no lock of the target's is
 * held, it costs the recorder, not the target), as one FdSample; at the end, the table itself
 * (each fd with what it refers to) as one FdTable.
 *
 * The /proc lane runs with and without eBPF: reading another process's fd directory needs
 * the right to ptrace it (same user, or CAP_SYS_PTRACE), which check() tries.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/fds/fds.pb-c.h"
#include "collectors/fds/record.h"
#include "proto/capture.h"
#include "record/collector.h"
#include "record/procfs.h"

static const char *const type_names[FD_TYPES] = {
	[FD_FILE] = "file",	    [FD_SOCKET] = "socket",	[FD_PIPE] = "pipe",
	[FD_EVENTFD] = "eventfd",   [FD_EPOLL] = "epoll",	[FD_TIMERFD] = "timerfd",
	[FD_SIGNALFD] = "signalfd", [FD_ANON_INODE] = "anon_inode", [FD_OTHER] = "other",
};

const char *fds__type_name(enum fd_type t)
{
	return (unsigned)t < FD_TYPES ? type_names[t] : "other";
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

enum fd_type fds__classify(const char *link)
{
	if (link[0] == '/')
		return FD_FILE;
	if (starts(link, "socket:["))
		return FD_SOCKET;
	if (starts(link, "pipe:["))
		return FD_PIPE;
	if (!starts(link, "anon_inode:"))
		return FD_OTHER;
	link += strlen("anon_inode:");
	if (!strcmp(link, "[eventfd]"))
		return FD_EVENTFD;
	if (!strcmp(link, "[eventpoll]"))
		return FD_EPOLL;
	if (!strcmp(link, "[timerfd]"))
		return FD_TIMERFD;
	if (!strcmp(link, "[signalfd]"))
		return FD_SIGNALFD;
	return FD_ANON_INODE;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct fd_ent *x = a, *y = b;

	return (x->fd > y->fd) - (x->fd < y->fd);
}

int fds__scan(const char *dir, bool want_table, struct fd_scan *s)
{
	char link[FDS_TARGET_MAX];
	struct dirent *de;
	DIR *d;
	int dfd, err = 0;

	s->total = 0;
	memset(s->count, 0, sizeof(s->count));
	s->nents = 0;
	s->truncated = false;
	d = opendir(dir);
	if (!d)
		return -errno;
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		enum fd_type t;
		ssize_t n;
		char *end;
		long fd;

		if (de->d_name[0] == '.')
			continue;
		fd = strtol(de->d_name, &end, 10);
		if (*end || fd < 0)
			continue;
		n = readlinkat(dfd, de->d_name, link, sizeof(link) - 1);
		if (n < 0) /* closed since the listing: not open, not counted */
			continue;
		link[n] = '\0';
		t = fds__classify(link);
		s->total++;
		s->count[t]++;
		if (!want_table)
			continue;
		if (s->nents == FDS_TABLE_MAX) {
			s->truncated = true;
			continue;
		}
		if (s->nents == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 64;
			struct fd_ent *e = realloc(s->ents, cap * sizeof(*e));

			if (!e) {
				err = -ENOMEM;
				break;
			}
			s->ents = e;
			s->cap = cap;
		}
		s->ents[s->nents].fd = (int)fd;
		s->ents[s->nents].type = t;
		memcpy(s->ents[s->nents].target, link, (size_t)n + 1);
		s->nents++;
	}
	closedir(d);
	if (!err && want_table && s->nents > 1)
		qsort(s->ents, s->nents, sizeof(*s->ents), ent_cmp);
	return err;
}

/* ------------------------------------------------------------------ collector */

struct fds_priv {
	char dir[64];		/* /proc/PID/fd */
	struct fd_scan scan;	/* the last read, its table kept for the end */
	struct fd_scan next;	/* the read in progress: becomes scan when it succeeds */
	uint64_t scan_ns;	/* when it was read; 0: never */
	uint64_t prev_ns;	/* the previous poll */
	bool table_sent;
};

static Ptop__V1__ProbeState fds_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	char dir[64];
	DIR *d;

	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
	c->reason[0] = '\0';
	if (ctx->caps_only) {
		snprintf(c->detail, sizeof(c->detail),
			 "/proc/PID/fd (the target's user, or CAP_SYS_PTRACE)");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	if (ctx->pid <= 0) {
		snprintf(c->reason, sizeof(c->reason),
			 "the fd table is one process's: use --pid or a command, not --cgroup");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)ctx->pid);
	d = opendir(dir); /* a read: it changes nothing */
	if (!d) {
		int e = errno;

		snprintf(c->reason, sizeof(c->reason), "cannot read %s: %s%s", dir, strerror(e),
			 e == EACCES ? " (another user's process: run as its user or as root)"
				     : "");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	closedir(d);
	snprintf(c->detail, sizeof(c->detail), "%s: one readlink per fd each interval", dir);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static int fds_start(struct collector *c)
{
	struct fds_priv *p = calloc(1, sizeof(*p));

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	snprintf(p->dir, sizeof(p->dir), "/proc/%d/fd", (int)c->ctx->pid);
	p->prev_ns = rec_now_ns();
	c->priv = p;
	return 0;
}

static int emit(struct collector *c, const ProtobufCMessage *msg, uint64_t t, uint64_t iv)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CollectorPayload cp;
	int err;

	err = capture_payload__pack(&ev, &cp, "fds", msg);
	if (err)
		return err;
	err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, t, iv);
	capture_payload__release(&cp);
	return err;
}

/* The table of the last read, once: at the final poll. */
static int emit_table(struct collector *c, struct fds_priv *p)
{
	Ptop__V1__FdTable tab = PTOP__V1__FD_TABLE__INIT;
	Ptop__V1__FdEntry *ents = NULL, **ptrs = NULL;
	size_t i, n = p->scan.nents;
	int err;

	if (p->table_sent || !p->scan_ns)
		return 0;
	p->table_sent = true;
	if (n && (!(ents = calloc(n, sizeof(*ents))) || !(ptrs = calloc(n, sizeof(*ptrs))))) {
		free(ents);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		ptop__v1__fd_entry__init(&ents[i]);
		ents[i].fd = p->scan.ents[i].fd;
		ents[i].type = (char *)fds__type_name(p->scan.ents[i].type);
		ents[i].target = p->scan.ents[i].target;
		ptrs[i] = &ents[i];
	}
	tab.n_entries = n;
	tab.entries = ptrs;
	tab.truncated = p->scan.truncated;
	err = emit(c, &tab.base, p->scan_ns, 0);
	free(ptrs);
	free(ents);
	return err;
}

static int fds_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct fds_priv *p = c->priv;
	Ptop__V1__FdSample fs = PTOP__V1__FD_SAMPLE__INIT;
	uint64_t interval;
	int err;

	if (!p)
		return -EINVAL;
	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	p->prev_ns = now_ns;
	/* the table is kept from every read (cheap beside the readlinks) so the end has it
	 * even when the target is gone by the final poll */
	err = fds__scan(p->dir, true, &p->next);
	if (!err && !p->next.total) { /* a zombie's fd directory is empty: not a measurement */
		struct proc_stat st;
		int e = procfs_read_stat(c->ctx->pid, &st);

		if (e || st.state == 'Z' || st.state == 'X')
			err = e ?: -ESRCH;
	}
	if (!err) {
		struct fd_scan tmp = p->scan;

		p->scan = p->next;
		p->next = tmp;
	}
	if (err == -ENOMEM)
		return err;
	if (err && procfs_is_gone(c->ctx->pid, err))
		return (flags & POLL_FINAL) ? emit_table(c, p) : 0;
	if (err) { /* not measured: counted, not sent as 0 */
		err = rec_emit_drop(c, "proc_unreadable", 1, "fd");
		return err ?: ((flags & POLL_FINAL) ? emit_table(c, p) : 0);
	}
	p->scan_ns = now_ns;
	fs.total = p->scan.total;
	fs.file = p->scan.count[FD_FILE];
	fs.socket = p->scan.count[FD_SOCKET];
	fs.pipe = p->scan.count[FD_PIPE];
	fs.eventfd = p->scan.count[FD_EVENTFD];
	fs.epoll = p->scan.count[FD_EPOLL];
	fs.timerfd = p->scan.count[FD_TIMERFD];
	fs.signalfd = p->scan.count[FD_SIGNALFD];
	fs.anon_inode = p->scan.count[FD_ANON_INODE];
	fs.other = p->scan.count[FD_OTHER];
	err = emit(c, &fs.base, now_ns, interval);
	if (!err && (flags & POLL_FINAL))
		err = emit_table(c, p);
	return err;
}

static void fds_stop(struct collector *c)
{
	struct fds_priv *p = c->priv;

	if (!p)
		return;
	free(p->scan.ents);
	free(p->next.ents);
	free(p);
	c->priv = NULL;
}

const struct collector_ops fds_collector = {
	.name = "fds",
	.summary = "fds: the target's open fds by type per interval, and the table at the end "
		   "(/proc/PID/fd)",
	.check = fds_check,
	.start = fds_start,
	.poll = fds_poll,
	.stop = fds_stop,
};
