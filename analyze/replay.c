/* replay.c — `ptop-analyze replay`: play a capture back in the terminal, or print one frame. */
#include "analyze/replay.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/analyze.h"
#include "analyze/replay_views.h"

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

/* the live viewer: draw, wait for a key or the next frame, apply it */
static int run_live(struct replay_model *m, int tab, bool play)
{
	struct replay_ui ui = {.tab = tab};
	struct grid *g = NULL;
	struct term *t;
	char err[256];
	int64_t last;
	int w, h, rc = ANALYZE_EXIT_OK, quit = 0;

	t = term__open(err, sizeof(err));
	if (!t) {
		fprintf(stderr, "ptop-analyze replay: %s\n", err);
		return ANALYZE_EXIT_USAGE;
	}
	m->playing = play;
	last = now_ns();
	while (!quit && !term__interrupted()) {
		int key;

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
		key = term__key(t, m->playing ? 40 : 500);
		replay_model__tick(m, now_ns() - last);
		last = now_ns();
		if (key && key != RK_RESIZE)
			quit = replay__key(m, &ui, key);
	}
	term__close(t);
	grid__free(g);
	return rc;
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
	    {"help", no_argument, NULL, 'h'},	       {0}};
	const char *capture_opt = NULL, *name = "replay";
	char capture_id[DB_CAPTURE_ID_LEN], err[256];
	struct replay_model *m = NULL;
	bool dump = false, play = false;
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
	rc = analyze_open_checked(name, argv[optind], capture_opt, NULL, &db, capture_id);
	if (rc)
		return rc;
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
		replay_model__seek(m, at);
		rc = run_live(m, tab, play);
	}
cleanup:
	replay_model__free(m);
	sqlite3_close(db);
	return rc;
}
