#!/usr/bin/env bash
# mappings_cgroup.sh — what following every process of a cgroup costs the recorder in
# the mappings collector: N processes (default 1000 x sleep, and 10 x python3 for
# bigger maps) in a fresh cgroup v2 directory, recorded with --cgroup for SECS seconds
# (default 10) at a 1 s interval,
#   without   --disable mappings (the baseline: every other default collector)
#   with      the mappings collector on
# Each configuration runs RUNS times (default 3), interleaved; the table shows the
# recorder's own CPU time (user + system, from /usr/bin/time) per run, the medians,
# their ratio, and the difference per poll and per process. The processes are started
# before the runs, so the first poll's build-id reads are warm after the first run.
#
#   make B=build build/ptop-record && sudo PTOP_BUILD=build bash bench/mappings_cgroup.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-3}
N=${N:-1000}
SECS=${SECS:-10}
REC=$B/ptop-record
bench_need_root mappings_cgroup "BPF programs, a new cgroup"
bench_need_exe mappings_cgroup "$REC"
bench_need_cgroup2 mappings_cgroup
command -v /usr/bin/time >/dev/null || { echo "mappings_cgroup: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

tmp=$(mktemp -d)
CG=$V2/ptop-bench-mappings-$$
kids=()
cleanup() {
	[ ${#kids[@]} -gt 0 ] && kill -KILL "${kids[@]}" 2>/dev/null
	wait 2>/dev/null
	rmdir "$CG" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$CG" || { echo "mappings_cgroup: cannot create $CG" >&2; exit 1; }
for ((i = 0; i < N; i++)); do
	sh -c 'echo $$ >"$1/cgroup.procs" && exec sleep 100000' sh "$CG" &
	kids+=($!)
done
for ((i = 0; i < 10; i++)); do
	sh -c 'echo $$ >"$1/cgroup.procs" && exec python3 -c "import ssl, json, decimal, time; time.sleep(100000)"' sh "$CG" &
	kids+=($!)
done
sleep 3	# every process started and moved
procs=$(wc -l <"$CG/cgroup.procs")

# run CFG: the recorder's CPU seconds
run() {
	local extra=()
	[ "$1" = without ] && extra=(--disable mappings)
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$REC" --quiet --force --cgroup "$CG" \
		--interval 1s --duration "${SECS}s" "${extra[@]}" -o "$tmp/c.ptop" >/dev/null 2>&1
	awk '{ print $1 + $2 }' "$tmp/time"
}

declare -A res
for ((r = 0; r < RUNS; r++)); do
	for cfg in without with; do
		res[$cfg]+=" $(run $cfg)"
	done
done
a=$(echo "${res[without]}" | median)
b=$(echo "${res[with]}" | median)
printf 'mappings in cgroup mode: %d processes, %d s at 1 s, median of %d runs\n' "$procs" "$SECS" "$RUNS"
printf '%-10s %14s  %s\n' config 'CPU s (median)' runs
printf '%-10s %14s  %s\n' without "$a" "${res[without]}"
printf '%-10s %14s  %s\n' with "$b" "${res[with]}"
awk -v a="$a" -v b="$b" -v s="$SECS" -v p="$procs" 'BEGIN {
	printf "ratio with/without %.2fx; mappings: %.1f ms of CPU a poll, %.1f us a process\n",
		a ? b / a : 0, (b - a) / (s + 1) * 1e3, (b - a) / (s + 1) / p * 1e6 }'
