/* replay.c — `ptop-analyze replay`: play a capture back in the terminal, or print one frame. */
#include "analyze/replay.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "analyze/db.h"
#include "analyze/follow.h"
#include "analyze/replay_views.h"
#include "common/duration.h"

int replay_dump(struct replay_model *m, int tab, int64_t at_ns, int w, int h, FILE *out)
{
	struct replay_ui ui = {.tab = tab};
	struct grid *g = grid__new(w, h);
	char *text = NULL;
	int err = 0;

	if (!g)
		return -errno;
	replay_model__seek(m, at_ns);
	replay__render(m, &ui, g);
	text = grid__to_text(g);
	if (!text) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (fputs(text, out) == EOF || fflush(out))
		err = -EIO;
cleanup:
	free(text);
	grid__free(g);
	return err;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* replay --follow: how the recording ended, from the capture row the load's end wrote,
 * in export --format jsonl's words: trailer (and its reason), cut, corrupt or error. */
static void follow_end(struct replay_model *m, struct replay_ui *ui)
{
	sqlite3_stmt *st = NULL;
	const char *end = m->meta.read_end;

	if (!replay_model__prepare(m,
				   "SELECT end_reason, target_exit_code, target_term_signal "
				   "FROM capture WHERE cap = ?1 AND end_reason IS NOT NULL",
				   &st) &&
	    sqlite3_step(st) == SQLITE_ROW) {
		char why[64];

		rm_col_str(st, 0, why, sizeof(why));
		if (rm_col(st, 1) != RM_NULL)
			snprintf(ui->follow, sizeof(ui->follow),
				 "recording ended: trailer, %s (exit code %lld)", why,
				 (long long)rm_col(st, 1));
		else if (rm_col(st, 2) != RM_NULL)
			snprintf(ui->follow, sizeof(ui->follow),
				 "recording ended: trailer, %s (killed by signal %lld)", why,
				 (long long)rm_col(st, 2));
		else
			snprintf(ui->follow, sizeof(ui->follow), "recording ended: trailer, %s",
				 why);
	} else {
		snprintf(ui->follow, sizeof(ui->follow), "recording ended: %s, no trailer",
			 !strcmp(end, "corrupt") ? "corrupt" : !strcmp(end, "io") ? "error" : "cut");
	}
	sqlite3_finalize(st);
}

/* replay --follow: reading the model again costs about what the capture holds (0.1 s of
 * CPU at an hour), while loading new frames costs what they hold. Frames are loaded at
 * every poll; the model is read again when they grew, but no sooner than REFRESH_SHARE
 * times the last read's own time after it: the viewer then takes at most a tenth of a
 * CPU however long the capture (0.68 of the recorder's CPU at an hour before), and is
 * behind the file by that wait (about 1 s at an hour). The end is shown at once. */
#define REFRESH_SHARE 9
struct follow_pace {
	int64_t next_ns; /* no model read before this */
	bool pending;	 /* rows were loaded that the model has not read */
};

/* replay --follow: one step of the load; the model read again when it grew (paced). */
static void follow_step(struct db_follow **fo, struct follow_pace *pace, struct replay_model *m,
			struct replay_ui *ui)
{
	char err[512];
	int k = db__follow_step(*fo, NULL, err, sizeof(err));
	int64_t t0;

	if (k == DB_FOLLOW_GREW)
		pace->pending = true;
	if (k == DB_FOLLOW_SAME && !pace->pending)
		return;
	if (k >= 0 && k != DB_FOLLOW_END && now_ns() < pace->next_ns)
		return; /* read later: the rows are committed, the model is behind */
	t0 = now_ns();
	if (k >= 0 && replay_model__refresh(m, err, sizeof(err)))
		k = -EIO;
	pace->pending = false;
	pace->next_ns = now_ns() + (now_ns() - t0) * REFRESH_SHARE;
	if (k == DB_FOLLOW_GREW || k == DB_FOLLOW_SAME) {
		snprintf(ui->follow, sizeof(ui->follow), "LIVE: following the recording");
		return;
	}
	ui->live = false;
	if (k == DB_FOLLOW_END)
		follow_end(m, ui);
	else
		snprintf(ui->follow, sizeof(ui->follow), "following stopped: %.170s", err);
	db__follow_free(*fo);
	*fo = NULL;
}

/* the live viewer: draw, wait for a key or the next frame, apply it; with FO (replay
 * --follow) the capture's new frames are loaded between the keys */
static int run_live(struct replay_model *m, int tab, bool play, struct db_follow *fo)
{
	struct replay_ui ui = {.tab = tab};
	struct follow_pace pace = {0};
	struct grid *g = NULL;
	struct term *t;
	char err[256];
	int64_t last;
	int w, h, rc = ANALYZE_EXIT_OK, quit = 0;

	t = term__open(err, sizeof(err));
	if (!t) {
		fprintf(stderr, "ptop-analyze replay: %s\n", err);
		db__follow_free(fo);
		return ANALYZE_EXIT_USAGE;
	}
	if (fo) {
		ui.live = true;
		snprintf(ui.follow, sizeof(ui.follow), "LIVE: following the recording");
		follow_step(&fo, &pace, m, &ui);
	}
	m->playing = play;
	last = now_ns();
	while (!quit && !term__interrupted()) {
		int key, wait = m->playing ? 40 : 500;

		term__size(t, &w, &h);
		if (w < 1 || h < 1)
			w = h = 1;
		if (!g)
			g = grid__new(w, h);
		else if (g->w != w || g->h != h)
			grid__resize(g, w, h);
		if (!g) {
			rc = ANALYZE_EXIT_INTERNAL;
			break;
		}
		replay__render(m, &ui, g);
		term__paint(t, g);
		if (fo && wait > (int)(FOLLOW_POLL_NS / 1000000))
			wait = (int)(FOLLOW_POLL_NS / 1000000); /* the follower's poll */
		key = term__key(t, wait);
		replay_model__tick(m, now_ns() - last);
		last = now_ns();
		if (key && key != RK_RESIZE)
			quit = replay__key(m, &ui, key);
		if (fo && !quit)
			follow_step(&fo, &pace, m, &ui);
	}
	term__close(t);
	grid__free(g);
	db__follow_free(fo);
	return rc;
}

/* replay --follow's DB: a private one, not the cache (a capture read in part is never
 * published as an entry), in a temporary folder removed at once (the open file stays
 * the connection's; its journal in memory, so nothing is left behind). */
static int open_follow_db(sqlite3 **db, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], path[PATH_MAX + 16];
	int e;

	snprintf(dir, sizeof(dir), "%s/ptop-follow.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		e = errno;
		snprintf(err, errlen, "cannot make a temporary folder in %s: %s (set TMPDIR)",
			 tmp && *tmp ? tmp : "/tmp", strerror(e));
		return -e;
	}
	snprintf(path, sizeof(path), "%s/follow.db", dir);
	e = db__open(path, true, false, db, err, errlen);
	if (!e && sqlite3_exec(*db, "PRAGMA journal_mode = MEMORY", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot set up the temporary DB: %s", sqlite3_errmsg(*db));
		sqlite3_close(*db);
		*db = NULL;
		e = -EIO;
	}
	unlink(path);
	rmdir(dir);
	return e;
}

static int parse_size(const char *s, int *w, int *h)
{
	char *end;
	long a, b;

	a = strtol(s, &end, 10);
	if (end == s || (*end != 'x' && *end != 'X'))
		return -EINVAL;
	s = end + 1;
	b = strtol(s, &end, 10);
	if (end == s || *end || a < 1 || b < 1 || a > 1000 || b > 1000)
		return -EINVAL;
	*w = (int)a;
	*h = (int)b;
	return 0;
}

/* the tabs' ids, "overview, syscalls, ..": returns BUF */
static const char *tab_ids(char *buf, size_t len)
{
	const struct replay_tabs *t = replay__tabs();
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < t->n && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      t->tab[i].view[0]->id);
	return buf;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"dump", no_argument, NULL, 'd'},	       {"at", required_argument, NULL, 'a'},
	    {"tab", required_argument, NULL, 't'},     {"size", required_argument, NULL, 's'},
	    {"capture", required_argument, NULL, 'c'}, {"play", no_argument, NULL, 'p'},
	    {"follow", no_argument, NULL, 'F'},	       {"follow-timeout", required_argument, NULL, 'T'},
	    {"help", no_argument, NULL, 'h'},	       {0}};
	const char *capture_opt = NULL, *name = "replay";
	char capture_id[DB_CAPTURE_ID_LEN], err[256];
	struct replay_model *m = NULL;
	bool dump = false, play = false, follow = false, at_given = false;
	uint64_t follow_timeout = 0;
	struct db_follow *fo = NULL;
	int64_t at = 0;
	int c, tab = 0, w = 160, h = 48, rc;
	sqlite3 *db = NULL;

	optind = 1;
	opterr = 0;
	/* options anywhere, as in every other command (getopt permutes) */
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dump = true;
			break;
		case 'a':
			if (replay__parse_time(optarg, &at))
				return analyze_usage(
				    name, "--at %s: not a time (12.5s, 1:30, 1500ms)", optarg);
			at_given = true;
			break;
		case 't':
			tab = replay__find_view(optarg);
			if (tab < 0) {
				char ids[512];

				return analyze_usage(name, "--tab %s: no such tab (%s)", optarg,
						     tab_ids(ids, sizeof(ids)));
			}
			break;
		case 's':
			if (parse_size(optarg, &w, &h))
				return analyze_usage(name, "--size %s: expected WxH, e.g. 160x48",
						     optarg);
			break;
		case 'c':
			capture_opt = optarg;
			break;
		case 'p':
			play = true;
			break;
		case 'F':
			follow = true;
			break;
		case 'T':
			if (duration__parse(optarg, 86400000000000ull, DURATION_NONZERO,
					    &follow_timeout))
				return analyze_usage(name,
						     "--follow-timeout takes a duration above 0 (10s, "
						     "500ms), not '%s'",
						     optarg);
			break;
		case 'h':
			analyze_cmd_help(name, stdout);
			return ANALYZE_EXIT_OK;
		case ':':
			return analyze_usage(name, "%s needs a value", argv[optind - 1]);
		default:
			return analyze_usage(name, "unknown option %s", argv[optind - 1]);
		}
	}
	if (optind == argc)
		return analyze_usage(name, "which FILE? give one capture or DB file");
	if (optind != argc - 1)
		return analyze_usage(name, "one capture or DB file, not %d: '%s', '%s'%s",
				     argc - optind, argv[optind], argv[optind + 1],
				     argc - optind > 2 ? ", ..." : "");
	if (follow_timeout && !follow)
		return analyze_usage(name, "--follow-timeout is for --follow");
	if (follow && (dump || capture_opt || at_given))
		return analyze_usage(name, "--follow is for the live viewer of one capture file, "
					   "from its end: not with %s",
				     dump ? "--dump" : capture_opt ? "--capture" : "--at");
	if (follow) {
		/* a private DB the frames are appended to as they arrive (analyze/db.h) */
		rc = open_follow_db(&db, err, sizeof(err));
		if (!rc)
			rc = db__follow_open(db, argv[optind], follow_timeout, &fo, capture_id, err,
					     sizeof(err));
		if (rc) {
			fprintf(stderr, "ptop-analyze replay: %s\n", err);
			sqlite3_close(db);
			return rc == -ENOENT || rc == -EBADMSG || rc == -ENOTSUP
				   ? ANALYZE_EXIT_USAGE
				   : analyze_exit_code(rc);
		}
	} else {
		rc = analyze_open_checked(name, argv[optind], capture_opt, NULL, &db, capture_id);
		if (rc)
			return rc;
	}
	m = replay_model__open(db, capture_id, err, sizeof(err));
	if (!m) {
		fprintf(stderr, "ptop-analyze replay: %s\n", err);
		rc = analyze_exit_code(-errno);
		goto cleanup;
	}
	if (dump) {
		int e = replay_dump(m, tab, at, w, h, stdout);

		if (e) {
			fprintf(stderr, "ptop-analyze replay: cannot write the frame: %s\n",
				strerror(-e));
			rc = ANALYZE_EXIT_INTERNAL;
		}
	} else {
		/* following: at the end, which moves as the recording goes on */
		replay_model__seek(m, follow ? INT64_MAX : at);
		rc = run_live(m, tab, play, fo);
		fo = NULL;
	}
cleanup:
	db__follow_free(fo);
	replay_model__free(m);
	sqlite3_close(db);
	return rc;
}
