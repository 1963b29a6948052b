# Ground truth of the net collector (tests/fixtures/net_exchange.c): the target sends and
# receives exactly 100,000 bytes on each of 10 TCP connections to a server it forked
# (1,000,000 each way), sends 1,000 bytes on an 11th that the server resets mid-stream,
# connects 3 times to a closed loopback port, moves 10,000 bytes over a UNIX socketpair and
# 100 datagrams of 100 bytes over UDP, and holds a TCP listener open. Checked: per
# connection bytes exact, 3 `refused` with a SYN-to-RST latency, 1 `reset_by_peer`, the
# UNIX and UDP sockets on their types, the listener; the /proc lane alone (--no-ebpf) and
# --disable net say what they could not measure.
. tests/e2e/lib.sh
need_fixture net_exchange
need_ebpf

C=$TMP/net.ptop
"$REC" --quiet --enable net --interval 250ms -o "$C" -- "$FIX/net_exchange" 1 >"$TMP/ports"
cat "$TMP/ports"
eval "$(cat "$TMP/ports" | tr ' ' '\n')"
assert_eq "net probe" "active/ebpf" \
	"$(q "$C" "select state || '/' || source from probe where name = 'net'")"
# this test's ground truth is bytes: a kernel without the sock_send_length tracepoint
# (before 6.3) has no byte counts, said so by the sock_length lane; net_nolength.sh checks
# what such a kernel measures of the same fixture
if [ "$(q "$C" "select state from probe_lane where probe = 'net' and lane = 'sock_length'")" = unsupported ]; then
	skip "no byte counts on this kernel: $(q "$C" "select reason from probe_lane where probe = 'net' and lane = 'sock_length'")"
fi
srv="127.0.0.1:$server_port"
closed="127.0.0.1:$closed_port"

# per connection: one socket key each, summed over its intervals
per_conn="select sock, sum(tx_bytes) tx, sum(rx_bytes) rx from net_socket where remote = '$srv' group by sock"
assert_eq "connections to the server" 11 "$(q "$C" "select count(*) from ($per_conn)")"
assert_eq "connections with 100000 bytes each way" 10 \
	"$(q "$C" "select count(*) from ($per_conn) where tx = 100000 and rx = 100000")"
assert_eq "the reset connection: 1000 sent, 0 received" 1 \
	"$(q "$C" "select count(*) from ($per_conn) where tx = 1000 and rx = 0")"
assert_eq "bytes sent to the server" 1001000 \
	"$(q "$C" "select sum(tx_bytes) from net_socket where remote = '$srv'")"
assert_eq "bytes received from the server" 1000000 \
	"$(q "$C" "select sum(rx_bytes) from net_socket where remote = '$srv'")"
assert_eq "connect latency measured on the 11 connections" 11 \
	"$(q "$C" "select count(distinct sock) from net_socket where remote = '$srv' and connect_ns > 0")"
# plausible: above 0 and below the fixture's whole run (loopback: far below), once each
assert_eq "connect latency on the 10 exchanging connections, once each, in (0, 5 s)" "10/10" \
	"$(q "$C" "select count(*) || '/' || count(distinct s.sock) from net_socket s join ($per_conn) c using (sock) where c.tx = 100000 and s.connect_ns > 0 and s.connect_ns < 5000000000")"
assert_eq "srtt measured on the 11 TCP connections" 11 \
	"$(q "$C" "select count(distinct sock) from net_socket where remote = '$srv' and srtt_us > 0 and srtt_us < 5000000")"
assert_eq "srtt of non-TCP sockets" 0 \
	"$(q "$C" "select count(*) from net_socket where proto not like 'tcp%' and srtt_us is not null")"
# the state changes: each connection CLOSE > SYN_SENT > ESTABLISHED first, and its connect
# latency is the time between those two changes, to the nanosecond
chg="select sock, group_concat(old_state || '>' || new_state, ';') c from (select * from net_state order by time_ns, rowid) group by sock"
assert_eq "connections that began CLOSE>SYN_SENT;SYN_SENT>ESTABLISHED" 11 \
	"$(q "$C" "select count(*) from ($chg) where c like 'CLOSE>SYN_SENT;SYN_SENT>ESTABLISHED%' and sock in (select sock from net_socket where remote = '$srv')")"
assert_eq "connections that ended in CLOSE" 11 \
	"$(q "$C" "select count(*) from ($chg) where c like '%>CLOSE' and sock in (select sock from net_socket where remote = '$srv')")"
assert_eq "connect_ns = ESTABLISHED time - SYN_SENT time" 11 \
	"$(q "$C" "select count(*) from (select sock, max(connect_ns) cn from net_socket where remote = '$srv' group by sock) s where cn = (select e.time_ns - y.time_ns from net_state e, net_state y where e.sock = s.sock and y.sock = s.sock and e.new_state = 'ESTABLISHED' and y.new_state = 'SYN_SENT')")"
assert_eq "refused connects: CLOSE>SYN_SENT;SYN_SENT>CLOSE" 3 \
	"$(q "$C" "select count(*) from ($chg) where c = 'CLOSE>SYN_SENT;SYN_SENT>CLOSE' and sock in (select sock from net_error where kind = 'refused')")"
assert_eq "the listener's changes begin CLOSE>LISTEN" 1 \
	"$(q "$C" "select count(*) from ($chg) where c like 'CLOSE>LISTEN%' and sock in (select sock from net_socket where local = '127.0.0.1:$listen_port')")"

assert_eq "refused" "3/3" \
	"$(q "$C" "select sum(count) || '/' || count(distinct sock) from net_error where kind = 'refused' and remote = '$closed'")"
assert_eq "refused with a SYN-to-RST latency" 3 \
	"$(q "$C" "select count(*) from net_error where kind = 'refused' and latency_ns > 0 and latency_ns < 10000000000")"
assert_eq "reset by the peer" 1 \
	"$(q "$C" "select sum(count) from net_error where kind = 'reset_by_peer' and remote = '$srv'")"
assert_eq "errors of other kinds" 0 \
	"$(q "$C" "select count(*) from net_error where kind not in ('refused', 'reset_by_peer', 'retransmit')")"

# UNIX socketpair: 10,000 bytes one way, on two unix sockets
assert_eq "unix sockets" 2 "$(q "$C" "select count(distinct sock) from net_socket where proto = 'unix'")"
assert_eq "unix bytes sent/received" "10000/10000" \
	"$(q "$C" "select sum(tx_bytes) || '/' || sum(rx_bytes) from net_socket where proto = 'unix'")"
assert_eq "unix type from /proc" STREAM \
	"$(q "$C" "select distinct state from net_socket where proto = 'unix'")"
# UDP: 100 datagrams of 100 bytes
assert_eq "udp datagrams sent/received" "100/100" \
	"$(q "$C" "select sum(tx_calls) || '/' || sum(rx_calls) from net_socket where proto = 'udp'")"
assert_eq "udp bytes received on the bound socket" 10000 \
	"$(q "$C" "select sum(rx_bytes) from net_socket where proto = 'udp' and local = '127.0.0.1:$udp_rx_port'")"
assert_eq "udp or unix bytes counted as tcp" 0 \
	"$(q "$C" "select count(*) from net_socket where proto like 'tcp%' and remote = '' and tx_bytes > 0")"
# the lanes agree: every unix and udp socket /proc listed was matched to its eBPF entry by
# inode (it has a cookie), and no socket has two
assert_eq "unix and udp sockets /proc listed that the eBPF lane did not match" 0 \
	"$(q "$C" "select count(*) from (select sock from net_socket where proto in ('unix', 'udp') group by sock having count(cookie) = 0)")"
assert_eq "sockets with two cookies" 0 \
	"$(q "$C" "select count(*) from (select sock from net_socket group by sock having count(distinct cookie) > 1)")"
# a socket is one key whichever lane saw it (its inode, which both read)
assert_eq "inodes under two keys" 0 \
	"$(q "$C" "select count(*) from (select inode from net_socket where inode is not null group by inode having count(distinct sock) > 1)")"
# (a connection open at a poll has its queues too: they are not counted here)
assert_eq "queues read from /proc for the listener, the unix and udp sockets" 5 \
	"$(q "$C" "select count(distinct sock) from net_socket where tx_queue is not null and rx_queue is not null and fd is not null and (proto in ('unix', 'udp') or local = '127.0.0.1:$listen_port')")"
assert_eq "sockets listed by both lanes under one key" 0 \
	"$(q "$C" "select count(*) from (select inode from net_socket where inode is not null group by inode having count(distinct sock) > 1)")"

# the report, in its three formats
"$ANA" report net --format json "$C" >"$TMP/net.json"
assert_eq "json: 10 connections of 100000/100000" 10 \
	"$(jget "$TMP/net.json" 'len([c for c in j["connections"] if c["remote"] == "'$srv'" and c["tx_bytes"] == 100000 and c["rx_bytes"] == 100000])')"
assert_eq "json: errors by kind" "{'refused': 3, 'reset_by_peer': 1}" \
	"$(jget "$TMP/net.json" 'dict(sorted((e["kind"], e["count"]) for e in j["errors"] if e["kind"] != "retransmit"))')"
assert_eq "json: peer $srv" "11 1001000 1000000 1" \
	"$(jget "$TMP/net.json" '" ".join(str(p[k]) for p in j["peers"] if p["remote"] == "'$srv'" for k in ("sockets", "tx_bytes", "rx_bytes", "errors"))')"
assert_eq "json: the listener among the listening sockets" True \
	"$(jget "$TMP/net.json" '"127.0.0.1:'$listen_port'" in [l["local"] for l in j["listening"]]')"
assert_eq "json: connections by errors" 4 "$(jget "$TMP/net.json" 'len(j["by_errors"])')"
"$ANA" report net "$C" | tee "$TMP/net.txt" | sed -n 1,4p
grep -q '^refused  *3  *3 ' "$TMP/net.txt" || fail "text: no 'refused 3' line"
grep -q "^listening sockets" "$TMP/net.txt" || fail "text: no listening section"
grep -q "CLOSE > SYN_SENT [0-9.]* [mun]*s > ESTABLISHED +" "$TMP/net.txt" || fail "text: no state timeline"
assert_eq "json: timelines of the 11 connections and 3 refused connects" 14 \
	"$(jget "$TMP/net.json" 'len([t for t in j["state_changes"] if t["remote"] in ("'$srv'", "'$closed'")])')"
"$ANA" report net --format csv "$C" >"$TMP/net.csv"
head -1 "$TMP/net.csv" | has '^proto,local,remote,state,fd,tx_bytes,rx_bytes' || fail "csv header: $(head -1 "$TMP/net.csv")"
assert_eq "csv: rows with 100000,100000" 10 "$(grep -c ",100000,100000," "$TMP/net.csv")"
assert_eq "csv: the last column, state_changes" state_changes "$(head -1 "$TMP/net.csv" | awk -F, '{ print $NF }')"
assert_eq "csv: the 10 connections' state changes begin with the connect" 10 \
	"$(grep ",100000,100000," "$TMP/net.csv" | grep -c ',CLOSE > SYN_SENT [0-9.]* [mun]*s > ESTABLISHED +[0-9.]* [mun]*s > ')"

# the figures (`figures`, `diff` gates): the numbers the report prints, exact where it is
"$ANA" figures --format json "$C" >"$TMP/fig.json"
fig() { jget "$1" '[f["value"] for f in j["figures"] if f["figure"] == "'"$2"'"][0]'; }
# sent: 1,001,000 TCP + 10,000 UNIX + 100 x 100 UDP; received: 1,000,000 + 10,000 + 10,000
assert_eq "figure net.tx_bytes" 1021000 "$(fig "$TMP/fig.json" net.tx_bytes)"
assert_eq "figure net.rx_bytes" 1020000 "$(fig "$TMP/fig.json" net.rx_bytes)"
assert_eq "figure net.tx_bytes = the report's total" "$(jget "$TMP/net.json" 'j["totals"]["tx_bytes"]')" \
	"$(fig "$TMP/fig.json" net.tx_bytes)"
assert_eq "figure net.connections" 11 "$(fig "$TMP/fig.json" net.connections)"
assert_eq "figure net.errors(refused)" 3 "$(fig "$TMP/fig.json" 'net.errors(refused)')"
assert_eq "figure net.errors(reset_by_peer)" 1 "$(fig "$TMP/fig.json" 'net.errors(reset_by_peer)')"
assert_eq "figure net.sockets = the report's count" "$(jget "$TMP/net.json" 'j["totals"]["sockets"]')" \
	"$(fig "$TMP/fig.json" net.sockets)"
assert_eq "figure net.connect_max = the largest connect_ns" \
	"$(q "$C" "select max(connect_ns) from net_socket")" "$(fig "$TMP/fig.json" net.connect_max)"
assert_eq "figure net.connect_p50 = the report's" "$(jget "$TMP/net.json" 'j["totals"]["connect_p50_ns"]')" \
	"$(fig "$TMP/fig.json" net.connect_p50)"
assert_eq "figure net.connect_p50 in (0, max]" True \
	"$(jget "$TMP/fig.json" '(lambda f: 0 < f["net.connect_p50"] <= 1.5 * f["net.connect_max"])({x["figure"]: x["value"] for x in j["figures"]})')"
# gates on a figure: the capture against itself passes a growth gate; a budget of 2
# refusals fails on its 3
"$ANA" diff --fail-on 'net.errors(refused) > +10%' "$C" "$C" >/dev/null ||
	fail "diff: a capture against itself failed a growth gate"
expect_exit 1 "$ANA" diff --fail-on 'net.errors(refused) > 2' "$C" "$C"
echo "ok: figures"

# the replay tab and the Overview line
"$ANA" replay --dump --at 99m --tab network --size 160x40 "$C" >"$TMP/replay.txt"
grep -q 'errors so far: refused 3 reset_by_peer 1' "$TMP/replay.txt" ||
	{ cat "$TMP/replay.txt"; fail "replay: no error line"; }
grep -q "127.0.0.1:$listen_port" "$TMP/replay.txt" || { cat "$TMP/replay.txt"; fail "replay: no listener row"; }
"$ANA" replay --dump --at 99m --tab overview --size 160x40 "$C" | has -E '^ *Network +[0-9]+ sockets' ||
	fail "replay: no Network line in the Overview"
echo "ok: replay Network tab and Overview line"

# --no-ebpf: the /proc lane alone (with --cgroup it would be unsupported: one process): sockets on their types, no bytes (null, never 0)
N=$TMP/noebpf.ptop
"$REC" --quiet --enable net --no-ebpf --interval 250ms -o "$N" -- "$FIX/net_exchange" 1 >"$TMP/ports2"
eval "$(cat "$TMP/ports2" | tr ' ' '\n')"
assert_eq "--no-ebpf: net probe" "active/proc" \
	"$(q "$N" "select state || '/' || source from probe where name = 'net'")"
assert_eq "--no-ebpf: bytes measured" 0 "$(q "$N" "select count(tx_bytes) + count(rx_bytes) from net_socket")"
assert_eq "--no-ebpf: the listener" "LISTEN" \
	"$(q "$N" "select distinct state from net_socket where local = '127.0.0.1:$listen_port'")"
assert_eq "--no-ebpf: queue sizes read" 0 \
	"$(q "$N" "select count(*) from net_socket where tx_queue is null or rx_queue is null or fd is null")"
assert_eq "--no-ebpf: unix and udp sockets" "2/2" \
	"$(q "$N" "select count(distinct case when proto = 'unix' then sock end) || '/' || count(distinct case when proto = 'udp' then sock end) from net_socket")"
"$ANA" report net "$N" | has 'sent not measured, received not measured' || fail "--no-ebpf: the report does not say bytes were not measured"
"$ANA" report net --format json "$N" >"$TMP/noebpf.json"
assert_eq "--no-ebpf json: tx_bytes" None "$(jget "$TMP/noebpf.json" 'j["totals"]["tx_bytes"]')"
assert_eq "--no-ebpf csv: no state changes (not measured: empty)" "" \
	"$("$ANA" report net --format csv "$N" | tail -n +2 | awk -F, '{ print $NF }' | sort -u)"
assert_eq "--no-ebpf json: connects, retransmits" "None None" \
	"$(jget "$TMP/noebpf.json" '" ".join(str(j["totals"][k]) for k in ("connects", "retransmits"))')"
"$ANA" figures --format json "$N" >"$TMP/nfig.json"
assert_eq "--no-ebpf figures: bytes, errors, connects not measured; sockets measured" \
	"net.connect_max=not measured net.connect_p50=not measured net.connections=not measured net.errors(*)=not measured net.retransmits=not measured net.rx_bytes=not measured net.sockets=measured net.tx_bytes=not measured" \
	"$(jget "$TMP/nfig.json" '" ".join(sorted(f["figure"] + "=" + f["status"] for f in j["figures"] if f["figure"].startswith("net.")))')"
echo "ok: --no-ebpf lists the sockets from /proc, bytes not measured"

# off by default: not collected, and the report says why and how to turn it on
O=$TMP/default.ptop
"$REC" --quiet --interval 250ms -o "$O" -- "$FIX/net_exchange" 0.1 >/dev/null
"$ANA" report net "$O" | has 'net: not collected (disabled: off by default (its eBPF lane costs .*): --enable net)' ||
	fail "default: the report does not say net is off by default: $("$ANA" report net "$O")"
echo "ok: off by default, and the report says so"

# --disable net: not collected, with the reason, in every format
D=$TMP/disabled.ptop
"$REC" --quiet --disable net --interval 250ms -o "$D" -- "$FIX/net_exchange" 0.1 >/dev/null
"$ANA" report net "$D" | has 'net: not collected (disabled: disabled by --disable)' || fail "--disable net: text"
"$ANA" report net --format json "$D" >"$TMP/dis.json"
assert_eq "--disable net: json collected" False "$(jget "$TMP/dis.json" 'j["collected"]')"
"$ANA" report net --format csv "$D" 2>&1 >/dev/null | has 'not collected' || fail "--disable net: csv"
"$ANA" replay --dump --tab network "$D" | has 'not collected' || fail "--disable net: replay"
echo "ok: --disable net says not collected"
