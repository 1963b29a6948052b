/* record.c — the signals collector's recorder side: the signals sent to the target's
 * threads and taken by them (signals.bpf.c counts them in the kernel by stage, signal,
 * si_code, result, sender and receiving thread); each poll reads the counts and sends one
 * SignalCount per key that grew since the previous poll, with the signal's name and the
 * result in words, dated at the end of its reading (signals_poll).
 *
 * The eBPF lane: a process (--pid, a command) or a cgroup. The counting is exact while the
 * hash has room (SIGNALS_KEYS keys); a key that finds it full is counted as a "map_full"
 * drop. Without it (--no-ebpf, or no privilege to trace), the /proc lane for a process:
 * each interval, each thread's signal sets from /proc/PID/task/TID/status (pending for the
 * thread and the process, blocked, ignored, caught, and SigQ), sent when they changed.
 * /proc keeps no record of signals sent or taken: their counts are not measured then.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collectors/signals/names.h"
#include "collectors/signals/record.h"
#include "collectors/signals/signals.h"
#include "collectors/signals/signals.pb-c.h"
#include "collectors/signals/signals.skel.h"
#include "common/array.h"
#include "proto/capture.h"
#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/procfs.h"
#include "record/tp_target.h"

struct seen {
	struct signals_key k;
	uint64_t count; /* the cumulative count sent so far */
};

/* The /proc lane: a thread's sets as last sent. */
struct tsets {
	int32_t tid;
	bool seen; /* at this reading */
	struct signals_sets s;
};

struct signals_priv {
	struct signals_bpf *skel; /* NULL: the /proc lane */
	struct tsets *ts;	  /* the /proc lane's threads, sorted by tid */
	size_t nts, capts;
	char *buf; /* a status file's text */
	size_t bufcap;
	struct seen *seen; /* sorted by key */
	size_t n, cap;
	uint64_t prev_lost, prev_ns;
	/* PTOP_TEST_SIGNALS_READ_DELAY=MS (tests only): each reading starts MS ms after the
	 * poll's time, as when the collectors polled before this one are slow */
	long test_delay_ms;
};

/* What a signal's default action does. */
static const char *default_action(int sig)
{
	switch (sig) {
	case SIGQUIT: case SIGILL: case SIGTRAP: case SIGABRT: case SIGBUS: case SIGFPE:
	case SIGSEGV: case SIGXCPU: case SIGXFSZ: case SIGSYS:
		return "core";
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return "stop";
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
		return "default_ignored";
	default:
		return "fatal";
	}
}

static const char *result_name(const struct signals_key *k)
{
	if (k->stage == SIGNALS_DELIVER)
		switch (k->result) {
		case SIGNALS_D_HANDLER: return "handled";
		case SIGNALS_D_IGNORE: return "ignored";
		default: return default_action(k->sig);
		}
	switch (k->result) {
	case 0: return "delivered";
	case 1: return "ignored";
	case 2: return "already_pending";
	case 3: return "overflow_fail";
	case 4: return "lose_info";
	case SIGNALS_R_BLOCKED: return "blocked";
	default: return "unknown";
	}
}

int signals__parse_status(const char *text, struct signals_sets *s)
{
	static const struct {
		const char *key;
		size_t off;
	} sets[] = {
		{ "SigPnd:", offsetof(struct signals_sets, pending) },
		{ "ShdPnd:", offsetof(struct signals_sets, shared_pending) },
		{ "SigBlk:", offsetof(struct signals_sets, blocked) },
		{ "SigIgn:", offsetof(struct signals_sets, ignored) },
		{ "SigCgt:", offsetof(struct signals_sets, caught) },
	};
	unsigned found = 0;

	memset(s, 0, sizeof(*s));
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned long long a, b;
		char *end;

		if (!strncmp(l, "SigQ:", 5)) {
			if (sscanf(l + 5, " %llu/%llu", &a, &b) == 2) {
				s->queued = a;
				s->queue_limit = b;
			}
			continue;
		}
		for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
			size_t n = strlen(sets[i].key);
			const char *v = l + n;

			if (strncmp(l, sets[i].key, n))
				continue;
			while (*v == ' ' || *v == '\t')
				v++;
			a = strtoull(v, &end, 16);
			if (end == v || (*end && *end != '\n'))
				return -EINVAL;
			*(uint64_t *)((char *)s + sets[i].off) = a;
			found |= 1u << i;
		}
	}
	return found == (1u << (sizeof(sets) / sizeof(sets[0]))) - 1 ? 0 : -EINVAL;
}

static Ptop__V1__ProbeState signals_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	Ptop__V1__ProbeState state = tp_target__precheck(c, "--no-ebpf given");
	char why[sizeof(c->reason)], task[64];
	DIR *d;

	if (state == PTOP__V1__PROBE_STATE__PROBE_STATE_UNSPECIFIED) {
		collector_lane(c, "signal_tp", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
			       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", "");
		collector_lane(c, "proc_status", PTOP__V1__PROBE_STATE__PROBE_STATE_STANDBY,
			       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC, "%s",
			       "the eBPF lane counts the signals themselves (the sets from /proc "
			       "only without it)");
		snprintf(c->detail, sizeof(c->detail),
			 "tp_btf signal_generate (by receiving thread), signal_deliver, counted in "
			 "the kernel (%d keys)", SIGNALS_KEYS);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	/* the /proc lane: one process's threads' signal sets, no counts */
	snprintf(why, sizeof(why), "%s", c->reason);
	/* --no-ebpf is the user's choice (a lane disabled, not lost: --strict records) */
	collector_lane(c, "signal_tp",
		       ctx->no_ebpf ? PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED
				    : PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED,
		       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", why);
	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
	if (ctx->pid <= 0) {
		snprintf(c->reason, sizeof(c->reason),
			 "%.200s; the /proc lane (signal sets) reads one process, not a cgroup", why);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	snprintf(task, sizeof(task), "/proc/%d/task", (int)ctx->pid);
	d = opendir(task);
	if (!d) {
		snprintf(c->reason, sizeof(c->reason), "cannot list %s: %s", task, strerror(errno));
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	closedir(d);
	c->reason[0] = '\0';
	collector_lane(c, "proc_status", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
		       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC, "%s", "");
	snprintf(c->detail, sizeof(c->detail),
		 "/proc/PID/task/TID/status SigPnd, ShdPnd, SigBlk, SigIgn, SigCgt, SigQ each "
		 "interval: the threads' pending, blocked, ignored and caught signals; signals "
		 "sent and taken not measured (eBPF lane off: %.200s)", why);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void signals_stop(struct collector *c)
{
	struct signals_priv *p = c->priv;

	if (!p)
		return;
	signals_bpf__destroy(p->skel);
	free(p->seen);
	free(p->ts);
	free(p->buf);
	free(p);
	c->priv = NULL;
}

static int signals_start(struct collector *c)
{
	struct signals_priv *p = calloc(1, sizeof(*p));
	int err;

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	c->priv = p;
	if (c->source == PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC) {
		p->prev_ns = rec_now_ns();
		return 0;
	}
	bpf_util__open_log(c->ctx->verbose);
	p->skel = signals_bpf__open();
	if (!p->skel) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason), "open signals BPF", err);
		goto fail;
	}
	p->skel->rodata->targ_tgid = (__u32)(c->ctx->pid > 0 ? c->ctx->pid : 0);
	p->skel->rodata->targ_cgid = c->ctx->cgroup_id;
	p->skel->rodata->targ_cglevel = c->ctx->cgroup_level;
	err = signals_bpf__load(p->skel);
	err = err ?: bpf_util__loaded(p->skel->obj, "signals");
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason), "load signals BPF", err);
		goto fail;
	}
	if (getenv("PTOP_TEST_SIGNALS_READ_DELAY"))
		p->test_delay_ms = atol(getenv("PTOP_TEST_SIGNALS_READ_DELAY"));
	p->prev_ns = rec_now_ns(); /* before the attach: every count is after it */
	err = signals_bpf__attach(p->skel);
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason), "attach the signal tracepoints",
				       err);
		goto fail;
	}
	return 0;
fail:
	c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	signals_stop(c);
	return err ? err : -EINVAL;
}

static int key_cmp(const void *a, const void *b)
{
	return memcmp(&((const struct seen *)a)->k, &((const struct seen *)b)->k,
		      sizeof(struct signals_key));
}

static int emit(struct collector *c, const struct signals_key *k, const struct signals_val *v,
		uint64_t n, uint64_t now_ns, uint64_t interval)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__SignalCount sc = PTOP__V1__SIGNAL_COUNT__INIT;
	Ptop__V1__CollectorPayload cp;
	char name[32], comm[sizeof(v->sender_comm) + 1];
	int err;

	signals_sig_name(k->sig, name, sizeof(name));
	memcpy(comm, v->sender_comm, sizeof(v->sender_comm));
	comm[sizeof(v->sender_comm)] = '\0';
	sc.stage = k->stage == SIGNALS_DELIVER ? "deliver" : "generate";
	sc.sig = k->sig;
	sc.name = name;
	sc.code = k->code;
	sc.result = (char *)result_name(k);
	sc.sender_pid = k->sender_tgid;
	sc.sender_tid = k->sender_tid;
	sc.sender_comm = comm;
	sc.tgid = k->tgid;
	sc.tid = k->tid;
	sc.count = n;
	sc.first_ns = v->first_ns;
	sc.last_ns = v->last_ns;
	err = capture_payload__pack(&ev, &cp, "signals", &sc.base);
	if (err)
		return err;
	err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, now_ns,
			     interval);
	capture_payload__release(&cp);
	return err;
}

/* A key whose count grew at this reading, to be sent once the reading is over. */
struct grown {
	struct signals_key k;
	struct signals_val v;
	uint64_t n;
};

/* Each poll reads the kernel's counts and sends what grew, dated at the end of the
 * reading: a count read a few ms after the poll's time holds the signals up to the read,
 * so the interval it belongs to is (previous read, this read], not the poll's. Every
 * signal counted happened before the read ended (its last_ns is at most time_ns) and
 * after the previous read began; one bumped while the hash was being walked is in this
 * reading or the next, never in both. */
static int tsets_cmp(const void *a, const void *b)
{
	const struct tsets *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int emit_sets(struct collector *c, int32_t tid, const struct signals_sets *s, bool gone,
		     uint64_t at_ns, uint64_t interval)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__SignalSets m = PTOP__V1__SIGNAL_SETS__INIT;
	Ptop__V1__CollectorPayload cp;
	int err;

	m.tgid = (uint32_t)c->ctx->pid;
	m.tid = (uint32_t)tid;
	m.pending = s->pending;
	m.shared_pending = s->shared_pending;
	m.blocked = s->blocked;
	m.ignored = s->ignored;
	m.caught = s->caught;
	m.queued = s->queued;
	m.queue_limit = s->queue_limit;
	m.gone = gone;
	err = capture_payload__pack(&ev, &cp, "signals", &m.base);
	if (err)
		return err;
	err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, at_ns,
			     interval);
	capture_payload__release(&cp);
	return err;
}

/* The /proc lane's reading: each thread's sets from its status file; a thread new or whose
 * sets changed is sent, one no longer listed is sent gone (and forgotten); all dated at
 * the end of the reading. */
static int proc_poll(struct collector *c, struct signals_priv *p)
{
	struct {
		int32_t tid;
		bool gone;
		struct signals_sets s;
	} *ch = NULL;
	size_t nch = 0, capch = 0, had = p->nts, len;
	uint64_t unreadable = 0, read_ns, interval;
	char dir[64], name[64];
	struct dirent *de;
	DIR *d;
	int err = 0;

	for (size_t i = 0; i < p->nts; i++)
		p->ts[i].seen = false;
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)c->ctx->pid);
	d = opendir(dir); /* NULL: the process is gone, and its threads with it */
	while (d && !err && (de = readdir(d))) {
		struct tsets key = { .tid = atoi(de->d_name) }, *t;
		struct signals_sets s;
		int rc;

		if (key.tid <= 0)
			continue;
		snprintf(name, sizeof(name), "task/%d/status", (int)key.tid);
		rc = procfs_read_file(c->ctx->pid, name, &p->buf, &p->bufcap, &len);
		if (!rc && signals__parse_status(p->buf, &s))
			rc = -EINVAL;
		if (rc) {
			if (rc != -ENOENT && rc != -ESRCH)
				unreadable++;
			continue; /* a thread gone between the listing and the read */
		}
		t = had ? bsearch(&key, p->ts, had, sizeof(key), tsets_cmp) : NULL;
		for (size_t i = had; !t && i < p->nts; i++)
			if (p->ts[i].tid == key.tid)
				t = &p->ts[i];
		if (!t || memcmp(&t->s, &s, offsetof(struct signals_sets, queued))) {
			err = array__grow((void **)&ch, &capch, nch, sizeof(*ch));
			if (err)
				break;
			ch[nch].tid = key.tid;
			ch[nch].gone = false;
			ch[nch++].s = s;
		}
		if (!t) {
			err = array__grow((void **)&p->ts, &p->capts, p->nts, sizeof(*p->ts));
			if (err)
				break;
			t = &p->ts[p->nts++];
			t->tid = key.tid;
		}
		t->s = s;
		t->seen = true;
	}
	if (d)
		closedir(d);
	/* the threads not listed are gone: sent once, then forgotten */
	for (size_t i = 0; !err && i < p->nts; i++)
		if (!p->ts[i].seen) {
			err = array__grow((void **)&ch, &capch, nch, sizeof(*ch));
			if (err)
				break;
			memset(&ch[nch], 0, sizeof(ch[nch]));
			ch[nch].tid = p->ts[i].tid;
			ch[nch++].gone = true;
			p->ts[i] = p->ts[--p->nts];
			i--;
		}
	if (p->nts > 1)
		qsort(p->ts, p->nts, sizeof(*p->ts), tsets_cmp);
	read_ns = rec_now_ns(); /* the reading is over: the sets are as they were before it */
	interval = read_ns > p->prev_ns ? read_ns - p->prev_ns : 0;
	for (size_t i = 0; !err && i < nch; i++)
		err = emit_sets(c, ch[i].tid, &ch[i].s, ch[i].gone, read_ns, interval);
	free(ch);
	if (!err && unreadable)
		err = rec_emit_drop(c, "proc_unreadable", unreadable,
				    "signals: a thread's /proc status could not be read");
	p->prev_ns = read_ns;
	return err;
}

static int signals_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct signals_priv *p = c->priv;
	struct signals_key k, next, *cur = NULL;
	struct grown *g = NULL;
	size_t had, ng = 0, gcap = 0;
	uint64_t read_ns, interval, lost;
	int fd, err = 0;

	(void)flags;
	(void)now_ns;
	if (p && !p->skel)
		return proc_poll(c, p);
	if (!p)
		return -EINVAL;
	if (p->test_delay_ms > 0) {
		struct timespec d = { p->test_delay_ms / 1000, (p->test_delay_ms % 1000) * 1000000L };

		nanosleep(&d, NULL);
	}
	fd = bpf_map__fd(p->skel->maps.signals_counts);
	had = p->n;
	while (!err && !bpf_map_get_next_key(fd, cur, &next)) {
		struct signals_val v;
		struct seen key = { .k = next }, *s;

		k = next;
		cur = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;
		s = had ? bsearch(&key, p->seen, had, sizeof(*s), key_cmp) : NULL;
		if (!s) { /* a new key: kept unsorted after the others until the end */
			for (size_t i = had; i < p->n && !s; i++)
				if (!memcmp(&p->seen[i].k, &k, sizeof(k)))
					s = &p->seen[i];
		}
		if (!s) {
			if (p->n == p->cap) {
				size_t nc = p->cap ? 2 * p->cap : 64;
				struct seen *ns = realloc(p->seen, nc * sizeof(*ns));

				if (!ns) {
					err = -ENOMEM; /* the new keys are sorted in below */
					break;
				}
				p->seen = ns;
				p->cap = nc;
			}
			s = &p->seen[p->n++];
			s->k = k;
			s->count = 0;
		}
		if (v.count > s->count) {
			if (ng == gcap) {
				size_t nc = gcap ? 2 * gcap : 16;
				struct grown *ngr = realloc(g, nc * sizeof(*ngr));

				if (!ngr) {
					err = -ENOMEM;
					break;
				}
				g = ngr;
				gcap = nc;
			}
			g[ng].k = k;
			g[ng].v = v;
			g[ng++].n = v.count - s->count;
			s->count = v.count;
		}
	}
	read_ns = rec_now_ns(); /* the reading is over: every count above is before it */
	interval = read_ns > p->prev_ns ? read_ns - p->prev_ns : 0;
	for (size_t i = 0; !err && i < ng; i++)
		err = emit(c, &g[i].k, &g[i].v, g[i].n, read_ns, interval);
	free(g);
	if (p->n > had)
		qsort(p->seen, p->n, sizeof(*p->seen), key_cmp);
	lost = __atomic_load_n(&p->skel->bss->signals_lost, __ATOMIC_RELAXED);
	if (!err && lost > p->prev_lost)
		err = rec_emit_drop(c, "map_full", lost - p->prev_lost,
				    "signals: the count hash was full; those signals not counted");
	p->prev_lost = lost;
	p->prev_ns = read_ns;
	return err;
}

const struct collector_ops signals_collector = {
	.name = "signals",
	.summary = "signals: each signal sent to the target's threads and taken by them, with "
		   "sender, si_code and result (eBPF); without eBPF the threads' pending, "
		   "blocked, ignored and caught sets (/proc)",
	.check = signals_check,
	.start = signals_start,
	.poll = signals_poll,
	.stop = signals_stop,
};
