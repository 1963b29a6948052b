# `diff --format junit` is well-formed XML whatever a gate holds: bytes that are not UTF-8
# (a gate given in another encoding, or garbage) come out as U+FFFD, as the JSON has them,
# and markup is escaped (issue 21). Two --no-ebpf captures: no eBPF needed.
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 is not installed (the XML check)"
"$REC" --quiet --no-ebpf -o "$TMP/a.ptop" -- true || fail "recording a"
"$REC" --quiet --no-ebpf -o "$TMP/b.ptop" -- true || fail "recording b"
gate=$'syscalls.rate(\xff\xfe<&\xc3) > +10%'
rc=0
"$ANA" diff --format junit --fail-on "$gate" "$TMP/a.ptop" "$TMP/b.ptop" >"$TMP/d.xml" \
	2>/dev/null || rc=$?
assert_eq "junit: the gate is not comparable (syscalls need eBPF): exit" 1 "$rc"
"$ANA" diff --format json --fail-on "$gate" "$TMP/a.ptop" "$TMP/b.ptop" >"$TMP/d.json" \
	2>/dev/null || true
python3 - "$TMP/d.xml" "$TMP/d.json" <<'PY' || fail "junit XML: $(cat "$TMP/d.xml")"
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = list(root.iter("testcase"))
assert len(cases) == 1, cases
name = cases[0].get("name")
assert name == "syscalls.rate(\ufffd\ufffd<&\ufffd) > +10%", repr(name)
assert name == json.load(open(sys.argv[2]))["gates"][0]["expr"]
assert cases[0].find("failure").get("message").startswith(name)
PY
echo "ok: junit well-formed, the gate's bad bytes as U+FFFD"
