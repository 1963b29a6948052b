# The fds collector's eBPF lane (--fd-stacks): fd_leak opens 200 eventfds (eventfd2) one every
# 10 ms and closes none. Ground truth: exactly 200 fds opened by eventfd2 over the capture,
# the intervals' opens add up to it, and one opening site holds all 200, still open at the
# end, its stack through fd_leak's main, which `symbolize` names in the site's process.
# Without --fd-stacks, or with --no-ebpf, the report says why the opens and closes were not
# collected.
. tests/e2e/lib.sh
need_ebpf
need_fixture fd_leak

C=$TMP/stacks.ptop
"$REC" --quiet --fd-stacks --interval 250ms -o "$C" -- "$FIX/fd_leak" eventfd 500 >/dev/null
assert_eq "fds probe" "active/ebpf" \
	"$(q "$C" "select state || '/' || source from probe where name = 'fds'")"
assert_eq "eventfd2 opened" 200 "$(q "$C" "select sum(opened) from fd_op where syscall = 'eventfd2'")"
assert_eq "eventfd2 failed" 0 "$(q "$C" "select sum(failed) from fd_op where syscall = 'eventfd2'")"
assert_eq "the site holding them: live" 200 "$(q "$C" "select max(live) from fd_site")"
assert_eq "the site holding them: opened" 200 \
	"$(q "$C" "select opened from fd_site order by live desc limit 1")"
"$ANA" report fds "$C" | tee "$TMP/r.txt" | tail -6
grep -Eq '^ +200 live +200 opened  eventfd < main < ' "$TMP/r.txt" ||
	fail "text: no site with 200 live through main"
grep -Eq '^eventfd2 +200 +0 +0 +0$' "$TMP/r.txt" || fail "text: no eventfd2 row"
"$ANA" report fds --format json "$C" >"$TMP/r.json"
assert_eq "json: eventfd2 opened" 200 \
	"$(jget "$TMP/r.json" '[r["opened"] for r in j["opens_and_closes"]["by_syscall"] if r["syscall"] == "eventfd2"][0]')"
assert_eq "json: intervals' opens = by syscall's" \
	"$(jget "$TMP/r.json" 'sum(r["opened"] for r in j["opens_and_closes"]["by_syscall"])')" \
	"$(jget "$TMP/r.json" 'sum(r["opened"] for r in j["intervals"])')"
"$ANA" report fds --format csv "$C" | head -1 | grep -q ',opened,closed$' || fail "csv: no opened,closed columns"
# symbolize places the sites' stacks in the site's process (fds declares fd_site.stack_id,
# collectors/fds/stacks.c) and names them: the site of the 200 runs through main
"$ANA" symbolize "$C" >"$TMP/sym.txt" || fail "symbolize: exit $?"
assert_eq "fd site frames not placed in the site's process" 0 \
	"$(q "$C" "select count(*) from fd_site s join frame_module fm on fm.cap = s.cap and fm.stack_id = s.stack_id where fm.pid is not s.pid")"
assert_eq "the 200-fd site named through main by symbolize" 1 \
	"$(q "$C" "select count(*) from fd_site s where live = 200 and exists (select 1 from frame_module fm join symbol_frame f on f.space = fm.sym_space and f.key = fm.sym_key and f.addr = fm.sym_addr where fm.cap = s.cap and fm.stack_id = s.stack_id and f.func = 'main')")"

# pipes and socket pairs, every fd closed: both fds of each call counted, each close too
C4=$TMP/churn.ptop
"$REC" --quiet --fd-stacks --interval 250ms -o "$C4" -- "$FIX/fd_leak" churn 300 >/dev/null
assert_eq "churn: pipe2 opened" 200 "$(q "$C4" "select sum(opened) from fd_op where syscall = 'pipe2'")"
assert_eq "churn: socketpair opened" 200 \
	"$(q "$C4" "select sum(opened) from fd_op where syscall = 'socketpair'")"
assert_ge "churn: closed" 400 "$(q "$C4" "select sum(closed) from fd_op where syscall = 'close'")"
assert_eq "churn: the pipe2 and socketpair sites (200 fds each)" 2 \
	"$(q "$C4" "select count(*) from fd_site where opened = 200")"
assert_eq "churn: live at them" 0 "$(q "$C4" "select sum(live) from fd_site where opened = 200")"

# without --fd-stacks: the /proc lane alone, and the report says why there are no opens
C2=$TMP/plain.ptop
"$REC" --quiet --interval 250ms -o "$C2" -- "$FIX/fd_leak" eventfd 200 >/dev/null
assert_eq "no --fd-stacks: fds probe" "active/proc" \
	"$(q "$C2" "select state || '/' || source from probe where name = 'fds'")"
assert_eq "no --fd-stacks: fd_op rows" 0 "$(q "$C2" "select count(*) from fd_op")"
"$ANA" report fds "$C2" | grep -q '^opens and closes: not collected (needs --fd-stacks (eBPF at every syscall exit))$' ||
	fail "no --fd-stacks: the report does not say why"
# --fd-stacks with --no-ebpf: the same, with its reason
C3=$TMP/noebpf.ptop
"$REC" --quiet --no-ebpf --fd-stacks --interval 250ms -o "$C3" -- "$FIX/fd_leak" eventfd 200 >/dev/null
"$ANA" report fds "$C3" | grep -q '^opens and closes: not collected (--fd-stacks: not with --no-ebpf)' ||
	fail "--no-ebpf --fd-stacks: the report does not say why"
