/* figures.c — the io collector's figures (analyze/figures.h): the bytes read and written
 * (the /proc lane, as `report io` sums its intervals), per file the bytes read and written
 * and the fsyncs (the per-file lane, --io-files, from io_files__load: the rows `report io`
 * prints), and the opens denied (the file-system events, --io-events or --io-files).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "collectors/io/report.h"

static int proc_lane(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	uint64_t sum[8];
	size_t n, nu = 0;
	struct io_unread *u = NULL;
	char why[160] = "";
	int err = io_rows__sum(c->db, c->m, &c->w, sum, &n);

	err = err ?: io_unread__load(c->db, c->m, &c->w, &u, &nu);
	if (err)
		return err;
	/* a process ended and reaped before the recorder's read: its last interval is not
	 * in the sums, which are lower bounds then (`report io` names them: "unread:") */
	if (nu)
		snprintf(why, sizeof(why),
			 "at least: the last interval of %zu process%s (pid %d%s) was not read, "
			 "the process had ended before the recorder's read",
			 nu, nu > 1 ? "es" : "", u[0].pid, nu > 1 ? ", ..." : "");
	free(u);
	if (!n) {
		fig_family__not_measured(fam, "no io sample in the window%s%s", nu ? "; " : "",
					 why);
		return 0;
	}
	if (nu) { /* a plain figure: not complete carries the note (figures' "note") */
		fam->complete = false;
		snprintf(fam->note, sizeof(fam->note), "%s", why);
	}
	return fig_family__add(fam, NULL,
			       (double)(!strcmp(f->name, "io.read_bytes") ? sum[0] : sum[1]), n);
}

static void files_free(void *p)
{
	struct {
		struct io_file_sum *f;
		size_t n;
	} *d = p;

	io_files__free(d->f, d->n);
	free(d);
}

static int files_lane(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	struct {
		struct io_file_sum *f;
		size_t n;
	} *d = fig_ctx__get(c, "io_files");
	char why[512];
	bool yes;
	int64_t fsyncs = 0;
	int err = io_files__collected(c->db, c->m, &yes, why, sizeof(why));

	if (err)
		return err;
	if (!yes) {
		fig_family__not_measured(fam, "per-file figures not collected: %s", why);
		return 0;
	}
	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return -ENOMEM;
		err = io_files__load(c->db, c->m, &c->w, &d->f, &d->n);
		if (err) {
			free(d);
			return err;
		}
		err = fig_ctx__put(c, "io_files", d, files_free);
		if (err)
			return err;
	}
	if (!strcmp(f->name, "io.fsyncs")) {
		for (size_t i = 0; i < d->n; i++)
			fsyncs += d->f[i].fsyncs;
		return fig_family__add(fam, NULL, (double)fsyncs, (uint64_t)fsyncs);
	}
	/* io.file_bytes(PATH): every file with bytes, by its newest path (its identity when
	 * no path is known); files of one path summed */
	for (size_t i = 0; !err && i < d->n; i++) {
		int64_t v = d->f[i].read_bytes + d->f[i].written_bytes;

		if (v > 0)
			err = fig_family__accumulate(fam, d->f[i].path ? d->f[i].path : d->f[i].file,
						     (double)v, 1);
	}
	return err;
}

static int denied(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	uint64_t n[5];
	bool collected;
	int err = io_events__count(c->db, c->m, &c->w, &collected, n);

	(void)f;
	if (err)
		return err;
	if (!collected) {
		fig_family__not_measured(fam, "file-system events not collected (--io-events "
					      "or --io-files)");
		return 0;
	}
	return fig_family__add(fam, NULL, (double)n[0], n[0]);
}

static const struct an_figure read_bytes = {
	"io.read_bytes", "io", FIG_BYTES, true, false, FIG_TEST_NONE,
	"bytes read by read-like syscalls (/proc/PID/io rchar, page cache hits too)", proc_lane,
};
static const struct an_figure written_bytes = {
	"io.written_bytes", "io", FIG_BYTES, true, false, FIG_TEST_NONE,
	"bytes written by write-like syscalls (/proc/PID/io wchar)", proc_lane,
};
static const struct an_figure file_bytes = {
	"io.file_bytes(*)", "io", FIG_BYTES, true, false, FIG_TEST_NONE,
	"bytes read and written on file PATH (its newest path; --io-files)", files_lane,
};
static const struct an_figure fsyncs = {
	"io.fsyncs", "io", FIG_COUNT, true, false, FIG_TEST_NONE,
	"fsync, fdatasync and sync_file_range calls on files (--io-files)", files_lane,
};
static const struct an_figure denied_opens = {
	"io.denied", "io", FIG_COUNT, true, false, FIG_TEST_NONE,
	"opens denied with EACCES or EPERM (--io-events or --io-files)", denied,
};

const struct an_figure *const io_figures[] = {&read_bytes, &written_bytes, &file_bytes,
					      &fsyncs,	   &denied_opens,  NULL};
