# The preload lane's cache of unwinding rules when a module is unloaded and another
# loaded at its addresses (tests/fixtures/heap_dlreload: libhdl_a.so, dlclose, then
# libhdl_b.so, the same code with frames of another size), every allocation's stack:
# both modules' allocations (100 each, 201 and 202 bytes) have stacks through the
# fixture's round_of and main. (With the rules of libhdl_a.so kept for libhdl_b.so's pcs,
# the walk reads libhdl_b.so's frame in the wrong slots.) When the second module did not
# land where the first was, that case is not tried, and the test says so.
. tests/e2e/lib.sh
[ -e "$B/libptop-preload.so" ] || missing "$B/libptop-preload.so is not built (make programs)"
need_fixture heap_dlreload
[ -e "$FIX/libhdl_a.so" ] && [ -e "$FIX/libhdl_b.so" ] ||
	missing "$FIX/libhdl_a.so or libhdl_b.so is not built (make tests-build)"

C=$TMP/dl.ptop
"$REC" --quiet --no-ebpf --enable heap --heap-lane preload --heap-sample-bytes 0 \
	--interval 100ms -o "$C" -- "$FIX/heap_dlreload" > "$TMP/out.txt" ||
	fail "ptop-record or heap_dlreload failed"
out=$(cat "$TMP/out.txt")
exe=$(readlink -f "$FIX/heap_dlreload")
base=$(q "$C" "select min(start - offset) from mapping where path = '$exe'")
[ -n "$base" ] || fail "no mapping of $exe in the capture"
range() {
	local a n
	read -r a n < <(nm -S "$FIX/heap_dlreload" | awk -v f="$1" '$4 == f { print $1, $2 }')
	[ -n "$n" ] || fail "no symbol $1 in $FIX/heap_dlreload"
	echo $((16#$a)) $((16#$a + 16#$n))
}
sites() {
	echo "select stack_id from heap_site group by stack_id
		having sum(alloc_bytes) = $1 * sum(alloc_count)"
}
for size in 201 202; do
	assert_eq "allocations of $size bytes" 100 "$(q "$C" "select coalesce(sum(alloc_count), 0)
		from heap_site where stack_id in ($(sites $size))")"
	for fn in round_of main; do
		read -r lo hi < <(range $fn)
		assert_eq "$size-byte stacks through $fn" 1 "$(q "$C" "select count(distinct stack_id)
			from stack_frame where stack_id in ($(sites $size)) and depth > 0
			and ip - $base > $lo and ip - $base <= $hi")"
	done
done
case $out in
"same address") echo "ok: libhdl_b.so was loaded where libhdl_a.so was" ;;
*) echo "note: libhdl_b.so was loaded elsewhere ($out): the stale-rule case was not tried" ;;
esac
