# Bad input: a one-line error saying what to do, exit 2, no file left behind.
. "$(dirname "$0")/lib.sh"
nopid=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
while [ -e /proc/$nopid ]; do nopid=$((nopid - 1)); done

expect_exit 2 "$REC" --pid $nopid -o "$TMP/a.ptop"
grep -q "$nopid" "$TMP/err" || fail "error does not name the pid"
[ ! -e "$TMP/a.ptop" ] || fail "a file was left behind for a missing pid"

expect_exit 2 "$REC" -o /nonexistent-dir/x.ptop -- true
expect_exit 127 "$REC" -o "$TMP/b.ptop" -- /nonexistent/command
[ ! -e "$TMP/b.ptop" ] || fail "a file was left behind for a missing command"
expect_exit 2 "$REC" --no-such-option
expect_exit 2 "$REC"
expect_exit 2 "$REC" --pid 1 --interval banana
expect_exit 2 "$REC" --disable nosuchcollector -- true

touch "$TMP/exists.ptop"
expect_exit 2 "$REC" -o "$TMP/exists.ptop" -- true
grep -q -- '--force' "$TMP/err" || fail "the error does not mention --force"
[ ! -s "$TMP/exists.ptop" ] || fail "an existing file was overwritten without --force"

# The analyzer: missing file, garbage, an empty file, a wrong command.
expect_exit 2 "$ANA" info "$TMP/missing.ptop"
head -c 4096 /dev/urandom >"$TMP/garbage.ptop"
expect_exit 2 "$ANA" info "$TMP/garbage.ptop"
: >"$TMP/empty.ptop"
expect_exit 2 "$ANA" info "$TMP/empty.ptop"
expect_exit 2 "$ANA" frobnicate
expect_exit 2 "$ANA" report syscalls --window 5..2 "$TMP/garbage.ptop"

# --help and --version work and exit 0.
"$REC" --help | has -- '--no-ebpf' || fail "ptop-record --help lacks --no-ebpf"
"$ANA" --help | has 'report' || fail "ptop-analyze --help lacks report"
"$REC" --version | has '[0-9]\.[0-9]' || fail "no version"
