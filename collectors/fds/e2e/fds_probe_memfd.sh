# ptop's own fds are not the target's (DESIGN.md principle 9): with --enable heap the
# preload lane's memfd ("/memfd:ptop-preload (deleted)") is open in the target; the fds
# collector lists it in the table at the end with owner ptop, but it is in no count:
#  - fd_leak (200 eventfds held) recorded with and without --enable heap: the last
#    sample's counts by type and fds.peak are equal;
#  - with heap, fd_open has the memfd with probe = 1, and `report fds` says it is ptop's.
. tests/e2e/lib.sh
need_ebpf
need_fixture fd_leak
command -v python3 >/dev/null || skip "python3 is not installed (the JSON checks)"

H=$TMP/heap.ptop N=$TMP/noheap.ptop
"$REC" --quiet --enable heap --interval 250ms -o "$H" -- "$FIX/fd_leak" eventfd 500 >/dev/null ||
	fail "recording with --enable heap"
"$REC" --quiet --interval 250ms -o "$N" -- "$FIX/fd_leak" eventfd 500 >/dev/null ||
	fail "recording without heap"
assert_eq "heap probe" active "$(q "$H" "select state from probe where name = 'heap'")"
n=$(q "$H" "select count(*) from fd_open where target like '%memfd:ptop-preload%'")
[ "$n" -ge 1 ] || skip "the heap lane opened no preload memfd in the target (its lane: $(q "$H" "select source from probe where name = 'heap'"))"
assert_eq "the memfd is marked ptop's" "$n" \
	"$(q "$H" "select count(*) from fd_open where target like '%memfd:ptop-preload%' and probe = 1")"
assert_eq "only ptop's fds are marked" "$n" "$(q "$H" "select count(*) from fd_open where probe = 1")"

last="select total, file, socket, pipe, eventfd, epoll, timerfd, signalfd, anon_inode, other
      from fd_sample order by time_ns desc limit 1"
assert_eq "the last sample's counts by type, heap on = off" "$(q "$N" "$last")" "$(q "$H" "$last")"
assert_eq "the end table's target fds = the last sample's total" \
	"$(q "$H" "select total from fd_sample order by time_ns desc limit 1")" \
	"$(q "$H" "select count(*) from fd_open where probe = 0")"
peak() {
	"$ANA" figures --format json "$1" >"$TMP/f.json" || fail "figures $1: exit $?"
	jget "$TMP/f.json" "[f['value'] for f in j['figures'] if f['figure'] == 'fds.peak'][0]"
}
assert_eq "fds.peak, heap on = off" "$(peak "$N")" "$(peak "$H")"

"$ANA" report fds "$H" >"$TMP/r.txt" || fail "report fds: exit $?"
has -E 'memfd:ptop-preload \(deleted\) +ptop' <"$TMP/r.txt" || { cat "$TMP/r.txt"; fail "report fds: the memfd is not labelled ptop's"; }
has -E "and $n of ptop's \(owner ptop, not in total\)" <"$TMP/r.txt" || { cat "$TMP/r.txt"; fail "report fds: ptop's fds not set apart"; }
echo "fds_probe_memfd: ok"
