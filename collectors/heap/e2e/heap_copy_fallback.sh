# The heap's uprobe lane when its stack copies cannot run (--user-stacks dwarf, or auto on a
# program without frame pointers): it falls back to frame-pointer stacks, the probe set says
# why, and the counts stay exact, where the heap used to fail whole (issue 19: hp_enter with
# copies past the verifier's limit). Forced with PTOP_TEST_REFUSE (record/kfeature.h):
# "stack_copy" refuses the copies' load, "bpf_find_vma" takes the helper as absent (before
# Linux 5.17). Ground truth heap_leak: churn's 1,000,000 malloc(64) at one site, leak_pages'
# 1000 x 4096 bytes live at the end.
. tests/e2e/lib.sh
need_ebpf
need_fixture heap_leak

for refuse in stack_copy bpf_find_vma; do
	C=$TMP/$refuse.ptop
	PTOP_TEST_REFUSE=$refuse "$REC" --quiet --enable heap --heap-lane uprobe \
		--heap-sample-bytes 0 --user-stacks dwarf --disable cpuprof -o "$C" \
		-- "$FIX/heap_leak" >/dev/null || fail "$refuse: ptop-record exited $?"
	assert_copy_fallback "$C" heap $refuse bpf_find_vma
	assert_eq "$refuse: churn's site, 1,000,000 allocations" 1 \
		"$(q "$C" "select count(*) from (select stack_id from heap_site group by stack_id
			having sum(alloc_count) = 1000000 and sum(alloc_bytes) = 64000000)")"
	assert_ge "$refuse: live bytes at the end" 4096000 \
		"$(q "$C" "select live_bytes from heap_snapshot order by seq desc limit 1")"
done
