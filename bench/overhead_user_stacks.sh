#!/usr/bin/env bash
# overhead_user_stacks.sh — what --user-stacks costs: the CPU profile of a workload
# built without frame pointers (bench/workload_cpu_nofp: workload_cpu, a CPU-bound loop
# 24 frames deep, -O2 -fomit-frame-pointer), with
#   none      no recorder
#   fp        ptop-record, only cpuprof, at 99 Hz, --user-stacks fp (the frame-pointer
#             walk: short stacks here)
#   auto      the same with --user-stacks auto, which finds no frame pointers in the
#             workload and takes stack copies (checked in the probe detail)
#   auto999   the same at 999 Hz
# Then the same four on Debian's python3 (no frame pointers; skipped without it),
# building dicts under 20 levels of Python recursion: its CPU time per round, and the
# capture's growth, where stacks vary far more (the copies' keys with them).
# For each: the workload's CPU and wall time per unit (medians, ratios to none); the
# time the BPF program takes per second (kernel.bpf_stats_enabled on for the bench,
# run_time_ns of cp_sample read with bpftool while the recorder runs: the timer
# interrupt's cost, paid on the CPUs the target runs on); the recorder's own CPU time
# (user+system, /usr/bin/time, start-up included) per second recorded; and the
# capture: bytes, bytes per second of recording, bytes per sample, stack copies. Each
# configuration runs RUNS times (default 5), interleaved; pinned as overhead_cpuprof.sh
# (PIN=0 turns it off). Needs root. Build folder from $PTOP_BUILD (default build).
#
#   make B=build build/ptop-record build/ptop-analyze build/bench/workload_cpu_nofp && \
#        sudo PTOP_BUILD=build bash bench/overhead_user_stacks.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
UNITS=${UNITS:-300000}
W=$B/bench/workload_cpu_nofp
REC=$B/ptop-record
ANA=$B/ptop-analyze
bench_pin
bench_need_root overhead_user_stacks "BPF programs are attached"
bench_need_exe overhead_user_stacks "$W" "$REC" "$ANA" /usr/bin/time
bench_caps cpuprof || {
	echo "overhead_user_stacks: cpuprof cannot run here: $caps_line" >&2
	exit 1
}
BPFTOOL=${BPFTOOL:-$(PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin" command -v bpftool)}
bench_need_exe overhead_user_stacks "$BPFTOOL"
stats0=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
tmp=$(mktemp -d)
trap 'sysctl -qw kernel.bpf_stats_enabled=$stats0; rm -rf "$tmp"' EXIT

configs=(none fp auto auto999)
declare -A cpu wall rcpu bytes bps bpsample copies bpf
# run_one CONFIG: appends the run's figures to the lists
run_one() {
	local out=$tmp/$1.out hz=99 us=auto c=$tmp/$1.ptop line wargs=(-n "$UNITS")
	[ "${2:-}" = python ] && wargs=("$tmp/work.py" "$PYROUNDS")
	case $1 in
	none)
		"${wl_pin[@]}" "$W" "${wargs[@]}" >"$out" || return
		;;
	*)
		[ "$1" = fp ] && us=fp
		[ "$1" = auto999 ] && hz=999
		rm -f "$c" "$tmp/bpf"
		/usr/bin/time -f "rec_cpu_s %U %S" -o "$tmp/time" \
			"${tr_pin[@]}" "$REC" --quiet --disable "$others" --cpu-sample-hz "$hz" \
			--user-stacks "$us" -o "$c" -- "${wl_pin[@]}" "$W" "${wargs[@]}" \
			>"$out" 2>"$tmp/rec.err" &
		local rpid=$! t0 now
		t0=$(date +%s.%N)
		# the program's run time so far, with the seconds since its first sight
		while kill -0 $rpid 2>/dev/null; do
			line=$("${tr_pin[@]}" "$BPFTOOL" prog show name cp_sample 2>/dev/null |
				grep -o 'run_time_ns [0-9]*' | awk '{ print $2 }')
			now=$(date +%s.%N)
			if [ -n "$line" ]; then
				[ -f "$tmp/bpf.t0" ] || echo "$now" >"$tmp/bpf.t0"
				echo "$line $(echo "$now - $(cat "$tmp/bpf.t0")" | bc -l)" >"$tmp/bpf"
			fi
			sleep 0.25
		done
		rm -f "$tmp/bpf.t0"
		wait $rpid || {
			cat "$tmp/rec.err" >&2
			return
		}
		[ -f "$tmp/bpf" ] && bpf[$1]+="$(awk '$2 > 0 { print $1 / $2 / 1000 }' "$tmp/bpf") "
		if [ "$us" = auto ] && ! "$ANA" sql --format csv "$c" \
			"select detail from probe where name = 'cpuprof'" | grep -q "user stacks dwarf"; then
			echo "overhead_user_stacks: auto did not choose stack copies" >&2
			exit 1
		fi
		# seconds recorded (the capture's span), samples, copies
		line=$("$ANA" sql --format csv "$c" "select (select (max(time_ns) - min(time_ns
			- coalesce(interval_ns, 0))) / 1e9 from cpu_profile), sum(samples),
			coalesce(sum(stack_copies), 0) from cpu_profile" | tail -1)
		local secs samples ncopies size
		IFS=, read -r secs samples ncopies <<<"$line"
		size=$(stat -c %s "$c")
		rcpu[$1]+="$(awk -v s="$secs" '{ print ($2 + $3) / s }' "$tmp/time") "
		bytes[$1]+="$size "
		bps[$1]+="$(echo "$size / $secs" | bc -l) "
		bpsample[$1]+="$(echo "$size / $samples" | bc -l) "
		copies[$1]+="$ncopies "
		;;
	esac
	cpu[$1]+="$(awk '$1 == "cpu_ns_per_unit" { print $2 }' "$out") "
	wall[$1]+="$(awk '$1 == "wall_ns_per_unit" { print $2 }' "$out") "
}

cat >"$tmp/work.py" <<'PYEOF'
import sys, time
def build(n):
    d = {}
    for i in range(n):
        d["k%d" % i] = [i, str(i), {"v": i}]
    return d
def level(k, n):
    if k == 0:
        return len(build(n))
    return level(k - 1, n)
rounds = int(sys.argv[1])
c0, w0 = time.process_time(), time.monotonic()
for _ in range(rounds):
    level(20, 20000)
print("cpu_ns_per_unit %.1f" % ((time.process_time() - c0) * 1e9 / rounds))
print("wall_ns_per_unit %.1f" % ((time.monotonic() - w0) * 1e9 / rounds))
PYEOF

# table TITLE: the figures gathered since the last table
table() {
	local c cm wm
	c0=$(echo "${cpu[none]}" | median)
	w0=$(echo "${wall[none]}" | median)
	printf '%s, median of %s runs (pinned: %s)\n' "$1" "$RUNS" \
		"$([ ${#wl_pin[@]} -gt 0 ] && echo yes || echo no)"
	printf '%-8s %12s %7s %12s %7s %9s %10s %10s %9s %9s %7s\n' config cpu_ns/unit ratio \
		wall_ns/unit ratio bpf_us/s rec_cpu/s capture_B B/s B/sample copies
	for c in "${configs[@]}"; do
		cm=$(echo "${cpu[$c]:-}" | median)
		wm=$(echo "${wall[$c]:-}" | median)
		if [ -z "$cm" ]; then
			printf '%-8s %s\n' "$c" "no successful run"
			continue
		fi
		printf '%-8s %12.1f %7.4f %12.1f %7.4f' "$c" "$cm" "$(echo "$cm / $c0" | bc -l)" \
			"$wm" "$(echo "$wm / $w0" | bc -l)"
		if [ "$c" = none ]; then
			printf '\n'
			continue
		fi
		printf ' %9.1f %10.4f %10.0f %9.0f %9.1f %7.0f\n' "$(echo "${bpf[$c]:-0}" | median)" \
			"$(echo "${rcpu[$c]}" | median)" \
			"$(echo "${bytes[$c]}" | median)" "$(echo "${bps[$c]}" | median)" \
			"$(echo "${bpsample[$c]}" | median)" "$(echo "${copies[$c]}" | median)"
	done
	cpu=() wall=() rcpu=() bytes=() bps=() bpsample=() copies=() bpf=()
}

for ((r = 1; r <= RUNS; r++)); do
	for c in "${configs[@]}"; do
		run_one "$c"
	done
done
table "workload_cpu_nofp, $UNITS units"
if [ -x /usr/bin/python3 ]; then
	W=/usr/bin/python3
	PYROUNDS=${PYROUNDS:-60}
	for ((r = 1; r <= RUNS; r++)); do
		for c in "${configs[@]}"; do
			run_one "$c" python
		done
	done
	table "Debian's python3, $PYROUNDS rounds of work.py"
else
	echo "python3: /usr/bin/python3 is not installed: its table is skipped"
fi
