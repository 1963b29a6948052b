# A recorder killed with SIGKILL at any moment leaves either no file or a capture that
# info and salvage accept (the file gets its name only once its header is in it), and a
# round of polls is on disk when that round ends (not one interval later).
. "$(dirname "$0")/lib.sh"
ebpf=--no-ebpf
if [ "$(id -u)" = 0 ] && "$REC" --caps 2>&1 | has -E '^ *syscalls +yes'; then
	ebpf= # the eBPF collectors take longest to start: the widest window before the header
fi
"$FIX/spin" 120 & target=$!
kill_at_exit $target

# accepted FILE WHAT: info reads FILE, salvage repairs it, the repair reads complete
accepted() {
	"$ANA" info "$1" >"$TMP/info.txt" 2>&1 || { cat "$TMP/info.txt"; fail "$2: info refuses the file"; }
	rm -f "$TMP/fixed.ptop"
	"$ANA" salvage -o "$TMP/fixed.ptop" "$1" >"$TMP/salvage.txt" 2>&1 ||
		{ cat "$TMP/salvage.txt"; fail "$2: salvage refuses the file"; }
	assert_eq "$2: salvaged complete" 1 "$(q "$TMP/fixed.ptop" "select complete from capture")"
}

# 1. killed early, at several moments of the set-up (the first ones within 100 ms)
for delay in 0 0.01 0.03 0.06 0.1 0.2 0.4 0.8; do
	f=$TMP/early-$delay.ptop
	"$REC" $ebpf --quiet --pid $target -o "$f" & rec=$!
	sleep $delay
	kill -KILL $rec
	wait $rec 2>/dev/null || true
	if [ -e "$f" ]; then
		accepted "$f" "killed after ${delay}s"
		echo "ok: killed after ${delay}s: a capture that info and salvage accept"
	else
		echo "ok: killed after ${delay}s: no file"
	fi
done
[ -z "$(ls -A "$TMP" | grep '^\.')" ] || fail "temporary files left: $(ls -A "$TMP")"

# 2. a launched command runs only once the header is on disk: killed as soon as the
# command has run, the recorder leaves a capture with its header
"$REC" $ebpf --quiet -o "$TMP/cmd.ptop" -- sh -c "echo \$\$ >'$TMP/child'; exec '$FIX/spin' 120" &
rec=$!
wait_until "the command to run" test -s "$TMP/child"
kill -KILL $rec
wait $rec 2>/dev/null || true
kill -KILL "$(cat "$TMP/child")" 2>/dev/null || true
accepted "$TMP/cmd.ptop" "killed once the command ran"
grep -q 'command mode' "$TMP/info.txt" || fail "no header in the capture of a killed command recording"

# 3. a round's records are written when its polls end: with an interval and flush
# interval of ten minutes, the first round reaches the disk while the recorder runs
"$REC" $ebpf --quiet --pid $target --interval 10m --flush-interval 10m -o "$TMP/round.ptop" & rec=$!
samples() { q "$1" "select count(*) from memory_sample" 2>/dev/null || echo 0; }
has_samples() { [ "$(samples "$1")" -ge "$2" ]; } # FILE MIN
wait_until "the first round's samples on disk" has_samples "$TMP/round.ptop" 1
kill -KILL $rec
wait $rec 2>/dev/null || true
accepted "$TMP/round.ptop" "killed after the first round"
grep -Eiq 'truncated|cut short' "$TMP/info.txt" || fail "info does not say the capture is cut short"
assert_ge "samples kept after SIGKILL" 1 "$(samples "$TMP/round.ptop")"
assert_eq "samples salvaged" "$(samples "$TMP/round.ptop")" "$(samples "$TMP/fixed.ptop")"

# 4. killed right after an interval's round (default interval and flush interval): that
# round is the latest on disk, and salvage keeps it
"$REC" $ebpf --quiet --pid $target -o "$TMP/right.ptop" & rec=$!
wait_until "two rounds on disk" has_samples "$TMP/right.ptop" 2
kill -KILL $rec
wait $rec 2>/dev/null || true
seen=$(samples "$TMP/right.ptop")
accepted "$TMP/right.ptop" "killed right after a round"
assert_ge "rounds kept" 2 "$seen"
assert_eq "rounds salvaged" "$seen" "$(samples "$TMP/fixed.ptop")"
