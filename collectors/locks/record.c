/* record.c — the locks collector's recorder side: the target's futex waits and wakes per
 * futex word (locks.bpf.c counts them in the kernel at raw_tp sys_enter/sys_exit); at the
 * end of the recording one LockWords record: every word with its waits, the time inside
 * them and its log2 histogram, its wakes and the threads woken, and each thread's waits and
 * wakes on it.
 *
 * eBPF only; a process or a cgroup. Off by default: its programs run at every syscall entry
 * and exit of the machine (bench/README.md). What did not fit its maps is a drop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collectors/locks/locks.h"
#include "collectors/locks/locks.pb-c.h"
#include "collectors/locks/locks.skel.h"
#include "proto/capture.h"
#include "proto/syscall_table.h"
#include "record/bpf_util.h"
#include "record/collector.h"

static const struct {
	const char *name;
	uint32_t kind;
} lk_kinds[] = {
	{ "futex", LK_K_FUTEX },
	{ "futex_waitv", LK_K_WAITV },
	{ "futex_wait", LK_K_WAIT2 },
	{ "futex_wake", LK_K_WAKE2 },
};

struct lk_priv {
	struct locks_bpf *skel;
	uint64_t start_ns;
};

static Ptop__V1__ProbeState lk_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	char why[256] = "";

	c->reason[0] = '\0';
	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
	if (ctx->no_ebpf) {
		snprintf(c->reason, sizeof(c->reason),
			 "--no-ebpf: futex waits and wakes are seen only by eBPF programs");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	if (bpf_util__can_trace(why, sizeof(why))) {
		snprintf(c->reason, sizeof(c->reason), "%s", why);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	if (ctx->pid <= 0 && !ctx->cgroup_dir && !ctx->caps_only) {
		snprintf(c->reason, sizeof(c->reason), "follows a process or a cgroup");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	snprintf(c->detail, sizeof(c->detail),
		 "raw_tp sys_enter, sys_exit: futex, futex_waitv, futex_wait, futex_wake per "
		 "futex word (%d words), totals read at the end; no waiter stacks", LK_WORDS);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void lk_stop(struct collector *c)
{
	struct lk_priv *p = c->priv;

	if (!p)
		return;
	locks_bpf__destroy(p->skel);
	free(p);
	c->priv = NULL;
}

static int lk_start(struct collector *c)
{
	const struct syscall_table *tab = syscall_table__native();
	struct lk_priv *p = calloc(1, sizeof(*p));
	int err, fd;

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	c->priv = p;
	bpf_util__open_log(c->ctx->verbose);
	p->skel = locks_bpf__open();
	if (!p->skel) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason), "open locks BPF", err);
		goto fail;
	}
	p->skel->rodata->targ_tgid = (__u32)(c->ctx->pid > 0 ? c->ctx->pid : 0);
	p->skel->rodata->targ_cgid = c->ctx->cgroup_id;
	p->skel->rodata->targ_cglevel = c->ctx->cgroup_level;
	err = locks_bpf__load(p->skel);
	err = err ?: bpf_util__loaded(p->skel->obj, "locks");
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason), "load locks BPF", err);
		goto fail;
	}
	fd = bpf_map__fd(p->skel->maps.lk_kind);
	for (uint32_t nr = 0; nr < LK_MAX_NR; nr++) {
		const char *name = syscall_table__name(tab, nr);

		for (size_t i = 0; name && i < sizeof(lk_kinds) / sizeof(lk_kinds[0]); i++)
			if (!strcmp(lk_kinds[i].name, name) &&
			    bpf_map_update_elem(fd, &nr, &lk_kinds[i].kind, BPF_ANY)) {
				err = -errno;
				bpf_util__format_error(c->reason, sizeof(c->reason), "fill lk_kind",
						       err);
				goto fail;
			}
	}
	err = locks_bpf__attach(p->skel);
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason),
				       "attach raw_tp sys_enter, sys_exit", err);
		goto fail;
	}
	p->start_ns = rec_now_ns();
	return 0;
fail:
	c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	lk_stop(c);
	return err ? err : -EINVAL;
}

/* Every key of the hash on FD into *KEYS (KSIZE bytes each, at most MAX); the count. */
static size_t map_keys(int fd, size_t ksize, size_t max, void *keys)
{
	char *k = keys;
	size_t n = 0;

	while (n < max && !bpf_map_get_next_key(fd, n ? k + (n - 1) * ksize : NULL, k + n * ksize))
		n++;
	return n;
}

static int emit_words(struct collector *c, struct lk_priv *p, uint64_t now_ns)
{
	int wfd = bpf_map__fd(p->skel->maps.lk_words), tfd = bpf_map__fd(p->skel->maps.lk_tids);
	Ptop__V1__LockWords msg = PTOP__V1__LOCK_WORDS__INIT;
	Ptop__V1__LockWord *words = NULL, **wp = NULL;
	Ptop__V1__LockThread *threads = NULL, **tp = NULL;
	struct lk_word_key *wk = calloc(LK_WORDS, sizeof(*wk));
	struct lk_tid_key *tk = calloc(LK_TIDS, sizeof(*tk));
	struct lk_word *wv = calloc(LK_WORDS, sizeof(*wv));
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CollectorPayload cp;
	size_t nw = 0, nt = 0, i, m;
	int err = 0;

	words = calloc(LK_WORDS, sizeof(*words));
	wp = calloc(LK_WORDS, sizeof(*wp));
	threads = calloc(LK_TIDS, sizeof(*threads));
	tp = calloc(LK_TIDS, sizeof(*tp));
	if (!wk || !tk || !wv || !words || !wp || !threads || !tp) {
		err = -ENOMEM;
		goto out;
	}
	m = map_keys(wfd, sizeof(*wk), LK_WORDS, wk);
	for (i = 0; i < m; i++) {
		Ptop__V1__LockWord *w = &words[nw];

		if (bpf_map_lookup_elem(wfd, &wk[i], &wv[nw]))
			continue;
		ptop__v1__lock_word__init(w);
		w->tgid = wk[i].tgid;
		w->uaddr = wk[i].uaddr;
		w->waits = wv[nw].waits;
		w->wait_ns = wv[nw].wait_ns;
		w->wait_max_ns = wv[nw].wait_max_ns;
		w->eagain = wv[nw].eagain;
		w->timeouts = wv[nw].timeouts;
		w->wakes = wv[nw].wakes;
		w->woken = wv[nw].woken;
		w->n_hist = LK_HIST;
		w->hist = (uint64_t *)wv[nw].hist; /* the same 64-bit words */
		wp[nw] = w;
		nw++;
	}
	m = map_keys(tfd, sizeof(*tk), LK_TIDS, tk);
	for (i = 0; i < m; i++) {
		Ptop__V1__LockThread *t = &threads[nt];
		struct lk_tid v;

		if (bpf_map_lookup_elem(tfd, &tk[i], &v))
			continue;
		ptop__v1__lock_thread__init(t);
		t->tgid = tk[i].tgid;
		t->uaddr = tk[i].uaddr;
		t->tid = tk[i].tid;
		t->role = tk[i].role == LK_ROLE_WAIT ? "wait" : "wake";
		t->calls = v.calls;
		t->ns = v.ns;
		tp[nt] = t;
		nt++;
	}
	msg.n_words = nw;
	msg.words = nw ? wp : NULL;
	msg.n_threads = nt;
	msg.threads = nt ? tp : NULL;
	err = capture_payload__pack(&ev, &cp, "locks", &msg.base);
	if (err)
		goto out;
	err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, now_ns,
			     now_ns > p->start_ns ? now_ns - p->start_ns : 0);
	capture_payload__release(&cp);
out:
	free(wk);
	free(tk);
	free(wv);
	free(words);
	free(wp);
	free(threads);
	free(tp);
	return err;
}

static int lk_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	static const char *const what[LK_CNT_MAX] = {
		"locks: futex calls not timed (the in-flight map was full)",
		"locks: futex calls not counted (the word map was full)",
		"locks: a thread's share not counted (the thread map was full)",
	};
	static const char *const kinds[LK_CNT_MAX] = { "map_full", "map_full", "map_full" };
	struct lk_priv *p = c->priv;
	uint64_t sum[LK_CNT_MAX] = { 0 };
	int ncpu = bpf_util__ncpus(), err = 0;
	uint64_t *vals;

	if (!p || !p->skel)
		return -EINVAL;
	if (!(flags & POLL_FINAL))
		return 0;
	err = emit_words(c, p, now_ns);
	if (err || ncpu <= 0)
		return err;
	vals = calloc((size_t)ncpu, sizeof(uint64_t));
	if (!vals)
		return -ENOMEM;
	for (uint32_t k = 0; !err && k < LK_CNT_MAX; k++)
		if (!bpf_util__percpu_sum(p->skel->maps.lk_counters, k, vals, sizeof(uint64_t),
					  &sum[k], 1))
			err = rec_emit_drop(c, kinds[k], sum[k], what[k]);
	free(vals);
	return err;
}

const struct collector_ops locks_collector = {
	.name = "locks",
	.summary = "locks: futex waits and wakes per futex word, with the threads (eBPF)",
	.off_by_default = "its programs run at every syscall entry and exit of the machine "
			  "(raw_tp sys_enter/sys_exit), as --io-files does",
	.check = lk_check,
	.start = lk_start,
	.poll = lk_poll,
	.stop = lk_stop,
};
