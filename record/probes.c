/* probes.c — the probe set of a recording: header records, summary, --caps lines, drop totals,
 * and the target's exit status as a TargetExit.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "proto/names.h"
#include "record/kfeature.h"
#include "record/record.h"

void collector_lane(struct collector *c, const char *name, Ptop__V1__ProbeState state,
		    Ptop__V1__ProbeSource source, const char *fmt, ...)
{
	struct collector_lane *l = NULL;
	va_list ap;
	unsigned i;

	for (i = 0; i < c->n_lanes && !l; i++)
		if (strcmp(c->lanes[i].name, name) == 0)
			l = &c->lanes[i];
	if (!l) {
		if (c->n_lanes >= COLLECTOR_MAX_LANES)
			return;
		l = &c->lanes[c->n_lanes++];
	}
	l->name = name;
	l->instead = NULL;
	l->instead_loses = false;
	l->instead_by = NULL;
	l->state = state;
	l->source = source;
	va_start(ap, fmt);
	vsnprintf(l->reason, sizeof(l->reason), fmt, ap);
	va_end(ap);
}

const struct collector_lane *collector_lane_get(const struct collector *c, const char *name)
{
	for (unsigned i = 0; i < c->n_lanes; i++)
		if (strcmp(c->lanes[i].name, name) == 0)
			return &c->lanes[i];
	return NULL;
}

void collector_lane_instead(struct collector *c, const char *name, const char *instead)
{
	for (unsigned i = 0; i < c->n_lanes; i++)
		if (strcmp(c->lanes[i].name, name) == 0)
			c->lanes[i].instead = instead;
}

void collector_lane_fallback(struct collector *c, const char *name, const char *instead,
			     const char *by)
{
	for (unsigned i = 0; i < c->n_lanes; i++)
		if (strcmp(c->lanes[i].name, name) == 0) {
			c->lanes[i].instead = instead;
			c->lanes[i].instead_loses = true;
			c->lanes[i].instead_by = by;
		}
}

/* The lane active in place of lane L of C, or NULL. */
static const struct collector_lane *lane_in_place(const struct collector *c,
						  const struct collector_lane *l)
{
	const struct collector_lane *by = l->instead ? collector_lane_get(c, l->instead) : NULL;

	return by && by->state == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE ? by : NULL;
}

/* Does lane L of C run with nothing in its place that measures the same? */
static bool lane_lost(const struct collector *c, const struct collector_lane *l)
{
	if (l->state != PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED &&
	    l->state != PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED)
		return false;
	return !lane_in_place(c, l) || l->instead_loses;
}

bool collector_lane_lost(const struct collector *c, const struct collector_lane **which)
{
	for (unsigned i = 0; i < c->n_lanes; i++) {
		const struct collector_lane *l = &c->lanes[i];

		if (!lane_lost(c, l))
			continue;
		if (which)
			*which = l;
		return true;
	}
	if (which)
		*which = NULL;
	return false;
}

bool collector_lane_any(const struct collector *c, Ptop__V1__ProbeState state)
{
	for (unsigned i = 0; i < c->n_lanes; i++)
		if (c->lanes[i].state == state)
			return true;
	return false;
}

/* C's lanes as ProbeLane messages in LANES/PTRS (COLLECTOR_MAX_LANES each), pointing at
 * C's strings, on P. */
static void probe_lanes(const struct collector *c, Ptop__V1__Probe *p, Ptop__V1__ProbeLane *lanes,
			Ptop__V1__ProbeLane **ptrs)
{
	for (unsigned k = 0; k < c->n_lanes && k < COLLECTOR_MAX_LANES; k++) {
		ptop__v1__probe_lane__init(&lanes[k]);
		lanes[k].name = (char *)c->lanes[k].name;
		lanes[k].state = c->lanes[k].state;
		lanes[k].source = c->lanes[k].source;
		lanes[k].reason = (char *)c->lanes[k].reason;
		lanes[k].instead = (char *)(c->lanes[k].instead ? c->lanes[k].instead : "");
		ptrs[k] = &lanes[k];
	}
	p->n_lanes = c->n_lanes;
	p->lanes = c->n_lanes ? ptrs : NULL;
}

void record_probe_set(const struct collector *cs, size_t n, Ptop__V1__Probe *probes,
		      Ptop__V1__Probe **ptrs, Ptop__V1__ProbeLane *lanes,
		      Ptop__V1__ProbeLane **lane_ptrs)
{
	size_t i;

	for (i = 0; i < n; i++) {
		Ptop__V1__Probe *p = &probes[i];

		ptop__v1__probe__init(p);
		p->name = (char *)cs[i].ops->name;
		p->state = cs[i].state;
		p->source = cs[i].source;
		/* protobuf-c packs "" as absent for proto3 strings: the empty string is
		 * the default, so pointing at the collector's buffers is enough. */
		p->reason = (char *)cs[i].reason;
		p->detail = (char *)cs[i].detail;
		if (lanes && lane_ptrs)
			probe_lanes(&cs[i], p, lanes + i * COLLECTOR_MAX_LANES,
				    lane_ptrs + i * COLLECTOR_MAX_LANES);
		ptrs[i] = p;
	}
}

int record_strict_check(const struct collector *cs, size_t n, char *err, size_t errlen)
{
	const struct collector_lane *l;

	for (size_t i = 0; i < n; i++) {
		if (cs[i].state == PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED) {
			snprintf(err, errlen, "collector %s failed: %s", cs[i].ops->name,
				 cs[i].reason[0] ? cs[i].reason : "(no reason given)");
			return -1;
		}
		if (cs[i].state == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE &&
		    collector_lane_lost(&cs[i], &l)) {
			/* what to do: accept what runs in its place, or ask for it */
			if (lane_in_place(&cs[i], l))
				snprintf(err, errlen,
					 "collector %s, lane %s: %s: %s (lane %s runs in its "
					 "place, measuring less): record without --strict to "
					 "accept %s%s%s", cs[i].ops->name, l->name,
					 capture_probe_state_name(l->state),
					 l->reason[0] ? l->reason : "(no reason given)",
					 l->instead, l->instead, l->instead_by ? ", or choose " : "",
					 l->instead_by ? l->instead_by : "");
			else
				snprintf(err, errlen,
					 "collector %s, lane %s: %s: %s; record without --strict "
					 "to record without it", cs[i].ops->name, l->name,
					 capture_probe_state_name(l->state),
					 l->reason[0] ? l->reason : "(no reason given)");
			return -1;
		}
	}
	return 0;
}

size_t record_probe_count(const struct collector *cs, size_t n, Ptop__V1__ProbeState state)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += cs[i].state == state;
	return k;
}

/* snprintf that keeps counting past the end of the buffer. */
static size_t append(char *buf, size_t len, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t append(char *buf, size_t len, size_t off, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(off < len ? buf + off : NULL, off < len ? len - off : 0, fmt, ap);
	va_end(ap);
	return off + (w > 0 ? (size_t)w : 0);
}

size_t record_probe_summary(const struct collector *cs, size_t n, char *buf, size_t len)
{
	size_t i, off = 0;

	if (len)
		buf[0] = '\0';
	off = append(buf, len, off,
		     "probes: %zu active, %zu failed, %zu disabled, %zu unsupported\n",
		     record_probe_count(cs, n, PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE),
		     record_probe_count(cs, n, PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED),
		     record_probe_count(cs, n, PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED),
		     record_probe_count(cs, n, PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED));
	for (i = 0; i < n; i++) {
		if (cs[i].state == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE) {
			/* its lanes that ran not, with nothing in their place */
			for (unsigned k = 0; k < cs[i].n_lanes; k++) {
				const struct collector_lane *l = &cs[i].lanes[k], *by;

				if (!lane_lost(&cs[i], l))
					continue;
				by = lane_in_place(&cs[i], l);
				off = append(buf, len, off, "  %s: active, but lane %s %s: %s%s%s%s\n",
					     cs[i].ops->name, l->name,
					     capture_probe_state_name(l->state),
					     l->reason[0] ? l->reason : "(no reason given)",
					     by ? " (in its place: " : "", by ? by->name : "",
					     by ? ")" : "");
			}
			/* an active probe with a reason runs within the limit it says */
			if (!cs[i].reason[0])
				continue;
		}
		off = append(buf, len, off, "  %s: %s: %s\n", cs[i].ops->name,
			     capture_probe_state_name(cs[i].state),
			     cs[i].reason[0] ? cs[i].reason : "(no reason given)");
	}
	return off;
}

size_t record_caps_line(const struct collector *c, char *buf, size_t len)
{
	bool yes = c->state == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	const char *text;

	if (yes)
		text = c->ops->summary ? c->ops->summary : "";
	else
		text = c->reason[0] ? c->reason : capture_probe_state_name(c->state);
	/* "yes" with a reason: it runs, within the limit the reason says */
	return append(buf, len, 0, "  %-12s %-4s %-5s %s%s%s%s%s%s\n", c->ops->name,
		      yes ? "yes" : "no", (capture_probe_source_name(c->source) ?: "-"), text,
		      yes && c->reason[0] ? "; " : "", yes ? c->reason : "",
		      c->ops->off_by_default ? " [off by default: --enable " : "",
		      c->ops->off_by_default ? c->ops->name : "",
		      c->ops->off_by_default ? "]" : "");
}

size_t record_caps_lane(const struct collector_lane *l, char *buf, size_t len)
{
	return append(buf, len, 0, "      lane %-13s %-11s %s%s%s%s\n", l->name,
		      capture_probe_state_name(l->state), l->reason,
		      l->instead ? (l->reason[0] ? "; " : "") : "",
		      l->instead ? "in its place: " : "", l->instead ? l->instead : "");
}

size_t record_caps_feature(int feature, char *buf, size_t len)
{
	const struct kfeature_info *k = kfeature_info((enum kfeature)feature);
	char why[240];
	bool have;

	if (!k)
		return append(buf, len, 0, "%s", "");
	why[0] = '\0';
	have = kfeature_have((enum kfeature)feature, why, sizeof(why));
	return append(buf, len, 0, "  %-27s %-5s %-3s %s%s%s[%s]\n", k->name, k->since,
		      have ? "yes" : "no", have ? "" : "(", have ? "" : why, have ? "" : ") ",
		      k->probe);
}

int record_parse_capeff(const char *status_text, uint64_t *mask)
{
	const char *p = strstr(status_text, "\nCapEff:");
	char *end;
	unsigned long long v;

	if (!p)
		return -EINVAL;
	p += strlen("\nCapEff:");
	errno = 0;
	v = strtoull(p, &end, 16);
	if (errno || end == p || (*end && *end != '\n'))
		return -EINVAL;
	*mask = v;
	return 0;
}

void record_target_exit(int wstatus, Ptop__V1__TargetExit *te)
{
	ptop__v1__target_exit__init(te);
	te->status_known = true;
	if (WIFEXITED(wstatus)) {
		te->exited = true;
		te->exit_code = WEXITSTATUS(wstatus);
	} else if (WIFSIGNALED(wstatus)) {
		te->term_signal = WTERMSIG(wstatus);
		te->core_dumped = WCOREDUMP(wstatus) != 0;
	} else {
		te->status_known = false; /* stopped/continued: not an end */
	}
}

int drop_totals__add(struct drop_totals *t, const char *collector, const char *kind,
		     uint64_t lost)
{
	struct drop_total *d;
	size_t i;

	for (i = 0; i < t->n; i++) {
		d = &t->v[i];
		if (strncmp(d->collector, collector, sizeof(d->collector) - 1) == 0 &&
		    strncmp(d->kind, kind, sizeof(d->kind) - 1) == 0) {
			d->lost += lost;
			return 0;
		}
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 8;

		d = realloc(t->v, cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		t->v = d;
		t->cap = cap;
	}
	d = &t->v[t->n++];
	memset(d, 0, sizeof(*d));
	snprintf(d->collector, sizeof(d->collector), "%s", collector);
	snprintf(d->kind, sizeof(d->kind), "%s", kind);
	d->lost = lost;
	return 0;
}

int drop_totals__fill_trailer(const struct drop_totals *t, Ptop__V1__CaptureTrailer *tr)
{
	Ptop__V1__DropTotal *msgs = NULL, **ptrs = NULL;
	size_t i;

	tr->n_drops = 0;
	tr->drops = NULL;
	if (!t->n)
		return 0;
	msgs = calloc(t->n, sizeof(*msgs));
	ptrs = calloc(t->n, sizeof(*ptrs));
	if (!msgs || !ptrs) {
		free(msgs);
		free(ptrs);
		return -ENOMEM;
	}
	for (i = 0; i < t->n; i++) {
		ptop__v1__drop_total__init(&msgs[i]);
		msgs[i].collector = (char *)t->v[i].collector;
		msgs[i].kind = (char *)t->v[i].kind;
		msgs[i].lost = t->v[i].lost;
		ptrs[i] = &msgs[i];
	}
	tr->drops = ptrs;
	tr->n_drops = t->n;
	return 0;
}

void drop_totals__release_trailer(Ptop__V1__CaptureTrailer *tr)
{
	if (!tr)
		return;
	if (tr->n_drops)
		free(tr->drops[0]); /* the array of messages, allocated in one piece */
	free(tr->drops);
	tr->drops = NULL;
	tr->n_drops = 0;
}

void drop_totals__free(struct drop_totals *t)
{
	if (!t)
		return;
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}
