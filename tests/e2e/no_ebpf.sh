# --no-ebpf: only the /proc lanes run; syscalls is marked unsupported and every
# report says "not collected" with the reason, never 0.
. "$(dirname "$0")/lib.sh"
"$REC" --no-ebpf --interval 200ms -o "$TMP/run.ptop" -- "$FIX/syscall_mem" 1000 8 600 300 2>"$TMP/rec.err"
cat "$TMP/rec.err"
grep -q '^probes: .*unsupported' "$TMP/rec.err" || fail "no probe summary on stderr"
grep -q 'syscalls' "$TMP/rec.err" || fail "the summary does not name the unsupported syscalls probe"

assert_eq "syscalls probe state" unsupported "$(q "$TMP/run.ptop" "select state from probe where name = 'syscalls'")"
assert_eq "cpu probe source" proc "$(q "$TMP/run.ptop" "select source from probe where name = 'cpu'")"
assert_eq "syscall rows" 0 "$(q "$TMP/run.ptop" "select count(*) from syscall_stat")"
assert_eq "eBPF on-CPU values" 0 "$(q "$TMP/run.ptop" "select count(oncpu_ns) from cpu_sample")"
assert_ge "/proc CPU samples" 2 "$(q "$TMP/run.ptop" "select count(user_ns) from cpu_sample")"

"$ANA" report syscalls "$TMP/run.ptop" | tee "$TMP/sys.txt"
grep -q 'not collected' "$TMP/sys.txt" || fail "report syscalls does not say 'not collected'"
grep -q -- '--no-ebpf' "$TMP/sys.txt" || fail "report syscalls does not give the reason"
"$ANA" report syscalls --format json "$TMP/run.ptop" >"$TMP/sys.json"
assert_eq "json collected" False "$(jget "$TMP/sys.json" 'j["collected"]')"
