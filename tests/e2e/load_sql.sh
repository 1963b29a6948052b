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
