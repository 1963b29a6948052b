# CPU stacks through code without frame pointers (--user-stacks): heap_nofp (-O2
# -fomit-frame-pointer) spins in stage_c under main -> stage_a -> stage_b -> stage_c.
#   auto: the recorder finds no frame pointers in heap_nofp and takes stack copies
#     (the probe detail says so); ptop-analyze unwinds them from .eh_frame, and the
#     samples in stage_c show all four frames, down to _start, in the folded export,
#     in report cpu, and as Stack rows like any other.
#   fp: the same program's stacks in stage_c end early (no main -> ... -> stage_c),
#     so that the first part cannot pass without the unwinding.
. tests/e2e/lib.sh
need_ebpf
need_fixture heap_nofp
HZ=999	# heap_nofp spins for some 30 ms: enough samples at 999 Hz

chain="main;stage_a;stage_b;stage_c"

C=$TMP/auto.ptop
"$REC" --quiet --cpu-sample-hz $HZ --user-stacks auto -o "$C" -- "$FIX/heap_nofp" >/dev/null
detail=$(q "$C" "select detail from probe where name = 'cpuprof'")
echo "detail: $detail"
has "user stacks dwarf (--user-stacks auto: no frame pointers in heap_nofp" <<<"$detail" ||
	fail "cpuprof's probe detail does not say auto chose dwarf for heap_nofp: $detail"
"$ANA" info "$C" >"$TMP/info.txt"
grep -q "user stacks dwarf" "$TMP/info.txt" || fail "info does not show the mode auto chose"
grep -q "user stacks: auto$" "$TMP/info.txt" || fail "info does not show --user-stacks"

"$ANA" export --format folded "$C" > "$TMP/auto.folded"
cat "$TMP/auto.folded"
in_c=$(awk '/(^|;)stage_c /{ s += $NF } END { print s + 0 }' "$TMP/auto.folded")
whole=$(awk -v c="$chain" 'index($0, c " ") { s += $NF } END { print s + 0 }' "$TMP/auto.folded")
assert_ge "samples in stage_c" 5 "$in_c"
assert_eq "samples in stage_c with main -> stage_a -> stage_b -> stage_c" "$in_c" "$whole"
grep -q "^_start;__libc_start_main[^;]*;__libc_start_call_main;$chain " "$TMP/auto.folded" ||
	fail "the whole stack does not reach _start"
# every copy was unwound, and counted samples refer to Stack rows with frames
assert_eq "copies not unwound" 0 "$(q "$C" "select count(*) from stack_copy where unwound is null")"
assert_ge "copies unwound to 7+ frames" 1 "$(q "$C" "select count(*) from stack_copy where unwound >= 7")"
assert_eq "stack counts whose user stack has no frame" 0 "$(q "$C" "select count(*)
	from cpu_profile_stack c join stack s on s.cap = c.cap and s.stack_id = c.user_stack_id
	where s.depth = 0")"
samples=$(q "$C" "select sum(samples) from cpu_profile")
counted=$(q "$C" "select sum(count) from cpu_profile_stack")
lost=$(q "$C" "select sum(lost) from cpu_profile")
assert_eq "samples = stack counts + lost" "$samples" "$((counted + lost))"
"$ANA" report cpu --format json "$C" > "$TMP/cpu.json"
has '"stage_a"' < "$TMP/cpu.json" || fail "report cpu does not name stage_a"

# frame pointers only: the walk from stage_c cannot reach main
C=$TMP/fp.ptop
"$REC" --quiet --cpu-sample-hz $HZ --user-stacks fp -o "$C" -- "$FIX/heap_nofp" >/dev/null
has "user stacks fp (--user-stacks fp)" <<<"$(q "$C" "select detail from probe where name = 'cpuprof'")" ||
	fail "cpuprof's probe detail does not say fp"
"$ANA" export --format folded "$C" > "$TMP/fp.folded"
cat "$TMP/fp.folded"
assert_ge "fp: samples in stage_c" 5 "$(awk '/(^|;)stage_c /{ s += $NF } END { print s + 0 }' "$TMP/fp.folded")"
assert_eq "fp: samples with the whole chain" 0 \
	"$(awk -v c="$chain" 'index($0, c " ") { s += $NF } END { print s + 0 }' "$TMP/fp.folded")"
assert_eq "fp: no stack copies" 0 "$(q "$C" "select count(*) from stack_copy")"

# a mode that does not exist: a usage error, before anything runs
expect_exit 2 "$REC" --user-stacks lbr -o "$TMP/bad.ptop" -- "$FIX/heap_nofp"
has "fp, dwarf or auto" <"$TMP/err" || fail "the error does not say which modes there are"
[ ! -e "$TMP/bad.ptop" ] || fail "a capture was made for a bad --user-stacks"
