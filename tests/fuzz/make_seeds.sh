#!/usr/bin/env bash
# make_seeds.sh — record the fixture captures the analyzer fuzzers start from and write
# them, scrubbed (tests/fuzz/seed_scrub.c), as tests/fuzz/corpus_records/seed-NN. Needs
# root and eBPF (it runs ptop-record). The seeds are checked in: run this only to make
# new ones, then look at their sizes (a few KB each) before committing them.
#
#   make tests-build build/tests/fuzz/seed_scrub && tests/fuzz/make_seeds.sh
set -eu
B=${PTOP_BUILD:-build}
out=tests/fuzz/corpus_records
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rec() { # NAME ARGS...: record into $tmp/NAME.ptop
	local name=$1
	shift
	"$B/ptop-record" -o "$tmp/$name.ptop" --interval 250ms "$@" >/dev/null 2>&1 ||
		{ echo "make_seeds: recording $name failed" >&2; exit 1; }
}

rec 01 -- sleep 1.5                                         # no profile samples
rec 02 --duration 1s -- "$B/tests/fixtures/spin"            # CPU profile, stacks
rec 03 --enable heap -- "$B/tests/fixtures/heap_leak"       # heap sites, leaks
rec 04 --duration 1s -- "$B/tests/fixtures/syscall_mem"     # syscalls, memory

mkdir -p "$out"
for f in "$tmp"/*.ptop; do
	n=$(basename "$f" .ptop)
	rm -f "$out/seed-$n"
	"$B/tests/fuzz/seed_scrub" "$f" "$out/seed-$n"
done
ls -l "$out"
