# --cgroup with the CPU profile: a profile per process of the subtree, each symbolized
# with its own process's mappings. In a new cgroup: cpu_split (burn_hot ~80%,
# burn_cold ~20% of its CPU time) and, in a child cgroup, spin (a different executable,
# busy in main); outside it, a second cpu_split. Then: cpuprof and mappings are active;
# the profile's processes are exactly the two insiders (not the outsider, not the
# recorder); report cpu --pid names burn_hot then burn_cold for cpu_split, with shares
# near 80/20, and main in spin for spin; each process's mappings are recorded under its
# own pid; the folded export starts each line with the process. The cpu collector's
# eBPF and cgroup (cpu.stat) lanes agree; with --no-ebpf the cgroup lane runs alone.
. tests/e2e/lib.sh
need_ebpf
need_cgroup2
NAME=ptop-e2e-cgprof-$$
CG=$V2/$NAME
make_dirs "$CG" "$CG/sub" || skip "cannot create a cgroup under $V2"


P=$TMP/run.ptop
"$REC" --cgroup "$CG" --interval 500ms -o "$P" 2>"$TMP/rec.err" &
REC_PID=$!
kill_at_exit "$REC_PID"
wait_line "$TMP/rec.err" 'recording cgroup' "the recorder to start"
# each moves itself into its cgroup, then execs the fixture
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 4' sh "$CG" "$FIX/cpu_split" &
A=$!
kill_at_exit "$A"
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 3' sh "$CG/sub" "$FIX/spin" &
S=$!
kill_at_exit "$S"
"$FIX/cpu_split" 3 &
O=$!
kill_at_exit "$O"
wait "$A" || fail "cpu_split in the cgroup failed"
wait "$S" || fail "spin failed"
wait "$O" || fail "the outsider failed"
kill -INT "$REC_PID"
rc=0
wait "$REC_PID" || rc=$?
cat "$TMP/rec.err"
assert_eq "ptop-record exit status" 0 "$rc"

for c in cpuprof mappings; do
	assert_eq "$c probe in cgroup mode" active "$(q "$P" "select state from probe where name = '$c'")"
done
assert_eq "the profile's processes: the two insiders" "$(printf '%s\n' "$A" "$S" | sort -n | paste -sd' ')" \
	"$(q "$P" "select distinct pid from cpu_profile_stack order by pid" | paste -sd' ')"
assert_eq "no sample of the outsider" 0 "$(q "$P" "select count(*) from cpu_profile_stack where pid = $O")"
for p in "$A" "$S"; do
	assert_ge "mappings of $p under its own pid" 1 "$(q "$P" "select count(*) from mapping where pid = $p")"
done
assert_eq "the kernel's names of the two, at their last samples" "cpu_split spin" \
	"$(q "$P" "select group_concat(comm, ' ') from (select comm from cpu_profile_process
		where (pid, seq) in (select pid, max(seq) from cpu_profile_process group by pid)
		order by pid)")"

"$ANA" report cpu --format json "$P" >"$TMP/cpu.json"
assert_eq "processes in report cpu" "$(printf '%s\n' "$A" "$S" | sort -n | paste -sd' ')" \
	"$(jget "$TMP/cpu.json" "' '.join(str(p['pid']) for p in sorted(j['processes'], key=lambda p: p['pid']))")"

"$ANA" report cpu --pid "$A" --format json "$P" >"$TMP/a.json"
assert_eq "cpu_split: first by self" burn_hot "$(jget "$TMP/a.json" "j['profile']['top_self'][0]['function']")"
assert_eq "cpu_split: second by self" burn_cold "$(jget "$TMP/a.json" "j['profile']['top_self'][1]['function']")"
hot=$(jget "$TMP/a.json" "round(j['profile']['top_self'][0]['self_pct'])")
assert_ge "burn_hot self %" 65 "$hot"
assert_le "burn_hot self %" 95 "$hot"

"$ANA" report cpu --pid "$S" --format json "$P" >"$TMP/s.json"
assert_eq "spin: first by self" main "$(jget "$TMP/s.json" "j['profile']['top_self'][0]['function']")"
assert_eq "spin: its module" spin \
	"$(jget "$TMP/s.json" "j['profile']['top_self'][0]['module'].rsplit('/', 1)[-1]")"

expect_exit 2 "$ANA" report cpu --pid "$O" "$P"

# --user-stacks auto in cgroup mode takes stack copies (its processes are not known at
# the start): each copy is its own process's, unwound with that process's mappings
has "user stacks dwarf (--user-stacks auto: a cgroup" \
	<<<"$(q "$P" "select detail from probe where name = 'cpuprof'")" ||
	fail "the cpuprof probe detail does not say stack copies in cgroup mode"
assert_eq "copies of the two insiders only" "$(printf '%s\n' "$A" "$S" | sort -n | paste -sd' ')" \
	"$(q "$P" "select distinct pid from stack_copy order by pid" | paste -sd' ')"
# (all but a few: a sample of the shell before its exec may stop in a frame whose CFA
# needs a register the copy does not keep)
q "$P" "select pid, unwound, unwind_end from stack_copy where unwound < 2"
assert_ge "copies unwound past their first frame (% of all)" 90 \
	"$(q "$P" "select sum(unwound >= 2) * 100 / count(*) from stack_copy")"

"$ANA" export --format folded "$P" >"$TMP/folded"
has "^cpu_split-$A;.*;burn_hot [0-9]*\$" <"$TMP/folded" || fail "no cpu_split-$A;...;burn_hot line in the folded export"
has "^spin-$S;.*main [0-9]*\$" <"$TMP/folded" || fail "no spin-$S;...;main line in the folded export"

# The cpu collector's two lanes over the same subtree: sched_switch (eBPF) and the
# cgroup's cpu.stat agree on the CPU time used (within 10%: the lanes read at
# slightly different moments; cpu_split alone used 4 s of CPU).
ebpf_ns=$(q "$P" "select sum(oncpu_ns) from cpu_sample")
cg_ns=$(q "$P" "select sum(cg_usage_ns) from cpu_sample")
assert_ge "cgroup lane: CPU used (ns)" 4000000000 "${cg_ns:-0}"
assert_ge "the lanes agree (cpu.stat x 100 / eBPF)" 90 $((cg_ns * 100 / ebpf_ns))
assert_le "the lanes agree (cpu.stat x 100 / eBPF)" 110 $((cg_ns * 100 / ebpf_ns))

# Without eBPF the cgroup lane alone: cpu_split burns 1 s of its own CPU time in the
# cgroup while it is recorded.
N=$TMP/noebpf.ptop
"$REC" --no-ebpf --cgroup "$CG" --interval 500ms -o "$N" 2>"$TMP/noebpf.err" &
R2=$!
kill_at_exit "$R2"
wait_line "$TMP/noebpf.err" 'recording cgroup' "the --no-ebpf recorder to start"
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 1' sh "$CG" "$FIX/cpu_split" >/dev/null
kill -INT "$R2"
wait "$R2" || fail "ptop-record --no-ebpf exited $?"
assert_eq "no-ebpf: the cpu probe" "active|proc" \
	"$(q "$N" "select state || '|' || source from probe where name = 'cpu'")"
assert_eq "no-ebpf: no eBPF values" 0 "$(q "$N" "select count(oncpu_ns) from cpu_sample")"
assert_ge "no-ebpf: the cgroup lane has cpu_split's second (ns)" 990000000 \
	"$(q "$N" "select ifnull(sum(cg_usage_ns), 0) from cpu_sample")"
"$ANA" report cpu --format json "$N" >"$TMP/noebpf.json"
assert_eq "no-ebpf: report cpu's total is the cgroup lane's" "cgroup: cpu.stat usage_usec|True" \
	"$(jget "$TMP/noebpf.json" "j['summary']['user_system']['lane'] + '|' + str(j['summary']['user_system']['collected'])")"
assert_eq "no-ebpf: report cpu's CPU seconds = the lane's sum" \
	"$(q "$N" "select sum(cg_usage_ns) from cpu_sample")" \
	"$(jget "$TMP/noebpf.json" "j['summary']['user_system']['cpu_ns']")"
