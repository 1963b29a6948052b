# The CPU profile against its ground truth: cpu_split burns 3 s of its own CPU, 80% in
# burn_hot and 20% in burn_cold. Recorded at 99 Hz, the profile must hold about 99
# samples per on-CPU second (the cpu collector's eBPF time, within 20%), every stack
# count must refer to a stack the capture holds, and the sampled ips must put burn_hot
# first and burn_cold second, with shares within 10 points of 80/20 (when the capture
# has the executable's mapping to place them).
. tests/e2e/lib.sh
need_ebpf
HZ=99
"$REC" --quiet --cpu-sample-hz $HZ -o "$TMP/run.ptop" -- "$FIX/cpu_split" 3 >/dev/null
"$ANA" info "$TMP/run.ptop" | grep -E '^ *cpuprof' || true
C=$TMP/run.ptop

assert_eq "cpuprof probe" "active/ebpf" "$(q "$C" "select state || '/' || source from probe where name = 'cpuprof'")"
assert_eq "requested rate" $HZ "$(q "$C" "select distinct requested_hz from cpu_profile")"
samples=$(q "$C" "select sum(samples) from cpu_profile")
oncpu_ms=$(q "$C" "select sum(oncpu_ns) / 1000000 from cpu_sample")
expect=$(( HZ * oncpu_ms / 1000 ))
echo "samples $samples, on-CPU $oncpu_ms ms, expected $expect"
assert_ge "samples (>= 80% of rate x on-CPU s)" $(( expect * 8 / 10 )) "$samples"
assert_le "samples (<= 120% of rate x on-CPU s)" $(( expect * 12 / 10 )) "$samples"

counted=$(q "$C" "select sum(count) from cpu_profile_stack")
lost=$(q "$C" "select sum(lost) from cpu_profile")
assert_eq "samples = stack counts + lost" "$samples" "$(( counted + lost ))"
assert_ge "stacks" 2 "$(q "$C" "select count(*) from stack")"
# a stack count whose user (kernel) stack is not in the capture as a user (kernel) stack
orphan="select count(*) from cpu_profile_stack c where c.%s_stack_id is not null and not exists
	(select 1 from stack s where s.cap = c.cap and s.stack_id = c.%s_stack_id and s.kernel = %d)"
# shellcheck disable=SC2059
assert_eq "stack counts without their user stack" 0 "$(q "$C" "$(printf "$orphan" user user 0)")"
# shellcheck disable=SC2059
assert_eq "stack counts without their kernel stack" 0 "$(q "$C" "$(printf "$orphan" kernel kernel 1)")"
assert_eq "stacks written twice" 0 "$(q "$C" "select count(*) - count(distinct stack_id) from stack")"

# The split, by the first user frame (the sampled ip), placed in the executable.
exe=$(readlink -f "$FIX/cpu_split")
base=$(q "$C" "select min(start - offset) from mapping where path = '$exe'")
if [ -z "$base" ]; then
	echo "note: no mapping of $exe in the capture; the 80/20 split is not checked here"
	exit 0
fi
range() {
	local a n
	read -r a n < <(nm -S "$FIX/cpu_split" | awk -v f="$1" '$4 == f { print $1, $2 }')
	[ -n "$n" ] || fail "no symbol $1 in $FIX/cpu_split"
	echo $((16#$a)) $((16#$a + 16#$n))
}
read -r hlo hhi < <(range burn_hot)
read -r clo chi < <(range burn_cold)
share() {
	q "$C" "select cast(100.0 * coalesce(sum(case when f.ip - $base >= $1 and f.ip - $base < $2
		then c.count end), 0) / sum(c.count) + 0.5 as integer) as share
		from cpu_profile_stack c join stack_frame f on f.cap = c.cap
		and f.stack_id = c.user_stack_id and f.depth = 0"
}
hot=$(share "$hlo" "$hhi")
cold=$(share "$clo" "$chi")
echo "burn_hot $hot%, burn_cold $cold%"
assert_ge "burn_hot share (%)" 70 "$hot"
assert_le "burn_hot share (%)" 90 "$hot"
assert_ge "burn_cold share (%)" 10 "$cold"
assert_le "burn_cold share (%)" 30 "$cold"
