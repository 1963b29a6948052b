# ptop-record's exit status follows the wrapper convention of timeout(1) and env(1) for a
# launched command: the command's own status (0, 1, 2, 3), 128+N when signal N killed
# it, 124 when --duration stopped it, 126 when it cannot be executed, 127 when it is not
# found, 125 when the recorder itself failed; --quiet changes only what is printed. With
# --pid the status is the recorder's own (0), whatever the target's, which is in the
# trailer. Usage errors stay 2.
. "$(dirname "$0")/lib.sh"
n=0
status_of() { # WANT ARGS...: ptop-record ARGS exits WANT, with and without --quiet
	local want=$1 rc q
	shift
	for q in "" --quiet; do
		n=$((n + 1))
		rc=0
		"$REC" $q --no-ebpf -o "$TMP/r$n.ptop" "$@" >/dev/null 2>"$TMP/err" || rc=$?
		[ "$rc" = "$want" ] || { cat "$TMP/err" >&2; fail "ptop-record $q $*: exit $rc, expected $want"; }
	done
	echo "ok: exit $want: $*"
}
status_of 0 -- true
status_of 1 -- false
status_of 2 -- sh -c 'exit 2'
status_of 3 -- sh -c 'exit 3'
status_of $((128 + 15)) -- sh -c 'kill -TERM $$'
status_of $((128 + 9)) -- sh -c 'kill -KILL $$'
# the command's status is in the capture too
assert_eq "exit code in the trailer" 3 "$("$ANA" sql --format csv "$TMP/r8.ptop" "select target_exit_code from capture" | tail -1)"
status_of 124 --duration 300ms -- sleep 30
status_of 127 -- /nonexistent/command
status_of 127 -- no-such-command-ptop-test
chmod 0644 "$TMP/r1.ptop"
status_of 126 -- "$TMP/r1.ptop"
status_of 126 -- "$TMP"
# the recorder failing before the command ran: 125 (every collector off is a usage
# error, 2; a collector list that starts nothing is not reachable with --no-ebpf alone)
# every collector --caps lists (so one added to collectors.def is disabled too)
caps=$("$REC" --caps 2>&1 || true)
all=$(awk '/^collectors/ { on = 1; next } on && /^      lane / { next }
	on && /^  [a-z]/ { print $1; next } on { exit }' \
	<<<"$caps" | paste -sd, -)
case ",$all," in *,cpu,*heap,*) ;; *) fail "--caps lists no collectors: '$all'" ;; esac
status_of 2 --disable "$all" -- true
status_of 2 --bogus-option -- true
# SIGINT or SIGTERM to the recorder ends the recording and reaches the command as the
# same signal (timeout(1) forwards it too): 130 after a Ctrl-C, 143 after SIGTERM
for sig in INT TERM; do
	"$REC" --quiet --no-ebpf --force -o "$TMP/sig.ptop" -- sleep 30 & rec=$!
	sleep 1
	kill -$sig $rec
	rc=0
	wait $rec || rc=$?
	want=$((128 + $(kill -l $sig)))
	assert_eq "SIG$sig to the recorder: the command's status" $want "$rc"
done
# --pid: the recorder's status, 0, though the target exits 3
"$FIX/spin" 30 & target=$!
kill_at_exit $target
(sleep 1; kill -USR1 $target) &
rc=0
"$REC" --quiet --no-ebpf --pid $target --interval 200ms -o "$TMP/pid.ptop" || rc=$?
assert_eq "--pid: the recorder's own status" 0 "$rc"
assert_eq "--pid: the target's exit in the trailer" target_exit \
	"$("$ANA" sql --format csv "$TMP/pid.ptop" "select end_reason from capture" | tail -1)"
echo "exit_status: ok"
