# The preload lane's whole stacks on distribution binaries built without frame pointers,
# against heaptrack on the same workload (--no-ebpf, every allocation's stack):
#   Debian's sqlite3 inserting 20,000 rows in one transaction, and Debian's python3
#   building dicts. Each is run twice, once recorded by ptop-record --heap-lane preload
#   --heap-sample-bytes 0, once by heaptrack; heaptrack_print's stacks (-F, by number of
#   allocations) and ptop's are reduced to the names both tools take from the program's
#   own modules (their exported functions, .dynsym), leaf first, the first 12 of them
#   (heaptrack keeps 64 frames of a stack, ptop 127: python's imports go deeper). Then:
#   - the 5 stacks of each tool with the most allocations are stacks of the other, with
#     the same number of allocations within 1% (heaptrack's run is another run: startup
#     may differ by a few);
#   - ptop's top 5 stacks reach the program's entry (_start, below main), and the
#     first names an API function heaptrack names too (sqlite3_prepare_v2 / sqlite3_exec
#     style chains; python's eval loop).
# Skips, saying why, when heaptrack is not installed, or neither sqlite3 nor python3.
. tests/e2e/lib.sh
[ -e "$B/libptop-preload.so" ] || missing "$B/libptop-preload.so is not built (make programs)"
command -v heaptrack >/dev/null 2>&1 && command -v heaptrack_print >/dev/null 2>&1 ||
	skip "heaptrack is not installed (apt-get install heaptrack; make deps does)"
PY=$(readlink -f /usr/bin/python3 2>/dev/null || true)
[ -x /usr/bin/sqlite3 ] || [ -x "$PY" ] ||
	skip "neither Debian's sqlite3 nor python3 is installed (apt-get install sqlite3 python3)"

# names MODULE...: the functions the modules export, one a line
names() { nm -D --defined-only "$@" 2>/dev/null | awk '$2 ~ /^[TtWi]$/ { print $3 }' | sort -u; }

# compare NAME EXE THROUGH CMD...: record CMD with both tools and compare
compare() {
	local name=$1 exe=$2 through=$3 c ht entry base n=0 s
	shift 3
	c=$TMP/$name.ptop
	# (--heap-top: every site in every interval, not only the top ones)
	"$REC" --quiet --no-ebpf --enable heap --heap-lane preload --heap-sample-bytes 0 \
		--heap-top 100000 --interval 100ms -o "$c" -- "$@" > "$TMP/$name.out" || fail "$name: ptop-record failed"
	( cd "$TMP" && heaptrack -o "$TMP/$name.ht" "$@" ) > "$TMP/$name.ht.out" 2>&1 ||
		fail "$name: heaptrack failed: $(tail -3 "$TMP/$name.ht.out")"
	heaptrack_print -f "$TMP/$name.ht.zst" --flamegraph-cost-type allocations \
		-F "$TMP/$name.folded" > /dev/null 2>&1 || fail "$name: heaptrack_print failed"
	"$ANA" symbolize "$c" > /dev/null 2>&1
	# the program's modules (the executable and the libraries of its own it maps)
	mods=$(q "$c" "select distinct path from mapping where path like '/%'" |
		grep -v -e '/libc\.so' -e '/ld-linux' -e 'libptop-preload' -e '/libm\.so' \
			-e '/libz\.so' -e '/libreadline' -e '/libtinfo' -e '/libexpat' || true)
	# shellcheck disable=SC2086
	names $mods > "$TMP/$name.names"
	[ -s "$TMP/$name.names" ] || fail "$name: no exported function in $mods"
	"$ANA" sql --format csv "$c" "select f.stack_id, f.depth, coalesce(sf.func, '?')
		from frame_module f left join symbol_frame sf on sf.space = f.sym_space
		and sf.key = f.sym_key and sf.addr = f.sym_addr and sf.inlined = 0
		where f.depth > 0 order by f.stack_id, f.depth" > "$TMP/$name.frames"
	"$ANA" sql --format csv "$c" "select stack_id, sum(alloc_count) from heap_site
		where stack_id is not null group by stack_id" > "$TMP/$name.counts"
	python3 - "$TMP/$name" <<'EOF' > "$TMP/$name.cmp" || fail "$name: $(cat "$TMP/$name.cmp")"
import csv, re, sys
p = sys.argv[1]
names = set(open(p + ".names").read().split())
frames = {}
for r in list(csv.reader(open(p + ".frames")))[1:]:
    frames.setdefault(int(r[0]), []).append(r[2])
ptop, ptop_ids = {}, {}
for r in list(csv.reader(open(p + ".counts")))[1:]:
    key = tuple(f for f in frames.get(int(r[0]), []) if f in names)[:12]
    ptop[key] = ptop.get(key, 0) + int(r[1])
    ptop_ids.setdefault(key, []).append(r[0])
ht = {}
for line in open(p + ".folded"):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    fr = [re.sub(r" \([^)]*\)$", "", f) for f in stack.split(";") if f]
    key = tuple(f for f in reversed(fr) if f in names)[:12]
    ht[key] = ht.get(key, 0) + int(count)
def top(d):
    return sorted((k for k in d if k), key=lambda k: -d[k])[:5]
bad = 0
for title, mine, other, oname in (("ptop", ptop, ht, "heaptrack"), ("heaptrack", ht, ptop, "ptop")):
    print("%s's top 5 stacks (exported names, leaf first): %s / %s" % (title, title, oname))
    for k in top(mine):
        o = other.get(k)
        ok = o is not None and abs(o - mine[k]) <= max(2, mine[k] // 100)
        bad += not ok
        print("  %s %9d / %9s  %s" % ("ok  " if ok else "FAIL", mine[k], o, " <- ".join(k)))
for k in top(ptop):
    print("ids", ",".join(ptop_ids[k]), " <- ".join(k))
sys.exit(1 if bad else 0)
EOF
	grep -v '^ids ' "$TMP/$name.cmp"
	# ptop's top stacks end in the program's _start (the return address of its call of
	# __libc_start_main), the first through THROUGH
	entry=$(readelf -h "$exe" | awk '/Entry point address/ { print $4 }')
	entry=$((entry - $(readelf -lW "$exe" | awk '$1 == "LOAD" { print $3 " - " $2; exit }')))
	base=$(q "$c" "select min(start - offset) from mapping where path = '$exe'")
	[ -n "$base" ] || fail "$name: no mapping of $exe in the capture"
	for s in $(sed -n 's/^ids \([0-9,]*\) .*/\1/p' "$TMP/$name.cmp"); do
		n=$((n + 1))
		assert_eq "$name: top stack $n ends in _start (all of its $(tr -cd , <<<"$s," | wc -c) stacks)" \
			0 "$(q "$c" "select count(*) from stack f where f.stack_id in ($s) and not exists
			(select 1 from stack_frame g where g.stack_id = f.stack_id and g.depth =
			(select max(depth) from stack_frame h where h.stack_id = f.stack_id)
			and g.ip - $base > $((entry)) and g.ip - $base < $((entry)) + 64)")"
	done
	assert_eq "$name: top stacks checked" 5 "$n"
	grep -m1 '^ids ' "$TMP/$name.cmp" | has -E "$through" ||
		fail "$name: the top stack is not through $through"
	echo "ok: $name: the top stack is through $through"
}

if [ -x /usr/bin/sqlite3 ]; then
	python3 -c '
print("begin; create table t(a integer, b text);")
for i in range(20000):
    print("insert into t values (%d, %r);" % (i, "x" * (i % 50)))
print("commit; select count(*) from t;")' > "$TMP/ins.sql"
	compare sqlite3 "$(readlink -f /usr/bin/sqlite3)" 'sqlite3_(prepare|exec|step)' \
		/usr/bin/sqlite3 :memory: ".read $TMP/ins.sql"
	assert_eq "sqlite3's rows" 20000 "$(tail -1 "$TMP/sqlite3.out")"
else
	echo "note: no /usr/bin/sqlite3 (package sqlite3): not compared"
fi
if [ -x "$PY" ]; then
	# (the same hash seed in both runs: the same dict sizes, the same allocations)
	export PYTHONHASHSEED=0
	compare python3 "$PY" '_PyEval_EvalFrameDefault' "$PY" -c '
for k in range(20):
    d = [{i: str(i)} for i in range(20000)]'
else
	echo "note: no /usr/bin/python3 (package python3): not compared"
fi
