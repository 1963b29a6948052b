# signal_count's time: each count is dated at the end of the reading that found it, so no
# signal it counts is later than its row's time_ns. A child sends SIGUSR2 to the target as
# fast as it can for 1.5 s (tests/fixtures/sig_states.c storm) while the recorder polls
# every 100 ms, each reading of the signals' counts starting 20 ms after the poll's time
# (PTOP_TEST_SIGNALS_READ_DELAY, as when the collectors polled before it are slow):
# signals arrive between the poll's time and the reading. Dated at the poll's start (the defect), a row's latest signal (last_ns) falls
# after its time_ns, and a window ending at that time counted signals that came later.
. "$(dirname "$0")/../../../tests/e2e/lib.sh"
need_ebpf
need_fixture sig_states

PTOP_TEST_SIGNALS_READ_DELAY=20 "$REC" --quiet --interval 100ms -o "$TMP/s.ptop" -- "$FIX/sig_states" storm 1500 \
	>"$TMP/out.txt" || fail "recording the storm: $(cat "$TMP/out.txt")"
child=$(sed -n 's/^child //p' "$TMP/out.txt")
[ -n "$child" ] || fail "fixture output: $(cat "$TMP/out.txt")"
"$ANA" info "$TMP/s.ptop" | has -E '^ *signals +active +ebpf' || fail "signals not active"
rows=$(q "$TMP/s.ptop" "SELECT COUNT(*) FROM signal_count WHERE stage = 'generate'
	AND sender_pid = $child")
assert_ge "rows of the child's SIGUSR2 (intervals with signals)" 5 "$rows"
late=$(q "$TMP/s.ptop" "SELECT COUNT(*) FROM signal_count WHERE last_ns > time_ns")
q "$TMP/s.ptop" "SELECT time_ns, interval_ns, last_ns - time_ns AS after, count
	FROM signal_count WHERE last_ns > time_ns LIMIT 5"
assert_eq "rows whose latest signal is after the row's time" 0 "$late"
# every interval is (previous reading, this reading]: they follow each other with no gap
gaps=$(q "$TMP/s.ptop" "SELECT COUNT(*) FROM (SELECT time_ns - interval_ns AS s,
	LAG(time_ns) OVER (ORDER BY time_ns) AS prev FROM (SELECT DISTINCT time_ns, interval_ns
	FROM signal_count)) WHERE prev IS NOT NULL AND s < prev")
assert_eq "intervals that overlap the one before" 0 "$gaps"
echo PASS
