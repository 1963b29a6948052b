/* capwrite.h — writing synthetic captures in the analyzer's tests: append a record
 * (the test fails if the writer refuses it) and end with a trailer. */
#ifndef PTOP_TESTS_CAPWRITE_H
#define PTOP_TESTS_CAPWRITE_H

#include "proto/capture.h"

static inline void capw__append(struct capture_writer *w, Ptop__V1__Record *r)
{
	assert_int_equal(capture_writer__append(w, r), 0);
}

/* A trailer: the recording ended at T (--duration). */
static inline void capw__trailer(struct capture_writer *w, uint64_t t)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__CaptureTrailer tr = PTOP__V1__CAPTURE_TRAILER__INIT;

	tr.reason = PTOP__V1__END_REASON__END_REASON_DURATION;
	tr.end_time_ns = t;
	r.kind_case = PTOP__V1__RECORD__KIND_TRAILER;
	r.trailer = &tr;
	capw__append(w, &r);
}

#endif
