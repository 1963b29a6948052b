# The locks collector against two threads contending on one mutex
# (tests/fixtures/lock_fixture.c: 3000 rounds each, 20 us held): the mutex's futex word is
# in `report locks` with waits from both threads and wakes, each thread's share adding up
# to the word's, its call site named take_lock (the fixture's function that calls
# pthread_mutex_lock); a mutex no one contends makes no futex call and no row; text, JSON and CSV
# agree, the figures are the report's totals. The counts are sent per interval (what grew
# in it): the whole capture's are their sums. Off by default (said so), not collected under
# --no-ebpf. (collectors/locks/e2e/locks_window.sh: a window over part of the run.)
. "$(dirname "$0")/../../../tests/e2e/lib.sh"
need_ebpf
need_fixture lock_fixture

"$REC" --quiet --enable locks --interval 50ms -o "$TMP/l.ptop" -- "$FIX/lock_fixture" 3000 20 >"$TMP/out.txt" ||
	fail "recording the fixture"
word=$(sed -n 's/^word //p' "$TMP/out.txt")
read -r t1 t2 < <(sed -n 's/^tid //p' "$TMP/out.txt" | paste -sd' ')
[ -n "$word" ] && [ -n "$t1" ] && [ -n "$t2" ] || fail "fixture output: $(cat "$TMP/out.txt")"
"$ANA" info "$TMP/l.ptop" | has -E '^ *locks +active +ebpf' || fail "locks not active"
"$ANA" report locks --format json "$TMP/l.ptop" >"$TMP/r.json" || fail "report locks: exit $?"
python3 - "$TMP/r.json" "$word" "$t1" "$t2" <<'PY' || fail "report locks json"
import json, sys
j = json.load(open(sys.argv[1])); word = int(sys.argv[2], 16); t1, t2 = int(sys.argv[3]), int(sys.argv[4])
assert j["collected"] is True, j
w = {int(r["word"], 16): r for r in j["futex_words"]}
assert word in w, (hex(word), list(map(hex, w)))
r = w[word]
print("contended word:", r)
waiters = {x["tid"]: x["calls"] for x in r["waiters"]}
wakers = {x["tid"]: x["calls"] for x in r["wakers"]}
assert set(waiters) == {t1, t2}, waiters          # both threads waited on it, no one else
assert sum(waiters.values()) == r["waits"], (waiters, r["waits"])
assert set(wakers) <= {t1, t2} and sum(wakers.values()) == r["wakes"] > 0, (wakers, r)
assert r["woken"] <= r["wakes"] and r["woken"] >= r["waits"] - r["eagain"] - r["timeouts"] - 1, r
assert sum(r["hist"]) == r["waits"] and r["max_wait_s"] <= r["wait_s"], r
assert j["waits"] == sum(x["waits"] for x in j["futex_words"]), j["waits"]
# the lock is named by the function that takes it: pthread_mutex_lock's caller, through
# glibc's lock code (stack copies: --user-stacks auto)
assert j["user_stacks"] == "dwarf", j["user_stacks"]
assert r["site"] == "take_lock", r["site"]
s = [x for x in j["call_sites"] if int(x["word"], 16) == word]
assert s and s[0]["site"] == "take_lock" and "take_lock < worker" in s[0]["stack"], s
assert len(set(x["stack"] for x in s)) == len(s), s  # copies of one site are one row
assert sum(x["waits"] for x in s) == r["waits"], (s, r["waits"])
PY
# the uncontended mutex took no futex call: its word is not there
alone=$(sed -n 's/^alone //p' "$TMP/out.txt")
[ -n "$alone" ] || fail "fixture output: no alone"
"$ANA" report locks --format csv "$TMP/l.ptop" >"$TMP/r.csv" || fail "csv: exit $?"
head -1 "$TMP/r.csv" | has -x 'pid,word,waits,wait_s,mean_wait_s,max_wait_s,p50_bucket_s,eagain,timeouts,wakes,woken,waiters,wakers,site,hist' ||
	fail "csv header: $(head -1 "$TMP/r.csv")"
has -F ",$word," <"$TMP/r.csv" || fail "csv: no row of $word"
has -F ",$alone," <"$TMP/r.csv" && fail "csv: the uncontended mutex $alone has a row"
"$ANA" report locks "$TMP/l.ptop" >"$TMP/r.txt" || fail "text: exit $?"
cat "$TMP/r.txt"
has -E "^ *[0-9]+ +$word +[0-9]+ .* take_lock$" <"$TMP/r.txt" || fail "text: no row of $word"
has -E "^ *[0-9]+ +$word +[0-9]+ .* take_lock +[0-9]+ +.*take_lock < worker" <"$TMP/r.txt" ||
	fail "text: no call site of $word"
"$ANA" figures --format csv "$TMP/l.ptop" >"$TMP/f.csv" || fail "figures: exit $?"
assert_eq "locks.waits" "$(jget "$TMP/r.json" 'j["waits"]')" \
	"$(awk -F, '$1 == "locks.waits" { print $2 }' "$TMP/f.csv")"
# per interval: the word's rows add up to the report's totals, each interval's longest
# wait at most the whole run's, and the histogram's buckets sum to the waits
python3 - "$TMP/r.json" "$word" <(q "$TMP/l.ptop" "SELECT time_ns, interval_ns, waits,
	wait_ns, wait_max_ns, wakes, hist FROM lock_word WHERE uaddr = $((word))
	ORDER BY time_ns") <<'PY' || fail "per-interval rows of the word"
import csv, json, sys
j = json.load(open(sys.argv[1])); word = int(sys.argv[2], 16)
r = [x for x in j["futex_words"] if int(x["word"], 16) == word][0]
rows = list(csv.reader(open(sys.argv[3])))
print("intervals with the word:", len(rows))
assert sum(int(x[2]) for x in rows) == r["waits"], (rows, r)
assert sum(int(x[5]) for x in rows) == r["wakes"], (rows, r)
assert abs(sum(int(x[3]) for x in rows) / 1e9 - r["wait_s"]) < 1e-6, (rows, r)
assert max(int(x[4] or 0) for x in rows) / 1e9 == r["max_wait_s"], (rows, r)
for x in rows:
    assert sum(json.loads(x[6])) == int(x[2]), x
    assert int(x[1]) > 0, x
# each interval's longest wait is its own: in the highest bucket of its histogram. (A wait
# that ends in the microseconds between the epoch's change and the reading is counted in
# that interval and its length kept in the next one's slot: one row may miss, not most.)
off = []
for x in rows:
    h = json.loads(x[6]); top = max(b for b, n in enumerate(h) if n) if any(h) else None
    mx = int(x[4] or 0)
    if top is not None and not (1 << top <= mx < 1 << (top + 1)):
        off.append((x, top, mx))
print("intervals whose longest wait is not in their top bucket:", off)
assert len(off) <= 1, (off, len(rows))
PY

# off by default, and without eBPF
"$REC" --quiet -o "$TMP/d.ptop" -- "$FIX/lock_fixture" 10 1 >/dev/null || fail "default recording"
"$ANA" report locks "$TMP/d.ptop" | has -E '^locks: not collected \(disabled: off by default' ||
	fail "default: $("$ANA" report locks "$TMP/d.ptop")"
"$REC" --quiet --no-ebpf --enable locks -o "$TMP/n.ptop" -- "$FIX/lock_fixture" 10 1 >/dev/null ||
	fail "--no-ebpf recording"
"$ANA" report locks "$TMP/n.ptop" | has -E '^locks: not collected \(unsupported: --no-ebpf' ||
	fail "--no-ebpf: $("$ANA" report locks "$TMP/n.ptop")"
echo PASS
