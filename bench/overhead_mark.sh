#!/usr/bin/env bash
# overhead_mark.sh — what a --mark costs the target: the CPU time per unit of work of
# bench/workload_alloc.c at -r 0 (no allocations: a unit is one call of its noinline work(),
# 640 xorshift steps, about 1 µs), with
#   none   no recorder
#   mark   ptop-record --pid PID --mark units=work, every other collector disabled: a uprobe
#          on work() counting each call (collectors/mark/mark.bpf.c)
# RUNS (default 7) runs of DUR (default 1) seconds each, interleaved; medians, the ratio
# to "none", and the CPU added per marked call. The capture's mark count is checked
# against the units the workload made (every call counted).
#
#   make B=build build/ptop-record build/bench/workload_alloc && \
#        sudo PTOP_BUILD=build bash bench/overhead_mark.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-7}
DUR=${DUR:-1}
W=$B/bench/workload_alloc
REC=$B/ptop-record
ANA=$B/ptop-analyze
bench_pin
bench_need_root overhead_mark "a uprobe is attached"
bench_need_exe overhead_mark "$REC" "$ANA" "$W"
if ! bench_caps mark; then
	echo "overhead_mark: ptop-record --caps lists no usable mark collector: $caps_line" >&2
	exit 1
fi

bench_tmp
export XDG_CACHE_HOME=$tmp/cache

# run_one CONFIG: prints the run's CPU ns per unit (and checks the mark's count), or nothing
run_one() {
	local cfg=$1 ok=0 out=$tmp/w.out t_out=$tmp/t.out t_err=$tmp/t.err units marks
	: >"$out"; : >"$t_out"; : >"$t_err"
	tpid=''
	"${wl_pin[@]}" "$W" -r 0 -d "$DUR" -w >"$out" &
	wpid=$!
	bench_wait_for "$out" '^pid ' 5 || return
	case $cfg in
	none) ok=1 ;;
	mark)
		"${tr_pin[@]}" "$REC" --pid "$wpid" --mark units=work --disable "$others" \
			-o "$tmp/run.ptop" --force >"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	esac
	bench_end_run overhead_mark "$cfg" "$ok" "$t_err"
	[ $ok -eq 1 ] || return
	if [ "$cfg" = mark ]; then
		units=$(awk '$1 == "units" { print $2 }' "$out")
		marks=$("$ANA" figures --format csv "$tmp/run.ptop" |
			awk -F, '$1 == "mark.count(units)" { print $2 }')
		[ "$marks" = "$units" ] ||
			echo "overhead_mark: the mark counted $marks calls, the workload made $units" >&2
		rm -f "$tmp/run.ptop"
	fi
	awk '$1 == "units" { print $8 }' "$out"
}

declare -A res
echo "overhead_mark: $DUR s per run, $RUNS runs per configuration, $ncpu CPUs," \
	"kernel $(uname -r)${wl_pin:+, workload pinned to CPU $((ncpu - 1))}"
run_one none >/dev/null # warm-up
for ((r = 1; r <= RUNS; r++)); do
	for cfg in none mark; do
		v=$(run_one "$cfg")
		[ -n "$v" ] && res[$cfg]+="$v "
	done
done
none=$(echo "${res[none]:-}" | median)
mark=$(echo "${res[mark]:-}" | median)
[ -n "$none" ] && [ -n "$mark" ] || { echo "overhead_mark: no result" >&2; exit 1; }
echo "runs none: ${res[none]}"
echo "runs mark: ${res[mark]}"
awk -v n="$none" -v m="$mark" 'BEGIN {
	printf "| configuration | CPU ns/unit | vs none | + ns per marked call |\n"
	printf "| --- | ---: | ---: | ---: |\n"
	printf "| none | %.1f | 1.00× | |\n", n
	printf "| mark (a uprobe on every unit) | %.1f | %.2f× | %.0f |\n", m, m / n, m - n }'
