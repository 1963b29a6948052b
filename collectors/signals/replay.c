/* replay.c — the signals collector's part of the timeline (analyze/replay_model.h:
 * replay_series.events). signal_count holds counts per interval, not single signals, so
 * each event is what it has: per interval, signal, sender and result, the count sent to
 * (generate) or taken by (deliver) the receiving process ("SIGUSR1 x37 from pid P (comm) to
 * tid T: delivered"), at the latest of them (last_ns: the key's latest signal, which is in
 * the interval since it counted some), else at the interval's end; never one event per
 * signal. A loss (a signal
 * that could not be queued) is a warning. It keeps no series. */
#include "analyze/replay_model.h"

static int signals_events(struct replay_model *m, const void *state)
{
	static const char sql[] =
	    "SELECT coalesce(last_ns, time_ns) - ?2, result IN ('overflow_fail', 'lose_info'), "
	    "CASE stage WHEN 'generate' THEN 'signal sent' ELSE 'signal taken' END, tgid, "
	    "printf('%s x%d%s to tid %d: %s', name, count, "
	    "CASE WHEN sender_pid IS NULL THEN '' ELSE printf(' from pid %d (%s)', sender_pid, "
	    "coalesce(sender_comm, '?')) END, tid, result) "
	    "FROM signal_count WHERE cap = ?1 AND count > 0 ORDER BY time_ns, rowid";

	(void)state;
	return replay_model__events_sql(m, sql);
}

const struct replay_series signals_replay = {
    .what = "signal counts",
    .events = signals_events,
};
