# The heap and Go lanes follow the launched command's exec (sh -c 'exec PROG'), with every
# allocation's stack (--heap-sample-bytes 0):
#   static: the preload lane, in sh, hands over to uprobes on heap_static (heap_kinds
#     linked -static) while the recorder holds it at its exec: heap_kinds' counts hold
#     exactly, site by site (a lane attached after the program started would miss them:
#     it allocates at once), the snapshots go preload then uprobe, and a ProbeChange
#     says so with the cause.
#   dynamic: sh execs heap_leak; the library in its LD_PRELOAD follows: no probe change,
#     and leak_pages' 4,096,000 live bytes are exact.
#   go: goalloc, unsupported for sh, starts on the Go program at its exec and counts
#     main.allocHot's 100,000 allocations exactly.
#   --no-ebpf: the exec is seen from /proc; the hand-over cannot attach uprobes, and the
#     probe change says the heap is no longer measured, and why.
. tests/e2e/lib.sh
need_ebpf

# rec NAME OPTIONS... -- COMMAND...: record into $TMP/NAME.ptop
rec() {
	local n=$1
	shift
	"$REC" --quiet --heap-sample-bytes 0 -o "$TMP/$n.ptop" "$@" >/dev/null
}
# fn CAPTURE FUNC FIELD: FIELD of FUNC's rows in report heap --by count (JSON sites, by function)
fn() {
	"$ANA" report heap --by count --top 100 --format json "$1" >"$TMP/fn.json"
	jget "$TMP/fn.json" "sum(f['$3'] or 0 for f in j['sites'] if f['func'] == '$2')"
}

# ---- static
exe=$(readlink -f "$FIX/heap_static")
rec static --enable heap -- sh -c 'exec "$0"' "$exe"
C=$TMP/static.ptop
assert_eq "static: the header's heap lane" "active/preload" \
	"$(q "$C" "select state || '/' || source from probe where name = 'heap'")"
assert_eq "static: the header says execs are followed" 1 \
	"$(q "$C" "select detail like '%execs followed at once%' from probe where name = 'heap'")"
assert_eq "static: one probe change" 1 "$(q "$C" "select count(*) from probe_change")"
assert_eq "static: the change" "heap|active|ebpf|exec $exe" \
	"$(q "$C" "select name || '|' || state || '|' || source || '|' || cause from probe_change")"
assert_eq "static: it names the module and the hand-over" 1 \
	"$(q "$C" "select detail like 'lane uprobe, not preload (% is static%$exe: malloc+%' from probe_change")"
assert_eq "static: lanes in order" "preload uprobe" \
	"$(q "$C" "select group_concat(lane, ' ') from (select distinct lane from heap_snapshot order by seq)")"
assert_eq "static: the uprobe lane's module" "$exe" \
	"$(q "$C" "select module from heap_snapshot where lane = 'uprobe' limit 1")"
assert_eq "static: no snapshot before the change has the uprobe lane" 0 \
	"$(q "$C" "select count(*) from heap_snapshot where lane = 'uprobe' and time_ns < (select time_ns from probe_change)")"
assert_eq "static grow: reallocs" 17 "$(fn "$C" grow alloc_count)"
assert_eq "static grow: bytes" 2097136 "$(fn "$C" grow alloc_bytes)"
assert_eq "static zeroed: callocs" 100 "$(fn "$C" zeroed alloc_count)"
assert_eq "static zeroed: live at the end" 102400 "$(fn "$C" zeroed live_bytes)"
assert_eq "static aligned: allocations" 30 "$(fn "$C" aligned alloc_count)"
assert_eq "static aligned: live at the end" 84480 "$(fn "$C" aligned live_bytes)"
assert_eq "static: the detail says how execs are followed (not cut)" 1 \
	"$(q "$C" "select detail like '%; execs followed at once (%)' from probe_change")"
"$ANA" info "$C" >"$TMP/info.txt"
has "exec $exe" <"$TMP/info.txt" || fail "info does not list the probe change"
"$ANA" report heap "$C" >"$TMP/heap.txt"
has "lanes: preload (.*) .*, then uprobe ($exe) " <"$TMP/heap.txt" ||
	fail "report heap does not name both lanes: $(head -1 "$TMP/heap.txt")"
"$ANA" report heap --format json "$C" >"$TMP/heap.json"
assert_eq "static: report heap's JSON lanes" "preload uprobe" \
	"$(jget "$TMP/heap.json" "' '.join(l['lane'] for l in j['lanes'])")"

# ---- dynamic: the library follows
rec dynamic --enable heap -- sh -c 'exec "$0"' "$FIX/heap_leak"
C=$TMP/dynamic.ptop
assert_eq "dynamic: no probe change" 0 "$(q "$C" "select count(*) from probe_change")"
assert_eq "dynamic: one lane" preload "$(q "$C" "select group_concat(distinct lane) from heap_snapshot")"
assert_eq "dynamic: leak_pages live" 4096000 "$(fn "$C" leak_pages live_bytes)"
assert_eq "dynamic: churn allocations" 1000000 "$(fn "$C" churn alloc_count)"

# ---- go
if command -v go >/dev/null; then
	N=100000
	mkdir -p "$TMP/go"
	cp tests/fixtures/go/alloc.go "$TMP/go/"
	(cd "$TMP/go" && GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GO111MODULE=off GOPROXY=off \
		go build -ldflags='-s -w' -o alloc alloc.go)
	rec go --enable goalloc -- sh -c 'exec "$0" "$1"' "$TMP/go/alloc" $N
	C=$TMP/go.ptop
	assert_eq "go: goalloc in the header" unsupported \
		"$(q "$C" "select state from probe where name = 'goalloc'")"
	assert_eq "go: goalloc starts at the exec" "active|exec $TMP/go/alloc" \
		"$(q "$C" "select state || '|' || cause from probe_change where name = 'goalloc'")"
	assert_eq "go: main.allocHot allocations" $N "$(fn "$C" main.allocHot alloc_count)"
else
	echo "note: no 'go' command (Debian package golang-go): the Go part is not run"
fi

# ---- --no-ebpf: seen from /proc, and said
rec noebpf --no-ebpf --enable heap -- sh -c 'sleep 0.3; exec "$0"' "$exe"
C=$TMP/noebpf.ptop
assert_eq "no-ebpf: the header says how execs are seen" 1 \
	"$(q "$C" "select detail like '%execs seen each interval from /proc/%' from probe where name = 'heap'")"
assert_eq "no-ebpf: the change" "heap|unsupported|exec $exe" \
	"$(q "$C" "select name || '|' || state || '|' || cause from probe_change")"
assert_eq "no-ebpf: the reason names the program and --no-ebpf" 1 \
	"$(q "$C" "select reason like '%is static%--no-ebpf%' from probe_change")"
assert_eq "no-ebpf: only the preload lane's snapshots" preload \
	"$(q "$C" "select group_concat(distinct lane) from heap_snapshot")"
