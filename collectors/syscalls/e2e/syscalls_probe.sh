# The recorder's own uprobes cost the target syscalls: on x86_64 since Linux 6.11 every
# return through a uretprobe is a `uretprobe` syscall (335) made by the kernel's
# trampoline in the target. Ground truth: heap_leak makes 1,001,000 malloc calls, and
# the heap's uprobe lane puts a uretprobe on malloc, so the capture holds at least that
# many uretprobe calls. They are named (the table is ptop's, not the build machine's
# headers) and shown only as probe overhead: never among the target's syscalls, in
# its totals, or in the replay viewer's syscall rows.
. tests/e2e/lib.sh
need_ebpf
[ "$(uname -m)" = x86_64 ] || skip "the uretprobe syscall is x86_64's (this is $(uname -m))"
grep -q ' __x64_sys_uretprobe$' /proc/kallsyms ||
	skip "this kernel ($(uname -r)) has no uretprobe syscall (Linux 6.11+): its uretprobes trap instead"

C=$TMP/run.ptop
"$REC" --quiet --enable heap --heap-lane uprobe --heap-sample-bytes 0 -o "$C" \
	-- "$FIX/heap_leak" >/dev/null
assert_eq "syscalls probe" "active/ebpf" \
	"$(q "$C" "select state || '/' || source from probe where name = 'syscalls'")"
assert_eq "heap probe" "active/ebpf" \
	"$(q "$C" "select state || '/' || source from probe where name = 'heap'")"
assert_eq "name of syscall 335" uretprobe \
	"$(q "$C" "select distinct name from syscall_stat where nr = 335")"
assert_ge "uretprobe calls (one per malloc return)" 1001000 \
	"$(q "$C" "select sum(count) from syscall_stat where nr = 335")"

"$ANA" report syscalls --format json "$C" >"$TMP/sys.json"
assert_eq "uretprobe among the target's syscalls" 0 \
	"$(jget "$TMP/sys.json" 'len([s for s in j["syscalls"] if s["nr"] in (335, 336)])')"
assert_eq "target totals = sum of its rows" \
	"$(jget "$TMP/sys.json" 'sum(s["count"] for s in j["syscalls"])')" \
	"$(jget "$TMP/sys.json" 'j["totals"]["count"]')"
assert_ge "probe overhead: uretprobe calls" 1001000 \
	"$(jget "$TMP/sys.json" '[s["count"] for s in j["probe_overhead"]["rows"] if s["name"] == "uretprobe"][0]')"
assert_eq "unknown names" 0 \
	"$(jget "$TMP/sys.json" 'len([s for s in j["syscalls"] + j["probe_overhead"]["rows"] if not s["name_known"]])')"

"$ANA" report syscalls "$C" | tee "$TMP/sys.txt"
po=$(grep -n '^probe overhead, not in the figures above' "$TMP/sys.txt" | cut -d: -f1)
[ -n "$po" ] || fail "the text report has no probe overhead section"
first=$(grep -n '^uretprobe ' "$TMP/sys.txt" | head -1 | cut -d: -f1)
[ -n "$first" ] || fail "the text report does not list uretprobe"
[ "$first" -gt "$po" ] || fail "uretprobe listed before the probe overhead section (line $first, section at $po)"
echo "ok: uretprobe only under probe overhead (line $first, section at line $po)"

"$ANA" report syscalls --format csv "$C" >"$TMP/sys.csv" 2>"$TMP/sys.err"
grep -q '^uretprobe,' "$TMP/sys.csv" && fail "uretprobe in the CSV table of the target's syscalls"
grep -q '^probe overhead (uprobe trampolines, not in the table): uretprobe (335): ' "$TMP/sys.err" ||
	fail "CSV: no probe overhead line on stderr: $(cat "$TMP/sys.err")"
echo "ok: CSV table without uretprobe, probe overhead on stderr"

# the replay viewer: at the end, the last interval's syscalls
"$ANA" replay --dump --at 99m --tab syscalls --size 160x48 "$C" >"$TMP/replay.txt"
grep -q 'probe overhead, not counted above' "$TMP/replay.txt" ||
	{ cat "$TMP/replay.txt"; fail "replay: no probe overhead line"; }
grep -Eq '^ *uretprobe ' "$TMP/replay.txt" && { cat "$TMP/replay.txt"; fail "replay: uretprobe among the rows"; }
echo "ok: replay syscall view keeps uretprobe out of its rows"
