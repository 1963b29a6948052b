/* options.c — ptop-record's command line: parsing, durations, --help, the default file name. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/duration.h"
#include "common/units.h"
#include "record/record.h"
#include "record/stackcopy.h"

#define NS_PER_SEC 1000000000ull
#define MIN_INTERVAL_NS 1000000ull /* 1 ms: anything shorter is a busy loop */

enum {
	OPT_FORCE = 256,
	OPT_DURATION,
	OPT_INTERVAL,
	OPT_FLUSH_INTERVAL,
	OPT_DISABLE,
	OPT_ENABLE,
	OPT_NO_EBPF,
	OPT_CAPS,
	OPT_SMAPS_BUDGET,
	OPT_CGROUP,
	OPT_USER_STACKS,
	OPT_STRICT,
	OPT_COLLECTOR = 1024,        /* + the index in the collectors' options (struct copts) */
};

/* The core's options; the collectors' follow them in the array getopt_long reads. */
static const struct option core_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "flush-interval", required_argument, NULL, OPT_FLUSH_INTERVAL },
	{ "disable", required_argument, NULL, OPT_DISABLE },
	{ "enable", required_argument, NULL, OPT_ENABLE },
	{ "no-ebpf", no_argument, NULL, OPT_NO_EBPF },
	{ "caps", no_argument, NULL, OPT_CAPS },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "smaps-budget", required_argument, NULL, OPT_SMAPS_BUDGET },
	{ "user-stacks", required_argument, NULL, OPT_USER_STACKS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
};

#define N_CORE_OPTS (sizeof(core_opts) / sizeof(core_opts[0]))

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int parse_interval(const char *opt, const char *arg, uint64_t min_ns, uint64_t *ns,
			  char *err, size_t errlen)
{
	uint64_t v;
	int r = duration__parse(arg, UINT64_MAX, DURATION_NONZERO | DURATION_EXPONENT, &v);

	if (r == -ERANGE) {
		/* 2^64 - 1 ns = 5124095 h 34 min 33.7 s */
		set_err(err, errlen,
			"%s '%s' is too long: the maximum is 5124095h (2^64-1 ns, about 584 "
			"years)",
			opt, arg);
		return -EINVAL;
	}
	if (r == -EDOM) {
		set_err(err, errlen,
			"%s '%s': exponents are not accepted: write the number in digits with "
			"a unit, e.g. 1000s or 2.5m",
			opt, arg);
		return -EINVAL;
	}
	if (r) {
		set_err(err, errlen,
			"%s '%s' is not a duration: give a positive number with a unit, "
			"e.g. 500ms, 2s, 1.5m (units ns us ms s m h; none means s)",
			opt, arg);
		return -EINVAL;
	}
	if (v < min_ns) {
		set_err(err, errlen, "%s '%s' is too short: the minimum is 1ms", opt, arg);
		return -EINVAL;
	}
	*ns = v;
	return 0;
}

static int parse_pid(const char *arg, pid_t *pid, char *err, size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0 || v > INT32_MAX) {
		set_err(err, errlen, "--pid '%s' is not a process id: give a positive number", arg);
		return -EINVAL;
	}
	*pid = (pid_t)v;
	return 0;
}

static void valid_names(const struct collector_ops *const *table, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; table && table[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					table[i]->name);
}

static bool in_list(char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

/* Add the comma-separated collector names of ARG (for option OPT: --disable or
 * --enable) to *LIST, each checked against TABLE. 0 or -errno with ERR set. */
static int add_names(char ***list, size_t *n, const char *opt, const char *arg,
		     const struct collector_ops *const *table, char *err, size_t errlen)
{
	char *copy, *tok, *save = NULL, **v;
	char names[256];
	size_t i, ntok = 0;
	int err_rc = 0;

	copy = strdup(arg);
	if (!copy) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool known = false;

		ntok++;
		for (i = 0; table && table[i]; i++)
			known |= strcmp(table[i]->name, tok) == 0;
		if (!known) {
			valid_names(table, names, sizeof(names));
			set_err(err, errlen, "%s: unknown collector '%s': the collectors are %s", opt,
				tok, names);
			err_rc = -EINVAL;
			goto cleanup;
		}
		if (in_list(*list, *n, tok))
			continue;
		v = realloc(*list, (*n + 1) * sizeof(*v));
		if (!v) {
			set_err(err, errlen, "out of memory");
			err_rc = -ENOMEM;
			goto cleanup;
		}
		*list = v;
		(*list)[*n] = strdup(tok);
		if (!(*list)[*n]) {
			set_err(err, errlen, "out of memory");
			err_rc = -ENOMEM;
			goto cleanup;
		}
		(*n)++;
	}
	if (!ntok) {
		set_err(err, errlen, "%s '%s' names no collector", opt, arg);
		err_rc = -EINVAL;
	}
cleanup:
	free(copy);
	return err_rc;
}

/* ------------------------------------------------------------------ collector options */

int copt_parse_flag(const struct collector_opt *o, const char *arg, void *field, char *err,
		    size_t errlen)
{
	(void)o;
	(void)arg;
	(void)err;
	(void)errlen;
	*(bool *)field = true;
	return 0;
}

int copt_parse_uint(const struct collector_opt *o, const char *arg, void *field, char *err,
		    size_t errlen)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v < o->min || v > o->max ||
	    v > UINT_MAX) {
		set_err(err, errlen, "--%s takes a whole number from %" PRIu64 " to %" PRIu64
			", not '%s'", o->name, o->min, o->max, arg);
		return -EINVAL;
	}
	*(unsigned *)field = (unsigned)v;
	return 0;
}

int copt_parse_duration(const struct collector_opt *o, const char *arg, void *field, char *err,
			size_t errlen)
{
	char opt[64];

	snprintf(opt, sizeof(opt), "--%s", o->name);
	return parse_interval(opt, arg, o->min, field, err, errlen);
}

/* Every collector option of TABLE, in collectors.def order then table order: what
 * getopt_long learns (LONG, after the core's), and whose it is. */
struct copt_ref {
	const struct collector_ops *ops;
	const struct collector_opt *opt;
};

/* the core's short options: '+' stops at the command, ':' reports a missing value; -g is
 * perf's "record call graphs", accepted as stacks are always taken */
#define CORE_SHORTOPTS "+:p:o:qvhVg"

struct copts {
	struct copt_ref *v;          /* owned; n */
	size_t n;
	struct option *longopts;     /* owned: the core's, then v's, then the end */
	char shortopts[64];          /* CORE_SHORTOPTS and the collectors' short names */
};

static void copts__free(struct copts *c)
{
	free(c->v);
	free(c->longopts);
	memset(c, 0, sizeof(*c));
}

static int copts__build(struct copts *c, const struct collector_ops *const *table)
{
	size_t i, j, n = 0;

	memset(c, 0, sizeof(*c));
	for (i = 0; table && table[i]; i++)
		for (j = 0; table[i]->opts && table[i]->opts[j].name; j++)
			n++;
	c->v = calloc(n ? n : 1, sizeof(*c->v));
	c->longopts = calloc(N_CORE_OPTS + n + 1, sizeof(*c->longopts));
	if (!c->v || !c->longopts) {
		copts__free(c);
		return -ENOMEM;
	}
	memcpy(c->longopts, core_opts, sizeof(core_opts));
	snprintf(c->shortopts, sizeof(c->shortopts), "%s", CORE_SHORTOPTS);
	for (i = 0; table && table[i]; i++) {
		for (j = 0; table[i]->opts && table[i]->opts[j].name; j++) {
			const struct collector_opt *o = &table[i]->opts[j];
			struct option *lo = &c->longopts[N_CORE_OPTS + c->n];
			size_t at = strlen(c->shortopts);

			/* a short name the core or another collector has is a bug: refused */
			if (o->short_name && (strchr(c->shortopts, o->short_name) ||
					      at + 3 > sizeof(c->shortopts))) {
				copts__free(c);
				return -EEXIST;
			}
			if (o->short_name)
				snprintf(c->shortopts + at, sizeof(c->shortopts) - at, "%c%s",
					 o->short_name, o->arg && o->arg[0] != '[' ? ":" : "");

			lo->name = o->name;
			lo->has_arg = !o->arg ? no_argument :
				      o->arg[0] == '[' ? optional_argument : required_argument;
			lo->val = OPT_COLLECTOR + (int)c->n;
			c->v[c->n].ops = table[i];
			c->v[c->n].opt = o;
			c->n++;
		}
	}
	return 0;
}

static void *copt_field(const struct copt_ref *r)
{
	return (char *)r->ops->settings + r->opt->offset;
}

/* Every collector's settings zeroed, then its defaults parsed. 0, or -EINVAL when a
 * default does not parse (a collector's bug, said in ERR). */
static int copts__defaults(const struct copts *c, const struct collector_ops *const *table,
			   char *err, size_t errlen)
{
	size_t i;
	int r;

	for (i = 0; table && table[i]; i++)
		if (table[i]->settings)
			memset(table[i]->settings, 0, table[i]->settings_size);
	for (i = 0; i < c->n; i++) {
		if (!c->v[i].opt->def)
			continue;
		r = c->v[i].opt->parse(c->v[i].opt, c->v[i].opt->def, copt_field(&c->v[i]), err,
				       errlen);
		if (r)
			return r;
	}
	return 0;
}

static int parse_args(struct record_opts *o, int argc, char **argv,
		      const struct collector_ops *const *table, const struct copts *co, char *err,
		      size_t errlen);

int record_opts__parse(struct record_opts *o, int argc, char **argv,
		       const struct collector_ops *const *table, char *err, size_t errlen)
{
	struct copts co;
	int r;

	memset(o, 0, sizeof(*o));
	o->interval_ns = NS_PER_SEC;
	o->flush_interval_ns = NS_PER_SEC;
	o->smaps_budget_ns = RECORD_DEFAULT_SMAPS_BUDGET_NS;
	o->argc = argc;
	o->argv = argv;
	if (err && errlen)
		err[0] = '\0';
	r = copts__build(&co, table);
	if (r) {
		set_err(err, errlen, r == -EEXIST ? "two options have one short name" : "out of memory");
		return r;
	}
	r = copts__defaults(&co, table, err, errlen);
	if (!r)
		r = parse_args(o, argc, argv, table, &co, err, errlen);
	copts__free(&co);
	return r;
}

/* One option of the core (not a collector's), C as getopt_long() gave it, into O. 0;
 * 1 when parsing ends here (--help, --version: nothing else is checked); -EINVAL with
 * ERR for a bad value or an unknown option. */
static int parse_core_opt(struct record_opts *o, int c, char **argv,
			  const struct collector_ops *const *table, char *err, size_t errlen)
{
	const char *prog = "ptop-record";
	int r;

	switch (c) {
	case 'p':
		r = parse_pid(optarg, &o->pid, err, errlen);
		if (r)
			return r;
		break;
	case OPT_CGROUP:
		if (!*optarg) {
			set_err(err, errlen,
				"--cgroup needs a cgroup path or a container id");
			return -EINVAL;
		}
		o->cgroup = optarg;
		break;
	case 'o':
		if (!*optarg) {
			set_err(err, errlen, "-o needs a file name");
			return -EINVAL;
		}
		o->output = optarg;
		break;
	case OPT_FORCE:
		o->force = true;
		break;
	case OPT_DURATION:
		r = parse_interval("--duration", optarg, 1, &o->duration_ns, err, errlen);
		if (r)
			return r;
		break;
	case OPT_INTERVAL:
		r = parse_interval("--interval", optarg, MIN_INTERVAL_NS, &o->interval_ns,
				   err, errlen);
		if (r)
			return r;
		break;
	case OPT_FLUSH_INTERVAL:
		r = parse_interval("--flush-interval", optarg, MIN_INTERVAL_NS,
				   &o->flush_interval_ns, err, errlen);
		if (r)
			return r;
		break;
	case OPT_DISABLE:
		r = add_names(&o->disabled, &o->n_disabled, "--disable", optarg, table, err,
			      errlen);
		if (r)
			return r;
		break;
	case OPT_ENABLE:
		r = add_names(&o->enabled, &o->n_enabled, "--enable", optarg, table, err,
			      errlen);
		if (r)
			return r;
		break;
	case OPT_NO_EBPF:
		o->no_ebpf = true;
		break;
	case OPT_CAPS:
		o->caps = true;
		break;
	case OPT_STRICT:
		o->strict = true;
		break;
	case OPT_SMAPS_BUDGET:
		r = parse_interval("--smaps-budget", optarg, 1, &o->smaps_budget_ns, err,
				   errlen);
		if (r)
			return r;
		break;
	case OPT_USER_STACKS: {
		enum user_stacks us;

		if (user_stacks_parse(optarg, &us)) {
			set_err(err, errlen,
				"--user-stacks takes fp, dwarf or auto, not '%s'", optarg);
			return -EINVAL;
		}
		o->user_stacks = (int)us;
		break;
	}
	case 'g': /* perf's call graphs: the stacks are taken anyway */
		break;
	case 'q':
		o->quiet = true;
		break;
	case 'v':
		o->verbose = true;
		break;
	case 'h':
		o->help = true;
		return 1;
	case 'V':
		o->version = true;
		return 1;
	case ':':
		set_err(err, errlen, "option '%s' needs a value: see %s --help",
			argv[optind - 1], prog);
		return -EINVAL;
	default:
		if (optopt && optopt < 256)
			set_err(err, errlen, "unknown option '-%c': see %s --help", optopt,
				prog);
		else
			set_err(err, errlen, "unknown option '%s': see %s --help",
				argv[optind - 1], prog);
		return -EINVAL;
	}
	return 0;
}

/* The target O names once the options are read: exactly one of --pid, --cgroup and a
 * command (--caps: none). 0, or -EINVAL with ERR. */
static int check_target(const struct record_opts *o, char *err, size_t errlen)
{
	const char *prog = "ptop-record";

	if (o->caps) {
		if (o->pid || o->cmd || o->cgroup) {
			set_err(err, errlen,
				"--caps takes no target: run it alone (ptop-record --caps)");
			return -EINVAL;
		}
		return 0;
	}
	if (o->pid && o->cmd) {
		set_err(err, errlen,
			"give either --pid PID or a command after --, not both (the command "
			"starts with '%s')",
			o->cmd[0]);
		return -EINVAL;
	}
	if (o->cgroup && (o->pid || o->cmd)) {
		set_err(err, errlen,
			"give one target: --cgroup records a whole cgroup, so it takes neither --pid "
			"nor a command after --");
		return -EINVAL;
	}
	if (!o->pid && !o->cmd && !o->cgroup) {
		set_err(err, errlen,
			"nothing to record: give --pid PID, --cgroup SPEC or -- COMMAND [ARGS...] "
			"(see %s --help)",
			prog);
		return -EINVAL;
	}
	return 0;
}

/* What the collectors of TABLE say of the choices in O (their opts_check), and that
 * --enable and --disable agree and leave something to record. 0, or -EINVAL with ERR. */
static int check_collectors(const struct record_opts *o, const struct collector_ops *const *table,
			    char *err, size_t errlen)
{
	int r;

	for (size_t i = 0; table && table[i]; i++) {
		struct copt_choice ch = {
			.runs = record_opts__runs(o, table[i]),
			.command = o->cmd != NULL,
		};

		if (table[i]->opts_check) {
			r = table[i]->opts_check(&ch, err, errlen);
			if (r)
				return r;
		}
	}
	for (size_t i = 0; i < o->n_enabled; i++) {
		if (record_opts__disabled(o, o->enabled[i])) {
			set_err(err, errlen, "'%s' is both in --enable and in --disable",
				o->enabled[i]);
			return -EINVAL;
		}
	}
	if (table) {
		size_t runs = 0;

		for (size_t i = 0; table[i]; i++)
			runs += record_opts__runs(o, table[i]);
		if (!runs) {
			set_err(err, errlen, "--disable switches off every collector: nothing to record");
			return -EINVAL;
		}
	}
	return 0;
}

static int parse_args(struct record_opts *o, int argc, char **argv,
		      const struct collector_ops *const *table, const struct copts *co, char *err,
		      size_t errlen)
{
	int c, r;

	optind = 0; /* full reinitialisation, so the parser can run more than once */
	opterr = 0;
	/* '+': the first non-option ends the options (it starts the command) */
	while ((c = getopt_long(argc, argv, co->shortopts, co->longopts, NULL)) != -1) {
		/* a collector option's short name: that option */
		for (size_t i = 0; c > 0 && c < 256 && c != ':' && c != '?' && i < co->n; i++)
			if (co->v[i].opt->short_name == c) {
				c = OPT_COLLECTOR + (int)i;
				break;
			}
		if (c >= OPT_COLLECTOR && (size_t)(c - OPT_COLLECTOR) < co->n) {
			const struct copt_ref *ref = &co->v[c - OPT_COLLECTOR];

			r = ref->opt->parse(ref->opt, optarg, copt_field(ref), err, errlen);
		} else {
			r = parse_core_opt(o, c, argv, table, err, errlen);
		}
		if (r)
			return r > 0 ? 0 : r;
	}
	if (optind < argc)
		o->cmd = &argv[optind];
	r = check_target(o, err, errlen);
	if (r || o->caps)
		return r;
	return check_collectors(o, table, err, errlen);
}

void record_opts__free(struct record_opts *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->n_disabled; i++)
		free(o->disabled[i]);
	free(o->disabled);
	o->disabled = NULL;
	o->n_disabled = 0;
	for (i = 0; i < o->n_enabled; i++)
		free(o->enabled[i]);
	free(o->enabled);
	o->enabled = NULL;
	o->n_enabled = 0;
}

bool record_opts__disabled(const struct record_opts *o, const char *name)
{
	return in_list(o->disabled, o->n_disabled, name);
}

bool record_opts__enabled(const struct record_opts *o, const char *name)
{
	return in_list(o->enabled, o->n_enabled, name);
}

bool record_opts__runs(const struct record_opts *o, const struct collector_ops *ops)
{
	return !record_opts__disabled(o, ops->name) &&
	       (!ops->off_by_default || record_opts__enabled(o, ops->name));
}

#define HELP_COL 26 /* where the text of an option starts in --help */

/* One collector option in --help: "      --NAME ARG", its text from column HELP_COL
 * (on the next line when the name leaves less than two spaces), each further line of
 * its text indented to that column. */
static void copt_usage_one(FILE *f, const struct collector_opt *o)
{
	const char *h = o->help ? o->help : "", *nl;
	int w;

	if (o->short_name)
		w = fprintf(f, "  -%c, --%s%s%s", o->short_name, o->name,
			    o->arg && o->arg[0] != '[' ? " " : "", o->arg ? o->arg : "");
	else
		w = fprintf(f, "      --%s%s%s", o->name, o->arg && o->arg[0] != '[' ? " " : "",
			    o->arg ? o->arg : "");
	if (w > HELP_COL - 2)
		fprintf(f, "\n%*s", HELP_COL, "");
	else
		fprintf(f, "%*s", HELP_COL - w, "");
	for (;;) {
		nl = strchr(h, '\n');
		if (!nl) {
			fprintf(f, "%s\n", h);
			break;
		}
		fprintf(f, "%.*s\n%*s", (int)(nl - h), h, HELP_COL, "");
		h = nl + 1;
	}
}

/* The collectors' options listed under heading SECTION, by their order, then
 * collectors.def order, then table order. */
static void copt_usage(FILE *f, const struct collector_ops *const *table,
		       enum copt_section section)
{
	unsigned cur = 0, next;
	bool more = true;
	size_t i, j;

	/* one pass per order value, lowest first: the lists are a handful long */
	while (more) {
		more = false;
		next = UINT_MAX;
		for (i = 0; table && table[i]; i++) {
			for (j = 0; table[i]->opts && table[i]->opts[j].name; j++) {
				const struct collector_opt *o = &table[i]->opts[j];

				if (o->section != section)
					continue;
				if (o->order == cur)
					copt_usage_one(f, o);
				else if (o->order > cur && o->order < next)
					next = o->order;
			}
		}
		if (next != UINT_MAX) {
			cur = next;
			more = true;
		}
	}
}

void record_usage(FILE *f, const struct collector_ops *const *table)
{
	size_t i;

	fputs("Usage: ptop-record [OPTIONS] --pid PID\n"
	      "       ptop-record [OPTIONS] --cgroup SPEC\n"
	      "       ptop-record [OPTIONS] -- COMMAND [ARGS...]\n"
	      "       ptop-record --caps [--no-ebpf] [--enable A,B] [--disable A,B] [OPTIONS]\n"
	      "\n"
	      "Record what one process does (CPU, syscalls, memory, VMAs, context) with eBPF\n"
	      "and /proc into a compressed capture file for ptop-analyze.\n"
	      "\n"
	      "Target:\n"
	      "  -p, --pid PID           record the running process PID\n"
	      "      --cgroup SPEC       record a whole cgroup v2 subtree: SPEC is its path (under\n"
	      "                          the cgroup2 mount, or as /proc/PID/cgroup prints it)\n"
	      "                          or a container id (a unique prefix will do); runs\n"
	      "                          until --duration, a signal, or the cgroup is removed\n"
	      "  -- COMMAND [ARGS...]    start COMMAND and record it from its first instruction;\n"
	      "                          the recording ends when it exits\n"
	      "\n"
	      "Output:\n"
	      "  -o, --output FILE       capture file, a new or regular one; - for standard output\n"
	      "                          (default ptop-COMM-PID-YYYYmmdd-HHMMSS.ptop)\n"
	      "      --force             replace FILE if it exists (a regular file only)\n"
	      "      --flush-interval D  each round of polls is written when it ends; records\n"
	      "                          between rounds wait at most D (default 1s)\n"
	      "\n"
	      "Timing (D is a duration: 500ms, 2s, 1.5m, 1h; a bare number is seconds):\n"
	      "      --duration D        stop after D (default: when the target exits or on\n"
	      "                          SIGINT/SIGTERM)\n"
	      "      --interval D        snapshot period (default 1s)\n",
	      f);
	copt_usage(f, table, COPT_TIMING);
	fputs("      --smaps-budget D    time the smaps reads may take per interval; reads\n"
	      "                          beyond it are skipped and marked (default 150ms)\n"
	      "\n"
	      "Collectors:\n"
	      "      --disable A,B       do not run these collectors\n"
	      "      --enable A,B        also run these collectors, which are off by default\n"
	      "                          because of what they cost the target (marked so in\n"
	      "                          the list of collectors below)\n"
	      "      --no-ebpf           /proc lanes only (no eBPF programs are loaded)\n"
	      "      --caps              print the kernel features the eBPF lanes need (probed,\n"
	      "                          with the Linux version that has each), and which\n"
	      "                          collectors and lanes can run here and why not; load\n"
	      "                          (verify, never attach) each eBPF collector's programs\n"
	      "                          as a run with the other options given would, and\n"
	      "                          print per collector and lane whether they load, the\n"
	      "                          largest program's verified instructions or the\n"
	      "                          verifier's message, and the time the loads took;\n"
	      "                          then exit\n"
	      "      --strict            a collector or lane that fails or cannot run is a\n"
	      "                          start-up error: nothing is recorded (exit 125 with a\n"
	      "                          command, else 1); a collector disabled or off by\n"
	      "                          default is not, nor a lane on standby\n"
	      "      --user-stacks M     how the eBPF lanes that take user stacks (the\n"
	      "                          collectors' profiles and sites) take them:\n"
	      "                          fp walks frame pointers in the kernel; dwarf copies\n"
	      "                          the top 16 KiB of the stack (return addresses and\n"
	      "                          stack addresses only: other words are zeroed) for\n"
	      "                          ptop-analyze to unwind from the modules' .eh_frame,\n"
	      "                          as perf --call-graph dwarf; auto (default) takes fp\n"
	      "                          when every module of the target keeps frame\n"
	      "                          pointers (judged at start from its CFI; glibc's\n"
	      "                          are not judged), else dwarf\n"
	      "  -g                      accepted, as perf record -g: user and kernel stacks\n"
	      "                          are always taken (see --user-stacks)\n",
	      f);
	copt_usage(f, table, COPT_COLLECTORS);
	fputs("\n"
	      "Other:\n"
	      "  -q, --quiet             print only errors\n"
	      "  -v, --verbose           libbpf debug output, and each BPF program's verified\n"
	      "                          instructions (the verifier's count)\n"
	      "  -h, --help              this text\n"
	      "  -V, --version           version, commit and build date\n"
	      "\n"
	      "Collectors (in start order):\n",
	      f);
	for (i = 0; table && table[i]; i++)
		fprintf(f, "  %-12s %s%s\n", table[i]->name,
			table[i]->off_by_default ? "[off by default: --enable] " : "",
			table[i]->summary ? table[i]->summary : "");
	fputs("\n"
	      "Exit status: 0 recorded; 1 runtime error (no collector could start, disk full);\n"
	      "2 bad usage or input (no such pid, unwritable output). For a launched command,\n"
	      "as timeout(1): the command's status, 128+N when signal N killed it, 124 when\n"
	      "--duration stopped it, 125 a recorder failure, 126 cannot execute, 127 not\n"
	      "found. See ptop-record(1).\n",
	      f);
}

int record_default_output(char *buf, size_t len, const char *comm, pid_t pid, time_t when)
{
	char name[64], stamp[32];
	struct tm tm;
	size_t i, n = 0;
	int w;

	for (i = 0; comm && comm[i] && n < sizeof(name) - 1; i++) {
		unsigned char ch = (unsigned char)comm[i];

		name[n++] = (isalnum(ch) || ch == '.' || ch == '_' || ch == '+' || ch == '-') &&
					    ch < 0x80 ?
				    (char)ch :
				    '_';
	}
	name[n] = '\0';
	if (!n || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		snprintf(name, sizeof(name), "unknown");
	if (!localtime_r(&when, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		snprintf(stamp, sizeof(stamp), "%lld", (long long)when);
	w = snprintf(buf, len, "ptop-%s-%d-%s.ptop", name, (int)pid, stamp);
	if (w < 0 || (size_t)w >= len)
		return -ENAMETOOLONG;
	return 0;
}
