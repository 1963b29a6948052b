# No interval starts before the capture (issue 21): a collector's first interval ran
# from its start(), seconds before the header where BPF verification is slow, so a
# launched command's first interval of 2–16 ms read 0.14–12.4 s, `--window 0..` left
# it out and its CPU% was diluted. Checked on every event table (time_ns, interval_ns),
# for a launched command (its capture starts at the header: the command is held until
# then) and a --pid target (its capture starts when the collectors begin to count).
. tests/e2e/lib.sh
need_fixture spin
need_ebpf

# every event table's earliest interval start, minus the capture's start
starts() { # capture
	local t sql="" sep=""
	for t in $(q "$1" "select m.name from sqlite_master m, pragma_table_info(m.name) p
		where m.type = 'table' and p.name = 'interval_ns' and m.name != 'capture'"); do
		sql="$sql$sep select '$t' t, min(time_ns - interval_ns) s, count(*) n from $t"
		sep=" union all"
	done
	q "$1" "select group_concat(t || ':' || (s - (select start_monotonic_ns from capture)), ' ')
		from ($sql) where n > 0"
}
before() { # capture: the tables with an interval that starts before the capture
	starts "$1" | tr ' ' '\n' | awk -F: '$2 < 0' | tr '\n' ' '
}

C=$TMP/launch.ptop
"$REC" --quiet --interval 200ms -o "$C" -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'
echo "launched: $(starts "$C")"
assert_ge "launched: tables with intervals" 3 "$(starts "$C" | wc -w)"
assert_eq "launched: intervals starting before the capture" "" "$(before "$C")"
assert_eq "launched: the first interval ends less than it lasts after the start" 0 \
	"$(q "$C" "select count(*) from syscall_stat s, capture c
		where s.time_ns - c.start_monotonic_ns < s.interval_ns")"
# --window 0.. keeps the first interval: execve and every other call
assert_eq "launched: report syscalls --window 0.. counts every call" \
	"$("$ANA" report syscalls --format json "$C" | jget /dev/stdin 'j["totals"]["count"]')" \
	"$("$ANA" report syscalls --window 0.. --format json "$C" | jget /dev/stdin 'j["totals"]["count"]')"
assert_eq "launched: execve within --window 0.." 1 \
	"$("$ANA" report syscalls --window 0.. --format json "$C" | jget /dev/stdin 'sum(1 for s in j["syscalls"] if s["name"] == "execve")')"

"$FIX/spin" 30 & target=$!
C=$TMP/pid.ptop
"$REC" --quiet --pid $target --duration 1s --interval 200ms -o "$C"
kill $target 2>/dev/null || true
wait $target 2>/dev/null || true
echo "--pid: $(starts "$C")"
assert_ge "--pid: tables with intervals" 3 "$(starts "$C" | wc -w)"
assert_eq "--pid: intervals starting before the capture" "" "$(before "$C")"
