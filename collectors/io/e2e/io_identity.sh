# The io collector's file identities and event paths against what io_churn did:
# - reuse: 5 files created, written 6 bytes and removed one after another, which the
#   file system may give one inode number: 5 files (inode and generation), each its own
#   path, 1 write of 6 bytes each (not one file of 30 bytes in 5 writes).
# - truncate: 14 files each ftruncate()d to 100 + K through an fd whose number the next
#   one gets: each event names its own file (resolved at the call), with --io-events and
#   with --io-files.
# - longrename: a 4,095-byte path renamed to another: both names kept to 255 bytes and
#   marked cut (U+2026), not given as if whole; under --io-files its row's path (walked
#   up the dentries, names of 63 bytes at most) marked cut where it was.
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
mark=$'\xe2\x80\xa6'
assert_eq "longrename: both names cut at 255 bytes and marked" "${old:0:255}$mark|${new:0:255}$mark" \
	"$(q "$C" "select path || '|' || new_path from io_event where kind = 'renamed'")"
assert_eq "longrename: the created event's path marked too" "${old:0:255}$mark" \
	"$(q "$C" "select path from io_event where kind = 'created' and path like '$D/%'")"
# the per-file lane: the file's 2 writes (8 bytes) on one row, whose path (walked up the
# dentries: 24 components of 63 bytes at most) says where it was cut, not a wrong whole
D=$TMP/long2
mkdir -p "$D"
C=$TMP/long2.ptop
"$REC" --quiet --io-files -o "$C" -- "$FIX/io_churn" longrename "$D" >/dev/null || fail "io_churn longrename failed"
assert_eq "longrename --io-files: one file, 2 writes, 8 bytes" "1|2|8" \
	"$(q "$C" "select count(distinct file) || '|' || sum(calls) || '|' || sum(bytes) from io_file where op = 'write' and type = 'file'")"
assert_eq "longrename --io-files: its path marked cut" 1 \
	"$(q "$C" "select count(*) from io_file where op = 'write' and type = 'file' and instr(path, '$mark') > 0")"
echo PASS
