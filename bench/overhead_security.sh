#!/usr/bin/env bash
# overhead_security.sh — what the security collector costs the target: the CPU time per
# pair of mprotect calls of bench/workload_secmem (a page to read+write, then to
# read+execute: a JIT's pattern, one event per pair) at RATES pairs per second (default
# 1000 10000 100000), its own user+system time, with
#   none        no tracer
#   floor       bench_floor: no-op BPF programs on raw_tp sys_enter/sys_exit (the bare
#               tracepoints the collector's programs sit on)
#   security    ptop-record --pid with only the security collector (--enable security),
#               its stacks as auto takes them (stack copies)
#   sec_noexec  the same on the workload with -n (no PROT_EXEC: the calls it lets by)
# Each configuration runs RUNS times (default 5) per rate, interleaved round by round;
# the table shows medians, ratios to "none" (for sec_noexec: to none_noexec, run
# alongside) and the CPU each adds per pair. Then, at the highest rate, the events the
# capture holds and the drops (the ring is read once per --interval). Needs root. Build
# folder from $PTOP_BUILD (default build); SECONDS_PER_RUN (default 2). With 2+ CPUs the
# workload is pinned to the last CPU and the tracers to the others (PIN=0 turns this off).
#
#   make build/bench/workload_secmem build/bench/bench_floor build/ptop-record \
#       build/ptop-analyze && sudo PTOP_BUILD=build bash bench/overhead_security.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
RATES=${RATES:-1000 10000 100000}
SECS=${SECONDS_PER_RUN:-2}
W=$B/bench/workload_secmem
REC=$B/ptop-record
ANA=$B/ptop-analyze
bench_pin

bench_need_root overhead_security "BPF programs are attached"
bench_need_exe overhead_security "$W" "$B/bench/bench_floor" "$REC" "$ANA"
tmp=$(mktemp -d)
wpid='' tpid=''
cleanup() {
	[ -n "$tpid" ] && kill -INT "$tpid" 2>/dev/null
	[ -n "$wpid" ] && kill -KILL "$wpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
bench_caps security || {
	echo "overhead_security: security cannot run here: $caps_line" >&2
	exit 1
}
configs=(none floor security none_noexec sec_noexec)

# run_one CONFIG RATE [KEEP]: prints "NS_PER_PAIR PAIRS_PER_S", or nothing if the run
# failed. KEEP: the capture is kept as $tmp/CONFIG.ptop.
run_one() {
	local cfg=$1 rate=$2 keep=${3:-} ok=0 t_out=$tmp/t.out t_err=$tmp/t.err wargs=()
	local rec=("${tr_pin[@]}" "$REC" --interval 1s -o "$tmp/$cfg.ptop" --force
		--disable "$others" --enable security)
	: >"$t_out"; : >"$t_err"
	case $cfg in *noexec) wargs=(-n) ;; esac
	"${wl_pin[@]}" "$W" -r "$rate" -d "$SECS" -w "${wargs[@]}" >"$tmp/w.out" &
	wpid=$!
	bench_wait_for "$tmp/w.out" '^pid ' 5 || return
	tpid=''
	case $cfg in
	none | none_noexec) ok=1 ;;
	floor)
		bench_floor_start "$B/bench/bench_floor" && ok=1 ;;
	security | sec_noexec)
		"${rec[@]}" --pid "$wpid" >"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	esac
	bench_end_run overhead_security "$cfg" "$ok" "$t_err"
	[ -z "$keep" ] && rm -f "$tmp/$cfg.ptop"
	[ $ok -eq 1 ] && awk -v s="$SECS" '/^pairs/ { print $6, $2 / s }' "$tmp/w.out"
}

declare -A res rate_got
echo "overhead_security: $SECS s per run, $RUNS runs per configuration and rate, $ncpu CPUs," \
	"$(bench_kernel_line)${wl_pin:+, workload pinned to CPU $((ncpu - 1))}"
run_one none 1000 >/dev/null # warm-up
bench_rounds rate_got "${configs[@]}"

for rate in $RATES; do
	printf '\nrate %s mprotect pairs/s asked (%s/s reached untraced)\n' "$rate" \
		"$(echo "${rate_got[none.$rate]:-0}" | median | awk '{ printf "%.0f", $1 }')"
	printf '%-13s %12s %9s %12s  %s\n' configuration 'CPU ns/pair' 'vs none' '+ns/pair' \
		'runs (CPU ns/pair)'
	for cfg in "${configs[@]}"; do
		case $cfg in *noexec) bcfg=none_noexec ;; *) bcfg=none ;; esac
		base=$(echo "${res[$bcfg.$rate]:-}" | median)
		vals=$(echo "${res[$cfg.$rate]:-}" | tr ' ' '\n' | grep .)
		if [ -z "$vals" ] || [ -z "$base" ]; then
			printf '%-13s %s\n' "$cfg" "failed: see the messages above"
			continue
		fi
		m=$(echo "$vals" | median)
		printf '%-13s %12.1f %8.2fx %12.1f  %s\n' "$cfg" "$m" "$(echo "$m / $base" | bc -l)" \
			"$(echo "$m - $base" | bc -l)" "$(echo $vals)"
	done
	bench_noise "${res[none.$rate]:-}"
	printf '(no PROT_EXEC) '
	bench_noise "${res[none_noexec.$rate]:-}"
done

rate=${RATES##* }
printf '\nat %s pairs/s, one run: events in the capture, drops\n' "$rate"
run_one security "$rate" keep >/dev/null
if [ -s "$tmp/security.ptop" ]; then
	"$ANA" sql --format csv "$tmp/security.ptop" \
		"select (select count(*) from sec_exec_mem) as events, (select coalesce(sum(lost), 0) from drop_notice where collector = 'security') as dropped" 2>&1 | tail -2
fi
