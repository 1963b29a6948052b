# The io collector's file identities and event paths against what io_churn did:
# - reuse: 5 files created, written 6 bytes and removed one after another, which the
#   file system may give one inode number: 5 files (inode and generation), each its own
#   path, 1 write of 6 bytes each (not one file of 30 bytes in 5 writes).
# - truncate: 14 files each ftruncate()d to 100 + K through an fd whose number the next
#   one gets: each event names its own file (resolved at the call), with --io-events and
#   with --io-files.
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

echo PASS
