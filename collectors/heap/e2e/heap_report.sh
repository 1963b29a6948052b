# heap_report.sh — `report heap` and `report leaks` on the heap collector's ground truth:
# tests/fixtures/heap_leak.c leaks exactly 1000 x 4096 bytes from leak_pages() and does
# 1,000,000 malloc(64)+free pairs in churn(), then sleeps 1.5 s.
#
# Exact run (--heap-sample-bytes 0): by live, leak_pages first with 4,096,000 live bytes
# exactly; by count, churn first with 1,000,000 allocations; report leaks (--leak-age 1s:
# the leaked blocks are older than that at the last snapshot) names leak_pages, not churn.
#
# Default sampling (one stack per S = sample_bytes on average, randomized): every live
# allocation is tracked, so a snapshot's live bytes are exact; only sampled ones carry a
# stack, and the report scales the sites' sampled live bytes to that exact total. The 1000
# leaked blocks are one run of B = 4,096,000 bytes in the allocation stream: it holds about
# B/S = 7.8 samples (none: probability e^-7.8, 0.04%). The other blocks live at the end are
# a few KiB (stdout's buffer), each sampled with probability ~ size/S; when one is,
# leak_pages' share falls to n/(n+1). The bound used is |estimate - B| <= 7 S (B +- 3.67 MB
# at the default S = 512 KiB): it fails only when leak_pages holds no sample or under ~10%
# of them, together well under 0.1%. (Were the sites' live bytes credited with the bytes
# since the previous sample instead, the estimate would be B - Y + X with Y about
# exponential of mean S and X ~ 0: the same bound fails with probability e^-7.)
# churn's blocks are all freed, so its live estimate is 0 and leak_pages stays first.
. tests/e2e/lib.sh
need_ebpf
caps=$("$REC" --caps 2>&1 || true)
echo "$caps" | has -E '^ *heap +' ||
	missing "this ptop-record has no heap collector (--caps lists no heap): report heap has nothing to read"
echo "$caps" | has -E '^ *heap +yes' ||
	skip "the heap collector cannot run here: $(echo "$caps" | grep -E '^ *heap ')"
[ -x "$FIX/heap_leak" ] || missing "fixture heap_leak is not built (tests/fixtures/heap_leak.c)"

B_LEAK=4096000

# ---- exact
"$REC" --quiet --enable heap --heap-sample-bytes 0 --leak-age 1s -o "$TMP/exact.ptop" -- "$FIX/heap_leak" >/dev/null
"$ANA" report heap --by live --format json "$TMP/exact.ptop" > "$TMP/live.json"
assert_eq "heap collected" True "$(jget "$TMP/live.json" "j['collected']")"
assert_eq "exact (sample_bytes 0)" True "$(jget "$TMP/live.json" "j['exact']")"
assert_eq "live measured" True "$(jget "$TMP/live.json" "j['live_measured']")"
assert_eq "census object" True "$(jget "$TMP/live.json" "'total_call_sites' in j['census']")"
assert_eq "first by live" leak_pages "$(jget "$TMP/live.json" "j['sites'][0]['func']")"
assert_eq "leak_pages live bytes" $B_LEAK "$(jget "$TMP/live.json" "j['sites'][0]['live_bytes']")"
assert_eq "leak_pages live count" 1000 "$(jget "$TMP/live.json" "j['sites'][0]['live_count']")"
assert_eq "leak_pages file" tests/fixtures/heap_leak.c \
	"$(jget "$TMP/live.json" "j['sites'][0]['file']")"
assert_eq "leak_pages has a line" True "$(jget "$TMP/live.json" "(j['sites'][0]['line'] or 0) > 0")"
assert_eq "no allocator row" False \
	"$(jget "$TMP/live.json" "any(s['func'] in ('malloc', 'free', '__libc_malloc') for s in j['sites'])")"

"$ANA" report heap --by count --format json "$TMP/exact.ptop" > "$TMP/count.json"
assert_eq "first by count" churn "$(jget "$TMP/count.json" "j['sites'][0]['func']")"
assert_eq "churn allocations" 1000000 "$(jget "$TMP/count.json" "j['sites'][0]['alloc_count']")"
assert_eq "churn bytes" 64000000 "$(jget "$TMP/count.json" "j['sites'][0]['alloc_bytes']")"
assert_eq "churn live bytes" 0 "$(jget "$TMP/count.json" "j['sites'][0]['live_bytes']")"

"$ANA" report leaks --format json "$TMP/exact.ptop" > "$TMP/leaks.json"
assert_eq "leaks: leak_pages is a suspect" True \
	"$(jget "$TMP/leaks.json" "'leak_pages' in [s['func'] for s in j['suspects']]")"
assert_eq "leaks: churn is not" False \
	"$(jget "$TMP/leaks.json" "'churn' in [s['func'] for s in j['suspects']]")"
"$ANA" report leaks "$TMP/exact.ptop" > "$TMP/leaks.txt"
grep -q 'leak_pages at tests/fixtures/heap_leak.c:' "$TMP/leaks.txt" || {
	cat "$TMP/leaks.txt"; fail "report leaks (text) does not name leak_pages with its file"; }
grep -q churn "$TMP/leaks.txt" && { cat "$TMP/leaks.txt"; fail "report leaks names churn"; }
echo "ok: report leaks text names leak_pages, not churn"
printf '# the fixture leaks on purpose\nleak:leak_*\n' > "$TMP/supp"
"$ANA" report leaks --suppressions "$TMP/supp" --format json "$TMP/exact.ptop" > "$TMP/supp.json"
assert_eq "suppressed: leak_pages gone" False \
	"$(jget "$TMP/supp.json" "'leak_pages' in [s['func'] for s in j['suspects']]")"
assert_ge "suppressed count" 1 "$(jget "$TMP/supp.json" "j['suppressed']")"
printf 'race:x\n' > "$TMP/bad"
expect_exit 2 "$ANA" report leaks --suppressions "$TMP/bad" "$TMP/exact.ptop"

# ---- default sampling
"$REC" --quiet --enable heap --leak-age 1s -o "$TMP/sampled.ptop" -- "$FIX/heap_leak" >/dev/null
"$ANA" report heap --by live --format json "$TMP/sampled.ptop" > "$TMP/s.json"
S=$(jget "$TMP/s.json" "j['sample_bytes']")
assert_ge "sampled: sample_bytes" 1 "$S"
assert_eq "sampled: first by live" leak_pages "$(jget "$TMP/s.json" "j['sites'][0]['func']")"
live=$(jget "$TMP/s.json" "j['sites'][0]['live_bytes']")
assert_ge "sampled: leak_pages live bytes (B - 7 S, at least 1)" \
	"$(python3 -c "print(max(1, $B_LEAK - 7 * $S))")" "$live"
assert_le "sampled: leak_pages live bytes (B + 7 S)" "$((B_LEAK + 7 * S))" "$live"
"$ANA" report heap --by count --format json "$TMP/sampled.ptop" > "$TMP/sc.json"
assert_eq "sampled: total allocations exact" True \
	"$(jget "$TMP/sc.json" "j['totals']['alloc_count'] >= 1001000")"
