# The threads collector against ground truth (tests/fixtures/threads_mix.c): three named
# threads, spinning ~75% and ~25% of their periods and one sleeping in clock_nanosleep,
# each printing its own CLOCK_THREAD_CPUTIME_ID and the time it spent asleep.
#   - each spinner's eBPF on-CPU time within 5% (+1 ms) of its own CPU clock;
#   - the sleeper's off-CPU time within 10% of the time it slept, and its top off-CPU
#     stack through its own function (thread_body) into clock_nanosleep, kernel side in
#     the nanosleep path; its stacks' time is its time asleep (within 1%);
#   - threads created (by the main thread), renamed and exited, with their names;
#   - the report in text, JSON and CSV; its figures; --offcpu-min skips short blocks and
#     counts them; --no-ebpf keeps the /proc lane (state, wchan) and says the eBPF
#     figures were not measured; off by default: "not collected" without --enable.
. tests/e2e/lib.sh
need_ebpf
need_fixture threads_mix
"$REC" --quiet --enable threads --interval 250ms -o "$TMP/t.ptop" -- "$FIX/threads_mix" 3 \
	>"$TMP/out.txt" || fail "ptop-record failed"
cat "$TMP/out.txt"
field() { awk -v n="$1" -v f="$2" '$1 == "thread" && $2 == n { for (i = 3; i < NF; i++) if ($i == f) print $(i + 1) }' "$TMP/out.txt"; }
main=$(q "$TMP/t.ptop" "select pid from thread_sample limit 1")
for name in spin75 spin25; do
	tid=$(field "$name" tid)
	cpu=$(field "$name" cpu_ns)
	on=$(q "$TMP/t.ptop" "select sum(oncpu_ns) from thread_interval where tid = $tid")
	d=$(( on > cpu ? on - cpu : cpu - on ))
	echo "$name (tid $tid): eBPF on-CPU $on ns, CLOCK_THREAD_CPUTIME_ID $cpu ns"
	assert_le "$name on-CPU difference (ns)" $(( cpu / 20 + 1000000 )) "$d"
	assert_eq "$name name" "$name" "$(q "$TMP/t.ptop" "select comm from thread_interval where tid = $tid and state is not null order by time_ns desc limit 1")"
done
tid=$(field sleeper tid)
slept=$(field sleeper slept_ns)
off=$(q "$TMP/t.ptop" "select sum(off_runnable_ns + off_sleep_ns + off_blocked_ns) from thread_interval where tid = $tid")
echo "sleeper (tid $tid): eBPF off-CPU $off ns, slept $slept ns"
d=$(( off > slept ? off - slept : slept - off ))
assert_le "sleeper off-CPU difference (ns)" $(( slept / 10 )) "$d"
sleep_ns=$(q "$TMP/t.ptop" "select sum(off_sleep_ns) from thread_interval where tid = $tid")
# most of it asleep (the rest runnable: waiting for a CPU after each wakeup, up to
# tens of ms each on a loaded machine), none blocked (nanosleep is interruptible)
assert_ge "sleeper off-CPU as sleeping (ns)" $(( slept / 2 )) "$sleep_ns"
assert_eq "sleeper off-CPU blocked (ns)" 0 "$(q "$TMP/t.ptop" "select sum(off_blocked_ns) from thread_interval where tid = $tid")"

# the events: three threads created by the main thread, renamed, exited
for name in spin75 spin25 sleeper; do
	t=$(field "$name" tid)
	assert_eq "$name created by" "$main" "$(q "$TMP/t.ptop" "select by_tid from thread_event where type = 'create' and tid = $t and exact = 1")"
	assert_eq "$name renamed" "$name" "$(q "$TMP/t.ptop" "select comm from thread_event where type = 'rename' and tid = $t")"
	assert_eq "$name exited" 1 "$(q "$TMP/t.ptop" "select count(*) from thread_event where type = 'exit' and tid = $t")"
done
# the same in the timeline (report events --category threads), of the target process
"$ANA" report events --category threads --pid "$main" --format csv "$TMP/t.ptop" >"$TMP/ev.csv" ||
	fail "report events --category threads: exit $?"
for name in spin75 spin25 sleeper; do
	t=$(field "$name" tid)
	assert_eq "timeline: $name created" 1 "$(grep -cE ",thread create,$main,false,tid $t \([^)]*\) by tid $main$" "$TMP/ev.csv")"
	assert_eq "timeline: $name renamed" 1 "$(grep -cE ",thread rename,$main,false,tid $t renamed $name( |$)" "$TMP/ev.csv")"
	assert_eq "timeline: $name exited" 1 "$(grep -cE ",thread exit,$main,false,tid $t( |$)" "$TMP/ev.csv")"
done

# the report: JSON, text, CSV
"$ANA" report threads --format json "$TMP/t.ptop" >"$TMP/r.json" || fail "report threads --format json"
python3 - "$TMP/r.json" "$tid" "$sleep_ns" <<'PY' || fail "report threads JSON"
import json, sys
r = json.load(open(sys.argv[1])); sleeper = int(sys.argv[2])
assert r["collected"] and r["ebpf"], r
names = {t["comm"] for t in r["threads"]}
assert {"spin75", "spin25", "sleeper"} <= names, names
top = [s for s in r["offcpu_stacks"] if s["tid"] == sleeper]
assert top, "no off-CPU stack of the sleeper"
s = top[0]["stack"]
user, kern = s.split(" | kernel: ")
print("sleeper's top off-CPU stack:", s[:300])
assert "clock_nanosleep" in user and "thread_body" in user, user
assert "nanosleep" in kern, kern
assert top[0]["reason"] == "sleep", top[0]
# its stacks hold its time asleep: each block from its switch-out to its wakeup (the
# wait for a CPU after the wakeup is runnable time, in no stack)
asleep = int(sys.argv[3])
tot = sum(x["total_s"] for x in top) * 1e9
assert abs(tot - asleep) <= asleep / 100, (tot, asleep)
print("ok: the sleeper's off-CPU stacks hold %.3f s of its %.3f s asleep" % (tot / 1e9, asleep / 1e9))
PY
"$ANA" report threads "$TMP/t.ptop" >"$TMP/r.txt" || fail "report threads (text)"
grep -q "^by CPU time" "$TMP/r.txt" || fail "text report: no 'by CPU time' table"
grep -q "^top off-CPU stacks" "$TMP/r.txt" || fail "text report: no off-CPU stacks"
grep -q "sleeper .*clock_nanosleep" "$TMP/r.txt" || fail "text report: the sleeper's stack"
"$ANA" report threads --format csv "$TMP/t.ptop" >"$TMP/r.csv" || fail "report threads --format csv"
head -1 "$TMP/r.csv" | grep -q '^tid,comm,oncpu_s' || fail "CSV header: $(head -1 "$TMP/r.csv")"
assert_eq "CSV rows" "$(q "$TMP/t.ptop" "select count(distinct tid) from thread_interval")" $(( $(wc -l <"$TMP/r.csv") - 1 ))
# figures: the report's sum
"$ANA" figures --format json "$TMP/t.ptop" >"$TMP/f.json" || fail "figures"
python3 - "$TMP/f.json" "$(q "$TMP/t.ptop" "select sum(oncpu_ns) from thread_interval")" <<'PY' || fail "figures"
import json, sys
f = json.load(open(sys.argv[1]))
on = [x for x in f["figures"] if x["figure"] == "threads.oncpu_ns"][0]
val = on["value"]
assert abs(float(val) - float(sys.argv[2])) < 1, (val, sys.argv[2])
print("ok: threads.oncpu_ns =", val)
PY

# diff: the capture against itself: every threads figure compared, unchanged
"$ANA" diff --format json "$TMP/t.ptop" "$TMP/t.ptop" >"$TMP/d.json" || fail "diff"
python3 - "$TMP/d.json" <<'PY' || fail "diff: threads figures"
import json, sys
figs = {f["figure"]: f for f in json.load(open(sys.argv[1]))["figures"]}
for name in ("threads.count", "threads.oncpu_ns", "threads.runnable_ns", "threads.blocked_ns",
             "threads.switch_rate", "threads.involuntary_rate"):
    assert name in figs, (name, sorted(k for k in figs if k.startswith("threads")))
    assert figs[name]["status"] == "unchanged", figs[name]
print("ok: diff compares the threads figures")
PY

# the Threads tab: this collector's table (over the cpu collector's thread count, which
# would be shown first without replay__tab_view's "the last view whose probe ran")
"$ANA" replay --dump --at 1.5 --tab threads "$TMP/t.ptop" >"$TMP/tab.txt" || fail "replay --tab threads"
grep -q "sleep ms" "$TMP/tab.txt" || fail "Threads tab: no per-thread table: $(head -8 "$TMP/tab.txt")"
for name in spin75 spin25 sleeper; do
	grep -q " $name " "$TMP/tab.txt" || fail "Threads tab: no $name"
done
"$ANA" replay --dump --at 1.5 --tab overview "$TMP/t.ptop" | grep -q "Threads .* threads, busiest" ||
	fail "Overview: no Threads line"

# --pid: threads asleep when recording starts are off CPU from then (seeded from /proc):
# the sleeper (300 ms naps) has its eBPF figures in every interval, those before its first
# wakeup too, where an unseeded thread has its /proc row alone (oncpu_ns NULL)
"$FIX/threads_mix" 6 >"$TMP/pid.out" &
tpid=$!
kill_at_exit "$tpid"
sleep 0.5
# (frame-pointer stacks: this step is about the seeding; the copies' longer verification
# would eat the 6 s of the target on a slow machine, as 6.1 under QEMU TCG)
"$REC" --quiet --enable threads --user-stacks fp --pid "$tpid" --interval 100ms --duration 3s -o "$TMP/pid.ptop" ||
	fail "ptop-record --pid"
wait "$tpid"
stid=$(awk '$2 == "sleeper" { print $4 }' "$TMP/pid.out")
assert_ge "--pid: sleeper intervals" 4 "$(q "$TMP/pid.ptop" "select count(*) from thread_interval where tid = $stid")"
assert_eq "--pid: sleeper intervals without eBPF figures" 0 "$(q "$TMP/pid.ptop" "select count(*) from thread_interval
	where tid = $stid and oncpu_ns is null")"
assert_ge "--pid: sleeper off CPU (ns)" 1 "$(q "$TMP/pid.ptop" "select sum(off_sleep_ns) from thread_interval where tid = $stid")"

# --offcpu-min 1s: every block of the sleeper (300 ms naps) is skipped, and counted
"$REC" --quiet --enable threads --offcpu-min 1s -o "$TMP/m.ptop" -- "$FIX/threads_mix" 1 >/dev/null ||
	fail "ptop-record --offcpu-min 1s"
assert_eq "off-CPU stacks of 1 s or more" 0 "$(q "$TMP/m.ptop" "select count(*) from offcpu_stack where total_ns / count < 1000000000")"
assert_ge "blocks skipped" 4 "$(q "$TMP/m.ptop" "select sum(skipped) from thread_sample")"
assert_eq "--offcpu-min recorded" 1000000000 "$(q "$TMP/m.ptop" "select max(offcpu_min_ns) from thread_sample")"

# --offcpu-min 0: every block kept; the threshold is a measurement (0), not absent, also
# in the intervals where no block ended (the shell waits for its child all along)
"$REC" --quiet --enable threads --offcpu-min 0 --interval 250ms -o "$TMP/z.ptop" -- \
	sh -c 'timeout 1.5 sh -c "while :; do :; done"; exit 0' >/dev/null ||
	fail "ptop-record --offcpu-min 0"
assert_ge "--offcpu-min 0: intervals" 3 "$(q "$TMP/z.ptop" "select count(*) from thread_sample")"
assert_eq "--offcpu-min 0: intervals without the threshold" 0 "$(q "$TMP/z.ptop" "select count(*) from thread_sample where offcpu_min_ns is null")"
assert_eq "--offcpu-min 0: blocks skipped" 0 "$(q "$TMP/z.ptop" "select sum(skipped) from thread_sample")"

# --no-ebpf: the /proc lane: states and wchan, no eBPF figure (NULL, never 0)
"$REC" --quiet --no-ebpf --enable threads --interval 250ms -o "$TMP/p.ptop" -- "$FIX/threads_mix" 1 \
	>/dev/null || fail "ptop-record --no-ebpf"
assert_eq "--no-ebpf: eBPF figures" 0 "$(q "$TMP/p.ptop" "select count(oncpu_ns) from thread_interval")"
assert_ge "--no-ebpf: /proc states" 3 "$(q "$TMP/p.ptop" "select count(distinct tid) from thread_interval where state is not null")"
assert_ge "--no-ebpf: a sleeper's wchan" 1 "$(q "$TMP/p.ptop" "select count(*) from thread_interval where wchan like '%nanosleep%'")"
# its thread events: the three threads created after the start, seen at a poll (not exact)
assert_eq "--no-ebpf: threads created" 3 "$(q "$TMP/p.ptop" "select count(*) from thread_event where type = 'create' and exact = 0")"
assert_ge "--no-ebpf: threads exited" 3 "$(q "$TMP/p.ptop" "select count(*) from thread_event where type = 'exit' and exact = 0")"
"$ANA" figures "$TMP/p.ptop" | grep "^threads.oncpu_ns" | grep -q "not measured" ||
	fail "--no-ebpf: threads.oncpu_ns is not 'not measured'"
"$ANA" report threads "$TMP/p.ptop" | grep -q "/proc lane (no eBPF" || fail "--no-ebpf: the report's lane line"

# off by default
"$REC" --quiet -o "$TMP/d.ptop" -- "$FIX/threads_mix" 0.2 >/dev/null || fail "ptop-record (default)"
"$ANA" report threads "$TMP/d.ptop" | grep -q "not collected" || fail "default: threads collected"
echo "ok: threads"
