/* report_leaks.c — `report leaks`: functions holding allocations older than the leak age,
 * ranked by how steadily their live bytes grow, with their stacks, from the loader
 * (report_load.c). */
#include "collectors/heap/report_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the report's own options (report.h) */
static const struct leaks_opts *leaks_own(const struct report_opts *o)
{
	return REPORT_OWN(o, struct leaks_opts);
}

/* ---------------------------------------------------------------- report leaks */

/* Does any frame of stack SID match a suppression: function names (each
 * inlined name too), file names, module paths. Returns the pattern or NULL. */
static const char *stack_suppressed(const struct heap *h, int64_t sid,
				    const struct suppressions *sup)
{
	const struct prof_stack *st = sid > 0 ? profile__stack(h->stacks, sid) : NULL;
	char name[512];

	if (!st)
		return NULL;
	for (size_t d = 0; d < st->n; d++) {
		const struct prof_loc *l = st->loc[d];

		for (size_t p = 0; p < sup->n; p++) {
			if (suppression__match(sup->pattern[p], l->module))
				return sup->pattern[p];
			if (!l->n) {
				prof_loc__name(l, 0, name, sizeof(name));
				if (suppression__match(sup->pattern[p], name))
					return sup->pattern[p];
			}
			for (size_t i = 0; i < l->n; i++)
				if (suppression__match(sup->pattern[p], l->f[i].func) ||
				    suppression__match(sup->pattern[p], l->f[i].file))
					return sup->pattern[p];
		}
	}
	return NULL;
}

static int read_suppressions(const char *path, struct suppressions *sup)
{
	char *text = NULL, err[256];
	size_t len = 0, cap = 0;
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f) {
		fprintf(stderr, "ptop-analyze report leaks: cannot read --suppressions %s: %s\n",
			path, strerror(errno));
		return -EINVAL;
	}
	for (;;) {
		size_t n;

		if (len + 4096 + 1 > cap) {
			char *t;

			cap = cap ? 2 * cap : 8192;
			t = realloc(text, cap);
			if (!t) {
				ret = -ENOMEM;
				goto cleanup;
			}
			text = t;
		}
		n = fread(text + len, 1, 4096, f);
		len += n;
		if (n < 4096)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "ptop-analyze report leaks: reading --suppressions %s failed\n",
			path);
		ret = -EINVAL;
		goto cleanup;
	}
	text[len] = 0;
	if (strlen(text) != len) {
		fprintf(stderr, "ptop-analyze report leaks: --suppressions %s is not a text file\n",
			path);
		ret = -EINVAL;
		goto cleanup;
	}
	ret = suppressions__parse(text, sup, err, sizeof(err));
	if (ret == -EINVAL)
		fprintf(stderr, "ptop-analyze report leaks: --suppressions %s: %s\n", path, err);
cleanup:
	free(text);
	fclose(f);
	return ret;
}

static void stack_json(struct json *j, const struct heap *h, const char *exe, int64_t sid)
{
	const struct prof_stack *st = sid > 0 ? profile__stack(h->stacks, sid) : NULL;
	char name[512];

	json__key(j, "stack");
	json__begin_array(j);
	for (size_t d = st ? hr_caller_frame(h, exe, st) : 0; st && d < st->n; d++) {
		const struct prof_loc *l = st->loc[d];
		size_t names = l->n ? l->n : 1;

		for (size_t i = 0; i < names; i++) {
			prof_loc__name(l, i, name, sizeof(name));
			json__begin_object(j);
			json__kv_string(j, "func", name);
			json__kv_string(j, "file", l->n ? l->f[i].file : NULL);
			json__key(j, "line");
			if (l->n && l->f[i].line)
				json__int(j, l->f[i].line);
			else
				json__null(j);
			json__kv_string(j, "module", l->module);
			json__kv_bool(j, "inlined", l->n && l->f[i].inlined);
			json__end_object(j);
		}
	}
	json__end_array(j);
}

void hr_stack_text(FILE *out, const struct heap *h, const char *exe, int64_t sid)
{
	const struct prof_stack *st = sid > 0 ? profile__stack(h->stacks, sid) : NULL;
	char name[512], loc[512];
	size_t shown = 0;

	if (!st) {
		fprintf(out, "      (no stack)\n");
		return;
	}
	for (size_t d = hr_caller_frame(h, exe, st); d < st->n; d++) {
		const struct prof_loc *l = st->loc[d];
		size_t names = l->n ? l->n : 1;

		for (size_t i = 0; i < names; i++) {
			if (shown++ == STACK_PRINT_MAX) {
				fprintf(out, "      ... %zu more frames\n", st->n - d);
				return;
			}
			prof_loc__name(l, i, name, sizeof(name));
			hr_loc_text(l->n ? l->f[i].file : NULL, l->n ? l->f[i].line : 0, loc,
				 sizeof(loc));
			fprintf(out, "      %s%s%s%s  (%s)\n", l->n && l->f[i].inlined ? "[inlined] " : "",
				name, loc[0] ? " at " : "", loc, hr_base_of(l->module));
		}
	}
}

static int cmp_leaked(const void *a, const void *b)
{
	const struct hfn *x = a, *y = b;

	CMP_DESC(x->live_bytes, y->live_bytes);
	CMP_DESC(x->live_count, y->live_count);
	return hr_cmp_fn_name(x, y);
}

/* Mark the suspects of H (functions holding live allocations older than LEAK_AGE at the last
 * snapshot; AT_EXIT: every function holding live allocations, what the target did not free
 * before it exited, heaptrack's "leaked"), their trend, those SUP suppresses (*N_SUPP); the
 * *N_SUS that stay are moved first in h->fn, ranked by trend score (AT_EXIT: by live
 * bytes). 0 or -ENOMEM. */
static int rank_suspects_as(struct heap *h, int64_t leak_age, bool at_exit,
			    const struct suppressions *sup, size_t *n_sus_out, size_t *n_supp_out)
{
	size_t n_sus = 0, n_supp = 0;
	double *t = malloc((h->n_points + 1) * sizeof(*t));
	double *y = malloc((h->n_points + 1) * sizeof(*y));

	if (!t || !y) {
		free(t);
		free(y);
		return -ENOMEM;
	}
	/* suspects: live allocations older than the leak age at the last snapshot */
	for (size_t k = 0; k < h->n_fn; k++) {
		struct hfn *f = &h->fn[k];
		size_t n = 0;

		f->suspect = at_exit ? f->live_bytes > 0
				     : f->oldest_live_ns > 0 && f->live_bytes &&
					   h->last_ns - f->oldest_live_ns >= leak_age;
		if (!f->suspect)
			continue;
		for (size_t p = 0; p < h->n_points; p++)
			if (!isnan(f->series[p])) {
				t[n] = h->point_t[p];
				y[n++] = f->series[p];
			}
		heap_trend__compute(t, y, n, &f->trend);
	}
	/* suppressed: a frame of any stack folded into the function matches */
	for (size_t r = 0; sup && sup->n && r < h->n_row; r++) {
		struct hfn *f = &h->fn[h->row[r].fn];

		if (f->suspect && !f->suppressed && h->row[r].stack_id > 0 &&
		    stack_suppressed(h, h->row[r].stack_id, sup))
			f->suppressed = true;
	}
	/* the suspects that stay, first in the array */
	for (size_t k = 0; k < h->n_fn; k++) {
		struct hfn *f = &h->fn[k];

		if (!f->suspect)
			continue;
		if (f->suppressed) {
			n_supp++;
			continue;
		}
		if (k != n_sus) {
			struct hfn tmp = h->fn[n_sus];

			h->fn[n_sus] = *f;
			h->fn[k] = tmp;
		}
		n_sus++;
	}
	if (n_sus)
		qsort(h->fn, n_sus, sizeof(*h->fn), at_exit ? cmp_leaked : hr_cmp_suspect);
	free(t);
	free(y);
	*n_sus_out = n_sus;
	*n_supp_out = n_supp;
	return 0;
}

int hr_rank_suspects(struct heap *h, int64_t leak_age, const struct suppressions *sup,
			 size_t *n_sus_out, size_t *n_supp_out)
{
	return rank_suspects_as(h, leak_age, false, sup, n_sus_out, n_supp_out);
}

/* Whether capture CAP's target exited while recorded (the trailer says so): its heap at
 * the last snapshot is what it did not free. */
static bool target_exited(sqlite3 *db, int64_t cap)
{
	sqlite3_stmt *s = NULL;
	bool yes = false;

	if (sqlite3_prepare_v2(db,
			       "SELECT target_exited = 1 OR end_reason = 'target_exit' FROM "
			       "capture WHERE cap = ?1",
			       -1, &s, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, cap);
		yes = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) == 1;
	}
	sqlite3_finalize(s);
	return yes;
}


/* The columns of `report leaks --format csv`. */
static const size_t leak_csv_cols[] = {
    SC_FUNC,   SC_FILE,	 SC_LINE, SC_MODULE, SC_LIVE_BYTES, SC_LIVE_COUNT, LC_AGE,
    LC_GROWTH, LC_SCORE, LC_R2,	  LC_GREW,   LC_SNAPSHOTS,  LC_CONFIDENCE};

/* The rows of report leaks: one per suspect, the first N of h->fn (ranked by hr_rank_suspects),
 * their site columns and leak columns, with the displays the text report shows. Free *OUT
 * with table__free. 0 or -ENOMEM. */
static int leak_rows(const struct heap *h, size_t n, struct table **out)
{
	struct table *t = table__new(LC_N, hr_site_cols);
	char buf[64];
	int err = 0;

	if (!t)
		return -ENOMEM;
	for (size_t k = 0; k < n && !err; k++) {
		const struct hfn *f = &h->fn[k];
		const struct heap_trend *tr = &f->trend;
		int64_t age = h->last_ns - f->oldest_live_ns;

		err = table__add_row(t);
		err = err ?: hr_site_row(t, h, f);
		if (f->oldest_live_ns > 0) /* else unknown: the cell stays null */
			err = err ?: table__set_int(t, LC_AGE, age,
						    fmt_ns(buf, sizeof(buf), (uint64_t)age));
		else
			err = err ?: table__set_display(t, LC_AGE, "unknown");
		if (tr->n >= 2) {
			fmt_bytes_signed(buf, sizeof(buf), (int64_t)llround(tr->slope * 60));
			strcat(buf, "/min");
			err = err ?: table__set_real(t, LC_GROWTH, round(tr->slope * 60), buf);
		} else {
			err = err ?: table__set_display(t, LC_GROWTH, "unknown (one snapshot)");
		}
		snprintf(buf, sizeof(buf), "%.2f", tr->score);
		err = err ?: table__set_real(t, LC_SCORE, tr->score, buf);
		snprintf(buf, sizeof(buf), "%.2f", tr->r2);
		err = err ?: table__set_real(t, LC_R2, tr->r2, buf);
		snprintf(buf, sizeof(buf), "%.0f%%", tr->grew * 100);
		err = err ?: table__set_real(t, LC_GREW, tr->grew, buf);
		err = err ?: table__set_int(t, LC_SNAPSHOTS, (int64_t)tr->n, NULL);
		err = err ?: table__set_text(t, LC_CONFIDENCE, tr->confidence);
	}
	if (err) {
		table__free(t);
		return err;
	}
	*out = t;
	return 0;
}

static int leaks_body(const struct report_ctx *ctx)
{
	sqlite3 *db = ctx->db;
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	const struct capture_meta m = *ctx->m;
	struct json *j = ctx->j;
	struct suppressions sup = {0};
	struct table *rows = NULL;
	struct heap h;
	size_t n_sus = 0, n_supp = 0, top = o->top ? o->top : HEAP_TOP_DEFAULT;
	char a[32], c[32], d[32], w[96], exe[4096] = "", dbi[768];
	int64_t leak_age;
	uint64_t leaked_bytes = 0, leaked_count = 0;
	bool at_exit;
	sqlite3_stmt *s = NULL;
	int err;

	memset(&h, 0, sizeof(h));
	if (leaks_own(o)->suppressions) {
		err = read_suppressions(leaks_own(o)->suppressions, &sup);
		if (err)
			return err == -EINVAL ? -EPROTO : err; /* said: exit 2 */
	}
	err = hr_load(db, &m, o, &h, "leaks");
	if (err)
		goto cleanup;
	if (!h.collected) { /* neither the heap probe nor the Go lane's ran */
		err = report__not_collected(j, out, o, "leaks", &h.probe);
		goto cleanup;
	}
	hr_sites_lost(&h, ctx->drops, ctx->ndrops); /* events the sites lost: not exact (hr_head_json) */
	if (!h.live_measured || !h.n_snap) {
		const char *why = h.n_snap ? hr_why_not_measured(&h) : "no heap snapshot in the window";

		switch (o->fmt) {
		case OUT_TEXT:
		case OUT_CSV: /* a CSV file holds rows only */
			fprintf(o->fmt == OUT_TEXT ? out : stderr, "leaks: not measured (%s)\n",
				why);
			break;
		case OUT_JSON:
			json__kv_bool(j, "collected", true);
			json__kv_bool(j, "live_measured", false);
			json__kv_string(j, "reason", why);
			json__key(j, "suspects");
			json__null(j);
			json__end_object(j);
			err = json__end(j);
			break;
		}
		goto cleanup;
	}
	if (sqlite3_prepare_v2(db, "SELECT exe FROM target WHERE cap = ?1", -1, &s, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(s, 1, m.cap);
		if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
			snprintf(exe, sizeof(exe), "%s", (const char *)sqlite3_column_text(s, 0));
	}
	sqlite3_finalize(s);

	leak_age = h.leak_age_ns > 0 ? h.leak_age_ns : LEAK_AGE_DEFAULT_NS;
	/* the target exited: its last snapshot holds what it never freed (heaptrack's
	 * "leaked"), whatever its age; a window that ends earlier is a running target */
	at_exit = target_exited(db, m.cap) && !o->win.has_end;
	err = rank_suspects_as(&h, leak_age, at_exit, &sup, &n_sus, &n_supp);
	if (err)
		goto cleanup;
	for (size_t k = 0; k < n_sus; k++) {
		leaked_bytes += h.fn[k].live_bytes;
		leaked_count += h.fn[k].live_count;
	}

	err = leak_rows(&h, n_sus < top ? n_sus : top, &rows);
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		if (at_exit)
			fprintf(out,
				"leaks (%s): %zu snapshots; the target exited: leaked (not freed "
				"before it exited, heaptrack's \"leaked\"): %s in %s allocations, "
				"by function,\nranked by live bytes at the last snapshot (%s s)\n",
				w, h.n_points, fmt_bytes(a, sizeof(a), leaked_bytes),
				fmt_count(c, sizeof(c), leaked_count),
				fmt_secs(d, sizeof(d), h.last_ns - m.base_ns));
		else
			fprintf(out,
				"leaks (%s): %zu snapshots; the target was still running: suspects: "
				"functions holding allocations older than %s at the last snapshot,"
				"\nranked by trend score (how steadily their live bytes grew; see "
				"ptop-analyze(1))\n",
				w, h.n_points, fmt_ns(a, sizeof(a), (uint64_t)leak_age));
		if (symstore_run__debuginfod_text(&h.sym, dbi, sizeof(dbi))[0])
			fprintf(out, "%s\n", dbi);
		hr_census_text(&h, out);
		if (leaks_own(o)->suppressions)
			fprintf(out, "suppressed: %zu suspects (%zu patterns in %s)\n", n_supp,
				sup.n, leaks_own(o)->suppressions);
		if (!n_sus && at_exit) {
			fprintf(out, "\nno leak: every allocation was freed before the target "
				     "exited\n");
			break;
		}
		if (!n_sus) {
			fprintf(out, "\nno suspect: no function holds an allocation older than %s\n",
				fmt_ns(a, sizeof(a), (uint64_t)leak_age));
			break;
		}
		for (size_t k = 0; k < table__rows(rows); k++) {
			const char *line = table__value(rows, k, SC_LINE);
			char loc[512];

#define SHOWN(col) table__shown(rows, k, col)
			hr_loc_text(table__value(rows, k, SC_FILE),
				 line ? (unsigned)strtoul(line, NULL, 10) : 0, loc, sizeof(loc));
			fprintf(out, "\n#%zu %s%s%s (%s)\n", k + 1, SHOWN(SC_FUNC),
				loc[0] ? " at " : "", loc, SHOWN(SC_MODULE));
			fprintf(out, "    live %s in %s allocations, oldest %s old; growth %s\n",
				SHOWN(SC_LIVE_BYTES), SHOWN(SC_LIVE_COUNT), SHOWN(LC_AGE),
				SHOWN(LC_GROWTH));
			fprintf(out,
				"    score %s (R^2 %s x grew in %s of steps), confidence %s (%s "
				"snapshots)\n",
				SHOWN(LC_SCORE), SHOWN(LC_R2), SHOWN(LC_GREW), SHOWN(LC_CONFIDENCE),
				SHOWN(LC_SNAPSHOTS));
#undef SHOWN
			fprintf(out, "    stack:\n");
			hr_stack_text(out, &h, exe, h.fn[k].stack);
		}
		break;
	case OUT_CSV:
		if (leaks_own(o)->suppressions)
			fprintf(stderr, "suppressed: %zu suspects\n", n_supp);
		err = table__print_cols(rows, out, OUT_CSV, leak_csv_cols,
					sizeof(leak_csv_cols) / sizeof(leak_csv_cols[0]));
		break;
	case OUT_JSON:
		hr_head_json(j, &h);
		json__kv_int(j, "snapshots", (int64_t)h.n_points);
		json__kv_string(j, "mode", at_exit ? "at_exit" : "age");
		json__key(j, "leaked_bytes");
		if (at_exit)
			json__int(j, (int64_t)leaked_bytes);
		else
			json__null(j);
		json__key(j, "leaked_count");
		if (at_exit)
			json__int(j, (int64_t)leaked_count);
		else
			json__null(j);
		json__kv_int(j, "leak_age_ns_used", leak_age);
		json__kv_string(j, "suppressions_file", leaks_own(o)->suppressions);
		json__kv_int(j, "suppressed", (int64_t)n_supp);
		json__kv_int(j, "suspect_count", (int64_t)n_sus);
		json__key(j, "suspects");
		json__begin_array(j);
		for (size_t k = 0; k < table__rows(rows); k++) {
			json__begin_object(j);
			table__json_fields(rows, j, k, NULL, LC_N);
			stack_json(j, &h, exe, h.fn[k].stack);
			json__end_object(j);
		}
		json__end_array(j);
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	table__free(rows);
	suppressions__free(&sup);
	hr_free(&h);
	return err;
}

/* ------------------------------------------------------------------ its report */

static int parse_suppressions(void *settings, const char *arg, char *err, size_t len)
{
	(void)err, (void)len;
	((struct leaks_opts *)settings)->suppressions = arg;
	return 0;
}

static const struct report_option leaks_options[] = {
    {"suppressions", "FILE",
     "leaks: drop suspects a LeakSanitizer leak:PATTERN\n"
     "line matches (function, file or module of a frame)",
     parse_suppressions},
    {0},
};

const struct an_report heap__leaks_report = {
	.name = "leaks",
	.order = 60,
	.summary = "functions holding allocations older than the leak age, ranked by\n"
		   "how steadily their live bytes grow (trend score, confidence), with\n"
		   "the stack",
	.tables = "heap_snapshot",
	.options = leaks_options,
	.settings_size = sizeof(struct leaks_opts),
	.top = "the first N functions (default 20)",
	.drops = "heap",
	.body = leaks_body,
};

int report_leaks(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out)
{
	return report__run(&heap__leaks_report, db, capture_id, o, out);
}
