/* capwrite.h — writing synthetic captures in the analyzer's tests: the builder of
 * tests/capbuild.h, whose writer errors fail the test; append a record and end with a
 * trailer. */
#ifndef PTOP_TESTS_CAPWRITE_H
#define PTOP_TESTS_CAPWRITE_H

#define CAPB_CHECK(rc) assert_int_equal((rc), 0)
#include "tests/capbuild.h"

static inline void capw__append(struct capture_writer *w, Ptop__V1__Record *r)
{
	capb__put(w, r);
}

/* A trailer: the recording ended at T (--duration). */
static inline void capw__trailer(struct capture_writer *w, uint64_t t)
{
	Ptop__V1__CaptureTrailer tr = PTOP__V1__CAPTURE_TRAILER__INIT;

	tr.reason = PTOP__V1__END_REASON__END_REASON_DURATION;
	tr.end_time_ns = t;
	capb__put_trailer(w, &tr);
}

#endif
