#!/usr/bin/env bash
# overhead_tls.sh — what the tls collector costs the target: the CPU time per SSL call of
# bench/workload_tls.py (a TLS client and server in one Python process over memory BIOs:
# SSL_write_ex of 64 bytes, SSL_read_ex of them), paced at RATES (default 10000 and 100000
# SSL calls per second), with
#   none    no tracer
#   floor   bench_tls_floor: uprobes and uretprobes on the same four functions whose
#           programs only count (the bare traps)
#   tls     ptop-record --pid PID --enable tls, every other collector disabled
#   bytes   the same with --tls-bytes 64 (the plaintext of each call read and written)
# RUNS (default 5) rounds of DUR (default 1) seconds, interleaved; medians, the ratio to
# "none" and to "floor", the CPU added per call. The capture's write calls are checked
# against the workload's (every call counted).
#
#   make B=build build/ptop-record build/ptop-analyze build/bench/bench_tls_floor \
#        build/bench/workload_alloc build/bench/bench_uprobe_floor && \
#        sudo PTOP_BUILD=build bash bench/overhead_tls.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
DUR=${DUR:-1}
RATES=${RATES:-10000 100000}
W=$(dirname "$0")/workload_tls.py
FLOOR=$B/bench/bench_tls_floor
REC=$B/ptop-record
ANA=$B/ptop-analyze
bench_pin
bench_need_root overhead_tls "uprobes are attached"
bench_need_exe overhead_tls "$REC" "$ANA" "$FLOOR"
if ! bench_caps tls; then
	echo "overhead_tls: ptop-record --caps lists no usable tls collector: $caps_line" >&2
	exit 1
fi
bench_tmp
export XDG_CACHE_HOME=$tmp/cache
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/k.pem" -out "$tmp/c.pem" -days 1 \
	-subj /CN=localhost >/dev/null 2>&1 || { echo "overhead_tls: openssl req failed" >&2; exit 1; }

# run_one CONFIG RATE: prints "CPU_NS_PER_CALL RATE_REACHED", nothing when it failed
run_one() {
	local cfg=$1 rate=$2 ok=0 out=$tmp/w.out t_out=$tmp/t.out t_err=$tmp/t.err lib calls got
	: >"$out"; : >"$t_out"; : >"$t_err"
	tpid=''
	"${wl_pin[@]}" python3 "$W" "$tmp/c.pem" "$tmp/k.pem" -r "$rate" -d "$DUR" -w >"$out" &
	wpid=$!
	bench_wait_for "$out" '^pid ' 10 || { bench_end_run overhead_tls "$cfg" 0 "$out"; return; }
	case $cfg in
	none) ok=1 ;;
	floor)
		lib=$(awk '$6 ~ /\/libssl\.so/ { print $6; exit }' "/proc/$wpid/maps")
		"${tr_pin[@]}" "$FLOOR" "$wpid" "$lib" >"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_out" attached 15 && ok=1 ;;
	tls | bytes)
		"${tr_pin[@]}" "$REC" --pid "$wpid" --enable tls --disable "$others" \
			$([ "$cfg" = bytes ] && echo --tls-bytes 64) \
			-o "$tmp/run.ptop" --force >"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	esac
	bench_end_run overhead_tls "$cfg" "$ok" "$t_err"
	[ $ok -eq 1 ] || return
	if [ "$cfg" = tls ] || [ "$cfg" = bytes ]; then
		calls=$(awk '$1 == "calls" { print $2 / 2 }' "$out")
		got=$("$ANA" figures --format csv "$tmp/run.ptop" |
			awk -F, '$1 == "tls.write_calls" { print $2 }')
		[ "$got" = "$calls" ] ||
			echo "overhead_tls: $cfg counted $got write calls, the workload made $calls" >&2
		rm -f "$tmp/run.ptop"
	fi
	awk '$1 == "calls" { print $6, $8 }' "$out"
}

declare -A res reached
echo "overhead_tls: $DUR s per run, $RUNS rounds, rates $RATES SSL calls/s, $ncpu CPUs," \
	"$(bench_kernel_line)${wl_pin:+, workload pinned to CPU $((ncpu - 1))}"
run_one none 10000 >/dev/null # warm-up
bench_rounds reached none floor tls bytes
bench_trap_floor "$B/bench/workload_alloc" "$B/bench/bench_uprobe_floor"
bench_conditions
printf '| SSL calls/s asked (reached untraced) | none ns/call | floor | tls | tls --tls-bytes 64 |\n'
printf '| --- | ---: | ---: | ---: | ---: |\n'
for rate in $RATES; do
	n=$(echo "${res[none.$rate]:-}" | median)
	f=$(echo "${res[floor.$rate]:-}" | median)
	t=$(echo "${res[tls.$rate]:-}" | median)
	b=$(echo "${res[bytes.$rate]:-}" | median)
	r=$(echo "${reached[none.$rate]:-}" | median)
	for c in none floor tls bytes; do echo "runs $c $rate: ${res[$c.$rate]:-}"; done >&2
	awk -v rate="$rate" -v r="$r" -v n="$n" -v f="$f" -v t="$t" -v b="$b" 'BEGIN {
		cell = "%.0f (%+.0f ns, %.2f× none, %.2f× floor)"
		printf "| %d (%.0f) | %.0f | %.0f (%+.0f ns, %.2f× none) | " cell " | " cell " |\n",
			rate, r, n, f, f - n, f / n, t, t - n, t / n, t / f, b, b - n, b / n, b / f }'
	bench_noise "${res[none.$rate]:-}"
done
