#!/usr/bin/env bash
# overhead_cgroup.sh — what the --cgroup subtree filter costs the target, beside the pid
# filter: the CPU time per getppid(2) of bench/workload_syscalls (its own user+system
# time, getrusage), the workload in a fresh cgroup v2 directory (its cgroup is 2 levels
# deep: NAME/sub) in every row, with
#   none      no tracer
#   pid       ptop-record --pid WORKLOAD (every default collector)
#   cgroup    ptop-record --cgroup NAME (the workload is in NAME/sub, so the filter
#             compares the ancestor at NAME's level)
# Each configuration runs RUNS times (default 5), interleaved round by round; the table
# shows medians and the ratios to "none" and "pid". Needs root and a cgroup2 mount.
# CALLS (default 2000000) sets the calls per run; the workload is pinned to the last
# CPU and the recorder to the others when there are 2+ (PIN=0 turns this off).
#
#   make B=build build/bench/workload_syscalls build/ptop-record &&
#       PTOP_BUILD=build bash bench/overhead_cgroup.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
CALLS=${CALLS:-2000000}
W=$B/bench/workload_syscalls
bench_pin

bench_need_root overhead_cgroup "BPF programs, a new cgroup"
bench_need_cgroup2 overhead_cgroup
bench_need_exe overhead_cgroup "$W" "$B/ptop-record"

tmp=$(mktemp -d)
NAME=ptop-bench-cgroup-$$
CG=$V2/$NAME
wpid='' tpid=''
cleanup() {
	[ -n "$tpid" ] && kill -INT "$tpid" 2>/dev/null
	[ -n "$wpid" ] && kill -KILL "$wpid" 2>/dev/null
	wait 2>/dev/null
	rmdir "$CG/sub" "$CG" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$CG/sub" || exit 1

# run_one CONFIG: prints the workload's ns per call, or nothing if the run failed
run_one() {
	local cfg=$1 ok=0 t_err=$tmp/$1.err
	: >"$t_err"
	"${wl_pin[@]}" "$W" -n "$CALLS" -w >"$tmp/w.out" &
	wpid=$!
	bench_wait_for "$tmp/w.out" '^pid ' 5 || return
	echo "$wpid" >"$CG/sub/cgroup.procs"
	tpid=''
	case $cfg in
	none) ok=1 ;;
	pid | cgroup)
		if [ "$cfg" = pid ]; then set -- --pid "$wpid"; else set -- --cgroup "/$NAME"; fi
		"${tr_pin[@]}" "$B/ptop-record" "$@" -o "$tmp/run.ptop" --force 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" '^ptop-record: recording' 15 && ok=1 ;;
	esac
	bench_end_run overhead_cgroup "$cfg" "$ok" "$t_err"
	rm -f "$tmp/run.ptop"
	[ $ok -eq 1 ] && sed -n 's/.*ns_per_call \([0-9.]*\).*/\1/p' "$tmp/w.out"
}


configs=(none pid cgroup)
declare -A results
echo "overhead_cgroup: $CALLS getppid calls per run, $RUNS runs per configuration," \
	"$ncpu CPUs, $(bench_kernel_line), workload in $CG/sub"
run_one none >/dev/null # warm-up
for ((r = 1; r <= RUNS; r++)); do
	for cfg in "${configs[@]}"; do
		v=$(run_one "$cfg")
		[ -n "$v" ] && results[$cfg]+="$v "
	done
done

base=$(echo "${results[none]:-}" | tr ' ' '\n' | grep . | median)
pidm=$(echo "${results[pid]:-}" | tr ' ' '\n' | grep . | median)
printf '\n%-12s %10s %9s %9s  %s\n' configuration 'ns/call' 'vs none' 'vs pid' 'runs (ns/call)'
for cfg in "${configs[@]}"; do
	vals=$(echo "${results[$cfg]:-}" | tr ' ' '\n' | grep .)
	if [ -z "$vals" ] || [ -z "$base" ] || [ -z "$pidm" ]; then
		printf '%-12s %s\n' "$cfg" "failed: see the messages above"
		continue
	fi
	m=$(echo "$vals" | median)
	printf '%-12s %10.1f %8.2fx %8.2fx  %s\n' "$cfg" "$m" \
		"$(echo "$m / $base" | bc -l)" "$(echo "$m / $pidm" | bc -l)" "$(echo $vals)"
done
