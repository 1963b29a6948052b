/* replay.c — the cgroup collector's replay series (replay.h): the cgroup samples, and the state
 * at one sample with checkpoints of the processes seen. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/cgroup/replay.h"

/* the cgroup samples, as `report cgroup` reads them (only when the cgroup probe ran: a DB made
 * before the cgroup tables has none) */
static int cgroup_open(struct replay_model *m, void *state)
{
	const struct probe_info *p = replay_model__probe(m, "cgroup");
	struct cgroup_series *r = state;
	struct window all = {0};
	int err;

	r->cg_cached = RM_NULL;
	r->cg_seen_to = RM_NULL;
	if (!p || !probe__active(p))
		return 0;
	err = cg_data__load(m->db, &m->meta, &all, &r->cg);
	if (!err && r->cg.n) /* the recording lasts at least to its last sample */
		replay_model__covers(m, r->cg.s[r->cg.n - 1].time_ns - m->meta.base_ns);
	return err;
}

/* Merge the process rows of the samples after cg_seen_to up to TO into cg_seen, by pid, a
 * newer covered read replacing an older one. */
static int cg_seen_merge(const struct replay_model *m, struct cgroup_series *r, size_t to)
{
	struct cg_proc *nw = NULL, *out = NULL;
	size_t nn = 0, a = 0, b = 0, k = 0;
	struct window w = {0};
	int err;

	if (r->cg_seen_to >= 0) { /* a sample is in [START, END] when its time is */
		w.has_start = true;
		w.start_ns = r->cg.s[r->cg_seen_to].time_ns - m->meta.base_ns + 1;
	}
	w.has_end = true;
	w.end_ns = r->cg.s[to].time_ns - m->meta.base_ns;
	err = cg_procs__load(m->db, &m->meta, &w, r->cg.s[to].seq, &nw, &nn);
	if (err)
		return err;
	out = calloc(r->ncg_seen + nn ? r->ncg_seen + nn : 1, sizeof(*out));
	if (!out) {
		free(nw);
		return -ENOMEM;
	}
	while (a < r->ncg_seen || b < nn) { /* both by pid */
		const struct cg_proc *o = a < r->ncg_seen ? &r->cg_seen[a] : NULL;
		const struct cg_proc *n = b < nn ? &nw[b] : NULL;

		if (o && (!n || o->pid < n->pid)) {
			out[k] = *o;
			out[k++].in_last = false; /* not in sample TO, which the new rows hold */
			a++;
			continue;
		}
		out[k] = *n;
		if (o && o->pid == n->pid) {
			if (n->value_ns < 0) { /* not covered since: its older read stands */
				out[k].value_ns = o->value_ns;
				out[k].rss = o->rss;
				out[k].pss = o->pss;
				out[k].uss = o->uss;
				out[k].swap = o->swap;
			}
			a++;
		}
		k++;
		b++;
	}
	free(nw);
	free(r->cg_seen);
	r->cg_seen = out;
	r->ncg_seen = k;
	r->cg_seen_to = (int64_t)to;
	return 0;
}

/* Set cg_seen to checkpoint K (a copy). 0 or -ENOMEM. */
static int cg_seen_restore(struct cgroup_series *r, size_t k)
{
	const struct rm_cg_checkpoint *cp = &r->cg_cps[k];
	struct cg_proc *v = malloc((cp->n ? cp->n : 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	memcpy(v, cp->seen, cp->n * sizeof(*v));
	free(r->cg_seen);
	r->cg_seen = v;
	r->ncg_seen = cp->n;
	r->cg_seen_to = (int64_t)((k + 1) * RM_CG_CP - 1);
	return 0;
}

/* Bring cg_seen to sample CI: from the last checkpoint at or before it when that is ahead of
 * cg_seen_to or CI is behind it, then a checkpoint's worth of samples at a time. */
static int cg_seen_update(const struct replay_model *m, struct cgroup_series *r, size_t ci)
{
	size_t k = (ci + 1) / RM_CG_CP; /* checkpoints at or before CI */
	int err;

	if (r->cg_seen_to == (int64_t)ci)
		return 0;
	if (r->cg_seen_to > (int64_t)ci) {
		free(r->cg_seen);
		r->cg_seen = NULL;
		r->ncg_seen = 0;
		r->cg_seen_to = RM_NULL;
	}
	while (k > 0 && (k > r->ncg_cps || !r->cg_cps[k - 1].seen))
		k--;
	if (k && (int64_t)(k * RM_CG_CP - 1) > r->cg_seen_to) {
		err = cg_seen_restore(r, k - 1);
		if (err)
			return err;
	}
	while (r->cg_seen_to < (int64_t)ci) {
		size_t next = (size_t)((r->cg_seen_to + 1) / RM_CG_CP + 1) * RM_CG_CP - 1;
		struct rm_cg_checkpoint *cp;

		err = cg_seen_merge(m, r, next < ci ? next : ci);
		if (err)
			return err;
		if (r->cg_seen_to != (int64_t)next)
			break;
		k = next / RM_CG_CP; /* take checkpoint k */
		if (k >= r->ncg_cps) {
			cp = realloc(r->cg_cps, (k + 1) * sizeof(*cp));
			if (!cp)
				return -ENOMEM;
			memset(cp + r->ncg_cps, 0, (k + 1 - r->ncg_cps) * sizeof(*cp));
			r->cg_cps = cp;
			r->ncg_cps = k + 1;
		}
		cp = &r->cg_cps[k];
		if (!cp->seen) {
			cp->seen = malloc((r->ncg_seen ? r->ncg_seen : 1) * sizeof(*cp->seen));
			if (!cp->seen)
				return -ENOMEM;
			memcpy(cp->seen, r->cg_seen, r->ncg_seen * sizeof(*cp->seen));
			cp->n = r->ncg_seen;
		}
	}
	return 0;
}

int cgroup_series__state(const struct replay_model *m, struct cgroup_series *r, size_t ci,
			 const struct rm_cgroup **out)
{
	struct rm_cgroup *c = &r->cgs;
	struct cg_data upto;
	size_t i, k;
	int err;

	if (ci >= r->cg.n)
		return -EINVAL;
	if (r->cg_cached == (int64_t)ci)
		goto done;
	r->cg_cached = RM_NULL;
	free(c->stat.kv);
	free(c->procs);
	memset(c, 0, sizeof(*c));
	c->at = ci;
	/* the samples from the start to this one: memory.stat at it, the OOM events so far */
	upto = r->cg;
	upto.n = ci + 1;
	cg_oom__of(&upto, &c->oom);
	err = cg_stat__load(m->db, &m->meta, &upto, &c->stat);
	err = err ?: cg_seen_update(m, r, ci);
	if (err)
		return err;
	c->procs = calloc(r->ncg_seen ? r->ncg_seen : 1, sizeof(*c->procs));
	if (!c->procs)
		return -ENOMEM;
	for (i = k = 0; i < r->ncg_seen; i++) /* the processes in this sample */
		if (r->cg_seen[i].in_last)
			c->procs[k++] = r->cg_seen[i];
	c->nprocs = k;
	if (k)
		qsort(c->procs, k, sizeof(*c->procs), cg_proc__cmp_pss);
	r->cg_cached = (int64_t)ci;
done:
	*out = c;
	return 0;
}

static void cgroup_free(void *state)
{
	struct cgroup_series *r = state;
	size_t i;

	cg_data__free(&r->cg);
	free(r->cgs.stat.kv);
	free(r->cgs.procs);
	free(r->cg_seen);
	for (i = 0; i < r->ncg_cps; i++)
		free(r->cg_cps[i].seen);
	free(r->cg_cps);
}

ssize_t cgroup_series__at(const struct replay_model *m, const struct cgroup_series *r, int64_t t)
{
	struct rm_times s = {r->cg.s ? &r->cg.s->time_ns : NULL, r->cg.n, sizeof(*r->cg.s)};

	return rm_times__at(s, t + m->meta.base_ns); /* the samples' times are absolute */
}

/* its samples are not interval ends the arrows step through (nor were they before the series
 * moved here): a cgroup capture steps through its cpu and memory samples */
const struct replay_series cgroup_replay = {
    .what = "cgroup samples",
    .state_size = sizeof(struct cgroup_series),
    .open = cgroup_open,
    .free = cgroup_free,
};
