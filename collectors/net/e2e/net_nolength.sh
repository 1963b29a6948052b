# The net collector on a kernel without the sock_send_length tracepoint (before Linux 6.3:
# Debian 12's 6.1), forced by PTOP_TEST_REFUSE (record/kfeature.h): the eBPF lane loads
# without its sock_length lane and the probe set says why; what the other tracepoints
# measure stays exact on net_exchange's ground truth (11 connections to the server, each
# CLOSE>SYN_SENT>ESTABLISHED with its connect latency, 3 refused, 1 reset by the peer),
# and the bytes are not measured: NULL in the DB, "not measured" in the report and the
# figures, never 0. On a kernel that truly lacks the tracepoint (the kernel matrix's 6.1)
# the same holds with the kernel's reason in place of the refusal.
. tests/e2e/lib.sh
need_fixture net_exchange
need_ebpf

C=$TMP/net.ptop
PTOP_TEST_REFUSE=tp_btf:sock_send_length "$REC" --quiet --enable net --interval 250ms \
	-o "$C" -- "$FIX/net_exchange" 1 >"$TMP/ports"
eval "$(cat "$TMP/ports" | tr ' ' '\n')"
srv="127.0.0.1:$server_port"
closed="127.0.0.1:$closed_port"
assert_eq "net probe" "active/ebpf" \
	"$(q "$C" "select state || '/' || source from probe where name = 'net'")"
assert_eq "net lanes" "proc=active tcp=active sock_length=unsupported" \
	"$(q "$C" "select group_concat(lane || '=' || state, ' ') from (select * from probe_lane
		where probe = 'net' order by seq)")"
assert_eq "sock_length: why" 1 \
	"$(q "$C" "select reason in ('bytes, calls and send/receive errors not measured: needs Linux 6.3: tp_btf:sock_send_length (refused by PTOP_TEST_REFUSE)',
		'bytes, calls and send/receive errors not measured: needs Linux 6.3: tp_btf:sock_send_length (the kernel has no tracepoint sock_send_length)') as ok
		from probe_lane where probe = 'net' and lane = 'sock_length'")"

assert_eq "connections to the server" 11 \
	"$(q "$C" "select count(distinct sock) from net_socket where remote = '$srv'")"
assert_eq "sockets with a byte count" 0 \
	"$(q "$C" "select count(*) from net_socket where tx_bytes is not null or rx_bytes is not null
		or tx_calls is not null or rx_calls is not null")"
assert_eq "connect latency measured on the 11 connections" 11 \
	"$(q "$C" "select count(distinct sock) from net_socket where remote = '$srv' and connect_ns > 0")"
chg="select sock, group_concat(old_state || '>' || new_state, ';') c from (select * from net_state order by time_ns, rowid) group by sock"
assert_eq "connections that began CLOSE>SYN_SENT;SYN_SENT>ESTABLISHED" 11 \
	"$(q "$C" "select count(*) from ($chg) where c like 'CLOSE>SYN_SENT;SYN_SENT>ESTABLISHED%' and sock in (select sock from net_socket where remote = '$srv')")"
assert_eq "refused" "3/3" \
	"$(q "$C" "select sum(count) || '/' || count(distinct sock) from net_error where kind = 'refused' and remote = '$closed'")"
assert_eq "reset by the peer" 1 \
	"$(q "$C" "select sum(count) from net_error where kind = 'reset_by_peer' and remote = '$srv'")"

"$ANA" report net "$C" >"$TMP/net.txt"
sed -n 1,3p "$TMP/net.txt"
has -E '^net .*sent not measured, received not measured' <"$TMP/net.txt" ||
	fail "report net does not say the bytes were not measured"
has '^bytes, calls and send/receive errors not measured: needs Linux 6.3: tp_btf:sock_send_length' \
	<"$TMP/net.txt" || fail "report net does not say why the bytes were not measured"
"$ANA" report net --format json "$C" >"$TMP/net.json"
assert_eq "json: tx_bytes" None "$(jget "$TMP/net.json" 'j["totals"]["tx_bytes"]')"
assert_eq "json: why" 1 "$(jget "$TMP/net.json" 'int("needs Linux 6.3" in j["bytes_not_measured"])')"
"$ANA" figures --format json "$C" >"$TMP/fig.json"
assert_eq "figure net.tx_bytes" None \
	"$(jget "$TMP/fig.json" '[f["value"] for f in j["figures"] if f["figure"] == "net.tx_bytes"][0]')"
assert_eq "figure net.connections" 11 \
	"$(jget "$TMP/fig.json" '[f["value"] for f in j["figures"] if f["figure"] == "net.connections"][0]')"
