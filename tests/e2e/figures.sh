# `ptop-analyze figures`: the regress fixture recorded without the heap: its syscall rate is
# the count it made over the capture's seconds (exact: 100 getppid calls a tick), its CPU
# shares carry their sample counts, the heap's figures are "not measured" with the probe
# set's reason (never 0) in text, CSV and JSON, and a window narrows the counts.
. "$(dirname "$0")/lib.sh"
need_ebpf
need_fixture regress

"$REC" --quiet --cpu-sample-hz 499 --interval 250ms -o "$TMP/run.ptop" -- \
	"$FIX/regress" 1000 16 100 0 >"$TMP/out.txt"
grep -qx 'getppid calls: 10000' "$TMP/out.txt" || fail "the fixture did not run: $(cat "$TMP/out.txt")"

"$ANA" figures --format json "$TMP/run.ptop" >"$TMP/f.json" || fail "figures --format json failed"
python3 - "$TMP/f.json" <<'PY' || fail "figures JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["report"] == "figures", d["report"]
span = d["span_s"]
assert 0.9 < span < 3, span
f = {x["figure"]: x for x in d["figures"]}
r = f["syscalls.rate(getppid)"]
assert r["count"] == 10000 and r["status"] == "measured", r
assert abs(r["value"] - 10000 / span) < 1e-6 * r["value"], (r, span)
h = f["heap.live_bytes"]
assert h["status"] == "not measured" and h["value"] is None, h
assert h["note"].startswith("heap disabled"), h
assert "heap.site(*).live_bytes" in f and f["heap.site(*).live_bytes"]["value"] is None
sw = f["cpu.share(steady_work)"]
assert sw["sampled"] and sw["of"] > 30 and 0 < sw["count"] <= sw["of"], sw
assert abs(sw["value"] - 100.0 * sw["count"] / sw["of"]) < 1e-9, sw
for k in ("mem.pss_peak", "mem.rss_last"):
    assert f[k]["status"] == "measured" and f[k]["value"] > 0, f[k]
PY

txt=$("$ANA" figures "$TMP/run.ptop") || fail "figures (text) failed"
echo "$txt" | has -E '^heap\.live_bytes +not measured .*heap disabled' ||
	fail "text: heap.live_bytes not said not measured: $(echo "$txt" | grep heap.live)"
echo "$txt" | grep -E '^heap\.' | has -E ' 0 B ' && fail "text: a heap figure printed as 0"
csv=$("$ANA" figures --format csv "$TMP/run.ptop") || fail "figures --format csv failed"
[ "${csv%%$'\n'*}" = 'figure,value,unit,count,of,up_is_worse,sampled,status,note' ] ||
	fail "CSV header: ${csv%%$'\n'*}"
echo "$csv" | has -E '^heap\.live_bytes,,bytes,,,true,false,not measured,' ||
	fail "CSV: heap.live_bytes: $(echo "$csv" | grep heap.live)"

# a window of the first half holds about half the calls
half=$("$ANA" figures --format csv --window ..0.5 "$TMP/run.ptop" |
	awk -F, '$1 == "syscalls.rate(getppid)" { print $4 }')
[ -n "$half" ] && [ "$half" -gt 2000 ] && [ "$half" -lt 8000 ] ||
	fail "--window ..0.5: getppid count $half, not about half of 10000"
"$ANA" figures --window 5..2 "$TMP/run.ptop" 2>/dev/null && fail "a bad window was accepted"
[ $? -eq 2 ] || fail "a bad window: exit $?, not 2"
echo "ok"
