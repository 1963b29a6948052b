# The analyzer's cache: an entry per capture id and size. A copy and a move of a
# capture reuse its entry (cache list shows one, with the path last used); another
# capture gets its own; a capture changed in place at the same size, its mtime set
# back, is read again (the key holds the inode, ctime and a hash of the bytes), and one
# only touched is not; an entry in use (flock) is kept by prune and clear; prune removes the least recently used down to --max-size;
# clear removes all; an entry of another build (its schema id) is built again; a bad
# PTOP_CACHE_MAX is refused by `cache` and warned about by
# the commands that build an entry.
. "$(dirname "$0")/lib.sh"
"$REC" --quiet --no-ebpf --interval 100ms -o "$TMP/a.ptop" -- sleep 0.3
"$REC" --quiet --no-ebpf --interval 100ms -o "$TMP/b.ptop" -- sleep 0.2
entries() { "$ANA" cache list --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))'; }
last_source() { "$ANA" cache list --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["entries"][0]["source"])'; }

assert_eq "empty cache" 0 "$(entries)"
"$ANA" info "$TMP/a.ptop" >/dev/null
assert_eq "one capture, one entry" 1 "$(entries)"
cp "$TMP/a.ptop" "$TMP/copy.ptop"
"$ANA" info "$TMP/copy.ptop" | has "^file  *$TMP/copy.ptop" || fail "info of the copy does not name the copy"
assert_eq "a copy reuses the entry" 1 "$(entries)"
assert_eq "the entry knows the path last used" "$TMP/copy.ptop" "$(last_source)"
mv "$TMP/copy.ptop" "$TMP/moved.ptop"
"$ANA" report syscalls "$TMP/moved.ptop" >/dev/null
assert_eq "a move reuses the entry" 1 "$(entries)"
"$ANA" info "$TMP/b.ptop" >/dev/null
assert_eq "another capture, another entry" 2 "$(entries)"
"$ANA" cache list | tee "$TMP/list.txt"
has "^cache $XDG_CACHE_HOME/ptop: 2 entries" <"$TMP/list.txt" || fail "cache list does not count the entries"
"$ANA" cache list --format csv | has "^capture_id,capture_bytes,db_bytes,last_used,source,entry" ||
	fail "cache list --format csv has no header"

# an entry built by another build of ptop-analyze whose tables differ (application_id,
# the schema's id: 0 before the id existed) is built again, not used (its queries would
# fail on a column it lacks)
entry=$("$ANA" cache list --format json | python3 -c 'import json,sys
print([e["entry"] for e in json.load(sys.stdin)["entries"] if e["source"].endswith("/b.ptop")][0])')
appid() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("pragma application_id").fetchone()[0])' "$entry"; }
id=$(appid)
[ "$id" != 0 ] || fail "a new entry has no schema id"
python3 -c 'import sqlite3,sys; c = sqlite3.connect(sys.argv[1]); c.execute("pragma application_id = 0"); c.commit()' "$entry"
"$ANA" report syscalls "$TMP/b.ptop" >/dev/null || fail "report on an entry of another build: exit $?"
assert_eq "an entry of another build is built again" "$id" "$(appid)"
assert_eq "and replaced, not added" 2 "$(entries)"

# prune: b was used last, a goes
"$ANA" info "$TMP/b.ptop" >/dev/null
"$ANA" cache prune --max-size 1 | tee "$TMP/prune.txt"
has "removed 2 least recently used entries" <"$TMP/prune.txt" || fail "prune to 1 byte did not remove both"
assert_eq "after prune" 0 "$(entries)"
"$ANA" info "$TMP/a.ptop" >/dev/null
"$ANA" info "$TMP/b.ptop" >/dev/null
size_b=$(stat -c %s "$("$ANA" cache list --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["entries"][0]["entry"])')")
"$ANA" cache prune --max-size "$size_b" >/dev/null
assert_eq "prune keeps the most recently used within the cap" 1 "$(entries)"
assert_eq "the one kept is b's" "$TMP/b.ptop" "$(last_source)"

# the cap applies at each build
PTOP_CACHE_MAX=1 "$ANA" info "$TMP/a.ptop" >/dev/null
assert_eq "a build under PTOP_CACHE_MAX=1 leaves only itself" 1 "$(entries)"
assert_eq "the one kept is the new one" "$TMP/a.ptop" "$(last_source)"

# a capture changed in place: same size, same id, its mtime set back to the nanosecond
cp "$TMP/a.ptop" "$TMP/alt.ptop"
"$ANA" info "$TMP/alt.ptop" | has "^file .*: complete (read clean" || fail "alt.ptop is not read clean"
entry=$("$ANA" cache list --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["entries"][0]["entry"])')
ino=$(stat -c %i "$entry")
touch "$TMP/alt.ptop"
"$ANA" info "$TMP/alt.ptop" >/dev/null
assert_eq "a capture only touched keeps its entry (same bytes)" "$ino" "$(stat -c %i "$entry")"
touch -r "$TMP/alt.ptop" "$TMP/stamp"
size=$(stat -c %s "$TMP/alt.ptop")
printf '%064d' 0 | dd of="$TMP/alt.ptop" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
touch -r "$TMP/stamp" "$TMP/alt.ptop"
assert_eq "same size after the change" "$size" "$(stat -c %s "$TMP/alt.ptop")"
assert_eq "same mtime after the change" "$(stat -c %y "$TMP/stamp")" "$(stat -c %y "$TMP/alt.ptop")"
"$ANA" load --db "$TMP/fresh.db" "$TMP/alt.ptop" >/dev/null 2>&1 || true
fresh=$("$ANA" info "$TMP/fresh.db" 2>&1 | grep '^file' | sed 's/^file *[^:]*: //')
cached=$("$ANA" info "$TMP/alt.ptop" 2>&1 | grep '^file' | sed 's/^file *[^:]*: //')
case $fresh in *"read clean"*) fail "flipping 64 bytes did not make alt.ptop read differently: $fresh" ;; esac
assert_eq "a capture changed in place is read again, as a fresh load reads it" "$fresh" "$cached"

# an entry in use (a process holds a shared flock on it, as ptop-analyze does while it
# reads it) is never removed: not by prune, not by clear
entry=$("$ANA" cache list --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["entries"][0]["entry"])')
(
	exec 9<"$entry"
	flock -s 9
	exec sleep 30 # the lock goes with fd 9, into sleep: killing it releases the lock
) &
holder=$!
kill_at_exit "$holder"
for _ in $(seq 100); do flock -n -x "$entry" true 2>/dev/null || break; sleep 0.1; done
"$ANA" cache prune --max-size 1 >/dev/null
[ -f "$entry" ] || fail "prune removed an entry in use"
"$ANA" cache clear | tee "$TMP/clear.txt"
has "kept 1 in use" <"$TMP/clear.txt" || fail "clear does not say it kept the entry in use"
[ -f "$entry" ] || fail "clear removed an entry in use"
kill "$holder"
wait "$holder" 2>/dev/null || true

# clear
"$ANA" cache clear | has "removed [0-9]* entries" || fail "cache clear did not say what it removed"
assert_eq "after clear" 0 "$(entries)"

# usage
expect_exit 2 "$ANA" cache
expect_exit 2 "$ANA" cache drop
expect_exit 2 "$ANA" cache prune --max-size lots
has -- "--max-size takes a size" <"$TMP/err" || fail "no clear message for --max-size lots"
PTOP_CACHE_MAX=much expect_exit 2 "$ANA" cache list
has "PTOP_CACHE_MAX=much" <"$TMP/err" || fail "no clear message for PTOP_CACHE_MAX=much"
PTOP_CACHE_MAX=much "$ANA" info "$TMP/a.ptop" >/dev/null 2>"$TMP/warn"
has "PTOP_CACHE_MAX=much" <"$TMP/warn" || fail "a build with PTOP_CACHE_MAX=much does not warn"
echo "cache: ok"
