/* record.c — the signals collector's recorder side: the signals sent to the target's
 * threads and taken by them (signals.bpf.c counts them in the kernel by stage, signal,
 * si_code, result, sender and receiving thread); each poll reads the counts and sends one
 * SignalCount per key that grew since the previous poll, with the signal's name and the
 * result in words, dated at the end of its reading (signals_poll).
 *
 * eBPF only (the kernel keeps no record of signals in /proc); a process (--pid, a command)
 * or a cgroup. The counting is exact while the hash has room (SIGNALS_KEYS keys); a key
 * that finds it full is counted as a "map_full" drop.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collectors/signals/signals.h"
#include "collectors/signals/signals.pb-c.h"
#include "collectors/signals/signals.skel.h"
#include "proto/capture.h"
#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/tp_target.h"

struct seen {
	struct signals_key k;
	uint64_t count; /* the cumulative count sent so far */
};

struct signals_priv {
	struct signals_bpf *skel;
	struct seen *seen; /* sorted by key */
	size_t n, cap;
	uint64_t prev_lost, prev_ns;
	/* PTOP_TEST_SIGNALS_READ_DELAY=MS (tests only): each reading starts MS ms after the
	 * poll's time, as when the collectors polled before this one are slow */
	long test_delay_ms;
};

/* NAME of signal SIG as the libc spells it ("SIGUSR1"; "SIGRTMIN+3"). */
static void sig_name(int sig, char *buf, size_t len)
{
	const char *a = sig > 0 && sig < SIGRTMIN ? sigabbrev_np(sig) : NULL;

	if (a)
		snprintf(buf, len, "SIG%s", a);
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, len, sig == SIGRTMIN ? "SIGRTMIN" : "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, len, "SIG%d", sig);
}

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

static Ptop__V1__ProbeState signals_check(struct collector *c)
{
	Ptop__V1__ProbeState state = tp_target__precheck(
		c, "--no-ebpf: signals are seen only by the eBPF signal tracepoints");

	if (state != PTOP__V1__PROBE_STATE__PROBE_STATE_UNSPECIFIED)
		return state;
	snprintf(c->detail, sizeof(c->detail),
		 "tp_btf signal_generate (by receiving thread), signal_deliver, counted in the "
		 "kernel (%d keys)", SIGNALS_KEYS);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void signals_stop(struct collector *c)
{
	struct signals_priv *p = c->priv;

	if (!p)
		return;
	signals_bpf__destroy(p->skel);
	free(p->seen);
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

	sig_name(k->sig, name, sizeof(name));
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
	if (!p || !p->skel)
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
		   "sender, si_code and result (eBPF)",
	.check = signals_check,
	.start = signals_start,
	.poll = signals_poll,
	.stop = signals_stop,
};
