# load: many captures in one DB, none twice; sql is read-only; a .ptop is
# accepted wherever a DB is, through a cache rebuilt when the file changes.
. "$(dirname "$0")/lib.sh"
"$REC" --quiet --no-ebpf --interval 100ms -o "$TMP/one.ptop" -- "$FIX/syscall_mem" 10 1 300 100
"$REC" --quiet --no-ebpf --interval 100ms -o "$TMP/two.ptop" -- "$FIX/syscall_mem" 10 1 300 100

"$ANA" load --db "$TMP/all.db" "$TMP/one.ptop" "$TMP/two.ptop"
"$ANA" load --db "$TMP/all.db" "$TMP/one.ptop"
assert_eq "captures in DB" 2 "$(q "$TMP/all.db" "select count(*) from capture")"
assert_eq "targets in DB" 2 "$(q "$TMP/all.db" "select count(*) from target")"
assert_eq "user_version" "$(sed -n 's/^#define DB_SCHEMA_VERSION //p' analyze/db.h)" "$(q "$TMP/all.db" "pragma user_version")"

expect_exit 2 "$ANA" sql "$TMP/all.db" "delete from capture"
assert_eq "captures after a refused delete" 2 "$(q "$TMP/all.db" "select count(*) from capture")"
expect_exit 2 "$ANA" sql "$TMP/all.db" "select nonsense from nowhere"

# Two captures in one DB: a report must be told which.
expect_exit 2 "$ANA" report mem "$TMP/all.db"
id=$(q "$TMP/one.ptop" "select capture_id from capture")
"$ANA" report mem --capture "${id:0:8}" "$TMP/all.db" >/dev/null

"$ANA" sql --format json "$TMP/one.ptop" "select capture_id, complete from capture" >"$TMP/q.json"
assert_eq "json sql" "$id" "$(jget "$TMP/q.json" 'j[0]["capture_id"]')"

# A refused statement is refused before anything runs: the first statement's rows
# are not printed (issue 10).
expect_exit 2 "$ANA" sql "$TMP/all.db" "select 'first-ran'; delete from capture"
grep -q 'first-ran' "$TMP/out" && fail "sql ran the first statement before refusing the second"
grep -q 'statement 2' "$TMP/err" || fail "the refusal does not name statement 2"
expect_exit 2 "$ANA" sql "$TMP/all.db" "select 'first-ran'; select nonsense from nowhere"
grep -q 'first-ran' "$TMP/out" && fail "sql ran the first statement before a bad second one"
assert_eq "captures after a refused second statement" 2 "$(q "$TMP/all.db" "select count(*) from capture")"

# ptop-capture(5) names the schema version the analyzer writes.
assert_eq "user_version in ptop-capture(5)" "$(sed -n 's/^#define DB_SCHEMA_VERSION //p' analyze/db.h)" \
	"$(sed -n 's/^is the schema version (\([0-9]*\))\.$/\1/p' man/ptop-capture.5)"

# A DB with a table dropped: replay (and every command) names it (issue 10: "not an error").
cp "$TMP/all.db" "$TMP/dropped.db"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("drop table probe"); c.commit()' "$TMP/dropped.db"
expect_exit 2 "$ANA" replay --dump --capture "${id:0:8}" "$TMP/dropped.db"
grep -q 'no table probe:.*load the captures again' "$TMP/err" || fail "replay does not name the dropped table"
