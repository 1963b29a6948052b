# The fds collector's counts of opens and closes (--fd-stacks) against what fd_churn did:
# - fcntl: 1000 fcntl(9999, F_GETFD) and 5 fcntl(0, F_SETFD) make no fd and ask for none:
#   not opens, failed or not; 20 F_DUPFD/F_DUPFD_CLOEXEC made 20 fds; 5 F_DUPFD on a bad fd
#   are 5 failed opens.
# - close_range over 19,800 fds (or as many as RLIMIT_NOFILE allows): the fds it closed
#   (those open in its range, as fd_churn counted them from /proc/self/fd just before), not
#   its calls; a close_range with CLOSE_RANGE_CLOEXEC closes none.
# - N fds opened at one site and held, crossing the recorder's fd table growth (64, 1024,
#   ...): opened exactly N there.
. tests/e2e/lib.sh
need_ebpf
need_fixture fd_churn

C=$TMP/fcntl.ptop
"$REC" --quiet --fd-stacks -o "$C" -- "$FIX/fd_churn" fcntl || fail "fd_churn fcntl failed"
assert_eq "fds probe" "active/ebpf" \
	"$(q "$C" "select state || '/' || source from probe where name = 'fds'")"
assert_eq "fcntl: opened|failed" "20|5" \
	"$(q "$C" "select sum(opened) || '|' || sum(failed) from fd_op where syscall = 'fcntl'")"

# close_range: the limit on open fds bounds N (a hard limit below 19,810: fewer)
hard=$(ulimit -Hn)
n=19800
[ "$hard" = unlimited ] || [ "$hard" -ge $((n + 100)) ] || n=$((hard - 100))
C=$TMP/range.ptop
closed=$( (ulimit -n $((n + 100)) && "$REC" --quiet --fd-stacks -o "$C" -- "$FIX/fd_churn" range "$n")) ||
	fail "fd_churn range $n failed"
assert_ge "close_range: fds in its range" "$n" "$closed"
assert_eq "close_range: the fds it closed (not its 2 calls)" "$closed" \
	"$(q "$C" "select sum(closed) from fd_op where syscall = 'close_range'")"
assert_eq "fds.closes: close's and close_range's" \
	"$(q "$C" "select sum(closed) from fd_op")" \
	"$("$ANA" figures --format json "$C" | python3 -c 'import json,sys; print([int(f["value"]) for f in json.load(sys.stdin)["figures"] if f["figure"] == "fds.closes"][0])')"
assert_eq "close_range: nothing uncounted" 0 \
	"$(q "$C" "select coalesce(sum(lost), 0) from drop_total where kind = 'close_range_uncounted'")"

for n in 63 64 65 1000 50000; do
	if [ "$hard" != unlimited ] && [ "$hard" -lt $((n + 100)) ]; then
		echo "(hold $n: skipped, the hard limit on open fds is $hard)"
		continue
	fi
	C=$TMP/hold$n.ptop
	(ulimit -n $((n + 100)) && "$REC" --quiet --fd-stacks -o "$C" -- "$FIX/fd_churn" hold "$n") ||
		fail "fd_churn hold $n failed"
	assert_eq "hold $n: openat opened" "$((n + 2))" \
		"$(q "$C" "select sum(opened) from fd_op where syscall = 'openat'")"
	assert_eq "hold $n: the site that opened them" "$n" "$(q "$C" "select max(opened) from fd_site")"
done
echo PASS
