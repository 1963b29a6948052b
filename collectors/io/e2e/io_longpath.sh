# The io collector's long paths against what io_churn did:
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

# same NAME WANT GOT: assert_eq for paths of thousands of bytes, told by length and ends
same() {
	[ "$2" = "$3" ] && { echo "ok: $1 (${#2} bytes)"; return; }
	fail "$1: expected ${#2} bytes '${2:0:40}...${2: -40}', got ${#3} bytes '${3:0:40}...${3: -40}'"
}

D=$TMP/long
mkdir -p "$D"
C=$TMP/long.ptop
"$REC" --quiet --io-events -o "$C" -- "$FIX/io_churn" longrename "$D" >"$TMP/names" || fail "io_churn longrename failed"
old=$(sed -n 1p "$TMP/names") new=$(sed -n 2p "$TMP/names")
assert_eq "longrename: the paths io_churn used are 4,095 bytes" "4095 4095" "${#old} ${#new}"
same "longrename: the rename event's two paths whole" "$old|$new" \
	"$(q "$C" "select path || '|' || new_path from io_event where kind = 'renamed'")"
same "longrename: the created event's path whole" "$old" \
	"$(q "$C" "select path from io_event where kind = 'created' and path like '$D/%'")"
# the per-file lane: the file's 2 writes (8 bytes) on one row under its new whole path
D=$TMP/long2
mkdir -p "$D"
C=$TMP/long2.ptop
"$REC" --quiet --io-files -o "$C" -- "$FIX/io_churn" longrename "$D" >"$TMP/names2" || fail "io_churn longrename failed"
old=$(sed -n 1p "$TMP/names2") new=$(sed -n 2p "$TMP/names2")
same "longrename --io-files: the rename event's two paths whole" "$old|$new" \
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
