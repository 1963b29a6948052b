# replay --follow, driven in tmux: the viewer opens a capture still being written, shows
# intervals before the recording ends and keeps to its end as frames arrive, then says
# how the recording ended (trailer / cut); its last screen is the one a replay of the
# finished capture shows at its end. A followed capture is not put in the cache. Also on a
# capture growing through `ptop-record -o - | cat > F`, and on a cut copy (the same as
# without --follow). Every wait is bounded.
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"

SOCK=ptop-rfollow-$$
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null || true; sleep 0.2; lib_exit' EXIT
pane() { tm capture-pane -p -t replay; }
# wait_for PATTERN [WHAT]: poll the pane (up to 30 s) until a line matches PATTERN
wait_for() {
	local i
	for i in $(seq 1 300); do
		pane | has -E -- "$1" && { echo "ok: ${2:-$1}"; return 0; }
		sleep 0.1
	done
	pane >&2
	fail "timed out waiting for: ${2:-$1}"
}
# the position line's position in tenths of a second ("paused 00:02.8 / ..." -> 28)
pos() { pane | sed -n 's/.*paused \([0-9][0-9]\):\([0-9][0-9]\)\.\([0-9]\) \/.*/\1 \2 \3/p' |
	awk '{ print ($1 * 60 + $2) * 10 + $3 }'; }
# the screen without its footer; of the position line only the position and the speed (the
# follower's words take room from the read state after them, which is checked apart)
screen() { pane | head -n -1 | sed '2s/\(speed [^ ]*\).*/\1/'; }

tm -u new-session -d -s replay -x 160 -y 48 \
	"env -i PATH=$PATH HOME=$TMP TERM=screen LANG=C.UTF-8 XDG_CACHE_HOME=$XDG_CACHE_HOME TMPDIR=$TMP PS1='READY\$ ' bash --norc --noprofile"
wait_for '^READY\$' "shell prompt"

# 1. a recording of several seconds, followed while it is written
"$REC" --quiet --no-ebpf --interval 200ms --flush-interval 200ms -o "$TMP/live.ptop" -- sleep 8 \
	>/dev/null 2>"$TMP/rec.err" & rec=$!
kill_at_exit $rec
wait_until "the capture's first bytes" test -s "$TMP/live.ptop"
tm send-keys -t replay "$ANA replay --follow $TMP/live.ptop; echo EXITED=\$?" Enter
wait_for 'LIVE: following the recording' "the viewer follows"
wait_for 'paused 00:0[1-9]\.[0-9] / ' "an interval past the first second shown"
first=$(pos)
kill -0 $rec 2>/dev/null || fail "the recorder had ended before the viewer showed its intervals"
echo "ok: at $first tenths while the recorder still runs"
moved=
for i in $(seq 1 300); do
	p=$(pos)
	[ -n "$p" ] && [ "$p" -gt "$first" ] && { moved=$p; break; }
	sleep 0.1
done
[ -n "$moved" ] || fail "the position stayed at $first tenths while the recording went on"
pane | has 'LIVE: following the recording' || fail "the viewer stopped following before the end"
echo "ok: the position keeps to the end as frames arrive"
wait $rec || fail "ptop-record exited $?"
wait_for 'recording ended: trailer, target_exit \(exit code 0\)  capture complete' "how the recording ended"
screen >"$TMP/follow.screen"
tm send-keys -t replay 7
wait_for 'Events up to [0-9:.]+, newest first' "the Timeline tab at the end"
sleep 0.3
screen >"$TMP/follow.7"
# no cache entry for a followed capture: it is loaded into a private DB
[ -z "$(ls "$XDG_CACHE_HOME/ptop" 2>/dev/null | grep '\.db$')" ] || fail "a followed capture made a cache entry: $(ls "$XDG_CACHE_HOME/ptop")"
[ -z "$(ls "$TMP" | grep '^ptop-follow')" ] || fail "the follower's temporary DB was left in TMPDIR"
echo "ok: no cache entry, no temporary file left"
tm send-keys -t replay q
wait_for '^EXITED=0' "q quits with status 0"

# the end state: a replay of the finished capture, at its end (G), shows the same screen
tm send-keys -t replay "clear; $ANA replay $TMP/live.ptop; echo EXITED=\$?" Enter
wait_for 'paused 00:00\.0 / ' "the finished capture replayed"
tm send-keys -t replay G
wait_for 'paused ([0-9:.]+) / \1 ' "at its end"
screen >"$TMP/whole.screen"
diff "$TMP/whole.screen" "$TMP/follow.screen" || fail "the followed viewer's last screen differs from the finished capture's at its end"
echo "ok: the followed end = a replay of the finished capture at its end"
tm send-keys -t replay 7
wait_for 'Events up to [0-9:.]+, newest first' "the Timeline tab at the end"
sleep 0.3
screen >"$TMP/whole.7"
diff "$TMP/whole.7" "$TMP/follow.7" || fail "the followed viewer's Timeline at the end differs from the finished capture's"
echo "ok: the Timeline too"
tm send-keys -t replay q
wait_for '^EXITED=0' "closed"

# 2. a capture on standard output, through a pipe into a file, followed to its trailer
"$REC" --quiet --no-ebpf --interval 200ms --flush-interval 200ms -o - -- sleep 6 2>/dev/null |
	cat >"$TMP/piped.ptop" & rec=$!
kill_at_exit $rec
wait_until "the piped capture's first bytes" test -s "$TMP/piped.ptop"
tm send-keys -t replay "clear; $ANA replay --follow $TMP/piped.ptop; echo EXITED=\$?" Enter
wait_for 'LIVE: following the recording' "the piped capture followed"
wait_for 'paused 00:0[1-9]\.[0-9] / ' "a piped interval past the first second"
kill -0 $rec 2>/dev/null || fail "the piped recorder had ended before the viewer showed its intervals"
wait $rec || fail "the piped recording exited $?"
wait_for 'recording ended: trailer, target_exit \(exit code 0\)  capture complete' "the piped capture's end"
tm send-keys -t replay q
wait_for '^EXITED=0' "closed"

# 3. a copy cut inside a frame, that does not grow: cut, the same screen as without --follow
size=$(stat -c %s "$TMP/live.ptop")
cut_at=
for pct in 60 65 70 55 50 75; do
	head -c $((size * pct / 100)) "$TMP/live.ptop" >"$TMP/cut.ptop"
	if "$ANA" export --format jsonl "$TMP/cut.ptop" | tail -n 1 | grep -q '"at_byte"'; then
		cut_at=$((size * pct / 100)); break
	fi
done
[ -n "$cut_at" ] || fail "no cut point inside a frame found"
tm send-keys -t replay "clear; $ANA replay --follow --follow-timeout 1s $TMP/cut.ptop; echo EXITED=\$?" Enter
wait_for 'recording ended: cut, no trailer  TRUNCATED \(truncated\)' "a cut copy ends cut"
screen >"$TMP/cutf.screen"
tm send-keys -t replay q
wait_for '^EXITED=0' "closed"
tm send-keys -t replay "clear; $ANA replay $TMP/cut.ptop; echo EXITED=\$?" Enter
wait_for 'TRUNCATED \(truncated\)' "the cut copy replayed"
tm send-keys -t replay G
wait_for 'paused ([0-9:.]+) / \1 ' "at its end"
screen >"$TMP/cut.screen"
tm send-keys -t replay q
wait_for '^EXITED=0' "closed"
diff "$TMP/cut.screen" "$TMP/cutf.screen" || fail "a cut copy reads differently with --follow"
echo "ok: cut at byte $cut_at: the same screen with and without --follow"

# 4. usage
expect_exit 2 "$ANA" replay --follow --dump "$TMP/live.ptop"
expect_exit 2 "$ANA" replay --follow --at 1s "$TMP/live.ptop"
expect_exit 2 "$ANA" replay --follow-timeout 1s "$TMP/live.ptop"
expect_exit 2 "$ANA" replay --follow --follow-timeout 0 "$TMP/live.ptop"
echo "not a capture" >"$TMP/not.ptop"
expect_exit 2 "$ANA" replay --follow "$TMP/not.ptop"
grep -q 'not a ptop capture' "$TMP/err" || fail "a non-capture is not said"
echo "replay_follow: ok"
