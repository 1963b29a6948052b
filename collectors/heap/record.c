/* record.c — the heap collector (collectors/heap/record.h): its options, its
 * collector_ops, and the lane it runs. check() chooses the lane (c->source): the preload
 * lane (record_preload.c) for a launched command when prepared, else the uprobe lane
 * (record_uprobe.c); start(), poll(), stop() and exec() run the chosen lane's
 * heap_lane_ops. The lanes share record_lane.c.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "record/collector.h"
#include "collectors/heap/record.h"
#include "collectors/heap/record_preload.h"
#include "common/units.h"

extern const struct collector_ops heap_collector;

/* The lane check() chose for C. */
static const struct heap_lane_ops *lane_of(const struct collector *c)
{
	return c->source == PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PRELOAD ? &heap_preload_lane
									 : &heap_uprobe_lane;
}

/* The heap collector's check(): a launched command with the preload lane prepared is
 * that lane's to decide (it comes back to the uprobe lane's check for a static or Go
 * executable, collectors/heap/record_preload.c); else the uprobe lane's. Which lane
 * said yes is c->source (PRELOAD or EBPF): start(), poll(), stop() and exec() follow
 * it. Changes nothing. */
static Ptop__V1__ProbeState hp_check(struct collector *c)
{
	if (heap_preload__wanted(heap_preload__prepared()))
		return heap_preload_lane.check(c);
	return heap_uprobe_lane.check(c);
}

/* The final stop: the lane's, and what prepare() made goes too. */
static void hp_stop_final(struct collector *c)
{
	heap__lane_stop(c);
	heap__reap_wait();
	heap_preload__release();
}

void heap__lane_stop(struct collector *c)
{
	if (c->ops != &heap_collector)
		c->ops->stop(c);	/* the Go lane */
	else
		lane_of(c)->stop(c);
}

/* The heap collector's start(), poll() and exec(): the lane check() chose (c->source).
 * When it is not the preload lane, the preload lane (if prepared) is off for good, as
 * check() fell back from it: the library does not attach. */
static int hp_start_lane(struct collector *c)
{
	if (lane_of(c) != &heap_preload_lane)
		heap_preload__off(heap_preload__prepared());
	return lane_of(c)->start(c);
}

static int hp_poll_lane(struct collector *c, uint64_t now_ns, unsigned flags)
{
	return lane_of(c)->poll(c, now_ns, flags);
}

static int hp_exec_lane(struct collector *c, uint64_t now_ns)
{
	if (lane_of(c) != &heap_preload_lane)
		heap_preload__off(heap_preload__prepared());
	return lane_of(c)->exec(c, now_ns);
}

/* ------------------------------------------------------------------ options */

struct heap_settings heap_settings;

/* --heap-sample-bytes: bytes with an optional K/M/G suffix (common/units.h), from 0 (every
 * allocation) to HEAP_MAX_SAMPLE_BYTES. */
static int parse_sample_bytes(const struct collector_opt *o, const char *arg, void *field,
			      char *err, size_t errlen)
{
	(void)o;
	if (!units__parse_bytes(arg, HEAP_MAX_SAMPLE_BYTES, field))
		return 0;
	snprintf(err, errlen,
		 "--heap-sample-bytes takes a number of bytes from 0 (every allocation) to 1T, "
		 "with an optional K/M/G suffix (e.g. 512K), not '%s'",
		 arg);
	return -EINVAL;
}

static int parse_lane(const struct collector_opt *o, const char *arg, void *field, char *err,
		      size_t errlen)
{
	(void)o;
	if (!heap_lane__parse(arg, field))
		return 0;
	snprintf(err, errlen, "--heap-lane takes auto, uprobe or preload, not '%s'", arg);
	return -EINVAL;
}

static const struct collector_opt hp_opts[] = {
	{
		.name = "heap-sample-bytes",
		.arg = "N",
		.def = "512K",
		.help = "heap: take a call stack once per N bytes allocated on\n"
			"average (randomized; default 512K; 0: every\n"
			"allocation, exact per site). Totals are always exact",
		.section = COPT_COLLECTORS,
		.order = 30,
		.parse = parse_sample_bytes,
		.offset = offsetof(struct heap_settings, sample_bytes),
	},
	{
		.name = "heap-top",
		.arg = "N",
		.def = "64",
		.help = "heap: call sites kept per interval by each of live\n"
			"bytes, bytes and count allocated (default 64)",
		.section = COPT_COLLECTORS,
		.order = 30,
		.parse = copt_parse_uint,
		.offset = offsetof(struct heap_settings, top),
		.min = 1,
		.max = HEAP_MAX_TOP,
	},
	{
		.name = "leak-age",
		.arg = "D",
		.def = "30s",
		.help = "heap: live allocations older than D are leak\n"
			"suspects (default 30s)",
		.section = COPT_COLLECTORS,
		.order = 30,
		.parse = copt_parse_duration,
		.offset = offsetof(struct heap_settings, leak_age_ns),
		.min = 1,
	},
	{
		.name = "heap-events",
		.help = "heap: also write every sampled allocation and free",
		.section = COPT_COLLECTORS,
		.order = 30,
		.parse = copt_parse_flag,
		.offset = offsetof(struct heap_settings, events),
	},
	{
		.name = "heap-lane",
		.arg = "L",
		.def = "auto",
		.help = "heap: auto (default), uprobe or preload. preload puts\n"
			"libptop-preload.so into a launched command's\n"
			"LD_PRELOAD (far cheaper than uprobes, below\n"
			"heaptrack even at --heap-sample-bytes 0; whole stacks\n"
			"from .eh_frame, without frame pointers; static and Go\n"
			"executables fall back to uprobes); auto is preload\n"
			"for launched commands, uprobes for --pid. heap and\n"
			"goalloc follow the target's exec (a wrapper such as\n"
			"sh -c 'exec PROG' or env): see FOLLOWING EXEC in\n"
			"ptop-record(1)",
		.section = COPT_COLLECTORS,
		.order = 30,
		.parse = parse_lane,
		.offset = offsetof(struct heap_settings, lane),
	},
	{ .name = NULL },
};

/* --heap-lane preload is a choice about a heap collector that runs on a launched command. */
static int hp_opts_check(const struct copt_choice *ch, char *err, size_t errlen)
{
	if (heap_settings.lane != HEAP_LANE_PRELOAD)
		return 0;
	if (!ch->runs) {
		snprintf(err, errlen,
			 "--heap-lane preload chooses how the heap collector runs, which is off: "
			 "add --enable heap");
		return -EINVAL;
	}
	if (!ch->command) {
		snprintf(err, errlen,
			 "--heap-lane preload needs a command that ptop-record starts "
			 "(-- COMMAND): the library goes into its LD_PRELOAD before it runs, "
			 "which a running process cannot take; use --heap-lane uprobe (or auto) "
			 "with --pid");
		return -EINVAL;
	}
	return 0;
}

static void hp_header_options(Ptop__V1__Options *o)
{
	o->heap_sample_bytes = heap_settings.sample_bytes;
	o->heap_top = heap_settings.top;
	o->leak_age_ns = heap_settings.leak_age_ns;
	o->heap_events = heap_settings.events;
	o->heap_lane = (char *)heap_lane__name(heap_settings.lane);
}

const struct collector_ops heap_collector = {
	.name = "heap",
	.summary = "heap: allocations by call site, live heap, leak suspects "
		   "(libptop-preload.so in a launched command, else eBPF uprobes on malloc/free)",
	.off_by_default = HEAP_OFF_BY_DEFAULT,
	.opts = hp_opts,
	.settings = &heap_settings,
	.settings_size = sizeof(heap_settings),
	.opts_check = hp_opts_check,
	.header_options = hp_header_options,
	.prepare = heap_preload__collector_prepare,
	.check = hp_check,
	.start = hp_start_lane,
	.poll = hp_poll_lane,
	.stop = hp_stop_final,
	.exec = hp_exec_lane,
};
