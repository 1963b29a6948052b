# golden: the analyzer's answers over fixed captures, byte for byte. tests/golden/gen.c
# writes five synthetic captures (tests/golden/README); every command of ptop-analyze
# that reads a capture runs over them (info, every report in text, JSON and CSV with its
# options, export folded and pprof, replay --dump of every tab, symbolize, salvage, and
# every table of the DB `load` writes), and each answer (stdout, then stderr and the exit
# status) must equal its file under tests/golden/expected/. A difference is printed as a
# unified diff per file, and the files that differ are listed last.
#
# PTOP_GOLDEN_UPDATE=1 (or tests/golden/update.sh) rewrites tests/golden/expected/ from
# this build instead: for a change of output that is meant; review `git diff` then.
#
# Machine-independence: the captures name no file of any machine (paths under
# /opt/ptop-golden, build-ids no module has), their boot id is no machine's (kernel frames
# stay unnamed), the cache is private (XDG_CACHE_HOME, lib.sh), TZ=UTC, LC_ALL=C.UTF-8,
# COLUMNS unset, and the one path an answer holds, the scratch folder, is written @TMP@.
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
GOLD=$ROOT/tests/golden
BABS=$(cd "$B" && pwd)
ANA_ABS=$BABS/ptop-analyze
[ -x "$ANA_ABS" ] || missing "$ANA_ABS is not built (make programs)"
[ -f "$BABS/libptop-proto.a" ] || missing "$BABS/libptop-proto.a is not built (make programs)"
command -v python3 >/dev/null || fail "python3 is missing (it prints pprof and the DB as text)"

export TZ=UTC LC_ALL=C.UTF-8
unset COLUMNS NO_COLOR DEBUGINFOD_URLS PTOP_CACHE_MAX

# The generator, linked with this build's capture writer.
cc -O1 -g -std=gnu11 -Wall -Wextra -Werror -Wno-missing-field-initializers -D_GNU_SOURCE \
	-I"$ROOT" -I"$BABS" $(pkg-config --cflags libzstd libprotobuf-c) -o "$TMP/gen" \
	"$GOLD/gen.c" "$BABS/libptop-proto.a" $(pkg-config --libs libzstd libprotobuf-c) ||
	fail "cannot build tests/golden/gen.c"
CAP=$TMP/cap
OUT=$TMP/out
mkdir -p "$CAP" "$OUT"
"$TMP/gen" "$CAP" || fail "gen failed"

tmp_re=$(printf '%s' "$TMP" | sed 's/[][\.*^$/]/\\&/g')
# normalize <FILE: the scratch folder's path becomes @TMP@
normalize() { sed "s/$tmp_re/@TMP@/g"; }

# save NAME OUT_FILE ERR_FILE RC WHAT: one answer, as the golden file NAME holds it
save() {
	local name=$1 o=$2 e=$3 rc=$4 what=$5
	mkdir -p "$(dirname "$OUT/$name")"
	{
		printf '$ %s\n' "$what"
		cat "$o"
		[ -n "$(tail -c1 "$o")" ] && printf '\n[no newline at the end]\n'
		if [ -s "$e" ]; then
			echo "--- stderr"
			cat "$e"
		fi
		echo "--- exit $rc"
	} | normalize >"$OUT/$name"
}

# run NAME ARGS...: ptop-analyze ARGS in the captures' folder, into the golden file NAME
run() {
	local name=$1 rc=0
	shift
	(cd "$CAP" && "$ANA_ABS" "$@") >"$TMP/o" 2>"$TMP/e" || rc=$?
	save "$name" "$TMP/o" "$TMP/e" "$rc" "ptop-analyze $*"
}

# pprof NAME ARGS...: export --format pprof ARGS -o FILE, the profile printed as text
pprof() {
	local name=$1 rc=0
	shift
	rm -f "$TMP/p.pb.gz"
	(cd "$CAP" && "$ANA_ABS" export --format pprof -o "$TMP/p.pb.gz" "$@") >"$TMP/o" 2>"$TMP/e" ||
		rc=$?
	if [ -f "$TMP/p.pb.gz" ]; then
		python3 "$GOLD/pb_text.py" "$TMP/p.pb.gz" >>"$TMP/o" ||
			echo "pb_text.py failed" >>"$TMP/e"
	fi
	save "$name" "$TMP/o" "$TMP/e" "$rc" "ptop-analyze export --format pprof -o OUT $*"
}

# tables NAME DB: every table of DB (tests/golden/db_text.py)
tables() {
	local name=$1 db=$2 rc=0
	python3 "$GOLD/db_text.py" "$db" >"$TMP/o" 2>"$TMP/e" || rc=$?
	save "$name" "$TMP/o" "$TMP/e" "$rc" "db_text.py DB (every table, rows in order)"
}

REPORTS="syscalls cpu mem vma heap leaks cgroup apps net io fds threads signals tree locks tls security events"
TABS="overview syscalls network threads io fds timeline memory heap"

for c in full truncated noheap noebpf cgroup; do
	f=$c.ptop
	rc=0
	(cd "$CAP" && "$ANA_ABS" load --db "$TMP/$c.db" "$f") >"$TMP/o" 2>"$TMP/e" || rc=$?
	save "$c/load.txt" "$TMP/o" "$TMP/e" "$rc" "ptop-analyze load --db DB $f"
	tables "$c/tables.txt" "$TMP/$c.db"
	run "$c/info.txt" info "$f"
	run "$c/info.json" info --format json "$f"
	for k in $REPORTS; do
		run "$c/report-$k.txt" report "$k" "$f"
		run "$c/report-$k.json" report "$k" --format json "$f"
		run "$c/report-$k.csv" report "$k" --format csv "$f"
	done
	run "$c/export-folded.txt" export --format folded "$f"
	pprof "$c/export-pprof.txt" "$f"
	for tab in $TABS; do
		run "$c/replay-$tab.txt" replay --dump --at 2.5 --tab "$tab" "$f"
	done
	run "$c/symbolize.txt" symbolize "$f"
	run "$c/symbolize.json" symbolize --format json "$f"
	# the DB written by load answers as the capture does
	run "$c/info-db.txt" info "$TMP/$c.db"
done

# The options, over the capture that has everything.
f=full.ptop
printf 'leak:libplug.so\n' >"$CAP/supp.txt"
run full/opt/syscalls-sort-total.txt report syscalls --sort total --top 3 $f
run full/opt/syscalls-window.json report syscalls --window 2..4 --format json $f
run full/opt/syscalls-window.txt report syscalls --window 1500ms..3s $f
run full/opt/cpu-window-top.txt report cpu --window 1..3 --top 5 $f
run full/opt/cpu-pid.txt report cpu --pid 4321 $f
run full/opt/cpu-window.csv report cpu --window 2.. --format csv $f
run full/opt/mem-window.txt report mem --window 2.. $f
run full/opt/mem-window.json report mem --window ..3 --format json $f
run full/opt/vma-growth.txt report vma --growth $f
run full/opt/vma-growth.json report vma --growth --format json $f
run full/opt/vma-growth.csv report vma --growth --format csv $f
run full/opt/vma-mapping-heap.txt report vma --mapping '[heap]' $f
run full/opt/vma-mapping-libc.json report vma --mapping /opt/ptop-golden/lib/libc.so.6 \
	--format json $f
run full/opt/vma-window.txt report vma --window ..2 $f
run full/opt/heap-by-count.txt report heap --by count $f
run full/opt/heap-by-bytes-top.json report heap --by bytes --top 2 --format json $f
run full/opt/heap-window.txt report heap --window 1..3 $f
run full/opt/leaks-top.txt report leaks --top 1 $f
run full/opt/leaks-suppressions.txt report leaks --suppressions supp.txt $f
run full/opt/leaks-suppressions.json report leaks --suppressions supp.txt --format json $f
run full/opt/apps-by-uss.txt report apps --by uss $f
run full/opt/folded-window.txt export --format folded --window 1..3 $f
run full/opt/folded-pid.txt export --format folded --pid 4321 $f
run full/opt/replay-at-0.txt replay --dump --at 0 $f
run full/opt/replay-end-memory.txt replay --dump --at 99m --tab memory $f
run full/opt/replay-end-heap.txt replay --dump --at 99m --tab 9 --size 120x40 $f
run full/opt/replay-small.txt replay --dump --at 00:03 --size 80x24 $f
run full/opt/replay-syscalls-4s.txt replay --dump --at 4s --tab 2 $f
run full/opt/replay-timeline-end.txt replay --dump --at 99m --tab timeline $f
run full/opt/events-category.json report events --category drop,probe --format json $f
run full/opt/events-pid.csv report events --pid 4321 --format csv $f
run full/opt/events-window.txt report events --window 2..4 $f
run full/opt/replay-threads-end.txt replay --dump --at 99m --tab threads $f

f=cgroup.ptop
run cgroup/opt/cpu-pid.txt report cpu --pid 501 $f
run cgroup/opt/apps-by-uss.txt report apps --by uss $f
run cgroup/opt/apps-by-rss-top.json report apps --by rss --top 1 --format json $f
run cgroup/opt/cgroup-top.txt report cgroup --top 2 $f
run cgroup/opt/cgroup-window.json report cgroup --window 2..3 --format json $f
run cgroup/opt/folded-pid.txt export --format folded --pid 502 $f
run cgroup/opt/replay-end-memory.txt replay --dump --at 99m --tab memory $f
run cgroup/opt/replay-end-overview.txt replay --dump --at 99m $f

run truncated/salvage.txt salvage -o salvaged.ptop truncated.ptop
run truncated/salvaged-info.txt info salvaged.ptop
run truncated/salvaged-heap.txt report heap salvaged.ptop

if [ "${PTOP_GOLDEN_UPDATE:-0}" = 1 ]; then
	rm -rf "$GOLD/expected"
	cp -r "$OUT" "$GOLD/expected"
	echo "rewrote $GOLD/expected: $(find "$GOLD/expected" -type f | wc -l) files; review git diff"
	exit 0
fi

[ -d "$GOLD/expected" ] || fail "no $GOLD/expected: run tests/golden/update.sh"
differ=()
while IFS= read -r name; do
	if [ ! -f "$GOLD/expected/$name" ]; then
		differ+=("$name (new: no golden file)")
	elif [ ! -f "$OUT/$name" ]; then
		differ+=("$name (golden file, no answer)")
	elif ! cmp -s "$GOLD/expected/$name" "$OUT/$name"; then
		echo "--- $name differs (golden: tests/golden/expected/$name):"
		{ diff -u "$GOLD/expected/$name" "$OUT/$name" || true; } | head -60
		differ+=("$name")
	fi
done < <( (cd "$GOLD/expected" && find . -type f; cd "$OUT" && find . -type f) |
	sed 's|^\./||' | sort -u)
total=$(find "$OUT" -type f | wc -l)
if [ ${#differ[@]} -gt 0 ]; then
	echo
	echo "${#differ[@]} of $total golden files differ (tests/golden/expected/):"
	printf '  %s\n' "${differ[@]}"
	fail "the answers differ from tests/golden/expected/ (a meant change: tests/golden/update.sh)"
fi
echo "ok: $total answers equal tests/golden/expected/"
