/* record_proc.c — the lifecycle collector's /proc lane (--no-ebpf): the target's subtree
 * read each interval from /proc, and the differences from the last read as events, each
 * marked at_poll (its time is the poll's: the event came between two polls).
 *
 * A process is known by its pid and its start time (/proc/PID/stat field 22), so that a
 * pid used again is another process. Each poll visits every known process still alive
 * (not only those reachable from the target: an orphan re-parented to init is still the
 * subtree's) and the children of each of its threads (/proc/PID/task/TID/children):
 *   - a child not known is a fork, its parent as /proc says at the poll (tid unknown); if
 *     its executable or command line differ from its parent's, it has exec'd since: an
 *     exec follows, with /proc/PID/exe as the file and /proc/PID/cmdline as argv;
 *   - a known process whose executable or command line changed exec'd;
 *   - a known process gone (or a zombie) exited. Its status is unknown (the event has no
 *     status, never a 0), except for the recorder's own launched command: its parent, the
 *     recorder, reads it with waitid(WNOWAIT), leaving it for the recorder to reap.
 * A process that lived between two polls is never seen, nor are the execs of a process
 * but the last; the probe detail says so.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/types.h>

#include "collectors/lifecycle/lifecycle.h"
#include "collectors/lifecycle/record_proc.h"
#include "record/procfs.h"

struct lc_pp {
	pid_t pid, ppid;
	uint64_t start;		/* /proc/PID/stat starttime */
	char comm[64];
	char exe[PATH_MAX];	/* "" when unreadable */
	char *cmd;		/* /proc/PID/cmdline, CMDLEN bytes; NULL: empty or unreadable */
	size_t cmdlen;
	bool seen;		/* alive at this poll */
};

struct lc_proc_lane {
	struct lc_pp *p;
	size_t n, cap;
	char *buf;		/* /proc reads */
	size_t bcap;
	uint64_t untracked;	/* new processes beyond LC_PROCS, not followed */
};

static void read_exe(pid_t pid, char *exe, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, len - 1);
	exe[n > 0 ? n : 0] = '\0';
}

/* PID's exe and command line into Q (replacing them). 0 or -ENOMEM. */
static int read_cmd(struct lc_proc_lane *pl, struct lc_pp *q)
{
	size_t len = 0;

	read_exe(q->pid, q->exe, sizeof(q->exe));
	free(q->cmd);
	q->cmd = NULL;
	q->cmdlen = 0;
	if (procfs_read_file(q->pid, "cmdline", &pl->buf, &pl->bcap, &len) || !len)
		return 0;
	q->cmd = malloc(len);
	if (!q->cmd)
		return -ENOMEM;
	memcpy(q->cmd, pl->buf, len);
	q->cmdlen = len;
	return 0;
}

/* Is PID alive and the process of start time START (any when START is 0)? Its stat in
 * *ST. */
static bool alive(pid_t pid, uint64_t start, struct proc_stat *st)
{
	if (procfs_read_stat(pid, st))
		return false;
	if (st->state == 'Z' || st->state == 'X')
		return false;
	return !start || st->starttime == start;
}

static long find(const struct lc_proc_lane *pl, pid_t pid)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->p[i].pid == pid)
			return (long)i;
	return -1;
}

/* A new known process PID (stat ST); NULL when none can be added (counted) or no memory
 * (*ERR). */
static struct lc_pp *add(struct lc_proc_lane *pl, pid_t pid, const struct proc_stat *st,
			 int *err)
{
	struct lc_pp *q;

	if (pl->n >= LC_PROCS) {
		pl->untracked++;
		return NULL;
	}
	if (pl->n == pl->cap) {
		size_t nc = pl->cap ? 2 * pl->cap : 16;
		struct lc_pp *np = realloc(pl->p, nc * sizeof(*np));

		if (!np) {
			*err = -ENOMEM;
			return NULL;
		}
		pl->p = np;
		pl->cap = nc;
	}
	q = &pl->p[pl->n++];
	memset(q, 0, sizeof(*q));
	q->pid = pid;
	q->ppid = st->ppid;
	q->start = st->starttime;
	snprintf(q->comm, sizeof(q->comm), "%s", st->comm);
	q->seen = true;
	*err = read_cmd(pl, q);
	return q;
}

static void drop(struct lc_proc_lane *pl, size_t i)
{
	free(pl->p[i].cmd);
	pl->p[i] = pl->p[--pl->n];
}

/* Is Q's program not to be trusted now: no executable (exiting), or no command line yet
 * (an exec has set the new executable but not yet the new program's arguments)? */
static bool in_flux(const struct lc_pp *q)
{
	return !q->exe[0] || !q->cmdlen;
}

static bool same_cmd(const struct lc_pp *a, const struct lc_pp *b)
{
	return !strcmp(a->exe, b->exe) && a->cmdlen == b->cmdlen &&
	       (!a->cmdlen || !memcmp(a->cmd, b->cmd, a->cmdlen));
}

/* The children of every thread of PID into *KIDS (*NK of them). 0 or -ENOMEM. */
static int children(struct lc_proc_lane *pl, pid_t pid, pid_t **kids, size_t *nk,
		    size_t *ck)
{
	char dir[64], name[300];
	struct dirent *de;
	size_t len;
	DIR *d;
	int err = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "task/%s/children", de->d_name);
		if (procfs_read_file(pid, name, &pl->buf, &pl->bcap, &len))
			continue;
		for (char *s = pl->buf, *e; s < pl->buf + len; s = e) {
			long c = strtol(s, &e, 10);

			if (e == s)
				break;
			if (c <= 0)
				continue;
			if (*nk == *ck) {
				size_t nc = *ck ? 2 * *ck : 16;
				pid_t *np = realloc(*kids, nc * sizeof(*np));

				if (!np) {
					err = -ENOMEM;
					break;
				}
				*kids = np;
				*ck = nc;
			}
			(*kids)[(*nk)++] = (pid_t)c;
		}
	}
	closedir(d);
	return err;
}

static int emit_exec(struct collector *c, const struct lc_pp *q, uint64_t now)
{
	Ptop__V1__LifecycleEvent le = PTOP__V1__LIFECYCLE_EVENT__INIT;
	char *argv[LC_ARGV_MAX], args[LC_ARGS + 1];
	size_t n = q->cmdlen < LC_ARGS ? q->cmdlen : LC_ARGS, all;

	le.kind = "exec";
	le.pid = (uint32_t)q->pid;
	le.tid = (uint32_t)q->pid;
	le.comm = (char *)q->comm;
	le.filename = (char *)q->exe;
	le.at_poll = true;
	if (n)
		memcpy(args, q->cmd, n);
	args[n] = '\0';
	le.n_argv = lc_split_args(args, n, argv, LC_ARGV_MAX);
	le.argv = argv;
	/* the count /proc has: NUL-ended strings in the whole command line */
	all = 0;
	for (size_t i = 0; i < q->cmdlen; i++)
		all += q->cmd[i] == '\0';
	if (q->cmdlen && q->cmd[q->cmdlen - 1] != '\0')
		all++;
	le.argc = (uint32_t)all;
	le.argv_truncated = q->cmdlen > n || le.n_argv < all;
	return lc_emit(c, &le, now);
}

static int emit_fork(struct collector *c, const struct lc_pp *q, uint64_t now)
{
	Ptop__V1__LifecycleEvent le = PTOP__V1__LIFECYCLE_EVENT__INIT;

	le.kind = "fork";
	le.pid = (uint32_t)q->pid;
	le.ppid = (uint32_t)q->ppid;
	le.comm = (char *)q->comm;
	le.at_poll = true;
	return lc_emit(c, &le, now);
}

/* Q is gone: its exit, with the status when it is the recorder's own launched command
 * (a zombie the recorder has not reaped yet). */
static int emit_exit(struct collector *c, const struct lc_pp *q, uint64_t now)
{
	Ptop__V1__LifecycleEvent le = PTOP__V1__LIFECYCLE_EVENT__INIT;
	struct rec_ctx *ctx = c->ctx;
	siginfo_t si;

	le.kind = "exit";
	le.pid = (uint32_t)q->pid;
	le.tid = (uint32_t)q->pid;
	le.comm = (char *)q->comm;
	le.at_poll = true;
	memset(&si, 0, sizeof(si));
	if (ctx->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND && q->pid == ctx->pid &&
	    waitid(P_PID, (id_t)q->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	    si.si_pid == q->pid) {
		le.has_status = true;
		if (si.si_code == CLD_EXITED) {
			le.exit_code = si.si_status;
		} else {
			le.signal = si.si_status;
			le.core_dumped = si.si_code == CLD_DUMPED;
		}
	}
	return lc_emit(c, &le, now);
}

int lc_proc__poll(struct collector *c, struct lc_proc_lane *pl, uint64_t now)
{
	pid_t *kids = NULL;
	size_t nk = 0, ck = 0;
	struct proc_stat st;
	int err = 0;

	for (size_t i = 0; i < pl->n; i++)
		pl->p[i].seen = false;
	/* every known process still alive, and the ones found below it (appended, so that
	 * this loop visits them too) */
	for (size_t i = 0; !err && i < pl->n; i++) {
		struct lc_pp *q = &pl->p[i], was;

		if (!q->seen) {
			if (!alive(q->pid, q->start, &st))
				continue;
			q->seen = true;
			snprintf(q->comm, sizeof(q->comm), "%s", st.comm);
			was = *q; /* its program as last read: WAS owns the old command line */
			q->cmd = NULL;
			q->cmdlen = 0;
			err = read_cmd(pl, q);
			if (!err && in_flux(q)) {
				/* exiting, or in the middle of an exec: no exec yet; keep what
				 * was read (a finished exec is seen at the next poll) */
				free(q->cmd);
				*q = was;
				was.cmd = NULL;
			} else if (!err && !same_cmd(&was, q)) {
				err = emit_exec(c, q, now);
			}
			free(was.cmd);
		}
		nk = 0;
		err = err ?: children(pl, pl->p[i].pid, &kids, &nk, &ck);
		for (size_t k = 0; !err && k < nk; k++) {
			long at = find(pl, kids[k]);
			struct lc_pp *nq;

			if (!alive(kids[k], 0, &st))
				continue;
			if (at >= 0 && pl->p[at].start == st.starttime)
				continue; /* known (seen this poll or later in the loop) */
			if (at >= 0) { /* a pid used again: the old process exited */
				err = emit_exit(c, &pl->p[at], now);
				pl->p[at].start = st.starttime;
				pl->p[at].pid = -1; /* no longer findable; dropped below */
				if (err)
					break;
			}
			nq = add(pl, kids[k], &st, &err);
			if (!nq)
				continue;
			err = emit_fork(c, nq, now);
			/* it exec'd since the fork if it runs another program than its parent;
			 * one caught in the middle of an exec is left with no program known,
			 * so that the next poll sees the exec done */
			if (!err && in_flux(nq)) {
				nq->exe[0] = '\0';
				free(nq->cmd);
				nq->cmd = NULL;
				nq->cmdlen = 0;
			} else if (!err && !same_cmd(nq, &pl->p[i])) {
				err = emit_exec(c, nq, now);
			}
		}
	}
	free(kids);
	/* the known processes not alive now exited */
	for (size_t i = pl->n; !err && i-- > 0;) {
		if (pl->p[i].pid < 0) {
			drop(pl, i);
			continue;
		}
		if (pl->p[i].seen)
			continue;
		err = emit_exit(c, &pl->p[i], now);
		drop(pl, i);
	}
	return err;
}

int lc_proc__start(struct collector *c, struct lc_proc_lane **out)
{
	struct lc_proc_lane *pl = calloc(1, sizeof(*pl));
	struct proc_stat st;
	pid_t *kids = NULL;
	size_t nk = 0, ck = 0;
	int err = 0;

	*out = NULL;
	if (!pl)
		return -ENOMEM;
	if (!alive(c->ctx->pid, 0, &st)) {
		free(pl);
		return -ESRCH;
	}
	add(pl, c->ctx->pid, &st, &err);
	/* the subtree now, breadth first over the list as it grows */
	for (size_t i = 0; !err && i < pl->n; i++) {
		nk = 0;
		err = children(pl, pl->p[i].pid, &kids, &nk, &ck);
		for (size_t k = 0; !err && k < nk; k++)
			if (find(pl, kids[k]) < 0 && alive(kids[k], 0, &st))
				add(pl, kids[k], &st, &err);
	}
	free(kids);
	if (err) {
		lc_proc__free(pl);
		return err;
	}
	*out = pl;
	return 0;
}

uint64_t lc_proc__untracked(const struct lc_proc_lane *pl)
{
	return pl ? pl->untracked : 0;
}

void lc_proc__free(struct lc_proc_lane *pl)
{
	if (!pl)
		return;
	for (size_t i = 0; i < pl->n; i++)
		free(pl->p[i].cmd);
	free(pl->p);
	free(pl->buf);
	free(pl);
}
