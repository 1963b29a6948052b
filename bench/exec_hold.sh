#!/usr/bin/env bash
# exec_hold.sh — how long a launched command's new program waits at its exec while the
# heap collector follows it (ptop-record(1), FOLLOWING EXEC): the recorder holds it
# (SIGSTOP from the eBPF exec watch) until the probes for it are attached. A one-time
# cost per exec, not per allocation. Rows, each `sh -c 'exec PROG'` with --enable heap:
#   preload>uprobe   the preload lane in sh hands over to uprobes on heap_static
#   uprobe>uprobe    --heap-lane uprobe: sh's libc probes, then heap_static's own
#   preload>preload  a dynamic program (heap_kinds): the library follows, nothing is
#                    attached (the hold is only the recorder reading the event)
# The time is what ptop-record --verbose prints ("followed N ms after the exec": from
# the exec, in the kernel's clock, to the collectors being done), median of RUNS (7).
# Beside it, the launch: how long `ptop-record -- true` takes from start to exit with
# the same collectors, the fixed cost the hold adds to.
# The chain: a shell script that execs itself CHAIN (10) times, recorded start to exit
# with --enable heap and without (heap off, nothing held), in the same round; the cost
# per exec is their difference over CHAIN (the heap's one-time start and end included),
# and "chain held" the median of the --verbose "followed" times of its execs.
#
#   make B=build programs tests-build && sudo PTOP_BUILD=build bash bench/exec_hold.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-7}
CHAIN=${CHAIN:-10}
REC=$B/ptop-record
FIX=$B/tests/fixtures
bench_need_root exec_hold "BPF programs, uprobes"
bench_need_exe exec_hold "$REC" "$FIX/heap_static" "$FIX/heap_kinds"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# hold OPTIONS... -- PROG: the milliseconds of one run
hold() {
	local out
	out=$("$REC" --verbose --force -o "$tmp/c.ptop" --enable heap --heap-sample-bytes 0 "$@" \
		2>&1 >/dev/null)
	sed -n "s/.*the target exec'd .*; followed \([0-9.]*\) ms after the exec.*/\1/p" <<<"$out" |
		tail -1
}

cat >"$tmp/chain.sh" <<'SH'
#!/bin/sh
[ "$1" -gt 0 ] && exec "$0" $(($1 - 1))
exit 0
SH
chmod +x "$tmp/chain.sh"
# ms OPTIONS...: the milliseconds `ptop-record OPTIONS -- chain.sh CHAIN` takes
ms() {
	local s
	s=$(date +%s%N)
	"$REC" --quiet --force -o "$tmp/ch.ptop" "$@" -- "$tmp/chain.sh" "$CHAIN" >/dev/null 2>&1
	echo $((($(date +%s%N) - s) / 1000000))
}

declare -A res
held=""
for ((r = 0; r < RUNS; r++)); do
	res[preload_uprobe]+=" $(hold -- sh -c 'exec "$0"' "$FIX/heap_static")"
	res[uprobe_uprobe]+=" $(hold --heap-lane uprobe -- sh -c 'exec "$0"' "$FIX/heap_static")"
	res[preload_preload]+=" $(hold -- sh -c 'exec "$0"' "$FIX/heap_kinds")"
	s=$(date +%s%N)
	"$REC" --quiet --force -o "$tmp/t.ptop" --enable heap -- true >/dev/null 2>&1
	res[launch]+=" $(( ($(date +%s%N) - s) / 1000000 ))"
	h=$(ms --enable heap)
	n=$(ms)
	res[chain_heap]+=" $h"
	res[chain_off]+=" $n"
	res[per_exec]+=" $(awk -v h="$h" -v n="$n" -v c="$CHAIN" 'BEGIN { printf "%.1f", (h - n) / c }')"
	held+=" $("$REC" --verbose --force -o "$tmp/ch.ptop" --enable heap -- "$tmp/chain.sh" "$CHAIN" \
		2>&1 >/dev/null | sed -n "s/.*; followed \([0-9.]*\) ms after the exec.*/\1/p" | tr '\n' ' ')"
done
res[chain_held]=$held

printf 'exec hold, median of %d runs (ms); %s\n' "$RUNS" "$(bench_kernel_line)"
printf '%-16s %10s  %s\n' case median runs
for k in preload_uprobe uprobe_uprobe preload_preload launch; do
	printf '%-16s %10s  %s\n' "${k/_/>}" "$(echo "${res[$k]}" | median)" "${res[$k]}"
done
printf '\nchain of %d execs (a script exec'"'"'ing itself), median of %d runs (ms)\n' "$CHAIN" "$RUNS"
for k in chain_heap chain_off per_exec; do
	printf '%-16s %10s  %s\n' "${k/_/ }" "$(echo "${res[$k]}" | median)" "${res[$k]}"
done
printf '%-16s %10s  (%d execs)\n' "chain held" "$(echo "${res[chain_held]}" | median)" \
	"$(wc -w <<<"${res[chain_held]}")"
