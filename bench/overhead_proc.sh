#!/usr/bin/env bash
# overhead_proc.sh — what the signals, lifecycle and locks collectors cost the target: the CPU
# time per operation of bench/workload_proc (its own and its reaped children's, from
# getrusage) at paced rates. KIND (default fork) picks the operation:
#   fork    fork(2) a child that _exits at once, and wait for it (lifecycle: a fork and an
#           exit event each; signals: the child's SIGCHLD, one signal_generate)
#   exec    the same, the child exec'ing /bin/true (lifecycle: fork, exec and exit events)
#   signal  raise(SIGUSR1), taken by a handler (signals: one generate, one deliver)
#   futex   futex(2) FUTEX_WAKE on a word no one waits on (locks: a wake counted)
#   futexwait  futex(2) FUTEX_WAIT for a value the word does not hold: EAGAIN at once
#           (locks: a wait counted, and its user stack taken: a copy under the default
#           --user-stacks auto; STACKS=fp runs locks with --user-stacks fp)
# The configurations (CONFIGS, default "none floor signals lifecycle"; for futex
# "none floor-sys locks"):
#   none       no tracer
#   floor      bench_proc_floor: no-op BPF programs on tp_btf signal_generate,
#              signal_deliver, sched_process_fork, sched_process_exec, sched_process_exit
#   signals    ptop-record --pid, only the signals collector
#   lifecycle  ptop-record --pid, only the lifecycle collector
#   floor-sys  bench_floor: no-op BPF programs on raw_tp sys_enter and sys_exit (locks')
#   locks      ptop-record --pid --enable locks, only the locks collector
# RATES: operations per second (0: as fast as it can; default "200 1000 0" for fork and
# exec, "10000 100000 0" for signal and futex). RUNS per configuration and rate (default 5),
# interleaved round by round so drift hits all alike; SECS (default 2) seconds of
# operations per run at a paced rate (flat out: 4000 forks, 1000 execs, 300000 signals
# or futex calls).
# The table shows medians, the ratios to "none" and to the floor, and the spread of the
# untraced runs. Needs root. Build folder from $PTOP_BUILD (default build).
#
#   make build/bench/workload_proc build/bench/bench_proc_floor programs &&
#   sudo PTOP_BUILD=build KIND=exec bash bench/overhead_proc.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
REC=$B/ptop-record
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
KIND=${KIND:-fork}
SECS=${SECS:-2}
case $KIND in
fork) RATES=${RATES:-"200 1000 0"} flat=4000 ;;
exec) RATES=${RATES:-"200 1000 0"} flat=1000 ;;
signal | futex) RATES=${RATES:-"10000 100000 0"} flat=300000 ;;
futexwait) RATES=${RATES:-"10000 100000 0"} flat=100000 ;;
*) echo "overhead_proc: KIND=$KIND: not fork, exec, signal, futex or futexwait" >&2; exit 2 ;;
esac
case $KIND in futex*) CONFIGS=${CONFIGS:-"none floor-sys locks"} ;; esac
CONFIGS=${CONFIGS:-"none floor signals lifecycle"}
W=$B/bench/workload_proc
bench_pin

bench_need_root overhead_proc "BPF programs are attached"
bench_need_exe overhead_proc "$W" "$B/bench/bench_proc_floor" "$B/bench/bench_floor" "$REC"
for c in signals lifecycle locks; do
	bench_caps "$c" || { echo "overhead_proc: $c cannot run here: $caps_line" >&2; exit 0; }
done
not_signals=$(bench_caps signals; echo "$others") not_lifecycle=$(bench_caps lifecycle; echo "$others")
not_locks=$(bench_caps locks; echo "$others")
bench_tmp
read -ra configs <<<"$CONFIGS"

# run_one CONFIG RATE: prints "NS_PER_OP OPS_PER_S_REACHED", or nothing if the run failed
run_one() {
	local cfg=$1 rate=$2 ok=0 t_out=$tmp/$1.out t_err=$tmp/$1.err ops=$flat sel=()
	[ "$rate" -gt 0 ] && ops=$((rate * SECS))
	: >"$t_out"; : >"$t_err"
	"${wl_pin[@]}" "$W" -k "$KIND" -r "$rate" -n "$ops" -w >"$tmp/w.out" &
	wpid=$!
	bench_wait_for "$tmp/w.out" '^pid ' 5 || return
	tpid=''
	case $cfg in
	none) ok=1 ;;
	floor | floor-sys)
		local fl=$B/bench/bench_proc_floor
		[ "$cfg" = floor-sys ] && fl=$B/bench/bench_floor
		bench_floor_start "$fl" && ok=1 ;;
	signals | lifecycle | locks)
		case $cfg in
		signals) sel=(--disable "$not_signals") ;;
		lifecycle) sel=(--disable "$not_lifecycle") ;;
		locks) sel=(--enable locks --disable "$not_locks" --user-stacks "${STACKS:-auto}") ;;
		esac
		"${tr_pin[@]}" "$REC" --pid "$wpid" "${sel[@]}" -o "$tmp/run.ptop" --force \
			>"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	*) echo "overhead_proc: no configuration $cfg" >&2; exit 2 ;;
	esac
	bench_end_run overhead_proc "$cfg" "$ok" "$t_err"
	rm -f "$tmp/run.ptop"
	[ $ok -eq 1 ] && awk '/ns_per_op/ { print $6, $8 }' "$tmp/w.out"
}

declare -A res reached
echo "overhead_proc: $KIND, rates $RATES ops/s, $RUNS runs per configuration and rate," \
	"$ncpu CPUs, kernel $(uname -r)${wl_pin:+, workload pinned to CPU $((ncpu - 1))}"
run_one none 0 >/dev/null # warm-up
bench_rounds reached "${configs[@]}"

for rate in $RATES; do
	base=$(echo "${res[none.$rate]:-}" | median)
	floor=$(echo "${res[floor.$rate]:-}" | median)
	case $KIND in futex*) floor=$(echo "${res[floor-sys.$rate]:-}" | median) ;; esac
	printf '\nrate %s %s/s (%s; %s/s reached untraced)\n' "$rate" "$KIND" \
		"$([ "$rate" = 0 ] && echo "as fast as it can" || echo paced)" \
		"$(echo "${reached[none.$rate]:-0}" | median | awk '{ printf "%.0f", $1 }')"
	printf '%-10s %12s %9s %9s %10s  %s\n' configuration 'CPU ns/op' 'vs none' 'vs floor' \
		'ops/s' 'runs (CPU ns/op)'
	for cfg in "${configs[@]}"; do
		m=$(echo "${res[$cfg.$rate]:-}" | median)
		if [ -z "$m" ] || [ -z "$base" ]; then
			printf '%-10s %s\n' "$cfg" "n/a (no successful run: see the messages above)"
			continue
		fi
		printf '%-10s %12.1f %9s %9s %10.0f  %s\n' "$cfg" "$m" "$(bench_ratio "$m" "$base")" \
			"$(bench_ratio "$m" "$floor")" "$(echo "${reached[$cfg.$rate]}" | median)" \
			"$(echo ${res[$cfg.$rate]})"
	done
	bench_noise "${res[none.$rate]:-}"
done
