# -o - writes the capture to standard output as a stream (a pipe cannot seek: the
# time index and trailer still end it); nothing else reaches that stream (status
# lines, and a launched command's own output, go to standard error); no file named
# "-" is made; a terminal as standard output is refused.
. "$(dirname "$0")/lib.sh"
REC=$(realpath "$REC") ANA=$(realpath "$ANA") FIX=$(realpath "$FIX")
cd "$TMP" # where a file named - would appear

# a launched command through a pipe
"$REC" --no-ebpf -o - -- sh -c 'echo command-says-hi; sleep 0.3' 2>"$TMP/rec.err" |
	cat >"$TMP/piped.ptop"
cat "$TMP/rec.err"
[ ! -e "$TMP/-" ] || fail "a file named - was made"
grep -q 'command-says-hi' "$TMP/rec.err" || fail "the command's output did not go to stderr"
grep -q 'command-says-hi' "$TMP/piped.ptop" && fail "the command's output is inside the capture stream"
grep -q 'into standard output' "$TMP/rec.err" || fail "the status line does not say standard output"
"$ANA" info "$TMP/piped.ptop" | tee "$TMP/info.txt"
grep -q 'complete (read clean' "$TMP/info.txt" || fail "the piped capture does not read clean"
grep -q 'time index present' "$TMP/info.txt" || fail "the piped capture has no time index"
assert_eq "complete" 1 "$(q "$TMP/piped.ptop" "select complete from capture")"
assert_eq "index" 1 "$(q "$TMP/piped.ptop" "select has_index from capture")"
assert_eq "end reason" target_exit "$(q "$TMP/piped.ptop" "select end_reason from capture")"
assert_ge "cpu samples" 1 "$(q "$TMP/piped.ptop" "select count(*) from cpu_sample")"

# a running --pid through a pipe, ended by SIGINT; stdout redirected to a file works too
"$FIX/spin" 30 & target=$!
kill_at_exit $target
"$REC" --no-ebpf --interval 100ms --pid $target -o - 2>"$TMP/pid.err" >"$TMP/pid.ptop" & rec=$!
wait_line "$TMP/pid.err" 'into standard output' "the recording to start"
poll_until test -s "$TMP/pid.ptop" || fail "nothing reached the stream"
kill -INT $rec
wait $rec || fail "ptop-record -o - --pid exited $?"
assert_eq "pid: complete" 1 "$(q "$TMP/pid.ptop" "select complete from capture")"
assert_eq "pid: end reason" signal "$(q "$TMP/pid.ptop" "select end_reason from capture")"
assert_eq "pid: index" 1 "$(q "$TMP/pid.ptop" "select has_index from capture")"

# the reader goes away: the recorder ends with an error, not a hang or a crash
rc=0
"$REC" --no-ebpf --interval 10ms --pid $target -o - 2>"$TMP/epipe.err" | head -c 100 >/dev/null ||
	rc=$?
cat "$TMP/epipe.err"
grep -q 'Broken pipe' "$TMP/epipe.err" || fail "no 'Broken pipe' when the reader left"

# a terminal: refused, exit 2 (script(1) gives the recorder a pty as stdout)
command -v script >/dev/null || skip "no script(1) to make a terminal (the rest passed)"
rc=0
script -qec "$REC --no-ebpf -o - -- true; echo rc=\$?" /dev/null >"$TMP/tty.out" 2>&1 </dev/null || rc=$?
cat "$TMP/tty.out"
grep -q 'standard output is a terminal' "$TMP/tty.out" || fail "a terminal is not refused"
grep -q 'rc=2' "$TMP/tty.out" || fail "refusing a terminal does not exit 2"
