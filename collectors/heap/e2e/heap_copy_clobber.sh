# A stack copy whose per-CPU scan state another scan took over (bpf/stackcopy.bpf.h:
# a uprobe program preempted between its copy and its scan, on a preemptible kernel,
# while another thread's allocation scanned on that CPU) is dropped and counted
# (drop stack_state_clobbered), never sent as a stack that is half another's (issue 19).
# Forced with the test hook PTOP_TEST_STACK_CLOBBER: every scan's state is taken over
# before its check. Ground truth heap_leak: churn's 1,000,000 malloc(64) at one site,
# every allocation sampled (--heap-sample-bytes 0), stack copies (--user-stacks dwarf).
# The counts stay exact; no copy is written; each sampled allocation's stack is a drop
# with the reason. The same run without the hook writes copies and drops none so.
. tests/e2e/lib.sh
need_ebpf
need_fixture heap_leak

drop() { # CAPTURE KIND: the heap's drops of KIND (trailer total)
	q "$1" "select coalesce(sum(lost), 0) from drop_total
		where collector = 'heap' and kind = '$2'"
}
for m in clobber plain; do
	C=$TMP/$m.ptop
	env $([ $m = clobber ] && echo PTOP_TEST_STACK_CLOBBER=1) "$REC" --quiet --enable heap \
		--heap-lane uprobe --heap-sample-bytes 0 --user-stacks dwarf --disable cpuprof \
		-o "$C" -- "$FIX/heap_leak" >/dev/null || fail "$m: ptop-record exited $?"
	assert_eq "$m: heap" active/ebpf \
		"$(q "$C" "select state || '/' || source from probe where name = 'heap'")"
	assert_eq "$m: stack_copy lane" active \
		"$(q "$C" "select state from probe_lane where probe = 'heap' and lane = 'stack_copy'")"
	assert_ge "$m: allocations" 1000000 "$(q "$C" "select sum(alloc_count) from heap_snapshot")"
	clob=$(drop "$C" stack_state_clobbered)
	copies=$(q "$C" "select count(*) from stack_copy")
	echo "$m: stack_state_clobbered $clob, stack copies $copies"
	if [ $m = clobber ]; then
		assert_ge "clobber: stacks dropped as clobbered (every sampled allocation)" 1000000 "$clob"
		assert_eq "clobber: stack copies written" 0 "$copies"
		assert_ge "clobber: allocations without a stack (heap_snapshot.stack_failures)" 1000000 \
			"$(q "$C" "select sum(stack_failures) from heap_snapshot")"
		has "another stack scan" <<<"$(q "$C" "select group_concat(distinct detail) from drop_notice
			where collector = 'heap' and kind = 'stack_state_clobbered'")" ||
			fail "the drop does not say why"
		assert_eq "clobber: allocations at a site with a stack" 0 \
			"$(q "$C" "select coalesce(sum(alloc_count), 0) from heap_site h where exists
				(select 1 from stack_frame f where f.cap = h.cap and f.stack_id = h.stack_id)")"
	else
		assert_ge "plain: stack copies written" 1 "$copies"
		assert_eq "plain: churn's site, 1,000,000 allocations" 1 \
			"$(q "$C" "select count(*) from (select stack_id from heap_site group by stack_id
				having sum(alloc_count) = 1000000 and sum(alloc_bytes) = 64000000)")"
	fi
done
