# The io collector's file identities and event paths against what io_churn did:
# - reuse: 5 files created, written 6 bytes and removed one after another, which the
#   file system may give one inode number: 5 files (inode and generation), each its own
#   path, 1 write of 6 bytes each (not one file of 30 bytes in 5 writes).
# - truncate: 14 files each ftruncate()d to 100 + K through an fd whose number the next
#   one gets: each event names its own file (resolved at the call), with --io-events and
#   with --io-files.
# - longrename: a 4,095-byte path (PATH_MAX - 1) renamed to another: the events carry
#   both names whole (once they were cut at 255 bytes); under --io-files the file is one
#   row under its new whole path with both writes' bytes (its path walked up the
#   dentries whole, the rename applied to it).
# - deeprename: a file whose absolute path is past PATH_MAX (reached by chdir), renamed
#   by relative names: the events give the names as the caller did; its row's path is
#   the end of its absolute path, marked cut ("..." before it), not given as if whole.
. tests/e2e/lib.sh
need_fixture io_churn
need_ebpf

D=$TMP/reuse
mkdir -p "$D"
C=$TMP/reuse.ptop
"$REC" --quiet --io-files -o "$C" -- "$FIX/io_churn" reuse "$D" 5 || fail "io_churn reuse failed"
inodes=$(q "$C" "select count(distinct ino) from io_file where path like '$D/r%'")
echo "reuse: the 5 files had $inodes inode number(s)"
[ "$inodes" -lt 5 ] || skip "the file system under $TMP gave each file its own inode: no reuse to test"
assert_eq "reuse: one row per file, its own path, 6 bytes in 1 write" \
	"$D/r1|1|6 $D/r2|1|6 $D/r3|1|6 $D/r4|1|6 $D/r5|1|6" \
	"$(q "$C" "select group_concat(x, ' ') from (select path || '|' || sum(calls) || '|' || sum(bytes) as x
		from io_file where path like '$D/r%' and op = 'write' group by file, path order by path)")"
assert_eq "reuse: 5 identities" 5 "$(q "$C" "select count(distinct file) from io_file where path like '$D/r%'")"
"$ANA" report io --format json "$C" >"$TMP/r.json"
assert_eq "reuse: report io lists 5 files of 6 bytes" "5|30" \
	"$(jget "$TMP/r.json" 'str(sum(1 for f in j["files"] if f["path"].startswith("'"$D"'/r"))) + "|" + str(sum(f["written_bytes"] for f in j["files"] if f["path"].startswith("'"$D"'/r")))')"

for mode in --io-events --io-files; do
	D=$TMP/trunc$mode
	mkdir -p "$D"
	C=$TMP/trunc$mode.ptop
	"$REC" --quiet "$mode" -o "$C" -- "$FIX/io_churn" truncate "$D" 14 || fail "io_churn truncate failed"
	want=$(for k in $(seq 1 14); do printf '%s ' "$D/t$k|$((100 + k))"; done)
	assert_eq "truncate $mode: each event its own file" "${want% }" \
		"$(q "$C" "select group_concat(path || '|' || length, ' ') from (select path, length from io_event where kind = 'truncated' order by time_ns)")"
done

D=$TMP/long
mkdir -p "$D"
C=$TMP/long.ptop
"$REC" --quiet --io-events -o "$C" -- "$FIX/io_churn" longrename "$D" >"$TMP/names" || fail "io_churn longrename failed"
old=$(sed -n 1p "$TMP/names") new=$(sed -n 2p "$TMP/names")
assert_eq "longrename: the paths io_churn used are 4,095 bytes" "4095 4095" "${#old} ${#new}"
assert_eq "longrename: the rename event's two paths whole" "$old|$new" \
	"$(q "$C" "select path || '|' || new_path from io_event where kind = 'renamed'")"
assert_eq "longrename: the created event's path whole" "$old" \
	"$(q "$C" "select path from io_event where kind = 'created' and path like '$D/%'")"
# the per-file lane: the file's 2 writes (8 bytes) on one row under its new whole path
D=$TMP/long2
mkdir -p "$D"
C=$TMP/long2.ptop
"$REC" --quiet --io-files -o "$C" -- "$FIX/io_churn" longrename "$D" >"$TMP/names2" || fail "io_churn longrename failed"
old=$(sed -n 1p "$TMP/names2") new=$(sed -n 2p "$TMP/names2")
assert_eq "longrename --io-files: the rename event's two paths whole" "$old|$new" \
	"$(q "$C" "select path || '|' || new_path from io_event where kind = 'renamed'")"
assert_eq "longrename --io-files: one file, 2 writes, 8 bytes" "1|2|8" \
	"$(q "$C" "select count(distinct file) || '|' || sum(calls) || '|' || sum(bytes) from io_file where op = 'write' and path like '$D/%'")"
"$ANA" report io --format json "$C" >"$TMP/long2.json"
assert_eq "longrename --io-files: report io, one row under the new path with both writes" \
	"1|8|1" \
	"$(jget "$TMP/long2.json" 'str(sum(1 for f in j["files"] if (f["path"] or "").startswith("'"$D"'/"))) + "|" + str(sum(f["written_bytes"] for f in j["files"] if (f["path"] or "").startswith("'"$D"'/"))) + "|" + str(sum(1 for f in j["files"] if f["path"] == open("'"$TMP/names2"'").read().split("\n")[1]))')"
# past PATH_MAX: the row's path is the end of the absolute path, with the mark of the cut
D=$TMP/deep
mkdir -p "$D"
C=$TMP/deep.ptop
"$REC" --quiet --io-files -o "$C" -- "$FIX/io_churn" deeprename "$D" >"$TMP/names3" || fail "io_churn deeprename failed"
old=$(sed -n 1p "$TMP/names3") new=$(sed -n 2p "$TMP/names3")
[ "${#old}" -gt 4096 ] || fail "deeprename: the absolute path is ${#old} bytes, not past PATH_MAX"
assert_eq "deeprename: the rename event's paths as given" "a|b" \
	"$(q "$C" "select path || '|' || new_path from io_event where kind = 'renamed'")"
assert_eq "deeprename: one file, 2 writes, 8 bytes" "1|2|8" \
	"$(q "$C" "select count(distinct file) || '|' || sum(calls) || '|' || sum(bytes) from io_file where op = 'write' and type = 'file' and path not like '$TMP/names%'")"
row=$(q "$C" "select path from io_file where op = 'write' and type = 'file' and path not like '$TMP/names%'")
assert_eq "deeprename: its path starts with the mark of the cut" "..." "${row:0:3}"
tail=${row:3}
if [ "${old: -${#tail}}" != "$tail" ] && [ "${new: -${#tail}}" != "$tail" ]; then
	fail "deeprename: the row's path after '...' (${#tail} bytes) is not the end of the file's path"
fi
[ "${#tail}" -ge 3900 ] || fail "deeprename: only ${#tail} bytes of the path kept"
echo PASS
