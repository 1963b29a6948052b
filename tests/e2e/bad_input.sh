# Bad input: a one-line error saying what to do, exit 2, no file left behind.
. "$(dirname "$0")/lib.sh"
nopid=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
while [ -e /proc/$nopid ]; do nopid=$((nopid - 1)); done

expect_exit 2 "$REC" --pid $nopid -o "$TMP/a.ptop"
grep -q "$nopid" "$TMP/err" || fail "error does not name the pid"
[ ! -e "$TMP/a.ptop" ] || fail "a file was left behind for a missing pid"

expect_exit 2 "$REC" -o /nonexistent-dir/x.ptop -- true
expect_exit 2 "$REC" -o "$TMP/b.ptop" -- /nonexistent/command
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

# A DB whose rows no capture can hold: report, export and replay refuse it as corrupt
# (exit 2, the table and row named); sql still opens it. The capture: a fuzz seed.
seed=$(dirname "$0")/../fuzz/corpus_records/seed-02
"$ANA" load --db "$TMP/c.db" "$seed" >/dev/null || fail "cannot load $seed"
python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE cpu_sample SET interval_ns = 0 WHERE rowid = (SELECT MIN(rowid) FROM cpu_sample)")
db.execute("UPDATE cpu_profile SET time_ns = -5 WHERE seq = (SELECT MAX(seq) FROM cpu_profile)")
db.commit()' "$TMP/c.db" || fail "cannot alter the DB"
expect_exit 2 "$ANA" report cpu "$TMP/c.db"
grep -q 'corrupt DB: cpu_sample row [0-9]*: interval_ns is 0' "$TMP/err" ||
	fail "report cpu does not say which row is corrupt: $(cat "$TMP/err")"
expect_exit 2 "$ANA" export --format folded -o "$TMP/out.folded" "$TMP/c.db"
grep -q 'corrupt DB: cpu_profile row [0-9]*: time_ns is -5' "$TMP/err" ||
	fail "export does not say which row is corrupt: $(cat "$TMP/err")"
expect_exit 2 "$ANA" replay --dump "$TMP/c.db"
grep -q 'corrupt DB' "$TMP/err" || fail "replay does not say the DB is corrupt"
"$ANA" sql "$TMP/c.db" 'SELECT COUNT(*) FROM cpu_sample' >/dev/null || fail "sql refused the DB"
