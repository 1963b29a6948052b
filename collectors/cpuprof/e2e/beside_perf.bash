# beside_perf.bash — sourced by the profile_*.sh tests that compare ptop's CPU profile
# with `perf record --call-graph dwarf` on the same process at the same time (not a test
# itself: tests/run.sh runs *.sh only).
#
# beside_perf PID OUT CPU_S: records PID with ptop-record (--pid, 999 Hz, the default
# --user-stacks auto) into OUT and, when perf is installed, with perf into
# $TMP/perf.data (then $TMP/perf.txt holds `perf script`; perf_ok=1), both until PID
# has used CPU_S more seconds of CPU (utime + stime in /proc/PID/stat), then stops both
# with SIGINT. A span of CPU, not of wall time: on a loaded machine a 3 s window gave
# the target some 0.4 s of CPU and too few samples to compare (perf_compare.py wants
# 500). Fails after 60 s of wall time without that much CPU, or if PID ends first.
beside_perf() {
	local pid=$1 out=$2 want_s=$3 tck t0 t i recpid perfpid=
	tck=$(getconf CLK_TCK)
	cpu_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null; }
	perf_ok=0
	if command -v perf >/dev/null; then
		perf record -F 999 --call-graph dwarf -p "$pid" -o "$TMP/perf.data" \
			>"$TMP/perf.err" 2>&1 &
		perfpid=$!
		perf_ok=1
	else
		echo "note: perf is not installed: the comparison with perf --call-graph dwarf is skipped"
	fi
	"$REC" --quiet --pid "$pid" --cpu-sample-hz 999 -o "$out" 2>"$TMP/rec.err" &
	recpid=$!
	# the span starts once the recorder records: its header is on disk after start-up
	poll_until test -s "$out" || fail "ptop-record wrote no header in 30 s"
	t0=$(cpu_ticks)
	[ -n "$t0" ] || fail "process $pid ended before the recording"
	for i in $(seq 600); do
		sleep 0.1
		t=$(cpu_ticks)
		[ -n "$t" ] || fail "process $pid ended before it used ${want_s} s of CPU"
		[ $((t - t0)) -ge $((want_s * tck)) ] && break
	done
	[ $((t - t0)) -ge $((want_s * tck)) ] ||
		fail "process $pid used $(((t - t0) * 1000 / tck)) ms of CPU in 60 s: too loaded to compare"
	echo "recorded while $pid used $(((t - t0) * 1000 / tck)) ms of CPU in $((i / 10)).$((i % 10)) s"
	kill -INT "$recpid" ${perfpid:+"$perfpid"}
	wait "$recpid" || { cat "$TMP/rec.err" >&2; fail "ptop-record failed"; }
	if [ $perf_ok = 1 ]; then
		# perf record ends on SIGINT with 130 (128 + SIGINT) once its data is written
		local rc=0
		wait "$perfpid" || rc=$?
		[ $rc = 0 ] || [ $rc = 130 ] || { cat "$TMP/perf.err"; fail "perf record failed ($rc)"; }
		perf script -i "$TMP/perf.data" -F ip,sym,dso >"$TMP/perf.txt" 2>/dev/null ||
			fail "perf script failed"
	fi
}
