# Fds the kernel closes without a close call (--fd-stacks): the opening sites' live counts
# agree with the fd table at the end. fd_kernclose opens N eventfds at one site and 2 at
# another (open_kept), then
#   exec:  the N were opened with EFD_CLOEXEC, and the process execs itself: the exec
#          closes them, no close call is made;
#   range: one close_range(2) closes the N.
# Ground truth: the N's site has N opened and 0 live, N closed without a close call;
# open_kept's has 2 opened and 2 live; the live counts add up to the eventfds of the fd
# table at the end (2). Both as a launched command and attached by --pid.
. tests/e2e/lib.sh
need_ebpf
need_fixture fd_kernclose

N=7

# check C MODE SITE: capture C of fd_kernclose MODE, whose N fds were opened at SITE
check() {
	local c=$1 m=$2 site=$3
	assert_eq "$m: fds probe" "active/ebpf" \
		"$(q "$c" "select state || '/' || source from probe where name = 'fds'")"
	assert_eq "$m: eventfds in the table at the end" 2 \
		"$(q "$c" "select count(*) from fd_open where type = 'eventfd'")"
	"$ANA" report fds --format json "$c" >"$TMP/$m.json"
	"$ANA" report fds "$c" >"$TMP/$m.txt"
	sed -n '/^opening sites/,$p' "$TMP/$m.txt" | head -8
	assert_eq "$m: opened at $site" $N \
		"$(jget "$TMP/$m.json" '[s["opened"] for s in j["opens_and_closes"]["sites"] if "'$site'" in s["stack"]][0]')"
	assert_eq "$m: live at $site" 0 \
		"$(jget "$TMP/$m.json" '[s["live"] for s in j["opens_and_closes"]["sites"] if "'$site'" in s["stack"]][0]')"
	assert_eq "$m: live at open_kept" 2 \
		"$(jget "$TMP/$m.json" '[s["live"] for s in j["opens_and_closes"]["sites"] if "open_kept" in s["stack"]][0]')"
	assert_eq "$m: live at the eventfd sites = the table's eventfds" 2 \
		"$(jget "$TMP/$m.json" 'sum(s["live"] for s in j["opens_and_closes"]["sites"] if "eventfd" in s["stack"])')"
	assert_eq "$m: json closed_without_close" $N \
		"$(jget "$TMP/$m.json" 'j["opens_and_closes"]["closed_without_close"]')"
	assert_eq "$m: fd_site closed_unseen at $site" $N \
		"$(q "$c" "select sum(closed_unseen) from fd_site")"
	grep -q "^closed without a close call (exec, close_range, .*: $N\$" "$TMP/$m.txt" ||
		fail "$m: text: no 'closed without a close call: $N' line"
}

for m in exec range; do
	site=$([ $m = exec ] && echo open_cloexec || echo open_ranged)
	"$REC" --quiet --fd-stacks --interval 200ms -o "$TMP/$m.ptop" \
		-- "$FIX/fd_kernclose" $m $N >"$TMP/$m.out" || fail "$m: ptop-record exited $?"
	grep -q "^fd_kernclose: $N " "$TMP/$m.out" || fail "$m: the fixture did not run"
	check "$TMP/$m.ptop" $m $site

	# attached by --pid: the lane starts while the process runs
	"$FIX/fd_kernclose" $m $N wait >"$TMP/pid-$m.out" &
	fpid=$!
	kill_at_exit "$fpid"
	wait_line "$TMP/pid-$m.out" '^ready' "the fixture to wait"
	"$REC" --fd-stacks --interval 200ms --pid "$fpid" -o "$TMP/pid-$m.ptop" 2>"$TMP/pid-$m.err" &
	rpid=$!
	kill_at_exit "$rpid"
	wait_line "$TMP/pid-$m.err" 'recording pid' "the recorder to attach"
	kill -USR1 "$fpid"
	wait "$fpid" || fail "pid $m: fd_kernclose exited $?"
	wait "$rpid" || { cat "$TMP/pid-$m.err" >&2; fail "pid $m: ptop-record exited $?"; }
	check "$TMP/pid-$m.ptop" pid-$m $site
done
