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
	assert_eq "$refuse: fds" active/ebpf \
		"$(q "$C" "select state || '/' || source from probe where name = 'fds'")"
	want=$([ $refuse = stack_copy ] && echo "failed load refused by PTOP_TEST_REFUSE" ||
		echo "unsupported needs Linux 5.17: bpf_loop (refused by PTOP_TEST_REFUSE)")
	assert_eq "$refuse: stack_copy lane" "$want" \
		"$(q "$C" "select state || ' ' || reason from probe_lane where probe = 'fds' and lane = 'stack_copy'")"
	assert_eq "$refuse: fp lane" active \
		"$(q "$C" "select state from probe_lane where probe = 'fds' and lane = 'fp'")"
	assert_eq "$refuse: detail" 1 \
		"$(q "$C" "select detail like '%opening user stacks fp (%' from probe where name = 'fds'")"
	assert_eq "$refuse: eventfd2 opened" 200 "$(q "$C" "select sum(opened) from fd_op where syscall = 'eventfd2'")"
	assert_eq "$refuse: the site holding them: live" 200 "$(q "$C" "select max(live) from fd_site")"
	assert_eq "$refuse: no stack copies" 0 "$(q "$C" "select count(*) from stack_copy")"
done
