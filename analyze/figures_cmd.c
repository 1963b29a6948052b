/* figures_cmd.c — the `figures` command: every figure of a capture's window, one row each, the
 * stable machine-readable summary a CI job keeps as history (analyze/figures.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/figures.h"

/* The rows: figure, value, unit, samples, of, up_is_worse, sampled, status, note. */
static int build(const struct fig_capture *c, struct table **out)
{
	static const char *const cols[] = {"figure",	  "value",   "unit",   "count", "of",
					   "up_is_worse", "sampled", "status", "note"};
	struct table *t = table__new(9, cols);
	char name[512], buf[64];
	int err = 0;

	if (!t)
		return -ENOMEM;
	for (size_t k = 0; k < c->n && !err; k++) {
		const struct fig_family *fam = &c->fam[k];
		const struct an_figure *f = fam->fig;
		bool sampled = f->test == FIG_TEST_PROPORTION;
		bool estimated = fam->measured && fam->sample_bytes > 0;
		char est[800];
		size_t rows = fam->measured && fam->n ? fam->n : 1;

		for (size_t i = 0; i < rows && !err; i++) {
			const struct fig_value *v = fam->measured && fam->n ? &fam->val[i] : NULL;

			err = table__add_row(t);
			err = err ?: table__set_text(t, 0,
						     an_figure__instance(f, v ? v->arg : NULL,
									 name, sizeof(name)));
			err = err ?: table__set_text(t, 2, fig_unit__name(f->unit));
			err = err ?: table__set_bool(t, 5, f->up_is_worse, NULL);
			err = err ?: table__set_bool(t, 6, sampled || estimated, NULL);
			if (err)
				break;
			if (!fam->measured) {
				err = table__set_display(t, 1, "not measured");
				err = err ?: table__set_text(t, 7, "not measured");
				err = err ?: table__set_text(t, 8, fam->reason);
				continue;
			}
			if (!v) { /* a parameterized figure without an instance */
				err = table__set_display(t, 1, "none");
				err = err ?: table__set_text(t, 7, "no instance");
				err = err ?: table__set_text(t, 8,
							     fam->complete ? "every instance is 0"
									   : fam->note);
				continue;
			}
			err = table__set_real(t, 1, v->v, fig_unit__format(f->unit, v->v, buf,
									   sizeof(buf)));
			if (f->test == FIG_TEST_PROPORTION || f->test == FIG_TEST_POISSON)
				err = err ?: table__set_int(t, 3, (int64_t)v->count, NULL);
			if (sampled)
				err = err ?: table__set_int(t, 4, (int64_t)fam->of, NULL);
			err = err ?: table__set_text(t, 7, "measured");
			if (!err && estimated) {
				snprintf(est, sizeof(est),
					 "estimated: one allocation sampled per %s on average, "
					 "about %.0f samples%s%s",
					 fmt_bytes(buf, sizeof(buf), (uint64_t)fam->sample_bytes),
					 fig_expected_samples(v->basis, fam->sample_bytes),
					 !fam->complete && fam->note[0] ? "; " : "",
					 !fam->complete ? fam->note : "");
				err = table__set_text(t, 8, est);
			} else if (!err && !fam->complete && fam->note[0])
				err = table__set_text(t, 8, fam->note);
		}
	}
	if (err) {
		table__free(t);
		return err;
	}
	*out = t;
	return 0;
}

static int print(const struct fig_capture *c, enum out_format fmt, FILE *out)
{
	struct table *t = NULL;
	struct report_opts o = {.fmt = fmt, .win = c->w};
	char w[96];
	struct json j;
	int err = build(c, &t);

	if (err)
		return err;
	report__begin(&j, out, &o, "figures", &c->m);
	switch (fmt) {
	case OUT_TEXT:
		window__describe(&c->w, w, sizeof(w));
		fprintf(out, "figures of capture %s (%s, %.3f s)\n", c->m.capture_id, w, c->span_s);
		err = table__print(t, out, OUT_TEXT);
		break;
	case OUT_CSV:
		err = table__print(t, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_real(&j, "span_s", c->span_s);
		json__key(&j, "figures");
		table__json(t, &j, NULL, 0);
		json__end_object(&j);
		err = json__end(&j);
		break;
	}
	table__free(t);
	return err;
}

int cmd_figures(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"window", required_argument, NULL, 'w'},
	    {"capture", required_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct fig_capture *fc = NULL;
	struct window win = {0};
	enum out_format fmt = OUT_TEXT;
	const char *capture_opt = NULL;
	char cid[DB_CAPTURE_ID_LEN], err_msg[256];
	sqlite3 *db = NULL;
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (out_format__parse(optarg, &fmt))
				return analyze_usage(
				    "figures", "--format takes text, json or csv, not '%s'", optarg);
			break;
		case 'w':
			if (window__parse(optarg, &win, err_msg, sizeof(err_msg)))
				return analyze_usage("figures", "%s", err_msg);
			break;
		case 'c':
			capture_opt = optarg;
			break;
		case 'h':
			analyze_cmd_help("figures", stdout);
			return ANALYZE_EXIT_OK;
		case ':':
			return analyze_usage("figures", "%s needs a value", argv[optind - 1]);
		default:
			return analyze_usage("figures", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return analyze_usage("figures", argc - optind < 1 ? "which FILE?"
								  : "too many arguments: one FILE");
	rc = analyze_open_checked("figures", argv[optind], capture_opt, NULL, &db, cid);
	if (rc)
		return rc;
	rc = fig_capture__compute(db, cid, &win, &fc);
	if (!rc) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		rc = out ? print(fc, fmt, out) : -ENOMEM;
		if (out && fclose(out) && !rc)
			rc = -ENOMEM;
		if (!rc && len && (fwrite(buf, 1, len, stdout) != len || fflush(stdout)))
			rc = -EIO;
		free(buf);
	}
	if (rc == -EIO && sqlite3_errcode(db) != SQLITE_OK && sqlite3_errcode(db) != SQLITE_ROW &&
	    sqlite3_errcode(db) != SQLITE_DONE)
		fprintf(stderr, "ptop-analyze figures: reading %s: %s\n", argv[optind],
			sqlite3_errmsg(db));
	else if (rc && rc != -EPROTO && rc != -EBADMSG)
		fprintf(stderr, "ptop-analyze figures: %s\n", strerror(-rc));
	fig_capture__free(fc);
	sqlite3_close(db);
	if (rc == -EPROTO || rc == -EBADMSG)
		return ANALYZE_EXIT_USAGE;
	return rc ? ANALYZE_EXIT_INTERNAL : ANALYZE_EXIT_OK;
}
