/* events.c — `report events`: the one timeline of a capture, every discrete event every part
 * lists through its replay series' events hook (analyze/replay_model.h: replay_series.events)
 * and the model's own (drops, probe changes, the end), as the replay Timeline tab shows them;
 * filtered by category (the part's name, or drop, probe, end), pid and window. A core report:
 * it names no collector, it loops over the parts through the replay model. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output.h"
#include "analyze/replay_model.h"
#include "analyze/report.h"

struct events_opts {
	char category[192]; /* comma-separated; "" every one */
	bool has_pid;
	int64_t pid;
};

static int parse_category(void *s, const char *arg, char *err, size_t len)
{
	struct events_opts *e = s;

	if (!*arg || strlen(arg) >= sizeof(e->category)) {
		snprintf(err, len, "--category takes a comma-separated list of categories, not '%s'",
			 arg);
		return -EINVAL;
	}
	snprintf(e->category, sizeof(e->category), "%s", arg);
	return 0;
}

static int parse_pid(void *s, const char *arg, char *err, size_t len)
{
	struct events_opts *e = s;
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < 0) {
		snprintf(err, len, "--pid takes a process id, not '%s'", arg);
		return -EINVAL;
	}
	e->has_pid = true;
	e->pid = v;
	return 0;
}

bool events__category_in(const char *list, const char *category)
{
	size_t n = strlen(category);

	if (!*list)
		return true;
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ",");

		if (k == n && !strncmp(p, category, n))
			return true;
		p += k;
		p += *p == ',';
	}
	return false;
}

static bool in_window(const struct window *w, int64_t t)
{
	return (!w->has_start || t >= w->start_ns) && (!w->has_end || t <= w->end_ns);
}

enum { E_T, E_CAT, E_KIND, E_PID, E_WARN, E_TEXT, NE };
static const char *const event_cols[NE] = {"time", "category", "kind", "pid", "warn", "event"};
static const char *const event_keys[NE] = {"time_s", "category", "kind", "pid", "warning", "text"};

static int events_body(const struct report_ctx *c)
{
	const struct events_opts *eo = REPORT_OWN(c->o, struct events_opts);
	struct replay_model *m;
	struct table *t = table__new(NE, event_cols);
	char err_buf[256], b[32], w[96];
	int err = 0;

	if (!t)
		return -ENOMEM;
	for (size_t k = 0; k < NE && !err; k++)
		err = table__set_key(t, k, event_keys[k]);
	m = replay_model__open(c->db, c->m->capture_id, err_buf, sizeof(err_buf));
	if (!m) {
		err = errno ? -errno : -EIO;
		fprintf(stderr, "ptop-analyze: report events: %s\n", err_buf);
		table__free(t);
		return err;
	}
	for (size_t i = 0; i < m->nevents && !err; i++) {
		const struct rm_event *e = &m->events_list[i];

		if (!events__category_in(eo->category, e->category) || !in_window(&c->o->win, e->t) ||
		    (eo->has_pid && e->pid != eo->pid))
			continue;
		err = table__add_row(t);
		err = err ?: table__set_real(t, E_T, (double)e->t / 1e9, fmt_secs(b, sizeof(b), e->t));
		err = err ?: table__set_text(t, E_CAT, e->category);
		err = err ?: table__set_text(t, E_KIND, e->kind);
		err = err ?: (e->pid == RM_NULL ? table__set_null(t, E_PID)
						: table__set_int(t, E_PID, e->pid, NULL));
		err = err ?: table__set_bool(t, E_WARN, e->warn, e->warn ? "warn" : "");
		err = err ?: table__set_text(t, E_TEXT, e->text);
	}
	if (!err) {
		switch (c->o->fmt) {
		case OUT_TEXT:
			window__describe(&c->o->win, w, sizeof(w));
			fprintf(c->out, "events (%s): %zu of %zu\n", w, table__rows(t), m->nevents);
			if (table__rows(t)) {
				fputc('\n', c->out);
				err = table__print(t, c->out, OUT_TEXT);
			}
			break;
		case OUT_CSV:
			err = table__print(t, c->out, OUT_CSV);
			break;
		case OUT_JSON:
			json__kv_int(c->j, "total", (int64_t)m->nevents);
			json__key(c->j, "events");
			table__json(t, c->j, NULL, 0);
			json__end_object(c->j);
			err = json__end(c->j);
			break;
		}
	}
	replay_model__free(m);
	table__free(t);
	return err;
}

static const struct report_option events_options[] = {
    {"category", "LIST",
     "events: only these categories, comma-separated:\n"
     "a collector's name (lifecycle, signals, ...),\n"
     "drop, probe or end",
     parse_category},
    {"pid", "PID", "events: only the events of process PID", parse_pid},
    {NULL, NULL, NULL, NULL},
};

static const struct an_report events_report = {
    .name = "events",
    .order = 1000, /* the core's own, after every part's (the toy's is 900) */
    .summary = "every discrete event of every collector in time order (forks,\n"
	       "execs, exits, signals, threads, mappings, drops, probe changes):\n"
	       "the replay Timeline tab's list",
    .tables = "capture",
    .options = events_options,
    .settings_size = sizeof(struct events_opts),
    .body = events_body,
};

const struct an_report *const core_reports[] = {&events_report, NULL};
