# A recorder killed with SIGKILL while it holds a launched command at an exec must not
# leave the command stopped: its guard process continues it (ptop-record(1), FOLLOWING
# EXEC). Each round records a shell script that execs itself 20 times with --enable heap
# (every exec is held), kills the recorder at a random moment of the chain (once a random
# step is reached, and a random 0-49 ms later), and requires the chain to finish; a
# process left in state T fails the round. Each step waits 30 ms before its exec: with
# start-up and the holds now short, an unpaced chain often ended before the kill.
. "$(dirname "$0")/lib.sh"
need_ebpf

ROUNDS=${ROUNDS:-8}
cat >"$TMP/chain.sh" <<'SH'
#!/bin/sh
# chain.sh N DIR: exec itself N times, then write DIR/done
echo $$ >"$2/pid"
echo "$1" >"$2/step.new" && mv "$2/step.new" "$2/step"
sleep 0.03 # a step lasts more than the kill's 0-49 ms delay spread over two steps
[ "$1" -gt 0 ] && exec "$0" $(($1 - 1)) "$2"
echo done >"$2/done"
SH
chmod +x "$TMP/chain.sh"

state() { # PID: its state letter, or - when it is gone
	local s
	s=$(sed -n 's/^[0-9]* (.*) \(.\) .*/\1/p' "/proc/$1/stat" 2>/dev/null) || true
	echo "${s:--}"
}

during=0	# rounds whose kill came before the chain's end
for ((i = 1; i <= ROUNDS; i++)); do
	d=$TMP/r$i
	mkdir "$d"
	"$REC" --quiet --enable heap -o "$d/c.ptop" -- "$TMP/chain.sh" 20 "$d" >/dev/null 2>&1 &
	rec=$!
	step=$((RANDOM % 19 + 1)) ms=$((RANDOM % 50))
	for ((t = 0; t < 3000; t++)); do	# up to 30 s, in 10 ms steps
		[ -s "$d/step" ] && [ "$(cat "$d/step")" -le $step ] && break
		sleep 0.01
	done
	[ "$t" -lt 3000 ] || fail "round $i: timed out (30 s) waiting for the chain to reach step $step"
	sleep "0.$(printf '%03d' $ms)"
	[ -e "$d/done" ] || during=$((during + 1))
	kill -KILL $rec 2>/dev/null || true
	wait $rec 2>/dev/null || true
	pid=$(cat "$d/pid")
	poll_until test -e "$d/done" ||
		fail "round $i (killed at step $step + ${ms} ms): the chain did not finish; pid $pid state $(state "$pid")"
	# the chain's last program exits at once: gone, or a zombie being reaped
	poll_until eval '[ "$(state "$pid")" != T ]' ||
		fail "round $i: pid $pid is left stopped"
	echo "ok: round $i: recorder killed at step $step + ${ms} ms, the chain finished"
done
# a round killed after the chain's end tests nothing: most must land in it
assert_ge "rounds whose recorder was killed before the chain ended" $((ROUNDS / 2)) $during

# The guard takes SIGTERM as any process does (it does not keep the recorder's blocked
# signal mask), and the recording goes on without it.
mkdir "$TMP/g"
"$REC" --quiet --enable heap -o "$TMP/g.ptop" -- sh -c 'sleep 2' & rec=$!
kill_at_exit $rec
guard=
for _ in $(seq 100); do
	guard=$(ps -o pid= --ppid $rec -o comm= | awk '$2 == "ptop-guard" { print $1 }')
	[ -n "$guard" ] && break
	sleep 0.05
done
[ -n "$guard" ] || fail "no ptop-guard child of the recorder"
blk=$(awk '/^SigBlk:/ { print $2 }' "/proc/$guard/status")
[ $((16#$blk & (1 << 14))) = 0 ] || fail "ptop-guard blocks SIGTERM (SigBlk $blk)"
[ $((16#$blk & (1 << 1))) = 0 ] || fail "ptop-guard blocks SIGINT (SigBlk $blk)"
kill -TERM "$guard"
gone() { [ "$(state "$guard")" = - ] || [ "$(state "$guard")" = Z ]; }
poll_until gone || fail "ptop-guard ($guard) ignores SIGTERM: state $(state "$guard")"
wait $rec || fail "the recorder failed once its guard was gone"
echo "ok: the guard ends on SIGTERM; the recording finished"
