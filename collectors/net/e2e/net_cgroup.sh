# The net collector under --cgroup: the /proc lane reads every process of the cgroup's
# subtree at each interval (its cgroup.procs files), each through its own network
# namespace (/proc/PID/net/...). In a cgroup the test makes (and removes): net_exchange A
# in the cgroup, in the host's namespace, and net_exchange B in a child cgroup, in a
# network namespace of its own (unshare -n: its listener is in no other table). Checked,
# with the /proc lane alone (--no-ebpf) and with both lanes: both listeners LISTEN with
# their queues and fds, the UNIX and UDP sockets of both; with eBPF, each client's 10
# connections of 100,000 bytes each way; no socket of a process outside the cgroup.
. tests/e2e/lib.sh
need_fixture net_exchange
need_ebpf
need_cgroup2
command -v unshare >/dev/null || skip "no unshare (util-linux)"
command -v ip >/dev/null || skip "no ip (iproute2)"
unshare -n true 2>/dev/null || skip "cannot make a network namespace (unshare -n)"
NAME=ptop-e2e-net-$$
CG=$V2/$NAME
make_dirs "$CG" "$CG/sub" || skip "cannot create a cgroup under $V2"

# record OUT [OPTION...]: the cgroup while A, B and an outsider run
record() {
	local out=$1 rc=0 a b o
	shift
	# a file of its own: the previous recording's "recording cgroup" line must not be
	# read before this recorder's shell truncates it (A would start untraced)
	"$REC" --cgroup "$CG" --enable net --interval 250ms "$@" -o "$out" 2>"$out.err" &
	local rec=$!
	kill_at_exit "$rec"
	wait_line "$out.err" 'recording cgroup' "the recorder to start"
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 1.5' sh "$CG" "$FIX/net_exchange" \
		>"$TMP/a.ports" &
	a=$!
	unshare -n sh -c 'ip link set lo up && echo $$ >"$1/cgroup.procs" && exec "$2" 1.5' sh \
		"$CG/sub" "$FIX/net_exchange" >"$TMP/b.ports" &
	b=$!
	"$FIX/net_exchange" 1.5 >"$TMP/o.ports" &
	o=$!
	wait "$a" || fail "net_exchange A failed"
	wait "$b" || fail "net_exchange B (own netns) failed"
	wait "$o" || fail "the outsider failed"
	kill -INT "$rec"
	wait "$rec" || rc=$?
	assert_eq "ptop-record exit status" 0 "$rc"
}
port() { sed -n "s/.*$2=\([0-9]*\).*/\1/p" "$TMP/$1.ports"; }

for lane in proc ebpf; do
	P=$TMP/$lane.ptop
	if [ $lane = proc ]; then record "$P" --no-ebpf; else record "$P"; fi
	la=$(port a listen_port) lb=$(port b listen_port) lo=$(port o listen_port)
	assert_eq "$lane: net probe" "active/$lane" \
		"$(q "$P" "select state || '/' || source from probe where name = 'net'")"
	for x in "A $la" "B $lb"; do
		set -- $x
		assert_eq "$lane: listener of $1 (127.0.0.1:$2): LISTEN, with queue and fd" "LISTEN 1" \
			"$(q "$P" "select group_concat(distinct state) || ' ' || count(distinct sock) from net_socket where local = '127.0.0.1:$2' and state = 'LISTEN' and rx_queue is not null and fd is not null")"
	done
	[ "$la" != "$lb" ] && [ "$lo" != "$la" ] && [ "$lo" != "$lb" ] &&
		assert_eq "$lane: the outsider's listener" 0 \
			"$(q "$P" "select count(*) from net_socket where local = '127.0.0.1:$lo'")"
	assert_eq "$lane: unix and udp sockets of A and B, from /proc" "4/4" \
		"$(q "$P" "select count(distinct case when proto = 'unix' then sock end) || '/' || count(distinct case when proto = 'udp' and fd is not null then sock end) from net_socket")"
done
P=$TMP/ebpf.ptop
for x in "A $(port a server_port)" "B $(port b server_port)"; do
	set -- $x
	n=$(q "$P" "select count(*) from (select sock from net_socket where remote = '127.0.0.1:$2' group by sock having sum(tx_bytes) = 100000 and sum(rx_bytes) = 100000)")
	[ "$n" = 10 ] || { # what was recorded of them, to tell why
		q "$P" "select sock, cookie, time_ns, tx_bytes, rx_bytes, state, closed from net_socket where remote = '127.0.0.1:$2' or local = '127.0.0.1:$2' order by sock, time_ns"
		"$ANA" info "$P" | grep -i -E 'drop|net' || true
	}
	assert_eq "ebpf: $1's 10 connections of 100000 bytes each way" 10 "$n"
done
assert_eq "proc: bytes not measured" 0 "$(q "$TMP/proc.ptop" "select count(tx_bytes) from net_socket")"
