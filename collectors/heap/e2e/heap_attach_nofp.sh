# Whole stacks without frame pointers in the eBPF lanes attached by --pid: the heap's
# uprobe lane and cpuprof, on nofp_attach (tests/fixtures/heap_nofp.c built with
# -DNOFP_ATTACH, -O2 -fomit-frame-pointer):
# once attached, SIGUSR1 makes it run main -> stage_a -> stage_b -> stage_c, where
# stage_c makes exactly 3,000 malloc(64), frees 2,000 and spins.
#   --user-stacks auto: the recorder finds no frame pointers and takes stack copies
#     (the probe details say so); unwound by ptop-analyze, the heap sites whose frames
#     1..4 are stage_c, stage_b, stage_a, main hold exactly the 3,000 allocations, 2,000
#     frees and 64,000 live bytes, and the CPU samples in stage_c all show the chain.
#   --user-stacks fp: the same counts, but no site and no CPU sample has the chain (the
#     first part cannot pass without the unwinding).
. tests/e2e/lib.sh
need_ebpf
need_fixture nofp_attach

# where FUNCTION: "lo hi" of FUNCTION's code in nofp_attach, as offsets from the load base
range() {
	local a n
	read -r a n < <(nm -S "$FIX/nofp_attach" | awk -v f="$1" '$4 == f { print $1, $2 }')
	[ -n "$n" ] || fail "no symbol $1 in $FIX/nofp_attach"
	echo $((16#$a)) $((16#$a + 16#$n))
}

# record MODE: nofp_attach attached by pid with --user-stacks MODE into $TMP/MODE.ptop
record() {
	local m=$1 fpid rpid
	"$FIX/nofp_attach" >"$TMP/$m.out" &
	fpid=$!
	kill_at_exit "$fpid"
	wait_line "$TMP/$m.out" '^ready' "the fixture to wait"
	"$REC" --enable heap --heap-lane uprobe --heap-sample-bytes 0 --interval 200ms \
		--user-stacks "$m" --pid "$fpid" -o "$TMP/$m.ptop" 2>"$TMP/$m.err" &
	rpid=$!
	kill_at_exit "$rpid"
	wait_line "$TMP/$m.err" 'recording pid' "the recorder to attach"
	kill -USR1 "$fpid"
	wait "$fpid" || fail "nofp_attach exited $?"
	wait "$rpid" || { cat "$TMP/$m.err" >&2; fail "ptop-record exited $?"; }
	assert_eq "$m: heap probe" "active/ebpf" \
		"$(q "$TMP/$m.ptop" "select state || '/' || source from probe where name = 'heap'")"
}

# chain C: the SQL condition "frames 1..4 of stack ALIAS.stack_id are in stage_c,
# stage_b, stage_a, main" for capture C (a user stack of the CPU profile starts with the
# sampled ip: its frames 0..3 are stage_c ... main)
chain() {
	local c=$1 col=$2 first=$3 d fn lo hi base exe cond=""
	exe=$(readlink -f "$FIX/nofp_attach")
	base=$(q "$c" "select min(start - offset) from mapping where path = '$exe'")
	[ -n "$base" ] || fail "no mapping of $exe in $c"
	d=$first
	for fn in stage_c stage_b stage_a main; do
		read -r lo hi < <(range $fn)
		cond="$cond and exists (select 1 from stack_frame f where f.cap = h.cap
			and f.stack_id = h.$col and f.depth = $d
			and f.ip - $base $( [ $d = 0 ] && echo ">=" || echo ">") $lo
			and f.ip - $base $( [ $d = 0 ] && echo "<" || echo "<=") $hi)"
		d=$((d + 1))
	done
	echo "$cond"
}

for m in auto fp; do
	record $m
	C=$TMP/$m.ptop
	"$ANA" report heap "$C" | sed -n '/top functions/,+4p'
	hc=$(chain "$C" stack_id 1)
	cc=$(chain "$C" user_stack_id 0)
	all=$(q "$C" "select sum(alloc_count) from heap_site h")
	chain_allocs=$(q "$C" "select coalesce(sum(alloc_count), 0) from heap_site h where 1 $hc")
	in_c=$(q "$C" "select coalesce(sum(count), 0) from cpu_profile_stack h join stack_frame f
		on f.cap = h.cap and f.stack_id = h.user_stack_id and f.depth = 0
		where f.ip - (select min(start - offset) from mapping where path like '%/nofp_attach')
		between $(range stage_c | tr ' ' '\n' | paste -sd' ' | sed 's/ / and /')")
	cpu_chain=$(q "$C" "select coalesce(sum(count), 0) from cpu_profile_stack h where 1 $cc")
	echo "$m: allocations $all, with the chain $chain_allocs; CPU samples in stage_c $in_c, with the chain $cpu_chain"
	assert_ge "$m: allocations (stage_c's 3,000, and the fixture's own)" 3000 "$all"
	assert_ge "$m: CPU samples in stage_c" 5 "$in_c"
	want=$([ $m = auto ] && echo dwarf || echo fp)
	assert_eq "$m: heap_snapshot.user_stacks" $want \
		"$(q "$C" "select group_concat(distinct user_stacks) from heap_snapshot")"
	assert_eq "$m: cpu_profile.user_stacks" $want \
		"$(q "$C" "select group_concat(distinct user_stacks) from cpu_profile")"
	if [ $m = auto ]; then
		has "user stacks dwarf (--user-stacks auto: no frame pointers in nofp_attach" \
			<<<"$(q "$C" "select detail from probe where name = 'heap'")" ||
			fail "the heap probe detail does not say dwarf"
		has "user stacks dwarf (--user-stacks auto" \
			<<<"$(q "$C" "select detail from probe where name = 'cpuprof'")" ||
			fail "the cpuprof probe detail does not say dwarf"
		assert_eq "auto: allocations under main -> stage_a -> stage_b -> stage_c" 3000 "$chain_allocs"
		assert_eq "auto: frees under the chain" 2000 \
			"$(q "$C" "select sum(freed_count) from heap_site h where 1 $hc")"
		assert_eq "auto: live bytes under the chain at the end" 64000 \
			"$(q "$C" "select sum(live_bytes) from heap_site h where 1 $hc
				and h.seq = (select max(seq) from heap_snapshot)")"
		assert_eq "auto: CPU samples in stage_c with the chain" "$in_c" "$cpu_chain"
		"$ANA" report heap --by live --format json "$C" > "$TMP/live.json"
		assert_eq "auto: first by live" stage_c "$(jget "$TMP/live.json" "j['sites'][0]['func']")"
		assert_eq "auto: stage_c live bytes" 64000 "$(jget "$TMP/live.json" "j['sites'][0]['live_bytes']")"
	else
		assert_eq "fp: allocations of stage_c counted" 3000 "$(q "$C" "select sum(alloc_count)
			from heap_site h join stack_frame f on f.cap = h.cap and f.stack_id = h.stack_id
			and f.depth = 1 where f.ip - (select min(start - offset) from mapping
			where path like '%/nofp_attach') between $(range stage_c | sed 's/ / and /')")"
		assert_eq "fp: allocations with the chain" 0 "$chain_allocs"
		assert_eq "fp: CPU samples with the chain" 0 "$cpu_chain"
	fi
done
