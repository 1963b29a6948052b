# A full disk ends the recording cleanly with an error, and everything
# written before stays readable.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
mkdir -p "$TMP/small"
mount -t tmpfs -o size=256k tmpfs "$TMP/small" 2>/dev/null || skip "cannot mount tmpfs here"
trap 'umount "$TMP/small" 2>/dev/null; rm -rf "$TMP"' EXIT
# Fill the disk but for a little room, so the recorder hits ENOSPC soon.
head -c 244k /dev/zero >"$TMP/small/filler" || true

rc=0
"$REC" --no-ebpf --interval 50ms --vma-interval 50ms --flush-interval 100ms \
	-o "$TMP/small/run.ptop" -- "$FIX/spin" 20 2>"$TMP/rec.err" || rc=$?
cat "$TMP/rec.err"
# a launched command's recorder failure is 125, as timeout(1) and env(1) say theirs
assert_eq "recorder exit code on a full disk" 125 "$rc"
grep -q 'No space left' "$TMP/rec.err" || fail "no 'No space left on device' message"
cp "$TMP/small/run.ptop" "$TMP/run.ptop"
"$ANA" info "$TMP/run.ptop" | tee "$TMP/info.txt"
assert_ge "samples kept" 1 "$(q "$TMP/run.ptop" "select count(*) from memory_sample")"

# A disk already full: the capture cannot even get its header. No file is made (no
# empty or 20-byte stub that info would refuse), and the error says so.
head -c 256k /dev/zero >"$TMP/small/filler2" 2>/dev/null || true
rc=0
"$REC" --no-ebpf -o "$TMP/small/none.ptop" -- true 2>"$TMP/rec2.err" || rc=$?
cat "$TMP/rec2.err"
[ "$rc" != 0 ] || fail "a recording on a full disk exited 0"
grep -q 'no file was made' "$TMP/rec2.err" || fail "the error does not say no file was made"
[ -z "$(ls -A "$TMP/small" | grep -v '^filler2\?$' | grep -v '^run.ptop$')" ] ||
	fail "something was left on the full disk: $(ls -A "$TMP/small")"

# The analyzer's cache on a full disk: an SQLite failure, not an input error
# (ptop-analyze(1): 1, and 3 for diff so that CI never reads it as a regression)
mkdir "$TMP/small/cache"
rc=0
XDG_CACHE_HOME=$TMP/small/cache "$ANA" diff "$TMP/run.ptop" "$TMP/run.ptop" >/dev/null \
	2>"$TMP/diff.err" || rc=$?
cat "$TMP/diff.err"
assert_eq "diff with its cache on a full disk: exit" 3 "$rc"
grep -q 'disk is full' "$TMP/diff.err" || fail "diff does not say the disk is full"
rc=0
XDG_CACHE_HOME=$TMP/small/cache "$ANA" report syscalls "$TMP/run.ptop" >/dev/null \
	2>"$TMP/report.err" || rc=$?
assert_eq "report with its cache on a full disk: exit" 3 "$rc"
grep -q 'disk is full' "$TMP/report.err" || fail "report does not say the disk is full"
