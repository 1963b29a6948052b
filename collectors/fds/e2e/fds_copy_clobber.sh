# --fd-stacks with stack copies: a copy whose per-CPU scan state another scan took over
# (bpf/stackcopy.bpf.h: a syscall program preempted between its copy and its scan, on a
# kernel whose syscall tracepoints run preemptibly) is dropped and counted (drop
# stack_state_clobbered), never sent as a stack that is half another's (issue 19).
# Forced with the test hook PTOP_TEST_STACK_CLOBBER: every scan's state is taken over
# before its check. Ground truth fd_leak: 200 eventfds opened and held at one site; the
# counts stay exact, no copy is written, each open's stack is a drop with the reason.
. tests/e2e/lib.sh
need_ebpf
need_fixture fd_leak

C=$TMP/clobber.ptop
PTOP_TEST_STACK_CLOBBER=1 "$REC" --quiet --fd-stacks --user-stacks dwarf --disable cpuprof \
	--interval 250ms -o "$C" -- "$FIX/fd_leak" eventfd 300 >/dev/null ||
	fail "ptop-record exited $?"
assert_eq "fds" active/ebpf "$(q "$C" "select state || '/' || source from probe where name = 'fds'")"
assert_eq "stack_copy lane" active \
	"$(q "$C" "select state from probe_lane where probe = 'fds' and lane = 'stack_copy'")"
assert_eq "eventfd2 opened" 200 "$(q "$C" "select sum(opened) from fd_op where syscall = 'eventfd2'")"
assert_eq "no stack copies" 0 "$(q "$C" "select count(*) from stack_copy")"
assert_ge "opens whose stack was dropped as clobbered" 200 \
	"$(q "$C" "select coalesce(sum(lost), 0) from drop_total where collector = 'fds'
		and kind = 'stack_state_clobbered'")"
assert_eq "sites with a stack" 0 "$(q "$C" "select count(*) from fd_site s where exists
	(select 1 from stack_frame f where f.cap = s.cap and f.stack_id = s.stack_id)")"
