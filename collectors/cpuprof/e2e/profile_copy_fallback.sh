# The CPU profile when its stack copies cannot run: the lane of stack copies falls back to
# frame-pointer stacks and the probe set says why, instead of no profile at all (issue 19:
# with --user-stacks auto on a program without frame pointers, a verifier that refused the
# copies' program left "cpuprof failed"). Forced with PTOP_TEST_REFUSE (record/kfeature.h):
# "stack_copy" refuses the copies' load (as a verifier would), "bpf_loop" takes the helper
# as absent (a kernel before 5.17: decided before the load, and --caps says so too). Each
# time: cpuprof active with fp stacks, samples taken, the stack_copy lane failed or
# unsupported with its reason, and --strict refuses the run (fp stacks are not the same
# measure for code without frame pointers).
. tests/e2e/lib.sh
need_ebpf
need_fixture spin

for refuse in stack_copy bpf_loop; do
	C=$TMP/$refuse.ptop
	PTOP_TEST_REFUSE=$refuse "$REC" --quiet --user-stacks dwarf --disable syscalls -o "$C" \
		-- "$FIX/spin" 1 >/dev/null || fail "$refuse: ptop-record exited $?"
	assert_copy_fallback "$C" cpuprof $refuse bpf_loop
	assert_eq "$refuse: the profile's stacks" fp \
		"$(q "$C" "select group_concat(distinct user_stacks) from cpu_profile")"
	assert_ge "$refuse: samples" 1 "$(q "$C" "select sum(samples) from cpu_profile")"
	expect_exit 125 env PTOP_TEST_REFUSE=$refuse "$REC" --quiet --strict --user-stacks dwarf \
		--disable syscalls -o "$TMP/s.ptop" -- "$FIX/spin" 1
	has -- '--strict: collector cpuprof, lane stack_copy: ' <"$TMP/err" || fail "$refuse: --strict does not name the lane"
done
# what --caps predicts for the unsupported case
PTOP_TEST_REFUSE=bpf_loop "$REC" --caps --user-stacks dwarf >"$TMP/caps"
has -E '^      lane stack_copy +unsupported +needs Linux 5.17: bpf_loop' <"$TMP/caps" ||
	fail "--caps does not say the stack copies cannot run"
