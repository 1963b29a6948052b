# Ground truth: the fixture makes exactly 50,000 getppid() calls and touches
# 64 MiB of anonymous memory. Recorded with the real eBPF collectors, the
# capture must count getppid exactly and see PSS grow by at least 64 MiB.
. tests/e2e/lib.sh
need_ebpf
N=50000
"$REC" --quiet --interval 200ms -o "$TMP/run.ptop" -- "$FIX/syscall_mem" $N 64 1500 600
"$ANA" info "$TMP/run.ptop"

assert_eq "getppid count (sql)" $N "$(q "$TMP/run.ptop" "select sum(count) from syscall_stat where name = 'getppid'")"
"$ANA" report syscalls --format json "$TMP/run.ptop" >"$TMP/sys.json"
assert_eq "getppid count (report json)" $N \
	"$(jget "$TMP/sys.json" '[s["count"] for s in j["syscalls"] if s["name"] == "getppid"][0]')"
"$ANA" report syscalls "$TMP/run.ptop" | tee "$TMP/sys.txt"
grep -Eq '^ *getppid +50,?000 ' "$TMP/sys.txt" || fail "text report does not show getppid with 50000 calls"

growth=$(q "$TMP/run.ptop" "select max(pss) - min(pss) from memory_sample where pss is not null")
assert_ge "PSS growth (bytes)" $((64 << 20)) "$growth"
uss_growth=$(q "$TMP/run.ptop" "select max(uss) - min(uss) from memory_sample where uss is not null")
assert_ge "USS growth (bytes)" $((64 << 20)) "$uss_growth"

assert_eq "complete" 1 "$(q "$TMP/run.ptop" "select complete from capture")"
assert_eq "end reason" target_exit "$(q "$TMP/run.ptop" "select end_reason from capture")"
assert_eq "target exit code" 0 "$(q "$TMP/run.ptop" "select target_exit_code from capture")"
assert_eq "syscalls probe" "active/ebpf" "$(q "$TMP/run.ptop" "select state || '/' || source from probe where name = 'syscalls'")"
assert_eq "file mode" 600 "$(stat -c %a "$TMP/run.ptop")"
oncpu=$(q "$TMP/run.ptop" "select count(*) from cpu_sample where oncpu_ns is not null")
assert_ge "cpu samples with eBPF on-CPU time" 3 "$oncpu"
