#!/usr/bin/env bash
# capture_flush.sh — what writing every round of polls out when it ends (a zstd frame
# per round, so a SIGKILL loses at most the round in progress) costs in capture size.
# Three recorders on the same busy target for the same --duration, at --interval 1s,
# 250ms and 100ms; the baseline for each is the same records in one zstd frame at the
# same level (zstd -dc | zstd -3: what the file would weigh with no flushing at all).
#   PTOP_BUILD=build DURATION=30s bash bench/capture_flush.sh
set -euo pipefail
B=${PTOP_BUILD:-build}
. bench/lib.sh
bench_need_exe capture_flush "$B/ptop-record" "$B/ptop-analyze" "$B/tests/fixtures/spin"
command -v zstd >/dev/null || { echo "capture_flush: needs the zstd command" >&2; exit 1; }
D=${DURATION:-30s}
ebpf=--no-ebpf
[ "$(id -u)" = 0 ] && ebpf=
T=$(mktemp -d)
trap 'kill $target 2>/dev/null || true; rm -rf "$T"' EXIT
"$B/tests/fixtures/spin" 600 & target=$!
recs=()
for iv in 1s 250ms 100ms; do
	"$B/ptop-record" $ebpf --quiet --pid $target --duration "$D" --interval $iv \
		-o "$T/$iv.ptop" &
	recs+=($!)
done
wait "${recs[@]}"
frames() { "$B/ptop-analyze" info "$1" | sed -n 's/.*read clean, \([0-9]*\) frames.*/\1/p'; }
printf '| --interval | frames | bytes | one frame (baseline) | vs baseline |\n'
printf '| --- | ---: | ---: | ---: | ---: |\n'
for iv in 1s 250ms 100ms; do
	f=$T/$iv.ptop
	bytes=$(stat -c %s "$f")
	one=$(zstd -q -dc "$f" | zstd -q -3 -c | wc -c)
	printf '| %s | %s | %s | %s | %.2f× |\n' "$iv" "$(frames "$f")" "$bytes" "$one" \
		"$(echo "$bytes / $one" | bc -l)"
done
echo "(${D} of pid $target, ${ebpf:-eBPF and /proc collectors})"
