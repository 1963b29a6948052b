# `ptop-analyze diff` and its gates on the regress fixture (tests/fixtures/regress.c), whose
# old and new versions differ by a planted regression: the leak doubled, getppid three times
# as often, a new hot function (parse_json). Checks:
#  - diff reports each of the three, and a --fail-on on each exits 1 naming it;
#  - the unchanged fixture recorded 5 times, every ordered pair (20) diffed: nothing
#    significant, no gate fires, exit 0;
#  - NEW recorded without the heap: heap figures "not comparable (heap disabled on NEW...)",
#    a heap gate fails (exit 1) saying so; --allow-missing passes and says so;
#  - the fixture rebuilt (another build-id, the same source) reports no heap site or
#    function new or gone;
#  - --window on both sides leaves the warm-up out; one DB holding both, --capture twice;
#  - JSON has its documented shape, markdown's table is a valid table, JUnit XML parses with
#    a test case per gate; usage errors exit 2.
. "$(dirname "$0")/lib.sh"
need_ebpf
need_fixture regress
command -v python3 >/dev/null || skip "python3 is not installed (the JSON and XML checks)"

rec() { # OUT EXE [ARGS...]: record with the heap exact and a fast profile
	local out=$1
	shift
	"$REC" --quiet --enable heap --heap-sample-bytes 0 --cpu-sample-hz 499 --interval 250ms \
		--vma-interval 100ms \
		-o "$out" -- "$@" >/dev/null || fail "recording $*"
}
OLD=(1000 16 100 0)
NEW=(1000 32 300 1)
for i in 1 2 3 4 5; do rec "$TMP/old$i.ptop" "$FIX/regress" "${OLD[@]}"; done
rec "$TMP/new.ptop" "$FIX/regress" "${NEW[@]}"

# ---- the planted regression, reported
"$ANA" diff --format json "$TMP/old1.ptop" "$TMP/new.ptop" >"$TMP/d.json" || fail "diff --format json: exit $?"
python3 - "$TMP/d.json" <<'PY' || fail "the regression is not reported as it should be"
import json, sys
d = json.load(open(sys.argv[1]))
# the documented shape
for k in ("report", "base", "new", "confidence", "min_delta", "header_differences", "figures",
          "gates", "exit"):
    assert k in d, k
assert d["report"] == "diff" and d["exit"] == 0 and d["confidence"] == 0.99
for s in ("base", "new"):
    for k in ("path", "capture_id", "complete", "span_s", "window", "recorder", "kernel", "cpus"):
        assert k in d[s], (s, k)
keys = {"figure", "pattern", "unit", "up_is_worse", "status", "verdict", "base", "new", "delta",
        "relative_pct", "in_base", "in_new", "estimated", "base_count", "new_count", "base_of", "new_of",
        "z", "reason"}
f = {}
for r in d["figures"]:
    assert set(r) == keys, set(r) ^ keys
    f[r["figure"]] = r
def changed(name, lo, hi):
    r = f[name]
    assert r["status"] == "changed" and r["verdict"] in ("worse", "new"), r
    if lo is not None:
        assert lo < r["relative_pct"] < hi, r
changed("heap.live_bytes", 60, 140)                 # the leak doubled
changed("heap.site(leak_site).live_bytes", 80, 120)  # matched by symbol
changed("syscalls.rate(getppid)", 150, 250)          # three times as often
assert f["syscalls.rate(getppid)"]["base_count"] == 10000
assert f["syscalls.rate(getppid)"]["new_count"] == 30000
changed("cpu.share(parse_json)", None, None)          # a new hot function
r = f["cpu.share(parse_json)"]
assert r["verdict"] == "new" and r["base"] == 0 and not r["in_base"], r
assert r["new_count"] > 20 and r["new_of"] >= r["new_count"] and r["z"] > 3, r
PY
txt=$("$ANA" diff "$TMP/old1.ptop" "$TMP/new.ptop") || fail "diff: exit $?"
for pat in '^heap\.live_bytes .* worse' '^syscalls\.rate\(getppid\) .* worse' \
	'^cpu\.share\(parse_json\) +0 .* new '; do
	echo "$txt" | has -E "$pat" || fail "diff text: no line /$pat/:
$txt"
done

gate() { # EXPECTED-EXIT NAME EXPR...: diff old1 new with the gates EXPR
	local want=$1 name=$2 out rc=0
	shift 2
	local args=()
	for g; do args+=(--fail-on "$g"); done
	out=$("$ANA" diff "${args[@]}" "$TMP/old1.ptop" "$TMP/new.ptop" 2>&1) || rc=$?
	[ "$rc" = "$want" ] || fail "gates $*: exit $rc, not $want:
$out"
	[ -z "$name" ] || echo "$out" | has -F "FAIL $1: FAILED: $name " ||
		fail "gates $*: the failure does not name $name:
$out"
}
gate 1 heap.live_bytes 'heap.live_bytes > +50%'
gate 1 'heap.site(leak_site).live_bytes' 'heap.site(*).live_bytes > +1M'
gate 1 'syscalls.rate(getppid)' 'syscalls.rate(getppid) > +100%'
gate 1 'cpu.share(parse_json)' 'cpu.share(parse_json) > +5pp'
gate 0 '' 'syscalls.rate(getppid) > +500%' 'heap.live_bytes > +50M' 'mem.pss_peak > 1G' \
	'cpu.share(steady_work) > +5pp' 'syscalls.rate(openat) > +20%'
# each failing gate listed with both values
out=$("$ANA" diff --fail-on 'heap.live_bytes > +50%' --fail-on 'syscalls.rate(getppid) > +100%' \
	"$TMP/old1.ptop" "$TMP/new.ptop" 2>&1) && fail "two gates fired, exit 0"
echo "$out" | has -E '^2 of 2 gates failed$' || fail "not 2 of 2 gates failed:
$out"
echo "$out" | has -E 'heap\.live_bytes [0-9.]+ MiB -> [0-9.]+ MiB' || fail "no values: $out"

# ---- markdown: the verdict first, one valid table, the rest folded; junit: a test case per gate
"$ANA" diff --format markdown --fail-on 'heap.live_bytes > +50%' --fail-on 'mem.pss_peak > 1G' \
	"$TMP/old1.ptop" "$TMP/new.ptop" >"$TMP/d.md" 2>/dev/null && fail "markdown: a gate fired, exit 0"
python3 - "$TMP/d.md" <<'PY' || fail "markdown table"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
cells = lambda l: len(re.findall(r"(?<!\\)\|", l)) - 1
rows = [l for l in lines if l.startswith("|")]
start = next(i for i, l in enumerate(lines) if l.startswith("| figure |"))
hdr = cells(lines[start])
assert hdr == 7, lines[start]
assert re.fullmatch(r"\|(\s*:?-+:?\s*\|){7}", lines[start + 1]), lines[start + 1]
body = []
for l in lines[start + 2:]:
    if not l.startswith("|"):
        break
    body.append(l)
assert body and all(cells(l) == hdr and l.endswith("|") for l in body), body
assert any("`heap.live_bytes`" in l for l in body)
assert any("**FAIL**" in l for l in lines)
# a pull request comment leads with the verdict: the gates, then the changes, then the
# rest (captures, recording differences, figures not comparable) folded in <details>
text = "\n".join(lines)
v, g = text.index("**FAILED: "), text.index("- **FAIL**")
c, d = text.index("| figure |"), text.index("<details><summary>")
assert v < g < c < d, (v, g, c, d)
assert "Not comparable" not in text[:d] and "BASE `" not in text[:d], text[:d]
assert text.rstrip().endswith("</details>"), text[-200:]
PY
"$ANA" diff --format junit --fail-on 'heap.live_bytes > +50%' --fail-on 'mem.pss_peak > 1G' \
	"$TMP/old1.ptop" "$TMP/new.ptop" >"$TMP/d.xml" 2>/dev/null && fail "junit: a gate fired, exit 0"
python3 - "$TMP/d.xml" <<'PY' || fail "junit XML"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
suites = root.findall("testsuite")
assert len(suites) == 1
s = suites[0]
cases = s.findall("testcase")
assert int(s.get("tests")) == len(cases) == 2
assert int(s.get("failures")) == 1 and int(root.get("failures")) == 1
for c in cases:
    assert c.get("name") and c.get("classname"), c.attrib
    assert set(ch.tag for ch in c) <= {"failure", "skipped"}
f = [c for c in cases if c.find("failure") is not None]
assert len(f) == 1 and f[0].get("name") == "heap.live_bytes > +50%"
assert "heap.live_bytes" in f[0].find("failure").get("message")
PY

# ---- a window on each side: the steady state after 250 ms, said in the JSON
"$ANA" diff --window 250ms.. --format json "$TMP/old1.ptop" "$TMP/new.ptop" >"$TMP/w.json" ||
	fail "diff --window: exit $?"
python3 - "$TMP/w.json" <<'PY' || fail "diff --window"
import json, sys
d = json.load(open(sys.argv[1]))
for s in ("base", "new"):
    assert d[s]["window"] == {"start_s": 0.25, "end_s": None}, d[s]["window"]
    assert 0.5 < d[s]["span_s"] < 0.9, d[s]["span_s"]
f = {r["figure"]: r for r in d["figures"]}
g = f["syscalls.rate(getppid)"]
assert g["status"] == "changed" and 150 < g["relative_pct"] < 250, g
assert g["base_count"] < 10000, g  # the first 250 ms left out
PY

# ---- one DB holding both, --capture twice: the same comparison
"$ANA" load --db "$TMP/both.db" "$TMP/old1.ptop" "$TMP/new.ptop" >/dev/null || fail "load both"
ids=$("$ANA" sql --format csv "$TMP/both.db" 'SELECT capture_id FROM capture ORDER BY cap' | tail -n +2)
id1=$(echo "$ids" | sed -n 1p)
id2=$(echo "$ids" | sed -n 2p)
rc=0
out=$("$ANA" diff --capture "$id1" --capture "$id2" --fail-on 'heap.live_bytes > +50%' \
	"$TMP/both.db" 2>&1) || rc=$?
[ "$rc" = 1 ] || fail "diff --capture twice in one DB: exit $rc, not 1:
$out"
echo "$out" | has -E '^syscalls\.rate\(getppid\) .* worse' || fail "diff of one DB: $out"

# ---- the unchanged fixture: 20 ordered pairs, nothing significant, no gate fires
pairs=0
for i in 1 2 3 4 5; do
	for j in 1 2 3 4 5; do
		[ "$i" = "$j" ] && continue
		out=$("$ANA" diff --fail-on 'heap.live_bytes > +10%' --fail-on 'heap.site(*).live_bytes > +1M' \
			--fail-on 'syscalls.rate(getppid) > +20%' --fail-on 'cpu.share(steady_work) > +5pp' \
			--fail-on 'cpu.share(parse_json) > +5pp' --fail-on 'syscalls.rate(*) > +20%' \
			"$TMP/old$i.ptop" "$TMP/old$j.ptop" 2>&1) ||
			fail "unchanged pair old$i old$j: exit $?, a false alarm:
$out"
		echo "$out" | has -E '^no significant change' ||
			fail "unchanged pair old$i old$j: a change reported:
$out"
		pairs=$((pairs + 1))
	done
done
[ "$pairs" = 20 ] || fail "$pairs pairs"

# ---- NEW without the heap: not comparable, the gate fails loudly, --allow-missing passes
"$REC" --quiet --cpu-sample-hz 499 --interval 250ms -o "$TMP/noheap.ptop" -- \
	"$FIX/regress" "${NEW[@]}" >/dev/null || fail "recording without the heap"
rc=0
out=$("$ANA" diff --fail-on 'heap.live_bytes > +10%' "$TMP/old1.ptop" "$TMP/noheap.ptop" 2>&1) || rc=$?
[ "$rc" = 1 ] || fail "a heap gate on a NEW without the heap: exit $rc, not 1:
$out"
echo "$out" | has -E '^  heap\.live_bytes[,:].* not comparable \(heap disabled on NEW: off by default' ||
	fail "no 'not comparable (heap disabled on NEW...)':
$out"
echo "$out" | has -E '^  FAIL heap\.live_bytes > \+10%: FAILED, not comparable: .*heap disabled on NEW' ||
	fail "the gate does not say it failed for want of the heap:
$out"
echo "$out" | grep -E '^heap\.' | has -E 'worse|better|new|gone' && fail "a heap figure was compared: $out"
out=$("$ANA" diff --allow-missing --fail-on 'heap.live_bytes > +10%' "$TMP/old1.ptop" \
	"$TMP/noheap.ptop" 2>&1) || fail "--allow-missing: exit $?:
$out"
echo "$out" | has -E '^  skip heap\.live_bytes > \+10%: skipped \(--allow-missing\)' ||
	fail "--allow-missing does not say it skipped the gate:
$out"

# ---- a rebuilt binary: another build-id, the same source: nothing new or gone
command -v cc >/dev/null || skip "cc is not installed (the rebuilt binary)"
mkdir -p "$TMP/rebuilt"
cc -O1 -g -fno-omit-frame-pointer -Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 \
	-o "$TMP/rebuilt/regress" "$(dirname "$0")/../fixtures/regress.c" || fail "rebuilding regress"
id_old=$(readelf -n "$FIX/regress" | awk '/Build ID/ { print $3 }')
id_new=$(readelf -n "$TMP/rebuilt/regress" | awk '/Build ID/ { print $3 }')
[ -n "$id_old" ] && [ "$id_old" != "$id_new" ] || fail "the rebuilt build-id is the same: $id_old"
rec "$TMP/rebuilt.ptop" "$TMP/rebuilt/regress" "${OLD[@]}"
"$ANA" diff --all --format json "$TMP/old1.ptop" "$TMP/rebuilt.ptop" >"$TMP/r.json" ||
	fail "diff with the rebuilt binary: exit $?"
python3 - "$TMP/r.json" <<'PY' || fail "the rebuilt binary shows sites or functions new or gone"
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["figures"] if r["pattern"].startswith(("heap.site", "cpu.share", "cpu.total_share"))]
bad = [r["figure"] for r in rows if r["verdict"] in ("new", "gone")]
assert not bad, bad
names = {r["figure"] for r in rows if r["in_base"] and r["in_new"]}
for want in ("heap.site(leak_site).live_bytes", "cpu.share(steady_work)"):
    assert want in names, (want, sorted(names)[:20])
assert not [r for r in d["figures"] if r["status"] == "changed"], \
    [r["figure"] for r in d["figures"] if r["status"] == "changed"]
PY

# ---- usage and input errors: exit 2
for args in "--fail-on heap.nothing>+1% $TMP/old1.ptop $TMP/new.ptop" \
	"--fail-on heap.live_bytes>10% $TMP/old1.ptop $TMP/new.ptop" \
	"--min-delta 10x $TMP/old1.ptop $TMP/new.ptop" "--format xml $TMP/old1.ptop $TMP/new.ptop" \
	"$TMP/old1.ptop" "$TMP/old1.ptop $TMP/missing.ptop"; do
	rc=0
	# shellcheck disable=SC2086
	"$ANA" diff $args >/dev/null 2>&1 || rc=$?
	[ "$rc" = 2 ] || fail "diff $args: exit $rc, not 2"
done
# ---- an internal error (here the output cannot be written) is 3, never a gate's 1
rc=0
"$ANA" diff --fail-on 'syscalls.rate(getppid) > +20%' "$TMP/old1.ptop" "$TMP/new.ptop" \
	>/dev/full 2>"$TMP/full.err" || rc=$?
assert_eq "diff writing to a full device: exit" 3 "$rc"
has "No space left on device" <"$TMP/full.err" || fail "the error does not say why: $(cat "$TMP/full.err")"
echo "ok"
