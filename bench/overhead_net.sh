#!/usr/bin/env bash
# overhead_net.sh — what the net collector costs the target: the CPU time per send+recv
# pair of bench/workload_net (64 bytes over a loopback TCP connection inside one process,
# its own user+system time from getrusage) at paced rates, with
#   none    no tracer
#   floor   bench_net_floor: no-op BPF programs on tp_btf sock_send_length/sock_recv_length
#   net     ptop-record --pid with the net collector alone (every other one --disable'd)
#   all     ptop-record --pid with every collector on by default, plus --enable net
# RATES (pairs per second; 0: as fast as it can, default "10000 100000 0"), RUNS per
# configuration and rate (default 5), interleaved round by round so drift hits all
# alike; PAIRS_SCALE (default 3) seconds of pairs per run at a paced rate (100000 pairs
# flat out). The table shows medians, ratios to "none" and "floor", and the rate reached.
# Needs root. Build folder from $PTOP_BUILD (default build).
#
#   make build/bench/workload_net build/bpf/bench_net_noop.skel.h build/bench/bench_net_floor \
#        programs && PTOP_BUILD=build bash bench/overhead_net.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
REC=$B/ptop-record
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
RATES=${RATES:-"10000 100000 0"}
PAIRS_SCALE=${PAIRS_SCALE:-3}
W=$B/bench/workload_net
bench_pin

bench_need_root overhead_net "BPF programs are attached"
bench_need_exe overhead_net "$W" "$B/bench/bench_net_floor" "$REC"
bench_caps net || { echo "overhead_net: net cannot run here: $caps_line" >&2; exit 0; }

tmp=$(mktemp -d)
wpid='' tpid=''
cleanup() {
	[ -n "$tpid" ] && kill -INT "$tpid" 2>/dev/null
	[ -n "$wpid" ] && kill -KILL "$wpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

configs=(none floor net all)

# run_one CONFIG RATE: prints "NS_PER_PAIR RATE_REACHED", or nothing if the run failed
run_one() {
	local cfg=$1 rate=$2 ok=0 t_out=$tmp/$1.out t_err=$tmp/$1.err pairs=100000
	[ "$rate" -gt 0 ] && pairs=$((rate * PAIRS_SCALE))
	: >"$t_out"; : >"$t_err"
	"${wl_pin[@]}" "$W" -r "$rate" -n "$pairs" -w >"$tmp/w.out" &
	wpid=$!
	bench_wait_for "$tmp/w.out" '^pid ' 5 || return
	tpid=''
	case $cfg in
	none) ok=1 ;;
	floor)
		"${tr_pin[@]}" "$B/bench/bench_net_floor" >"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_out" attached 10 && ok=1 ;;
	net | all)
		local sel=(--disable "$others")
		[ "$cfg" = all ] && sel=(--enable net)
		"${tr_pin[@]}" "$REC" --pid "$wpid" "${sel[@]}" -o "$tmp/run.ptop" --force \
			>"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	esac
	bench_end_run overhead_net "$cfg" "$ok" "$t_err"
	rm -f "$tmp/run.ptop"
	[ $ok -eq 1 ] && sed -n 's/.*ns_per_pair \([0-9.]*\) rate \([0-9]*\).*/\1 \2/p' "$tmp/w.out"
}

declare -A res reached
echo "overhead_net: rates $RATES pairs/s, $RUNS runs per configuration and rate, $ncpu CPUs," \
	"kernel $(uname -r)${wl_pin:+, workload pinned to CPU $((ncpu - 1))}"
run_one none 0 >/dev/null # warm-up
for ((r = 1; r <= RUNS; r++)); do
	for rate in $RATES; do
		for cfg in "${configs[@]}"; do
			v=$(run_one "$cfg" "$rate")
			[ -n "$v" ] || continue
			res[$cfg.$rate]+="${v% *} "
			reached[$cfg.$rate]+="${v#* } "
		done
	done
done

for rate in $RATES; do
	base=$(echo "${res[none.$rate]:-}" | median)
	floor=$(echo "${res[floor.$rate]:-}" | median)
	printf '\nrate %s pairs/s (%s)\n' "$rate" "$([ "$rate" = 0 ] && echo "as fast as it can" || echo paced)"
	printf '%-8s %12s %9s %9s %10s  %s\n' configuration 'ns/pair' 'vs none' 'vs floor' \
		'pairs/s' 'runs (CPU ns/pair)'
	for cfg in "${configs[@]}"; do
		m=$(echo "${res[$cfg.$rate]:-}" | median)
		if [ -z "$m" ] || [ -z "$base" ] || [ -z "$floor" ]; then
			printf '%-8s %s\n' "$cfg" "n/a (no successful run: see the messages above)"
			continue
		fi
		printf '%-8s %12.1f %8.3fx %8.3fx %10.0f  %s\n' "$cfg" "$m" \
			"$(echo "$m / $base" | bc -l)" "$(echo "$m / $floor" | bc -l)" \
			"$(echo "${reached[$cfg.$rate]}" | median)" "$(echo ${res[$cfg.$rate]})"
	done
	# the spread of the untraced runs: what "within the noise" means here
	echo "${res[none.$rate]:-}" | tr ' ' '\n' | grep . | awk -v m="$base" '
		{ d = $1 / m - 1; if (d < 0) d = -d; if (d > n) n = d }
		END { printf "noise: the untraced runs lie within +/-%.1f%% of their median\n", n * 100 }'
done
