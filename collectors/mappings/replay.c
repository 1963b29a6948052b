/* replay.c — the mappings collector's part of the replay timeline: each mapping that came or
 * went (the capture's mapping records with a time), as an event. It keeps no series. */
#include <errno.h>
#include <string.h>

#include "analyze/replay_model.h"
#include "proto/names.h"

static int mappings_events(struct replay_model *m, const void *state)
{
	static const char sql[] =
	    "SELECT time_ns - ?2, event, path, start, end FROM mapping WHERE cap = ?1 "
	    "AND event IN (?3, ?4) AND time_ns IS NOT NULL";
	const char *new = capture_mapping_event_name(PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_NEW),
		   *gone = capture_mapping_event_name(PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_GONE);
	sqlite3_stmt *st = NULL;
	int err, rc;

	(void)state;
	err = replay_model__prepare(m, sql, &st);
	if (!err) {
		sqlite3_bind_text(st, 3, new, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, gone, -1, SQLITE_STATIC);
	}
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *ev = sqlite3_column_text(st, 1),
				    *path = sqlite3_column_text(st, 2);

		err = replay_model__event(
		    m, sqlite3_column_int64(st, 0), false,
		    ev && !strcmp((const char *)ev, new) ? "mapping new" : "mapping gone",
		    "%s %llx-%llx", path && *path ? (const char *)path : "[anon]",
		    (unsigned long long)sqlite3_column_int64(st, 3),
		    (unsigned long long)sqlite3_column_int64(st, 4));
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

const struct replay_series mappings_replay = {
    .what = "mappings",
    .events = mappings_events,
};
