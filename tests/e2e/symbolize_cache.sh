# Offline symbolization by build-id through a symbol cache. A copy of cpu_split,
# stripped (its DWARF kept aside with objcopy --only-keep-debug), runs from a
# temporary folder and is deleted after recording. Then `symbolize` says
# no_file for it; a cache entry under its build-id holding another build's
# debug file is not used (its frames stay unnamed); with the right file in
# DIR/<build-id>/debuginfo its frames are named, down to file:line.
. "$(dirname "$0")/lib.sh"
need_ebpf
command -v objcopy >/dev/null || skip "objcopy (binutils) is not installed"
mkdir -p "$TMP/run" "$TMP/cache" "$TMP/wrong"
cp "$FIX/cpu_split" "$TMP/run/cpu_split"
objcopy --only-keep-debug "$TMP/run/cpu_split" "$TMP/cpu_split.debug"
objcopy --strip-all "$TMP/run/cpu_split"
id=$(readelf -n "$TMP/run/cpu_split" | awk '/Build ID/ {print $3}')
[ -n "$id" ] || fail "the fixture has no build-id"
"$REC" --quiet -o "$TMP/run.ptop" -- "$TMP/run/cpu_split" 2 >/dev/null
rm -f "$TMP/run/cpu_split"

# 1. the binary is gone: no_file, and the fix names the symbol cache
"$ANA" symbolize --format json "$TMP/run.ptop" > "$TMP/s1.json"
miss=$(jget "$TMP/s1.json" "[m['miss'] for m in j['modules'] if m['module'].endswith('/cpu_split')][0]")
assert_eq "miss for the deleted binary" no_file "$miss"
jget "$TMP/s1.json" "[m['fix'] for m in j['modules'] if m['module'].endswith('/cpu_split')][0]" |
	grep -q -- '--symbol-cache' || fail "the fix does not mention --symbol-cache"
"$ANA" symbolize "$TMP/run.ptop" | has 'cpu_split.*no_file' || fail "text output lacks the no_file module line"
echo "ok: text output names the module and no_file"

# 2. a cache entry with the right name but another build's file is ignored
objcopy --only-keep-debug "$FIX/spin" "$TMP/spin.debug"
mkdir -p "$TMP/wrong/$id"
cp "$TMP/spin.debug" "$TMP/wrong/$id/debuginfo"
"$ANA" symbolize --format json --symbol-cache "$TMP/wrong" "$TMP/run.ptop" > "$TMP/s2.json"
unnamed=$(jget "$TMP/s2.json" "[m['unnamed_frames'] for m in j['modules'] if m['module'].endswith('/cpu_split')][0]")
frames=$(jget "$TMP/s2.json" "[m['frames'] for m in j['modules'] if m['module'].endswith('/cpu_split')][0]")
assert_eq "cpu_split frames unnamed with a mismatching cache entry" "$frames" "$unnamed"
"$ANA" report cpu --format json "$TMP/run.ptop" > "$TMP/c2.json"
named=$(jget "$TMP/c2.json" "len([f for f in j['profile']['top_self'] if f['function'] in ('burn_hot', 'burn_cold')])")
assert_eq "functions named from the wrong file" 0 "$named"

# 3. the right debug file alone names the frames. objcopy --only-keep-debug
# zeroes the file offsets of its code segments, so it cannot say which file
# offset is which address: the capture's Mapping records carry that (the ELF
# address of each mapping, read from the binary's program headers at record time).
assert_ge "mappings with an ELF address" 1 \
	"$(q "$TMP/run.ptop" "select count(*) from mapping where path like '%/cpu_split' and elf_vaddr is not null")"
mkdir -p "$TMP/cache/$id"
cp "$TMP/cpu_split.debug" "$TMP/cache/$id/debuginfo"
# report cpu names what is missing itself, from the cache it is given
"$ANA" report cpu --format json --symbol-cache "$TMP/cache" "$TMP/run.ptop" > "$TMP/c3.json"
assert_eq "first by self" burn_hot "$(jget "$TMP/c3.json" "j['profile']['top_self'][0]['function']")"
"$ANA" symbolize --format json --symbol-cache "$TMP/cache" "$TMP/run.ptop" > "$TMP/s3.json"
unnamed=$(jget "$TMP/s3.json" "[m['unnamed_frames'] for m in j['modules'] if m['module'].endswith('/cpu_split')][0]")
assert_eq "cpu_split frames unnamed with the right cache entry" 0 "$unnamed"
assert_eq "its file" tests/fixtures/cpu_split.c "$(jget "$TMP/c3.json" "j['profile']['top_self'][0]['file']")"
# the names are stored: a report without the cache still has them
assert_eq "source of the names" 1 "$(jget "$TMP/s3.json" "int(j['frames']['named_by_source'].get('dwarf', 0) > 0)")"
