/* replay.c — the security collector's part of the timeline (analyze/replay_model.h:
 * replay_series.events): each executable mapping asked for (sec_exec_mem: at the VMA it
 * made, else the address asked for; "W+X" when writable and executable at once), each ptrace attach (sec_ptrace), each set-id exec
 * (sec_setid_exec), and the capability checks that failed, counted per interval and
 * capability as sec_cap_denied has them (at the interval's end; never single checks). It
 * keeps no series. */
#include "analyze/replay_model.h"

static int security_events(struct replay_model *m, const void *state)
{
	static const char sql[] =
	    "SELECT time_ns - ?2, 0, 'exec memory', pid, "
	    "printf('%s%s PROT_EXEC%s at %x len %d: %s', call, "
	    "CASE WHEN wx THEN ' W+X' ELSE '' END, "
	    "CASE WHEN fd IS NULL THEN '' ELSE printf(' fd %d', fd) END, coalesce(vm_start, addr), "
	    "len, "
	    "CASE WHEN ok THEN 'ok' ELSE printf('error %d', -ret) END) "
	    "FROM sec_exec_mem WHERE cap = ?1 "
	    "UNION ALL SELECT time_ns - ?2, 0, 'ptrace ' || request, pid, "
	    "printf('pid %d (%s) %s pid %d: %s', tracer_pid, coalesce(tracer_comm, '?'), request, "
	    "tracee, CASE WHEN ret = 0 THEN 'ok' ELSE printf('error %d', -ret) END) "
	    "FROM sec_ptrace WHERE cap = ?1 "
	    "UNION ALL SELECT time_ns - ?2, 0, 'setid exec', pid, "
	    "printf('%s uid %d euid %d gid %d egid %d%s', path, uid, euid, gid, egid, "
	    "CASE WHEN secureexec THEN ' (secure exec)' ELSE '' END) "
	    "FROM sec_setid_exec WHERE cap = ?1 "
	    "UNION ALL SELECT time_ns - ?2, 0, 'cap denied', pid, "
	    "printf('CAP_%s x%d failed', CASE WHEN name = '' THEN capability ELSE upper(name) END, "
	    "failed) FROM sec_cap_denied WHERE cap = ?1 AND failed > 0 ORDER BY 1";

	(void)state;
	return replay_model__events_sql(m, sql);
}

const struct replay_series security_replay = {
    .what = "security events",
    .events = security_events,
};
