/* capbuild.h — the one builder of synthetic captures, for the tests and the golden
 * captures' generator (tests/golden/gen.c): a header with its sub-messages and probes in
 * one struct to fill, and one function per record kind.
 *
 * Every function appends through capb__put, which hands a writer error to CAPB_CHECK(rc):
 * by default it prints the error and exits 1; a cmocka test includes tests/capwrite.h,
 * which makes it a test failure. Strings are not copied: they must live until the record
 * is appended (each function appends before it returns).
 */
#ifndef PTOP_TESTS_CAPBUILD_H
#define PTOP_TESTS_CAPBUILD_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/capture.h"

#ifndef CAPB_CHECK
#define CAPB_CHECK(rc)                                                                   \
	do {                                                                             \
		if (rc) {                                                                \
			fprintf(stderr, "capbuild: append failed: %s\n", strerror(-(rc))); \
			exit(1);                                                         \
		}                                                                        \
	} while (0)
#endif

#define CAPB_MAX_PROBES 16

static inline void capb__put(struct capture_writer *w, const Ptop__V1__Record *r)
{
	int rc = capture_writer__append(w, r);

	CAPB_CHECK(rc);
}

/* ---------------------------------------------------------------- header */

/* A header and the messages it points at. capb__header_init zeroes it all (protobuf-c
 * INIT), points h at every sub-message (recorder, host, clocks, options, target) and at
 * the probes added so far; a test that wants a sub-message absent sets its pointer in h
 * to NULL after the init. The capture id is id[] (16 bytes, h points at it). */
struct capb_header {
	Ptop__V1__CaptureHeader h;
	Ptop__V1__Recorder rec;
	Ptop__V1__Host host;
	Ptop__V1__Clocks clk;
	Ptop__V1__Options opt;
	Ptop__V1__TargetInfo t;
	Ptop__V1__Probe probe[CAPB_MAX_PROBES];
	Ptop__V1__Probe *pp[CAPB_MAX_PROBES];
	uint8_t id[16];
};

static inline void capb__header_init(struct capb_header *b)
{
	memset(b, 0, sizeof(*b));
	ptop__v1__capture_header__init(&b->h);
	ptop__v1__recorder__init(&b->rec);
	ptop__v1__host__init(&b->host);
	ptop__v1__clocks__init(&b->clk);
	ptop__v1__options__init(&b->opt);
	ptop__v1__target_info__init(&b->t);
	b->h.format_version = CAPTURE_FORMAT_VERSION;
	b->h.capture_id.data = b->id;
	b->h.capture_id.len = sizeof(b->id);
	b->h.recorder = &b->rec;
	b->h.host = &b->host;
	b->h.clocks = &b->clk;
	b->h.options = &b->opt;
	b->h.target = &b->t;
	b->h.probes = b->pp;
}

/* Append a probe to the header's probe set (at most CAPB_MAX_PROBES); returns it for
 * the fields not given here. REASON and DETAIL may be NULL (absent). */
static inline Ptop__V1__Probe *capb__probe(struct capb_header *b, const char *name,
					   Ptop__V1__ProbeState state,
					   Ptop__V1__ProbeSource source, const char *reason,
					   const char *detail)
{
	Ptop__V1__Probe *p;

	if (b->h.n_probes >= CAPB_MAX_PROBES)
		CAPB_CHECK(-E2BIG);
	p = &b->probe[b->h.n_probes];
	ptop__v1__probe__init(p);
	p->name = (char *)name;
	p->state = state;
	p->source = source;
	if (reason)
		p->reason = (char *)reason;
	if (detail)
		p->detail = (char *)detail;
	b->pp[b->h.n_probes++] = p;
	return p;
}

static inline void capb__put_header(struct capture_writer *w, struct capb_header *b)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;

	b->h.probes = b->h.n_probes ? b->pp : NULL;
	r.kind_case = PTOP__V1__RECORD__KIND_HEADER;
	r.header = &b->h;
	capb__put(w, &r);
}

/* ---------------------------------------------------------------- records */

/* EV's payload and payload_case are the caller's; the rest of the envelope too. */
static inline void capb__put_event(struct capture_writer *w, Ptop__V1__Event *ev)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;

	r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	r.event = ev;
	capb__put(w, &r);
}

/* An event envelope: time T, PID, TID, category CAT, interval IV (0: a point in time). */
static inline Ptop__V1__Event capb__event(uint64_t t, int32_t pid, int32_t tid,
					  Ptop__V1__Category cat, uint64_t iv)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;

	ev.time_ns = t;
	ev.pid = pid;
	ev.tid = tid;
	ev.category = cat;
	ev.interval_ns = iv;
	return ev;
}

static inline void capb__put_stack(struct capture_writer *w, uint64_t id, const uint64_t *ips,
				   size_t n, bool kernel)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Stack s = PTOP__V1__STACK__INIT;

	s.id = id;
	s.ips = (uint64_t *)ips;
	s.n_ips = n;
	s.kernel = kernel;
	r.kind_case = PTOP__V1__RECORD__KIND_STACK;
	r.stack = &s;
	capb__put(w, &r);
}

/* A mapping record: M is filled by the caller (capb__mapping gives the usual one). */
static inline void capb__put_mapping(struct capture_writer *w, Ptop__V1__Mapping *m)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;

	r.kind_case = PTOP__V1__RECORD__KIND_MAPPING;
	r.mapping = m;
	capb__put(w, &r);
}

/* An executable mapping [START, END) of PATH at OFFSET in PID at time T, with the
 * build-id BID (N bytes; none when N is 0), perms r-xp, event EV. */
static inline Ptop__V1__Mapping capb__mapping(uint64_t t, int32_t pid, uint64_t start,
					      uint64_t end, uint64_t offset, const char *path,
					      const uint8_t *bid, size_t n,
					      Ptop__V1__MappingEvent ev)
{
	Ptop__V1__Mapping m = PTOP__V1__MAPPING__INIT;

	m.time_ns = t;
	m.pid = pid;
	m.start = start;
	m.end = end;
	m.offset = offset;
	m.path = (char *)path;
	m.build_id.data = (uint8_t *)bid;
	m.build_id.len = n;
	m.perms = "r-xp";
	m.event = ev;
	return m;
}

static inline void capb__put_drop(struct capture_writer *w, uint64_t t, const char *collector,
				  const char *kind, uint64_t lost, const char *detail)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__DropNotice d = PTOP__V1__DROP_NOTICE__INIT;

	d.time_ns = t;
	d.collector = (char *)collector;
	d.kind = (char *)kind;
	d.lost = lost;
	if (detail)
		d.detail = (char *)detail;
	r.kind_case = PTOP__V1__RECORD__KIND_DROP;
	r.drop = &d;
	capb__put(w, &r);
}

/* One chunk (CHUNK of CHUNKS) of the perf map PATH of PID copied at time T. */
static inline void capb__put_perf_map(struct capture_writer *w, uint64_t t, int32_t pid,
				      const char *path, const void *content, size_t len,
				      uint32_t chunk, uint32_t chunks)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__PerfMap pm = PTOP__V1__PERF_MAP__INIT;

	pm.time_ns = t;
	pm.pid = pid;
	pm.path = (char *)path;
	pm.content.data = (uint8_t *)content;
	pm.content.len = len;
	pm.chunk = chunk;
	pm.chunks = chunks;
	r.kind_case = PTOP__V1__RECORD__KIND_PERF_MAP;
	r.perf_map = &pm;
	capb__put(w, &r);
}

/* One chunk of the embedded symbols of the module BID (N bytes) at PATH; SIZE is the
 * whole ELF's. */
static inline void capb__put_module_symbols(struct capture_writer *w, const uint8_t *bid,
					    size_t n, const char *path, bool debug,
					    const void *elf, size_t len, uint32_t chunk,
					    uint32_t chunks, uint64_t size)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__ModuleSymbols ms = PTOP__V1__MODULE_SYMBOLS__INIT;

	ms.build_id.data = (uint8_t *)bid;
	ms.build_id.len = n;
	ms.path = (char *)path;
	ms.debug = debug;
	ms.elf.data = (uint8_t *)elf;
	ms.elf.len = len;
	ms.chunk = chunk;
	ms.chunks = chunks;
	ms.size = size;
	r.kind_case = PTOP__V1__RECORD__KIND_MODULE_SYMBOLS;
	r.module_symbols = &ms;
	capb__put(w, &r);
}

/* A probe change at T: PROBE (NULL: none) from then on, because of CAUSE. */
static inline void capb__put_probe_change(struct capture_writer *w, uint64_t t,
					  Ptop__V1__Probe *probe, const char *cause)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__ProbeChange pc = PTOP__V1__PROBE_CHANGE__INIT;

	pc.time_ns = t;
	pc.probe = probe;
	if (cause)
		pc.cause = (char *)cause;
	r.kind_case = PTOP__V1__RECORD__KIND_PROBE_CHANGE;
	r.probe_change = &pc;
	capb__put(w, &r);
}

static inline void capb__put_trailer(struct capture_writer *w, Ptop__V1__CaptureTrailer *tr)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;

	r.kind_case = PTOP__V1__RECORD__KIND_TRAILER;
	r.trailer = tr;
	capb__put(w, &r);
}

#endif
