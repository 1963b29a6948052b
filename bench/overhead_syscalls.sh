#!/usr/bin/env bash
# overhead_syscalls.sh — what tracing syscalls costs the target: the CPU time per
# getppid(2) of bench/workload_syscalls (its own user+system time, getrusage) with
#   none        no tracer
#   floor       bench_floor: no-op BPF programs on raw_tp sys_enter/sys_exit
#   collector   bench_syscalls: ptop's syscalls collector alone (the BPF programs of
#               collectors/syscalls/syscalls.bpf.c plus a poll per second), no capture file
#   ptop-record ptop-record --pid, every collector (only when $B/ptop-record exists)
#   bpftrace    bpftrace counting sys_enter of the pid (only when bpftrace is installed)
#   baseline    $BASELINE_COLLECTOR, another build's bench_syscalls (e.g. of the commit
#               before a change to collectors/syscalls/syscalls.bpf.c), only when that variable is set
# Each configuration runs RUNS times (default 5), interleaved round by round so
# drift hits all alike; the table shows medians and ratios to "none" and "floor".
# Needs root. Build folder from $PTOP_BUILD (default build); CALLS (default 2000000)
# sets the calls per run. With 2+ CPUs the workload is pinned to the last CPU and
# the tracers to the others (PIN=0 turns this off): it halves the run-to-run spread.
#
#   make B=build build/bench/workload_syscalls build/bench/bench_floor \
#        build/bench/bench_syscalls && PTOP_BUILD=build bash bench/overhead_syscalls.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
CALLS=${CALLS:-2000000}
W=$B/bench/workload_syscalls
bench_pin

bench_need_root overhead_syscalls "BPF programs are attached"
bench_need_exe overhead_syscalls "$W" "$B/bench/bench_floor" "$B/bench/bench_syscalls"

bench_tmp

configs=(none floor collector)
declare -A note
if [ -n "${BASELINE_COLLECTOR:-}" ]; then
	bench_need_exe overhead_syscalls "$BASELINE_COLLECTOR"
	configs+=(baseline)
fi
if [ -x "$B/ptop-record" ]; then
	configs+=(ptop-record)
else
	note[ptop-record]="skipped: $B/ptop-record is not built"
fi
if command -v bpftrace >/dev/null 2>&1; then
	configs+=(bpftrace)
else
	note[bpftrace]="skipped: bpftrace is not installed (apt-get install bpftrace)"
fi

# run_one CONFIG: prints the workload's ns per call, or nothing if the run failed
run_one() {
	local cfg=$1 ok=0 t_out=$tmp/$1.out t_err=$tmp/$1.err
	: >"$t_out"; : >"$t_err"
	"${wl_pin[@]}" "$W" -n "$CALLS" -w >"$tmp/w.out" &
	wpid=$!
	bench_wait_for "$tmp/w.out" '^pid ' 5 || return
	tpid=''
	case $cfg in
	none) ok=1 ;;
	floor)
		bench_floor_start "$B/bench/bench_floor" && ok=1 ;;
	collector | baseline)
		local exe=$B/bench/bench_syscalls
		[ "$cfg" = baseline ] && exe=$BASELINE_COLLECTOR
		bench_floor_start "$exe" "$wpid" && ok=1 ;;
	ptop-record)
		"${tr_pin[@]}" "$B/ptop-record" --pid "$wpid" -o "$tmp/run.ptop" --force >"$t_out" 2>"$t_err" &
		tpid=$!
		# it prints the probe summary once its collectors have started
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	bpftrace)
		# bpftrace reads tracepoint formats from tracefs; if it is not mounted,
		# mount it in a private mount namespace (nothing changes for the host)
		local prog="tracepoint:raw_syscalls:sys_enter /pid == $wpid/ { @[probe] = count(); }"
		if [ -d /sys/kernel/tracing/events/raw_syscalls ]; then
			"${tr_pin[@]}" bpftrace -e "$prog" >"$t_out" 2>"$t_err" &
		else
			"${tr_pin[@]}" unshare -m sh -c 'mount -t tracefs nodev /sys/kernel/tracing && exec bpftrace -e "$1"' \
				sh "$prog" >"$t_out" 2>"$t_err" &
		fi
		tpid=$!
		# it prints this just before attaching: give the attach a moment
		bench_wait_for "$t_out" 'Attaching' 30 && sleep 1 && ok=1 ;;
	esac
	bench_end_run overhead_syscalls "$cfg" "$ok" "$t_err"
	rm -f "$tmp/run.ptop"
	[ $ok -eq 1 ] && sed -n 's/.*ns_per_call \([0-9.]*\).*/\1/p' "$tmp/w.out"
}


# Other programs on the syscall tracepoints put every process on the slow syscall
# path: the "none" row is then not a clean baseline. Say so.
others=$(bpftool link show 2>/dev/null | grep -cE "tp '(sys_enter|sys_exit)'")
if [ "${others:-0}" -gt 0 ]; then
	echo "overhead_syscalls: warning: $others other BPF link(s) on sys_enter/sys_exit are" \
		"attached (bpftool link show): every row, \"none\" included, pays for them" >&2
fi

declare -A results
echo "overhead_syscalls: $CALLS getppid calls per run, $RUNS runs per configuration," \
	"$ncpu CPUs, kernel $(uname -r)${wl_pin:+, workload pinned to CPU $((ncpu - 1))}"
run_one none >/dev/null # warm-up
for ((r = 1; r <= RUNS; r++)); do
	for cfg in "${configs[@]}"; do
		v=$(run_one "$cfg")
		[ -n "$v" ] && results[$cfg]+="$v "
	done
done

base=$(echo "${results[none]:-}" | tr ' ' '\n' | grep . | median)
floor=$(echo "${results[floor]:-}" | tr ' ' '\n' | grep . | median)
printf '\n%-12s %10s %9s %9s  %s\n' configuration 'ns/call' 'vs none' 'vs floor' 'runs (ns/call)'
for cfg in none floor collector baseline ptop-record bpftrace; do
	[ "$cfg" = baseline ] && [ -z "${BASELINE_COLLECTOR:-}" ] && continue
	if [ -n "${note[$cfg]:-}" ]; then
		printf '%-12s %s\n' "$cfg" "${note[$cfg]}"
		continue
	fi
	vals=$(echo "${results[$cfg]:-}" | tr ' ' '\n' | grep .)
	if [ -z "$vals" ]; then
		printf '%-12s %s\n' "$cfg" "failed: see the messages above"
		continue
	fi
	m=$(echo "$vals" | median)
	printf '%-12s %10.1f %8.2fx %8.2fx  %s\n' "$cfg" "$m" \
		"$(echo "$m / $base" | bc -l)" "$(echo "$m / $floor" | bc -l)" "$(echo $vals)"
done
