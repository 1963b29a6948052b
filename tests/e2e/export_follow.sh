# export --format jsonl [--follow]: every record one JSON object a line, read straight
# from the capture; a follower prints while the recorder still writes, waits for a
# partial frame instead of calling it damage, ends by itself at the trailer with the end
# reason as its last line, and reads a cut capture as the run without --follow does.
. "$(dirname "$0")/lib.sh"

valid_json() { python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' <"$1"; }
last_end() { tail -n 1 "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["end"])'; }

# 1. a recording of several seconds, followed while it is written
"$REC" --no-ebpf --interval 100ms --flush-interval 200ms -o "$TMP/live.ptop" -- sleep 5 \
	2>"$TMP/rec.err" & rec=$!
kill_at_exit $rec
wait_until "the capture's first bytes" test -s "$TMP/live.ptop"
"$ANA" export --format jsonl --follow "$TMP/live.ptop" >"$TMP/follow.jsonl" \
	2>"$TMP/follow.err" & fol=$!
kill_at_exit $fol
wait_line "$TMP/follow.jsonl" '"kind":"event"' "the follower's first event"
kill -0 $rec 2>/dev/null || fail "the recorder had ended before the follower printed an event"
echo "ok: an event printed while the recorder still ran"
wait $rec || fail "ptop-record exited $?"
# the follower ends by itself once it reads the trailer (30 s is a hang guard only)
wait_until "the follower to end by itself" sh -c "! kill -0 $fol 2>/dev/null"
rc=0
wait $fol || rc=$?
cat "$TMP/follow.err"
assert_eq "follower exit" 0 $rc
valid_json "$TMP/follow.jsonl" || fail "a line of the follower's output is not JSON"
assert_eq "follower's end" trailer "$(last_end "$TMP/follow.jsonl")"
tail -n 1 "$TMP/follow.jsonl" | grep -q '"reason":"END_REASON_TARGET_EXIT"' ||
	fail "the end line does not give the trailer's reason: $(tail -n 1 "$TMP/follow.jsonl")"
"$ANA" export --format jsonl "$TMP/live.ptop" >"$TMP/whole.jsonl"
cmp "$TMP/whole.jsonl" "$TMP/follow.jsonl" || fail "the follower's lines differ from the finished file's"
echo "ok: follower = export of the finished file ($(wc -l <"$TMP/whole.jsonl") lines)"
assert_ge "events" 10 "$(grep -c '"kind":"event"' "$TMP/whole.jsonl")"
head -n 1 "$TMP/whole.jsonl" | grep -q '"kind":"header"' || fail "the first line is not the header"
# a collector's payload (fds: a CollectorPayload) unpacked by its part's descriptor
grep -q '"category":"fds","pid":[0-9]*,"interval_ns":[0-9]*,"type":"ptop.v1.FdSample","payload":{"total":' \
	"$TMP/whole.jsonl" || fail "no fds sample rendered by its descriptor"
grep -q '"undecoded"' "$TMP/whole.jsonl" && fail "a collector's payload was left undecoded"
# the loader's count of records equals the lines (all but the end line)
n=$(($(wc -l <"$TMP/whole.jsonl") - 1))
grep -q "\"records\":$n}" <(tail -n 1 "$TMP/whole.jsonl") || fail "the end line's records is not $n"

# 2. a cut copy (inside a frame): the same lines with and without --follow, ended "cut"
size=$(stat -c %s "$TMP/live.ptop")
cut_at=
for pct in 50 55 60 65 70 45 40; do
	head -c $((size * pct / 100)) "$TMP/live.ptop" >"$TMP/cut.ptop"
	"$ANA" export --format jsonl "$TMP/cut.ptop" >"$TMP/cut.jsonl"
	if tail -n 1 "$TMP/cut.jsonl" | grep -q '"at_byte"'; then cut_at=$((size * pct / 100)); break; fi
done
[ -n "$cut_at" ] || fail "no cut point inside a frame found"
valid_json "$TMP/cut.jsonl" || fail "a line of the cut copy's output is not JSON"
assert_eq "cut copy's end" cut "$(last_end "$TMP/cut.jsonl")"
tail -n 1 "$TMP/cut.jsonl" | grep -q 'truncated at byte' || fail "the cut end line does not say where"
"$ANA" export --format jsonl --follow --follow-timeout 500ms "$TMP/cut.ptop" >"$TMP/cutf.jsonl"
cmp "$TMP/cut.jsonl" "$TMP/cutf.jsonl" || fail "a cut copy reads differently with --follow"
echo "ok: cut at byte $cut_at: same $(wc -l <"$TMP/cut.jsonl") lines with and without --follow"
head -n -1 "$TMP/cut.jsonl" >"$TMP/cut.body"
head -n "$(wc -l <"$TMP/cut.body")" "$TMP/whole.jsonl" | cmp - "$TMP/cut.body" ||
	fail "the cut copy's records are not the first ones of the whole file"

# 3. a partial frame while following is waited for: the rest appended, the follower
# reads on to the trailer (not "cut", not "corrupt")
cp "$TMP/cut.ptop" "$TMP/grow.ptop"
"$ANA" export --format jsonl --follow --follow-timeout 60s "$TMP/grow.ptop" >"$TMP/grow.jsonl" & fol=$!
kill_at_exit $fol
wait_until "the follower to print the copy's records" \
	sh -c "[ \$(wc -l <'$TMP/grow.jsonl') -ge $(wc -l <"$TMP/cut.body") ]"
kill -0 $fol 2>/dev/null || fail "the follower ended at a partial frame"
tail -c +$((cut_at + 1)) "$TMP/live.ptop" >>"$TMP/grow.ptop"
wait_until "the follower to end once the rest arrived" sh -c "! kill -0 $fol 2>/dev/null"
wait $fol || fail "the follower exited $?"
cmp "$TMP/whole.jsonl" "$TMP/grow.jsonl" || fail "a frame completed later reads differently"
echo "ok: a partial frame completed later is read, not taken for damage"

# 4. a capture on standard output, through a pipe into a file, followed
"$REC" --no-ebpf --interval 100ms --flush-interval 200ms -o - -- sleep 3 2>"$TMP/rec2.err" |
	cat >"$TMP/piped.ptop" & rec=$!
kill_at_exit $rec
wait_until "the piped capture's first bytes" test -s "$TMP/piped.ptop"
"$ANA" export --format jsonl --follow "$TMP/piped.ptop" >"$TMP/piped.jsonl" & fol=$!
kill_at_exit $fol
wait_line "$TMP/piped.jsonl" '"kind":"event"' "the piped follower's first event"
kill -0 $rec 2>/dev/null || fail "the piped recorder had ended before the follower printed an event"
wait $rec || fail "the piped recording exited $?"
wait_until "the piped follower to end by itself" sh -c "! kill -0 $fol 2>/dev/null"
wait $fol || fail "the piped follower exited $?"
valid_json "$TMP/piped.jsonl" || fail "a line of the piped follower's output is not JSON"
assert_eq "piped follower's end" trailer "$(last_end "$TMP/piped.jsonl")"
"$ANA" export --format jsonl "$TMP/piped.ptop" | cmp - "$TMP/piped.jsonl" ||
	fail "the piped follower's lines differ from the finished file's"

# 5. strings are strict UTF-8: a byte that is not (here in the recorded argv) is U+FFFD
"$REC" --no-ebpf -o "$TMP/utf.ptop" -- sh -c 'exit 0' x$'\xff'y 2>/dev/null
"$ANA" export --format jsonl "$TMP/utf.ptop" >"$TMP/utf.jsonl"
valid_json "$TMP/utf.jsonl" || fail "a line with a non-UTF-8 string is not JSON"
grep -q '"x\\ufffdy"' "$TMP/utf.jsonl" || fail "the byte 0xff is not written as U+FFFD"
echo "ok: a non-UTF-8 byte is U+FFFD"

# 6. usage: --follow is for jsonl; --follow-timeout for --follow; not a capture
expect_exit 2 "$ANA" export --format folded --follow "$TMP/live.ptop"
expect_exit 2 "$ANA" export --format jsonl --follow-timeout 1s "$TMP/live.ptop"
expect_exit 2 "$ANA" export --format jsonl --follow --follow-timeout 0 "$TMP/live.ptop"
echo "not a capture" >"$TMP/not.ptop"
expect_exit 2 "$ANA" export --format jsonl "$TMP/not.ptop"
grep -q 'not a ptop capture' "$TMP/err" || fail "a non-capture is not said"
echo "PASS"
