# A recorder killed with SIGKILL while it holds a launched command at an exec must not
# leave the command stopped: its guard process continues it (ptop-record(1), FOLLOWING
# EXEC). Each round records a shell script that execs itself 20 times with --enable heap
# (every exec is held), kills the recorder at a random moment once the chain has
# started, and requires the chain to finish; a process left in state T fails the round.
. "$(dirname "$0")/lib.sh"
need_ebpf

ROUNDS=${ROUNDS:-8}
cat >"$TMP/chain.sh" <<'SH'
#!/bin/sh
# chain.sh N DIR: exec itself N times, then write DIR/done
echo $$ >"$2/pid"
[ "$1" -gt 0 ] && exec "$0" $(($1 - 1)) "$2"
echo done >"$2/done"
SH
chmod +x "$TMP/chain.sh"

state() { # PID: its state letter, or - when it is gone
	local s
	s=$(sed -n 's/^[0-9]* (.*) \(.\) .*/\1/p' "/proc/$1/stat" 2>/dev/null) || true
	echo "${s:--}"
}

for ((i = 1; i <= ROUNDS; i++)); do
	d=$TMP/r$i
	mkdir "$d"
	"$REC" --quiet --enable heap -o "$d/c.ptop" -- "$TMP/chain.sh" 20 "$d" >/dev/null 2>&1 &
	rec=$!
	wait_until "round $i: the chain to start" test -s "$d/pid"
	ms=$((RANDOM % 1500))
	sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
	kill -KILL $rec 2>/dev/null || true
	wait $rec 2>/dev/null || true
	pid=$(cat "$d/pid")
	poll_until test -e "$d/done" ||
		fail "round $i (killed after ${ms} ms): the chain did not finish; pid $pid state $(state "$pid")"
	# the chain's last program exits at once: gone, or a zombie being reaped
	poll_until eval '[ "$(state "$pid")" != T ]' ||
		fail "round $i: pid $pid is left stopped"
	echo "ok: round $i: recorder killed after ${ms} ms, the chain finished"
done
