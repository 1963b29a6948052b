# ptop's own code in the target is probe overhead, not the target's (DESIGN.md principle 9):
# heap_leak's 1,000,000 malloc+free pairs recorded by the heap preload lane with every
# allocation's stack (--heap-sample-bytes 0) put much of its CPU time in libptop-preload.so.
# Those samples (innermost user frame in the library) are on report cpu's probe overhead
# line (JSON probe_overhead), out of its samples and tables, of every cpu.share figure (so
# diff never compares them) and of the folded export.
. tests/e2e/lib.sh
need_ebpf
need_fixture heap_leak
[ -e "$B/libptop-preload.so" ] || missing "$B/libptop-preload.so is not built (make programs)"
"$REC" --quiet --enable heap --heap-lane preload --heap-sample-bytes 0 -o "$TMP/run.ptop" \
	-- "$FIX/heap_leak" >/dev/null
assert_eq "heap probe" "active/preload" \
	"$(q "$TMP/run.ptop" "select state || '/' || source from probe where name = 'heap'")"
"$ANA" report cpu --format json "$TMP/run.ptop" >"$TMP/cpu.json"
assert_eq "profile collected" True "$(jget "$TMP/cpu.json" "j['profile']['collected']")"
over=$(jget "$TMP/cpu.json" "j['profile']['probe_overhead']['samples']")
assert_ge "probe overhead samples" 1 "$over"
assert_eq "probe overhead module" libptop-preload.so \
	"$(jget "$TMP/cpu.json" "j['profile']['probe_overhead']['module']")"
assert_eq "no function of the library by self" 0 \
	"$(jget "$TMP/cpu.json" "sum(1 for f in j['profile']['top_self'] if f['self'] and (f['module'] or '').endswith('/libptop-preload.so'))")"
"$ANA" report cpu "$TMP/run.ptop" >"$TMP/cpu.txt"
has "^probe overhead: $over samples (" <"$TMP/cpu.txt" || fail "no probe overhead line: $(cat "$TMP/cpu.txt")"
# the library's functions (on_alloc, pl_unwind, ...; not the names libc has too: malloc,
# free), as the report named its frames
lib=$(q "$TMP/run.ptop" "select group_concat(func, ' ') from (select distinct f.func from frame_module m
	join symbol_frame f on f.space = m.sym_space and f.key = m.sym_key and f.addr = m.sym_addr
	where m.module like '%/libptop-preload.so' except select distinct f.func from frame_module m
	join symbol_frame f on f.space = m.sym_space and f.key = m.sym_key and f.addr = m.sym_addr
	where m.module not like '%/libptop-preload.so')")
[ -n "$lib" ] || fail "no named frame of libptop-preload.so in the stacks: the premise"
echo "the library's functions in the stacks: $lib"
"$ANA" figures --format json "$TMP/run.ptop" >"$TMP/fig.json"
assert_eq "cpu figures of the library's functions" "" \
	"$(jget "$TMP/fig.json" "' '.join(f['figure'] for f in j['figures'] if f['figure'].startswith('cpu.') and f['figure'].split('(')[-1].rstrip(')') in '$lib'.split())")"
"$ANA" export --format folded -o "$TMP/run.folded" "$TMP/run.ptop"
# a folded line is the target's when its innermost frame is not the library's
assert_eq "folded lines with the library innermost" 0 \
	"$(awk -v lib=" $lib " '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";");
		if (index(lib, " " f[n] " ") || f[n] ~ /libptop-preload/) c++ } END { print c + 0 }' \
		"$TMP/run.folded")"
