#!/usr/bin/env bash
# overhead_io.sh — what the io and fds collectors cost the target: the CPU time per
# syscall of bench/workload_io (pwrite64 and pread64 of 64 bytes on a file, alternately,
# at RATES syscalls per second: default 10000 100000 1000000; the last is as fast as it
# goes when the machine cannot reach it), its own user+system time, with
#   none        no tracer
#   floor       bench_floor: no-op BPF programs on raw_tp sys_enter/sys_exit
#   io+fds      ptop-record --pid with only the io and fds collectors: their /proc lanes
#               (/proc/PID/io and stat, /proc/PID/fd with one readlink per fd, each
#               interval); no BPF
#   fd-stacks   ptop-record --pid with only fds, --fd-stacks: its eBPF lane on
#               raw_tp/sys_exit (every syscall exit runs it; these are not fd syscalls,
#               so it returns after the filter and the kind lookup)
#   io-events   ptop-record --pid with only io, --io-events: its eBPF lane on raw_tp/sys_exit
#               (pread64/pwrite64 are not its syscalls: it returns after the filter and
#               the kind lookup)
#   io-files    ptop-record --pid with only io, --io-files: raw_tp/sys_enter and sys_exit
#               (these are its syscalls: the entry time per thread, the fd resolved to its
#               file, the per-file entry updated in the kernel), io_uring tracepoints
#   all         ptop-record --pid, every collector on by default (syscalls' programs too)
# CONFIGS (default all of them, in this order) picks some; "none" and "floor" are the
# ratios' bases. Each configuration runs RUNS times (default 5) per rate, interleaved round by round;
# the table shows medians and ratios to "none" and "floor". Needs root. Build folder from
# $PTOP_BUILD (default build); SECONDS_PER_RUN (default 2). With 2+ CPUs the workload is
# pinned to the last CPU and the tracers to the others (PIN=0 turns this off).
#
#   make build/bench/workload_io build/bench/bench_floor build/ptop-record && \
#       sudo PTOP_BUILD=build bash bench/overhead_io.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
RATES=${RATES:-10000 100000 1000000}
SECS=${SECONDS_PER_RUN:-2}
W=$B/bench/workload_io
bench_pin

bench_need_root overhead_io "BPF programs are attached"
bench_need_exe overhead_io "$W" "$B/bench/bench_floor" "$B/ptop-record"

tmp=$(mktemp -d)
wpid='' tpid=''
cleanup() {
	[ -n "$tpid" ] && kill -INT "$tpid" 2>/dev/null
	[ -n "$wpid" ] && kill -KILL "$wpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

others="cpu,syscalls,cpuprof,memory,vmas,proccontext,mappings,cgroup"
read -ra configs <<<"${CONFIGS:-none floor io+fds fd-stacks io-events io-files all}"

# run_one CONFIG RATE: prints "NS_PER_CALL CALLS_PER_S", or nothing if the run failed
run_one() {
	local cfg=$1 rate=$2 ok=0 t_out=$tmp/t.out t_err=$tmp/t.err
	local rec=("${tr_pin[@]}" "$B/ptop-record" --interval 1s -o "$tmp/run.ptop" --force)
	: >"$t_out"; : >"$t_err"
	"${wl_pin[@]}" "$W" -r "$rate" -d "$SECS" -f "$tmp/file" -w >"$tmp/w.out" &
	wpid=$!
	bench_wait_for "$tmp/w.out" '^pid ' 5 || return
	tpid=''
	case $cfg in
	none) ok=1 ;;
	floor)
		bench_floor_start "$B/bench/bench_floor" && ok=1 ;;
	io+fds)
		"${rec[@]}" --pid "$wpid" --disable "$others" >"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	fd-stacks)
		"${rec[@]}" --pid "$wpid" --disable "$others,io" --fd-stacks >"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	io-events)
		"${rec[@]}" --pid "$wpid" --disable "$others,fds" --io-events >"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	io-files)
		"${rec[@]}" --pid "$wpid" --disable "$others,fds" --io-files >"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	all)
		"${rec[@]}" --pid "$wpid" >"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	esac
	bench_end_run overhead_io "$cfg" "$ok" "$t_err"
	rm -f "$tmp/run.ptop"
	[ $ok -eq 1 ] && awk -v s="$SECS" '/^calls/ { print $6, $2 / s }' "$tmp/w.out"
}

bench_other_links overhead_io "tp '(sys_enter|sys_exit)'" sys_enter/sys_exit

declare -A res rate_got
echo "overhead_io: $SECS s per run, $RUNS runs per configuration and rate, $ncpu CPUs," \
	"kernel $(uname -r)${wl_pin:+, workload pinned to CPU $((ncpu - 1))}"
run_one none 10000 >/dev/null # warm-up
bench_rounds rate_got "${configs[@]}"

for rate in $RATES; do
	base=$(echo "${res[none.$rate]:-}" | median)
	floor=$(echo "${res[floor.$rate]:-}" | median)
	printf '\nrate %s syscalls/s asked (%s/s reached untraced)\n' "$rate" \
		"$(echo "${rate_got[none.$rate]:-0}" | median | awk '{ printf "%.0f", $1 }')"
	printf '%-10s %12s %9s %9s  %s\n' configuration 'CPU ns/call' 'vs none' 'vs floor' \
		'runs (CPU ns/call)'
	for cfg in "${configs[@]}"; do
		vals=$(echo "${res[$cfg.$rate]:-}" | tr ' ' '\n' | grep .)
		if [ -z "$vals" ] || [ -z "$base" ] || [ -z "$floor" ]; then
			printf '%-10s %s\n' "$cfg" "failed: see the messages above"
			continue
		fi
		m=$(echo "$vals" | median)
		printf '%-10s %12.1f %8.2fx %8.2fx  %s\n' "$cfg" "$m" \
			"$(echo "$m / $base" | bc -l)" "$(echo "$m / $floor" | bc -l)" "$(echo $vals)"
	done
	bench_noise "${res[none.$rate]:-}"
done
