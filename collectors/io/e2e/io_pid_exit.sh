# The io collector's /proc lane when the target ends between two reads and is reaped by its
# own parent before the recorder reads /proc/PID/io: the interval from the last read to its
# end cannot be read (the process is gone from /proc). That is not silent: a drop notice
# "ended_unread" names the pid and the start of the interval, `report io` says the last
# interval of that pid was not read and that the totals are at least these (text, JSON),
# and the figures io.read_bytes and io.written_bytes say so (not measured when no interval
# was read, else "at least" in their note).
#
# The order is made certain: the recorder is stopped (SIGSTOP) once attached, the target
# writes 100 x 4 KiB (through a child, `head`, whose counters are its parent's once
# reaped), exits and is reaped by this shell, then the recorder continues and finds it
# gone. The same under --cgroup, the member reaped by this shell (outside the cgroup).
# And under --cgroup a member still a zombie at the recorder's last read (its parent
# stopped): its final counters are read, exact, with no drop.
. tests/e2e/lib.sh
command -v mkfifo >/dev/null || skip "no mkfifo(1)"

# a process this test stops is continued at its end, whatever happens (a stopped process
# would not act on lib_exit's SIGTERM, and the test would hang)
stopped=()
trap 'for p in "${stopped[@]}"; do kill -CONT "$p" 2>/dev/null || true; done; lib_exit' EXIT

D=$TMP/iopid
mkdir -p "$D"

# start_target OUT: a shell that says "ready" on OUT, waits for a line on $D/go, writes
# 409600 bytes to $D/data and exits (the last command a builtin: the shell is not replaced
# by an exec); its pid in $fpid
start_target() {
	rm -f "$D/go"
	mkfifo "$D/go"
	sh -c 'echo ready; read x <"$1"; head -c 409600 /dev/zero >"$2"; echo wrote' sh \
		"$D/go" "$D/data" >"$1" &
	fpid=$!
	kill_at_exit "$fpid"
	wait_line "$1" '^ready' "the target to wait"
}

# check C WHAT PID: the drop, the report's lines and the figures of capture C
check() {
	local c=$1 what=$2 pid=$3
	assert_eq "$what: io probe" "active" "$(q "$c" "select state from probe where name = 'io'")"
	assert_eq "$what: the unread interval's drop notice" "1" \
		"$(q "$c" "select count(*) from drop_notice where collector = 'io' and kind = 'ended_unread' and detail like 'pid $pid from_ns %'")"
	"$ANA" report io "$c" >"$c.txt"
	cat "$c.txt"
	grep -q "^drops: io ended_unread: 1 lost" "$c.txt" || fail "$what: text: no drop line"
	grep -q "^unread: the last interval of pid $pid (from t=[0-9.]* s to its end, before t=[0-9.]* s) was not read: the process had ended before the recorder's read; the totals are at least these$" \
		"$c.txt" || fail "$what: text: no unread line for pid $pid"
	"$ANA" report io --format json "$c" >"$c.json"
	assert_eq "$what: json unread pid" "$pid" "$(jget "$c.json" 'j["unread"][0]["pid"]')"
	assert_eq "$what: json totals are lower bounds" "True" \
		"$(jget "$c.json" 'j["totals_are_lower_bounds"]')"
	assert_eq "$what: json unread from <= ended by" "True" \
		"$(jget "$c.json" 'j["unread"][0]["from_s"] <= j["unread"][0]["ended_by_s"]')"
	"$ANA" figures --format csv "$c" >"$c.fig"
	grep '^io.written_bytes,' "$c.fig" | grep -q 'the last interval of 1 process (pid '"$pid"') was not read' ||
		fail "$what: figures: io.written_bytes does not say it is a lower bound: $(grep '^io.written_bytes,' "$c.fig")"
}

# --pid, --interval 10s: no read between the baseline and the end
C=$TMP/iopid.ptop
start_target "$C.out"
"$REC" --interval 10s --pid "$fpid" -o "$C" 2>"$C.err" &
rpid=$!
kill_at_exit "$rpid"
wait_line "$C.err" 'recording pid' "the recorder to attach"
stopped+=("$rpid")
kill -STOP "$rpid"
echo go >"$D/go"
wait "$fpid" || fail "--pid: the target exited $?"
grep -q '^wrote' "$C.out" || fail "--pid: the target did not write"
kill -CONT "$rpid"
wait "$rpid" || { cat "$C.err" >&2; fail "--pid: ptop-record exited $?"; }
assert_eq "--pid: the recording ended with the target" 1 \
	"$(q "$C" "select count(*) from capture where end_reason = 'target_exit'")"
check "$C" "--pid" "$fpid"

# --cgroup: the target, in a cgroup of its own, reaped by this shell (outside it)
if need_cgroup2 2>/dev/null; then :; fi
if [ -n "${V2:-}" ] && make_dirs "$V2/ptop-e2e-iopid-$$"; then
	CG=$V2/ptop-e2e-iopid-$$
	C=$TMP/iocg.ptop
	rm -f "$D/go"
	mkfifo "$D/go"
	sh -c 'echo $$ >"$1/cgroup.procs" && echo ready && read x <"$2" &&
		head -c 409600 /dev/zero >"$3"; echo wrote' sh "$CG" "$D/go" "$D/data" >"$C.out" &
	fpid=$!
	kill_at_exit "$fpid"
	wait_line "$C.out" '^ready' "the target to wait"
	"$REC" --interval 10s --cgroup "$CG" -o "$C" 2>"$C.err" &
	rpid=$!
	kill_at_exit "$rpid"
	wait_line "$C.err" 'recording cgroup' "the recorder to start"
	stopped+=("$rpid")
	kill -STOP "$rpid"
	echo go >"$D/go"
	wait "$fpid" || fail "--cgroup: the target exited $?"
	kill -CONT "$rpid"
	kill -INT "$rpid"
	wait "$rpid" || { cat "$C.err" >&2; fail "--cgroup: ptop-record exited $?"; }
	check "$C" "--cgroup" "$fpid"

	# --cgroup, the member a zombie at the recorder's last read (its parent, outside the
	# cgroup, stopped): its final counters are read then, exactly (the 409,600 bytes of
	# its child and its 6 of "wrote\n" since the baseline), and nothing is unread
	C=$TMP/iozombie.ptop
	rm -f "$D/go"
	mkfifo "$D/go"
	sh -c 'sh -c '\''echo $$ >"$1/cgroup.procs" && echo ready && read x <"$2" &&
		head -c 409600 /dev/zero >"$3"; echo wrote'\'' sh "$@" & echo "inner $!"; wait' \
		sh "$CG" "$D/go" "$D/data" >"$C.out" &
	opid=$!
	kill_at_exit "$opid"
	wait_line "$C.out" '^ready' "the target to wait"
	ipid=$(sed -n 's/^inner //p' "$C.out")
	"$REC" --interval 10s --cgroup "$CG" -o "$C" 2>"$C.err" &
	rpid=$!
	kill_at_exit "$rpid"
	wait_line "$C.err" 'recording cgroup' "the recorder to start"
	stopped+=("$opid")
	kill -STOP "$opid"
	echo go >"$D/go"
	wait_until "the member to end (a zombie)" sh -c \
		'[ "$(sed "s/.*) //; s/ .*//" "/proc/$1/stat" 2>/dev/null)" = Z ]' sh "$ipid"
	kill -INT "$rpid"
	wait "$rpid" || { cat "$C.err" >&2; fail "--cgroup, zombie: ptop-record exited $?"; }
	kill -CONT "$opid"
	wait "$opid" || fail "--cgroup, zombie: the parent exited $?"
	assert_eq "--cgroup, zombie: bytes written by the member (wchar)" 409606 \
		"$(q "$C" "select sum(wchar) from io_sample where pid = $ipid")"
	assert_eq "--cgroup, zombie: no unread interval" 0 \
		"$(q "$C" "select count(*) from drop_notice where collector = 'io' and kind = 'ended_unread'")"
	"$ANA" report io "$C" >"$C.txt"
	if grep -q '^unread:' "$C.txt"; then fail "--cgroup, zombie: an unread line"; fi
	rmdir "$CG"
else
	echo "(no cgroup v2 directory could be made: the --cgroup case is not run)"
fi
