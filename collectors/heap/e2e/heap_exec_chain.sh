# A chain of execs that keep the same allocator module (a shell script that execs itself,
# then a dynamic program, all on the same libc) is followed by the heap's uprobe lane
# without loading or attaching anything again: the probes stay, the maps are emptied
# at each exec (ptop-record(1), FOLLOWING EXEC). What must hold: the last program's
# figures are exactly those of the same program recorded on its own (nothing of the
# shells before it is left in its live set or its sites), and no probe change is
# written after the first exec (the module did not change).
. tests/e2e/lib.sh
need_ebpf

cat >"$TMP/chain.sh" <<'SH'
#!/bin/sh
# chain.sh N PROG: exec itself N times, then PROG
[ "$1" -gt 0 ] && exec "$0" $(($1 - 1)) "$2"
exec "$2"
SH
chmod +x "$TMP/chain.sh"
exe=$(readlink -f "$FIX/heap_kinds")

# fn CAPTURE FUNC FIELD: FIELD of FUNC's rows in report heap --by count
fn() {
	"$ANA" report heap --by count --top 100 --format json "$1" >"$TMP/fn.json"
	jget "$TMP/fn.json" "sum(f['$3'] or 0 for f in j['sites'] if f['func'] == '$2')"
}
# last CAPTURE FIELD: FIELD of the last heap snapshot
last() { q "$1" "select $2 from heap_snapshot order by seq desc limit 1"; }

"$REC" --quiet --heap-sample-bytes 0 --heap-lane uprobe --enable heap -o "$TMP/alone.ptop" \
	-- "$exe" >/dev/null
"$REC" --quiet --verbose --heap-sample-bytes 0 --heap-lane uprobe --enable heap -o "$TMP/chain.ptop" \
	-- "$TMP/chain.sh" 6 "$exe" >/dev/null 2>"$TMP/chain.err"
A=$TMP/alone.ptop C=$TMP/chain.ptop

assert_eq "the chain: seven execs followed" 7 "$(grep -c "the target exec'd" "$TMP/chain.err")"
assert_eq "the uprobe lane starts at the first exec (the script is not ELF), then never changes" \
	"heap|active|ebpf" \
	"$(q "$C" "select group_concat(name || '|' || state || '|' || source) from probe_change")"
assert_eq "one module throughout" 1 "$(q "$C" "select count(distinct module) from heap_snapshot")"
for f in grow:alloc_count grow:alloc_bytes zeroed:alloc_count zeroed:live_bytes \
	aligned:alloc_count aligned:live_bytes; do
	assert_eq "heap_kinds ${f%%:*} ${f#*:}: as recorded alone" "$(fn "$A" "${f%%:*}" "${f#*:}")" \
		"$(fn "$C" "${f%%:*}" "${f#*:}")"
done
assert_eq "grow: reallocs" 17 "$(fn "$C" grow alloc_count)"
# the live set at the end is heap_kinds' alone: the shells' allocations were emptied
for f in live_bytes live_count; do
	assert_eq "last snapshot's $f: as recorded alone" "$(last "$A" $f)" "$(last "$C" $f)"
done

# the preload lane (auto: the script's interpreter, /bin/sh, is dynamic) loads again in
# each program of the chain: the last one's figures are its own, as recorded alone
"$REC" --quiet --verbose --heap-sample-bytes 0 --enable heap -o "$TMP/pre.ptop" \
	-- "$TMP/chain.sh" 6 "$exe" >/dev/null 2>"$TMP/pre.err"
P=$TMP/pre.ptop
assert_eq "preload: seven execs followed" 7 "$(grep -c "the target exec'd" "$TMP/pre.err")"
assert_eq "preload from the start, no change" "preload|0" \
	"$(q "$P" "select (select distinct lane from heap_snapshot) || '|' || (select count(*) from probe_change)")"
for f in grow:alloc_count zeroed:alloc_count aligned:alloc_count aligned:live_bytes; do
	assert_eq "preload: heap_kinds ${f%%:*} ${f#*:}: as recorded alone" \
		"$(fn "$A" "${f%%:*}" "${f#*:}")" "$(fn "$P" "${f%%:*}" "${f#*:}")"
done
