#!/usr/bin/env bash
# startup.sh — how long ptop-record takes from its exec to the capture's header on disk
# (the output file gets its name only once the header is in it: record/record.c, step 8;
# from then a SIGKILL leaves a capture ptop-analyze reads), recording --pid of an idle
# `sleep`, for
#   default     the default collectors
#   all         every collector: --enable heap,net (heap through uprobes, as for any
#               --pid), --mark on a libc function (goalloc and cgroup do not apply
#               to a C program's pid)
#   all+opts    and the options that load more programs: --io-files, --fd-stacks
#   C           proccontext and C alone (proccontext: a cheap /proc collector, so that a
#               run has something to record), for each collector C, twice:
#                 verify  PTOP_VERIFY_ONLY=1: C's BPF programs loaded and verified, then
#                         C stops (record/bpf_util.c); nothing attached
#                 full    C loaded, attached and its first /proc reads done
#               "proccontext" alone is the base both include.
# COLLECTORS (default: every one) limits the per-collector rows ("none": only the
# totals, e.g. for an older build whose failing loads take minutes). Each is run RUNS
# times (default 5), interleaved; the table shows medians in ms.
# Beside them, on the same machine: `perf record -o F -- true` (exec to exit: its
# header is written before `true` runs, so this is an upper bound of its start-up) and
# `bpftrace -e 'BEGIN { exit(); }'` (exec to exit; bpftrace from Debian: apt-get
# install bpftrace; skipped when missing). Needs root. Build folder from $PTOP_BUILD
# (default build).
#
#   make build/ptop-record && sudo PTOP_BUILD=build RUNS=5 bash bench/startup.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
REC=$B/ptop-record
bench_need_root startup "BPF programs are loaded and attached"
bench_need_exe startup "$REC"

tmp=$(mktemp -d)
sleep 600 &
spid=$!
cleanup() {
	kill "$spid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ALL="cpu syscalls cpuprof heap goalloc memory vmas proccontext mappings cgroup net mark io fds"
ROWS=${COLLECTORS:-$ALL}
[ "$ROWS" = none ] && ROWS=
# others C: every collector but proccontext and C, comma-separated (for --disable)
others() {
	local c out=
	for c in $ALL; do
		[ "$c" = proccontext ] || [ "$c" = "$1" ] || out=${out:+$out,}$c
	done
	echo "$out"
}
# args C: the options that make C run (those off by default, and their richer lanes)
args() {
	case $1 in
	heap) echo "--enable heap --heap-lane uprobe" ;;
	net) echo "--enable net" ;;
	io) echo "--io-files" ;;
	fds) echo "--fd-stacks" ;;
	mark) echo "--mark m=malloc" ;;
	*) echo "" ;;
	esac
}

# to_header ENV-ASSIGNMENTS -- ARGS...: ms from the recorder's exec to its output file
# existing (polled every ms), or "-" when it never appeared (a failed start); the
# recorder is stopped with SIGINT once it is there.
to_header() {
	local envs=() out=$tmp/run.ptop t0 t1 pid i
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	rm -f "$out"
	t0=$(date +%s%N)
	env "${envs[@]}" "$REC" --quiet --pid "$spid" --duration 30s -o "$out" "$@" \
		>/dev/null 2>"$tmp/err" &
	pid=$!
	for ((i = 0; i < 60000; i++)); do
		[ -e "$out" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.001
	done
	t1=$(date +%s%N)
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -e "$out" ]; then
		echo $(((t1 - t0) / 1000000))
	else
		echo -
	fi
}

# wall CMD...: ms from exec to exit
wall() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

declare -A res
all_args=(--enable heap,net --heap-lane uprobe --mark m=malloc)
for ((r = 0; r < RUNS; r++)); do
	res[default]+=" $(to_header PTOP_X=0 --)"
	res[all]+=" $(to_header PTOP_X=0 -- "${all_args[@]}")"
	res[opts]+=" $(to_header PTOP_X=0 -- "${all_args[@]}" --io-files --fd-stacks)"
	res[base]+=" $(to_header PTOP_X=0 -- --disable "$(others proccontext)")"
	for c in $ROWS; do
		[ "$c" = proccontext ] && continue
		# shellcheck disable=SC2046 # args are words
		res[$c.verify]+=" $(to_header PTOP_VERIFY_ONLY=1 -- --disable "$(others "$c")" $(args "$c"))"
		# shellcheck disable=SC2046
		res[$c.full]+=" $(to_header PTOP_X=0 -- --disable "$(others "$c")" $(args "$c"))"
	done
	res[perf]+=" $(command -v perf >/dev/null && wall perf record -q -o "$tmp/perf.data" -- true || echo -)"
	res[bpftrace]+=" $(command -v bpftrace >/dev/null && wall bpftrace -e 'BEGIN { exit(); }' || echo -)"
done

med() { # the median of the numbers among $1's words, "-" when none was measured
	local m
	m=$(echo "$1" | tr ' ' '\n' | grep -E '^[0-9]+$' | median)
	echo "${m:--}"
}
echo "kernel $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $RUNS runs, medians in ms"
printf '%-34s %8s\n' "exec to header, default collectors" "$(med "${res[default]}")"
printf '%-34s %8s\n' "exec to header, every collector" "$(med "${res[all]}")"
printf '%-34s %8s\n' "  and --io-files --fd-stacks" "$(med "${res[opts]}")"
printf '%-34s %8s\n' "exec to header, proccontext alone" "$(med "${res[base]}")"
printf '%-14s %14s %14s\n' collector "load+verify" "full start"
for c in $ROWS; do
	[ "$c" = proccontext ] && continue
	printf '%-14s %14s %14s\n' "$c" "$(med "${res[$c.verify]}")" "$(med "${res[$c.full]}")"
done
printf '%-34s %8s\n' "perf record -- true (exec to exit)" "$(med "${res[perf]}")"
printf '%-34s %8s\n' "bpftrace BEGIN{exit()} (exec to exit)" "$(med "${res[bpftrace]}")"
echo "(a collector that cannot run here, such as cgroup without --cgroup or goalloc on a"
echo " program not written in Go, starts nothing of its own: its row is the base's)"
