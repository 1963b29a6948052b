#!/usr/bin/env bash
# overhead_heap.sh — what recording the heap costs the target: the CPU time per unit of
# work of bench/workload_alloc (its own user+system time, getrusage; a unit is ~1 µs of
# fixed work plus RATE/1e6 malloc+free pairs from four call sites, 16–4096 bytes) at
# each allocation rate of $RATES (per million units: about that many per second), with
#   none        no recorder
#   floor       bench_uprobe_floor: the heap collector's probe points (uprobes on
#               malloc, calloc, realloc, free, the memalign family at the offsets the
#               collector chooses; uretprobes on those returning a pointer) with BPF
#               programs that only count: the bare trap
#   heaptrack   heaptrack -o FILE (LD_PRELOAD interposition; its compressor runs in
#               other processes, on the tracer CPUs), when installed
#   bpftrace    bpftrace -p PID, a malloc uprobe counting by user stack, when installed
#   ptop-all    ptop-record --pid --enable heap: every one  } when ptop-record --caps
#   ptop-noheap ptop-record --pid, the default (heap is off) } lists a heap collector
#   ptop-heap   ptop-record --pid, the heap collector alone }
#   ptop-heap0  the same with --heap-sample-bytes 0 (every allocation's stack)
#   ptop-preload ptop-record --heap-lane preload -- WORKLOAD, when --help offers it: the
#               heap collector alone, libptop-preload.so in the workload's LD_PRELOAD
#   ptop-preload0 the same with --heap-sample-bytes 0 (every allocation's stack, through
#               the shared ring to the recorder)
#   ptop-preload-before, ptop-preload0-before  the same two with the ptop-record (and
#               libptop-preload.so) of the build folder $PTOP_BEFORE, when set: another
#               commit's lane in the same run (e.g. before the .eh_frame unwinder)
# The preload rows end with a table of their cost against heaptrack's at each rate: the
# ratio of CPU per unit, and of the CPU added per allocation (row - none).
# Each configuration runs RUNS times (default 5) per rate, interleaved round by round so
# drift hits all alike; the tables show medians, ratios to "none" and "floor", and the
# CPU added per allocation. The noise floor is read from the 0-allocation row, where no
# probe fires: the largest deviation of any configuration from "none" there.
# Then (HITS=1, the default) the per-hit cost of single probes at the 1M rate: a uprobe
# on malloc+0, a uretprobe on malloc (alone it also pays the entry trap it hijacks the
# return address from: the marginal cost of a uretprobe is malloc+0+ret minus malloc+0),
# free+0 (single-stepped: glibc's free starts with test %rdi,%rdi), free+3 (the je after
# it, emulated, reached by free(NULL) too) and free+auto (the collector's choice, +9 on
# Debian 12's glibc). RATES="" runs only these.
# Every table carries the kernel (release and build line) and the bare uprobe trap floor
# measured at the start of the run (bench/lib.sh bench_trap_floor: TRAP_RUNS pairs, 3;
# TRAP=0 skips it), so that figures of two machines are never compared bare.
# Needs root. Build folder from $PTOP_BUILD (default build); DUR (default 1) seconds a
# run; CONFIGS (default all) the configurations to run, by the names above; WORKLOAD
# (default workload_alloc) the workload in $PTOP_BUILD/bench: workload_alloc_nofp is the
# same built without frame pointers, as distributions build. With 2+ CPUs the workload is pinned to the last CPU and the tracers to the others.
#
#   make B=build build/bench/workload_alloc build/bench/bench_uprobe_floor && \
#        PTOP_BUILD=build bash bench/overhead_heap.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
DUR=${DUR:-1}
RATES=${RATES-0 10000 100000 1000000 10000000}
HITS=${HITS:-1}
W=$B/bench/${WORKLOAD:-workload_alloc}
BEFORE=${PTOP_BEFORE:-}
FLOOR=$B/bench/bench_uprobe_floor
REC=$B/ptop-record
bench_pin
wl_cpu=()
[ ${#wl_pin[@]} -gt 0 ] && wl_cpu=(-c $((ncpu - 1)))

bench_need_root overhead_heap "uprobes are attached"
bench_need_exe overhead_heap "$W" "$FLOOR"

bench_tmp

configs=(none floor heaptrack bpftrace ptop-all ptop-noheap ptop-heap ptop-heap0 ptop-preload
	ptop-preload0 ptop-preload-before ptop-preload0-before)
declare -A note
command -v heaptrack >/dev/null 2>&1 ||
	note[heaptrack]="n/a (heaptrack is not installed: apt-get install heaptrack)"
command -v bpftrace >/dev/null 2>&1 ||
	note[bpftrace]="n/a (bpftrace is not installed: apt-get install bpftrace)"
others=''
if [ ! -x "$REC" ]; then
	why="n/a ($REC is not built)"
elif ! bench_caps heap; then
	why="n/a (ptop-record --caps lists no usable heap collector)"
else
	why=''
	# (not "--help | grep -q": grep may quit first, and pipefail takes the SIGPIPE)
	help=$("$REC" --help 2>&1)
	if ! grep -q -- '--heap-lane' <<<"$help"; then
		note[ptop-preload]="n/a (ptop-record has no --heap-lane preload)"
		note[ptop-preload0]=${note[ptop-preload]}
	fi
fi
if [ -n "$why" ]; then
	for c in ptop-all ptop-noheap ptop-heap ptop-heap0 ptop-preload ptop-preload0; do
		note[$c]=$why
	done
fi
if [ -z "$BEFORE" ]; then
	note[ptop-preload-before]="not run (PTOP_BEFORE is not set)"
elif [ ! -x "$BEFORE/ptop-record" ]; then
	note[ptop-preload-before]="n/a ($BEFORE/ptop-record is not built)"
fi
note[ptop-preload0-before]=${note[ptop-preload-before]:-}
# CONFIGS="none heaptrack ptop-preload ...": only these rows (default: all)
if [ -n "${CONFIGS:-}" ]; then
	for c in "${configs[@]}"; do
		[[ " $CONFIGS " == *" $c "* ]] || note[$c]="not run (CONFIGS)"
	done
fi
run_cfgs=()
for c in "${configs[@]}"; do [ -z "${note[$c]:-}" ] && run_cfgs+=("$c"); done

libc=''
# run_one CONFIG RATE [FLOOR ARGS...]: prints "CPU_NS_PER_UNIT ALLOCS_PER_UNIT" of the
# run, or nothing if it failed
run_one() {
	local cfg=$1 rate=$2 ok=0 out=$tmp/w.out t_out=$tmp/t.out t_err=$tmp/t.err prog
	shift 2
	: >"$out"; : >"$t_out"; : >"$t_err"
	tpid=''
	case $cfg in
	heaptrack)
		"${tr_pin[@]}" heaptrack -o "$tmp/ht" "$W" -r "$rate" -d "$DUR" "${wl_cpu[@]}" \
			>"$out" 2>"$t_err" || echo "overhead_heap: heaptrack: $(tail -c 300 "$t_err")" >&2
		rm -f "$tmp"/ht*
		ok=1 ;;
	ptop-preload | ptop-preload0 | ptop-preload-before | ptop-preload0-before)
		local every=() rec=$REC
		[[ $cfg == ptop-preload0* ]] && every=(--heap-sample-bytes 0)
		[[ $cfg == *-before ]] && rec=$BEFORE/ptop-record
		"${tr_pin[@]}" "$rec" --quiet --enable heap --disable "$others" --heap-lane preload \
			"${every[@]}" -o "$tmp/run.ptop" --force -- "$W" -r "$rate" -d "$DUR" \
			"${wl_cpu[@]}" \
			>"$out" 2>"$t_err" || echo "overhead_heap: $cfg: $(tail -c 300 "$t_err")" >&2
		ok=1 ;;
	*)
		"${wl_pin[@]}" "$W" -r "$rate" -d "$DUR" -w >"$out" &
		wpid=$!
		bench_wait_for "$out" '^pid ' 5 || return
		[ -n "$libc" ] || libc=$(awk '$6 ~ /\/libc\.so/ { print $6; exit }' "/proc/$wpid/maps")
		case $cfg in
		none) ok=1 ;;
		floor)
			bench_floor_start "$FLOOR" --pid "$wpid" "$@" && ok=1 ;;
		bpftrace)
			# bpftrace wants tracefs; if it is not mounted, mount it in a private
			# mount namespace (nothing changes for the host)
			prog="uprobe:$libc:malloc { @[ustack] = count(); }"
			if [ -d /sys/kernel/tracing/events ]; then
				"${tr_pin[@]}" bpftrace -p "$wpid" -e "$prog" >"$t_out" 2>"$t_err" &
			else
				"${tr_pin[@]}" unshare -m sh -c \
					'mount -t tracefs nodev /sys/kernel/tracing && exec bpftrace -p "$1" -e "$2"' \
					sh "$wpid" "$prog" >"$t_out" 2>"$t_err" &
			fi
			tpid=$!
			# it prints this just before attaching: give the attach a moment
			bench_wait_for "$t_out" 'Attaching' 30 && sleep 1 && ok=1 ;;
		ptop-*)
			local dis=()
			case $cfg in
			ptop-all) dis=(--enable heap) ;;	# heap is off by default
			ptop-noheap) dis=() ;;
			ptop-heap) dis=(--enable heap --disable "$others") ;;
			ptop-heap0) dis=(--enable heap --disable "$others" --heap-sample-bytes 0) ;;
			esac
			"${tr_pin[@]}" "$REC" --pid "$wpid" "${dis[@]}" -o "$tmp/run.ptop" --force \
				>"$t_out" 2>"$t_err" &
			tpid=$!
			# it prints the probe summary once its collectors have started
			bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
		esac
		bench_end_run overhead_heap "$cfg" "$ok" "$t_err"
		;;
	esac
	rm -f "$tmp/run.ptop"
	[ $ok -eq 1 ] && awk '$1 == "units" { print $8, ($2 ? $4 / $2 : 0) }' "$out"
}


declare -A res apu
echo "overhead_heap: $DUR s per run, $RUNS runs per configuration and rate, $ncpu CPUs," \
	"$(bench_kernel_line)${wl_pin:+, workload pinned to CPU $((ncpu - 1))}"
echo "heaptrack: $(heaptrack --version 2>/dev/null | sed -n 1p || echo none);" \
	"bpftrace: $(bpftrace --version 2>/dev/null || echo none)"
run_one none 0 >/dev/null # warm-up
bench_trap_floor "$W" "$FLOOR" # this kernel's bare trap, beside every figure below
bench_conditions
for ((r = 1; r <= RUNS; r++)); do
	[ -n "$RATES" ] || break
	for rate in $RATES; do
		for cfg in "${run_cfgs[@]}"; do
			v=$(run_one "$cfg" "$rate")
			[ -n "$v" ] || continue
			res[$cfg.$rate]+="${v% *} "
			apu[$cfg.$rate]+="${v#* } "
		done
	done
	echo "overhead_heap: round $r of $RUNS done" >&2
done

bench_alloc_report 20 "where no probe fires" "${configs[@]}"

# the preload lane against heaptrack, rate by rate: CPU per unit, and CPU added per
# allocation (row - none), each as row / heaptrack (below 1: cheaper than heaptrack); the
# second only where heaptrack adds more than 5% (below that it is noise over noise)
if [ -n "$RATES" ] && [ -z "${note[heaptrack]:-}" ]; then
	printf '\npreload lane / heaptrack, CPU per unit (and CPU added per allocation)\n'
	printf '%-20s' configuration
	for rate in $RATES; do printf ' %18s' "rate $rate"; done
	printf '\n'
	for cfg in ptop-preload ptop-preload0 ptop-preload-before ptop-preload0-before; do
		[ -z "${note[$cfg]:-}" ] || continue
		printf '%-20s' "$cfg"
		for rate in $RATES; do
			printf ' %18s' "$(awk -v m="$(echo "${res[$cfg.$rate]:-}" | median)" \
				-v h="$(echo "${res[heaptrack.$rate]:-}" | median)" \
				-v b="$(echo "${res[none.$rate]:-}" | median)" -v r="$rate" 'BEGIN {
				if (m == "" || h == "" || b == "") { print "n/a"; exit }
				printf "%.3fx", m / h
				if (r > 0 && h - b > 0.05 * b) printf " (%.2fx)", (m - b) / (h - b) }')"
		done
		printf '\n'
	done
fi

[ "$HITS" = 1 ] || exit 0
# per-hit costs: one probe at a time at one allocation per unit
declare -A hit
hcfgs=("none" "malloc+0|--only malloc" "malloc.ret|--only malloc.ret"
	"malloc+0+ret|--only malloc,malloc.ret" "free+0|--only free --free-offset 0"
	"free+3|--only free --free-offset 3" "free+auto|--only free --free-offset auto")
for ((r = 1; r <= RUNS; r++)); do
	for h in "${hcfgs[@]}"; do
		name=${h%%|*}
		if [ "$name" = none ]; then
			v=$(run_one none 1000000)
		else
			# shellcheck disable=SC2086
			v=$(run_one floor 1000000 ${h#*|})
			[ "$name" = free+auto ] && [ -z "${freeoff:-}" ] &&
				freeoff=$(sed -n 's/.* free+\([0-9]*\).*/\1/p' "$tmp/t.out")
		fi
		[ -n "$v" ] && hit[$name]+="${v% *} " && hit[$name.a]+="${v#* } "
	done
done
base=$(echo "${hit[none]:-}" | median)
printf '\nper-hit cost, one probe alone, 1 allocation per unit (free+auto is free+%s)\n' \
	"${freeoff:-?}"
bench_conditions
printf '%-12s %12s %12s  %s\n' probe 'CPU ns/unit' 'ns per hit' 'runs (CPU ns/unit)'
for h in "${hcfgs[@]}"; do
	name=${h%%|*}
	m=$(echo "${hit[$name]:-}" | median)
	a=$(echo "${hit[$name.a]:-}" | median)
	[ -n "$m" ] || { printf '%-12s %s\n' "$name" "n/a (no successful run)"; continue; }
	printf '%-12s %12.1f %12s  %s\n' "$name" "$m" \
		"$([ "$name" = none ] && echo - || awk -v m="$m" -v b="$base" -v a="$a" \
			'BEGIN { printf "%.1f", (m - b) / a }')" "$(echo ${hit[$name]})"
done
m0=$(echo "${hit[malloc+0]:-}" | median)
m2=$(echo "${hit[malloc+0+ret]:-}" | median)
f0=$(echo "${hit[free+0]:-}" | median)
f9=$(echo "${hit[free+auto]:-}" | median)
if [ -n "$m0" ] && [ -n "$m2" ]; then
	awk -v a="$m0" -v b="$m2" -v n="$(echo "${hit[none.a]:-}" | median)" 'BEGIN {
		printf "a uretprobe beside the entry uprobe adds %.1f ns per hit\n", (b - a) / n }'
fi
if [ -n "$f0" ] && [ -n "$f9" ] && [ -n "$base" ]; then
	awk -v a="$f0" -v b="$f9" -v z="$base" 'BEGIN {
		printf "free+0 costs %.1fx free+auto per hit\n", (a - z) / (b - z) }'
fi
