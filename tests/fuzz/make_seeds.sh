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
	local rc=0
	"$B/ptop-record" -o "$tmp/$name.ptop" --interval 250ms "$@" >/dev/null 2>&1 || rc=$?
	# 124: --duration ended the command, as timeout(1) says it (ptop-record(1) EXIT STATUS)
	[ $rc = 0 ] || [ $rc = 124 ] || { echo "make_seeds: recording $name failed ($rc)" >&2; exit 1; }
}

rec 01 -- sleep 1.5                                         # no profile samples
rec 02 --duration 1s -- "$B/tests/fixtures/spin"            # CPU profile, stacks
rec 03 --enable heap -- "$B/tests/fixtures/heap_leak"       # heap sites, leaks
rec 04 -- "$B/tests/fixtures/syscall_mem" 50000 16 300   # syscalls, memory
rec 05 --enable net --fd-stacks -- "$B/tests/fixtures/net_exchange" 1 # net, fd sites
# io_files's folder as collectors/io/e2e/io_files.sh makes it, and run as it runs it:
# without the capabilities that would open the mode-0000 file
mkdir "$tmp/io" && head -c 2097152 /dev/zero >"$tmp/io/in" && : >"$tmp/io/secret" &&
	: >"$tmp/io/old" && : >"$tmp/io/gone" && chmod 0000 "$tmp/io/secret"
rec 06 --io-files -- setpriv --inh-caps=-dac_override,-dac_read_search \
	--bounding-set=-dac_override,-dac_read_search \
	"$B/tests/fixtures/io_files" "$tmp/io"                      # per-file io, io_uring, events

mkdir -p "$out"
for f in "$tmp"/*.ptop; do
	n=$(basename "$f" .ptop)
	rm -f "$out/seed-$n"
	"$B/tests/fuzz/seed_scrub" "$f" "$out/seed-$n"
done
ls -l "$out"
