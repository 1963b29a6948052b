# --caps tells the truth about lanes: it prints the kernel feature table (each feature
# probed, with the Linux version that first has it) and, per collector, its lanes as a
# recording's probe set then records them, on this kernel and with each preferred lane
# refused (PTOP_TEST_REFUSE, record/kfeature.h, as an older kernel would): for each case
# the lanes --caps predicts for mark, net and io are the lanes a real run records.
. tests/e2e/lib.sh
need_ebpf
need_fixture regress

# caps_lanes COLLECTOR: "lane=state ..." from --caps ($TMP/caps), its collectors' list
# (the eBPF loads after it are tests/e2e/caps_verify.sh's)
caps_lanes() {
	awk -v c="$1" '/^eBPF loads/ { exit } $1 == c && NF > 2 { on = 1; next } on && $1 == "lane" { printf "%s%s=%s", sep, $2, $3; sep = " "; next } { on = 0 }' "$TMP/caps"
}
run_lanes() { # CAPTURE COLLECTOR
	q "$1" "select group_concat(lane || '=' || state, ' ') from (select * from probe_lane
		where probe = '$2' order by seq)"
}

for refuse in "" uprobe_multi tp_btf:sock_send_length tp_btf:io_uring_submit_req; do
	echo "-- PTOP_TEST_REFUSE=$refuse"
	PTOP_TEST_REFUSE=$refuse "$REC" --caps --io-files >"$TMP/caps"
	# the feature table: every feature with its version and yes/no
	for f in uprobe_multi:6.6 tp_btf:sock_send_length:6.3 tp_btf:io_uring_submit_req:6.3 \
		attach_cookie:5.15 task_storage:5.11; do
		has -E "^  ${f%:*} +${f##*:} +(yes|no) " <"$TMP/caps" || fail "--caps: no feature line ${f%:*} ${f##*:}"
	done
	if [ -n "$refuse" ]; then
		has -E "^  $refuse +[0-9.]+ +no +\(needs Linux [0-9.]+: $refuse \(refused by PTOP_TEST_REFUSE\)\)" \
			<"$TMP/caps" || fail "--caps: $refuse not 'no (refused)'"
	fi
	PTOP_TEST_REFUSE=$refuse "$REC" --quiet --user-stacks fp --enable net --io-files \
		--mark r=handle_request -o "$TMP/r.ptop" -- "$FIX/regress" 300 0 10 0 2 >/dev/null ||
		fail "recording with PTOP_TEST_REFUSE=$refuse"
	for c in mark net io; do
		assert_eq "$c lanes: --caps = the run's probe set" "$(caps_lanes $c)" "$(run_lanes "$TMP/r.ptop" $c)"
	done
	rm -f "$TMP/r.ptop"
done
