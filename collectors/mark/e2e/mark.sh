# The mark collector and `diff --per`: ptop-record --mark requests=handle_request on the
# regress fixture counts exactly the calls it made (100 a second, then 200 with twice the
# work in the same time); diff says the per-second getppid rate doubled, and with
# --per requests that the rate per request stayed (100 calls each); a mark missing on a side
# is an error (exit 2), not a silent per-second; a bad --mark is a usage error, a function
# that is not there fails the probe with the reason; a sampling rate that differs is said at
# the top of the diff.
. "$(dirname "$0")/../../../tests/e2e/lib.sh"
need_ebpf
need_fixture regress

rec() { # OUT REQUESTS [OPTIONS...]
	local out=$1 reqs=$2
	shift 2
	"$REC" --quiet --interval 250ms "$@" -o "$out" -- "$FIX/regress" 1000 0 100 0 "$reqs" \
		>"$out.txt" || fail "recording $out"
}
rec "$TMP/one.ptop" 1 --mark requests=handle_request
rec "$TMP/two.ptop" 2 --mark requests=handle_request
rec "$TMP/none.ptop" 1 --cpu-sample-hz 199

"$ANA" info "$TMP/one.ptop" | has -E '^ *mark +active +ebpf' || fail "mark not active in info"
for c in one two; do
	want=$(sed -n 's/^requests: //p' "$TMP/$c.ptop.txt")
	got=$("$ANA" figures --format csv "$TMP/$c.ptop" | awk -F, '$1 == "mark.count(requests)" { print $2 }')
	[ -n "$want" ] && [ "$got" = "$want" ] ||
		fail "$c: mark.count(requests) is '$got', the fixture made $want requests"
done
"$ANA" figures "$TMP/none.ptop" | has -E '^mark\.count\(\*\) +not measured .*no --mark' ||
	fail "without --mark: the marks not said not measured"

# per second: twice the getppid calls in the same time
"$ANA" diff --format json "$TMP/one.ptop" "$TMP/two.ptop" >"$TMP/s.json" || fail "diff: exit $?"
# per request: the same 100 calls each
"$ANA" diff --all --per requests --format json "$TMP/one.ptop" "$TMP/two.ptop" >"$TMP/r.json" ||
	fail "diff --per requests: exit $?"
python3 - "$TMP/s.json" "$TMP/r.json" <<'PY' || fail "per second and per request"
import json, sys
s = {r["figure"]: r for r in json.load(open(sys.argv[1]))["figures"]}
d = json.load(open(sys.argv[2]))
r = {x["figure"]: x for x in d["figures"]}
g = s["syscalls.rate(getppid)"]
# twice the calls (exact); the rate rose, by about 100% on an idle machine (the time
# each run takes is the machine's: a loaded one stretched one run, +150% once)
assert g["status"] == "changed" and g["relative_pct"] > 0, g
assert g["base_count"] > 0 and g["new_count"] == 2 * g["base_count"], g
assert d["per"] == "requests", d["per"]
g = r["syscalls.rate(getppid)"]
assert g["status"] == "unchanged", g
assert abs(g["base"] - 100) < 1e-9 and abs(g["new"] - 100) < 1e-9, g
# per request, the unit says so (as the text does), not "/s"
assert g["unit"] == "/requests", g
assert s["syscalls.rate(getppid)"]["unit"] == "/s", s["syscalls.rate(getppid)"]
PY
"$ANA" diff --per requests "$TMP/one.ptop" "$TMP/two.ptop" |
	has -E '^rates per call of mark requests \(--per\)' || fail "text: --per not said"

# the recordings' settings differ: said at the top
"$ANA" diff "$TMP/one.ptop" "$TMP/none.ptop" >"$TMP/h.txt" || fail "diff one none: exit $?"
has -E '^  cpu\.sample_hz: 99 Hz on BASE, 199 Hz on NEW$' <"$TMP/h.txt" ||
	fail "the sampling rates' difference is not said: $(cat "$TMP/h.txt")"

# a mark on one side only, or of another name: an error
rc=0
"$ANA" diff --per requests "$TMP/one.ptop" "$TMP/none.ptop" >/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] || fail "--per with NEW unmarked: exit $rc, not 2"
has -E 'none\.ptop \(NEW\): no marks were counted' <"$TMP/err" || fail "--per: $(cat "$TMP/err")"
rc=0
"$ANA" diff --per jobs "$TMP/one.ptop" "$TMP/two.ptop" >/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] || fail "--per of a mark not recorded: exit $rc, not 2"
has "no mark 'jobs' was counted" <"$TMP/err" || fail "--per jobs: $(cat "$TMP/err")"

# a window where the mark was recorded and counted no call: said so, not "not counted"
rc=0
"$ANA" diff --per requests --window 100..200 "$TMP/one.ptop" "$TMP/two.ptop" >/dev/null \
	2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] || fail "--per in a window without calls: exit $rc, not 2"
has "mark 'requests' counted no call in the window" <"$TMP/err" ||
	fail "--per in a window without calls: $(cat "$TMP/err")"

# the recorder's side of a bad mark
rc=0
"$REC" --quiet --mark requests -o "$TMP/bad.ptop" -- "$FIX/regress" 100 0 1 0 >/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] || fail "--mark without =FUNC: exit $rc, not 2"
has 'NAME=FUNCTION' <"$TMP/err" || fail "--mark: $(cat "$TMP/err")"
rec "$TMP/nofunc.ptop" 1 --mark requests=no_such_function_here
info=$("$ANA" info "$TMP/nofunc.ptop")
echo "$info" | has -E '^ *mark +failed' && echo "$info" | has -E 'reason: --mark requests=no_such_function_here: no such function' ||
	fail "a mark on a missing function: $("$ANA" info "$TMP/nofunc.ptop" | grep -A1 mark)"
echo ok
