# The preload lane's stacks through code built without frame pointers, unwound in the
# process from .eh_frame (preload/ptop_unwind.h), recorded with --no-ebpf:
#   heap_nofp (-O2 -fomit-frame-pointer) at --heap-sample-bytes 0: the allocations of
#     stage_c have one stack, main -> stage_a -> stage_b -> stage_c, down to _start,
#     with exactly 3,000 allocations and 1,000 blocks (64,000 bytes) live at the end;
#     report heap names stage_c first by live bytes.
#   Debian's python3.11 and sqlite3 (no frame pointers), when installed: the top heap
#     stacks by bytes reach the program's _start (through main), the first through the
#     eval loop (_PyEval_EvalFrameDefault) or sqlite3's API.
. tests/e2e/lib.sh
[ -e "$B/libptop-preload.so" ] || missing "$B/libptop-preload.so is not built (make programs)"
need_fixture heap_nofp

# where FUNCTION: "lo hi" of FUNCTION's code in heap_nofp, as offsets from the load base
range() {
	local a n
	read -r a n < <(nm -S "$FIX/heap_nofp" | awk -v f="$1" '$4 == f { print $1, $2 }')
	[ -n "$n" ] || fail "no symbol $1 in $FIX/heap_nofp"
	echo $((16#$a)) $((16#$a + 16#$n))
}

# ---- heap_nofp, every allocation
C=$TMP/nofp.ptop
"$REC" --quiet --no-ebpf --enable heap --heap-lane preload --heap-sample-bytes 0 -o "$C" \
	-- "$FIX/heap_nofp" >/dev/null
exe=$(readlink -f "$FIX/heap_nofp")
base=$(q "$C" "select min(start - offset) from mapping where path = '$exe'")
[ -n "$base" ] || fail "no mapping of $exe in the capture"
# the stacks whose frames 1..4 are return addresses in stage_c, stage_b, stage_a, main
cond=""
d=1
for fn in stage_c stage_b stage_a main; do
	read -r lo hi < <(range $fn)
	cond="$cond and exists (select 1 from stack_frame f where f.cap = h.cap
		and f.stack_id = h.stack_id and f.depth = $d
		and f.ip - $base > $lo and f.ip - $base <= $hi)"
	d=$((d + 1))
done
assert_eq "stage_c's stacks" 1 "$(q "$C" "select count(distinct stack_id) from heap_site h
	where 1 $cond")"
assert_eq "main -> stage_a -> stage_b -> stage_c: allocations" 3000 \
	"$(q "$C" "select sum(alloc_count) from heap_site h where 1 $cond")"
assert_eq "main -> stage_a -> stage_b -> stage_c: frees" 2000 \
	"$(q "$C" "select sum(freed_count) from heap_site h where 1 $cond")"
assert_eq "main -> stage_a -> stage_b -> stage_c: live bytes at the end" 64000 \
	"$(q "$C" "select sum(live_bytes) from heap_site h where 1 $cond
		and h.seq = (select max(seq) from heap_snapshot)")"
# below main: libc's start, then _start (the outermost frame: its return address is
# undefined in .eh_frame, where the walk ends)
read -r lo hi < <(range _start)
assert_eq "the outermost frame is _start" 1 "$(q "$C" "select count(distinct h.stack_id) from heap_site h
	join stack_frame f on f.cap = h.cap and f.stack_id = h.stack_id
	where f.depth = (select max(depth) from stack_frame g where g.cap = h.cap
		and g.stack_id = h.stack_id) and f.ip - $base > $lo and f.ip - $base <= $hi $cond")"
"$ANA" report heap --by live --format json "$C" > "$TMP/live.json"
assert_eq "first by live" stage_c "$(jget "$TMP/live.json" "j['sites'][0]['func']")"
assert_eq "stage_c live bytes" 64000 "$(jget "$TMP/live.json" "j['sites'][0]['live_bytes']")"
assert_eq "stage_c allocations" 3000 "$(jget "$TMP/live.json" "j['sites'][0]['alloc_count']")"

# ---- distribution binaries without frame pointers
# top CAPTURE N: the names of the frames of the N stacks allocating most bytes, one stack
# a line (symbolized first)
top() {
	"$ANA" symbolize "$1" >/dev/null 2>&1
	local s
	for s in $(q "$1" "select stack_id from heap_site group by stack_id
			order by sum(alloc_bytes) desc limit $2"); do
		q "$1" "select group_concat(coalesce(sf.func, '?'), ' ') from (select * from
			frame_module f where f.stack_id = $s order by f.depth) f left join symbol_frame sf
			on sf.space = f.sym_space and sf.key = f.sym_key and sf.addr = f.sym_addr
			and sf.inlined = 0"
	done
}
# reach CAPTURE EXE N THROUGH: each of the top N stacks ends in EXE's _start (its entry
# point: the return address of its call of __libc_start_main), the first through THROUGH
# (a regular expression on the names)
reach() {
	local c=$1 exe=$2 line n=0 s entry base
	# the entry as an offset from the load base (the first PT_LOAD's address - offset)
	entry=$(readelf -h "$exe" | awk '/Entry point address/ { print $4 }')
	entry=$((entry - $(readelf -lW "$exe" | awk '$1 == "LOAD" { print $3 " - " $2; exit }')))
	base=$(q "$c" "select min(start - offset) from mapping where path = '$(readlink -f "$exe")'")
	[ -n "$base" ] || fail "$(basename "$c"): no mapping of $exe"
	top "$c" "$3" > "$TMP/top.txt"
	cat "$TMP/top.txt"
	for s in $(q "$c" "select stack_id from heap_site group by stack_id
			order by sum(alloc_bytes) desc limit $3"); do
		n=$((n + 1))
		assert_eq "$(basename "$c"): stack $n ends in _start" 1 "$(q "$c" "select count(*)
			from stack_frame f where f.stack_id = $s and f.depth = (select max(depth)
			from stack_frame g where g.stack_id = $s) and f.ip - $base > $((entry))
			and f.ip - $base < $((entry)) + 64")"
	done
	assert_eq "$(basename "$c"): top stacks" "$3" "$n"
	head -1 "$TMP/top.txt" | has -E "$4" || fail "$(basename "$c"): the top stack is not through $4"
}
if [ -x /usr/bin/python3.11 ] && ! [ -L /usr/bin/python3.11 ]; then
	"$REC" --quiet --no-ebpf --enable heap --heap-lane preload --heap-sample-bytes 65536 \
		-o "$TMP/py.ptop" -- /usr/bin/python3.11 -c '
for k in range(20):
    d = [{i: str(i)} for i in range(20000)]' >/dev/null
	reach "$TMP/py.ptop" /usr/bin/python3.11 3 '_PyEval_EvalFrameDefault'
else
	echo "note: no /usr/bin/python3.11 (package python3.11-minimal): not tried"
fi
if [ -x /usr/bin/sqlite3 ]; then
	python3 -c '
print("begin; create table t(a integer, b text);")
for i in range(100000):
    print("insert into t values (%d, %r);" % (i, "x" * (i % 50)))
print("commit; select count(*) from t;")' > "$TMP/ins.sql"
	"$REC" --quiet --no-ebpf --enable heap --heap-lane preload --heap-sample-bytes 65536 \
		-o "$TMP/sq.ptop" -- /usr/bin/sqlite3 :memory: ".read $TMP/ins.sql" >/dev/null
	reach "$TMP/sq.ptop" /usr/bin/sqlite3 3 'sqlite3_'
else
	echo "note: no /usr/bin/sqlite3 (package sqlite3): not tried"
fi
