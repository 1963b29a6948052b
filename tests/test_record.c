/* test_record.c — ptop-record's pure parts: options and durations, the default file name,
 * the probe set and its summary, --caps lines, exit statuses, drop totals, build-ids, and the
 * target: launching a command held until released, opening a --pid; the output file, named
 * only when published and never replacing what is not a regular file.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/duration.h"
#include "proto/names.h"
#include "record/output.h"
#include "record/kfeature.h"
#include "record/record.h"
#include "record/uprobe_link.h"
#include "collectors/cpuprof/record.h"
#include "collectors/mappings/record.h"
#include "collectors/vmas/record.h"
#include "symbol/buildid.h"
#include "tests/tmpdir.h"

#define MS 1000000ull
#define SEC 1000000000ull

/* A collector table of our own: the tests need names and summaries only. */
static const struct collector_ops t_cpu = { .name = "cpu", .summary = "on-CPU time" };
static const struct collector_ops t_sys = { .name = "syscalls", .summary = "syscall counts" };
static const struct collector_ops t_mem = { .name = "memory", .summary = "RSS, PSS, USS" };
static const struct collector_ops t_heap = { .name = "heap", .summary = "allocations",
					     .off_by_default = "costly" };
static const struct collector_ops *const table[] = { &t_cpu, &t_sys, &t_mem, &t_heap, NULL };

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)))

static int parse(struct record_opts *o, char *err, int argc, char **argv)
{
	return record_opts__parse(o, argc, argv, table, err, 256);
}

/* A duration as ptop-record's options read it (record/options.c, less its exponent message). */
static int rec_duration(const char *s, uint64_t *v)
{
	return duration__parse(s, UINT64_MAX, DURATION_NONZERO, v);
}

/* With the recorder's own collectors: their options (--vma-interval, --cpu-sample-hz...). */
static int parse_real(struct record_opts *o, char *err, int argc, char **argv)
{
	return record_opts__parse(o, argc, argv, collector_table, err, 256);
}

static void test_01_duration_units(void **state)
{
	static const struct {
		const char *text;
		uint64_t ns;
	} ok[] = {
		{ "500ms", 500 * MS }, { "2s", 2 * SEC },	    { "1m", 60 * SEC },
		{ "1h", 3600 * SEC },  { "100us", 100000 },	    { "10ns", 10 },
		{ "1.5s", 1500 * MS }, { "3", 3 * SEC },	    { "0.25", 250 * MS },
		{ ".5s", 500 * MS },   { "1.", SEC },		    { "0.001ms", 1000 },
		{ "2.5m", 150 * SEC }, { "1.0000000001s", SEC }, /* below 1 ns: dropped */
	};
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 0;
		assert_int_equal(rec_duration(ok[i].text, &v), 0);
		assert_true(v == ok[i].ns);
	}
}

static void test_02_duration_invalid(void **state)
{
	static const char *const bad[] = { "",	 "s",  "ms",   "abc", "5x",  "-1s", "+1s",
					   "0",	 "0s", "0.0s", "1 s", " 1s", "1s ", "1sec",
					   "1S", "1.2.3s", "0.1ns", "1e3s", "banana" };
	uint64_t v = 77;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = rec_duration(bad[i], &v);

		if (r != -EINVAL)
			fail_msg("'%s' gave %d, want -EINVAL", bad[i], r);
	}
	assert_true(v == 77); /* untouched on error */
	assert_int_equal(rec_duration("18446744073709551616ns", &v), -ERANGE);
	assert_int_equal(rec_duration("99999999999h", &v), -ERANGE);
	assert_int_equal(rec_duration(NULL, &v), -EINVAL);
	/* the largest that fits */
	assert_int_equal(rec_duration("18446744073709551615ns", &v), 0);
	assert_true(v == UINT64_MAX);
}

static void test_03_parse_pid_defaults(void **state)
{
	struct record_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse_real(&o, err, ARGC("ptop-record", "--pid", "1234"),
				    ARGV("ptop-record", "--pid", "1234")),
			 0);
	assert_int_equal(o.pid, 1234);
	assert_null(o.cmd);
	assert_null(o.output);
	assert_true(o.interval_ns == SEC);
	assert_true(vmas_settings.interval_ns == 10 * SEC);
	assert_true(o.flush_interval_ns == SEC);
	assert_true(o.duration_ns == 0);
	assert_false(o.force || o.no_ebpf || o.caps || o.quiet || o.verbose || o.help);
	assert_int_equal(cpuprof_settings.sample_hz, 99);
	assert_int_equal(mappings_settings.embed, PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_NONE);
	assert_int_equal(o.argc, 3);
	assert_string_equal(o.argv[1], "--pid");
	record_opts__free(&o);

	assert_int_equal(parse_real(&o, err,
			       ARGC("ptop-record", "-p", "7", "-o", "x.ptop", "--force",
				    "--duration", "1m", "--interval", "500ms", "--vma-interval",
				    "2s", "--flush-interval", "250ms", "--no-ebpf", "-q", "-v"),
			       ARGV("ptop-record", "-p", "7", "-o", "x.ptop", "--force",
				    "--duration", "1m", "--interval", "500ms", "--vma-interval",
				    "2s", "--flush-interval", "250ms", "--no-ebpf", "-q", "-v")),
			 0);
	assert_int_equal(o.pid, 7);
	assert_string_equal(o.output, "x.ptop");
	assert_true(o.force && o.no_ebpf && o.quiet && o.verbose);
	assert_true(o.duration_ns == 60 * SEC);
	assert_true(o.interval_ns == 500 * MS);
	assert_true(vmas_settings.interval_ns == 2 * SEC);
	assert_true(o.flush_interval_ns == 250 * MS);
	record_opts__free(&o);

	/* --opt=value works as well */
	assert_int_equal(parse(&o, err, ARGC("ptop-record", "--pid=9", "--interval=2s"),
			       ARGV("ptop-record", "--pid=9", "--interval=2s")),
			 0);
	assert_int_equal(o.pid, 9);
	assert_true(o.interval_ns == 2 * SEC);
	record_opts__free(&o);

	/* the profile rate and symbol embedding */
	assert_int_equal(parse_real(&o, err,
				    ARGC("ptop-record", "--pid=9", "--cpu-sample-hz", "997",
					 "--embed-symbols"),
			       ARGV("ptop-record", "--pid=9", "--cpu-sample-hz", "997",
				    "--embed-symbols")),
			 0);
	assert_int_equal(cpuprof_settings.sample_hz, 997);
	assert_int_equal(mappings_settings.embed, PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_SYMTAB);
	record_opts__free(&o);
	/* perf's habits: -F N is --cpu-sample-hz N, -g (call graphs) is accepted, the stacks
	 * being taken anyway; -F checks its value as --cpu-sample-hz does */
	assert_int_equal(parse_real(&o, err, ARGC("ptop-record", "-g", "-F", "499", "--pid=9"),
				    ARGV("ptop-record", "-g", "-F", "499", "--pid=9")),
			 0);
	assert_int_equal(cpuprof_settings.sample_hz, 499);
	assert_int_equal(o.pid, 9);
	record_opts__free(&o);
	assert_int_equal(parse_real(&o, err, ARGC("ptop-record", "-F99", "-p", "9"),
				    ARGV("ptop-record", "-F99", "-p", "9")),
			 0);
	assert_int_equal(cpuprof_settings.sample_hz, 99);
	record_opts__free(&o);
	assert_int_equal(parse_real(&o, err, ARGC("ptop-record", "-F", "0", "-p", "9"),
				    ARGV("ptop-record", "-F", "0", "-p", "9")),
			 -EINVAL);
	assert_non_null(strstr(err, "--cpu-sample-hz takes a whole number from 1 to 10000"));
	record_opts__free(&o);
	assert_int_equal(parse_real(&o, err,
				    ARGC("ptop-record", "--pid=9", "--embed-symbols=debug"),
			       ARGV("ptop-record", "--pid=9", "--embed-symbols=debug")),
			 0);
	assert_int_equal(mappings_settings.embed, PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_DEBUG);
	record_opts__free(&o);
}

static void test_04_parse_command(void **state)
{
	struct record_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, ARGC("ptop-record", "-o", "r.ptop", "--", "ls", "-l", "/"),
			       ARGV("ptop-record", "-o", "r.ptop", "--", "ls", "-l", "/")),
			 0);
	assert_non_null(o.cmd);
	assert_string_equal(o.cmd[0], "ls");
	assert_string_equal(o.cmd[1], "-l");
	assert_string_equal(o.cmd[2], "/");
	assert_null(o.cmd[3]);
	assert_int_equal(o.pid, 0);
	record_opts__free(&o);

	/* the command's own options are not ours, even ones we know */
	assert_int_equal(parse(&o, err, ARGC("ptop-record", "--", "prog", "--pid", "3", "-q"),
			       ARGV("ptop-record", "--", "prog", "--pid", "3", "-q")),
			 0);
	assert_int_equal(o.pid, 0);
	assert_false(o.quiet);
	assert_string_equal(o.cmd[1], "--pid");
	record_opts__free(&o);

	/* without "--", the first non-option starts the command */
	assert_int_equal(parse(&o, err, ARGC("ptop-record", "-q", "sleep", "-x"),
			       ARGV("ptop-record", "-q", "sleep", "-x")),
			 0);
	assert_true(o.quiet);
	assert_string_equal(o.cmd[0], "sleep");
	assert_string_equal(o.cmd[1], "-x");
	record_opts__free(&o);
}

/* Expect a usage error whose message contains NEEDLE, from the options of TBL. */
static void expect_usage_in(const struct collector_ops *const *tbl, const char *needle, int argc,
			    char **argv)
{
	struct record_opts o;
	char err[256] = "";
	int r = record_opts__parse(&o, argc, argv, tbl, err, sizeof(err));

	record_opts__free(&o);
	if (r != -EINVAL)
		fail_msg("argv[1]='%s': got %d, want -EINVAL", argc > 1 ? argv[1] : "", r);
	if (!strstr(err, needle))
		fail_msg("message '%s' lacks '%s'", err, needle);
	assert_null(strchr(err, '\n'));
}

/* With our own collector table. */
static void expect_usage(const char *needle, int argc, char **argv)
{
	expect_usage_in(table, needle, argc, argv);
}

/* With the recorder's collectors: their options. */
static void expect_usage_real(const char *needle, int argc, char **argv)
{
	expect_usage_in(collector_table, needle, argc, argv);
}

static void test_05_parse_errors(void **state)
{
	(void)state;
	expect_usage("nothing to record", ARGC("ptop-record"), ARGV("ptop-record"));
	expect_usage("not both", ARGC("ptop-record", "--pid", "1", "--", "ls"),
		     ARGV("ptop-record", "--pid", "1", "--", "ls"));
	expect_usage("unknown option '--frob'", ARGC("ptop-record", "--frob"),
		     ARGV("ptop-record", "--frob"));
	expect_usage("unknown option '-z'", ARGC("ptop-record", "-z"), ARGV("ptop-record", "-z"));
	expect_usage("needs a value", ARGC("ptop-record", "--pid"), ARGV("ptop-record", "--pid"));
	expect_usage("needs a value", ARGC("ptop-record", "--pid", "1", "-o"),
		     ARGV("ptop-record", "--pid", "1", "-o"));
	expect_usage("not a process id", ARGC("ptop-record", "--pid", "12x"),
		     ARGV("ptop-record", "--pid", "12x"));
	expect_usage("not a process id", ARGC("ptop-record", "--pid", "0"),
		     ARGV("ptop-record", "--pid", "0"));
	expect_usage("not a process id", ARGC("ptop-record", "--pid", "-5"),
		     ARGV("ptop-record", "--pid", "-5"));
	expect_usage("not a process id", ARGC("ptop-record", "--pid", "99999999999"),
		     ARGV("ptop-record", "--pid", "99999999999"));
	expect_usage("--interval 'banana' is not a duration",
		     ARGC("ptop-record", "--pid", "1", "--interval", "banana"),
		     ARGV("ptop-record", "--pid", "1", "--interval", "banana"));
	expect_usage("is not a duration", ARGC("ptop-record", "--pid", "1", "--interval", "0"),
		     ARGV("ptop-record", "--pid", "1", "--interval", "0"));
	expect_usage("too short", ARGC("ptop-record", "--pid", "1", "--interval", "500us"),
		     ARGV("ptop-record", "--pid", "1", "--interval", "500us"));
	expect_usage("--duration", ARGC("ptop-record", "--pid", "1", "--duration", "-1s"),
		     ARGV("ptop-record", "--pid", "1", "--duration", "-1s"));
	expect_usage("too long", ARGC("ptop-record", "--pid", "1", "--duration", "9999999999h"),
		     ARGV("ptop-record", "--pid", "1", "--duration", "9999999999h"));
	/* issue 10: an exponent said "give a positive number"; it names the maximum */
	expect_usage("the maximum is 5124095h",
		     ARGC("ptop-record", "--pid", "1", "--duration", "1e99"),
		     ARGV("ptop-record", "--pid", "1", "--duration", "1e99"));
	expect_usage("the maximum is 5124095h",
		     ARGC("ptop-record", "--pid", "1", "--duration", "99999999999h"),
		     ARGV("ptop-record", "--pid", "1", "--duration", "99999999999h"));
	expect_usage("exponents are not accepted",
		     ARGC("ptop-record", "--pid", "1", "--interval", "1e3ms"),
		     ARGV("ptop-record", "--pid", "1", "--interval", "1e3ms"));
	expect_usage("--caps takes no target", ARGC("ptop-record", "--caps", "--pid", "1"),
		     ARGV("ptop-record", "--caps", "--pid", "1"));
	expect_usage("file name", ARGC("ptop-record", "-o", "", "--pid", "1"),
		     ARGV("ptop-record", "-o", "", "--pid", "1"));
	expect_usage_real("from 1 to 10000",
			  ARGC("ptop-record", "--pid", "1", "--cpu-sample-hz", "0"),
		     ARGV("ptop-record", "--pid", "1", "--cpu-sample-hz", "0"));
	expect_usage_real("from 1 to 10000",
		     ARGC("ptop-record", "--pid", "1", "--cpu-sample-hz", "10001"),
		     ARGV("ptop-record", "--pid", "1", "--cpu-sample-hz", "10001"));
	expect_usage_real("from 1 to 10000",
			  ARGC("ptop-record", "--pid", "1", "--cpu-sample-hz", "9x"),
		     ARGV("ptop-record", "--pid", "1", "--cpu-sample-hz", "9x"));
	expect_usage_real("'=debug'", ARGC("ptop-record", "--pid", "1", "--embed-symbols=all"),
		     ARGV("ptop-record", "--pid", "1", "--embed-symbols=all"));
}

static void test_06_help_version_caps(void **state)
{
	struct record_opts o;
	char err[256];

	(void)state;
	/* --help and --version need no target */
	assert_int_equal(
		parse(&o, err, ARGC("ptop-record", "--help"), ARGV("ptop-record", "--help")), 0);
	assert_true(o.help);
	record_opts__free(&o);
	assert_int_equal(parse(&o, err, ARGC("ptop-record", "-V"), ARGV("ptop-record", "-V")), 0);
	assert_true(o.version);
	record_opts__free(&o);
	assert_int_equal(parse(&o, err, ARGC("ptop-record", "--caps", "--no-ebpf"),
			       ARGV("ptop-record", "--caps", "--no-ebpf")),
			 0);
	assert_true(o.caps && o.no_ebpf);
	record_opts__free(&o);
}

static void test_07_disable(void **state)
{
	struct record_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err,
			       ARGC("ptop-record", "--disable", "cpu,memory", "--disable", "cpu",
				    "--pid", "1"),
			       ARGV("ptop-record", "--disable", "cpu,memory", "--disable", "cpu",
				    "--pid", "1")),
			 0);
	assert_int_equal(o.n_disabled, 2); /* "cpu" twice counts once */
	assert_string_equal(o.disabled[0], "cpu");
	assert_string_equal(o.disabled[1], "memory");
	assert_true(record_opts__disabled(&o, "cpu"));
	assert_true(record_opts__disabled(&o, "memory"));
	assert_false(record_opts__disabled(&o, "syscalls"));
	record_opts__free(&o);

	expect_usage("unknown collector 'nope': the collectors are cpu, syscalls, memory, heap",
		     ARGC("ptop-record", "--disable", "cpu,nope", "--pid", "1"),
		     ARGV("ptop-record", "--disable", "cpu,nope", "--pid", "1"));
	expect_usage("names no collector", ARGC("ptop-record", "--disable", ",", "--pid", "1"),
		     ARGV("ptop-record", "--disable", ",", "--pid", "1"));
	/* heap is off by default: disabling the others leaves nothing to record... */
	expect_usage("every collector",
		     ARGC("ptop-record", "--disable", "cpu,syscalls,memory", "--pid", "1"),
		     ARGV("ptop-record", "--disable", "cpu,syscalls,memory", "--pid", "1"));
	/* ...unless --enable turns it on */
	assert_int_equal(parse(&o, err,
			       ARGC("ptop-record", "--disable", "cpu,syscalls,memory", "--enable",
				    "heap", "--pid", "1"),
			       ARGV("ptop-record", "--disable", "cpu,syscalls,memory", "--enable",
				    "heap", "--pid", "1")),
			 0);
	assert_true(record_opts__enabled(&o, "heap"));
	assert_false(record_opts__enabled(&o, "cpu"));
	record_opts__free(&o);
	expect_usage("--enable: unknown collector 'nope'",
		     ARGC("ptop-record", "--enable", "nope", "--pid", "1"),
		     ARGV("ptop-record", "--enable", "nope", "--pid", "1"));
	expect_usage("'heap' is both in --enable and in --disable",
		     ARGC("ptop-record", "--enable", "heap", "--disable", "heap", "--pid", "1"),
		     ARGV("ptop-record", "--enable", "heap", "--disable", "heap", "--pid", "1"));
}

static void test_08_default_output(void **state)
{
	char buf[128];

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	assert_int_equal(record_default_output(buf, sizeof(buf), "server", 4242, 0), 0);
	assert_string_equal(buf, "ptop-server-4242-19700101-000000.ptop");
	/* 2024-02-29 13:45:07 UTC */
	assert_int_equal(record_default_output(buf, sizeof(buf), "my prog/x", 7, 1709214307), 0);
	assert_string_equal(buf, "ptop-my_prog_x-7-20240229-134507.ptop");
	assert_int_equal(record_default_output(buf, sizeof(buf), "kworker:1+ev.t", 1, 0), 0);
	assert_string_equal(buf, "ptop-kworker_1+ev.t-1-19700101-000000.ptop");
	assert_int_equal(record_default_output(buf, sizeof(buf), "", 1, 0), 0);
	assert_string_equal(buf, "ptop-unknown-1-19700101-000000.ptop");
	assert_int_equal(record_default_output(buf, sizeof(buf), "..", 1, 0), 0);
	assert_string_equal(buf, "ptop-unknown-1-19700101-000000.ptop");
	assert_int_equal(record_default_output(buf, sizeof(buf), NULL, 1, 0), 0);
	assert_string_equal(buf, "ptop-unknown-1-19700101-000000.ptop");
	assert_int_equal(record_default_output(buf, sizeof(buf), "caf\xc3\xa9\n", 1, 0), 0);
	assert_string_equal(buf, "ptop-caf___-1-19700101-000000.ptop");
	assert_int_equal(record_default_output(buf, 20, "server", 4242, 0), -ENAMETOOLONG);
}

static void set_collector(struct collector *c, const struct collector_ops *ops,
			  Ptop__V1__ProbeState st, Ptop__V1__ProbeSource src, const char *reason)
{
	memset(c, 0, sizeof(*c));
	c->ops = ops;
	c->state = st;
	c->source = src;
	snprintf(c->reason, sizeof(c->reason), "%s", reason);
}

static void three(struct collector cs[3])
{
	set_collector(&cs[0], &t_cpu, PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
		      PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "");
	set_collector(&cs[1], &t_sys, PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED,
		      PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "--no-ebpf given");
	set_collector(&cs[2], &t_mem, PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED,
		      PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_UNSPECIFIED, "disabled by --disable");
}

static void test_09_probe_summary(void **state)
{
	struct collector cs[3];
	char buf[512], small[16];
	size_t need;

	(void)state;
	three(cs);
	need = record_probe_summary(cs, 3, buf, sizeof(buf));
	assert_string_equal(buf, "probes: 1 active, 0 failed, 1 disabled, 1 unsupported\n"
				 "  syscalls: unsupported: --no-ebpf given\n"
				 "  memory: disabled: disabled by --disable\n");
	assert_int_equal(need, strlen(buf));
	/* truncation is safe and still reports the full length */
	assert_int_equal(record_probe_summary(cs, 3, small, sizeof(small)), need);
	assert_int_equal(strlen(small), sizeof(small) - 1);

	set_collector(&cs[1], &t_sys, PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
		      PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "");
	cs[2].state = PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	cs[2].reason[0] = '\0'; /* the core clears an active one's reason before start() */
	record_probe_summary(cs, 3, buf, sizeof(buf));
	assert_string_equal(buf, "probes: 2 active, 1 failed, 0 disabled, 0 unsupported\n"
				 "  syscalls: failed: (no reason given)\n");
	assert_int_equal(record_probe_count(cs, 3, PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE), 2);
	/* an active probe whose start() gave a reason runs within the limit it says: said
	 * at start (--heap-events: the rate it can carry) */
	snprintf(cs[2].reason, sizeof(cs[2].reason), "keeps 100 records a poll");
	record_probe_summary(cs, 3, buf, sizeof(buf));
	assert_string_equal(buf, "probes: 2 active, 1 failed, 0 disabled, 0 unsupported\n"
				 "  syscalls: failed: (no reason given)\n"
				 "  memory: active: keeps 100 records a poll\n");
}

static void test_10_probe_set(void **state)
{
	struct collector cs[3];
	Ptop__V1__Probe probes[3], *ptrs[3];
	Ptop__V1__CaptureHeader h = PTOP__V1__CAPTURE_HEADER__INIT;
	Ptop__V1__CaptureHeader *back;
	uint8_t packed[512];
	size_t len;

	(void)state;
	three(cs);
	snprintf(cs[0].detail, sizeof(cs[0].detail), "tp_btf/sched_switch");
	record_probe_set(cs, 3, probes, ptrs, NULL, NULL);
	assert_ptr_equal(ptrs[2], &probes[2]);
	assert_string_equal(probes[0].name, "cpu");
	assert_int_equal(probes[0].state, PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	assert_int_equal(probes[0].source, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF);
	assert_string_equal(probes[0].reason, "");
	assert_string_equal(probes[0].detail, "tp_btf/sched_switch");

	/* it survives a round trip through the wire format, in order */
	h.n_probes = 3;
	h.probes = ptrs;
	len = ptop__v1__capture_header__get_packed_size(&h);
	assert_true(len <= sizeof(packed));
	ptop__v1__capture_header__pack(&h, packed);
	back = ptop__v1__capture_header__unpack(NULL, len, packed);
	assert_non_null(back);
	assert_int_equal(back->n_probes, 3);
	assert_string_equal(back->probes[1]->name, "syscalls");
	assert_int_equal(back->probes[1]->state, PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED);
	assert_string_equal(back->probes[1]->reason, "--no-ebpf given");
	assert_string_equal(back->probes[2]->name, "memory");
	assert_int_equal(back->probes[2]->state, PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED);
	assert_int_equal(back->probes[2]->source, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_UNSPECIFIED);
	assert_string_equal(back->probes[2]->reason, "disabled by --disable");
	ptop__v1__capture_header__free_unpacked(back, NULL);
}

static void test_11_caps_lines(void **state)
{
	struct collector cs[3];
	char buf[256];

	(void)state;
	three(cs);
	record_caps_line(&cs[0], buf, sizeof(buf));
	assert_string_equal(buf, "  cpu          yes  ebpf  on-CPU time\n");
	record_caps_line(&cs[1], buf, sizeof(buf));
	assert_string_equal(buf, "  syscalls     no   ebpf  --no-ebpf given\n");
	record_caps_line(&cs[2], buf, sizeof(buf));
	assert_string_equal(buf, "  memory       no   -     disabled by --disable\n");
	/* active within a limit (the heap's preload lane without CAP_BPF, issue 10) */
	snprintf(cs[0].reason, sizeof(cs[0].reason), "for launched commands only");
	record_caps_line(&cs[0], buf, sizeof(buf));
	assert_string_equal(buf,
			    "  cpu          yes  ebpf  on-CPU time; for launched commands only\n");
	assert_string_equal(capture_probe_state_name(PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED), "failed");
	assert_string_equal(capture_probe_source_name(PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC), "proc");
	assert_null(capture_probe_source_name(PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_UNSPECIFIED));
}

/* The real wait status of a child that does WHAT. */
static int child_status(int what)
{
	pid_t pid = fork();
	int st = -1;

	assert_true(pid >= 0);
	if (pid == 0) {
		if (what >= 0)
			_exit(what);
		signal(-what, SIG_DFL);
		raise(-what);
		_exit(99);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

static void test_12_target_exit(void **state)
{
	Ptop__V1__TargetExit te;

	(void)state;
	record_target_exit(child_status(0), &te);
	assert_true(te.status_known && te.exited);
	assert_int_equal(te.exit_code, 0);
	assert_int_equal(te.term_signal, 0);

	record_target_exit(child_status(7), &te);
	assert_true(te.status_known && te.exited);
	assert_int_equal(te.exit_code, 7);

	record_target_exit(child_status(-SIGKILL), &te);
	assert_true(te.status_known);
	assert_false(te.exited);
	assert_int_equal(te.term_signal, SIGKILL);
	assert_false(te.core_dumped);

	/* a core dump flag, as the kernel encodes it */
	record_target_exit(SIGSEGV | 0x80, &te);
	assert_int_equal(te.term_signal, SIGSEGV);
	assert_true(te.core_dumped);
	assert_false(te.exited);

	/* a stopped child is not an end */
	record_target_exit(0x137f, &te); /* WIFSTOPPED, SIGSTOP */
	assert_false(te.status_known);
}

static void test_13_drop_totals(void **state)
{
	struct drop_totals t = { 0 };
	Ptop__V1__CaptureTrailer tr = PTOP__V1__CAPTURE_TRAILER__INIT;
	int i;

	(void)state;
	assert_int_equal(drop_totals__fill_trailer(&t, &tr), 0);
	assert_int_equal(tr.n_drops, 0);
	for (i = 0; i < 20; i++) /* past the first allocation */
		assert_int_equal(
			drop_totals__add(&t, "syscalls", i % 2 ? "ringbuf" : "map_full", 3), 0);
	assert_int_equal(drop_totals__add(&t, "memory", "proc_unreadable", 1), 0);
	assert_int_equal(drop_totals__add(&t, "a-very-long-collector-name-beyond-31-bytes", "k", 1),
			 0);
	assert_int_equal(t.n, 4);
	assert_int_equal(drop_totals__fill_trailer(&t, &tr), 0);
	assert_int_equal(tr.n_drops, 4);
	assert_string_equal(tr.drops[0]->collector, "syscalls");
	assert_string_equal(tr.drops[0]->kind, "map_full");
	assert_true(tr.drops[0]->lost == 30);
	assert_string_equal(tr.drops[1]->kind, "ringbuf");
	assert_true(tr.drops[1]->lost == 30);
	assert_string_equal(tr.drops[2]->collector, "memory");
	assert_true(tr.drops[2]->lost == 1);
	assert_int_equal(strlen(tr.drops[3]->collector), 31);
	drop_totals__release_trailer(&tr);
	assert_null(tr.drops);
	drop_totals__free(&t);
	drop_totals__free(&t);
	drop_totals__free(NULL);
}

static void test_14_capeff(void **state)
{
	uint64_t m = 0;

	(void)state;
	assert_int_equal(record_parse_capeff("Name:\tx\nCapInh:\t0000000000000000\n"
					     "CapEff:\t000001ffffffffff\nCapBnd:\t0\n",
					     &m),
			 0);
	assert_true(m == 0x1ffffffffffull);
	assert_true((m >> 39) & 1); /* CAP_BPF */
	assert_int_equal(record_parse_capeff("Name:\tx\nCapEff:\t0000000000000000\n", &m), 0);
	assert_true(m == 0);
	assert_int_equal(record_parse_capeff("Name:\tx\nCapPrm:\t1\n", &m), -EINVAL);
	assert_int_equal(record_parse_capeff("Name:\tx\nCapEff:\tzz\n", &m), -EINVAL);
}

/* An independent reader: the build-id note of the running program, found
 * through its program headers in memory. */
struct mem_note {
	uint8_t id[BUILDID_MAX];
	size_t len;
};

static int find_mem_note(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct mem_note *out = arg;
	int i;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0; /* the main program has the empty name and comes first */
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const void *)p;
			size_t align = ph->p_align == 8 ? 8 : 4;
			const char *name = p + sizeof(*nh);
			const char *desc = name + ((nh->n_namesz + align - 1) & ~(align - 1));

			if (nh->n_type == 3 && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
			    nh->n_descsz <= BUILDID_MAX) {
				memcpy(out->id, desc, nh->n_descsz);
				out->len = nh->n_descsz;
				return 1;
			}
			p = desc + ((nh->n_descsz + align - 1) & ~(align - 1));
		}
	}
	return 1;
}

static void test_15_buildid(void **state)
{
	struct mem_note mem = { .len = 0 };
	uint8_t id[BUILDID_MAX], tiny[4];
	char hex[2 * BUILDID_MAX + 1], path[] = "/tmp/ptop-test-buildid-XXXXXX";
	size_t len = 0;
	int fd;

	(void)state;
	dl_iterate_phdr(find_mem_note, &mem);
	assert_int_equal(buildid_read_path("/proc/self/exe", id, sizeof(id), &len), 0);
	/* the toolchain here links with --build-id (sha1); the in-memory note agrees */
	assert_int_equal(len, 20);
	assert_int_equal(mem.len, len);
	assert_memory_equal(id, mem.id, len);
	assert_int_equal(buildid_read_path("/proc/self/exe", tiny, sizeof(tiny), &len), -ENOBUFS);

	assert_int_equal(buildid_to_hex(id, 20, hex, sizeof(hex)), 0);
	assert_int_equal(strlen(hex), 40);
	assert_int_equal(buildid_to_hex((const uint8_t *)"\x01\xab\xff", 3, hex, sizeof(hex)), 0);
	assert_string_equal(hex, "01abff");
	assert_int_equal(buildid_to_hex((const uint8_t *)"\x01\xab\xff", 3, hex, 6), -ENOBUFS);
	assert_string_equal(hex, "");

	assert_int_equal(buildid_read_path("/nonexistent/ptop-test", id, sizeof(id), &len),
			 -ENOENT);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not an elf file\n", 16), 16);
	assert_int_equal(buildid_read_fd(fd, id, sizeof(id), &len), -ENOEXEC);
	close(fd);
	unlink(path);
	/* an empty file is no ELF either */
	memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(buildid_read_fd(fd, id, sizeof(id), &len), -ENOEXEC);
	close(fd);
	unlink(path);
}

/* ------------------------------------------------------------------ target */

static void test_16_launch_errors(void **state)
{
	struct record_target t;
	char err[256];

	(void)state;
	assert_int_equal(target__launch(&t, ARGV("ptop-no-such-command-xyz"), err, sizeof(err)),
			 -ENOENT);
	assert_non_null(
		strstr(err, "command not found: 'ptop-no-such-command-xyz' is not in PATH"));
	target__free(&t);
	assert_int_equal(target__launch(&t, ARGV("/nonexistent/cmd"), err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "command not found"));
	target__free(&t);
	assert_int_equal(target__launch(&t, ARGV("/etc/passwd"), err, sizeof(err)), -EACCES);
	assert_non_null(strstr(err, "not an executable"));
	target__free(&t);
	assert_int_equal(target__launch(&t, ARGV("/"), err, sizeof(err)), -EISDIR);
	target__free(&t);
}

/* The hex mask of line KEY ("SigBlk:") of /proc/PID/status, or ~0 when unread. */
static unsigned long long status_mask(pid_t pid, const char *key)
{
	char path[64], line[256];
	unsigned long long v = ~0ull;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = strtoull(line + strlen(key), NULL, 16);
	fclose(f);
	return v;
}

/* Ignore (or not) the signals glibc keeps for itself (32 and 33), through the system
 * call: signal() refuses them, yet a process can inherit them ignored. */
static void glibc_signals_ignored(bool ignored)
{
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		uint64_t mask;
	} sa = {.handler = ignored ? SIG_IGN : SIG_DFL};

	for (int sig = 32; sig <= 33; sig++)
		assert_int_equal(syscall(SYS_rt_sigaction, sig, &sa, NULL, sizeof(sa.mask)), 0);
}

/* Launch ARGV with SIGINT/SIGTERM blocked and SIGPIPE ignored here, as the
 * recorder has them; release it and return its exit status. */
static int launch_run(char **argv, struct record_target *t)
{
	sigset_t block, old;
	char err[256];

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGPIPE, SIG_IGN);
	glibc_signals_ignored(true); /* as some CI runners leave them: 32 and 33 ignored */
	assert_int_equal(target__launch(t, argv, err, sizeof(err)), 0);
	glibc_signals_ignored(false);
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* back from the launch, the child has reset its signals already: the recorder's
	 * probes, attached from now on, never count those calls of ptop's own as the
	 * command's (issue 20: 64 rt_sigaction in some recordings of a command, not others) */
	assert_int_equal(status_mask(t->pid, "SigBlk:"), 0);
	assert_int_equal(status_mask(t->pid, "SigIgn:"), 0);
	/* held at the door: it cannot exit before it is released */
	assert_false(target__has_exited(t));
	assert_int_equal(target__release(t, err, sizeof(err)), 0);
	assert_true(target__wait_exit(t, 600000, -1));
	target__collect_status(t);
	assert_true(t->reaped && t->status_known);
	assert_true(WIFEXITED(t->wstatus));
	return WEXITSTATUS(t->wstatus);
}

/* A launched command waits to be released, then runs with the signal state the
 * recorder inherited: nothing blocked, SIGPIPE not ignored. */
static void test_17_launch_run(void **state)
{
	struct record_target t;
	pid_t pid;

	(void)state;
	/* grep exits 0 when the line matches */
	assert_int_equal(launch_run(ARGV("grep", "-Eq", "^SigBlk:[[:space:]]+0+$",
					 "/proc/self/status"),
				    &t),
			 0);
	assert_int_equal(t.mode, PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND);
	assert_true(t.pid > 0 && t.is_child);
	assert_string_equal(t.comm, "grep");
	assert_true(t.exe[0] == '/');
	assert_int_equal(t.n_cmdline, 4);
	assert_string_equal(t.cmdline[0], "grep");
	assert_string_equal(t.cmdline[3], "/proc/self/status");
	pid = t.pid;
	target__free(&t);
	assert_int_equal(kill(pid, 0), -1); /* reaped */

	/* SIGPIPE (13, bit 12: the 4th hex digit from the right) is not ignored.
	 * Only what the recorder changed is checked: dispositions it inherited
	 * (make leaves glibc's reserved signals 32 and 33 ignored) pass through
	 * to the command as they would from a shell. */
	assert_int_equal(launch_run(ARGV("grep", "-Eq",
					 "^SigIgn:[[:space:]]+[0-9a-f]*[02468ace][0-9a-f]{3}$",
					 "/proc/self/status"),
				    &t),
			 0);
	target__free(&t);
	assert_int_equal(launch_run(ARGV("sh", "-c", "exit 5"), &t), 5);
	assert_string_equal(t.comm, "sh");
	target__free(&t);
}

static void test_18_launch_abandoned(void **state)
{
	char err[256], path[] = "/tmp/ptop-test-noexec-XXXXXX";
	struct record_target t;
	int st, fd;

	(void)state;
	/* set-up failed: target__kill kills and reaps the waiting child */
	assert_int_equal(target__launch(&t, ARGV("true"), err, sizeof(err)), 0);
	target__kill(&t);
	assert_true(t.reaped);
	assert_true(WIFSIGNALED(t.wstatus) && WTERMSIG(t.wstatus) == SIGKILL);
	target__kill(&t); /* twice is fine */
	target__free(&t);

	/* the recorder went away: the child sees EOF and exits 127, never execs */
	assert_int_equal(target__launch(&t, ARGV("true"), err, sizeof(err)), 0);
	close(t.go_fd);
	t.go_fd = -1;
	assert_int_equal(waitpid(t.pid, &st, 0), t.pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 127);
	t.reaped = true;
	target__free(&t);

	/* exec fails after the release: its errno comes back */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "\x7f" "ELFjunk", 8), 8);
	close(fd);
	assert_int_equal(chmod(path, 0700), 0);
	assert_int_equal(target__launch(&t, ARGV(path), err, sizeof(err)), 0);
	assert_int_equal(target__release(&t, err, sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "Exec format error"));
	assert_true(t.reaped);
	target__free(&t);
	unlink(path);
}

static void test_19_open_pid(void **state)
{
	struct record_target t;
	char err[256];
	pid_t child;
	int st;

	(void)state;
	assert_int_equal(target__open_pid(&t, getpid(), err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "ptop-record itself"));
	target__free(&t);

	/* a pid that does not exist: a reaped child's */
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_int_equal(target__open_pid(&t, child, err, sizeof(err)), -ESRCH);
	assert_non_null(strstr(err, "no process with pid"));
	target__free(&t);

	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	assert_int_equal(target__open_pid(&t, child, err, sizeof(err)), 0);
	assert_int_equal(t.mode, PTOP__V1__TARGET_MODE__TARGET_MODE_PID);
	assert_int_equal(t.pid, child);
	assert_true(t.exe[0] == '/');
	assert_true(t.n_cmdline >= 1);
	assert_int_equal(t.build_id_len, 20); /* a fork of this test binary */
	assert_true(t.pidfd >= 0);
	assert_false(t.is_child);
	assert_false(target__has_exited(&t));
	kill(child, SIGKILL);
	assert_true(target__wait_exit(&t, 600000, -1));
	assert_int_equal(waitpid(child, &st, 0), child);
	target__collect_status(&t);
	/* the kernel may not tell (PIDFD_GET_INFO is Linux 6.15+); when it does,
	 * it must be right */
	if (t.status_known)
		assert_true(WIFSIGNALED(t.wstatus) && WTERMSIG(t.wstatus) == SIGKILL);
	target__free(&t);
}

static void *blocked_thread(void *arg)
{
	int *fds = arg; /* [0]: read to wait on, [1]: write our tid to */
	pid_t tid = gettid();
	char c;

	if (write(fds[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	if (read(fds[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

static void test_20_open_thread(void **state)
{
	struct record_target t;
	int to_thread[2], from_thread[2], fds[2];
	char err[256];
	pthread_t th;
	pid_t tid = 0;

	(void)state;
	assert_int_equal(pipe(to_thread), 0);
	assert_int_equal(pipe(from_thread), 0);
	fds[0] = to_thread[0];
	fds[1] = from_thread[1];
	assert_int_equal(pthread_create(&th, NULL, blocked_thread, fds), 0);
	assert_int_equal(read(from_thread[0], &tid, sizeof(tid)), sizeof(tid));
	assert_int_equal(target__open_pid(&t, tid, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is a thread of process"));
	target__free(&t);
	assert_int_equal(write(to_thread[1], "x", 1), 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	close(to_thread[0]);
	close(to_thread[1]);
	close(from_thread[0]);
	close(from_thread[1]);
}

static int setup(void **state)
{
	(void)state;
	return tmpdir__make("record");
}

/* Entries in tmpdir (not . and ..). */
static int entries(void)
{
	char cmd[128];
	FILE *f;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", tmpdir);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &n), 1);
	pclose(f);
	return n;
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void assert_text(const char *path, const char *text)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, text);
}

static void write_via_writer_fd(struct record_output *out, const char *text)
{
	int fd = record_output__writer_fd(out);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void test_21_output_named_when_published(void **state)
{
	struct record_output out;
	struct stat st;
	char err[512];
	const char *p = tpath("pub.ptop");
	mode_t old = umask(0);
	(void)state;

	assert_int_equal(record_output__open(&out, p, false, err, sizeof(err)), 0);
	umask(old);
	write_via_writer_fd(&out, "header\n");
	assert_int_equal(access(p, F_OK), -1); /* nothing at PATH before the header */
	assert_int_equal(record_output__publish(&out, err, sizeof(err)), 0);
	assert_text(p, "header\n");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* discard removes our file; once PATH is another file, it is left alone */
	record_output__discard(&out);
	assert_int_equal(access(p, F_OK), -1);
	record_output__close(&out);
	assert_int_equal(record_output__open(&out, p, false, err, sizeof(err)), 0);
	assert_int_equal(record_output__publish(&out, err, sizeof(err)), 0);
	assert_int_equal(unlink(p), 0);
	put_file(p, "someone else's\n");
	record_output__discard(&out);
	record_output__close(&out);
	assert_text(p, "someone else's\n");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(entries(), 0);
}

static void test_22_output_publish_races(void **state)
{
	struct record_output out;
	char err[512];
	const char *p = tpath("race.ptop"), *other = tpath("other.txt");
	(void)state;

	/* without --force: a file that appeared meanwhile is not replaced */
	assert_int_equal(record_output__open(&out, p, false, err, sizeof(err)), 0);
	write_via_writer_fd(&out, "capture\n");
	put_file(p, "appeared\n");
	assert_int_equal(record_output__publish(&out, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "already exists"));
	record_output__discard(&out);
	record_output__close(&out);
	assert_text(p, "appeared\n");
	assert_int_equal(entries(), 1); /* no temporary name left */

	/* with --force: replaced by rename, unless it became a symlink meanwhile */
	assert_int_equal(record_output__open(&out, p, true, err, sizeof(err)), 0);
	write_via_writer_fd(&out, "capture\n");
	put_file(other, "precious\n");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink(other, p), 0);
	assert_int_equal(record_output__publish(&out, err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "symbolic link"));
	record_output__discard(&out);
	record_output__close(&out);
	assert_text(other, "precious\n");
	assert_int_equal(entries(), 2);
	assert_int_equal(unlink(p), 0);
	put_file(p, "old\n");
	assert_int_equal(record_output__open(&out, p, true, err, sizeof(err)), 0);
	write_via_writer_fd(&out, "capture\n");
	assert_text(p, "old\n"); /* intact until published */
	assert_int_equal(record_output__publish(&out, err, sizeof(err)), 0);
	record_output__close(&out);
	assert_text(p, "capture\n");
	assert_int_equal(entries(), 2);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(unlink(other), 0);
}

static void test_23_output_refusals(void **state)
{
	struct record_output out;
	char err[512];
	(void)state;

	assert_int_equal(mkdir(tpath("d"), 0700), 0);
	assert_int_equal(record_output__open(&out, tpath("d"), true, err, sizeof(err)), -EISDIR);
	assert_non_null(strstr(err, "is a directory: give a file path"));
	record_output__close(&out);
	assert_int_equal(record_output__open(&out, "", false, err, sizeof(err)), -EINVAL);
	record_output__close(&out);
	assert_int_equal(record_output__open(&out, tpath("no/such/x.ptop"), false, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "cannot create"));
	record_output__close(&out);
	assert_int_equal(mkfifo(tpath("fifo"), 0600), 0);
	assert_int_equal(record_output__open(&out, tpath("fifo"), true, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is a fifo, not a regular file"));
	record_output__close(&out);
	assert_int_equal(unlink(tpath("fifo")), 0);
	assert_int_equal(rmdir(tpath("d")), 0);
	assert_int_equal(entries(), 0);
}

/* ------------------------------------------------------------------ option tables */

/* A collector of our own with an option of each kind, to test the core that reads the
 * tables (record/options.c): parse, defaults, --help, errors. */
struct toy_settings {
	unsigned count;
	uint64_t every_ns;
	bool loud;
	int mode;
};
static struct toy_settings toy;

static int parse_mode(const struct collector_opt *o, const char *arg, void *field, char *err,
		      size_t errlen)
{
	if (!arg || !strcmp(arg, "fast")) {
		*(int *)field = arg ? 2 : 1;
		return 0;
	}
	snprintf(err, errlen, "--%s takes no value or '=fast', not '%s'", o->name, arg);
	return -EINVAL;
}

static const struct collector_opt toy_opts[] = {
	{ .name = "toy-every", .arg = "D", .def = "2s", .help = "toy: period (default 2s)",
	  .section = COPT_TIMING, .parse = copt_parse_duration,
	  .offset = offsetof(struct toy_settings, every_ns), .min = 1000000 },
	{ .name = "toy-count", .arg = "N", .def = "7",
	  .help = "toy: how many, a long text that goes on\nto a second line",
	  .section = COPT_COLLECTORS, .order = 20, .parse = copt_parse_uint,
	  .offset = offsetof(struct toy_settings, count), .min = 3, .max = 9 },
	{ .name = "toy-loud", .help = "toy: say more", .section = COPT_COLLECTORS, .order = 20,
	  .parse = copt_parse_flag, .offset = offsetof(struct toy_settings, loud) },
	{ .name = "toy-mode-with-a-long-name", .arg = "[=fast]", .help = "toy: the mode",
	  .section = COPT_COLLECTORS, .order = 10, .parse = parse_mode,
	  .offset = offsetof(struct toy_settings, mode) },
	{ .name = NULL },
};

static int toy_checks;

static int toy_opts_check(const struct copt_choice *ch, char *err, size_t errlen)
{
	toy_checks++;
	if (toy.loud && !ch->command) {
		snprintf(err, errlen, "--toy-loud needs a command (runs %d)", ch->runs);
		return -EINVAL;
	}
	return 0;
}

static void toy_header(Ptop__V1__Options *o)
{
	o->heap_top = toy.count;
}

static const struct collector_ops t_toy = {
	.name = "toy", .summary = "a toy", .opts = toy_opts, .settings = &toy,
	.settings_size = sizeof(toy), .opts_check = toy_opts_check, .header_options = toy_header,
};
static const struct collector_ops *const toy_table[] = { &t_cpu, &t_toy, NULL };

static int parse_toy(struct record_opts *o, char *err, int argc, char **argv)
{
	return record_opts__parse(o, argc, argv, toy_table, err, 256);
}

static void test_24_option_table_parse(void **state)
{
	struct record_opts o;
	char err[256];

	(void)state;
	/* defaults, parsed from their text; a flag and an optional argument stay zero */
	memset(&toy, 0xa5, sizeof(toy));
	assert_int_equal(parse_toy(&o, err, ARGC("ptop-record", "--pid", "1"),
				   ARGV("ptop-record", "--pid", "1")), 0);
	assert_int_equal(toy.count, 7);
	assert_true(toy.every_ns == 2 * SEC);
	assert_false(toy.loud);
	assert_int_equal(toy.mode, 0);
	record_opts__free(&o);

	/* values, the forms getopt_long takes, mixed with the core's options */
	toy_checks = 0;
	assert_int_equal(parse_toy(&o, err,
				   ARGC("ptop-record", "--toy-count", "9", "-q", "--toy-every=5ms",
					"--toy-loud", "--toy-mode-with-a-long-name", "--", "true"),
				   ARGV("ptop-record", "--toy-count", "9", "-q", "--toy-every=5ms",
					"--toy-loud", "--toy-mode-with-a-long-name", "--", "true")),
			 0);
	assert_int_equal(toy_checks, 1);
	assert_true(o.quiet);
	assert_non_null(o.cmd);
	assert_int_equal(toy.count, 9);
	assert_true(toy.every_ns == 5 * MS);
	assert_true(toy.loud);
	assert_int_equal(toy.mode, 1);
	record_opts__free(&o);
	assert_int_equal(parse_toy(&o, err, ARGC("ptop-record", "--toy-mode-with-a-long-name=fast",
						 "--toy-count=3", "--pid", "1"),
				   ARGV("ptop-record", "--toy-mode-with-a-long-name=fast",
					"--toy-count=3", "--pid", "1")),
			 0);
	assert_int_equal(toy.mode, 2);
	assert_int_equal(toy.count, 3);
	assert_false(toy.loud); /* back to its default at each parse */
	record_opts__free(&o);

	/* the header: the collector fills its own fields */
	{
		Ptop__V1__Options opt = PTOP__V1__OPTIONS__INIT;

		t_toy.header_options(&opt);
		assert_int_equal(opt.heap_top, 3);
	}
}

static void test_25_option_table_errors(void **state)
{
	static const struct {
		const char *argv[5];
		const char *msg;
	} bad[] = {
#define C(...) { __VA_ARGS__, "--pid", "1" }
		{ C("--toy-count", "2"), "--toy-count takes a whole number from 3 to 9, not '2'" },
		{ C("--toy-count", "10"),
		  "--toy-count takes a whole number from 3 to 9, not '10'" },
		{ C("--toy-count", "-5"),
		  "--toy-count takes a whole number from 3 to 9, not '-5'" },
		{ C("--toy-count", "4x"),
		  "--toy-count takes a whole number from 3 to 9, not '4x'" },
		{ C("--toy-count", ""), "--toy-count takes a whole number from 3 to 9, not ''" },
		{ C("--toy-count", "18446744073709551621"),
		  "--toy-count takes a whole number from 3 to 9, not '18446744073709551621'" },
		{ C("--toy-every", "1us"), "--toy-every '1us' is too short: the minimum is 1ms" },
		{ C("--toy-every", "0"),
		  "--toy-every '0' is not a duration: give a positive number with a unit, e.g. "
		  "500ms, 2s, 1.5m (units ns us ms s m h; none means s)" },
		{ C("--toy-every", "1e3"), "--toy-every '1e3': exponents are not accepted: write "
					   "the number in digits with a unit, e.g. 1000s or 2.5m" },
		{ C("--toy-mode-with-a-long-name=slow"),
		  "--toy-mode-with-a-long-name takes no value or '=fast', not 'slow'" },
		{ C("--toy-loud=1"), "unknown option '--toy-loud=1': see ptop-record --help" },
		{ { "--pid", "1", "--toy-count" },
		  "option '--toy-count' needs a value: see ptop-record --help" },
		{ C("--toy-loud"), "--toy-loud needs a command (runs 1)" },
#undef C
	};
	struct record_opts o;
	char err[256], *argv[7];
	size_t i, j;
	int argc;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		argc = 0;
		argv[argc++] = "ptop-record";
		for (j = 0; j < 5 && bad[i].argv[j]; j++)
			argv[argc++] = (char *)bad[i].argv[j];
		argv[argc] = NULL;
		assert_int_equal(parse_toy(&o, err, argc, argv), -EINVAL);
		if (strcmp(err, bad[i].msg))
			fail_msg("case %zu: '%s'\n   not '%s'", i, err, bad[i].msg);
		record_opts__free(&o);
	}
	/* --caps checks no option against the command line */
	toy_checks = 0;
	assert_int_equal(parse_toy(&o, err, ARGC("ptop-record", "--caps", "--toy-loud"),
				   ARGV("ptop-record", "--caps", "--toy-loud")),
			 0);
	assert_int_equal(toy_checks, 0);
	record_opts__free(&o);
}

/* The text of record_usage(TABLE), in BUF. */
static void usage_text(const struct collector_ops *const *tbl, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	assert_non_null(f);
	record_usage(f, tbl);
	assert_int_equal(fclose(f), 0);
}

static void test_26_option_table_help(void **state)
{
	static char buf[16384];
	const char *timing, *smaps, *caps, *other, *mode, *count, *loud;

	(void)state;
	usage_text(toy_table, buf, sizeof(buf));
	timing = strstr(buf, "      --interval D        snapshot period (default 1s)\n"
			     "      --toy-every D       toy: period (default 2s)\n"
			     "      --smaps-budget D");
	assert_non_null(timing);
	caps = strstr(buf, "                          then exit\n");
	other = strstr(buf, "\nOther:\n");
	mode = strstr(buf, "      --toy-mode-with-a-long-name[=fast]\n"
			   "                          toy: the mode\n");
	count = strstr(buf, "      --toy-count N       toy: how many, a long text that goes on\n"
			    "                          to a second line\n");
	loud = strstr(buf, "      --toy-loud          toy: say more\n");
	assert_non_null(caps);
	assert_non_null(mode);
	assert_non_null(count);
	assert_non_null(loud);
	assert_non_null(other);
	/* by order (mode 10, count and loud 20), then table order; all before Other */
	assert_true(caps < mode && mode < count && count < loud && loud < other);
	smaps = strstr(buf, "--smaps-budget");
	assert_true(timing < smaps && smaps < caps);

	/* the recorder's own: every option of every collector is listed once, each name
	 * once among the core's and the other collectors' */
	usage_text(collector_table, buf, sizeof(buf));
	for (size_t i = 0; collector_table[i]; i++) {
		const struct collector_ops *c = collector_table[i];

		for (size_t j = 0; c->opts && c->opts[j].name; j++) {
			char name[80];
			const char *at;

			if (c->opts[j].short_name) /* "  -F, --cpu-sample-hz N" */
				snprintf(name, sizeof(name), "\n  -%c, --%s%s", c->opts[j].short_name,
					 c->opts[j].name,
					 c->opts[j].arg && c->opts[j].arg[0] != '[' ? " " : "");
			else
				snprintf(name, sizeof(name), "\n      --%s%s", c->opts[j].name,
					 c->opts[j].arg && c->opts[j].arg[0] != '[' ? " " : "");
			at = strstr(buf, name);
			if (!at)
				fail_msg("--help lists no --%s", c->opts[j].name);
			assert_null(strstr(at + 1, name));
			assert_non_null(c->settings);
			assert_true(c->opts[j].offset < c->settings_size);
			for (size_t k = 0; collector_table[k]; k++)
				for (size_t l = 0; collector_table[k]->opts &&
						   collector_table[k]->opts[l].name; l++)
					assert_true((k == i && l == j) ||
						    strcmp(collector_table[k]->opts[l].name,
							   c->opts[j].name));
		}
	}
}

/* Bad values end ptop-record with status 2 and one line on stderr, before anything runs. */
static void test_27_option_exit_status(void **state)
{
	char *argv[] = { "ptop-record", "--cpu-sample-hz", "0", "--", "true", NULL };

	(void)state;
	assert_int_equal(record_main(5, argv), RECORD_EXIT_USAGE);
	argv[1] = "--heap-lane";
	argv[2] = "nope";
	assert_int_equal(record_main(5, argv), RECORD_EXIT_USAGE);
	argv[1] = "--vma-interval";
	argv[2] = "-1";
	assert_int_equal(record_main(5, argv), RECORD_EXIT_USAGE);
}

/* Lanes: set and replaced by name; a lane lost is one failed or unsupported with no
 * active lane in its place; --strict fails on a failed collector or a lost lane, and
 * names it; the summary lists an active collector's lost lanes; the lanes go into the
 * probe set and survive the wire. */
static void test_28_lanes_strict(void **state)
{
	struct collector cs[3];
	const struct collector_lane *l;
	Ptop__V1__Probe probes[3], *ptrs[3];
	Ptop__V1__ProbeLane lanes[3 * COLLECTOR_MAX_LANES], *lptrs[3 * COLLECTOR_MAX_LANES];
	Ptop__V1__CaptureHeader h = PTOP__V1__CAPTURE_HEADER__INIT, *back;
	uint8_t packed[2048];
	char err[256], buf[1024];
	size_t len;

	(void)state;
	three(cs);
	for (int i = 0; i < 3; i++)
		cs[i].n_lanes = 0;
	assert_int_equal(record_strict_check(cs, 3, err, sizeof(err)), 0);
	collector_lane(&cs[0], "uprobe_multi", PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED,
		       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "needs Linux %s", "6.6");
	collector_lane(&cs[0], "perf_uprobe", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
		       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", "");
	assert_int_equal(cs[0].n_lanes, 2);
	/* unsupported with nothing in its place: lost */
	assert_true(collector_lane_lost(&cs[0], &l));
	assert_string_equal(l->name, "uprobe_multi");
	assert_int_equal(record_strict_check(cs, 3, err, sizeof(err)), -1);
	assert_string_equal(err, "collector cpu, lane uprobe_multi: unsupported: needs Linux 6.6; "
				 "record without --strict to record without it");
	record_probe_summary(cs, 3, buf, sizeof(buf));
	assert_non_null(strstr(buf, "  cpu: active, but lane uprobe_multi unsupported: needs Linux 6.6\n"));
	/* perf_uprobe in its place: no loss */
	collector_lane_instead(&cs[0], "uprobe_multi", "perf_uprobe");
	assert_false(collector_lane_lost(&cs[0], &l));
	assert_null(l);
	assert_int_equal(record_strict_check(cs, 3, err, sizeof(err)), 0);
	record_probe_summary(cs, 3, buf, sizeof(buf));
	assert_null(strstr(buf, "lane"));
	/* ... unless it fails too; replaced by name, not added */
	collector_lane(&cs[0], "perf_uprobe", PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
		       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "attach: %s", "EINVAL");
	assert_int_equal(cs[0].n_lanes, 2);
	assert_true(collector_lane_lost(&cs[0], &l));
	assert_int_equal(record_strict_check(cs, 3, err, sizeof(err)), -1);
	/* a failed collector; disabled and unsupported ones are not failures */
	collector_lane(&cs[0], "perf_uprobe", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
		       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", "");
	assert_int_equal(record_strict_check(cs, 3, err, sizeof(err)), 0);
	cs[1].state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	assert_int_equal(record_strict_check(cs, 3, err, sizeof(err)), -1);
	assert_string_equal(err, "collector syscalls failed: --no-ebpf given");
	/* standby is no loss */
	collector_lane(&cs[2], "x", PTOP__V1__PROBE_STATE__PROBE_STATE_STANDBY,
		       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", "not needed");
	assert_false(collector_lane_lost(&cs[2], NULL));
	/* a fallback that measures less runs in its place, named, but is still a loss, and
	 * --strict says what to do */
	collector_lane(&cs[2], "copy", PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
		       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", "refused");
	collector_lane(&cs[2], "walk", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
		       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", "");
	collector_lane_fallback(&cs[2], "copy", "walk", "--stacks walk");
	cs[1].state = cs[2].state = PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	assert_true(collector_lane_lost(&cs[2], &l));
	assert_string_equal(l->instead, "walk");
	assert_int_equal(record_strict_check(cs, 3, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ", lane copy: failed: refused (lane walk runs in its place, "
				    "measuring less): record without --strict to accept walk, or "
				    "choose --stacks walk"));
	record_probe_summary(cs, 3, buf, sizeof(buf));
	assert_non_null(strstr(buf, "active, but lane copy failed: refused (in its place: walk)\n"));
	collector_lane(&cs[2], "copy", PTOP__V1__PROBE_STATE__PROBE_STATE_STANDBY,
		       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", "not needed");
	assert_null(cs[2].lanes[1].instead); /* set again: no fallback left over */
	cs[1].state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	cs[2].state = PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED;

	/* the probe set carries them, through the wire format */
	record_probe_set(cs, 3, probes, ptrs, lanes, lptrs);
	assert_int_equal(probes[0].n_lanes, 2);
	assert_int_equal(probes[1].n_lanes, 0);
	h.n_probes = 3;
	h.probes = ptrs;
	len = ptop__v1__capture_header__get_packed_size(&h);
	assert_true(len <= sizeof(packed));
	ptop__v1__capture_header__pack(&h, packed);
	back = ptop__v1__capture_header__unpack(NULL, len, packed);
	assert_non_null(back);
	assert_int_equal(back->probes[0]->n_lanes, 2);
	assert_string_equal(back->probes[0]->lanes[0]->name, "uprobe_multi");
	assert_int_equal(back->probes[0]->lanes[0]->state,
			 PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED);
	assert_string_equal(back->probes[0]->lanes[0]->reason, "needs Linux 6.6");
	assert_string_equal(back->probes[0]->lanes[0]->instead, "perf_uprobe");
	assert_string_equal(back->probes[0]->lanes[1]->name, "perf_uprobe");
	assert_string_equal(back->probes[0]->lanes[1]->instead, "");
	assert_int_equal(back->probes[2]->lanes[0]->state, PTOP__V1__PROBE_STATE__PROBE_STATE_STANDBY);
	assert_string_equal(capture_probe_state_name(PTOP__V1__PROBE_STATE__PROBE_STATE_STANDBY),
			    "standby");
	ptop__v1__capture_header__free_unpacked(back, NULL);
}

/* PTOP_TEST_REFUSE: names in a comma-separated list, whole names only; a refused feature
 * reads as absent with its version and the reason. */
static void test_29_kfeature_refuse(void **state)
{
	char why[200];

	(void)state;
	setenv("PTOP_TEST_REFUSE", "tp_btf:sock_send_length,uprobe_multi", 1);
	assert_true(kfeature_refused("uprobe_multi"));
	assert_true(kfeature_refused("tp_btf:sock_send_length"));
	assert_false(kfeature_refused("tp_btf"));
	assert_false(kfeature_refused("uprobe"));
	assert_false(kfeature_have(KF_UPROBE_MULTI, why, sizeof(why)));
	assert_string_equal(why, "needs Linux 6.6: uprobe_multi (refused by PTOP_TEST_REFUSE)");
	assert_false(uprobe_link__multi(NULL, 0));
	assert_string_equal(kfeature_info(KF_TP_SOCK_SEND_LENGTH)->since, "6.3");
	setenv("PTOP_TEST_REFUSE", "", 1);
	assert_false(kfeature_refused("uprobe_multi"));
	unsetenv("PTOP_TEST_REFUSE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_duration_units),
		cmocka_unit_test(test_02_duration_invalid),
		cmocka_unit_test(test_03_parse_pid_defaults),
		cmocka_unit_test(test_04_parse_command),
		cmocka_unit_test(test_05_parse_errors),
		cmocka_unit_test(test_06_help_version_caps),
		cmocka_unit_test(test_07_disable),
		cmocka_unit_test(test_08_default_output),
		cmocka_unit_test(test_09_probe_summary),
		cmocka_unit_test(test_10_probe_set),
		cmocka_unit_test(test_11_caps_lines),
		cmocka_unit_test(test_12_target_exit),
		cmocka_unit_test(test_13_drop_totals),
		cmocka_unit_test(test_14_capeff),
		cmocka_unit_test(test_15_buildid),
		cmocka_unit_test(test_16_launch_errors),
		cmocka_unit_test(test_17_launch_run),
		cmocka_unit_test(test_18_launch_abandoned),
		cmocka_unit_test(test_19_open_pid),
		cmocka_unit_test(test_20_open_thread),
		cmocka_unit_test(test_21_output_named_when_published),
		cmocka_unit_test(test_22_output_publish_races),
		cmocka_unit_test(test_23_output_refusals),
		cmocka_unit_test(test_24_option_table_parse),
		cmocka_unit_test(test_25_option_table_errors),
		cmocka_unit_test(test_26_option_table_help),
		cmocka_unit_test(test_27_option_exit_status),
		cmocka_unit_test(test_28_lanes_strict),
		cmocka_unit_test(test_29_kfeature_refuse),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
