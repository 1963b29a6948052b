/* record.c — the locks collector's recorder side: the target's futex waits and wakes per
 * futex word (locks.bpf.c counts them in the kernel at raw_tp sys_enter/sys_exit); at each
 * poll one LockWords record of what grew in the interval: each word with its waits, the
 * time inside them, the longest, and its log2 histogram, its wakes and the threads woken,
 * each thread's waits and wakes on it, and each waiting call site (the word and the waiter's user stack, written
 * as a Stack record: under --user-stacks auto and dwarf a copy of the stack's top unwound
 * offline, which names pthread_mutex_lock's caller through glibc's lock code (built
 * without frame pointers); under --user-stacks fp a frame-pointer walk, which skips it).
 *
 * eBPF only; a process or a cgroup. Off by default: its programs run at every syscall entry
 * and exit of the machine (bench/README.md). The maps are bounded (LK_WORDS words, LK_TIDS
 * shares, LK_SITES sites, kept while the recording lasts): a call that finds its map full
 * is a "map_full" drop, sent in the interval it happened in, with what it lost.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/stack_table.h" /* the capture's stack table, stackmap__read */
#include "collectors/locks/locks.h"
#include "collectors/locks/locks.pb-c.h"
#include "bpf/stackcopy.h" /* struct sc_vmas, in the skeleton */
#include "common/array.h"
#include "common/hash.h"
#include "common/hindex.h"
#include "collectors/locks/locks.skel.h"
#include "proto/capture.h"
#include "proto/syscall_table.h"
#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/kfeature.h"
#include "record/stackcopy.h"
#include "record/tp_target.h"

static const struct {
	const char *name;
	uint32_t kind;
} lk_kinds[] = {
	{ "futex", LK_K_FUTEX },
	{ "futex_waitv", LK_K_WAITV },
	{ "futex_wait", LK_K_WAIT2 },
	{ "futex_wake", LK_K_WAKE2 },
};

/* How the waiters' stacks are taken this run, decided by lk_check. */
static struct {
	enum user_stacks mode; /* FP or DWARF */
	char why[240];
} lk_stacks;

/* The cumulative values last sent, by map key (KSIZE bytes, then the value: ESIZE in
 * all): each reading sends what grew. Keys stay while the recording lasts: as many as
 * the kernel's maps hold. */
struct lk_prev {
	size_t ksize, esize;
	unsigned char *e;
	size_t n, cap;
	struct hindex x;
};

/* A reading's buffers, made once at the start: the maps' keys and values, the messages. */
struct lk_buf {
	struct lk_word_key *wk;
	struct lk_tid_key *tk;
	struct lk_site_key *sk;
	struct lk_word *wv;
	struct lk_tid *tv;
	struct lk_site *sv;
	Ptop__V1__LockWord *words, **wp;
	uint64_t *hist; /* LK_HIST per word */
	Ptop__V1__LockThread *threads, **tp;
	Ptop__V1__LockSite *sites, **sp;
};

struct lk_priv {
	struct locks_bpf *skel;
	struct lk_prev words, tids, sites;
	struct lk_buf buf;
	uint64_t epoch;		       /* the reading's (lk_epoch) */
	uint64_t read_ns;	       /* the end of the last reading: the interval's start */
	uint64_t dropped[LK_CNT_MAX];  /* lk_counters' sums sent as drops */
	struct collector *c;
	struct ring_buffer *crb;     /* the stack copies' ring (dwarf); NULL: fp */
	struct stack_copies *copies; /* the capture's (dwarf) */
	uint64_t bad_copies;	     /* malformed copy records (not written) */
	int rb_err;
};

static Ptop__V1__ProbeState lk_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	char why[256] = "";
	Ptop__V1__ProbeState state = tp_target__precheck(
		c, "--no-ebpf: futex waits and wakes are seen only by eBPF programs");

	if (state != PTOP__V1__PROBE_STATE__PROBE_STATE_UNSPECIFIED)
		return state;
	/* auto: copies, whatever the program keeps: a wait's stack starts in the C library's
	 * lock code, which keeps no frame pointers on the distributions (a walk from there
	 * skips pthread_mutex_lock's caller, the frame that names the lock) */
	if (ctx->user_stacks == USER_STACKS_AUTO) {
		lk_stacks.mode = USER_STACKS_DWARF;
		snprintf(lk_stacks.why, sizeof(lk_stacks.why),
			 "--user-stacks auto: a wait starts in the C library's lock code, "
			 "walked only by copies");
	} else {
		lk_stacks.mode = user_stacks__choose(ctx, lk_stacks.why, sizeof(lk_stacks.why));
	}
	if (lk_stacks.mode == USER_STACKS_DWARF && (!kfeature_have(KF_BPF_LOOP, why, sizeof(why)) ||
						    !kfeature_have(KF_FIND_VMA, why, sizeof(why)))) {
		lk_stacks.mode = USER_STACKS_FP;
		snprintf(lk_stacks.why, sizeof(lk_stacks.why), "no stack copies here: %.200s", why);
		collector_lane(c, "stack_copy", PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED,
			       c->source, "%s", why);
	} else {
		collector_lane(c, "stack_copy",
			       lk_stacks.mode == USER_STACKS_DWARF
				       ? PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE
				       : PTOP__V1__PROBE_STATE__PROBE_STATE_STANDBY,
			       c->source, "%s",
			       lk_stacks.mode == USER_STACKS_DWARF ? "" : "not needed: frame pointers");
	}
	collector_lane(c, "fp",
		       lk_stacks.mode == USER_STACKS_DWARF ? PTOP__V1__PROBE_STATE__PROBE_STATE_STANDBY
							   : PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
		       c->source, "%s",
		       lk_stacks.mode == USER_STACKS_DWARF ? "not needed: stack copies" : "");
	snprintf(c->detail, sizeof(c->detail),
		 "raw_tp sys_enter, sys_exit: futex, futex_waitv, futex_wait, futex_wake per "
		 "futex word (%d words), read at each interval; waiters' user stacks %s (%.200s)",
		 LK_WORDS, user_stacks_name(lk_stacks.mode), lk_stacks.why);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void prev_free(struct lk_prev *p)
{
	free(p->e);
	hindex__free(&p->x);
	memset(p, 0, sizeof(*p));
}

static void lk_stop(struct collector *c)
{
	struct lk_priv *p = c->priv;

	if (!p)
		return;
	ring_buffer__free(p->crb);
	locks_bpf__destroy(p->skel);
	prev_free(&p->words);
	prev_free(&p->tids);
	prev_free(&p->sites);
	free(p->buf.wk);
	free(p->buf.tk);
	free(p->buf.sk);
	free(p->buf.wv);
	free(p->buf.tv);
	free(p->buf.sv);
	free(p->buf.words);
	free(p->buf.wp);
	free(p->buf.hist);
	free(p->buf.threads);
	free(p->buf.tp);
	free(p->buf.sites);
	free(p->buf.sp);
	free(p);
	c->priv = NULL;
}

/* A stack copy from the ring: its Stack record, once per key. */
static int on_copy(void *arg, void *data, size_t size)
{
	struct lk_priv *p = arg;
	int err;

	if (p->rb_err)
		return 0;
	err = stack_copies__add(p->c->ctx, p->copies, stack_table__capture(), data, size);
	if (err == -EINVAL)
		p->bad_copies++;
	else if (err)
		p->rb_err = err;
	return 0;
}

/* The target's VMAs for the stack copies, from its maps now: the BPF side then seldom
 * needs to look one up. A failure only costs it lookups. */
static void seed_vmas(struct lk_priv *p, pid_t pid)
{
	int ncpus = bpf_util__ncpus();
	struct sc_vmas t, *v;
	__u32 key = (__u32)pid;

	if (pid <= 0 || ncpus <= 0 || sc_vmas__read(pid, &t))
		return;
	v = calloc((size_t)ncpus, sizeof(*v));
	if (!v)
		return;
	for (int i = 0; i < ncpus; i++)
		v[i] = t;
	bpf_map_update_elem(bpf_map__fd(p->skel->maps.lk_vmas), &key, v, BPF_ANY);
	free(v);
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
	p->c = c;
	p->words.ksize = sizeof(struct lk_word_key);
	p->words.esize = sizeof(struct lk_word_key) + sizeof(struct lk_word);
	p->tids.ksize = sizeof(struct lk_tid_key);
	p->tids.esize = sizeof(struct lk_tid_key) + sizeof(struct lk_tid);
	p->sites.ksize = sizeof(struct lk_site_key);
	p->sites.esize = sizeof(struct lk_site_key) + sizeof(struct lk_site);
	p->buf.wk = calloc(LK_WORDS, sizeof(*p->buf.wk));
	p->buf.tk = calloc(LK_TIDS, sizeof(*p->buf.tk));
	p->buf.sk = calloc(LK_SITES, sizeof(*p->buf.sk));
	p->buf.wv = calloc(LK_WORDS, sizeof(*p->buf.wv));
	p->buf.tv = calloc(LK_TIDS, sizeof(*p->buf.tv));
	p->buf.sv = calloc(LK_SITES, sizeof(*p->buf.sv));
	p->buf.words = calloc(LK_WORDS, sizeof(*p->buf.words));
	p->buf.wp = calloc(LK_WORDS, sizeof(*p->buf.wp));
	p->buf.hist = calloc((size_t)LK_WORDS * LK_HIST, sizeof(*p->buf.hist));
	p->buf.threads = calloc(LK_TIDS, sizeof(*p->buf.threads));
	p->buf.tp = calloc(LK_TIDS, sizeof(*p->buf.tp));
	p->buf.sites = calloc(LK_SITES, sizeof(*p->buf.sites));
	p->buf.sp = calloc(LK_SITES, sizeof(*p->buf.sp));
	if (!p->buf.wk || !p->buf.tk || !p->buf.sk || !p->buf.wv || !p->buf.tv || !p->buf.sv ||
	    !p->buf.words || !p->buf.wp ||
	    !p->buf.hist || !p->buf.threads || !p->buf.tp || !p->buf.sites || !p->buf.sp) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		err = -ENOMEM;
		goto fail;
	}
retry:
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
	p->skel->rodata->lk_user_stacks =
		lk_stacks.mode == USER_STACKS_DWARF ? LK_USER_COPY : LK_USER_FP;
	if (lk_stacks.mode != USER_STACKS_DWARF) { /* the copies' maps stay small */
		bpf_map__set_max_entries(p->skel->maps.lk_copies, 4096);
		bpf_map__set_max_entries(p->skel->maps.lk_copied, 1);
	}
	/* PTOP_TEST_LOCKS_WORDS=N (tests only): a word map of N entries, so that a test fills
	 * it with a few words */
	if (getenv("PTOP_TEST_LOCKS_WORDS") && atoi(getenv("PTOP_TEST_LOCKS_WORDS")) > 0)
		bpf_map__set_max_entries(p->skel->maps.lk_words,
					 (uint32_t)atoi(getenv("PTOP_TEST_LOCKS_WORDS")));
	/* PTOP_TEST_REFUSE=stack_copy: the copies' load refused, as by a verifier */
	err = lk_stacks.mode == USER_STACKS_DWARF && kfeature_refused("stack_copy")
		      ? -E2BIG
		      : locks_bpf__load(p->skel);
	if (err && lk_stacks.mode == USER_STACKS_DWARF) {
		/* the stack copies did not load: frame-pointer stacks, the lanes say why */
		char cwhy[300];

		bpf_util__format_error(cwhy, sizeof(cwhy), "load locks BPF with stack copies", err);
		collector_lane(c, "stack_copy", PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
			       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", cwhy);
		collector_lane(c, "fp", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
			       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", "");
		lk_stacks.mode = USER_STACKS_FP;
		snprintf(lk_stacks.why, sizeof(lk_stacks.why),
			 "the stack copies failed to load: %.140s", cwhy);
		locks_bpf__destroy(p->skel);
		p->skel = NULL;
		goto retry;
	}
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
	if (lk_stacks.mode == USER_STACKS_DWARF) {
		p->copies = stack_copies__capture();
		p->crb = ring_buffer__new(bpf_map__fd(p->skel->maps.lk_copies), on_copy, p, NULL);
		if (!p->copies || !p->crb) {
			err = p->crb ? -ENOMEM : -errno;
			snprintf(c->reason, sizeof(c->reason), "stack copies' ring buffer: %s",
				 strerror(-err));
			goto fail;
		}
		seed_vmas(p, c->ctx->pid);
	}
	p->read_ns = rec_now_ns(); /* before the attach: every call counted is after it */
	err = locks_bpf__attach(p->skel);
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason),
				       "attach raw_tp sys_enter, sys_exit", err);
		goto fail;
	}
	return 0;
fail:
	c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	lk_stop(c);
	return err ? err : -EINVAL;
}

/* Every entry of the hash on FD into KEYS and VALS (KSIZE and VSIZE bytes each, at most
 * MAX): in batches (one call for all of them, Linux 5.6), else key by key. The count. */
static size_t map_read(int fd, size_t ksize, size_t vsize, size_t max, void *keys, void *vals)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	char *k = keys, *v = vals;
	__u64 token = 0; /* the hash's bucket to go on from */
	size_t n = 0, m = 0;
	bool first = true;
	int err;

	while (n < max) {
		__u32 count = (__u32)(max - n);

		err = bpf_map_lookup_batch(fd, first ? NULL : &token, &token, k + n * ksize,
					   v + n * vsize, &count, &opts);
		first = false;
		if (err && err != -ENOENT)
			goto by_key; /* no batches here (or a bucket larger than the room left) */
		n += count;
		if (err == -ENOENT) /* the end */
			return n;
	}
	return n;
by_key:
	n = 0;
	while (n < max && !bpf_map_get_next_key(fd, n ? k + (n - 1) * ksize : NULL, k + n * ksize))
		n++;
	for (size_t i = 0; i < n; i++) { /* a key without a value is left out */
		if (bpf_map_lookup_elem(fd, k + i * ksize, v + m * vsize))
			continue;
		if (m != i)
			memmove(k + m * ksize, k + i * ksize, ksize);
		m++;
	}
	return m;
}

static uint64_t prev_hash(const void *arr, size_t k)
{
	const struct lk_prev *p = arr;

	return fnv1a64_bytes(FNV1A64_INIT, p->e + k * p->esize, p->ksize);
}

/* The index of KEY's element in P (added, its value zero, when new); -ENOMEM. */
static long prev_find(struct lk_prev *p, const void *key)
{
	uint64_t h = fnv1a64_bytes(FNV1A64_INIT, key, p->ksize);
	size_t i;
	int err;

	if (p->x.nslot)
		for (i = hindex__home(&p->x, h); p->x.slot[i]; i = hindex__next(&p->x, i))
			if (!memcmp(p->e + (p->x.slot[i] - 1) * p->esize, key, p->ksize))
				return (long)(p->x.slot[i] - 1);
	err = hindex__reserve(&p->x, p->n, 256, prev_hash, p);
	err = err ?: array__grow((void **)&p->e, &p->cap, p->n, p->esize);
	if (err)
		return err;
	memcpy(p->e + p->n * p->esize, key, p->ksize);
	memset(p->e + p->n * p->esize + p->ksize, 0, p->esize - p->ksize);
	for (i = hindex__home(&p->x, h); p->x.slot[i]; i = hindex__next(&p->x, i))
		;
	p->x.slot[i] = p->n + 1;
	return (long)p->n++;
}

/* The value last sent of element K of P. */
static void *prev_val(struct lk_prev *p, long k)
{
	return p->e + (size_t)k * p->esize + p->ksize;
}

/* One reading: what grew since the last one, per word, thread's share and call site, in
 * one LockWords (none when nothing grew), dated at the end of the reading: every call it
 * counts ended before then (a count read later than the poll's time holds calls up to
 * the read). */
static int emit_words(struct collector *c, struct lk_priv *p)
{
	int wfd = bpf_map__fd(p->skel->maps.lk_words), tfd = bpf_map__fd(p->skel->maps.lk_tids);
	int sfd = bpf_map__fd(p->skel->maps.lk_sites), kfd = bpf_map__fd(p->skel->maps.lk_stack_map);
	Ptop__V1__LockWords msg = PTOP__V1__LOCK_WORDS__INIT;
	struct stack_table *st = stack_table__capture();
	struct lk_buf *b = &p->buf;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CollectorPayload cp;
	uint64_t ips[SM_MAX_DEPTH], epoch = p->epoch, read_ns;
	size_t nw = 0, nt = 0, ns = 0, i, m;
	int err = 0;

	if (!st)
		return -ENOMEM;
	/* the next epoch begins: slot epoch & 1 of every word holds its longest wait that
	 * ended in this reading's interval, and no wait changes it until the one after */
	p->epoch = epoch + 1;
	__atomic_store_n(&p->skel->bss->lk_epoch, p->epoch, __ATOMIC_SEQ_CST);
	m = map_read(wfd, sizeof(*b->wk), sizeof(*b->wv), LK_WORDS, b->wk, b->wv);
	for (i = 0; !err && i < m; i++) {
		Ptop__V1__LockWord *w = &b->words[nw];
		struct lk_word v = b->wv[i], *o;
		uint64_t *hist = b->hist + nw * LK_HIST;
		bool grew;
		long k;

		k = prev_find(&p->words, &b->wk[i]);
		if (k < 0) {
			err = (int)k;
			break;
		}
		o = prev_val(&p->words, k);
		grew = v.waits != o->waits || v.wakes != o->wakes;
		ptop__v1__lock_word__init(w);
		w->tgid = b->wk[i].tgid;
		w->uaddr = b->wk[i].uaddr;
		w->waits = v.waits - o->waits;
		w->wait_ns = v.wait_ns - o->wait_ns;
		if (w->waits && v.max_epoch[epoch & 1] == epoch)
			w->wait_max_ns = v.max_ns[epoch & 1];
		w->eagain = v.eagain - o->eagain;
		w->timeouts = v.timeouts - o->timeouts;
		w->wakes = v.wakes - o->wakes;
		w->woken = v.woken - o->woken;
		for (size_t h = 0; h < LK_HIST; h++)
			hist[h] = v.hist[h] - o->hist[h];
		w->n_hist = LK_HIST;
		w->hist = hist;
		*o = v;
		if (grew)
			b->wp[nw++] = w;
	}
	m = err ? 0 : map_read(tfd, sizeof(*b->tk), sizeof(*b->tv), LK_TIDS, b->tk, b->tv);
	for (i = 0; !err && i < m; i++) {
		Ptop__V1__LockThread *t = &b->threads[nt];
		struct lk_tid v = b->tv[i], *o;
		long k;

		k = prev_find(&p->tids, &b->tk[i]);
		if (k < 0) {
			err = (int)k;
			break;
		}
		o = prev_val(&p->tids, k);
		ptop__v1__lock_thread__init(t);
		t->tgid = b->tk[i].tgid;
		t->uaddr = b->tk[i].uaddr;
		t->tid = b->tk[i].tid;
		t->role = b->tk[i].role == LK_ROLE_WAIT ? "wait" : "wake";
		t->calls = v.calls - o->calls;
		t->ns = v.ns - o->ns;
		*o = v;
		if (t->calls)
			b->tp[nt++] = t;
	}
	/* the copies first: their Stack records come before the sites that name them */
	if (!err && p->crb) {
		ring_buffer__consume(p->crb);
		err = p->rb_err;
	}
	m = err ? 0 : map_read(sfd, sizeof(*b->sk), sizeof(*b->sv), LK_SITES, b->sk, b->sv);
	for (i = 0; !err && i < m; i++) {
		Ptop__V1__LockSite *x = &b->sites[ns];
		struct lk_site v = b->sv[i], *o;
		uint64_t id = 0;
		long k;
		int n;

		k = prev_find(&p->sites, &b->sk[i]);
		if (k < 0) {
			err = (int)k;
			break;
		}
		o = prev_val(&p->sites, k);
		if (v.waits == o->waits)
			continue;
		if (b->sk[i].stack.kernel == SM_KIND_COPY) { /* its record came through the ring */
			if (stack_copies__find(p->copies, b->sk[i].tgid, b->sk[i].stack.hash, &id))
				id = 0; /* its copy was lost (counted): no stack */
		} else {
			n = stackmap__read(kfd, &b->sk[i].stack, ips, SM_MAX_DEPTH);
			if (n > 0)
				err = stack_table__emit(c->ctx, st, false, 0, ips, (size_t)n, &id);
		}
		ptop__v1__lock_site__init(x);
		x->tgid = b->sk[i].tgid;
		x->uaddr = b->sk[i].uaddr;
		x->stack_id = id;
		x->waits = v.waits - o->waits;
		x->ns = v.ns - o->ns;
		*o = v;
		b->sp[ns++] = x;
	}
	read_ns = rec_now_ns(); /* the reading is over: every call above ended before it */
	if (err || (!nw && !nt && !ns)) {
		if (!err)
			p->read_ns = read_ns;
		return err;
	}
	msg.n_sites = ns;
	msg.sites = ns ? b->sp : NULL;
	msg.user_stacks = (char *)user_stacks_name(lk_stacks.mode);
	msg.n_words = nw;
	msg.words = nw ? b->wp : NULL;
	msg.n_threads = nt;
	msg.threads = nt ? b->tp : NULL;
	err = capture_payload__pack(&ev, &cp, "locks", &msg.base);
	if (err)
		return err;
	err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, read_ns,
			     read_ns > p->read_ns ? read_ns - p->read_ns : 0);
	capture_payload__release(&cp);
	p->read_ns = read_ns;
	return err;
}

static int lk_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	static const char *const what[LK_CNT_MAX] = {
		"locks: futex calls not timed (the in-flight map was full)",
		"locks: futex calls not counted (the word map was full: more words than it holds)",
		"locks: a thread's share not counted (the thread map was full)",
		"locks: waits not credited to their call site (the site map was full)",
		"locks: waits without a user stack (the walk failed, or the stack map was full)",
		"locks: stack copies the ring had no room for (their sites may have no stack)",
	};
	static const char *const kinds[LK_CNT_MAX] = { "map_full", "map_full", "map_full",
						       "map_full", "no_stack", "ringbuf" };
	struct lk_priv *p = c->priv;
	int ncpu = bpf_util__ncpus(), err = 0;
	uint64_t *vals, sum;

	(void)now_ns;
	(void)flags;
	if (!p || !p->skel)
		return -EINVAL;
	if (p->crb) { /* the copies as they come: the ring stays free */
		ring_buffer__consume(p->crb);
		if (p->rb_err)
			return p->rb_err;
	}
	if (p->bad_copies) {
		err = rec_emit_drop(c, "stack_copy_malformed", p->bad_copies,
				    "stack copies from the kernel too short for their size");
		p->bad_copies = 0;
		if (err)
			return err;
	}
	err = emit_words(c, p);
	if (err || ncpu <= 0)
		return err;
	vals = calloc((size_t)ncpu, sizeof(uint64_t));
	if (!vals)
		return -ENOMEM;
	/* what could not be followed, as it grew: in the interval it happened in */
	for (uint32_t k = 0; !err && k < LK_CNT_MAX; k++)
		if (!bpf_util__percpu_sum(p->skel->maps.lk_counters, k, vals, sizeof(uint64_t),
					  &sum, 1) && sum > p->dropped[k]) {
			err = rec_emit_drop(c, kinds[k], sum - p->dropped[k], what[k]);
			p->dropped[k] = sum;
		}
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
