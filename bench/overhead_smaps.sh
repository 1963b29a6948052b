#!/usr/bin/env bash
# overhead_smaps.sh — what reading /proc/PID/smaps costs a target with many VMAs, and what the
# smaps budget (--smaps-budget) buys. bench/workload_vmas holds NVMAS one-page VMAs and maps and
# unmaps a page in a loop for SECS seconds (each pair takes its mmap lock for writing, which a
# smaps reader holds for reading); it prints the wall-clock time per pair. Configurations,
# interleaved round by round, RUNS rounds, median per configuration:
#   none          no recorder
#   unbudgeted    ptop-record --pid, memory + vmas only, VMA walk every 1 s, budget 1 h (none)
#   budget        the same with the default budget (150 ms per 1 s interval)
#   default       the same with the default VMA interval (a walk every 10 s), budget 150 ms
# For each recorded run, from its capture: the time the smaps reads took per second of
# recording (the share of time the target's mmap lock was held for reading), and the reads
# the budget skipped. The workload runs on CPU 1, the recorder on CPU 0.
set -euo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-3}
NVMAS=${NVMAS:-30000}
SECS=${SECS:-10}
W=$B/bench/workload_vmas
REC=$B/ptop-record
ANA=$B/ptop-analyze
bench_need_exe overhead_smaps "$W" "$REC" "$ANA"
TMP=$(mktemp -d /tmp/ptop-bench-smaps.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# run CONFIG ROUND: one workload run; prints ns per pair, and for recorded runs also
# "spent_ms_per_s rollups_skipped walks walks_skipped"
run() {
	local cfg=$1 r=$2 out pid rec= i
	out=$TMP/w.$cfg.$r
	taskset -c 1 "$W" "$NVMAS" "$SECS" >"$out" &
	local wpid=$!
	for i in $(seq 300); do grep -q '^ready' "$out" && break; sleep 0.1; done
	pid=$(awk '/^ready/ { print $2 }' "$out")
	[ -n "$pid" ] || { echo "overhead_smaps: the workload did not start" >&2; exit 1; }
	case $cfg in
	none) ;;
	unbudgeted) taskset -c 0 "$REC" --quiet --no-ebpf --disable cpu,proccontext,mappings --pid "$pid" \
		--vma-interval 1s --smaps-budget 1h -o "$TMP/$cfg.$r.ptop" & rec=$! ;;
	budget) taskset -c 0 "$REC" --quiet --no-ebpf --disable cpu,proccontext,mappings --pid "$pid" \
		--vma-interval 1s -o "$TMP/$cfg.$r.ptop" & rec=$! ;;
	default) taskset -c 0 "$REC" --quiet --no-ebpf --disable cpu,proccontext,mappings --pid "$pid" \
		-o "$TMP/$cfg.$r.ptop" & rec=$! ;;
	esac
	[ -z "$rec" ] || sleep 1.5 # the recorder attached and took its first snapshot
	kill -USR1 "$pid"
	wait "$wpid"
	[ -z "$rec" ] || { kill -INT "$rec"; wait "$rec" || true; }
	awk '/^pairs/ { print $4 }' "$out" >"$TMP/ns.$cfg.$r"
	if [ -n "$rec" ]; then
		"$ANA" sql --format csv "$TMP/$cfg.$r.ptop" "select
			round(sum(smaps_spent_ns) / 1e6 / ((max(time_ns) - min(time_ns)) / 1e9), 1),
			sum(rollup_skipped), (select count(*) from vma_snapshot),
			(select sum(skipped_walks) from vma_snapshot) from memory_sample" |
			tail -1 | tr ',' ' ' >"$TMP/cap.$cfg.$r"
	fi
}

CONFIGS="none unbudgeted budget default"
for r in $(seq "$RUNS"); do
	for c in $CONFIGS; do run "$c" "$r"; done
done

base=$(cat "$TMP"/ns.none.* | median)
printf '%-11s %12s %8s %16s %16s %8s %14s\n' config ns/pair "vs none" "smaps ms per s" \
	"rollups skipped" walks "walks skipped"
for c in $CONFIGS; do
	ns=$(cat "$TMP"/ns.$c.* | median)
	if [ "$c" = none ]; then
		printf '%-11s %12.1f %7.2fx %16s %16s %8s %14s\n' "$c" "$ns" 1 - - - -
		continue
	fi
	read -r spent skipped walks wskipped < <(cat "$TMP"/cap.$c.* | sort -g | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }')
	printf '%-11s %12.1f %7.2fx %16s %16s %8s %14s\n' "$c" "$ns" "$(echo "$ns / $base" | bc -l)" \
		"$spent" "$skipped" "$walks" "$wskipped"
done
echo "($NVMAS VMAs, $SECS s per run, median of $RUNS; smaps ms per s and the counts: the run with the median spent time)"
