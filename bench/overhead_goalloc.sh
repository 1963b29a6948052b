#!/usr/bin/env bash
# overhead_goalloc.sh — what the heap's Go lane (goalloc) costs a Go target: the CPU time
# per unit of work of bench/workload_goalloc.go (its own user+system time, getrusage, the
# runtime's GC threads included; a unit is ~1 µs of fixed work plus RATE/1e6 heap
# allocations from four call sites, 16–4096 bytes) at each allocation rate of $RATES
# (per million units: about that many per second), with
#   none      no recorder
#   floor     bench_goalloc_floor: a BPF program that only counts, on runtime.mallocgc at
#             the point goalloc probes (the stack check's jbe): the bare trap
#   goalloc   ptop-record --pid --enable goalloc, every other collector disabled
#             (a stack every --heap-sample-bytes, 512 KiB by default)
#   goalloc0  the same with --heap-sample-bytes 0 (every allocation's stack)
# Each configuration runs RUNS times (default 5) per rate, interleaved round by round so
# drift hits all alike; the tables show medians, ratios to "none" and "floor", and the
# CPU added per allocation. The noise floor is read from the 0-allocation row, where the
# probe does not fire for the workload: the largest deviation of any configuration from
# "none" there.
# Needs root and go (golang-go); the workload is built into $B/bench/workload_goalloc.
# Build folder from $PTOP_BUILD (default build); DUR (default 1) seconds a run. With 2+
# CPUs the workload is pinned to the last CPU (so GOMAXPROCS is 1) and the tracers to the
# others.
#
#   make B=build build/ptop-record build/bench/bench_goalloc_floor && \
#        PTOP_BUILD=build bash bench/overhead_goalloc.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
DUR=${DUR:-1}
RATES=${RATES-0 10000 100000 1000000 10000000}
W=$B/bench/workload_goalloc
FLOOR=$B/bench/bench_goalloc_floor
REC=$B/ptop-record
bench_pin

bench_need_root overhead_goalloc "a uprobe is attached"
if ! command -v go >/dev/null 2>&1; then
	echo "overhead_goalloc: no 'go' command (Debian package golang-go); skipped" >&2
	exit 0
fi
bench_need_exe overhead_goalloc "$REC" "$FLOOR"

bench_tmp

if [ ! -x "$W" ] || [ bench/workload_goalloc.go -nt "$W" ]; then
	mkdir -p "$B/bench" "$tmp/go"
	cp bench/workload_goalloc.go "$tmp/go/"
	if ! (cd "$tmp/go" && GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" GO111MODULE=off \
		GOPROXY=off go build -o workload_goalloc workload_goalloc.go); then
		echo "overhead_goalloc: go build of bench/workload_goalloc.go failed" >&2
		exit 1
	fi
	mv "$tmp/go/workload_goalloc" "$W"
fi

configs=(none floor goalloc goalloc0)
if ! bench_caps goalloc; then
	echo "overhead_goalloc: ptop-record --caps lists no usable goalloc collector" >&2
	exit 1
fi

# run_one CONFIG RATE: prints "CPU_NS_PER_UNIT ALLOCS_PER_UNIT" of the run, or nothing
# if it failed
run_one() {
	local cfg=$1 rate=$2 ok=0 out=$tmp/w.out t_out=$tmp/t.out t_err=$tmp/t.err
	: >"$out"; : >"$t_out"; : >"$t_err"
	tpid=''
	"${wl_pin[@]}" "$W" -r "$rate" -d "$DUR" -w >"$out" &
	wpid=$!
	bench_wait_for "$out" '^pid ' 5 || return
	case $cfg in
	none) ok=1 ;;
	floor)
		bench_floor_start "$FLOOR" --pid "$wpid" && ok=1 ;;
	goalloc*)
		local opt=()
		[ "$cfg" = goalloc0 ] && opt=(--heap-sample-bytes 0)
		"${tr_pin[@]}" "$REC" --pid "$wpid" --enable goalloc --disable "$others" "${opt[@]}" \
			-o "$tmp/run.ptop" --force >"$t_out" 2>"$t_err" &
		tpid=$!
		# it prints the probe summary once its collectors have started
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	esac
	bench_end_run overhead_goalloc "$cfg" "$ok" "$t_err"
	[ "$cfg" = floor ] && sed -n 's/^attached: //p' "$t_out" >"$tmp/floor_at"
	rm -f "$tmp/run.ptop"
	[ $ok -eq 1 ] && awk '$1 == "units" { print $8, ($2 ? $4 / $2 : 0) }' "$out"
}


declare -A res apu note
echo "overhead_goalloc: $DUR s per run, $RUNS runs per configuration and rate, $ncpu CPUs," \
	"$(bench_kernel_line), $(go version | awk '{ print $3 }')${wl_pin:+, workload pinned to CPU $((ncpu - 1))}"
run_one none 0 >/dev/null # warm-up
# this kernel's bare uprobe trap (workload_alloc, malloc+0), beside every figure below
bench_trap_floor "$B/bench/workload_alloc" "$B/bench/bench_uprobe_floor"
bench_conditions
for ((r = 1; r <= RUNS; r++)); do
	for rate in $RATES; do
		for cfg in "${configs[@]}"; do
			v=$(run_one "$cfg" "$rate")
			[ -n "$v" ] || continue
			res[$cfg.$rate]+="${v% *} "
			apu[$cfg.$rate]+="${v#* } "
		done
	done
	echo "overhead_goalloc: round $r of $RUNS done" >&2
done
[ -s "$tmp/floor_at" ] && echo "floor probe: $(cat "$tmp/floor_at")"

bench_alloc_report 10 "where the workload does not allocate" "${configs[@]}"
exit 0
