/* options.c — ptop-record's command line: parsing, durations, --help, the default file name. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/heap/record_preload.h"
#include "common/duration.h"
#include "common/units.h"
#include "record/record.h"

#define NS_PER_SEC 1000000000ull
#define MIN_INTERVAL_NS 1000000ull /* 1 ms: anything shorter is a busy loop */

enum {
	OPT_FORCE = 256,
	OPT_DURATION,
	OPT_INTERVAL,
	OPT_VMA_INTERVAL,
	OPT_FLUSH_INTERVAL,
	OPT_DISABLE,
	OPT_ENABLE,
	OPT_NO_EBPF,
	OPT_CAPS,
	OPT_CPU_SAMPLE_HZ,
	OPT_EMBED_SYMBOLS,
	OPT_HEAP_SAMPLE_BYTES,
	OPT_HEAP_TOP,
	OPT_LEAK_AGE,
	OPT_HEAP_EVENTS,
	OPT_HEAP_LANE,
	OPT_SMAPS_BUDGET,
	OPT_CGROUP,
};

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "vma-interval", required_argument, NULL, OPT_VMA_INTERVAL },
	{ "flush-interval", required_argument, NULL, OPT_FLUSH_INTERVAL },
	{ "disable", required_argument, NULL, OPT_DISABLE },
	{ "enable", required_argument, NULL, OPT_ENABLE },
	{ "no-ebpf", no_argument, NULL, OPT_NO_EBPF },
	{ "caps", no_argument, NULL, OPT_CAPS },
	{ "cpu-sample-hz", required_argument, NULL, OPT_CPU_SAMPLE_HZ },
	{ "embed-symbols", optional_argument, NULL, OPT_EMBED_SYMBOLS },
	{ "heap-sample-bytes", required_argument, NULL, OPT_HEAP_SAMPLE_BYTES },
	{ "heap-top", required_argument, NULL, OPT_HEAP_TOP },
	{ "leak-age", required_argument, NULL, OPT_LEAK_AGE },
	{ "heap-events", no_argument, NULL, OPT_HEAP_EVENTS },
	{ "heap-lane", required_argument, NULL, OPT_HEAP_LANE },
	{ "smaps-budget", required_argument, NULL, OPT_SMAPS_BUDGET },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

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

/* --cpu-sample-hz: a whole number from 1 to RECORD_MAX_SAMPLE_HZ. */
static int parse_sample_hz(const char *s, unsigned *hz, char *err, size_t errlen)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < 1 || v > RECORD_MAX_SAMPLE_HZ) {
		set_err(err, errlen, "--cpu-sample-hz takes a whole number from 1 to %u, not '%s'",
			RECORD_MAX_SAMPLE_HZ, s);
		return -EINVAL;
	}
	*hz = (unsigned)v;
	return 0;
}

/* --heap-sample-bytes: bytes with an optional K/M/G suffix (common/units.h), from 0 (every
 * allocation) to RECORD_MAX_HEAP_SAMPLE_BYTES. */
static int parse_sample_bytes(const char *s, uint64_t *v, char *err, size_t errlen)
{
	if (!units__parse_bytes(s, RECORD_MAX_HEAP_SAMPLE_BYTES, v))
		return 0;
	set_err(err, errlen,
		"--heap-sample-bytes takes a number of bytes from 0 (every allocation) to 1T, "
		"with an optional K/M/G suffix (e.g. 512K), not '%s'",
		s);
	return -EINVAL;
}

/* --heap-top: a whole number from 1 to RECORD_MAX_HEAP_TOP. */
static int parse_heap_top(const char *s, uint32_t *top, char *err, size_t errlen)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < 1 || v > RECORD_MAX_HEAP_TOP) {
		set_err(err, errlen, "--heap-top takes a whole number from 1 to %u, not '%s'",
			RECORD_MAX_HEAP_TOP, s);
		return -EINVAL;
	}
	*top = (uint32_t)v;
	return 0;
}

int record_opts__parse(struct record_opts *o, int argc, char **argv,
		       const struct collector_ops *const *table, char *err, size_t errlen)
{
	const char *prog = "ptop-record";
	int c, r;

	memset(o, 0, sizeof(*o));
	o->interval_ns = NS_PER_SEC;
	o->vma_interval_ns = 10 * NS_PER_SEC;
	o->flush_interval_ns = NS_PER_SEC;
	o->cpu_sample_hz = RECORD_DEFAULT_SAMPLE_HZ;
	o->heap_sample_bytes = RECORD_DEFAULT_HEAP_SAMPLE_BYTES;
	o->heap_top = RECORD_DEFAULT_HEAP_TOP;
	o->leak_age_ns = RECORD_DEFAULT_LEAK_AGE_NS;
	o->smaps_budget_ns = RECORD_DEFAULT_SMAPS_BUDGET_NS;
	o->argc = argc;
	o->argv = argv;
	if (err && errlen)
		err[0] = '\0';

	optind = 0; /* full reinitialisation, so the parser can run more than once */
	opterr = 0;
	/* '+': the first non-option ends the options (it starts the command) */
	while ((c = getopt_long(argc, argv, "+:p:o:qvhV", long_opts, NULL)) != -1) {
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
		case OPT_VMA_INTERVAL:
			r = parse_interval("--vma-interval", optarg, MIN_INTERVAL_NS,
					   &o->vma_interval_ns, err, errlen);
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
		case OPT_CPU_SAMPLE_HZ:
			r = parse_sample_hz(optarg, &o->cpu_sample_hz, err, errlen);
			if (r)
				return r;
			break;
		case OPT_EMBED_SYMBOLS:
			if (!optarg) {
				o->embed_symbols = PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_SYMTAB;
			} else if (!strcmp(optarg, "debug")) {
				o->embed_symbols = PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_DEBUG;
			} else {
				set_err(err, errlen,
					"--embed-symbols takes no value or '=debug', not '%s'", optarg);
				return -EINVAL;
			}
			break;
		case OPT_HEAP_SAMPLE_BYTES:
			r = parse_sample_bytes(optarg, &o->heap_sample_bytes, err, errlen);
			if (r)
				return r;
			break;
		case OPT_HEAP_TOP:
			r = parse_heap_top(optarg, &o->heap_top, err, errlen);
			if (r)
				return r;
			break;
		case OPT_LEAK_AGE:
			r = parse_interval("--leak-age", optarg, 1, &o->leak_age_ns, err, errlen);
			if (r)
				return r;
			break;
		case OPT_HEAP_EVENTS:
			o->heap_events = true;
			break;
		case OPT_HEAP_LANE:
			if (heap_lane__parse(optarg, &o->heap_lane)) {
				set_err(err, errlen,
					"--heap-lane takes auto, uprobe or preload, not '%s'", optarg);
				return -EINVAL;
			}
			break;
		case OPT_SMAPS_BUDGET:
			r = parse_interval("--smaps-budget", optarg, 1, &o->smaps_budget_ns, err,
					   errlen);
			if (r)
				return r;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			o->help = true;
			return 0;
		case 'V':
			o->version = true;
			return 0;
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
	}
	if (optind < argc)
		o->cmd = &argv[optind];

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
	if (o->heap_lane == HEAP_LANE_PRELOAD &&
	    (!record_opts__enabled(o, "heap") || record_opts__disabled(o, "heap"))) {
		set_err(err, errlen,
			"--heap-lane preload chooses how the heap collector runs, which is off: "
			"add --enable heap");
		return -EINVAL;
	}
	if (o->heap_lane == HEAP_LANE_PRELOAD && !o->cmd) {
		set_err(err, errlen,
			"--heap-lane preload needs a command that ptop-record starts (-- COMMAND): "
			"the library goes into its LD_PRELOAD before it runs, which a running "
			"process cannot take; use --heap-lane uprobe (or auto) with --pid");
		return -EINVAL;
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
			runs += !record_opts__disabled(o, table[i]->name) &&
				(!table[i]->off_by_default ||
				 record_opts__enabled(o, table[i]->name));
		if (!runs) {
			set_err(err, errlen, "--disable switches off every collector: nothing to record");
			return -EINVAL;
		}
	}
	return 0;
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

void record_usage(FILE *f, const struct collector_ops *const *table)
{
	size_t i;

	fputs("Usage: ptop-record [OPTIONS] --pid PID\n"
	      "       ptop-record [OPTIONS] --cgroup SPEC\n"
	      "       ptop-record [OPTIONS] -- COMMAND [ARGS...]\n"
	      "       ptop-record --caps [--no-ebpf] [--disable A,B]\n"
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
	      "      --interval D        snapshot period (default 1s)\n"
	      "      --vma-interval D    period of the full VMA list (default 10s)\n"
	      "      --smaps-budget D    time the smaps reads may take per interval; reads\n"
	      "                          beyond it are skipped and marked (default 150ms)\n"
	      "\n"
	      "Collectors:\n"
	      "      --disable A,B       do not run these collectors\n"
	      "      --enable A,B        also run these collectors, which are off by default\n"
	      "                          because of what they cost the target (marked so in\n"
	      "                          the list of collectors below)\n"
	      "      --no-ebpf           /proc lanes only (no eBPF programs are loaded)\n"
	      "      --caps              print which collectors can run here and why not,\n"
	      "                          then exit\n"
	      "      --cpu-sample-hz N   CPU profile samples per second per CPU (default 99,\n"
	      "                          1 to 10000)\n"
	      "      --embed-symbols[=debug]\n"
	      "                          copy each mapped module's symbol tables (and with\n"
	      "                          =debug its DWARF) into the capture, so frames are\n"
	      "                          named after the binaries are gone\n"
	      "      --heap-sample-bytes N\n"
	      "                          heap: take a call stack once per N bytes allocated on\n"
	      "                          average (randomized; default 512K; 0: every\n"
	      "                          allocation, exact per site). Totals are always exact\n"
	      "      --heap-top N        heap: call sites kept per interval by each of live\n"
	      "                          bytes, bytes and count allocated (default 64)\n"
	      "      --leak-age D        heap: live allocations older than D are leak\n"
	      "                          suspects (default 30s)\n"
	      "      --heap-events       heap: also write every sampled allocation and free\n"
	      "      --heap-lane L       heap: auto (default), uprobe or preload. preload puts\n"
	      "                          libptop-preload.so into a launched command's\n"
	      "                          LD_PRELOAD (far cheaper than uprobes; static and Go\n"
	      "                          executables fall back to uprobes); auto is preload\n"
	      "                          for launched commands, uprobes for --pid. heap and\n"
	      "                          goalloc follow the target's exec (a wrapper such as\n"
	      "                          sh -c 'exec PROG' or env): see FOLLOWING EXEC in\n"
	      "                          ptop-record(1)\n"
	      "\n"
	      "Other:\n"
	      "  -q, --quiet             print only errors\n"
	      "  -v, --verbose           libbpf debug output\n"
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
