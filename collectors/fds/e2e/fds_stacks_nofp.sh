# The opening sites of --fd-stacks on a program without frame pointers: fds_nofp
# (tests/fixtures/heap_nofp.c built -DNOFP_FDS, -O2 -fomit-frame-pointer) runs main ->
# stage_a -> stage_b -> stage_c, where stage_c makes exactly 300 eventfd() calls and
# closes 100 of the fds.
#   --user-stacks dwarf, and auto (the recorder finds no frame pointers in fds_nofp): the
#     opens' stacks are copies unwound by ptop-analyze; report fds (JSON) has one site
#     through eventfd < stage_c < stage_b < stage_a < main with exactly 300 opened, 200
#     still open, and the probe detail says dwarf. The same attached by --pid
#     (fds_nofp_attach: waits for SIGUSR1).
#   --user-stacks fp: the walk cannot pass stage_c (rbp holds data there), so no site has
#     the chain, and the report says the stacks are not to be trusted: each site shows
#     its first frame only, the rest apart as untrusted_frames, with a note in text.
. tests/e2e/lib.sh
need_ebpf
need_fixture fds_nofp fds_nofp_attach

CHAIN='stage_c < stage_b < stage_a < main'

# check C MODE: the sites of capture C recorded with --user-stacks MODE
check() {
	local c=$1 m=$2 want
	want=$([ "$m" = fp ] && echo fp || echo dwarf)
	assert_eq "$m: fds probe" "active/ebpf" \
		"$(q "$c" "select state || '/' || source from probe where name = 'fds'")"
	has "opening user stacks $want (--user-stacks $m" \
		<<<"$(q "$c" "select detail from probe where name = 'fds'")" ||
		fail "$m: the fds probe detail does not say '$want': $(q "$c" "select detail from probe where name = 'fds'")"
	assert_eq "$m: eventfd2 opened" 300 \
		"$(q "$c" "select sum(opened) from fd_op where syscall = 'eventfd2'")"
	"$ANA" report fds --format json "$c" >"$TMP/$m.json"
	"$ANA" report fds "$c" >"$TMP/$m.txt"
	sed -n '/^opening sites/,$p' "$TMP/$m.txt" | head -4
	assert_eq "$m: json user_stacks" "$want" "$(jget "$TMP/$m.json" 'j["opens_and_closes"]["user_stacks"]')"
	# the site of stage_c's eventfd() calls: its first frame is libc's eventfd
	assert_eq "$m: sites whose stack starts in eventfd" 1 \
		"$(jget "$TMP/$m.json" 'len([s for s in j["opens_and_closes"]["sites"] if s["stack"].split(" < ")[0] == "eventfd"])')"
	assert_eq "$m: opened at it" 300 \
		"$(jget "$TMP/$m.json" '[s["opened"] for s in j["opens_and_closes"]["sites"] if s["stack"].split(" < ")[0] == "eventfd"][0]')"
	assert_eq "$m: still open at it" 200 \
		"$(jget "$TMP/$m.json" '[s["live"] for s in j["opens_and_closes"]["sites"] if s["stack"].split(" < ")[0] == "eventfd"][0]')"
	if [ "$m" != fp ]; then
		assert_eq "$m: the site's stack" "eventfd < $CHAIN" \
			"$(jget "$TMP/$m.json" '[" < ".join(s["stack"].split(" < ")[:5]) for s in j["opens_and_closes"]["sites"] if s["live"] == 200][0]')"
		assert_eq "$m: json stacks_trusted" True "$(jget "$TMP/$m.json" 'j["opens_and_closes"]["stacks_trusted"]')"
		grep -Eq "^ +200 live +300 opened  eventfd < $CHAIN" "$TMP/$m.txt" ||
			fail "$m: text: no site with 200 live through $CHAIN"
	else
		assert_eq "fp: sites with the chain" 0 \
			"$(jget "$TMP/$m.json" "len([s for s in j['opens_and_closes']['sites'] if '$CHAIN' in s['stack'] + ' < ' + (s['untrusted_frames'] or '')])")"
		assert_eq "fp: json stacks_trusted" False "$(jget "$TMP/$m.json" 'j["opens_and_closes"]["stacks_trusted"]')"
		has "no frame pointers in fds_nofp" <<<"$(jget "$TMP/$m.json" 'j["opens_and_closes"]["stacks_note"]')" ||
			fail "fp: json stacks_note does not name fds_nofp"
		assert_eq "fp: json sites with more than their first frame in stack" 0 \
			"$(jget "$TMP/$m.json" 'len([s for s in j["opens_and_closes"]["sites"] if " < " in s["stack"]])')"
		assert_eq "fp: json untrusted_frames empty but not null" 0 \
			"$(jget "$TMP/$m.json" 'len([s for s in j["opens_and_closes"]["sites"] if s["untrusted_frames"] == ""])')"
		grep -q '^note: frame-pointer walks through code without frame pointers (no frame pointers in fds_nofp' "$TMP/$m.txt" ||
			fail "fp: text: no note that the stacks are not to be trusted"
		has "frame-pointer walks through code without frame pointers" \
			<<<"$(q "$c" "select detail from probe where name = 'fds'")" ||
			fail "fp: the probe detail does not say the walks are not to be trusted"
	fi
}

for m in dwarf auto fp; do
	"$REC" --quiet --fd-stacks --user-stacks $m --interval 250ms -o "$TMP/$m.ptop" \
		-- "$FIX/fds_nofp" >"$TMP/$m.out" || fail "$m: ptop-record exited $?"
	grep -q '^fds_nofp: 300 opened, 200 still open$' "$TMP/$m.out" || fail "$m: the fixture did not run"
	check "$TMP/$m.ptop" $m
done

# attached by --pid (the lane starts while the process runs), copies by auto's choice
"$FIX/fds_nofp_attach" >"$TMP/pid.out" &
fpid=$!
kill_at_exit "$fpid"
wait_line "$TMP/pid.out" '^ready' "the fixture to wait"
"$REC" --fd-stacks --interval 200ms --pid "$fpid" -o "$TMP/pid.ptop" 2>"$TMP/pid.err" &
rpid=$!
kill_at_exit "$rpid"
wait_line "$TMP/pid.err" 'recording pid' "the recorder to attach"
kill -USR1 "$fpid"
wait "$fpid" || fail "fds_nofp_attach exited $?"
wait "$rpid" || { cat "$TMP/pid.err" >&2; fail "ptop-record exited $?"; }
check "$TMP/pid.ptop" auto
