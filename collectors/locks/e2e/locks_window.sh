# locks over a window: two threads that contend on one mutex only in the second part of
# the run (tests/fixtures/lock_fixture.c with PAUSE_MS: nothing touches the mutex for
# 2.5 s, then 20000 rounds each). A window that ends before the contention began shows no
# row of the mutex's word; a window from its beginning shows the word with waits from both
# threads; with the window between the two, their sums are the whole capture's; the
# figures follow the window, and diff compares the two windows.
. "$(dirname "$0")/../../../tests/e2e/lib.sh"
need_ebpf
need_fixture lock_fixture

"$REC" --quiet --enable locks --interval 200ms -o "$TMP/l.ptop" -- \
	"$FIX/lock_fixture" 20000 20 2500 >"$TMP/out.txt" || fail "recording the fixture"
cat "$TMP/out.txt"
word=$(sed -n 's/^word //p' "$TMP/out.txt")
contend=$(sed -n 's/^contend //p' "$TMP/out.txt")
read -r t1 t2 < <(sed -n 's/^tid //p' "$TMP/out.txt" | paste -sd' ')
[ -n "$word" ] && [ -n "$contend" ] && [ -n "$t2" ] || fail "fixture output: $(cat "$TMP/out.txt")"
base=$(q "$TMP/l.ptop" "SELECT start_monotonic_ns FROM capture")
[ -n "$base" ] || fail "no capture start"
# the contention's start in seconds of the capture; the first window ends 1 s before it
# (an interval is in a window when its midpoint is: one of the first window's reaches the
# contention only if it lasts 2 s, ten times --interval), the second starts at it
read -r a b < <(python3 -c "import sys; c = ($contend - $base) / 1e9; print('%.3f %.3f' % (c - 1, c))")
echo "contention from ${b} s of the capture"
python3 -c "import sys; sys.exit(not $a > 0.8)" || fail "the pause did not fall in the capture: $a"

"$ANA" report locks --format json --window "0..$a" "$TMP/l.ptop" >"$TMP/first.json" ||
	fail "report locks --window 0..$a: exit $?"
"$ANA" report locks --format json --window "$b.." "$TMP/l.ptop" >"$TMP/second.json" ||
	fail "report locks --window $b..: exit $?"
"$ANA" report locks --format json --window "$a..$b" "$TMP/l.ptop" >"$TMP/gap.json" ||
	fail "report locks --window $a..$b: exit $?"
"$ANA" report locks --format json "$TMP/l.ptop" >"$TMP/all.json" || fail "report locks: exit $?"
"$ANA" report locks --window "0..$a" "$TMP/l.ptop" | head -3
"$ANA" report locks --window "$b.." "$TMP/l.ptop" | head -5
python3 - "$TMP/first.json" "$TMP/second.json" "$TMP/all.json" "$TMP/gap.json" "$word" "$t1" "$t2" <<'PY' ||
import json, sys
first, second, whole, gap = (json.load(open(f)) for f in sys.argv[1:5])
word = int(sys.argv[5], 16); t1, t2 = int(sys.argv[6]), int(sys.argv[7])
def row(j):
    r = [x for x in j["futex_words"] if int(x["word"], 16) == word]
    return r[0] if r else None
assert row(first) is None, ("the mutex before its contention", row(first))
assert not [s for s in first["call_sites"] if int(s["word"], 16) == word], first["call_sites"]
r = row(second)
assert r is not None and r["waits"] > 0, ("no contention in the second window", r)
assert {x["tid"] for x in r["waiters"]} == {t1, t2}, r["waiters"]
w, g = row(whole), row(gap)
# the three windows share out the intervals (each is in the one its midpoint is in): the
# word's counts are the second's and the gap's (an interval across the start of the
# contention, whose midpoint is before it)
for k in ("waits", "wakes", "eagain", "woken"):
    assert r[k] + (g[k] if g else 0) == w[k], (k, r[k], g, w[k])
for k in ("waits", "wakes"):
    assert first[k] + gap[k] + second[k] == whole[k], (k, first[k], gap[k], second[k], whole[k])
print("ok: first window: no row of %s (%d waits on other words); second: %d waits from %d and %d"
      % (hex(word), first["waits"], r["waits"], t1, t2))
PY
	fail "the windows"

# the figures follow the window
"$ANA" figures --format csv --window "0..$a" "$TMP/l.ptop" >"$TMP/f1.csv" || fail "figures 1"
"$ANA" figures --format csv --window "$b.." "$TMP/l.ptop" >"$TMP/f2.csv" || fail "figures 2"
assert_eq "locks.waits over the first window" "$(jget "$TMP/first.json" 'j["waits"]')" \
	"$(awk -F, '$1 == "locks.waits" { print $2 }' "$TMP/f1.csv")"
assert_eq "locks.waits over the second window" "$(jget "$TMP/second.json" 'j["waits"]')" \
	"$(awk -F, '$1 == "locks.waits" { print $2 }' "$TMP/f2.csv")"
# diff compares the windows: the contention is new in the second
"$ANA" diff --all --format json --base-window "0..$a" --new-window "$b.." "$TMP/l.ptop" \
	"$TMP/l.ptop" >"$TMP/d.json" || fail "diff of the windows: exit $?"
python3 - "$TMP/d.json" "$TMP/first.json" "$TMP/second.json" <<'PY' || fail "diff of the windows"
import json, sys
f = {r["figure"]: r for r in json.load(open(sys.argv[1]))["figures"]}
first, second = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
r = f["locks.waits"]
print(r)
assert (r["base"], r["new"]) == (first["waits"], second["waits"]), r
assert r["new"] > r["base"], r
PY
echo PASS
