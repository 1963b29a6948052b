#!/usr/bin/env bash
# run.sh — `make bench`: every benchmark of bench/, one after another. Each
# prints its own table with ratios against a baseline measured in the same run.
# Results and the commands that reproduce them are kept in bench/README.md.
set -uo pipefail
B=${PTOP_BUILD:-build}
export PTOP_BUILD=$B
status=0
for exe in "$B"/bench/bench_codec "$B"/bench/bench_load "$B"/bench/bench_replay; do
	[ -x "$exe" ] || continue
	echo "== $(basename "$exe")"
	"$exe" || status=1
	echo
done
for sh in bench/overhead_*.sh bench/capture_*.sh; do
	[ -f "$sh" ] || continue
	echo "== $(basename "$sh" .sh)"
	bash "$sh" || status=1
	echo
done
exit $status
