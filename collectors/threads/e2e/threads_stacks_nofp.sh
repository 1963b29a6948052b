# The off-CPU user stacks of programs built without frame pointers, as distributions
# build them: threads_nofp (tests/fixtures/threads_mix.c, -O2 -fomit-frame-pointer: its
# sleeper_nap keeps data in rbp) and Debian's own python3.
#   - --user-stacks dwarf, and auto (a block starts in libc's syscall wrappers: copies
#     whatever the program keeps): the sleeper's top off-CPU stack runs
#     clock_nanosleep < sleeper_nap < thread_body < start_thread (its own function above
#     the libc wrapper, from a stack copy taken at the switch-out and unwound offline),
#     the probe detail and lanes say dwarf, its stacks hold its time asleep (between the
#     time it asked for and the time clock_nanosleep took, 1% either way: the blocks of
#     one call path are one profile row however many copy keys they had);
#   - --user-stacks fp: no stack of the sleeper names sleeper_nap (the walk from
#     clock_nanosleep, which keeps no frame pointer, skips its caller), the lanes say fp;
#   - python3 by --pid (default auto): the main thread's off-CPU stack in time.sleep is
#     whole, from clock_nanosleep through _PyEval_EvalFrameDefault to Py_BytesMain; a
#     frame-pointer walk of the same never reaches Py_BytesMain;
#   - PTOP_TEST_REFUSE=stack_copy: the copies' load refused, fp in their place, said;
#   - PTOP_TEST_STACK_CLOBBER: every copy's scan state taken over: dropped, counted as
#     stack_state_clobbered, none written.
. tests/e2e/lib.sh
need_ebpf
need_fixture threads_nofp

# sleeper C: the sleeper's off-CPU rows of capture C (report threads JSON) into $TMP/s.json
sleeper() {
	"$ANA" report threads --format json "$1" >"$TMP/r.json" || fail "report threads --format json"
	python3 - "$TMP/r.json" "$2" >"$TMP/s.json" <<'PY' || fail "report threads JSON"
import json, sys
r = json.load(open(sys.argv[1])); tid = int(sys.argv[2])
print(json.dumps([s for s in r["offcpu_stacks"] if s["tid"] == tid]))
PY
}

for m in dwarf auto fp; do
	"$REC" --quiet --enable threads --user-stacks $m --interval 250ms -o "$TMP/$m.ptop" \
		-- "$FIX/threads_nofp" 2 >"$TMP/$m.out" || fail "$m: ptop-record exited $?"
	tid=$(awk '$2 == "sleeper" { print $4 }' "$TMP/$m.out")
	asked=$(awk '$2 == "sleeper" { print $12 }' "$TMP/$m.out")
	slept=$(awk '$2 == "sleeper" { print $10 }' "$TMP/$m.out")
	[ -n "$tid" ] || fail "$m: the fixture did not run: $(cat "$TMP/$m.out")"
	want=$([ $m = fp ] && echo fp || echo dwarf)
	detail=$(q "$TMP/$m.ptop" "select detail from probe where name = 'threads'")
	has "user $want (--user-stacks $m" <<<"$detail" || fail "$m: the probe detail does not say $want: $detail"
	assert_eq "$m: active lane" "$([ $m = fp ] && echo fp || echo stack_copy)" \
		"$(q "$TMP/$m.ptop" "select lane from probe_lane where probe = 'threads' and lane in ('fp', 'stack_copy') and state = 'active'")"
	sleeper "$TMP/$m.ptop" "$tid"
	if [ $m = fp ]; then
		assert_eq "fp: the sleeper's stacks naming sleeper_nap" 0 \
			"$(jget "$TMP/s.json" 'len([s for s in j if "sleeper_nap" in s["stack"]])')"
		assert_eq "fp: stack copies" 0 "$(q "$TMP/$m.ptop" "select count(*) from stack_copy")"
		continue
	fi
	top=$(jget "$TMP/s.json" 'j[0]["stack"].split(" | kernel: ")[0]')
	echo "$m: the sleeper's top off-CPU stack: $top"
	case "$top" in
	clock_nanosleep*" < sleeper_nap < thread_body < start_thread"*) ;;
	*) fail "$m: the sleeper's top stack is not clock_nanosleep < sleeper_nap < thread_body < start_thread: $top" ;;
	esac
	assert_eq "$m: the sleeper's top reason" sleep "$(jget "$TMP/s.json" 'j[0]["reason"]')"
	# its copies' rows are one row by frames, holding its time asleep: from the time it
	# asked to sleep (less 1%) to the time clock_nanosleep took (plus 1%: that adds the
	# wait for a CPU after each wakeup; a virtual machine's timers also fire late)
	tot=$(jget "$TMP/s.json" 'round(sum(s["total_s"] for s in j if "sleeper_nap" in s["stack"]) * 1e9)')
	top_ns=$(jget "$TMP/s.json" 'round(j[0]["total_s"] * 1e9)')
	echo "$m: sleeper asked $asked ns, slept $slept ns; its stacks through sleeper_nap $tot ns, the top row $top_ns ns"
	assert_ge "$m: the sleeper's stacks (ns)" $(( asked - asked / 100 )) "$tot"
	assert_le "$m: the sleeper's stacks (ns)" $(( slept + slept / 100 )) "$tot"
	assert_ge "$m: the sleeper's top row (ns)" $(( asked - asked / 100 )) "$top_ns"
	assert_le "$m: the sleeper's top row (ns)" $(( slept + slept / 100 )) "$top_ns"
	assert_ge "$m: stack copies" 1 "$(q "$TMP/$m.ptop" "select count(*) from stack_copy")"
done

# PTOP_TEST_REFUSE=stack_copy: frame-pointer walks in the copies' place, said
PTOP_TEST_REFUSE=stack_copy "$REC" --quiet --enable threads --user-stacks dwarf --interval 250ms \
	-o "$TMP/refused.ptop" -- "$FIX/threads_nofp" 0.5 >/dev/null || fail "refused: ptop-record exited $?"
assert_copy_fallback "$TMP/refused.ptop" threads stack_copy ""
has "user fp (the stack copies failed to load" <<<"$(q "$TMP/refused.ptop" "select detail from probe where name = 'threads'")" ||
	fail "refused: the probe detail does not say fp: $(q "$TMP/refused.ptop" "select detail from probe where name = 'threads'")"
assert_ge "refused: off-CPU stacks still taken" 1 "$(q "$TMP/refused.ptop" "select count(*) from offcpu_stack where user_stack_id is not null")"

# PTOP_TEST_STACK_CLOBBER: each copy's per-CPU scan state taken over, as by another scan
# on its CPU: no copy is sent mixed, each is a drop with its reason (cpuprof, which
# would take copies of its own, left out)
PTOP_TEST_STACK_CLOBBER=1 "$REC" --quiet --enable threads --disable cpuprof --user-stacks dwarf --interval 250ms \
	-o "$TMP/clobber.ptop" -- "$FIX/threads_nofp" 0.5 >/dev/null || fail "clobber: ptop-record exited $?"
assert_ge "clobber: copies dropped as stack_state_clobbered" 3 \
	"$(q "$TMP/clobber.ptop" "select coalesce(sum(lost), 0) from drop_notice where collector = 'threads' and kind = 'stack_state_clobbered'")"
assert_eq "clobber: stack copies written" 0 "$(q "$TMP/clobber.ptop" "select count(*) from stack_copy")"

# python3 (Debian's, without frame pointers) by --pid: whole stacks through the interpreter
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "note: no $PY: its off-CPU stacks not checked"; echo "ok: threads_stacks_nofp"; exit 0; }
cat >"$TMP/nap.py" <<'PYEOF'
import sys, time
def nap():
    time.sleep(0.05)
def level(k):
    if k == 0:
        return nap()
    return level(k - 1)
end = time.time() + float(sys.argv[1])
print("ready", flush=True)
while time.time() < end:
    level(5)
PYEOF
for m in auto fp; do
	"$PY" "$TMP/nap.py" 4 >"$TMP/py$m.out" &
	pypid=$!
	kill_at_exit "$pypid"
	wait_line "$TMP/py$m.out" '^ready' "python3 to start"
	"$REC" --quiet --enable threads --user-stacks $m --pid "$pypid" --interval 250ms --duration 1.5s \
		-o "$TMP/py$m.ptop" || fail "python3 $m: ptop-record exited $?"
	wait "$pypid" || fail "python3 exited $?"
	sleeper "$TMP/py$m.ptop" "$pypid"
	top=$(jget "$TMP/s.json" 'j[0]["stack"].split(" | kernel: ")[0] if j else ""')
	echo "python3 $m: the main thread's top off-CPU stack: ${top:0:400}"
	if [ $m = fp ]; then
		case "$top" in
		*Py_BytesMain*) fail "python3 fp: a frame-pointer walk reached Py_BytesMain: $top" ;;
		esac
		continue
	fi
	case "$top" in
	clock_nanosleep*"_PyEval_EvalFrameDefault"*"Py_BytesMain"*) ;;
	*) fail "python3 $m: the top stack does not run clock_nanosleep .. _PyEval_EvalFrameDefault .. Py_BytesMain: $top" ;;
	esac
done
echo "ok: threads_stacks_nofp"
