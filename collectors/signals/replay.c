/* replay.c — the signals collector's part of the timeline (analyze/replay_model.h:
 * replay_series.events). signal_count holds counts per interval, not single signals, so
 * each event is what it has: per interval, signal, sender and result, the count sent to
 * (generate) or taken by (deliver) the receiving process ("SIGUSR1 x37 from pid P (comm) to
 * tid T: delivered"), at the latest of them (last_ns: the key's latest signal, which is in
 * the interval since it counted some), else at the interval's end; never one event per
 * signal. A loss (a signal
 * that could not be queued) is a warning. The /proc lane's set changes are events too, at the
 * reading that saw them ("tid T: blocked +SIGUSR1"). It keeps no series. */
#include "analyze/replay_model.h"

static int signals_events(struct replay_model *m, const void *state)
{
	static const char sql[] =
	    "SELECT coalesce(last_ns, time_ns) - ?2, result IN ('overflow_fail', 'lose_info'), "
	    "CASE stage WHEN 'generate' THEN 'signal sent' ELSE 'signal taken' END, tgid, "
	    "printf('%s x%d%s to tid %d: %s', name, count, "
	    "CASE WHEN sender_pid IS NULL THEN '' ELSE printf(' from pid %d (%s)', sender_pid, "
	    "coalesce(sender_comm, '?')) END, tid, result) "
	    "FROM signal_count WHERE cap = ?1 AND count > 0 "
	    /* the /proc lane: a thread's set changed ("tid T: blocked +SIGUSR1") */
	    "UNION ALL SELECT time_ns - ?2, 0, 'signal set', tgid, "
	    "CASE what WHEN 'gone' THEN printf('tid %d: gone', tid) ELSE "
	    "printf('tid %d: %s%s%s', tid, what, CASE added WHEN '' THEN '' ELSE ' +' || "
	    "replace(added, ',', ' +') END, CASE removed WHEN '' THEN '' ELSE ' -' || "
	    "replace(removed, ',', ' -') END) END "
	    "FROM signal_set_change WHERE cap = ?1 ORDER BY 1, 3, 5";

	(void)state;
	return replay_model__events_sql(m, sql);
}

const struct replay_series signals_replay = {
    .what = "signal counts and sets",
    .events = signals_events,
};
