#!/usr/bin/env bash
# overhead_net.sh — what the net, fds and io collectors cost the target on a socket: the
# CPU time per send or recv syscall of bench/workload_net (64 bytes sent on one end of a
# pair of connected sockets inside one process and received on the other, its own
# user+system time from getrusage) at paced rates. KIND (default tcp) picks the sockets:
#   tcp     a loopback TCP connection (about 8 us a pair here: 10^6 calls/s is out of reach)
#   unix    a UNIX stream socketpair (about 1.8 us a pair: close to 10^6 calls/s)
#   udp     a UDP socket on 127.0.0.1 connected to itself (about 3 us a pair)
# CALLS (default send): send, send(2) and recv(2); rw, write(2) and read(2) (what the io
# collector's --io-files follows, on any fd).
# The configurations (CONFIGS; default "none floor net all" for tcp, every one below but
# defaults and io-files for unix and udp):
#   none       no tracer
#   floor      bench_net_floor: no-op BPF programs on tp_btf sock_send_length and
#              sock_recv_length, the tracepoints the net collector uses at each send and recv
#   floor-sys  bench_floor: no-op BPF programs on raw_tp sys_enter and sys_exit, the ones
#              --fd-stacks, --io-events and the syscalls collector use at every syscall
#   net        ptop-record --pid --enable net, every other collector --disable'd
#   fds        only the fds collector: its /proc lane (a readlink per fd each interval)
#   fd-stacks  only fds, --fd-stacks: its eBPF lane on raw_tp/sys_exit
#   io         only the io collector: its /proc lane (/proc/PID/io and stat)
#   io-events  only io, --io-events: its eBPF lane on raw_tp/sys_exit
#   io-files   only io, --io-files: its per-file lane on raw_tp/sys_enter and sys_exit
#              (with CALLS=rw each read and write is followed to its file, the socket)
#   defaults   ptop-record --pid: every collector on by default (net is not: see all)
#   all        ptop-record --pid --enable net: every collector on by default, plus net
# RATES: syscalls per second, a send and a recv each one (0: as fast as it can; default
# "20000 200000 0" for tcp, "10000 100000 1000000" for unix and udp; a rate the workload
# cannot reach runs as fast as it can, and the table says what was reached). RUNS per
# configuration and rate (default 5), interleaved round by round so drift hits all alike;
# PAIRS_SCALE (default 3) seconds of calls per run at a paced rate (200000 calls flat out).
# The table shows medians, ratios to "none" and to the floors, and the rate reached.
# Needs root. Build folder from $PTOP_BUILD (default build).
#
#   make build/bench/workload_net build/bench/bench_net_floor build/bench/bench_floor \
#        programs && sudo PTOP_BUILD=build KIND=unix bash bench/overhead_net.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
REC=$B/ptop-record
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
KIND=${KIND:-tcp}
case $KIND in
tcp) RATES=${RATES:-"20000 200000 0"} CONFIGS=${CONFIGS:-"none floor net all"} ;;
unix | udp)
	RATES=${RATES:-"10000 100000 1000000"}
	CONFIGS=${CONFIGS:-"none floor floor-sys net fds fd-stacks io io-events all"} ;;
*) echo "overhead_net: KIND=$KIND: not tcp, unix or udp" >&2; exit 2 ;;
esac
CALLS=${CALLS:-send}
PAIRS_SCALE=${PAIRS_SCALE:-3}
W=$B/bench/workload_net
bench_pin

bench_need_root overhead_net "BPF programs are attached"
bench_need_exe overhead_net "$W" "$B/bench/bench_net_floor" "$B/bench/bench_floor" "$REC"
bench_caps net || { echo "overhead_net: net cannot run here: $caps_line" >&2; exit 0; }
# every collector but NAME, for --disable
but() { bench_caps "$1"; echo "$others"; }
not_net=$others not_fds=$(but fds) not_io=$(but io)

bench_tmp

read -ra configs <<<"$CONFIGS"

# run_one CONFIG RATE: prints "NS_PER_CALL CALLS_PER_S_REACHED", or nothing if the run
# failed (a pair is two calls: a send and a recv)
run_one() {
	local cfg=$1 rate=$2 ok=0 t_out=$tmp/$1.out t_err=$tmp/$1.err pairs=100000 sel=()
	[ "$rate" -gt 0 ] && pairs=$((rate / 2 * PAIRS_SCALE))
	: >"$t_out"; : >"$t_err"
	"${wl_pin[@]}" "$W" -k "$KIND" -c "$CALLS" -r "$((rate / 2))" -n "$pairs" -w >"$tmp/w.out" &
	wpid=$!
	bench_wait_for "$tmp/w.out" '^pid ' 5 || return
	tpid=''
	case $cfg in
	none) ok=1 ;;
	floor | floor-sys)
		local fl=$B/bench/bench_net_floor
		[ "$cfg" = floor-sys ] && fl=$B/bench/bench_floor
		bench_floor_start "$fl" && ok=1 ;;
	*)
		case $cfg in
		net) sel=(--enable net --disable "$not_net") ;;
		fds) sel=(--disable "$not_fds") ;;
		fd-stacks) sel=(--disable "$not_fds" --fd-stacks) ;;
		io) sel=(--disable "$not_io") ;;
		io-events) sel=(--disable "$not_io" --io-events) ;;
		io-files) sel=(--disable "$not_io" --io-files) ;;
		defaults) sel=() ;;
		all) sel=(--enable net) ;;
		*) echo "overhead_net: no configuration $cfg" >&2; exit 2 ;;
		esac
		"${tr_pin[@]}" "$REC" --pid "$wpid" "${sel[@]}" -o "$tmp/run.ptop" --force \
			>"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	esac
	bench_end_run overhead_net "$cfg" "$ok" "$t_err"
	rm -f "$tmp/run.ptop"
	[ $ok -eq 1 ] && awk '/ns_per_pair/ { print $6 / 2, $8 * 2 }' "$tmp/w.out"
}

bench_other_links overhead_net "tp '(sys_enter|sys_exit|sock_send_length|sock_recv_length)'" \
	"sys_enter/sys_exit or sock_send_length/sock_recv_length"

declare -A res reached
echo "overhead_net: $KIND sockets ($CALLS calls), rates $RATES calls/s, $RUNS runs per configuration and" \
	"rate, $ncpu CPUs, kernel $(uname -r)${wl_pin:+, workload pinned to CPU $((ncpu - 1))}"
run_one none 0 >/dev/null # warm-up
bench_rounds reached "${configs[@]}"

for rate in $RATES; do
	base=$(echo "${res[none.$rate]:-}" | median)
	floor=$(echo "${res[floor.$rate]:-}" | median)
	floor_sys=$(echo "${res[floor-sys.$rate]:-}" | median)
	printf '\nrate %s calls/s (%s; %s/s reached untraced)\n' "$rate" \
		"$([ "$rate" = 0 ] && echo "as fast as it can" || echo paced)" \
		"$(echo "${reached[none.$rate]:-0}" | median | awk '{ printf "%.0f", $1 }')"
	printf '%-10s %12s %9s %9s %9s %10s  %s\n' configuration 'CPU ns/call' 'vs none' \
		'vs floor' 'vs fl-sys' 'calls/s' 'runs (CPU ns/call)'
	for cfg in "${configs[@]}"; do
		m=$(echo "${res[$cfg.$rate]:-}" | median)
		if [ -z "$m" ] || [ -z "$base" ]; then
			printf '%-10s %s\n' "$cfg" "n/a (no successful run: see the messages above)"
			continue
		fi
		printf '%-10s %12.1f %9s %9s %9s %10.0f  %s\n' "$cfg" "$m" "$(bench_ratio "$m" "$base")" \
			"$(bench_ratio "$m" "$floor")" "$(bench_ratio "$m" "$floor_sys")" \
			"$(echo "${reached[$cfg.$rate]}" | median)" "$(echo ${res[$cfg.$rate]})"
	done
	bench_noise "${res[none.$rate]:-}"
done
