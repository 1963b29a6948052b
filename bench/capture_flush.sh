#!/usr/bin/env bash
# capture_flush.sh — what writing every round of polls out when it ends costs in
# capture size: two recorders on the same busy target for the same --duration, at the
# default 1 s interval, one with the default --flush-interval 1s (a zstd frame per
# round, so a SIGKILL loses at most 1 s) and the baseline with --flush-interval 10s (a
# frame per ten rounds). Prints bytes, frames and the ratio to the baseline.
#   PTOP_BUILD=build DURATION=30s bash bench/capture_flush.sh
set -euo pipefail
B=${PTOP_BUILD:-build}
. bench/lib.sh
bench_need_exe capture_flush "$B/ptop-record" "$B/ptop-analyze" "$B/tests/fixtures/spin"
D=${DURATION:-30s}
ebpf=--no-ebpf
[ "$(id -u)" = 0 ] && ebpf=
T=$(mktemp -d)
trap 'kill $target 2>/dev/null || true; rm -rf "$T"' EXIT
"$B/tests/fixtures/spin" 600 & target=$!
"$B/ptop-record" $ebpf --quiet --pid $target --duration "$D" --flush-interval 1s \
	-o "$T/f1.ptop" &
r1=$!
"$B/ptop-record" $ebpf --quiet --pid $target --duration "$D" --flush-interval 10s \
	-o "$T/f10.ptop" &
r10=$!
wait $r1 $r10
frames() { "$B/ptop-analyze" info "$1" | sed -n 's/.*read clean, \([0-9]*\) frames.*/\1/p'; }
base=$(stat -c %s "$T/f10.ptop")
printf '| --flush-interval | frames | bytes | vs 10s |\n| --- | ---: | ---: | ---: |\n'
for f in 10 1; do
	bytes=$(stat -c %s "$T/f$f.ptop")
	printf '| %ss | %s | %s | %.3f× |\n' "$f" "$(frames "$T/f$f.ptop")" "$bytes" \
		"$(echo "$bytes / $base" | bc -l)"
done
echo "(${D} of pid $target, ${ebpf:-eBPF and /proc collectors}, interval 1s)"
