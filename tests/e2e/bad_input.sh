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

# Issue 10: each one-liner says what is wrong and what to do.
expect_exit 2 "$REC" --duration 1e99 -o "$TMP/d.ptop" -- true
grep -q 'the maximum is' "$TMP/err" || fail "--duration 1e99 does not name the maximum"
expect_exit 2 "$ANA" salvage /etc/passwd
grep -q 'not a ptop capture (no PTOPCAP magic' "$TMP/err" || fail "salvage of a text file does not say it is no capture"
"$REC" --quiet --no-ebpf -o "$TMP/ok.ptop" -- true
expect_exit 2 "$ANA" salvage -o "$TMP/no-such-dir/s.ptop" "$TMP/ok.ptop"
grep -q "cannot create $TMP/no-such-dir/s.ptop: No such file or directory" "$TMP/err" ||
	fail "salvage does not name the output it cannot create"
grep -q "ok.ptop" "$TMP/err" && fail "salvage blames the input for its output"
# A read-only folder (as nobody: root writes anywhere): the output and EACCES are named.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$TMP"
	mkdir -m 555 "$TMP/ro"
	chmod 644 "$TMP/ok.ptop"
	expect_exit 2 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$ANA" salvage -o "$TMP/ro/s.ptop" "$TMP/ok.ptop"
	grep -q "cannot create $TMP/ro/s.ptop: Permission denied" "$TMP/err" ||
		fail "salvage -o into a read-only folder does not name the output and the errno"
fi

# A cgroup v1 hierarchy (hybrid hosts): refused as such, naming the cgroup2 mount.
mounts() { awk -v t="$1" '{ for (i = 7; i <= NF && $i != "-"; i++) ;
	if ($(i + 1) == t) { print $5; exit } }' /proc/self/mountinfo; }
v1dir=$(mounts cgroup) v2dir=$(mounts cgroup2)
if [ -n "$v1dir" ] && [ -n "$v2dir" ]; then
	expect_exit 2 "$REC" --cgroup "$v1dir" -o "$TMP/cg.ptop" --duration 1s
	grep -q "cgroup v1.*$v2dir" "$TMP/err" || fail "--cgroup $v1dir: not called cgroup v1, or no cgroup2 path given"
	[ ! -e "$TMP/cg.ptop" ] || fail "a file was left behind for a v1 cgroup"
fi

# A cache folder others may write is refused, saying what to do.
mkdir -p "$TMP/opencache/ptop"
chmod 777 "$TMP/opencache/ptop"
XDG_CACHE_HOME=$TMP/opencache expect_exit 2 "$ANA" info "$TMP/ok.ptop"
grep -q "cache folder $TMP/opencache/ptop is writable by every user.*chmod go-w" "$TMP/err" ||
	fail "a world-writable cache folder was not refused"

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
