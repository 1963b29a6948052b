# The tls collector against ground truth: a Python TLS client (the target) and server over
# loopback, with a self-signed certificate made by `openssl req`. The client imports ssl
# after the recording started (libssl is dlopen'd then: attached late, said in tls_attach),
# writes 10 messages of 36 bytes and reads 10 answers of 8 bytes. Checked: the write calls
# and bytes exact, the read bytes exact, the fd from SSL_set_fd the client's; report tls in
# text, JSON and CSV; with --tls-bytes 16 the first 16 bytes of each write, and the capture
# marked SENSITIVE in info and the report; without --tls-bytes, and without the collector,
# not one payload byte in the (decompressed) capture; --tls-bytes without --enable tls and
# out of range are usage errors; a static target is "unsupported" with the reason.
. "$(dirname "$0")/../../../tests/e2e/lib.sh"
need_ebpf
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
	wait_until 20 test -s "$TMP/port" || fail "the TLS server did not start"
	"$REC" --quiet --interval 250ms "$@" -o "$out" -- "$PY" "$PEER" client "$(cat "$TMP/port")" \
		"$N" 1 >"$out.txt" 2>"$out.err" || fail "recording $out: $(cat "$out.err")"
	wait "$spid" || fail "the TLS server failed"
}

run "$TMP/plain.ptop" --enable tls
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
zstd -dcq "$TMP/bytes.ptop" | grep -aq '0000-secret-msg:' ||
	fail "the plaintext is not in the decompressed capture: the next check would prove nothing"
"$ANA" info "$TMP/bytes.ptop" | has 'SENSITIVE' || fail "info does not say the capture is sensitive"
"$ANA" info "$TMP/plain.ptop" | has 'SENSITIVE' && fail "info says sensitive without --tls-bytes"
for c in plain off; do
	zstd -dcq "$TMP/$c.ptop" | grep -aq 'secret-msg' && fail "$c: a payload byte in the capture"
	zstd -dcq "$TMP/$c.ptop" | grep -aq '0123456789abcdef' && fail "$c: a payload byte in the capture"
done
assert_eq "plain: no plaintext rows" "0" "$(q "$TMP/plain.ptop" "SELECT COUNT(*) FROM tls_data")"
"$ANA" info "$TMP/off.ptop" | has -E '^ *tls +disabled' || fail "off: tls not disabled"

# usage errors
expect_exit 2 "$REC" --tls-bytes 16 -o "$TMP/x.ptop" -- true
has -- '--enable tls' <"$TMP/err" || fail "--tls-bytes without tls: $(cat "$TMP/err")"
expect_exit 2 "$REC" --enable tls --tls-bytes 4097 -o "$TMP/x.ptop" -- true

echo "PASS"
