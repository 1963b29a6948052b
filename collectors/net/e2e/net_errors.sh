# Error kinds with exact answers (tests/fixtures/net_errors.c), in a throwaway network
# namespace (unshare -n): its own lo, a veth pair, routes and neighbours the test makes
# there; the host's namespace and files are never touched. Checked: 3 `timeout` (TCP_SYNCNT
# 1: one SYN retransmit each, a SYN-to-error latency of about 3 s) and their retransmits,
# 2 `unreachable` reported by the socket (ICMP after a failed ARP), 4 `unreachable`, 1
# `refused` (UNIX) and 1 `error` (EACCES) failed in the connect() call, 2 `refused` by a
# RST after the SYN counted once each (a blocking connect, and a connect called again
# after a non-blocking one), 5 on a socket that retries (its 10 state changes recorded
# or counted lost beyond the ring of 8), no error for EINPROGRESS or EISCONN; the state changes of
# the timed-out sockets; a timeout mid-stream (the peer, in a namespace of its own, takes
# its link down: data retransmits, then ETIMEDOUT); report net in text and JSON.
. tests/e2e/lib.sh
need_fixture net_errors
need_ebpf
command -v ip >/dev/null || skip "no ip (iproute2)"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
command -v nsenter >/dev/null || skip "no nsenter (util-linux)"
unshare -n true 2>/dev/null || skip "cannot make a network namespace (unshare -n)"

C=$TMP/err.ptop
cat >"$TMP/ns.sh" <<NS
set -e
ip link set lo up
ip link add va type veth peer name vb || { echo "SKIP: no veth"; exit 77; }
ip addr add 10.9.9.1/24 dev va
ip link set va up
ip link set vb up
ip neigh add 10.9.9.3 lladdr 02:00:00:00:00:33 dev va nud permanent
echo 100 >/proc/sys/net/ipv4/neigh/va/retrans_time_ms
echo 2 >/proc/sys/net/ipv4/neigh/va/mcast_solicit
# SYN retransmits counted (tcp_write_timeout), not timed: SYNCNT 1 plus no linear ones
[ ! -e /proc/sys/net/ipv4/tcp_syn_linear_timeouts ] || echo 0 >/proc/sys/net/ipv4/tcp_syn_linear_timeouts
ip route add unreachable 10.8.8.0/24
ip route add prohibit 10.7.7.0/24
# the mid-stream peer: pb in a namespace of its own (a child of this one), where
# net_errors --peer listens on 10.5.5.2:7777 and later takes pb down
ip link add pa type veth peer name pb
ip addr add 10.5.5.1/24 dev pa
ip link set pa up
mkfifo "$TMP/down"
unshare -n "$FIX/net_errors" --peer "$TMP" &
peer=\$!
for i in \$(seq 200); do
	[ "\$(readlink /proc/\$peer/ns/net)" != "\$(readlink /proc/self/ns/net)" ] && break
	sleep 0.05
done
ip link set pb netns \$peer
nsenter -t \$peer -n sh -c 'ip link set lo up && ip addr add 10.5.5.2/24 dev pb && ip link set pb up'
for i in \$(seq 200); do [ -e "$TMP/peer.ready" ] && break; sleep 0.05; done
[ -e "$TMP/peer.ready" ] || { echo "net_errors --peer did not start" >&2; exit 1; }
rc=0
"$REC" --quiet --enable net --interval 250ms -o "$C" -- "$FIX/net_errors" "$TMP" midstream || rc=\$?
kill \$peer 2>/dev/null || true
wait \$peer 2>/dev/null || true
exit \$rc
NS
rc=0
unshare -n bash "$TMP/ns.sh" >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"
[ $rc = 77 ] && skip "$(cat "$TMP/out")"
[ $rc = 0 ] || { cat "$TMP/err"; fail "the fixture in its namespace exited $rc"; }
eval "$(cat "$TMP/out")"
assert_eq "net probe" "active/ebpf" \
	"$(q "$C" "select state || '/' || source from probe where name = 'net'")"

errs="select kind, in_call, sum(count) n, count(distinct sock) socks from net_error where kind != 'retransmit' group by kind, in_call"
q "$C" "$errs"
assert_eq "timeout: 4 on 4 sockets, reported by them" "4/4" \
	"$(q "$C" "select n || '/' || socks from ($errs) where kind = 'timeout' and in_call = 0")"
assert_eq "timeout: 3 to 10.9.9.3:80 and 1 to the peer 10.5.5.2:7777, errno ETIMEDOUT" \
	"10.5.5.2:7777/110/1 10.9.9.3:80/110/3" \
	"$(q "$C" "select group_concat(x, ' ') from (select remote || '/' || err || '/' || sum(count) x from net_error where kind = 'timeout' group by remote, err order by remote)")"
# mid-stream: established, so no SYN-to-error latency; its data retransmitted until the
# user timeout (1.5 s; how many times is the RTO's business: at least once)
assert_eq "mid-stream timeout: no SYN-to-error latency" NULL \
	"$(q "$C" "select quote(latency_ns) from net_error where kind = 'timeout' and remote = '10.5.5.2:7777'")"
assert_ge "mid-stream: data retransmits on the connection" 1 \
	"$(q "$C" "select coalesce(sum(count), 0) from net_error where kind = 'retransmit' and remote = '10.5.5.2:7777'")"
assert_eq "mid-stream: retransmits as net_socket counts them" \
	"$(q "$C" "select sum(count) from net_error where kind = 'retransmit' and remote = '10.5.5.2:7777'")" \
	"$(q "$C" "select sum(retransmits) from net_socket where remote = '10.5.5.2:7777'")"
assert_eq "mid-stream: 1000 bytes sent and acknowledged, 1000 more sent, 1 received" "2000/1" \
	"$(q "$C" "select sum(tx_bytes) || '/' || sum(rx_bytes) from net_socket where remote = '10.5.5.2:7777'")"
assert_eq "mid-stream: its state changes" "CLOSE>SYN_SENT;SYN_SENT>ESTABLISHED;ESTABLISHED>CLOSE" \
	"$(q "$C" "select group_concat(old_state || '>' || new_state, ';') from (select * from net_state where sock in (select sock from net_error where kind = 'timeout' and remote = '10.5.5.2:7777') order by time_ns, rowid)")"
# TCP_SYNCNT 1: SYN at 0, its retransmit at 1 s (RTO), the error at 3 s (1 + 2 s)
assert_eq "timeout latency between 2.5 s and 10 s" 3 \
	"$(q "$C" "select count(*) from net_error where kind = 'timeout' and remote = '10.9.9.3:80' and latency_ns between 2500000000 and 10000000000")"
assert_eq "SYN retransmits: one on each timed-out socket" "3/3" \
	"$(q "$C" "select sum(count) || '/' || count(distinct sock) from net_error where kind = 'retransmit' and remote = '10.9.9.3:80'")"
assert_eq "retransmits as net_socket counts them" 3 \
	"$(q "$C" "select sum(retransmits) from net_socket where remote = '10.9.9.3:80'")"
assert_eq "retransmits elsewhere" 0 \
	"$(q "$C" "select count(*) from net_error where kind = 'retransmit' and remote not in ('10.9.9.3:80', '10.5.5.2:7777')")"
assert_eq "unreachable after the SYN (ICMP): 2 on 2 sockets" "2/2" \
	"$(q "$C" "select n || '/' || socks from ($errs) where kind = 'unreachable' and in_call = 0")"
assert_eq "unreachable after the SYN: the peers, EHOSTUNREACH" "10.9.9.2:80/113 10.9.9.4:80/113" \
	"$(q "$C" "select group_concat(x, ' ') from (select remote || '/' || err x from net_error where kind = 'unreachable' and in_call = 0 order by remote)")"
assert_eq "unreachable after the SYN: latency measured" 2 \
	"$(q "$C" "select count(*) from net_error where kind = 'unreachable' and in_call = 0 and latency_ns > 0 and latency_ns < 10000000000")"
assert_eq "unreachable in the call: 4 on 4 sockets" "4/4" \
	"$(q "$C" "select n || '/' || socks from ($errs) where kind = 'unreachable' and in_call = 1")"
assert_eq "unreachable in the call: by peer, proto and errno" \
	"tcp 10.6.6.6:80 101;tcp 10.8.8.8:80 113;tcp 10.8.8.8:80 113;udp 10.8.8.9:53 113" \
	"$(q "$C" "select group_concat(x, ';') from (select proto || ' ' || remote || ' ' || err x from net_error where kind = 'unreachable' and in_call = 1 order by x)")"
assert_eq "refused in the call: the UNIX socket, ECONNREFUSED" "unix $TMP/nolisten 111 1" \
	"$(q "$C" "select proto || ' ' || remote || ' ' || err || ' ' || sum(count) from net_error where kind = 'refused' and in_call = 1")"
# the blocking connect's and the non-blocking one's (whose second connect call returned
# the refusal): each once, by the socket, none in the call; and the socket refused 5 times
assert_eq "refused after the SYN: 7 on 3 sockets, each error row with its latency" "7/3/1" \
	"$(q "$C" "select sum(count) || '/' || count(distinct sock) || '/' || min(latency_ns > 0) from net_error where kind = 'refused' and in_call = 0 and remote = '127.0.0.1:$closed_port'")"
retry="select sock from net_error where kind = 'refused' group by sock having max(total) = 5"
assert_eq "the socket refused 5 times: its running total" "1 5" \
	"$(q "$C" "select count(*) || ' ' || (select sum(count) from net_error where sock in ($retry)) from ($retry)")"
# its 10 state changes: recorded, or counted lost when more than 8 fell between two polls
lost="select coalesce(sum(lost), 0) from drop_notice where collector = 'net' and kind = 'state_changes'"
assert_eq "the retried socket's state changes, recorded + lost" 10 \
	"$(q "$C" "select count(*) + ($lost) from net_state where sock in ($retry)")"
assert_eq "its recorded changes alternate CLOSE>SYN_SENT, SYN_SENT>CLOSE" 0 \
	"$(q "$C" "select count(*) from net_state where sock in ($retry) and old_state || '>' || new_state not in ('CLOSE>SYN_SENT', 'SYN_SENT>CLOSE')")"
echo "state changes of the retried socket: $(q "$C" "select count(*) from net_state where sock in ($retry)") recorded, $(q "$C" "$lost") lost"
assert_eq "error in the call: EACCES of the prohibit route" "10.7.7.7:80 13 1" \
	"$(q "$C" "select remote || ' ' || err || ' ' || sum(count) from net_error where kind = 'error'")"
assert_eq "no other error (EINPROGRESS is none)" 0 \
	"$(q "$C" "select count(*) from net_error where kind not in ('timeout', 'unreachable', 'refused', 'error', 'retransmit')")"
assert_eq "errors in all" 19 "$(q "$C" "select sum(count) from net_error where kind != 'retransmit'")"

# the state changes of a timed-out socket: CLOSE -> SYN_SENT -> CLOSE
assert_eq "state changes of the timed-out sockets" "3 CLOSE>SYN_SENT;SYN_SENT>CLOSE" \
	"$(q "$C" "select count(*) || ' ' || c from (select sock, group_concat(old_state || '>' || new_state, ';') c from (select * from net_state where sock in (select sock from net_error where kind = 'timeout' and remote = '10.9.9.3:80') order by time_ns, rowid) group by sock) group by c")"

# the report: errors by kind, and the calls that failed
"$ANA" report net --format json "$C" >"$TMP/err.json"
assert_eq "json: errors by kind" "{'error': 1, 'refused': 8, 'timeout': 4, 'unreachable': 6}" \
	"$(jget "$TMP/err.json" 'dict(sorted((e["kind"], e["count"]) for e in j["errors"] if e["kind"] != "retransmit"))')"
assert_eq "json: error events in the call" 6 \
	"$(jget "$TMP/err.json" 'sum(e["count"] for e in j["error_events"] if e["in_call"])')"
"$ANA" report net "$C" >"$TMP/err.txt"
grep -q '^timeout  *4  *4 ' "$TMP/err.txt" || { cat "$TMP/err.txt"; fail "text: no 'timeout 4 4' line"; }
echo "ok: report net"

# the timeline (report events --category net): one event per error row, its count in it
"$ANA" report events --category net --format csv "$C" >"$TMP/ev.csv" || fail "report events --category net: exit $?"
assert_eq "timeline: net error events" "$(q "$C" "select count(*) from net_error where count > 0")" \
	"$(($(wc -l <"$TMP/ev.csv") - 1))"
assert_eq "timeline: refusals to the closed port, as net_error counts them" \
	"$(q "$C" "select sum(count) from net_error where kind = 'refused' and remote = '127.0.0.1:$closed_port'")" \
	"$(python3 -c 'import csv, re, sys
print(sum(int(re.match(r"refused x(\d+) ", r["text"]).group(1)) for r in csv.DictReader(open(sys.argv[1]))
	if r["kind"] == "net refused" and re.search(r" -> 127\.0\.0\.1:%s( |$)" % sys.argv[2], r["text"])))' "$TMP/ev.csv" "$closed_port")"
echo "ok: timeline"
