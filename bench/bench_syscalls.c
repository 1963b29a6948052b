/* bench_syscalls.c — runs the syscalls collector alone against a pid, the way the
 * recorder does (check, start, a poll per second, stop), with no capture file: the
 * emitted records are counted and dropped. bench/overhead_syscalls.sh uses it to
 * measure the collector's own cost apart from the rest of ptop-record.
 *
 * usage: bench_syscalls PID    prints "attached" once live; ends on SIGINT/SIGTERM
 *                              and prints the events and drops it emitted
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/collector.h"

extern const struct collector_ops syscalls_collector;

static unsigned long long n_events, n_drops;

uint64_t rec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int rec_emit(struct rec_ctx *ctx, const Ptop__V1__Record *rec)
{
	(void)ctx;
	(void)rec;
	return 0;
}

int rec_emit_event(struct rec_ctx *ctx, Ptop__V1__Event *ev, Ptop__V1__Category cat,
		   uint64_t now_ns, uint64_t interval_ns)
{
	(void)ev;
	(void)cat;
	(void)now_ns;
	(void)interval_ns;
	ctx->events++;
	n_events++;
	return 0;
}

int rec_emit_drop(struct collector *c, const char *kind, uint64_t lost, const char *detail)
{
	if (lost)
		fprintf(stderr, "bench_syscalls: drop %s %llu (%s)\n", kind,
			(unsigned long long)lost, detail);
	c->dropped += lost;
	n_drops += lost;
	return 0;
}

static int bench_syscalls_main(int argc, char **argv)
{
	struct rec_ctx ctx = { .interval_ns = 1000000000ULL };
	struct collector c = { .ops = &syscalls_collector, .ctx = &ctx };
	struct timespec tmo = { 1, 0 };
	sigset_t set;
	int err = 0, sig;

	if (argc != 2 || (ctx.pid = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: bench_syscalls PID\n");
		return 2;
	}
	/* a shell starts background jobs with SIGINT ignored, and an ignored signal
	 * never reaches sigwait(): take the default back before blocking */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (c.ops->check(&c) != PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE) {
		fprintf(stderr, "bench_syscalls: %s\n", c.reason);
		return 1;
	}
	err = c.ops->start(&c);
	if (err) {
		fprintf(stderr, "bench_syscalls: %s\n", c.reason);
		goto cleanup;
	}
	printf("attached\n");
	fflush(stdout);
	err = c.ops->poll(&c, rec_now_ns(), POLL_FIRST);
	while (!err) {
		sig = sigtimedwait(&set, NULL, &tmo);
		if (sig > 0)
			break;
		err = c.ops->poll(&c, rec_now_ns(), 0);
	}
	if (!err)
		err = c.ops->poll(&c, rec_now_ns(), POLL_FINAL);
	printf("events %llu drops %llu\n", n_events, n_drops);
cleanup:
	c.ops->stop(&c);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	return bench_syscalls_main(argc, argv);
}
