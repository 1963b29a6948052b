/* replay_model.h — the replay viewer's data model: a capture in memory, and the position.
 *
 * The model keeps what is no collector's: the capture's facts and probe set, the playback
 * position and speed, the drop notices, the timeline of discrete events and the interval ends
 * the arrows step through. Each collector's series is its own: a part declares a struct
 * replay_series (analyze/part.h: .replay; collectors/NAME/replay.c or view.c) whose hooks read
 * it once at open into a state the model holds for it, list its interval ends and its timeline
 * events; its views get that state back with replay_model__state. A series is read into sorted
 * arrays, so a seek is a binary search and never a scan (rm_times__at). The model knows nothing
 * of curses: the views (analyze/replay_views.c, collectors/NAME/view.c) read it and draw into a
 * character grid.
 *
 * Times in the model are nanoseconds relative to the capture start (capture.start_monotonic_ns).
 * The state "at T" is the last interval that ended at or before T (what a live viewer would have
 * shown at T); the history is every interval before it. A figure that was not measured is
 * negative (RM_NULL) in the arrays, never 0.
 */
#ifndef PTOP_REPLAY_MODEL_H
#define PTOP_REPLAY_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <sqlite3.h>

#include "analyze/report.h"

#define RM_NULL (-1) /* a figure that was not measured */

struct rm_drop {
	int64_t t; /* RM_NULL when the notice had no time */
	char collector[32], kind[32];
	uint64_t lost;
};

/* A discrete event for the timeline: a drop notice, a probe that changed, the end of the
 * recording (the model's own), or one a part lists (replay_series.events). */
struct rm_event {
	int64_t t;
	bool warn; /* a loss or a failure (a probe that failed): drawn as a warning */
	char category[16]; /* the part that listed it ("lifecycle"), else the model's own word:
			    * "drop", "probe", "end" (`report events --category`) */
	char kind[16];
	int64_t pid; /* the process it is about; RM_NULL when none or unknown */
	char text[200];
};

/* Times of a series: the K-th (K < N) is the int64_t at (const char *)T + K * STRIDE, ascending
 * (ties allowed): the field of an array of structs, read in place. */
struct rm_times {
	const int64_t *t;
	size_t n, stride;
};

/* The times T[0 .. N), an array of int64_t. */
static inline struct rm_times rm_times__of(const int64_t *t, size_t n)
{
	return (struct rm_times){t, n, sizeof(*t)};
}

/* The times of ARR[0 .. N), an array of structs with an int64_t member t. */
#define RM_TIMES(arr, n) ((struct rm_times){(arr) ? &(arr)->t : NULL, (n), sizeof(*(arr))})

struct replay_model;

/* A part's replay series (analyze/part.h: .replay), in collectors/NAME/replay.c or view.c. The
 * model owns one state per part that declares a series (STATE_SIZE bytes, zeroed) and hands it
 * to the hooks; the part's views get it with replay_model__state. Each hook may be NULL.
 *   open    read the part's series from m->db into STATE (helpers: replay_model__read,
 *           replay_model__times, replay_model__prepare, rm_col); it may prepare the
 *           statements its views run at each draw and keep them there. Called once, in
 *           an_parts[] order, after the capture's facts and probe set are read. 0, or
 *           -ENOMEM, or -EIO (the model then reports sqlite3_errmsg).
 *   free    free what OPEN (or a view) put in STATE; the model frees STATE itself. May be NULL.
 *   ends    its interval ends, for stepping (the arrows land on the merged ends of every
 *           part that has them) and the capture's duration; NULL: none (its times do not
 *           step, e.g. snapshots every few intervals).
 *   events  add its discrete events to the timeline with replay_model__event (after every
 *           part is open; the model sorts them by time). NULL: none.
 * WHAT names the series in the error when OPEN fails: "cannot read the WHAT: ...". */
struct replay_series {
	const char *what;
	size_t state_size;
	int (*open)(struct replay_model *m, void *state);
	void (*free)(void *state);
	struct rm_times (*ends)(const void *state);
	int (*events)(struct replay_model *m, const void *state);
};

enum { RM_SPEED_MIN = -2, RM_SPEED_MAX = 6 }; /* speed = 2^speed_log2: 1/4x .. 64x */

struct replay_model {
	sqlite3 *db; /* not owned */
	struct capture_meta meta;
	/* capture and target facts (empty strings when unknown) */
	char mode[16], comm[64], cgroup[256], container[80], recorder_version[32];
	int64_t pid;		   /* RM_NULL when unknown */
	int64_t start_realtime_ns; /* RM_NULL when unknown */
	int64_t interval_ns;	   /* the capture's sampling interval (default 1 s when unknown) */
	int64_t duration_ns;	   /* end of the last interval relative to the start */
	struct probe_info *probes; /* one per part of an_parts[], in its order */
	void **states;		   /* one per part of an_parts[]: its series' state, or NULL */
	uint64_t events; /* records of type event (record_count), 0 when unknown */

	struct rm_drop *drops;
	size_t ndrops;
	struct rm_event *events_list; /* in time order */
	size_t nevents, events_cap;
	const char *event_category; /* the category replay_model__event gives an event */
	/* the interval ends the arrows step through, ascending, one per time: the merged ends of
	 * every part's series that has them (replay_series.ends), not a fixed grid, since the
	 * first interval of a recording is often short (30 ms, then 1 s each) */
	int64_t *ends;
	size_t nends;

	/* the playback position */
	int64_t pos_ns;
	bool playing;
	int speed_log2; /* RM_SPEED_MIN .. RM_SPEED_MAX */
};

/* Load capture CAPTURE_ID of DB (which stays the caller's and must outlive the model). Returns
 * the model at position 0, paused, speed 1x; NULL with errno set (ENOENT: no such capture,
 * ENOMEM, EIO: an SQLite error) and a one-line reason in ERR. Free with replay_model__free. */
struct replay_model *replay_model__open(sqlite3 *db, const char *capture_id, char *err,
					size_t errlen);

void replay_model__free(struct replay_model *m);

/* Read M's capture again from its DB, which has more of it now (`replay --follow`: the
 * loader appended the frames that arrived, analyze/db.h db__follow_step): the capture's
 * facts, every part's series (its replay_series hooks: free, then open, as at
 * replay_model__open; a part needs no hook of its own for it), the drops, the timeline
 * and the interval ends. The position, playing and speed stay; a position at the end
 * stays at the end, which moves with the new intervals. The model keeps its address.
 * 0, or -errno with ERR (replay_model__open's); M is then as it was. */
int replay_model__refresh(struct replay_model *m, char *err, size_t errlen);

/* The probe of part NAME (an_parts[]) in the capture's probe set; NULL when no part is NAME. */
const struct probe_info *replay_model__probe(const struct replay_model *m, const char *name);

/* Move the position to T ns (clamped to [0, duration]). */
void replay_model__seek(struct replay_model *m, int64_t t);

/* Step N interval ends forward (negative: back) from the position, clamped to 0 and the
 * end; without any interval series, N times the capture's interval. Back steps count from
 * the interval the views show (the last ending at or before the position), so a step back
 * from inside an interval, or from past the last one, shows another interval. Returns the
 * index in
 * m->ends of the interval now ending at the position, -1 when none does (at 0, or at the
 * end of the recording past the last interval). */
ssize_t replay_model__step(struct replay_model *m, int n);

/* Double (DIR > 0) or halve (DIR < 0) the speed within 1/4x .. 64x. */
void replay_model__speed(struct replay_model *m, int dir);

/* The speed as text: "1/4x", "1/2x", "1x" .. "64x". Returns BUF. */
char *replay_model__speed_str(const struct replay_model *m, char *buf, size_t len);

/* Advance a playing model by WALL_NS of real time at its speed; stops (paused) at the end. */
void replay_model__tick(struct replay_model *m, int64_t wall_ns);

/* The state of part NAME's series (replay_series), for its views; NULL when no part is NAME or
 * it declares no series. */
void *replay_model__state(const struct replay_model *m, const char *name);

/* The index of the last time in S at or before T; -1 when none. */
ssize_t rm_times__at(struct rm_times s, int64_t t);

/* ---------------------------------------------------------- for the parts' replay series */

/* Prepare SQL on m->db, binding ?1 to the capture's key and ?2 (when it has one) to its start
 * (capture.start_monotonic_ns: "time_ns - ?2" is a time relative to it). 0 or -EIO. */
int replay_model__prepare(const struct replay_model *m, const char *sql, sqlite3_stmt **st);

/* Step ST (prepared and bound) to its end, appending one element of SIZE bytes to the array
 * *(void **)ARR of *N elements per row, zeroed and then filled by ROW(ST, element). 0, -ENOMEM,
 * -EIO (an SQLite error). ST stays the caller's. */
int rm_rows(sqlite3_stmt *st, void *arr, size_t *n, size_t size,
	    void (*row)(sqlite3_stmt *st, void *element));

/* rm_rows over SQL, prepared as replay_model__prepare does and finalized: a series read at
 * open in one call. 0, -ENOMEM, -EIO. */
int replay_model__read(const struct replay_model *m, const char *sql, void *arr, size_t *n,
		       size_t size, void (*row)(sqlite3_stmt *st, void *element));

/* The times SQL selects (one column, ascending, relative to the capture's start: "SELECT
 * DISTINCT time_ns - ?2 ... ORDER BY 1") into *T (malloc'd), *N of them: the interval ends of a
 * part whose views read their rows at each draw. 0, -ENOMEM, -EIO. */
int replay_model__times(const struct replay_model *m, const char *sql, int64_t **t, size_t *n);

/* The statements a view runs at each draw, prepared once at open (replay_series.open): SQL[0 ..
 * N) into ST[0 .. N) as replay_model__prepare does; one that does not prepare stays NULL, and
 * the view says it cannot read its table, as it would at the draw. */
void replay_model__prepare_each(const struct replay_model *m, const char *const *sql, size_t n,
				sqlite3_stmt **st);

/* Finalize ST[0 .. N) (replay_series.free). */
void rm_finalize_each(sqlite3_stmt **st, size_t n);

/* ST reset for another run, its bindings kept (?1, the capture, stays bound); NULL stays NULL. */
sqlite3_stmt *rm_again(sqlite3_stmt *st);

/* Column I of ST as an integer, RM_NULL when it is NULL. */
int64_t rm_col(sqlite3_stmt *st, int i);

/* Column I of ST as text into BUF ("" when NULL). */
void rm_col_str(sqlite3_stmt *st, int i, char *buf, size_t len);

/* Add an event to the timeline (from a replay_series.events): at T ns from the start, KIND
 * ("mapping new") and the text FMT makes; WARN for a loss. 0 or -ENOMEM. */
int replay_model__event(struct replay_model *m, int64_t t, bool warn, const char *kind,
			const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* replay_model__event for an event about process PID (RM_NULL: none), which `report events
 * --pid` and the Timeline's pid filter select. The event's category is the part's name. */
int replay_model__event_pid(struct replay_model *m, int64_t t, bool warn, const char *kind,
			    int64_t pid, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* The events SQL selects, each row one (replay_model__event_pid): its columns are the time
 * relative to the capture's start ("time_ns - ?2"), whether it is a loss (0/1), the kind, the
 * pid (NULL: none) and the text (SQLite's printf() builds it). Prepared as
 * replay_model__prepare does. 0, -ENOMEM, -EIO. */
int replay_model__events_sql(struct replay_model *m, const char *sql);

/* Make the capture's duration cover T (from a replay_series.open whose times are not interval
 * ends: its data then still lies inside the recording). */
void replay_model__covers(struct replay_model *m, int64_t t);

/* Index of the last event at or before T in events_list; -1 when none. */
ssize_t replay_model__event_at(const struct replay_model *m, int64_t t);

/* Lost events in drop notices at or before T. */
uint64_t replay_model__drops_until(const struct replay_model *m, int64_t t);

#endif
