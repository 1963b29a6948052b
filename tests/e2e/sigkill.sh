# A recorder killed with SIGKILL after 3 s leaves a capture from which info
# recovers at least 2 s of data and says it is truncated; salvage repairs it.
. "$(dirname "$0")/lib.sh"
"$FIX/spin" 30 & target=$!
trap 'kill $target 2>/dev/null || true; rm -rf "$TMP"' EXIT
"$REC" --quiet --pid $target --interval 250ms -o "$TMP/cut.ptop" & rec=$!
sleep 3
kill -KILL $rec
wait $rec 2>/dev/null || true

"$ANA" info "$TMP/cut.ptop" | tee "$TMP/info.txt"
grep -Eiq 'truncated|cut short' "$TMP/info.txt" || fail "info does not say the capture is truncated"
assert_eq "complete" 0 "$(q "$TMP/cut.ptop" "select complete from capture")"
span_ms=$(q "$TMP/cut.ptop" "select (last_event_ns - first_event_ns) / 1000000 from capture")
assert_ge "recovered span (ms)" 2000 "$span_ms"

"$ANA" salvage -o "$TMP/fixed.ptop" "$TMP/cut.ptop"
assert_eq "salvaged complete" 1 "$(q "$TMP/fixed.ptop" "select complete from capture")"
assert_eq "salvaged end reason" salvaged "$(q "$TMP/fixed.ptop" "select end_reason from capture")"
assert_eq "salvaged index" 1 "$(q "$TMP/fixed.ptop" "select has_index from capture")"
assert_eq "same samples" "$(q "$TMP/cut.ptop" "select count(*) from cpu_sample")" \
	"$(q "$TMP/fixed.ptop" "select count(*) from cpu_sample")"
