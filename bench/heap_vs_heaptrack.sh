#!/usr/bin/env bash
# heap_vs_heaptrack.sh — ptop's heap figures beside heaptrack's on the same workload:
# Debian's sqlite3 inserting $ROWS rows (default 100,000) into :memory: (one .read of a
# begin; insert...; commit script, the workload of collectors/heap/e2e/heap_unwind.sh),
# recorded by ptop-record --heap-lane preload --heap-sample-bytes 0 (exact), by the
# uprobe lane the same way (as root; UPROBE=0 skips it: ~20 s) and by heaptrack. Prints, for each: allocation calls, bytes allocated, the peak of the live
# heap, temporary allocations; for heaptrack both heaptrack_print's figures and its trace
# read again by its own rule (bench/heaptrack_trace.py), and the blocks of heaptrack's
# own runtime (libstdc++, which its preload library brings into a C program: an
# allocation the program never makes). Not a timing: figures only, one run each.
# Needs sqlite3, heaptrack, heaptrack_print, zstd, python3; no root (the preload lane
# runs with --no-ebpf; the uprobe lane needs it). Build folder from $PTOP_BUILD (default
# build).
#
#   make programs && bash bench/heap_vs_heaptrack.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
ROWS=${ROWS:-100000}
here=$(dirname "$0")
for c in sqlite3 heaptrack heaptrack_print zstd python3; do
	command -v $c >/dev/null || { echo "heap_vs_heaptrack: $c is not installed; skipped" >&2; exit 0; }
done
[ -x "$B/ptop-record" ] && [ -e "$B/libptop-preload.so" ] ||
	{ echo "heap_vs_heaptrack: $B/ptop-record or libptop-preload.so missing: run make programs" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -c "
print('begin; create table t(a integer, b text);')
for i in range($ROWS):
    print('insert into t values (%d, %r);' % (i, 'x' * (i % 50)))
print('commit; select count(*) from t;')" > "$tmp/ins.sql"
sq=$(command -v sqlite3)

figures() { # LANE: record the workload in LANE at sample bytes 0, print ptop's figures
	local ebpf=--no-ebpf
	[ "$1" = uprobe ] && ebpf=
	"$B/ptop-record" --quiet $ebpf --enable heap --heap-lane "$1" --heap-sample-bytes 0 \
		-o "$tmp/$1.ptop" -- "$sq" :memory: ".read $tmp/ins.sql" >/dev/null || exit 1
	"$B/ptop-analyze" report heap --format json "$tmp/$1.ptop" > "$tmp/$1.json" || exit 1
	python3 - "$tmp/$1.json" "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t = j["totals"]
print("%-24s allocs %d  bytes %d  peak %d  temporaries %d"
      % ("ptop (%s, exact):" % sys.argv[2], t["alloc_count"], t["alloc_bytes"],
         j["peak"]["live_bytes"], j["temporary"]["count"]))
PY
}
figures preload
if [ "${UPROBE:-1}" = 1 ] && [ "$(id -u)" = 0 ]; then
	figures uprobe
fi

heaptrack -o "$tmp/ht" "$sq" :memory: ".read $tmp/ins.sql" >/dev/null 2>&1 || exit 1
heaptrack_print -f "$tmp/ht.zst" 2>/dev/null | grep -E '^(calls to allocation|temporary memory|peak heap)' |
	sed 's/^/heaptrack_print:        /'
python3 "$here/heaptrack_trace.py" "$tmp/ht.zst"
