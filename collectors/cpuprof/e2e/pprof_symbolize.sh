# pprof_symbolize.sh — `export --format pprof` of a CPU profile can be re-symbolized
# (issue 13): tests/fixtures/spin, stripped of its symbols before it is recorded (ptop
# names none of its frames: `spin+0xOFFSET`), exported; `go tool pprof -raw` shows the
# program's mapping first, with its real range, file offset, path and build-id (readelf's),
# [kernel] after the files; its frames are addresses without names (has_functions false).
# Given the unstripped binary, `go tool pprof BINARY PROFILE` names them (main, now_s):
# every one addr2line (which pprof runs) names at the ELF address its mapping gives (a junk
# frame of a frame-pointer walk, in no function, stays an address); and addr2line names
# the hottest one main or now_s.
# (Go's own pprof does not read build-ids, so it does not find files in
# $PPROF_BINARY_PATH by build-id as the upstream pprof does: the binary is given instead,
# and pprof matches it to the first mapping: hence the program's mapping first.)
. tests/e2e/lib.sh
need_ebpf
command -v go >/dev/null || skip "no 'go' command (Debian package golang-go): go tool pprof reads the profile"
for t in strip addr2line readelf; do
	command -v $t >/dev/null || skip "no '$t' (Debian package binutils)"
done
need_fixture spin
export HOME=$TMP GOCACHE=$TMP/gocache GOFLAGS=-mod=mod GOPROXY=off

mkdir -p "$TMP/bin"
cp "$FIX/spin" "$TMP/bin/spin.full"
cp "$FIX/spin" "$TMP/bin/spin"
strip "$TMP/bin/spin"
bid=$(readelf -n "$TMP/bin/spin" | awk '/Build ID:/ { print $3 }')
[ -n "$bid" ] || fail "the stripped fixture has no build-id"
"$REC" --quiet -o "$TMP/cpu.ptop" -- "$TMP/bin/spin" 2 >/dev/null
"$ANA" export --format folded "$TMP/cpu.ptop" >"$TMP/cpu.folded"
has -E ';spin\+0x[0-9a-f]+ [0-9]+$' <"$TMP/cpu.folded" ||
	{ cat "$TMP/cpu.folded" >&2; fail "ptop named the stripped program's frames: the test needs them unnamed"; }
"$ANA" export --format pprof -o "$TMP/cpu.pb.gz" "$TMP/cpu.ptop"

go tool pprof -raw -symbolize=none "$TMP/cpu.pb.gz" >"$TMP/raw.txt" 2>"$TMP/raw.err" ||
	{ cat "$TMP/raw.err" >&2; fail "go tool pprof -raw cannot read the profile"; }
m1=$(awk '/^Mappings/ { getline; print; exit }' "$TMP/raw.txt")
echo "ok: first mapping: $m1"
read -r id range path mbid flags <<<"$m1"
assert_eq "first mapping: the program" "$TMP/bin/spin" "$path"
assert_eq "its build-id" "$bid" "$mbid"
assert_eq "no functions in it (pprof may name them)" "" "$flags"
IFS=/ read -r start limit off <<<"$range"
[ $((start)) -gt 0 ] && [ $((limit)) -gt $((start)) ] || fail "no range: $range"
[ $((start % 4096)) = 0 ] && [ $((limit % 4096)) = 0 ] || fail "not page ranges: $range"
echo "ok: its range $start..$limit, file offset $off"
# every file's mapping has a range; [kernel] comes after them
awk '/^Mappings/ { m = 1; next } m && / \// { if ($2 ~ /^0x0\/0x0\//) bad = 1; last = NR }
	m && / \[kernel\]/ { k = NR } END { exit !(!bad && (k == 0 || k > last)) }' "$TMP/raw.txt" ||
	{ sed -n '/^Mappings/,$p' "$TMP/raw.txt" >&2; fail "a file mapping without a range, or [kernel] before a file"; }
echo "ok: file mappings have ranges; [kernel] after them"
# the program's locations: addresses without names
unnamed=$(awk '/^Locations/ { l = 1; next } /^Mappings/ { l = 0 }
	l && $3 == "M=1" && NF == 3 { print $2 }' "$TMP/raw.txt")
[ -n "$unnamed" ] || { cat "$TMP/raw.txt" >&2; fail "no unnamed location in the program's mapping"; }
echo "ok: $(echo $unnamed | wc -w) unnamed locations in the program"

# elf_addr ADDR: the ELF address in the unstripped file of runtime address ADDR of the
# program's mapping (its file offset, then the LOAD segment that holds that offset)
elf_addr() {
	readelf -lW "$TMP/bin/spin.full" | python3 -c '
import sys
fo = int(sys.argv[1])
for line in sys.stdin:
    f = line.split()
    if f and f[0] == "LOAD":
        o, v, s = int(f[1], 16), int(f[2], 16), int(f[4], 16)
        if o <= fo < o + s:
            print(hex(fo - o + v))
            break' $(($1 - start + off))
}

# pprof names them from the unstripped binary: all those addr2line (which pprof runs)
# names; a junk frame of a frame-pointer walk (an address in no function) stays unnamed
go tool pprof -raw "$TMP/bin/spin.full" "$TMP/cpu.pb.gz" >"$TMP/named.txt" 2>"$TMP/named.err" ||
	{ cat "$TMP/named.err" >&2; fail "go tool pprof BINARY PROFILE failed"; }
awk '/^Locations/ { l = 1; next } /^Mappings/ { l = 0 } l && $3 == "M=1" { print $4 }' \
	"$TMP/named.txt" | has -x main || { cat "$TMP/named.txt" >&2; fail "pprof did not name main"; }
go tool pprof -top "$TMP/bin/spin.full" "$TMP/cpu.pb.gz" 2>/dev/null | has -E ' main$' ||
	fail "go tool pprof -top BINARY PROFILE shows no main"
echo "ok: go tool pprof BINARY PROFILE names the program's frames (main)"
for a in $(awk '/^Locations/ { l = 1; next } /^Mappings/ { l = 0 }
	l && $3 == "M=1" && NF == 3 { print $2 }' "$TMP/named.txt"); do
	va=$(elf_addr "$a")
	fn=$(addr2line -f -e "$TMP/bin/spin.full" "${va:-0}" | head -1)
	assert_eq "left unnamed by pprof: $a (ELF $va): addr2line names it neither" "??" "$fn"
done

# addr2line on the ELF address of the hottest of them names a function of the program
a=$(echo "$unnamed" | head -1)
va=$(elf_addr "$a")
[ -n "$va" ] || fail "$a is in no LOAD segment of the fixture"
fn=$(addr2line -f -e "$TMP/bin/spin.full" "$va" | head -1)
case "$fn" in
main | now_s) echo "ok: addr2line names $a (ELF address $va): $fn" ;;
*) fail "addr2line names $a (ELF address $va) '$fn', not main or now_s" ;;
esac
echo "PASS"
