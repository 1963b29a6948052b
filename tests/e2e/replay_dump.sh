# replay --dump: one frame as text, through the viewer's own layout code. A real
# capture (20,000 getppid calls) dumped at the end of the interval holding them
# shows getppid with that interval's count; a --no-ebpf capture says "not
# collected" with the reason, never a table of zeros.
. "$(dirname "$0")/lib.sh"
need_ebpf
"$REC" --quiet --interval 200ms -o "$TMP/run.ptop" -- "$FIX/syscall_mem" 20000 16 1500 300 >/dev/null

# the interval with the most getppid calls: its end (ns from the start) and its count
row=$(q "$TMP/run.ptop" "select (s.time_ns - c.start_monotonic_ns) || 'ns', sum(s.count)
	from syscall_stat s join capture c using (cap) where s.name = 'getppid'
	group by s.time_ns order by sum(s.count) desc limit 1")
at=${row%,*} count=${row#*,}
[ -n "$at" ] && [ -n "$count" ] || fail "no getppid interval in the capture"
total=$(q "$TMP/run.ptop" "select sum(count) from syscall_stat where name = 'getppid'")
assert_ge "getppid calls recorded" 1 "$total"
want=$(python3 -c "print(f'{int(\"$count\"):,}')")

"$ANA" replay --dump --at "$at" --tab syscalls --size 160x48 "$TMP/run.ptop" >"$TMP/sys.txt"
cat "$TMP/sys.txt"
assert_eq "frame lines" 48 "$(wc -l <"$TMP/sys.txt")"
grep -Eq "^ +getppid +$want " "$TMP/sys.txt" || fail "the frame at ${at}s does not show getppid with $want calls"
grep -q "syscall_mem (pid [0-9]*)" "$TMP/sys.txt" || fail "the header does not name the target"
grep -q "capture complete" "$TMP/sys.txt" || fail "the header does not say the capture is complete"
grep -q "paused" "$TMP/sys.txt" || fail "the header does not say paused"

# the same position through the overview and the memory tab
"$ANA" replay --dump --at "$at" --size 120x40 "$TMP/run.ptop" >"$TMP/ov.txt"
cat "$TMP/ov.txt"
grep -Eq "getppid +$want calls" "$TMP/ov.txt" || fail "the overview does not list getppid with $want calls"
"$ANA" replay --dump --at 99m --tab memory --size 120x40 "$TMP/run.ptop" >"$TMP/mem.txt"
cat "$TMP/mem.txt"
grep -Eq "^ +PSS +[0-9.]+ MiB" "$TMP/mem.txt" || fail "the memory tab shows no PSS"
grep -q "VMA groups at snapshot" "$TMP/mem.txt" || fail "the memory tab shows no VMA groups"

# before the first interval ended: nothing is invented
"$ANA" replay --dump --at 0 --tab syscalls "$TMP/run.ptop" >"$TMP/zero.txt"
grep -q "no syscall interval has ended" "$TMP/zero.txt" || fail "at 0 s the syscalls tab does not say no interval ended"

# options after FILE, as every other command takes them: the same frame
"$ANA" replay "$TMP/run.ptop" --dump --at 0 --tab syscalls >"$TMP/zero_after.txt" ||
	fail "replay FILE --dump ... (options after FILE) was refused"
cmp -s "$TMP/zero.txt" "$TMP/zero_after.txt" || fail "options after FILE give another frame"

# usage errors exit 2
expect_exit 2 "$ANA" replay --dump "$TMP/run.ptop" "$TMP/run.ptop"
grep -q "not 2" "$TMP/err" || fail "two files: the message does not say how many were given"
expect_exit 2 "$ANA" replay --dump
grep -q "which FILE" "$TMP/err" || fail "no file: the message does not ask for one"
expect_exit 2 "$ANA" replay --dump "$TMP/run.ptop" --at
grep -q -- "--at needs a value" "$TMP/err" || fail "--at without a value: no clear message"
expect_exit 2 "$ANA" replay --dump --at nonsense "$TMP/run.ptop"
expect_exit 2 "$ANA" replay --dump --tab nope "$TMP/run.ptop"
expect_exit 2 "$ANA" replay --dump --size 10 "$TMP/run.ptop"
expect_exit 2 "$ANA" replay --dump "$TMP/missing.ptop"
# no terminal and no --dump: refused with the way out
expect_exit 2 "$ANA" replay "$TMP/run.ptop" </dev/null
grep -q -- "--dump" "$TMP/err" || fail "replay without a terminal does not point at --dump"

# --no-ebpf: the syscalls tab says not collected, with the reason
"$REC" --quiet --no-ebpf --interval 200ms -o "$TMP/noebpf.ptop" -- "$FIX/syscall_mem" 1000 8 600 300 >/dev/null 2>&1
"$ANA" replay --dump --at 1s --tab syscalls "$TMP/noebpf.ptop" >"$TMP/ne.txt"
cat "$TMP/ne.txt"
grep -q "not collected" "$TMP/ne.txt" || fail "--no-ebpf capture: the syscalls tab does not say not collected"
grep -q -- "--no-ebpf" "$TMP/ne.txt" || fail "--no-ebpf capture: no reason given"
grep -Eq "^ +getppid" "$TMP/ne.txt" && fail "--no-ebpf capture: a syscall table was drawn"
echo "replay_dump: ok"
