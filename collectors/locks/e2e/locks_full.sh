# locks when the word map is full: a word map of one entry (PTOP_TEST_LOCKS_WORDS=1, for
# tests) and a fixture with more futex words than that (tests/fixtures/lock_fixture.c: a
# barrier, a contended mutex, the threads' exit words). The first word is counted; every
# call on another is a map_full drop, with its reason, sent in the interval it happened in
# (a window over the contention holds some), never a word counted wrong.
. "$(dirname "$0")/../../../tests/e2e/lib.sh"
need_ebpf
need_fixture lock_fixture

PTOP_TEST_LOCKS_WORDS=1 "$REC" --quiet --enable locks --interval 100ms -o "$TMP/l.ptop" -- \
	"$FIX/lock_fixture" 3000 20 500 >"$TMP/out.txt" || fail "recording the fixture"
word=$(sed -n 's/^word //p' "$TMP/out.txt")
contend=$(sed -n 's/^contend //p' "$TMP/out.txt")
[ -n "$word" ] && [ -n "$contend" ] || fail "fixture output: $(cat "$TMP/out.txt")"
"$ANA" report locks --format json "$TMP/l.ptop" >"$TMP/r.json" || fail "report locks: exit $?"
"$ANA" report locks "$TMP/l.ptop" | head -3
python3 - "$TMP/r.json" <<'PY' || fail "report locks json"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["words"] <= 1 and len(j["futex_words"]) <= 1, j["futex_words"]
d = {x["kind"]: x["lost"] for x in j["drops"]}
assert d.get("map_full", 0) > 0, j["drops"]
print("ok: %d word counted, %d calls lost (map_full)" % (j["words"], d["map_full"]))
PY
why=$(q "$TMP/l.ptop" "SELECT DISTINCT detail FROM drop_notice WHERE collector = 'locks'
	AND kind = 'map_full'")
assert_eq "the drop's reason" \
	"locks: futex calls not counted (the word map was full: more words than it holds)" "$why"
# per interval: the drops of the contention are in a window over it
base=$(q "$TMP/l.ptop" "SELECT start_monotonic_ns FROM capture")
from=$(python3 -c "print('%.3f' % (($contend - $base) / 1e9))")
"$ANA" report locks --format json --window "$from.." "$TMP/l.ptop" >"$TMP/w.json" ||
	fail "window: exit $?"
assert_ge "map_full drops in the window from the contention" 1 \
	"$(jget "$TMP/w.json" 'sum(x["lost"] for x in j["drops"] if x["kind"] == "map_full")')"
n=$(q "$TMP/l.ptop" "SELECT COUNT(DISTINCT time_ns) FROM drop_notice WHERE collector = 'locks'")
assert_ge "drop notices (one per interval with drops)" 2 "$n"
echo PASS
