# heap_pprof.sh — `export --profile heap` read by the tools people use (issue 13): the
# exact run of tests/fixtures/heap_leak (1000 x 4096 B leaked from leak_pages, 1,000,000
# malloc(64)+free in churn; --heap-sample-bytes 0) exported as a pprof heap profile opens
# in `go tool pprof`, with Go's four sample types; its inuse_space total is report heap's
# live bytes and its alloc_objects total report heap's allocation count (and alloc_space,
# inuse_objects the bytes and live count); leak_pages holds 4,096,000 B in use. The folded
# heap stacks add up to the same live bytes (--by live) and allocated bytes (--by
# allocated). A capture without the heap collector: "not collected" with the probe's
# reason, exit 2.
. tests/e2e/lib.sh
need_ebpf
command -v go >/dev/null || skip "no 'go' command (Debian package golang-go): go tool pprof reads the profile"
caps=$("$REC" --caps 2>&1 || true)
echo "$caps" | has -E '^ *heap +' ||
	missing "this ptop-record has no heap collector (--caps lists no heap)"
echo "$caps" | has -E '^ *heap +yes' ||
	skip "the heap collector cannot run here: $(echo "$caps" | grep -E '^ *heap ')"
need_fixture heap_leak
export HOME=$TMP GOCACHE=$TMP/gocache GOFLAGS=-mod=mod GOPROXY=off

"$REC" --quiet --enable heap --heap-sample-bytes 0 -o "$TMP/exact.ptop" -- "$FIX/heap_leak" >/dev/null
"$ANA" report heap --format json "$TMP/exact.ptop" >"$TMP/heap.json"
live=$(jget "$TMP/heap.json" "j['totals']['live_bytes']")
live_n=$(jget "$TMP/heap.json" "j['totals']['live_count']")
allocs=$(jget "$TMP/heap.json" "j['totals']['alloc_count']")
alloc_b=$(jget "$TMP/heap.json" "j['totals']['alloc_bytes']")
assert_ge "report heap: allocations (churn's and leak_pages')" 1001000 "$allocs"

"$ANA" export --format pprof --profile heap -o "$TMP/heap.pb.gz" "$TMP/exact.ptop"
go tool pprof -raw "$TMP/heap.pb.gz" >"$TMP/raw.txt" 2>"$TMP/raw.err" ||
	{ cat "$TMP/raw.err" >&2; fail "go tool pprof -raw cannot read the heap profile"; }
assert_eq "sample types" "alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes[dflt]" \
	"$(grep -A1 '^Samples:' "$TMP/raw.txt" | tail -1 | sed 's/^ *//')"
assert_eq "period type" "PeriodType: space bytes" "$(grep '^PeriodType:' "$TMP/raw.txt")"
# the sums of the sample columns: samples run from the line after the types to Locations
sums=$(awk '/^Samples:/ { s = 1; getline; next } /^Locations/ { s = 0 }
	s && /:/ { for (i = 1; i <= 4; i++) t[i] += $i }
	END { printf "%d %d %d %d", t[1], t[2], t[3], t[4] }' "$TMP/raw.txt")
read -r p_ao p_as p_io p_is <<<"$sums"
assert_eq "alloc_objects = report heap's allocation count" "$allocs" "$p_ao"
assert_eq "alloc_space = report heap's bytes allocated" "$alloc_b" "$p_as"
assert_eq "inuse_objects = report heap's live count" "$live_n" "$p_io"
assert_eq "inuse_space = report heap's live bytes" "$live" "$p_is"
# by function, as pprof shows it (cumulative: malloc is the leaf): leak_pages holds
# exactly its 4,096,000 B, churn allocated 1,000,000 objects
go tool pprof -top -unit=B -sample_index=inuse_space -nodefraction=0 "$TMP/heap.pb.gz" \
	>"$TMP/top.txt" 2>/dev/null
assert_eq "go tool pprof -top: leak_pages in use (cum)" 4096000B \
	"$(awk '$NF == "leak_pages" { print $4 }' "$TMP/top.txt")"
go tool pprof -top -sample_index=alloc_objects -nodefraction=0 "$TMP/heap.pb.gz" \
	>"$TMP/top2.txt" 2>/dev/null
assert_eq "go tool pprof -top: churn's allocations (cum)" 1000000 \
	"$(awk '$NF == "churn" { print $4 }' "$TMP/top2.txt")"
# the main program's mapping first, with its range and build-id
m1=$(awk '/^Mappings/ { getline; print; exit }' "$TMP/raw.txt")
echo "$m1" | has "$FIX/heap_leak" || fail "the first mapping is not the program: $m1"
echo "$m1" | has -E '^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ [^ ]+ [0-9a-f]{40}' ||
	fail "the program's mapping has no range or build-id: $m1"
echo "ok: first mapping: $m1"

# folded: the stacks weigh the live bytes, or the bytes allocated
"$ANA" export --format folded --profile heap "$TMP/exact.ptop" >"$TMP/live.folded"
assert_eq "folded --by live (default) sums to the live bytes" "$live" \
	"$(awk '{ s += $NF } END { printf "%d", s }' "$TMP/live.folded")"
grep -qE ';leak_pages;.*malloc 4096000$' "$TMP/live.folded" ||
	{ cat "$TMP/live.folded" >&2; fail "folded: no main;leak_pages;...;malloc 4096000 line"; }
"$ANA" export --format folded --profile heap --by allocated "$TMP/exact.ptop" >"$TMP/alloc.folded"
assert_eq "folded --by allocated sums to the bytes allocated" "$alloc_b" \
	"$(awk '{ s += $NF } END { printf "%d", s }' "$TMP/alloc.folded")"

# without the heap collector: nothing to export, and why
"$REC" --quiet -o "$TMP/noheap.ptop" -- "$FIX/heap_leak" >/dev/null
expect_exit 2 "$ANA" export --format pprof --profile heap -o "$TMP/none.pb.gz" "$TMP/noheap.ptop"
has 'heap: not collected' <"$TMP/err" || fail "no 'not collected': $(cat "$TMP/err")"
expect_exit 2 "$ANA" export --format pprof --by live -o "$TMP/none.pb.gz" "$TMP/exact.ptop"
echo "PASS"
