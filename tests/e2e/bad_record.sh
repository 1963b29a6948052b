# bad_record: one record that does not decode no longer sinks the capture (issue 21).
# The inputs are fuzz regression captures (tests/fuzz/regress_records/undecodable-*,
# written by tests/test_skip.c's harness): a real capture with one io (net) payload, or
# one whole record, that does not decode in a frame whose checksum passes. Every command
# used to refuse such a capture, info included, and salvage copied it as it was. Now:
# load, info, the reports and salvage's copy all work, and say what was skipped.
. "$(dirname "$0")/lib.sh"
R=$(cd "$(dirname "$0")/../fuzz/regress_records" && pwd)
io=$R/undecodable-io-payload-01
net=$R/undecodable-net-payload-01
rec=$R/undecodable-record-01
for f in "$io" "$net" "$rec"; do [ -f "$f" ] || fail "$f is missing"; done

"$ANA" load --db "$TMP/io.db" "$io" | tee "$TMP/load.txt"
has "1 skipped (not decodable)" <"$TMP/load.txt" || fail "load does not say it skipped a record"
"$ANA" info "$io" | tee "$TMP/info.txt"
has "^ *1 record skipped at load (io): not decodable" <"$TMP/info.txt" ||
	fail "info does not say which record it skipped"
"$ANA" info --format json "$io" | python3 -c '
import json, sys
d = json.load(sys.stdin)["drops"]["notices"]
n = sum(x["lost"] for x in d if x["kind"] == "undecodable" and x["collector"] == "io")
assert n == 1, d' || fail "info JSON has no io undecodable drop of 1"
"$ANA" report io "$io" >"$TMP/io.txt" || fail "report io refuses the capture"
has "undecodable" <"$TMP/io.txt" || fail "report io does not show the skipped record as a drop"
"$ANA" report net "$net" >/dev/null || fail "report net refuses the capture"
"$ANA" info "$rec" | has "^ *1 record skipped at load (capture)" ||
	fail "info does not say a whole record was skipped"
"$ANA" report syscalls "$rec" >/dev/null || fail "report syscalls refuses the capture"

# salvage's copy loads the same way
"$ANA" salvage "$io" -o "$TMP/copy.ptop" >/dev/null
"$ANA" info "$TMP/copy.ptop" | has "^ *1 record skipped at load (io)" ||
	fail "salvage's copy does not load, or does not say what it skipped"
echo "bad_record: ok"
