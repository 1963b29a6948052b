# --cgroup: a whole cgroup v2 subtree. Ground truth: tests/fixtures/cg_pair forks two
# children that each make exactly N getppid() calls and touch 16 MiB; the test moves one
# into a new cgroup and the other into a child cgroup of it (the subtree must be
# covered), while a second cg_pair left outside makes the same calls (it must not be
# counted). On a hybrid host both also go into a cgroup v1 memory cgroup of the same
# name (the v1 lane). Then: the capture counts getppid exactly 2N, has cgroup memory
# rows with the lane named, both children's PSS and executable mappings (under their own
# pids, start and end, none of the outsider); with a 1 ns --smaps-budget each
# interval reads one child and the next the other; removing a recorded cgroup ends
# the recording; an ambiguous container id is refused with exit 2 and the
# candidates, a missing one too.
. tests/e2e/lib.sh
need_ebpf
N=20000

need_cgroup2
NAME=ptop-e2e-cgroup-$$
CG=$V2/$NAME
IDS=$V2/$NAME-ids

make_dirs "$CG" "$CG/sub" || skip "cannot create a cgroup under $V2"
[ -n "$V1" ] && make_dirs "$V1/$NAME"

# The fixture in the cgroup, and the same outside it.
"$FIX/cg_pair" $N 16 >"$TMP/in.out" &
IN=$!
kill_at_exit "$IN"
"$FIX/cg_pair" $N 16 >"$TMP/out.out" &
OUT=$!
kill_at_exit "$OUT"
wait_line "$TMP/in.out" '^pids ' "the fixture's pids"
wait_line "$TMP/out.out" '^pids ' "the outsider's pids"
read -r _ C1 C2 <"$TMP/in.out"
echo "$C1" >"$CG/cgroup.procs"
echo "$C2" >"$CG/sub/cgroup.procs"
if [ -n "$V1" ]; then
	echo "$C1" >"$V1/$NAME/cgroup.procs"
	echo "$C2" >"$V1/$NAME/cgroup.procs"
fi
grep -q "^0::/.*$NAME/sub\$" /proc/"$C2"/cgroup || fail "child $C2 is not in $NAME/sub"

# (a 10 s smaps budget: every process is read each interval, whatever the load)
"$REC" --cgroup "$CG" --enable heap --interval 200ms --smaps-budget 10s -o "$TMP/run.ptop" \
	2>"$TMP/rec.err" &
REC_PID=$!
kill_at_exit "$REC_PID"
wait_line "$TMP/rec.err" 'recording cgroup' "the recorder to start"
kill -USR1 "$IN" "$OUT"
wait_line "$TMP/in.out" '^done' "the fixture's syscalls"
wait_line "$TMP/out.out" '^done' "the outsider's syscalls"
# end the recording while the children hold their memory: the final poll reads them
kill -INT "$REC_PID"
rc=0
wait "$REC_PID" || rc=$?
cat "$TMP/rec.err"
assert_eq "ptop-record exit status" 0 "$rc"
# The smaps budget: 1 ns lets one smaps_rollup read through per interval (at least
# one always is); the next interval starts with the one skipped, so both are covered.
"$REC" --quiet --cgroup "$CG" --smaps-budget 1ns --interval 100ms --duration 450ms \
	-o "$TMP/budget.ptop"
kill -USR1 "$IN" "$OUT"
wait "$IN" || fail "the fixture failed"
wait "$OUT" || fail "the outsider failed"

P=$TMP/run.ptop
assert_eq "target" "cgroup|0|/$NAME" "$(q "$P" "select mode || '|' || ifnull(pid, 0) || '|' || cgroup_path from target")"
assert_eq "getppid count: the subtree's 2 x $N, not the outsider's" $((2 * N)) \
	"$(q "$P" "select sum(count) from syscall_stat where name = 'getppid'")"
assert_eq "syscall rows are cgroup aggregates (pid 0)" 0 \
	"$(q "$P" "select count(*) from syscall_stat where ifnull(pid, 0) != 0")"
assert_ge "on-CPU time of the subtree (ns, eBPF lane)" 1 \
	"$(q "$P" "select ifnull(sum(oncpu_ns), 0) from cpu_sample")"
assert_eq "cgroup probe" "active" "$(q "$P" "select state from probe where name = 'cgroup'")"
for c in memory vmas heap; do
	st=$(q "$P" "select state || ': ' || replace(reason, ',', ';') from probe where name = '$c'")
	case $st in unsupported:*--pid*) echo "ok: $c: $st" ;;
	*) fail "$c probe in cgroup mode: '$st' (want unsupported with what to use instead)" ;;
	esac
done
# mappings: every process of the subtree, each under its own pid, at the start and the end
assert_eq "mappings probe" "active" "$(q "$P" "select state from probe where name = 'mappings'")"
q "$P" "select detail from probe where name = 'mappings'" | has "every process of the cgroup (2 at start" ||
	fail "the mappings probe detail does not say it records every process of the cgroup"
for ev in start end; do
	assert_eq "both children's cg_pair mapped with a build-id ($ev)" 2 \
		"$(q "$P" "select count(distinct pid) from mapping where event = '$ev' and pid in ($C1, $C2) and path like '%/cg_pair' and build_id is not null")"
done
assert_eq "no mappings of the outsider or anyone else" 0 \
	"$(q "$P" "select count(*) from mapping where pid not in ($C1, $C2)")"

if [ -r "$CG/memory.current" ]; then lane=v2; else lane=v1; fi
[ "$lane" = v1 ] && [ -z "$V1" ] && lane=
if [ -n "$lane" ]; then
	assert_ge "cgroup samples with the $lane lane" 2 \
		"$(q "$P" "select count(*) from cgroup_sample where lane = '$lane'")"
	q "$P" "select detail from probe where name = 'cgroup'" | has "^\"\?$lane lane" ||
		fail "the cgroup probe detail does not name the $lane lane"
	assert_ge "cgroup memory at the end (bytes): the children's 2 x 16 MiB" $((32 << 20)) \
		"$(q "$P" "select current from cgroup_sample order by seq desc limit 1")"
	assert_ge "memory.stat rows" 5 "$(q "$P" "select count(*) from cgroup_stat")"
	if [ "$lane" = v1 ]; then
		assert_eq "v1 path" "/$NAME" \
			"$(q "$P" "select distinct v1_path from cgroup_sample where lane = 'v1'")"
	fi
else
	echo "note: no memory controller for $CG (neither v2 nor v1): memory rows not checked"
fi
last=$(q "$P" "select max(seq) from cgroup_sample")
assert_eq "both children covered, with PSS, at the end" 2 \
	"$(q "$P" "select count(*) from cgroup_proc where seq = $last and pid in ($C1, $C2) and state = 'covered' and pss >= 16 * 1048576")"
assert_eq "the outsider is not in the table" 0 \
	"$(q "$P" "select count(*) from cgroup_proc where pid not in ($C1, $C2)")"
assert_eq "the second child's own cgroup" "/$NAME/sub" \
	"$(q "$P" "select distinct cgroup_path from cgroup_proc where pid = $C2")"
assert_eq "coverage at the end" "2|2|0" \
	"$(q "$P" "select processes || '|' || covered || '|' || skipped from cgroup_sample where seq = $last")"
if [ -r "$CG/memory.pressure" ]; then
	assert_ge "PSI rows" 1 "$(q "$P" "select count(*) from cgroup_psi where resource = 'memory'")"
fi

B2=$TMP/budget.ptop
assert_ge "samples under a 1 ns smaps budget" 2 "$(q "$B2" "select count(*) from cgroup_sample")"
assert_eq "each reads one process and skips the other" 0 \
	"$(q "$B2" "select count(*) from cgroup_sample where covered != 1 or skipped != 1")"
assert_eq "both covered over time (rotation)" 2 \
	"$(q "$B2" "select count(distinct pid) from cgroup_proc where state = 'covered' and pss > 0")"
"$ANA" report cgroup "$P" >"$TMP/report.txt" || fail "report cgroup failed"
grep -q "$C2" "$TMP/report.txt" || fail "report cgroup does not list the child $C2"

# Removing the cgroup ends the recording (an empty one is still recorded).
make_dirs "$IDS" "$IDS/gone"
"$REC" --cgroup "$IDS/gone" --duration 60s -o "$TMP/gone.ptop" 2>"$TMP/gone.err" &
GONE_PID=$!
kill_at_exit "$GONE_PID"
wait_line "$TMP/gone.err" 'recording cgroup' "the recorder of the cgroup to remove"
rmdir "$IDS/gone"
wait "$GONE_PID" || fail "ptop-record of a removed cgroup failed: $(cat "$TMP/gone.err")"
assert_eq "end reason when the cgroup is removed" "target_exit|1" \
	"$(q "$TMP/gone.ptop" "select end_reason || '|' || complete from capture")"

# Container ids: two containers whose ids share a prefix.
PFX=$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
ID1=${PFX}1$(printf '%055d' 1)
ID2=${PFX}2$(printf '%055d' 2)
make_dirs "$IDS/docker-$ID1.scope" "$IDS/docker-$ID2.scope"
expect_exit 2 "$REC" --cgroup "$PFX" -o "$TMP/amb.ptop"
grep -q "ambiguous" "$TMP/err" || fail "no 'ambiguous' in the message"
grep -q "$ID1" "$TMP/err" && grep -q "$ID2" "$TMP/err" || fail "the candidates are not listed"
[ ! -e "$TMP/amb.ptop" ] || fail "a refused recording left a file"
expect_exit 2 "$REC" --cgroup "${PFX}3" -o "$TMP/miss.ptop"
grep -q "no container" "$TMP/err" || fail "no clear message for a missing id"
expect_exit 2 "$REC" --cgroup "/$NAME/nope" -o "$TMP/miss.ptop"
expect_exit 2 "$REC" --cgroup "$CG" --pid 1 -o "$TMP/both.ptop"
"$REC" --quiet --cgroup "${PFX}1" --duration 300ms -o "$TMP/id.ptop"
assert_eq "a unique prefix resolves" "$ID1|/$NAME-ids/docker-$ID1.scope" \
	"$(q "$TMP/id.ptop" "select container_id || '|' || cgroup_path from target")"
