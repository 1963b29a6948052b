# How a recording ends is recorded: SIGINT and SIGTERM end it cleanly with a
# trailer; --duration ends it; a --pid target exiting ends it; a launched
# command's exit status is kept.
. "$(dirname "$0")/lib.sh"
"$FIX/spin" 30 & target=$!
trap 'kill $target 2>/dev/null || true; rm -rf "$TMP"' EXIT

for sig in INT TERM; do
	"$REC" --quiet --pid $target --interval 200ms -o "$TMP/$sig.ptop" & rec=$!
	sleep 1.5
	kill -$sig $rec
	wait $rec || fail "recorder exited $? after SIG$sig"
	assert_eq "SIG$sig: complete" 1 "$(q "$TMP/$sig.ptop" "select complete from capture")"
	assert_eq "SIG$sig: end reason" signal "$(q "$TMP/$sig.ptop" "select end_reason from capture")"
	assert_eq "SIG$sig: has index" 1 "$(q "$TMP/$sig.ptop" "select has_index from capture")"
done

"$REC" --quiet --pid $target --duration 1s --interval 200ms -o "$TMP/dur.ptop"
assert_eq "duration: end reason" duration "$(q "$TMP/dur.ptop" "select end_reason from capture")"

# The pid target exits while recorded (SIGUSR1 makes spin exit 3).
"$REC" --quiet --pid $target --interval 200ms -o "$TMP/exit.ptop" & rec=$!
sleep 1
kill -USR1 $target
wait $rec || fail "recorder exited $? when its target exited"
assert_eq "pid exit: end reason" target_exit "$(q "$TMP/exit.ptop" "select end_reason from capture")"

# A launched command's exit status lands in the trailer.
"$REC" --quiet -o "$TMP/cmd.ptop" -- sh -c 'exit 7' || true
assert_eq "command exit code" 7 "$(q "$TMP/cmd.ptop" "select target_exit_code from capture")"
assert_eq "command mode" command "$(q "$TMP/cmd.ptop" "select mode from target")"

# The longest --duration (2^64-1 ns) does not wrap around the clock and end the
# recording at once: the command's exit ends it (issue 10).
"$REC" --quiet --no-ebpf -o "$TMP/long.ptop" --duration 5124095h -- true
assert_eq "longest duration: end reason" target_exit "$(q "$TMP/long.ptop" "select end_reason from capture")"
