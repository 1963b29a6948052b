# --fd-stacks when its stack copies cannot run (--user-stacks dwarf, or auto on a program
# without frame pointers): the opening sites fall back to frame-pointer stacks, the probe
# set says why, and the counts stay exact, where the fds eBPF lane used to fail (issue 19).
# Forced with PTOP_TEST_REFUSE (record/kfeature.h): "stack_copy" refuses the copies' load,
# "bpf_loop" takes the helper as absent (before Linux 5.17). Ground truth fd_leak: 200
# eventfds opened and held at one site.
. tests/e2e/lib.sh
need_ebpf
need_fixture fd_leak

for refuse in stack_copy bpf_loop; do
	C=$TMP/$refuse.ptop
	PTOP_TEST_REFUSE=$refuse "$REC" --quiet --fd-stacks --user-stacks dwarf --disable cpuprof \
		--interval 250ms -o "$C" -- "$FIX/fd_leak" eventfd 300 >/dev/null ||
		fail "$refuse: ptop-record exited $?"
	assert_copy_fallback "$C" fds $refuse bpf_loop
	assert_eq "$refuse: detail" 1 \
		"$(q "$C" "select detail like '%opening user stacks fp (%' from probe where name = 'fds'")"
	assert_eq "$refuse: eventfd2 opened" 200 "$(q "$C" "select sum(opened) from fd_op where syscall = 'eventfd2'")"
	assert_eq "$refuse: the site holding them: live" 200 "$(q "$C" "select max(live) from fd_site")"
done
