# --debuginfod: a local debuginfod server (127.0.0.1) serves the debug file of
# a stripped fixture. Without the flag nothing is fetched and the frames stay
# unnamed; with it they are named, and the file lands in the symbol cache.
. "$(dirname "$0")/lib.sh"
need_ebpf
command -v debuginfod >/dev/null || skip "no debuginfod (Debian package debuginfod)"
command -v objcopy >/dev/null || skip "objcopy (binutils) is not installed"
mkdir -p "$TMP/run" "$TMP/serve" "$TMP/symcache"
cp "$FIX/cpu_split" "$TMP/run/cpu_split"
objcopy --only-keep-debug "$TMP/run/cpu_split" "$TMP/serve/cpu_split.debug"
objcopy --strip-all "$TMP/run/cpu_split"
id=$(readelf -n "$TMP/run/cpu_split" | awk '/Build ID/ {print $3}')
[ -n "$id" ] || fail "the fixture has no build-id"
"$REC" --quiet -o "$TMP/run.ptop" -- "$TMP/run/cpu_split" 2 >/dev/null

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -p "$port" -d "$TMP/dbd.sqlite" -F "$TMP/serve" >"$TMP/debuginfod.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null; rm -rf "$TMP"' EXIT
url=http://127.0.0.1:$port
# wait (bounded) until it has scanned the folder and serves the file
python3 - "$url/buildid/$id/debuginfo" <<'PY' || { cat "$TMP/debuginfod.log"; fail "debuginfod did not serve the debug file"; }
import sys, time, urllib.request
for _ in range(300):
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=2) as r:
            if r.status == 200:
                sys.exit(0)
    except Exception:
        pass
    time.sleep(0.1)
sys.exit(1)
PY
export DEBUGINFOD_CACHE_PATH=$TMP/client-cache

# 0a. --debuginfod with no server configured: said, and the fix does not offer
#     --debuginfod again but a server for it
env -u DEBUGINFOD_URLS "$ANA" symbolize --debuginfod --symbol-cache "$TMP/sc0" "$TMP/run.ptop" >"$TMP/s0.txt"
cat "$TMP/s0.txt"
has '^debuginfod: no server was asked: DEBUGINFOD_URLS is not set' <"$TMP/s0.txt" ||
	fail "symbolize --debuginfod without DEBUGINFOD_URLS does not say no server was asked"
has 'give --debuginfod a server' <"$TMP/s0.txt" || fail "the fix does not say to give --debuginfod a server"
has 'or use --debuginfod' <"$TMP/s0.txt" && fail "the fix still suggests --debuginfod, which was given"
env -u DEBUGINFOD_URLS "$ANA" symbolize --format json --debuginfod --symbol-cache "$TMP/sc0" "$TMP/run.ptop" >"$TMP/s0.json"
assert_eq "no server: servers" None "$(jget "$TMP/s0.json" "j['debuginfod']['servers']")"
assert_eq "no server: lookups" 0 "$(jget "$TMP/s0.json" "j['debuginfod']['lookups']")"
assert_ge "no server: files wanted" 1 "$(jget "$TMP/s0.json" "j['debuginfod']['wanted']")"
# without --debuginfod: no debuginfod line, null in JSON
"$ANA" symbolize --format json "$TMP/run.ptop" >"$TMP/s0n.json"
assert_eq "not asked: debuginfod" None "$(jget "$TMP/s0n.json" "j['debuginfod']")"

# 0b. an unreachable server (a loopback port nobody listens on): tried, and the report
#     says which server, how many lookups failed and the first error
dead=http://127.0.0.1:$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
env -u DEBUGINFOD_URLS "$ANA" report cpu --debuginfod-urls "$dead" --symbol-cache "$TMP/sc1" "$TMP/run.ptop" >"$TMP/c0.txt"
has "^debuginfod: $dead: [0-9]* lookups*, 0 found, 0 not found, [1-9][0-9]* failed (first error: " <"$TMP/c0.txt" ||
	fail "report cpu with an unreachable server does not say so: $(grep debuginfod "$TMP/c0.txt")"
grep '^debuginfod' "$TMP/c0.txt"
env -u DEBUGINFOD_URLS "$ANA" symbolize --format json --debuginfod-urls "$dead" --symbol-cache "$TMP/sc1" "$TMP/run.ptop" >"$TMP/s1.json"
assert_eq "unreachable: servers" "$dead" "$(jget "$TMP/s1.json" "j['debuginfod']['servers']")"
assert_ge "unreachable: failed" 1 "$(jget "$TMP/s1.json" "j['debuginfod']['failed']")"
[ "$(jget "$TMP/s1.json" "j['debuginfod']['first_error']")" != None ] || fail "no first error in JSON"
jget "$TMP/s1.json" "[m['fix'] for m in j['modules'] if m['module'].endswith('/cpu_split')][0]" | has 'see the debuginfod line' ||
	fail "the fix for cpu_split does not point at what debuginfod said"

export DEBUGINFOD_URLS=$url

# 1. without --debuginfod: nothing fetched, burn_hot not named
"$ANA" report cpu --format json --symbol-cache "$TMP/symcache" "$TMP/run.ptop" > "$TMP/c1.json"
named=$(jget "$TMP/c1.json" "len([f for f in j['profile']['top_self'] if f['function'] == 'burn_hot'])")
assert_eq "burn_hot named without --debuginfod" 0 "$named"

assert_eq "files fetched without --debuginfod" 0 "$(find "$TMP/symcache" "$TMP/client-cache" -type f 2>/dev/null | wc -l)"

# 2. with it: named from the served DWARF, kept in the symbol cache
"$ANA" symbolize --format json --debuginfod --symbol-cache "$TMP/symcache" "$TMP/run.ptop" > "$TMP/s2.json"
unnamed=$(jget "$TMP/s2.json" "[m['unnamed_frames'] for m in j['modules'] if m['module'].endswith('/cpu_split')][0]")
assert_eq "cpu_split frames unnamed with --debuginfod" 0 "$unnamed"
assert_ge "found by the server" 1 "$(jget "$TMP/s2.json" "j['debuginfod']['found']")"
assert_eq "server asked" "$url" "$(jget "$TMP/s2.json" "j['debuginfod']['servers']")"
"$ANA" report cpu --format json "$TMP/run.ptop" > "$TMP/c2.json"
assert_eq "first by self" burn_hot "$(jget "$TMP/c2.json" "j['profile']['top_self'][0]['function']")"
[ -s "$TMP/symcache/$id/debuginfo" ] || fail "the fetched debug file is not in the symbol cache"
echo "ok: the debug file landed in the symbol cache"
