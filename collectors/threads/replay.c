/* replay.c — the threads collector's part of the timeline (analyze/replay_model.h:
 * replay_series.events): each thread created, exited or renamed (thread_event), about the
 * target process of the sample that covers it (none in cgroup mode). Times are exact from the eBPF lane, else
 * the /proc poll that saw it ("seen by the poll"). It keeps no series. */
#include "analyze/replay_model.h"

static int threads_events(struct replay_model *m, const void *state)
{
	static const char sql[] =
	    "SELECT time_ns - ?2, 0, 'thread ' || type, "
	    "(SELECT pid FROM thread_sample s WHERE s.cap = e.cap AND s.time_ns >= e.time_ns "
	    "ORDER BY s.time_ns LIMIT 1), "
	    "printf('tid %d%s%s%s', tid, "
	    "CASE WHEN comm IS NULL THEN '' WHEN type = 'rename' THEN ' renamed ' || comm "
	    "ELSE ' (' || comm || ')' END, "
	    "CASE WHEN by_tid IS NULL THEN '' ELSE printf(' by tid %d', by_tid) END, "
	    "CASE WHEN exact THEN '' ELSE ', seen by the poll' END) "
	    "FROM thread_event e WHERE cap = ?1 ORDER BY time_ns, rowid";

	(void)state;
	return replay_model__events_sql(m, sql);
}

const struct replay_series threads_replay = {
    .what = "thread events",
    .events = threads_events,
};
