#!/usr/bin/env bash
# overhead_heap_threads.sh — what the preload lane costs when several threads allocate at
# once (its live total and peak are one counter all threads write): bench/
# workload_threads_alloc with THREADS threads (default: the CPUs) making PAIRS (default
# 3M) malloc(64) + free pairs each, untraced ("none") and under ptop-record --no-ebpf
# --enable heap --heap-lane preload (default sampling), and under the recorder of
# $BEFORE (a build folder of another commit) when set; ROUNDS (default 7) rounds,
# interleaved; medians of the CPU time per pair (user + system of the workload).
#
#   make programs build/bench/workload_threads_alloc && bash bench/overhead_heap_threads.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
THREADS=${THREADS:-$(nproc)}
PAIRS=${PAIRS:-3000000}
ROUNDS=${ROUNDS:-7}
wl=$B/bench/workload_threads_alloc
bench_need_exe overhead_heap_threads "$wl" "$B/ptop-record"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cfgs="none preload"
[ -n "${BEFORE:-}" ] && cfgs="none before preload"
declare -A res
for ((r = 1; r <= ROUNDS; r++)); do
	for cfg in $cfgs; do
		case $cfg in
		none) out=$("$wl" "$THREADS" "$PAIRS" 2>&1) ;;
		before | preload)
			rec=$B/ptop-record
			[ $cfg = before ] && rec=$BEFORE/ptop-record
			out=$("$rec" --quiet --force --no-ebpf --enable heap --heap-lane preload \
				-o "$tmp/$cfg.ptop" -- "$wl" "$THREADS" "$PAIRS" 2>&1 >/dev/null) ;;
		esac
		res[$cfg]+=" $(echo "$out" | sed -n 's/^ns\/pair //p')"
	done
done
echo "overhead_heap_threads: $THREADS threads x $PAIRS malloc(64)+free pairs, $ROUNDS rounds, $(nproc) CPUs"
base=$(echo "${res[none]}" | median)
for cfg in $cfgs; do
	m=$(echo "${res[$cfg]}" | median)
	printf '%-8s %6.1f ns/pair  +%5.1f ns  runs:%s\n' "$cfg" "$m" \
		"$(echo "$m $base" | awk '{ print $1 - $2 }')" "${res[$cfg]}"
done
