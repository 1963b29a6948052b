# toy_collector.sh — adding a collector is its folder and one line (collectors/README.md).
#
# In a scratch copy of this tree (the files git tracks, as they are in the work tree, and a
# copy of the build folder so only what changes is rebuilt) it adds the toy collector of
# tests/toy/ as collectors/toy/ and the line COLLECTOR(toy) to collectors/collectors.def,
# builds the programs there, and checks:
#   - the scratch tree differs from the copy it started as by exactly that folder and that
#     line (the build needed nothing else, and wrote nothing outside build/);
#   - test_load, test_report, test_replay and test_export, built there, pass: the toy
#     follows the rules the core sets every part (named INSERT parameters, unique payloads,
#     kinds, tabs, profiles and stack columns);
#   - ptop-record lists the toy, and its own option --toy-scale in --help (a bad value is a
#     usage error);
#   - three recordings of one demo workload side by side, with --toy-scale 3, the default
#     and --disable toy: the toy is active in `info`; each interval's count is the scale
#     times the growth of the /proc/PID/stat minflt it records; every total lies between the
#     minflt this test read before and after the recordings; the workload's faults make the
#     counts positive; disabled, it has no rows and its report says "not collected";
#   - `report toy` in text, JSON and CSV shows those rows, and a total that is their sum,
#     `figures` the same total and its rate, `diff` compares them and says "not comparable"
#     when the toy was disabled on a side; a
#     DB with a negative count is refused (the toy's own table checks);
#   - `replay --dump --tab toy` and the Overview show the counter at 2 s (when the toy has a
#     view.c); with its replay series (toy_replay), the Timeline shows its event (the interval
#     with the most faults), and in a recording where the toy is the only interval series
#     (--disable cpu,memory, --no-ebpf) the live viewer's arrows, driven in tmux, land on its
#     interval ends.
#   - its stack column and profile (when the toy has a stacks.c): the places its threads
#     waited in a system call at each poll (toy_wait), never more threads than the workload
#     has; `symbolize` places every such stack in the workload's mappings and names them;
#     `export --profile toy` folded weighs them by the threads toy_wait holds, pprof is a
#     gzipped profile of threads/count, `export --help` lists it (the real build's does not),
#     and with the toy disabled it says "not collected".
# The real build never has the toy: only the scratch copy builds it. The toy reads /proc
# only (the other collectors run with --no-ebpf), so this runs without root or eBPF.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$B" && pwd)
need_fixture demo_workload
command -v git >/dev/null || skip "git is not installed (the scratch copy takes git's file list)"
git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 || skip "$ROOT is not a git work tree"
t0=$(date +%s)

# ---------------------------------------------------------------- the scratch tree
S=$TMP/src
mkdir "$S"
# The tracked files as they are in the work tree (a file deleted there stays deleted), and
# the build without what the steps below do not read (sanitized builds, logs, benchmarks).
# pax archives keep the files' times to the nanosecond, so make sees in the copy what it
# would see here: what is built stays built, what is stale is rebuilt.
(cd "$ROOT" && git ls-files -z | while IFS= read -r -d '' f; do
	[ -e "$f" ] && printf '%s\0' "$f"; done | tar --format=posix --null --no-recursion -T - -cf -) |
	tar -C "$S" -xf -
mkdir "$S/build"
(cd "$BUILD" && tar --format=posix --exclude=./asan --exclude=./test-logs --exclude=./fuzz \
	--exclude=./bench --exclude=./tests -cf - .) | tar -C "$S/build" -xf -
# the copy as it starts, to compare with at the end (a repository of its own, whatever the
# user's git configuration: no global ignores, hooks or signing)
sgit() { git -C "$S" -c core.excludesFile=/dev/null -c core.hooksPath=/dev/null \
	-c commit.gpgsign=false -c user.name=toy -c user.email=toy@localhost "$@"; }
sgit init -q
sgit add -A
sgit commit -qm base
[ "$(sgit status --porcelain --ignored)" = '!! build/' ] || fail "the scratch copy is not clean after commit"

# ---------------------------------------------------------------- add the toy
cp -r "$ROOT/tests/toy" "$S/collectors/toy"
echo 'COLLECTOR(toy)' >>"$S/collectors/collectors.def"
# what was added or changed is newer than anything built before (cp and >> made it so)
touch "$S/collectors/collectors.def" "$S"/collectors/toy/*
echo "scratch tree ready: $(($(date +%s) - t0)) s"
# the programs, and the unit tests that check every part against the core's rules
make -C "$S" -j2 programs build/tests/test_load build/tests/test_report build/tests/test_replay \
	build/tests/test_export \
	>"$TMP/make.log" 2>&1 || { tail -40 "$TMP/make.log" >&2; fail "make failed with the toy"; }
echo "make: $(($(date +%s) - t0)) s"
for c in "$S"/collectors/toy/*.c; do
	o=build/collectors/toy/$(basename "$c" .c).o
	has "CC *$o" <"$TMP/make.log" || fail "make did not compile $o"
done
has 'GEN *build/schema/schema_sql.c' <"$TMP/make.log" || fail "make did not remake the schema"
REC=$S/build/ptop-record
ANA=$S/build/ptop-analyze

# what changed: the folder and the line, nothing else (and the build wrote only in build/)
changed=$(sgit status --porcelain --untracked-files=normal --ignored)
assert_eq "files changed" "$(printf ' M collectors/collectors.def\n?? collectors/toy/\n!! build/')" "$changed"
added=$(sgit diff -U0 collectors/collectors.def | grep -E '^[-+]' | grep -vE '^(\+\+\+|---) ')
assert_eq "lines changed in collectors.def" "+COLLECTOR(toy)" "$added"
diff -r "$ROOT/tests/toy" "$S/collectors/toy" || fail "collectors/toy is not tests/toy"
# the real programs never have the toy
"$BUILD/ptop-record" --help | has -- '--toy-scale' && fail "$BUILD/ptop-record has the toy"
"$BUILD/ptop-analyze" report --help | has -E '^  toy ' && fail "$BUILD/ptop-analyze has the toy"

# the core's rules for every part (named INSERT parameters in column order, unique payload
# types and kinds, report kinds in order with short summaries, profiles and stack columns
# that the schema has) hold for the toy too
for t in test_load test_report test_replay test_export; do
	(cd "$S" && CMOCKA_MESSAGE_OUTPUT=stdout build/tests/$t) >"$TMP/$t.log" 2>&1 ||
		{ grep -E '^\[  (FAILED|ERROR)|Failure' "$TMP/$t.log" >&2; fail "$t fails with the toy"; }
	echo "ok: $t with the toy: $(grep -E '^\[  PASSED' "$TMP/$t.log")"
done

# ---------------------------------------------------------------- the recorder knows it
"$REC" --help | has -E '^ +--toy-scale N +toy: ' || fail "--toy-scale is not in ptop-record --help"
"$REC" --help | has -E '^  toy +toy: minor page faults' || fail "the toy is not in the collectors' list"
expect_exit 2 "$REC" --toy-scale 0 --duration 1 -o "$TMP/bad.ptop" -- true
has -- '--toy-scale takes a whole number from 1 to 1000' <"$TMP/err" || fail "no reason for --toy-scale 0"

# ---------------------------------------------------------------- its report option
"$ANA" report toy --help | has -E '^  --min-count N +toy: only the intervals' ||
	fail "--min-count is not in report toy --help"
"$ANA" report --help | has -E '^  --min-count N +toy: ' || fail "--min-count is not in report --help"
"$ANA" report --help | has -E '^ +.*\[--min-count N\]' || fail "--min-count is not in report's usage"
expect_exit 2 "$ANA" report syscalls --min-count 1 "$TMP/none.ptop"
has -- '--min-count is for report toy' <"$TMP/err" || fail "report syscalls --min-count: no usage error"
expect_exit 2 "$ANA" report toy --min-count x "$TMP/none.ptop"
has -- "--min-count takes a whole number, 0 or more, not 'x'" <"$TMP/err" ||
	fail "report toy --min-count x: no usage error"

# ---------------------------------------------------------------- record it
"$FIX/demo_workload" 30 >/dev/null 2>&1 &
W=$!
kill_at_exit "$W"
wait_until "the workload to start" test -r "/proc/$W/stat"
minflt() { awk '{ sub(/.*\) /, ""); print $8 }' "/proc/$W/stat"; } # field 10: minflt
before=$(minflt)
"$REC" -q --no-ebpf --pid "$W" --duration 2.5s --interval 500ms --toy-scale 3 \
	-o "$TMP/s3.ptop" &
R3=$!
"$REC" -q --no-ebpf --pid "$W" --duration 2.5s --interval 500ms -o "$TMP/s1.ptop" &
R1=$!
# and one without the toy: its probe says so, and no figure stands in for it
"$REC" -q --no-ebpf --pid "$W" --duration 1s --interval 500ms --disable toy -o "$TMP/bad0.ptop" &
R0=$!
# and one where the toy is the only interval series the replay viewer steps through
"$REC" -q --no-ebpf --pid "$W" --duration 2.5s --interval 500ms --disable cpu,memory \
	-o "$TMP/only.ptop" &
R4=$!
wait "$R3" || fail "recording with --toy-scale 3 failed"
wait "$R1" || fail "recording with the default scale failed"
wait "$R0" || fail "recording with --disable toy failed"
wait "$R4" || fail "recording with --disable cpu,memory failed"
after=$(minflt)
echo "workload minflt: $before before, $after after the recordings"
assert_ge "faults of the workload while recorded" 1 $((after - before))

for s in 3 1; do
	cap=$TMP/s$s.ptop
	"$ANA" info "$cap" >"$TMP/info$s"
	has -E '^ *toy +active +proc' <"$TMP/info$s" || { cat "$TMP/info$s" >&2; fail "toy not active in info"; }
	has -E 'event:toy +[1-9]' <"$TMP/info$s" || { cat "$TMP/info$s" >&2; fail "no event:toy records in info"; }
	rows=$(q "$cap" "SELECT count(*) FROM toy_sample")
	assert_ge "toy_sample rows (scale $s)" 3 "$rows"
	# scale x the growth of the recorded total, row after row; the scale recorded
	bad=$(q "$cap" "SELECT count(*) FROM (SELECT count, scale, total - lag(total) OVER (ORDER BY time_ns) AS d FROM toy_sample) WHERE d IS NOT NULL AND (d < 0 OR count != $s * d) OR scale != $s")
	assert_eq "rows whose count is not $s x the minflt growth (scale $s)" 0 "$bad"
	# the totals are /proc's: between what this test read before and after
	range=$(q "$cap" "SELECT min(total) >= $before AND max(total) <= $after FROM toy_sample")
	assert_eq "totals within [$before, $after] (scale $s)" 1 "$range"
	sum=$(q "$cap" "SELECT sum(count) FROM toy_sample")
	assert_ge "sum of counts (scale $s)" 1 "$sum"
	assert_le "sum of counts (scale $s) against the faults seen" $((s * (after - before))) "$sum"

	# the report: text, JSON, CSV; the same rows and the total their sum
	"$ANA" report toy "$cap" >"$TMP/r$s.txt"
	cat "$TMP/r$s.txt"
	has -E "^toy \(whole capture\): $rows intervals, minor page faults times $s\$" <"$TMP/r$s.txt" ||
		fail "report toy (text): wrong first line"
	total_txt=$(sed -n 's/^total: //p' "$TMP/r$s.txt" | tr -d ,)
	assert_eq "report toy text total (scale $s)" "$sum" "$total_txt"
	"$ANA" report toy --format json "$cap" >"$TMP/r$s.json"
	assert_eq "report toy JSON total (scale $s)" "$sum" "$(jget "$TMP/r$s.json" 'j["total"]')"
	assert_eq "report toy JSON: total is the sum of its intervals (scale $s)" "$sum" \
		"$(jget "$TMP/r$s.json" 'sum(r["count"] for r in j["intervals"])')"
	assert_eq "report toy JSON intervals (scale $s)" "$rows" "$(jget "$TMP/r$s.json" 'len(j["intervals"])')"
	assert_eq "report toy JSON scale" "$s" "$(jget "$TMP/r$s.json" 'j["scale"]')"
	"$ANA" report toy --format csv "$cap" >"$TMP/r$s.csv"
	assert_eq "report toy CSV header" "t_s,interval_s,count,minflt_total" "$(head -1 "$TMP/r$s.csv")"
	assert_eq "report toy CSV: sum of count (scale $s)" "$sum" \
		"$(tail -n +2 "$TMP/r$s.csv" | awk -F, '{ s += $3 } END { print s }')"
	# its own report option (declared in its report.c): only the intervals that counted N
	# or more, the total theirs
	min=$(q "$cap" "SELECT max(count) FROM toy_sample")
	"$ANA" report toy --min-count "$min" --format json "$cap" >"$TMP/m$s.json"
	assert_eq "report toy --min-count $min: intervals (scale $s)" \
		"$(q "$cap" "SELECT count(*) FROM toy_sample WHERE count >= $min")" \
		"$(jget "$TMP/m$s.json" 'len(j["intervals"])')"
	assert_eq "report toy --min-count $min: total (scale $s)" \
		"$(q "$cap" "SELECT sum(count) FROM toy_sample WHERE count >= $min")" \
		"$(jget "$TMP/m$s.json" 'j["total"]')"
	# its figures: the same total, and the rate of it (when the toy has a figures.c)
	if [ -f "$S/collectors/toy/figures.c" ]; then
		"$ANA" figures --format csv "$cap" >"$TMP/f$s.csv"
		assert_eq "figures toy.faults (scale $s)" "$sum" \
			"$(awk -F, '$1 == "toy.faults" { print $2 }' "$TMP/f$s.csv")"
		assert_eq "figures toy.fault_rate count (scale $s)" "$sum" \
			"$(awk -F, '$1 == "toy.fault_rate" { print $4 }' "$TMP/f$s.csv")"
	fi
done

# ---------------------------------------------------------------- its stacks and profile
# toy_wait: at each poll, the threads of the workload found in a system call, by the user
# address the call returns to (/proc/PID/task/TID/syscall), a one-frame stack written
# through the capture's stack table. `symbolize` places and names those stacks in the
# workload's mappings (its stack column, stacks.c), and `export --profile toy` writes them.
if [ -f "$S/collectors/toy/stacks.c" ]; then
	nthreads=2 # demo_workload: main and its io thread
	waits=0
	for s in 3 1; do
		cap=$TMP/s$s.ptop
		assert_eq "intervals whose waits were not read (scale $s)" 0 			"$(q "$cap" "SELECT count(*) FROM toy_sample WHERE waits_read = 0")"
		assert_eq "polls with more threads waiting than the workload has (scale $s)" 0 			"$(q "$cap" "SELECT count(*) FROM (SELECT sum(threads) n FROM toy_wait GROUP BY time_ns) WHERE n > $nthreads")"
		waits=$((waits + $(q "$cap" "SELECT count(*) FROM toy_wait")))
	done
	# a thread sleeps in usleep most of the time: over both recordings' polls, some are seen
	assert_ge "toy_wait rows over both recordings" 1 "$waits"
	for s in 3 1; do
		cap=$TMP/s$s.ptop
		n=$(q "$cap" "SELECT count(*) FROM toy_wait")
		[ "$n" -gt 0 ] || continue
		"$ANA" symbolize "$cap" >"$TMP/sym$s.txt" || fail "symbolize s$s: exit $?"
		# every stack of toy_wait placed in the workload's mappings, as its frame's pid says
		assert_eq "toy stacks not placed in the workload (scale $s)" 0 			"$(q "$cap" "SELECT count(*) FROM toy_wait w LEFT JOIN frame_module fm ON fm.cap = w.cap AND fm.stack_id = w.stack_id WHERE fm.pid IS NOT $W OR fm.module NOT LIKE '/%'")"
		named=$(q "$cap" "SELECT count(DISTINCT w.stack_id) FROM toy_wait w JOIN frame_module fm ON fm.cap = w.cap AND fm.stack_id = w.stack_id JOIN symbol y ON y.space = fm.sym_space AND y.key = fm.sym_key AND y.addr = fm.sym_addr WHERE y.source IS NOT NULL")
		assert_ge "toy stacks named by symbolize (scale $s)" 1 "$named"
		# the profile: folded lines weigh the threads, their sum toy_wait's
		"$ANA" export --format folded --profile toy "$cap" >"$TMP/toy$s.folded" ||
			fail "export --profile toy (scale $s): exit $?"
		cat "$TMP/toy$s.folded"
		assert_eq "export --profile toy: folded weights = the threads of toy_wait (scale $s)" 			"$(q "$cap" "SELECT sum(threads) FROM toy_wait")" 			"$(awk '{ s += $NF } END { print s + 0 }' "$TMP/toy$s.folded")"
		has -vE '^0x|\+0x[0-9a-f]+ [0-9]+$' <"$TMP/toy$s.folded" ||
			fail "export --profile toy: no line names its function"
		"$ANA" export --format pprof --profile toy -o "$TMP/toy$s.pb.gz" "$cap" ||
			fail "export --format pprof --profile toy (scale $s): exit $?"
		python3 -c 'import gzip,sys; b=gzip.decompress(open(sys.argv[1],"rb").read()); sys.exit(0 if b"threads" in b and b"count" in b else 1)' 			"$TMP/toy$s.pb.gz" || fail "export pprof --profile toy: not a gzipped profile with threads/count"
		echo "ok: symbolize named $named toy stacks, export --profile toy wrote $(wc -l <"$TMP/toy$s.folded") lines (scale $s)"
	done
	"$ANA" export --help | has -E '^    toy +the toy' || fail "export --help does not list --profile toy"
	"$BUILD/ptop-analyze" export --help | has -E '^    toy ' && fail "$BUILD/ptop-analyze has the toy's profile"
	expect_exit 2 "$ANA" export --format folded --profile toy "$TMP/bad0.ptop"
	has 'toy: not collected' <"$TMP/err" || fail "export --profile toy with --disable toy: no 'not collected'"
else
	echo "no collectors/toy/stacks.c: its stacks and profile are not checked"
fi

# diff compares the toy's figures, and says it did not run on a side
if [ -f "$S/collectors/toy/figures.c" ]; then
	"$ANA" diff --all "$TMP/s1.ptop" "$TMP/s3.ptop" >"$TMP/diff.txt" || fail "diff s1 s3: exit $?"
	has -E '^toy\.fault_rate ' <"$TMP/diff.txt" || { cat "$TMP/diff.txt"; fail "diff: no toy.fault_rate row"; }
	expect_exit 1 "$ANA" diff --fail-on 'toy.faults > +10%' "$TMP/s1.ptop" "$TMP/bad0.ptop"
	has -E '^  FAIL toy\.faults > \+10%: FAILED, not comparable: .*toy disabled on NEW' \
		<"$TMP/out" ||
		fail "diff: the toy disabled on NEW is not said not comparable"
	"$ANA" figures "$TMP/bad0.ptop" | has -E '^toy\.faults +not measured .*toy disabled' ||
		fail "figures: toy.faults not said not measured with --disable toy"
fi

# a DB whose toy rows no capture can hold is refused, as the part's checks say (load.c)
"$ANA" load --db "$TMP/bad.db" "$TMP/s1.ptop" >/dev/null
python3 -c 'import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); d.execute("UPDATE toy_sample SET count = -5 WHERE rowid = 2"); d.commit()' "$TMP/bad.db"
expect_exit 2 "$ANA" report toy "$TMP/bad.db"
has 'corrupt DB: toy_sample row 2: count is -5' <"$TMP/err" || { cat "$TMP/err"; fail "report toy: a negative count not refused"; }

has -E '^ *toy +disabled' < <("$ANA" info "$TMP/bad0.ptop") || fail "--disable toy: not disabled in info"
assert_eq "toy_sample rows with --disable toy" 0 "$(q "$TMP/bad0.ptop" "SELECT count(*) FROM toy_sample")"
"$ANA" report toy "$TMP/bad0.ptop" | has '^toy: not collected (disabled' || fail "report toy: no 'not collected'"
"$ANA" report toy --format json "$TMP/bad0.ptop" >"$TMP/r0.json"
assert_eq "report toy JSON collected, --disable toy" False "$(jget "$TMP/r0.json" 'j["collected"]')"

# The arrows of the live viewer land on the toy's interval ends: in a recording where the toy is
# the only interval series, two presses of Right name its second interval, "interval 2 of N:
# A..B s", N its rows and A, B its first two ends (without its series' ends the viewer would step
# by the capture's interval instead). Driven in tmux; every wait is bounded.
toy_steps() {
	command -v tmux >/dev/null || { echo "tmux is not installed: the toy's stepping is not checked"; return 0; }
	local n ends sock=ptop-toy-$$ i
	n=$(q "$TMP/only.ptop" "SELECT count(*) FROM toy_sample")
	assert_ge "toy_sample rows with --disable cpu,memory" 3 "$n"
	assert_eq "interval series other than the toy's (--disable cpu,memory)" 0 \
		"$(q "$TMP/only.ptop" "SELECT (SELECT count(*) FROM cpu_sample) + (SELECT count(*) FROM memory_sample) + (SELECT count(*) FROM syscall_stat) + (SELECT count(*) FROM heap_snapshot)")"
	ends=$(q "$TMP/only.ptop" "SELECT group_concat(e, '..') FROM (SELECT printf('%.3f', (s.time_ns - c.start_monotonic_ns) / 1e9) AS e FROM toy_sample s JOIN capture c USING (cap) ORDER BY s.time_ns LIMIT 2)")
	tmux -L "$sock" -u new-session -d -s toy -x 160 -y 48 \
		"env -i PATH=$PATH HOME=$TMP TERM=screen LANG=C.UTF-8 XDG_CACHE_HOME=${XDG_CACHE_HOME:-$TMP} $ANA replay $TMP/only.ptop; sleep 30"
	for i in $(seq 1 300); do
		tmux -L "$sock" capture-pane -p -t toy | has -E 'paused 00:00\.0 / ' && break
		sleep 0.1
	done
	tmux -L "$sock" send-keys -t toy Right
	sleep 0.3
	tmux -L "$sock" send-keys -t toy Right
	for i in $(seq 1 300); do
		tmux -L "$sock" capture-pane -p -t toy >"$TMP/pane.txt"
		has -E "interval 2 of $n: ${ends//./\\.} s " <"$TMP/pane.txt" && break
		sleep 0.1
	done
	tmux -L "$sock" kill-server 2>/dev/null || true
	has -E "interval 2 of $n: ${ends//./\\.} s " <"$TMP/pane.txt" ||
		{ cat "$TMP/pane.txt" >&2; fail "replay: two steps did not land on the toy's second interval end ($ends of $n)"; }
	echo "ok: the arrows step through the toy's $n interval ends ($ends)"
}

# ---------------------------------------------------------------- the replay tab
if [ -f "$S/collectors/toy/view.c" ]; then
	# at 2 s: the count of the last interval that ended by then, in the tab and the Overview
	last=$(q "$TMP/s3.ptop" "SELECT count FROM toy_sample s JOIN capture c USING (cap) WHERE s.time_ns - c.start_monotonic_ns <= 2000000000 ORDER BY s.time_ns DESC LIMIT 1")
	# (160 wide: the tab bar holds every collector's tab, the toy's last)
	"$ANA" replay --dump --tab toy --at 2 --size 160x30 "$TMP/s3.ptop" >"$TMP/replay.txt"
	cat "$TMP/replay.txt"
	has -E '^ 1 Overview .* [0-9]+ Toy *$' <"$TMP/replay.txt" || fail "replay: no Toy tab in the bar"
	has -E "^ faults this interval: $last\$" <"$TMP/replay.txt" ||
		fail "replay --tab toy at 2 s: not the count of the interval before it ($last)"
	has -E '^ scale: +3$' <"$TMP/replay.txt" || fail "replay --tab toy: not the scale recorded"
	"$ANA" replay --dump --at 2 --size 100x60 "$TMP/s3.ptop" >"$TMP/overview.txt"
	has -E "^ Toy +$last faults this interval" <"$TMP/overview.txt" ||
		{ cat "$TMP/overview.txt"; fail "replay: the Overview has no Toy line with $last"; }
	echo "ok: replay --tab toy and the Overview show $last at 2 s"
	# a capture without the toy: the tab says why, no 0 in its place
	"$ANA" replay --dump --tab toy --size 100x30 "$TMP/bad0.ptop" >"$TMP/replay0.txt"
	has 'not collected' <"$TMP/replay0.txt" || { cat "$TMP/replay0.txt"; fail "replay --tab toy without the toy: no 'not collected'"; }
	# its timeline event, through its series' events hook
	peak=$(q "$TMP/s3.ptop" "SELECT max(count) FROM toy_sample")
	"$ANA" replay --dump --tab timeline --at 60 --size 120x40 "$TMP/s3.ptop" >"$TMP/timeline.txt"
	has -E "toy peak +$peak faults, the most in one interval\$" <"$TMP/timeline.txt" ||
		{ cat "$TMP/timeline.txt"; fail "replay: no toy peak of $peak on the Timeline"; }
	echo "ok: the Timeline shows the toy's peak of $peak"
	toy_steps
else
	echo "no collectors/toy/view.c: the replay tab is not checked"
fi
echo "toy collector: $(($(date +%s) - t0)) s"
