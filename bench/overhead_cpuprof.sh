#!/usr/bin/env bash
# overhead_cpuprof.sh — what the CPU profile costs the target: the cost per unit of work
# of bench/workload_cpu (a CPU-bound loop, 24 frames deep) with
#   none      no recorder
#   99hz      ptop-record with only the cpuprof collector, --cpu-sample-hz 99 (default)
#   999hz     the same at --cpu-sample-hz 999
# The workload reports its own CPU time (getrusage user+system) and wall time per unit;
# with 2+ CPUs it is pinned to the last CPU and the recorder to the others (PIN=0 turns
# this off), so wall time also shows time the timer interrupt and the BPF program take
# (hardirq time may not be charged to the task's CPU time). Each configuration runs RUNS
# times (default 5), interleaved round by round; the table shows medians and ratios to
# "none". Needs root. Build folder from $PTOP_BUILD (default build); UNITS sets the work.
#
#   make B=build build/ptop-record build/bench/workload_cpu && \
#        PTOP_BUILD=build bash bench/overhead_cpuprof.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
UNITS=${UNITS:-300000}
W=$B/bench/workload_cpu
REC=$B/ptop-record
bench_pin
bench_need_root overhead_cpuprof "BPF programs are attached"
bench_need_exe overhead_cpuprof "$W" "$REC"
bench_caps cpuprof || {
	echo "overhead_cpuprof: cpuprof cannot run here: $caps_line" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

configs=(none 99hz 999hz)
declare -A cpu wall
# run_one CONFIG: appends the run's cpu and wall ns per unit to the lists
run_one() {
	local out=$tmp/$1.out hz
	case $1 in
	none) "${wl_pin[@]}" "$W" -n "$UNITS" >"$out" || return ;;
	*)
		hz=${1%hz}
		rm -f "$tmp/run.ptop"
		"${tr_pin[@]}" "$REC" --quiet --disable "$others" --cpu-sample-hz "$hz" \
			-o "$tmp/run.ptop" -- "${wl_pin[@]}" "$W" -n "$UNITS" >"$out" 2>"$tmp/rec.err" || {
			cat "$tmp/rec.err" >&2
			return
		}
		;;
	esac
	cpu[$1]+="$(awk '$1 == "cpu_ns_per_unit" { print $2 }' "$out") "
	wall[$1]+="$(awk '$1 == "wall_ns_per_unit" { print $2 }' "$out") "
}

for ((r = 1; r <= RUNS; r++)); do
	for c in "${configs[@]}"; do
		run_one "$c"
	done
done
c0=$(echo "${cpu[none]}" | median)
w0=$(echo "${wall[none]}" | median)
printf 'workload_cpu, %s units, median of %s runs (pinned: %s)\n' "$UNITS" "$RUNS" \
	"$([ ${#wl_pin[@]} -gt 0 ] && echo yes || echo no)"
printf '%-8s %16s %9s %16s %9s\n' config cpu_ns/unit ratio wall_ns/unit ratio
for c in "${configs[@]}"; do
	cm=$(echo "${cpu[$c]:-}" | median)
	wm=$(echo "${wall[$c]:-}" | median)
	if [ -z "$cm" ]; then
		printf '%-8s %s\n' "$c" "no successful run"
		continue
	fi
	printf '%-8s %16.1f %9.4f %16.1f %9.4f\n' "$c" "$cm" "$(echo "$cm / $c0" | bc -l)" \
		"$wm" "$(echo "$wm / $w0" | bc -l)"
done
# the profile really ran: samples in the last capture (999hz, the last round)
if [ -x "$B/ptop-analyze" ] && [ -f "$tmp/run.ptop" ]; then
	"$B/ptop-analyze" sql --format csv "$tmp/run.ptop" \
		"select 'last 999hz run: ' || sum(samples) || ' samples, ' || sum(lost) || ' lost, '
		 || round(avg(delivered_hz), 1) || ' Hz delivered (mean over intervals and CPUs)'
		 as line from cpu_profile" | tail -n +2 | tr -d '"'
fi
