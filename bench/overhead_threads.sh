#!/usr/bin/env bash
# overhead_threads.sh — what the threads collector costs the target at every context switch:
# the CPU time per switch of bench/workload_switch (two threads pinned to one CPU passing a
# byte through two pipes: each message is one switch; its own user+system time from
# getrusage) at paced rates, interleaved round by round with the configurations (CONFIGS,
# default all of them):
#   none       no tracer
#   floor      bench_sched_floor: no-op BPF programs on tp_btf sched_switch and
#              sched_wakeup, the tracepoints the threads collector uses at each switch
#   cpu        ptop-record --pid, only the cpu collector (on by default: its eBPF lane is
#              on sched_switch too)
#   threads    only the threads collector (--enable threads): per-thread times, reasons,
#              and the off-CPU stacks at each voluntary switch-out: a kernel stack walk
#              and, under the default --user-stacks auto, a copy of the user stack's
#              top (stack copies, unwound offline)
#   fp         the same with --user-stacks fp: two stack walks, no copy
#   nostacks   only threads, --offcpu-min off: no stack walk
#   defaults   ptop-record --pid: every collector on by default
# RATES: switches per second (default "100000 1000000"; 0: as fast as it can; a rate the
# workload cannot reach runs as fast as it can, and the table says what was reached).
# RUNS per configuration and rate (default 5); SCALE (default 2) seconds of switches per run.
# The table shows medians, ratios to "none" and to the floor, and what the collector
# adds per switch. Needs root. Build folder from $PTOP_BUILD (default build).
#
#   make build/bench/workload_switch build/bench/bench_sched_floor programs &&
#        sudo PTOP_BUILD=build bash bench/overhead_threads.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
REC=$B/ptop-record
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
RATES=${RATES:-"100000 1000000"}
CONFIGS=${CONFIGS:-"none floor cpu threads fp nostacks defaults"}
SCALE=${SCALE:-2}
W=$B/bench/workload_switch
bench_pin

bench_need_root overhead_threads "BPF programs are attached"
bench_need_exe overhead_threads "$W" "$B/bench/bench_sched_floor" "$REC"
bench_caps cpu || true
not_cpu=$others
bench_caps threads || { echo "overhead_threads: threads cannot run here: $caps_line" >&2; exit 0; }
not_threads=$others
bench_tmp
read -ra configs <<<"$CONFIGS"

# run_one CONFIG RATE: prints "NS_PER_SWITCH SWITCHES_PER_S_REACHED", or nothing if the
# run failed
run_one() {
	local cfg=$1 rate=$2 ok=0 t_out=$tmp/$1.out t_err=$tmp/$1.err n=2000000 sel=()
	[ "$rate" -gt 0 ] && n=$((rate * SCALE))
	: >"$t_out"; : >"$t_err"
	"$W" -c $((ncpu - 1)) -r "$rate" -n "$n" -w >"$tmp/w.out" &
	wpid=$!
	bench_wait_for "$tmp/w.out" '^pid ' 5 || return
	tpid=''
	case $cfg in
	none) ok=1 ;;
	floor)
		bench_floor_start "$B/bench/bench_sched_floor" && ok=1 ;;
	*)
		case $cfg in
		cpu) sel=(--disable "$not_cpu") ;;
		threads) sel=(--enable threads --disable "$not_threads") ;;
		fp) sel=(--enable threads --disable "$not_threads" --user-stacks fp) ;;
		nostacks) sel=(--enable threads --disable "$not_threads" --offcpu-min off) ;;
		defaults) sel=() ;;
		*) echo "overhead_threads: no configuration $cfg" >&2; exit 2 ;;
		esac
		"${tr_pin[@]}" "$REC" --pid "$wpid" "${sel[@]}" -o "$tmp/run.ptop" --force \
			>"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	esac
	bench_end_run overhead_threads "$cfg" "$ok" "$t_err"
	rm -f "$tmp/run.ptop"
	[ $ok -eq 1 ] && awk '/ns_per_switch/ { print $6, $8 }' "$tmp/w.out"
}

bench_other_links overhead_threads "tp '(sched_switch|sched_wakeup)'|sched_switch" \
	sched_switch/sched_wakeup

declare -A res reached
echo "overhead_threads: pipe ping-pong, rates $RATES switches/s, $RUNS runs per configuration" \
	"and rate, $ncpu CPUs, kernel $(uname -r), workload pinned to CPU $((ncpu - 1))"
run_one none 100000 >/dev/null # warm-up
bench_rounds reached "${configs[@]}"

for rate in $RATES; do
	base=$(echo "${res[none.$rate]:-}" | median)
	floor=$(echo "${res[floor.$rate]:-}" | median)
	printf '\nrate %s switches/s (%s; %s/s reached untraced)\n' "$rate" \
		"$([ "$rate" = 0 ] && echo "as fast as it can" || echo paced)" \
		"$(echo "${reached[none.$rate]:-0}" | median | awk '{ printf "%.0f", $1 }')"
	printf '%-10s %14s %9s %9s %13s %10s  %s\n' configuration 'CPU ns/switch' 'vs none' \
		'vs floor' '+ns vs floor' 'switch/s' 'runs (CPU ns/switch)'
	for cfg in "${configs[@]}"; do
		m=$(echo "${res[$cfg.$rate]:-}" | median)
		if [ -z "$m" ] || [ -z "$base" ]; then
			printf '%-10s %s\n' "$cfg" "n/a (no successful run: see the messages above)"
			continue
		fi
		printf '%-10s %14.1f %9s %9s %13s %10.0f  %s\n' "$cfg" "$m" "$(bench_ratio "$m" "$base")" \
			"$(bench_ratio "$m" "$floor")" \
			"$([ -n "$floor" ] && printf '%+.0f' "$(echo "$m - $floor" | bc -l)" || echo -)" \
			"$(echo "${reached[$cfg.$rate]}" | median)" "$(echo ${res[$cfg.$rate]})"
	done
	bench_noise "${res[none.$rate]:-}"
done
