/* rec_double.h — a test double for the recorder's emit functions.
 *
 * A collector under test (record/collector.h) emits through rec_emit,
 * rec_emit_event and rec_emit_drop; this double keeps what it emitted, packed
 * (so every record is proven to serialize), for the test to read back. Include
 * it in exactly one file of a test program, after <cmocka.h>.
 */
#ifndef PTOP_REC_DOUBLE_H
#define PTOP_REC_DOUBLE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/collector.h"

/* records a test may emit: a CPU profile of a program without frame pointers (an ASan
 * build) sends a stack copy per distinct sampled ip, a few hundred a second at 499 Hz */
#define REC_DOUBLE_MAX 8192

static struct {
	uint8_t *packed[REC_DOUBLE_MAX];  /* every record, in order; events wrapped */
	size_t len[REC_DOUBLE_MAX];
	int n_records;                   /* records of any kind */
	int event_index[REC_DOUBLE_MAX]; /* the record index of each event */
	int n_events;
	struct {
		char kind[32];
		char detail[128];
		uint64_t lost;
	} drops[REC_DOUBLE_MAX];
	int n_drops;
} rec_double;

uint64_t rec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int rec_emit(struct rec_ctx *ctx, const Ptop__V1__Record *rec)
{
	int i = rec_double.n_records;

	(void)ctx;
	assert_true(i < REC_DOUBLE_MAX);
	rec_double.len[i] = ptop__v1__record__get_packed_size(rec);
	rec_double.packed[i] = malloc(rec_double.len[i] + 1);
	assert_non_null(rec_double.packed[i]);
	assert_int_equal(ptop__v1__record__pack(rec, rec_double.packed[i]), rec_double.len[i]);
	rec_double.n_records++;
	return 0;
}

int rec_emit_event(struct rec_ctx *ctx, Ptop__V1__Event *ev, Ptop__V1__Category cat,
		   uint64_t now_ns, uint64_t interval_ns)
{
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;

	ev->time_ns = now_ns;
	ev->interval_ns = interval_ns;
	ev->pid = ctx->pid;
	ev->category = cat;
	rec.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	rec.event = ev;
	assert_true(rec_double.n_events < REC_DOUBLE_MAX);
	rec_double.event_index[rec_double.n_events++] = rec_double.n_records;
	ctx->events++;
	return rec_emit(ctx, &rec);
}

int rec_emit_drop(struct collector *c, const char *kind, uint64_t lost, const char *detail)
{
	int i = rec_double.n_drops;

	if (!lost)
		return 0;
	assert_true(i < REC_DOUBLE_MAX);
	snprintf(rec_double.drops[i].kind, sizeof(rec_double.drops[i].kind), "%s", kind);
	snprintf(rec_double.drops[i].detail, sizeof(rec_double.drops[i].detail), "%s",
		 detail ? detail : "");
	rec_double.drops[i].lost = lost;
	rec_double.n_drops++;
	c->dropped += lost;
	return 0;
}

/* Forget everything emitted so far. */
static inline void rec_double_reset(void)
{
	for (int i = 0; i < rec_double.n_records; i++)
		free(rec_double.packed[i]);
	memset(&rec_double, 0, sizeof(rec_double));
}

/* Record I (any kind), unpacked; the caller frees it with
 * ptop__v1__record__free_unpacked(rec, NULL). */
static inline Ptop__V1__Record *rec_double_record(int i)
{
	Ptop__V1__Record *rec;

	assert_true(i >= 0 && i < rec_double.n_records);
	rec = ptop__v1__record__unpack(NULL, rec_double.len[i], rec_double.packed[i]);
	assert_non_null(rec);
	return rec;
}

/* Event I, unpacked and checked to carry payload PAYLOAD (0: any); the
 * caller frees it with rec_double_free_event(ev). */
static inline Ptop__V1__Event *rec_double_event(int i, Ptop__V1__Event__PayloadCase payload)
{
	Ptop__V1__Record *rec;
	Ptop__V1__Event *ev;

	assert_true(i >= 0 && i < rec_double.n_events);
	rec = rec_double_record(rec_double.event_index[i]);
	assert_int_equal(rec->kind_case, PTOP__V1__RECORD__KIND_EVENT);
	if (payload)
		assert_int_equal(rec->event->payload_case, payload);
	ev = rec->event;
	rec->event = NULL;
	rec->kind_case = PTOP__V1__RECORD__KIND__NOT_SET;
	ptop__v1__record__free_unpacked(rec, NULL);
	return ev;
}

static inline void rec_double_free_event(Ptop__V1__Event *ev)
{
	ptop__v1__event__free_unpacked(ev, NULL);
}

/* Events lost of KIND, summed over the drops emitted. */
static inline uint64_t rec_double_drops(const char *kind)
{
	uint64_t sum = 0;

	for (int i = 0; i < rec_double.n_drops; i++)
		if (!strcmp(rec_double.drops[i].kind, kind))
			sum += rec_double.drops[i].lost;
	return sum;
}

#endif
