# A stripped Go program (go build -ldflags='-s -w': no GNU build-id, no
# symbols, no DWARF) is named through .gopclntab, identified by its Go build
# ID note; and the [vdso]'s frames are named from the image the recorder
# embedded.
. tests/e2e/lib.sh
need_ebpf
command -v go >/dev/null || skip "no 'go' command (Debian package golang-go)"
mkdir -p "$TMP/go"
cp tests/fixtures/go/spin.go "$TMP/go/"
(cd "$TMP/go" && GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GO111MODULE=off GOPROXY=off \
	GOFLAGS=-mod=mod go build -ldflags='-s -w' -o spin spin.go)
readelf -n "$TMP/go/spin" | has 'GNU_BUILD_ID' && fail "the fixture has a GNU build-id: the test means one without"

"$REC" --quiet -o "$TMP/run.ptop" -- "$TMP/go/spin" 3
assert_eq "build-id kind of the Go binary" go \
	"$(q "$TMP/run.ptop" "select distinct build_id_kind from mapping where path like '%/go/spin'")"
"$ANA" report cpu --format json "$TMP/run.ptop" > "$TMP/cpu.json"
assert_eq "first by self" main.spinGo "$(jget "$TMP/cpu.json" "j['profile']['top_self'][0]['function']")"
assert_eq "its source file" spin.go \
	"$(jget "$TMP/cpu.json" "j['profile']['top_self'][0]['file'].rsplit('/', 1)[-1]")"
hot=$(jget "$TMP/cpu.json" "round(j['profile']['top_self'][0]['self_pct'])")
assert_ge "main.spinGo self %" 80 "$hot"
"$ANA" symbolize --format json "$TMP/run.ptop" > "$TMP/sym.json"
assert_eq "Go frames named through" 1 "$(jget "$TMP/sym.json" "int(j['frames']['named_by_source'].get('gopclntab', 0) > 0)")"
assert_eq "vdso symbols embedded" 1 \
	"$(q "$TMP/run.ptop" "select count(*) > 0 from module_symbols where path = '[vdso]'")"
