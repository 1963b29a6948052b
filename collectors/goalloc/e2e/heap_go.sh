# The heap's Go lane (--enable goalloc): a stripped Go program (-s -w: only
# .gopclntab names its functions, and has runtime.mallocgc) allocating 100,000
# heap objects from main.allocHot. With --heap-sample-bytes 0 every allocation
# takes its stack: the top site by count is main.allocHot with exactly its
# 100,000 allocations (the probe sits at mallocgc's stack-check jbe and skips
# the hits that go to morestack, so a call is counted once); live values are
# not measured, reported as null, never as 0. A non-Go target is refused.
. tests/e2e/lib.sh
need_ebpf
command -v go >/dev/null || skip "no 'go' command (Debian package golang-go)"
N=100000
mkdir -p "$TMP/go"
cp tests/fixtures/go/alloc.go "$TMP/go/"
(cd "$TMP/go" && GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GO111MODULE=off GOPROXY=off \
	GOFLAGS=-mod=mod go build -ldflags='-s -w' -o alloc alloc.go)
readelf -S "$TMP/go/alloc" | has '\.symtab' && fail "the fixture has a .symtab: the test means one without"

"$REC" --quiet --enable goalloc --heap-sample-bytes 0 -o "$TMP/run.ptop" -- "$TMP/go/alloc" $N
"$ANA" report heap --by count --format json "$TMP/run.ptop" > "$TMP/heap.json"
assert_eq "lane" go "$(jget "$TMP/heap.json" "j['lane']")"
assert_eq "module" alloc "$(jget "$TMP/heap.json" "j['module'].rsplit('/', 1)[-1]")"
assert_eq "live measured" False "$(jget "$TMP/heap.json" "j['live_measured']")"
assert_eq "exact" True "$(jget "$TMP/heap.json" "j['exact']")"
assert_eq "top site by count" main.allocHot "$(jget "$TMP/heap.json" "j['sites'][0]['func']")"
assert_eq "its file" alloc.go "$(jget "$TMP/heap.json" "j['sites'][0]['file'].rsplit('/', 1)[-1]")"
assert_eq "its allocations" $N "$(jget "$TMP/heap.json" "j['sites'][0]['alloc_count']")"
assert_eq "its bytes" $((N * 256)) "$(jget "$TMP/heap.json" "j['sites'][0]['alloc_bytes']")"
assert_eq "its live bytes" None "$(jget "$TMP/heap.json" "j['sites'][0]['live_bytes']")"
assert_eq "total live bytes" None "$(jget "$TMP/heap.json" "j['totals']['live_bytes']")"
assert_eq "total leak bytes" None "$(jget "$TMP/heap.json" "j['totals']['leak_bytes']")"
tot=$(jget "$TMP/heap.json" "j['totals']['alloc_count']")
assert_ge "all Go allocations (the runtime's too)" $((N + 1)) "$tot"
assert_eq "no stack lost" 0 "$(q "$TMP/run.ptop" "select sum(stack_failures) from heap_snapshot")"
"$ANA" report heap "$TMP/run.ptop" > "$TMP/heap.txt"
grep -q 'live, lifetime, leaks: not measured' "$TMP/heap.txt" || fail "the text report does not say live is not measured"
assert_eq "probe detail names the lane and module" 1 \
	"$(q "$TMP/run.ptop" "select detail like 'go lane, %/alloc: runtime.mallocgc+%' from probe where name = 'goalloc'")"

"$REC" --quiet --enable goalloc -o "$TMP/c.ptop" -- /bin/true
assert_eq "a C program: goalloc unsupported" unsupported \
	"$(q "$TMP/c.ptop" "select state from probe where name = 'goalloc'")"
assert_eq "and why" 1 \
	"$(q "$TMP/c.ptop" "select reason like '%not a Go executable%' from probe where name = 'goalloc'")"

# uprobe_multi links refused (PTOP_TEST_REFUSE, record/kfeature.h), as before Linux 6.6: the
# uprobe on mallocgc goes as a perf-event uprobe, with the same exact count, and the probe
# set says which lane ran and why the other did not
PTOP_TEST_REFUSE=uprobe_multi "$REC" --quiet --enable goalloc --heap-sample-bytes 0 \
	-o "$TMP/perf.ptop" -- "$TMP/go/alloc" $N
"$ANA" report heap --by count --format json "$TMP/perf.ptop" > "$TMP/perf.json"
assert_eq "perf_uprobe: top site by count" main.allocHot "$(jget "$TMP/perf.json" "j['sites'][0]['func']")"
assert_eq "perf_uprobe: its allocations" $N "$(jget "$TMP/perf.json" "j['sites'][0]['alloc_count']")"
assert_eq "perf_uprobe: goalloc lanes" \
	"uprobe_multi unsupported needs Linux 6.6: uprobe_multi (refused by PTOP_TEST_REFUSE)
perf_uprobe active " \
	"$(q "$TMP/perf.ptop" "select lane || ' ' || state || ' ' || coalesce(reason, '')
		from probe_lane where probe = 'goalloc' order by seq")"
