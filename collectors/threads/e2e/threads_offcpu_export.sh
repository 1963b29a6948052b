# The off-CPU profile of the threads collector exported (`export --profile offcpu`,
# collectors/threads/stacks.c) against ground truth (tests/fixtures/threads_mix.c: a
# sleeper in clock_nanosleep all along, two spinners napping between spins, each printing
# the time it asked clock_nanosleep to sleep, asked_ns: the time from each block to its
# wakeup, which the off-CPU stacks hold; its slept_ns adds the wait for a CPU after each
# wakeup, runnable time in no stack):
#   - folded --by thread: the sleeper's line runs through its own function into
#     clock_nanosleep and the kernel's nanosleep path, weighing its time asleep in
#     microseconds (within 10%), as bcc's offcputime; the tracing's own kernel frames
#     (bpf_trace_run*, __traceiter_sched_switch), which the recorded stacks hold, are left
#     out; folded (per stack) sums the threads: its thread_body lines hold the three
#     threads' sleep;
#   - pprof decodes in go tool pprof with offcpu/nanoseconds (the default) and
#     blocks/count, its totals exactly the capture's offcpu_stack sums;
#   - symbolize places the off-CPU stacks in the target's mappings and names their frames;
#   - --pid is refused, a --by choice of another profile too; a capture without the
#     threads collector, or without its stacks (--offcpu-min off), has nothing to export
#     (exit 2, why); blocks skipped by --offcpu-min are said.
. tests/e2e/lib.sh
need_ebpf
need_fixture threads_mix
"$REC" --quiet --enable threads --interval 250ms -o "$TMP/t.ptop" -- "$FIX/threads_mix" 3 \
	>"$TMP/out.txt" || fail "ptop-record failed"
cat "$TMP/out.txt"
field() { awk -v n="$1" -v f="$2" '$1 == "thread" && $2 == n { for (i = 3; i < NF; i++) if ($i == f) print $(i + 1) }' "$TMP/out.txt"; }
main=$(q "$TMP/t.ptop" "select pid from thread_sample limit 1")
tid=$(field sleeper tid)
slept_us=$(( $(field sleeper asked_ns) / 1000 ))
all_us=$(( ($(field sleeper asked_ns) + $(field spin75 asked_ns) + $(field spin25 asked_ns)) / 1000 ))

# symbolize: the off-CPU stacks' user frames placed in the target's mappings, named
"$ANA" symbolize "$TMP/t.ptop" || fail "symbolize"
assert_eq "off-CPU user frames placed in another process's mappings" 0 "$(q "$TMP/t.ptop" "select count(*) from frame_module
	where kind = 'user' and pid <> $main and stack_id in (select user_stack_id from offcpu_stack)")"
named() { # KIND STACK-COLUMN FUNC: the offcpu_stack rows whose stack has a frame named FUNC
	q "$TMP/t.ptop" "select count(*) from offcpu_stack o where tid = $tid and exists (select 1
		from frame_module f join symbol_frame s on s.space = f.sym_space and s.key = f.sym_key
		and s.addr = f.sym_addr where f.stack_id = o.$2 and f.kind = '$1' and s.func = '$3')"
}
assert_ge "sleeper's off-CPU user stacks naming thread_body" 1 "$(named user user_stack_id thread_body)"
# the recorded kernel stacks start with the tracing's frames (which the export drops)
assert_ge "sleeper's kernel stacks holding the tracing's frames" 1 "$(named kernel kernel_stack_id __traceiter_sched_switch)"

# folded --by thread: the sleeper's line, weighed in microseconds
"$ANA" export --format folded --profile offcpu --by thread "$TMP/t.ptop" >"$TMP/ft.txt" ||
	fail "export --format folded --profile offcpu --by thread"
line=$(grep "^sleeper-$tid;" "$TMP/ft.txt" | sort -t' ' -k2 -n | tail -1)
echo "sleeper's line: $line"
case "$line" in
*";thread_body;sleeper_nap;clock_nanosleep"*";do_nanosleep_[k];"*"schedule_[k] "[0-9]*) ;;
*) fail "the sleeper's line does not run thread_body;sleeper_nap;clock_nanosleep;...do_nanosleep_[k];...schedule_[k]: $line" ;;
esac
! grep -E 'bpf_trace_run|__traceiter_|bpf_prog_|__bpf_trace_' "$TMP/ft.txt" ||
	fail "the tracing's own frames are in the export"
w=$(grep "^sleeper-$tid;" "$TMP/ft.txt" | awk '{ s += $NF } END { print s + 0 }')
echo "sleeper: folded weight $w us, slept $slept_us us"
d=$(( w > slept_us ? w - slept_us : slept_us - w ))
assert_le "sleeper's folded weight - its sleep (us)" $(( slept_us / 10 )) "$d"

# folded (per stack, the default --by): the threads summed
"$ANA" export --format folded --profile offcpu "$TMP/t.ptop" >"$TMP/f.txt" || fail "export --format folded --profile offcpu"
grep -q "^sleeper-" "$TMP/f.txt" && fail "folded without --by thread names threads"
w=$(grep ";thread_body;sleeper_nap;clock_nanosleep" "$TMP/f.txt" | awk '{ s += $NF } END { print s + 0 }')
echo "thread_body, sleeper_nap into clock_nanosleep: folded $w us, the three threads slept $all_us us"
d=$(( w > all_us ? w - all_us : all_us - w ))
assert_le "threads' folded weight - their sleep (us)" $(( all_us / 10 )) "$d"
assert_eq "folded total (us): the stacks' total_ns / 1000" \
	"$(q "$TMP/t.ptop" "select sum(t) from (select sum(total_ns) / 1000 as t from offcpu_stack
		group by coalesce(user_stack_id, 0), coalesce(kernel_stack_id, 0))")" \
	"$(awk '{ s += $NF } END { print s }' "$TMP/f.txt")"

# usage errors: --pid; another profile's --by; --by with pprof
rc=0; "$ANA" export --format folded --profile offcpu --pid "$main" "$TMP/t.ptop" >/dev/null 2>"$TMP/e.txt" || rc=$?
assert_eq "--pid exit" 2 $rc
grep -q "pid is not for --profile offcpu" "$TMP/e.txt" || fail "--pid: $(cat "$TMP/e.txt")"
rc=0; "$ANA" export --format folded --profile offcpu --by live "$TMP/t.ptop" >/dev/null 2>"$TMP/e.txt" || rc=$?
assert_eq "--by live exit" 2 $rc
grep -q "stack or thread" "$TMP/e.txt" || fail "--by live: $(cat "$TMP/e.txt")"

# without the collector: nothing to export, and why
"$REC" --quiet -o "$TMP/d.ptop" -- "$FIX/threads_mix" 0.2 >/dev/null || fail "ptop-record (default)"
rc=0; "$ANA" export --format folded --profile offcpu "$TMP/d.ptop" >/dev/null 2>"$TMP/e.txt" || rc=$?
assert_eq "not collected: exit" 2 $rc
grep -q "off-CPU profile was not collected" "$TMP/e.txt" || fail "not collected: $(cat "$TMP/e.txt")"

# --offcpu-min 1s: the sleeper's 300 ms naps skipped, said; --offcpu-min off: no stacks,
# nothing to export
"$REC" --quiet --enable threads --offcpu-min 1s -o "$TMP/m.ptop" -- "$FIX/threads_mix" 1 >/dev/null ||
	fail "ptop-record --offcpu-min 1s"
"$ANA" export --format folded --profile offcpu "$TMP/m.ptop" >/dev/null 2>"$TMP/e.txt" ||
	fail "export of a --offcpu-min 1s capture: $(cat "$TMP/e.txt")"
grep -q "blocks shorter than 1.00 s (--offcpu-min)" "$TMP/e.txt" || fail "--offcpu-min 1s: no note: $(cat "$TMP/e.txt")"
"$REC" --quiet --enable threads --offcpu-min off -o "$TMP/o.ptop" -- "$FIX/threads_mix" 0.5 >/dev/null ||
	fail "ptop-record --offcpu-min off"
rc=0; "$ANA" export --format folded --profile offcpu "$TMP/o.ptop" >/dev/null 2>"$TMP/e.txt" || rc=$?
assert_eq "--offcpu-min off: exit" 2 $rc
grep -q "off-CPU stacks were off" "$TMP/e.txt" || fail "--offcpu-min off: $(cat "$TMP/e.txt")"

# pprof: offcpu/nanoseconds and blocks/count, the capture's sums
command -v go >/dev/null || skip "no 'go' command (Debian package golang-go): go tool pprof reads the profile"
"$ANA" export --format pprof --profile offcpu -o "$TMP/o.pb.gz" "$TMP/t.ptop" || fail "export --format pprof --profile offcpu"
go tool pprof -raw "$TMP/o.pb.gz" >"$TMP/raw.txt" 2>"$TMP/raw.err" ||
	{ cat "$TMP/raw.err" >&2; fail "go tool pprof -raw cannot read the off-CPU profile"; }
grep -q "^offcpu/nanoseconds\[dflt\] blocks/count" "$TMP/raw.txt" ||
	fail "pprof sample types: $(grep -A1 '^Samples' "$TMP/raw.txt")"
sums=$(awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && $2 ~ /:$/ { ns += $1; n += $2 } END { printf "%.0f %.0f", ns, n }' "$TMP/raw.txt")
assert_eq "pprof offcpu ns and blocks" "$(q "$TMP/t.ptop" "select sum(total_ns) || ' ' || sum(count) from offcpu_stack")" "$sums"
# the thread_body stacks' time in ns is the threads' sleep (within 10%)
go tool pprof -top -unit=ns -sample_index=offcpu -nodefraction=0 -focus='^thread_body$' "$TMP/o.pb.gz" \
	>"$TMP/top.txt" 2>&1 || fail "go tool pprof -top: $(cat "$TMP/top.txt")"
ns=$(awk '$NF == "thread_body" { sub(/ns$/, "", $4); print $4 }' "$TMP/top.txt")
echo "pprof: thread_body $ns ns, the three threads slept $(( all_us * 1000 )) ns"
d=$(( ns / 1000 > all_us ? ns / 1000 - all_us : all_us - ns / 1000 ))
assert_le "pprof thread_body - the threads' sleep (us)" $(( all_us / 10 )) "$d"
echo "ok: threads offcpu export"
