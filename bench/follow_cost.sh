#!/usr/bin/env bash
# follow_cost.sh — what following a capture while it is written costs (issue 24).
#   1. ptop-record (every default collector) records bench/workload_follow.py (a steady,
#      mixed workload: CPU, allocation, file writes, three threads, a socket pair, sleeps)
#      for DURATION seconds, with `ptop-analyze export --format jsonl --follow` beside it
#      from its first bytes to its trailer; both under /usr/bin/time -v.
#   2. `export --format jsonl` of the finished capture (no --follow), the baseline of the
#      follower: the same lines read once.
#   3. `replay --follow` on a copy of the finished capture grown again one zstd frame at a
#      time, PACE seconds apart (bench/grow_frames.py: faster than it was recorded, one
#      frame per flush as the recorder wrote them), in tmux, until it says the recording
#      ended; and `replay` of the finished capture (load, open, first frame), its baseline.
# The figures are CPU seconds (user + system) from /usr/bin/time -v; the ratios are
# against the recorder's own CPU in the same run, and against the non-follow commands.
#   PTOP_BUILD=build DURATION=3600 PACE=0.15 bash bench/follow_cost.sh
# (not in `make bench`: it takes DURATION plus the regrowth, an hour and ten minutes)
# The recorder needs root for its eBPF collectors (without root: --no-ebpf, said so).
set -euo pipefail
B=$(realpath "${PTOP_BUILD:-build}")
. bench/lib.sh
bench_need_exe follow_cost "$B/ptop-record" "$B/ptop-analyze"
for c in tmux python3 /usr/bin/time; do
	command -v $c >/dev/null || { echo "follow_cost: needs $c" >&2; exit 1; }
done
DURATION=${DURATION:-3600}
PACE=${PACE:-0.15}
ebpf=
[ "$(id -u)" = 0 ] || { ebpf=--no-ebpf; echo "follow_cost: not root: recording with --no-ebpf"; }
HERE=$(realpath bench)
T=$(mktemp -d)
SOCK=ptop-follow-cost-$$
trap 'tmux -L $SOCK kill-server 2>/dev/null || true; rm -rf "$T"' EXIT
export XDG_CACHE_HOME=$T/cache TMPDIR=$T
cpu() { # the user + system seconds of a /usr/bin/time -v file
	awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$1"
}
# a ratio A/B; "n/a" when either is below /usr/bin/time's resolution (0.01 s): not measured
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", a / b; else printf "n/a" }'; }

# 1. the recording and its follower (FROM=DIR: those of an earlier run of this script,
# or of the same commands: DIR/cap.ptop, rec.time, fol.time, fol.bytes; DURATION must be
# that run's)
cd "$T"
if [ -n "${FROM:-}" ]; then
	for f in cap.ptop rec.time fol.time fol.bytes; do cp "$FROM/$f" .; done
	echo "follow_cost: the recording and its follower from $FROM"
else
	SECS=$DURATION /usr/bin/time -v -o rec.time "$B/ptop-record" $ebpf --quiet -o cap.ptop -- \
		python3 "$HERE/workload_follow.py" >rec.out 2>rec.err & rec=$!
	for _ in $(seq 100); do [ -s cap.ptop ] && break; sleep 0.1; done
	/usr/bin/time -v -o fol.time "$B/ptop-analyze" export --format jsonl --follow cap.ptop \
		2>fol.err | wc -c >fol.bytes & fol=$!
	wait $rec
	wait $fol
fi
tail -n 1 < <("$B/ptop-analyze" export --format jsonl cap.ptop) | grep -q '"end":"trailer"' ||
	{ echo "follow_cost: the capture has no trailer" >&2; exit 1; }

# 2. the same lines read once, from the finished file
/usr/bin/time -v -o exp.time "$B/ptop-analyze" export --format jsonl cap.ptop | wc -c >exp.bytes
cmp -s fol.bytes exp.bytes || echo "follow_cost: the follower wrote $(cat fol.bytes) bytes, the export $(cat exp.bytes)"

# 3. replay --follow on a copy grown frame by frame; replay of the finished capture
viewer() { # NAME ARGS...: the viewer in tmux under /usr/bin/time -v (NAME.time)
	local name=$1
	shift
	tmux -L $SOCK new-session -d -s "$name" -x 160 -y 48 \
		"env TERM=screen LANG=C.UTF-8 XDG_CACHE_HOME=$XDG_CACHE_HOME TMPDIR=$TMPDIR /usr/bin/time -v -o $T/$name.time $B/ptop-analyze replay $*; sleep 600"
}
wait_pane() { # NAME PATTERN SECONDS
	local i
	for i in $(seq 1 $(($3 * 10))); do
		tmux -L $SOCK capture-pane -p -t "$1" | grep -qE -- "$2" && return 0
		sleep 0.1
	done
	echo "follow_cost: $1: timed out waiting for $2" >&2
	tmux -L $SOCK capture-pane -p -t "$1" >&2
	exit 1
}
quit() { # NAME: q, then wait for its time file
	tmux -L $SOCK send-keys -t "$1" q
	for _ in $(seq 300); do [ -s "$T/$1.time" ] && return 0; sleep 0.1; done
	echo "follow_cost: $1 did not quit" >&2
	exit 1
}
python3 "$HERE/grow_frames.py" cap.ptop grow.ptop "$PACE" >grow.out & grow=$!
for _ in $(seq 100); do [ -s grow.ptop ] && break; sleep 0.1; done
viewer follow --follow --follow-timeout 60s grow.ptop
wait $grow
wait_pane follow 'recording ended: trailer' 120
quit follow
viewer whole cap.ptop
wait_pane whole 'capture complete' 600
quit whole

frames=$(sed -n 's/grow_frames: \([0-9]*\) frames.*/\1/p' grow.out)
rc=$(cpu rec.time) fc=$(cpu fol.time) ec=$(cpu exp.time) rfc=$(cpu follow.time) rwc=$(cpu whole.time)
echo "kernel: $(uname -r); $(nproc) CPUs; duration ${DURATION} s; capture $(stat -c %s cap.ptop) bytes, $frames frames; $(cat exp.bytes) bytes of JSON lines; replay --follow grown at ${PACE} s a frame"
printf '| process | CPU s | per hour of capture | vs the recorder | vs its non-follow baseline |\n'
printf '| --- | ---: | ---: | ---: | ---: |\n'
ph() { awk -v a="$1" -v d="$DURATION" 'BEGIN { if (a > 0) printf "%.2f", a * 3600 / d; else printf "below 0.01 s: not measured" }'; }
printf '| ptop-record (the baseline) | %s | %s | 1.000 | |\n' "$rc" "$(ph "$rc")"
printf '| export --format jsonl --follow, beside it | %s | %s | %s | %s |\n' "$fc" "$(ph "$fc")" "$(ratio "$fc" "$rc")" "$(ratio "$fc" "$ec")"
printf '| export --format jsonl of the finished file | %s | %s | %s | 1.000 |\n' "$ec" "$(ph "$ec")" "$(ratio "$ec" "$rc")"
printf '| replay --follow, the copy grown frame by frame | %s | %s | %s | %s |\n' "$rfc" "$(ph "$rfc")" "$(ratio "$rfc" "$rc")" "$(ratio "$rfc" "$rwc")"
printf '| replay of the finished file (load, open, draw, q) | %s | %s | %s | 1.000 |\n' "$rwc" "$(ph "$rwc")" "$(ratio "$rwc" "$rc")"
for f in rec fol exp follow whole; do
	printf '%s: max RSS %s KiB, wall %s\n' $f "$(sed -n 's/.*Maximum resident set size (kbytes): //p' $f.time)" \
		"$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' $f.time)"
done
