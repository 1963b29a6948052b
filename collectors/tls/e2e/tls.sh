# The tls collector against ground truth: a Python TLS client (the target) and server over
# loopback, with a self-signed certificate made by `openssl req`. The client imports ssl
# after the recording started (libssl is dlopen'd then: attached late, said in tls_attach),
# writes 10 messages of 36 bytes and reads 10 answers of 8 bytes. Checked: the write calls
# and bytes exact, the read bytes exact, the fd from SSL_set_fd the client's; report tls in
# text, JSON and CSV, the peer from net, the figures; with --tls-bytes 16 the first 16 bytes of each write, and the capture
# marked SENSITIVE in info and the report; without --tls-bytes, and without the collector,
# not one payload byte in the (decompressed) capture; --tls-bytes without --enable tls and
# out of range are usage errors; a --pid target with libssl mapped before the start; a static
# target (heap_static) is "unsupported" with the reason.
. "$(dirname "$0")/../../../tests/e2e/lib.sh"
need_ebpf
need_fixture heap_static
command -v openssl >/dev/null || skip "no openssl to make a certificate"
command -v zstd >/dev/null || skip "no zstd to read the capture's bytes"
PY=$(python3 -c 'import sys, ssl; print(sys.executable)') || skip "python3 has no ssl module"
PEER=$(dirname "$0")/tls_peer.py
N=10

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TMP/k.pem" -out "$TMP/c.pem" -days 1 \
	-subj /CN=localhost >/dev/null 2>&1 || fail "openssl req"

run() { # OUT [OPTIONS...]: one server, the client recorded
	local out=$1 spid
	shift
	rm -f "$TMP/port"
	"$PY" "$PEER" server "$TMP/c.pem" "$TMP/k.pem" "$TMP/port" &
	spid=$!
	kill_at_exit "$spid"
	wait_until "the TLS server's port" test -s "$TMP/port"
	"$REC" --quiet --interval 250ms "$@" -o "$out" -- "$PY" "$PEER" client "$(cat "$TMP/port")" \
		"$N" 1 >"$out.txt" 2>"$out.err" || fail "recording $out: $(cat "$out.err")"
	wait "$spid" || fail "the TLS server failed"
	cp "$TMP/port" "$out.port"
}

run "$TMP/plain.ptop" --enable tls,net
run "$TMP/bytes.ptop" --enable tls --tls-bytes 16
run "$TMP/off.ptop"

for c in plain bytes; do
	f=$TMP/$c.ptop
	"$ANA" info "$f" | has -E '^ *tls +active +ebpf' || fail "$c: tls not active: $("$ANA" info "$f")"
	assert_eq "$c: libssl attached after the start (dlopen)" "0" \
		"$(q "$f" "SELECT at_start FROM tls_attach")"
	q "$f" "SELECT library FROM tls_attach" | has 'libssl\.so' || fail "$c: no libssl named"
	assert_eq "$c: write calls" "$N" "$(q "$f" "SELECT SUM(write_calls) FROM tls_conn")"
	assert_eq "$c: write bytes" "$((N * 36))" "$(q "$f" "SELECT SUM(write_bytes) FROM tls_conn")"
	assert_eq "$c: read bytes" "$((N * 8))" "$(q "$f" "SELECT SUM(read_bytes) FROM tls_conn")"
	assert_eq "$c: one connection" "1" "$(q "$f" "SELECT COUNT(DISTINCT ssl) FROM tls_conn")"
	fd=$(sed -n 's/^fd //p' "$f.txt")
	assert_eq "$c: its fd (SSL_set_fd)" "$fd" "$(q "$f" "SELECT DISTINCT fd FROM tls_conn")"
done

# plaintext: only with --tls-bytes, the first 16 bytes of each write
assert_eq "bytes: one record per write" "$N" \
	"$(q "$TMP/bytes.ptop" "SELECT COUNT(*) FROM tls_data WHERE direction = 'write'")"
want=$(for i in $(seq 0 $((N - 1))); do printf '%04d-secret-msg:\n' "$i"; done)
got=$(q "$TMP/bytes.ptop" "SELECT CAST(data AS TEXT) FROM tls_data WHERE direction = 'write' ORDER BY time_ns")
assert_eq "bytes: the first 16 bytes of each write" "$want" "$got"
assert_eq "bytes: each write's length" "36" \
	"$(q "$TMP/bytes.ptop" "SELECT DISTINCT length FROM tls_data WHERE direction = 'write'")"
raw() { zstd -dcq "$1" >"$1.raw" || fail "zstd cannot read $1"; } # the capture's bytes
raw "$TMP/bytes.ptop"
grep -aq '0000-secret-msg:' "$TMP/bytes.ptop.raw" ||
	fail "the plaintext is not in the decompressed capture: the next check would prove nothing"
"$ANA" info "$TMP/bytes.ptop" | has 'SENSITIVE' || fail "info does not say the capture is sensitive"
"$ANA" info "$TMP/plain.ptop" | has 'SENSITIVE' && fail "info says sensitive without --tls-bytes"
for c in plain off; do
	raw "$TMP/$c.ptop"
	grep -aq 'secret-msg' "$TMP/$c.ptop.raw" && fail "$c: a payload byte in the capture"
	grep -aq '0123456789abcdef' "$TMP/$c.ptop.raw" && fail "$c: a payload byte in the capture"
done
assert_eq "plain: no plaintext rows" "0" "$(q "$TMP/plain.ptop" "SELECT COUNT(*) FROM tls_data")"
"$ANA" info "$TMP/off.ptop" | has -E '^ *tls +disabled' || fail "off: tls not disabled"

# --pid on a target that mapped libssl before the start: attached at the start (its
# TlsAttach written at the first poll), the calls exact
rm -f "$TMP/port" "$TMP/go"
"$PY" "$PEER" server "$TMP/c.pem" "$TMP/k.pem" "$TMP/port" &
spid=$!
kill_at_exit "$spid"
wait_until "the TLS server's port" test -s "$TMP/port"
"$PY" "$PEER" pidclient "$(cat "$TMP/port")" "$N" "$TMP/go" >"$TMP/pc.out" &
cpid=$!
kill_at_exit "$cpid"
wait_line "$TMP/pc.out" ready "the --pid client"
"$REC" --interval 250ms --enable tls --pid "$cpid" -o "$TMP/pid.ptop" 2>"$TMP/pid.err" &
rpid=$!
kill_at_exit "$rpid"
wait_line "$TMP/pid.err" "probes:" "the --pid recording's start"
sleep 0.5 # past the recorder's start (its probe set is written before its first poll)
touch "$TMP/go"
wait "$cpid" || fail "the --pid client failed"
wait "$rpid" || fail "recording --pid: $(cat "$TMP/pid.err")"
wait "$spid" || true
"$ANA" info "$TMP/pid.ptop" | has -E '^ *tls +active +ebpf' || fail "--pid: tls not active: $(cat "$TMP/pid.err")"
assert_eq "--pid: libssl attached at the start" "1" "$(q "$TMP/pid.ptop" "SELECT at_start FROM tls_attach")"
assert_eq "--pid: write calls" "$N" "$(q "$TMP/pid.ptop" "SELECT SUM(write_calls) FROM tls_conn")"
assert_eq "--pid: write bytes" "$((N * 36))" "$(q "$TMP/pid.ptop" "SELECT SUM(write_bytes) FROM tls_conn")"

# report tls: the connection's figures in text, JSON and CSV; the peer from net
"$ANA" report tls --format json "$TMP/plain.ptop" >"$TMP/r.json" || fail "report tls json: exit $?"
python3 - "$TMP/r.json" "$N" "$(cat "$TMP/plain.ptop.port")" <<'PY' || fail "report tls json: $(cat "$TMP/r.json")"
import json, sys
j = json.load(open(sys.argv[1])); n = int(sys.argv[2]); port = sys.argv[3]
assert j["collected"] and j["attached"] and not j["sensitive"], j
assert "plaintext" not in j, j
t = j["totals"]
assert (t["connections"], t["write_calls"], t["write_bytes"], t["read_bytes"]) == (1, n, 36 * n, 8 * n), t
c = j["connections"][0]
assert c["write_calls"] == n and c["write_bytes"] == 36 * n and c["read_bytes"] == 8 * n, c
assert c["write_mean_ns"] > 0 and c["write_max_ns"] >= c["write_mean_ns"], c
assert c["peer"] == "127.0.0.1:" + port, c
PY
"$ANA" report tls "$TMP/plain.ptop" >"$TMP/r.txt" || fail "report tls: exit $?"
has -E "1 connections; written $N calls, $((N * 36)) B" <"$TMP/r.txt" || fail "report tls: $(cat "$TMP/r.txt")"
has 'SENSITIVE' <"$TMP/r.txt" && fail "report tls says sensitive without --tls-bytes"
"$ANA" report tls --format csv "$TMP/plain.ptop" >"$TMP/r.csv" || fail "report tls csv: exit $?"
assert_eq "csv: write bytes" "$((N * 36))" "$(python3 -c 'import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))["write_bytes"])' "$TMP/r.csv")"
"$ANA" report tls "$TMP/bytes.ptop" >"$TMP/b.txt" || fail "report tls bytes: exit $?"
head -1 "$TMP/b.txt" | has '^SENSITIVE' || fail "report tls: no SENSITIVE banner: $(cat "$TMP/b.txt")"
has '0003-secret-msg:' <"$TMP/b.txt" || fail "report tls: the plaintext not shown"
has 'peer: not collected' <"$TMP/b.txt" || fail "report tls without net: the peer not said not collected"
"$ANA" report tls --format json "$TMP/bytes.ptop" >"$TMP/b.json" || fail "report tls bytes json"
assert_eq "json: sensitive" "True" "$(jget "$TMP/b.json" 'j["sensitive"]')"
assert_eq "json: plaintext rows" "$((2 * N))" "$(jget "$TMP/b.json" 'len(j["plaintext"])')"
"$ANA" report tls --format csv "$TMP/bytes.ptop" 2>"$TMP/b.err" >/dev/null || fail "report tls bytes csv"
has 'SENSITIVE' <"$TMP/b.err" || fail "report tls csv: sensitive not said"
"$ANA" report tls "$TMP/off.ptop" | has 'not collected' || fail "off: report tls not 'not collected'"

# figures: the report's totals; not measured when tls did not run
fig() { "$ANA" figures --format csv "$1" | awk -F, -v f="$2" '$1 == f { print $2 }'; }
assert_eq "figure tls.write_calls" "$N" "$(fig "$TMP/plain.ptop" tls.write_calls)"
assert_eq "figure tls.write_bytes" "$((N * 36))" "$(fig "$TMP/plain.ptop" tls.write_bytes)"
assert_eq "figure tls.read_bytes" "$((N * 8))" "$(fig "$TMP/plain.ptop" tls.read_bytes)"
"$ANA" figures "$TMP/off.ptop" | has -E '^tls\.write_bytes +not measured' ||
	fail "off: tls.write_bytes not 'not measured'"
"$ANA" diff "$TMP/plain.ptop" "$TMP/bytes.ptop" >/dev/null || fail "diff of two tls captures: exit $?"

# a static executable maps no libssl: unsupported, with the reason
"$REC" --quiet --enable tls -o "$TMP/static.ptop" -- "$FIX/heap_static" >/dev/null 2>&1 ||
	fail "recording heap_static"
"$ANA" info "$TMP/static.ptop" | has -E '^ *tls +unsupported' || fail "static: tls not unsupported"
"$ANA" info "$TMP/static.ptop" | has 'statically linked: it maps no libssl' ||
	fail "static: the reason not said"
"$ANA" report tls "$TMP/static.ptop" | has 'not collected (unsupported' ||
	fail "static: report tls does not say not collected"
echo "ok: a static target: tls unsupported, the reason said"

# usage errors
expect_exit 2 "$REC" --tls-bytes 16 -o "$TMP/x.ptop" -- true
has -- '--enable tls' <"$TMP/err" || fail "--tls-bytes without tls: $(cat "$TMP/err")"
expect_exit 2 "$REC" --enable tls --tls-bytes 4097 -o "$TMP/x.ptop" -- true

echo "PASS"
