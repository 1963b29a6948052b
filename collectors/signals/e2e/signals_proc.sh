# The signals collector's /proc lane (--no-ebpf): a target that catches SIGUSR2 and ignores
# SIGPIPE from the start, blocks SIGUSR1, raises it on its thread and leaves it pending for
# 1.2 s, then takes it (sigtimedwait) and unblocks it (tests/fixtures/sig_states.c pending).
# Read from /proc/PID/task/TID/status each 100 ms interval: the sets as they stood, and each
# change as an event at the reading that saw it, in order: caught +SIGUSR2 and ignored
# +SIGPIPE, blocked +SIGUSR1, pending +SIGUSR1 (held over several readings), pending and
# blocked -SIGUSR1. The counts of signals sent and taken are not measured (never 0): the
# report, its JSON, the figures and the probe set say so.
. "$(dirname "$0")/../../../tests/e2e/lib.sh"
need_fixture sig_states

# --strict: the eBPF lane off by --no-ebpf is the user's choice, not a lane lost
"$REC" --quiet --strict --no-ebpf --interval 100ms -o "$TMP/p.ptop" -- "$FIX/sig_states" \
	pending 1200 >"$TMP/out.txt" || fail "recording: $(cat "$TMP/out.txt")"
cat "$TMP/out.txt"
pid=$(sed -n 's/^pid //p' "$TMP/out.txt")
raised=$(sed -n 's/^raised //p' "$TMP/out.txt")
taken=$(sed -n 's/^taken //p' "$TMP/out.txt")
[ -n "$pid" ] && [ -n "$raised" ] && [ -n "$taken" ] || fail "fixture output: $(cat "$TMP/out.txt")"
"$ANA" info "$TMP/p.ptop" >"$TMP/info.txt" || fail "info: exit $?"
has -E '^ *signals +active +proc' <"$TMP/info.txt" || fail "signals not active from /proc"
has -E 'signals sent and taken not measured' <"$TMP/info.txt" ||
	fail "the probe set does not say the counts are not measured"
has -E '^ *signals +signal_tp +disabled +ebpf' <"$TMP/info.txt" || fail "the eBPF lane's state"
has -E '^ *signals +proc_status +active +proc' <"$TMP/info.txt" || fail "the /proc lane's state"

# the changes, in order, each at a reading after the fixture made it
q "$TMP/p.ptop" "SELECT time_ns, what, added, removed FROM signal_set_change
	WHERE tid = $pid ORDER BY time_ns, rowid" | tr ',' '|' >"$TMP/ch"
cat "$TMP/ch"
python3 - "$TMP/ch" "$raised" "$taken" <<'PY' || fail "the set changes"
import sys
rows = [[f.strip('"') for f in l.rstrip("\n").split("|")] for l in open(sys.argv[1])]
raised, taken = int(sys.argv[2]), int(sys.argv[3])
got = [(w, a, r) for _, w, a, r in rows]
want = [("ignored", "SIGPIPE", ""), ("caught", "SIGUSR2", ""), ("blocked", "SIGUSR1", ""),
        ("pending", "SIGUSR1", ""), ("pending", "", "SIGUSR1"), ("blocked", "", "SIGUSR1")]
assert got == want, got
t = {(w, a, r): int(x) for x, w, a, r in rows}
assert t[("ignored", "SIGPIPE", "")] == t[("caught", "SIGUSR2", "")]   # one reading saw both
assert t[("blocked", "SIGUSR1", "")] < t[("pending", "SIGUSR1", "")], t
assert raised <= t[("pending", "SIGUSR1", "")] < taken, (raised, taken, t)
assert taken <= t[("pending", "", "SIGUSR1")] == t[("blocked", "", "SIGUSR1")], (taken, t)
PY
# pending over several readings: the readings between the raise and the take (the rows
# are sent on change only: the count of intervals comes from the other collectors' times)
n=$(q "$TMP/p.ptop" "SELECT COUNT(*) FROM cpu_sample WHERE time_ns > $raised AND time_ns < $taken")
assert_ge "readings while SIGUSR1 was pending" 5 "$n"
pend=$(q "$TMP/p.ptop" "SELECT printf('%x', pending) FROM signal_sets WHERE tid = $pid
	AND time_ns > $raised AND time_ns < $taken")
assert_eq "SIGUSR1 pending (bit 9) in the row of the raise" 200 "$pend"

# the report: the sets at the window's end, the changes in it; no counts
"$ANA" report signals "$TMP/p.ptop" >"$TMP/r.txt" || fail "report: exit $?"
cat "$TMP/r.txt"
has -E "^signals \(whole capture\): sent and taken not measured" <"$TMP/r.txt" ||
	fail "the report does not say the counts are not measured"
has -E "0 sent" <"$TMP/r.txt" && fail "a count printed as 0"
has -E "^ *$pid +$pid +- +- +- +SIGPIPE +SIGUSR2 " <"$TMP/r.txt" || fail "the sets at the end"
# a window inside the pending time: SIGUSR1 blocked and pending at its end
base=$(q "$TMP/p.ptop" "SELECT start_monotonic_ns FROM capture")
mid=$(python3 -c "print('%.3f' % (($raised + $taken) / 2e9 - $base / 1e9))")
"$ANA" report signals --window "0..$mid" "$TMP/p.ptop" >"$TMP/w.txt" || fail "window: exit $?"
cat "$TMP/w.txt"
has -E "^ *$pid +$pid +SIGUSR1 +- +SIGUSR1 +SIGPIPE +SIGUSR2 " <"$TMP/w.txt" ||
	fail "the sets at $mid s: SIGUSR1 blocked and pending"
"$ANA" report signals --format json "$TMP/p.ptop" >"$TMP/r.json" || fail "json: exit $?"
python3 - "$TMP/r.json" "$pid" <<'PY' || fail "report json"
import json, sys
j = json.load(open(sys.argv[1])); pid = int(sys.argv[2])
assert j["collected"] is True and j["lane"] == "proc" and j["counts_measured"] is False, j
assert j["sent"] is None and j["taken"] is None, j
s = [x for x in j["sets"] if x["tid"] == pid]
assert len(s) == 1 and s[0]["caught"] == "SIGUSR2" and s[0]["ignored"] == "SIGPIPE", s
assert s[0]["pending"] == "" and s[0]["blocked"] == "", s
assert [c["set"] for c in j["set_changes"] if c["tid"] == pid] == \
    ["ignored", "caught", "blocked", "pending", "pending", "blocked"], j["set_changes"]
PY
# the figures: not measured, never 0
"$ANA" figures "$TMP/p.ptop" | has -E '^signals\.fatal +not measured' ||
	fail "signals.fatal: $("$ANA" figures "$TMP/p.ptop" | grep '^signals')"
# the timeline: the changes as events
"$ANA" report events --category signals --format csv "$TMP/p.ptop" >"$TMP/ev.csv" ||
	fail "report events: exit $?"
has -F "tid $pid: pending +SIGUSR1" <"$TMP/ev.csv" || fail "timeline: $(cat "$TMP/ev.csv")"
has -F "tid $pid: blocked -SIGUSR1" <"$TMP/ev.csv" || fail "timeline: blocked -SIGUSR1"
echo PASS
