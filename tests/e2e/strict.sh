# --strict: a collector that failed or a lane lost (failed, or unsupported with nothing in
# its place) is a start-up error, exit 125 for a launched command (which is then not run)
# and 1 with --pid, and no capture is left; a lane that falls back to one measuring the same
# (perf-event uprobes for uprobe_multi links) is no loss. The lanes are refused with
# PTOP_TEST_REFUSE (record/kfeature.h), as a kernel before Linux 6.3 / 6.6 would.
. tests/e2e/lib.sh
need_ebpf
need_fixture regress

# what this test does not vary is held fixed: frame-pointer stacks (no stack copies), and
# no syscalls collector (it fails on its own on 6.1's verifier until its bounds are fixed,
# and --strict names the first failure)
base=(--quiet --user-stacks fp --disable syscalls --interval 250ms)

# the net collector without its sock_length lane (bytes not measured): a lost lane
expect_exit 125 env PTOP_TEST_REFUSE=tp_btf:sock_send_length "$REC" "${base[@]}" --strict \
	--enable net -o "$TMP/n.ptop" -- sh -c "touch $TMP/ran"
has -- '--strict: collector net, lane sock_length: unsupported: bytes, calls and send/receive errors not measured: needs Linux 6.3' <"$TMP/err" ||
	fail "the error does not name the lane and why"
[ ! -e "$TMP/ran" ] || fail "the command ran"
[ ! -e "$TMP/n.ptop" ] || fail "a capture was left"
# without --strict the same run records, and exits with the command's status
env PTOP_TEST_REFUSE=tp_btf:sock_send_length "$REC" "${base[@]}" --enable net \
	-o "$TMP/n.ptop" -- true || fail "without --strict: exit $?"
assert_eq "without --strict: net" active "$(q "$TMP/n.ptop" "select state from probe where name = 'net'")"

# --pid: exit 1
"$FIX/regress" 5000 0 10 0 >/dev/null &
fpid=$!
kill_at_exit "$fpid"
expect_exit 1 env PTOP_TEST_REFUSE=tp_btf:sock_send_length "$REC" "${base[@]}" --strict \
	--enable net --duration 1s --pid "$fpid" -o "$TMP/p.ptop"
[ ! -e "$TMP/p.ptop" ] || fail "--pid: a capture was left"

# a collector that failed: a --mark on a function that is not there
expect_exit 125 "$REC" "${base[@]}" --strict --mark x=no_such_function -o "$TMP/m.ptop" \
	-- "$FIX/regress" 100 0 10 0
has -- '--strict: collector mark failed: ' <"$TMP/err" || fail "the error does not name the collector"

# uprobe_multi refused: the uprobes go as perf events, which measure the same: no loss
PTOP_TEST_REFUSE=uprobe_multi "$REC" "${base[@]}" --strict --mark r=handle_request \
	-o "$TMP/u.ptop" -- "$FIX/regress" 300 0 10 0 2 >"$TMP/u.txt" ||
	fail "--strict with uprobe_multi refused: exit $?"
assert_eq "mark lane" "perf_uprobe" \
	"$(q "$TMP/u.ptop" "select lane from probe_lane where probe = 'mark' and state = 'active'")"
assert_eq "instead of uprobe_multi" "perf_uprobe" \
	"$(q "$TMP/u.ptop" "select instead from probe_lane where probe = 'mark' and lane = 'uprobe_multi'")"
