# --caps tells the truth about loads (issue 19): it loads (verifies, never attaches) each
# eBPF collector's programs as a run with the same options would, and says per collector
# and lane whether they load, with the largest program's verified instructions, or why
# not. Checked two ways, each with and without PTOP_TEST_REFUSE=stack_copy (the stack
# copies' load refused as a verifier would, record/kfeature.h), and with the heap by --pid:
# - what --caps prints: cpu, syscalls and cpuprof load with an instruction count;
#   under the hook, cpuprof's lane stack_copy failed with the reason, fp active;
# - agreement with a real run with the same options: for each collector --caps loaded,
#   the run's probe is active ("loads", "runs": without its eBPF lanes) or failed
#   ("FAILS"), and each lane --caps
#   prints has the same state in the run's probe set (info --format json, probe_lanes).
. tests/e2e/lib.sh
need_ebpf
need_fixture spin heap_nofp

# --caps takes the recorder's own pid as the target: the heap's lanes are those of --pid
sleep 60 &
spid=$!
kill_at_exit "$spid"
for name in "no hook" stack_copy "heap by --pid"; do
	refuse= enable=net target=(-- "$FIX/spin" 1)
	case $name in
	stack_copy) refuse=stack_copy ;;
	heap*) enable=net,heap target=(--pid "$spid" --duration 1s) ;;
	esac
	opts=(--user-stacks dwarf --fd-stacks --io-files --enable "$enable")
	PTOP_TEST_REFUSE=$refuse "$REC" --caps "${opts[@]}" >"$TMP/caps" ||
		fail "$name: --caps exited $?"
	# the loads' section: "  NAME  loads|FAILS|skip  ..." and "      lane NAME STATE ..."
	sed -n '/^eBPF loads/,/^  (loaded in/p' "$TMP/caps" >"$TMP/loads"
	has '^  (loaded in [0-9.]* s)$' <"$TMP/loads" || { cat "$TMP/caps"; fail "$name: --caps loaded nothing"; }
	cat "$TMP/loads"
	for c in cpu syscalls cpuprof; do
		has -E "^  $c +loads +largest program [a-z_0-9]+: [1-9][0-9]* instructions verified$" \
			<"$TMP/loads" || fail "$name: --caps does not say $c loads, with its instructions"
	done
	lanes=$(awk '/^  [a-z]/ { c = $1 } /^      lane / && c == "cpuprof" { print $2, $3 }' "$TMP/loads" |
		tr '\n' ';')
	if [ -n "$refuse" ]; then
		assert_eq "$name: cpuprof's lanes" "stack_copy failed;fp active;" "$lanes"
		has -E '^      lane stack_copy +failed +load refused by PTOP_TEST_REFUSE; in its place: fp$' <"$TMP/loads" ||
			fail "$name: the stack_copy lane's reason is not given"
	else
		assert_eq "$name: cpuprof's lanes" "stack_copy active;fp standby;" "$lanes"
	fi

	# a real run with the same options: its probe set
	rm -f "$TMP/run.ptop"
	PTOP_TEST_REFUSE=$refuse "$REC" --quiet "${opts[@]}" -o "$TMP/run.ptop" "${target[@]}" \
		>/dev/null || fail "$name: ptop-record exited $?"
	"$ANA" info --format json "$TMP/run.ptop" >"$TMP/info.json"
	python3 - "$TMP/loads" "$TMP/info.json" "$name" <<'EOF' || fail "$name: --caps and the run disagree"
import json, re, sys
loads, info, name = open(sys.argv[1]).read().splitlines(), json.load(open(sys.argv[2])), sys.argv[3]
probes = {p["name"]: p["state"] for p in info["probes"]}
lanes = {(l["probe"], l["lane"]): l["state"] for l in info["probe_lanes"]}
bad, n, c = 0, 0, None
for line in loads:
    m = re.match(r"^  ([a-z_]+) +(loads|runs|FAILS|skip) ", line)
    if m:
        c, verdict = m.group(1), m.group(2)
        if verdict == "skip":
            c = None
            continue
        want = "failed" if verdict == "FAILS" else "active"
        n += 1
        if probes.get(c) != want:
            print(f"{name}: --caps says {c} {verdict}, the run's probe is {probes.get(c)}")
            bad += 1
        continue
    m = re.match(r"^      lane ([a-z_]+) +([a-z]+)", line)
    if m and c:
        n += 1
        got = lanes.get((c, m.group(1)))
        if got != m.group(2):
            print(f"{name}: --caps says {c}/{m.group(1)} {m.group(2)}, the run says {got}")
            bad += 1
print(f"{name}: {n} collectors and lanes compared, {bad} disagree")
sys.exit(1 if bad or n < 3 else 0)
EOF
done

# --user-stacks auto: one decision, the same in --caps's two sections and in a real run of
# a command not judged before it runs (a script: the program it runs is not known), for
# every collector that takes user stacks: dwarf (stack copies)
"$REC" --caps --fd-stacks >"$TMP/caps" || fail "auto: --caps exited $?"
cp_lanes() { awk '/^  [a-z]/ { c = $1 } /^      lane / && c == "cpuprof" { print $2, $3 }' | tr '\n' ';'; }
assert_eq "auto: --caps collectors, cpuprof's lanes" "stack_copy active;fp standby;" \
	"$(sed -n '1,/^eBPF loads/p' "$TMP/caps" | cp_lanes)"
assert_eq "auto: --caps loads, cpuprof's lanes" "stack_copy active;fp standby;" \
	"$(sed -n '/^eBPF loads/,/^  (loaded in/p' "$TMP/caps" | cp_lanes)"
printf '#!/bin/sh\nexec %s "$@"\n' "$FIX/heap_nofp" >"$TMP/wrap"
chmod +x "$TMP/wrap"
"$REC" --quiet --fd-stacks -o "$TMP/auto.ptop" -- "$TMP/wrap" >/dev/null ||
	fail "auto: ptop-record of a script exited $?"
assert_eq "auto, a script: the lanes of user stacks" "cpuprof stack_copy active;fds stack_copy active;" \
	"$(q "$TMP/auto.ptop" "select probe || ' ' || lane || ' ' || state from probe_lane where lane = 'stack_copy' and probe in ('cpuprof', 'fds') order by probe" | tr '\n' ';')"
for c in cpuprof fds; do
	q "$TMP/auto.ptop" "select detail from probe where name = '$c'" |
		has 'user stacks dwarf (--user-stacks auto: wrap is a script, the program it runs is not judged before it runs)' ||
		fail "auto, a script: $c does not say it takes stack copies, and why"
done

# --caps --strict exits as a run's start would: the stack copies refused are a lost lane,
# and the error says what to do
expect_exit 1 env PTOP_TEST_REFUSE=stack_copy "$REC" --caps --strict --user-stacks dwarf
has -- '--strict: collector cpuprof, lane stack_copy: failed: load refused by PTOP_TEST_REFUSE (lane fp runs in its place, measuring less): record without --strict to accept fp, or choose --user-stacks fp' <"$TMP/err" ||
	fail "--caps --strict: the error does not name the lane and the remedy"
expect_exit 125 env PTOP_TEST_REFUSE=stack_copy "$REC" --quiet --strict --user-stacks dwarf \
	-o "$TMP/s.ptop" -- "$FIX/spin" 1
has -- 'record without --strict to accept fp, or choose --user-stacks fp; nothing recorded' <"$TMP/err" ||
	fail "--strict: the run's error does not say what to do"
"$REC" --caps --strict --user-stacks dwarf >/dev/null || fail "--caps --strict with nothing lost exited $?"
# without --strict the run records, and its start-up line says what ran in the lane's place
PTOP_TEST_REFUSE=stack_copy "$REC" --user-stacks dwarf -o "$TMP/f.ptop" -- "$FIX/spin" 1 \
	>/dev/null 2>"$TMP/err" || fail "stack copies refused, without --strict: exit $?"
has -- '  cpuprof: active, but lane stack_copy failed: load refused by PTOP_TEST_REFUSE (in its place: fp)' \
	<"$TMP/err" || fail "the start-up line does not say what ran in the lane's place"
