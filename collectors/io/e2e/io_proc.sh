# Ground truth for the io collector: io_work writes exactly 10 MiB in 2560 writes of
# 4 KiB (3 fsyncs), reads 1 MiB in 256 reads, fails to open a mode-0000 file (run
# without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH), renames one file, deletes another,
# truncates one, and writes nothing else. The /proc lane: written bytes and write
# syscalls exact, reads at least the 1 MiB. From the syscalls collector (when it runs):
# 2560 write calls and 3 fsyncs exactly. With --io-events: the denial with its path, the
# rename with both paths, the delete, the truncation, the file created. (The per-file
# figures are off by default, --io-files: the report says per file "not collected" with
# the reason; io_files.sh checks them.)
# --disable io: "not collected" with the reason.
. tests/e2e/lib.sh
need_fixture io_work
command -v setpriv >/dev/null || skip "no setpriv(1) to drop CAP_DAC_OVERRIDE"

D=$TMP/io
mkdir -p "$D"
dd if=/dev/zero of="$D/in" bs=1M count=2 status=none
: >"$D/secret"
chmod 0000 "$D/secret"
: >"$D/old"
: >"$D/gone"
drop=(setpriv --inh-caps=-dac_override,-dac_read_search --bounding-set=-dac_override,-dac_read_search)
[ "$(id -u)" = 0 ] || drop=()

C=$TMP/io.ptop
"$REC" --quiet --interval 250ms -o "$C" -- "${drop[@]}" "$FIX/io_work" "$D" >/dev/null ||
	fail "io_work failed (see above)"
[ -e "$D/new" ] && [ ! -e "$D/old" ] && [ ! -e "$D/gone" ] || fail "io_work did not rename and delete"
assert_eq "io probe" "active/proc" \
	"$(q "$C" "select state || '/' || source from probe where name = 'io'")"
assert_eq "bytes written (wchar)" 10485760 "$(q "$C" "select sum(wchar) from io_sample")"
assert_eq "write syscalls (syscw)" 2560 "$(q "$C" "select sum(syscw) from io_sample")"
assert_ge "bytes read (rchar)" 1048576 "$(q "$C" "select sum(rchar) from io_sample")"
assert_ge "read syscalls (syscr)" 256 "$(q "$C" "select sum(syscr) from io_sample")"
delayacct=$(cat /proc/sys/kernel/task_delayacct 2>/dev/null || echo 0)
if [ "$delayacct" = 1 ]; then
	assert_eq "iowait not measured" 0 "$(q "$C" "select count(*) from io_sample where iowait_ns is null")"
else
	assert_eq "iowait measured without delay accounting" 0 \
		"$(q "$C" "select count(*) from io_sample where iowait_ns is not null")"
fi

"$ANA" report io "$C" | tee "$TMP/io.txt"
grep -Eq '^written  10.0 MiB in 2,560 syscalls' "$TMP/io.txt" || fail "text: no written line"
grep -q '^per file: not collected (off by default: needs --io-files' "$TMP/io.txt" ||
	fail "text: no per-file reason"
[ "$delayacct" = 1 ] || grep -q '^block I/O delay  not measured' "$TMP/io.txt" ||
	fail "text: an unmeasured delay not said so"
"$ANA" report io --format json "$C" >"$TMP/io.json"
assert_eq "json written_bytes" 10485760 "$(jget "$TMP/io.json" 'j["totals"]["written_bytes"]')"
assert_eq "json write_calls = sum of intervals" 2560 \
	"$(jget "$TMP/io.json" 'sum(r["write_calls"] for r in j["intervals"])')"
# per operation, from the syscalls collector when it ran: 2560 writes, 3 fsyncs exactly
if [ "$(q "$C" "select state from probe where name = 'syscalls'")" = active ]; then
	assert_eq "json: write calls" 2560 \
		"$(jget "$TMP/io.json" '[r["calls"] for r in j["syscalls"] if r["syscall"] == "write"][0]')"
	assert_eq "json: fsync calls" 3 \
		"$(jget "$TMP/io.json" '[r["calls"] for r in j["syscalls"] if r["syscall"] == "fsync"][0]')"
	assert_ge "json: read calls" 256 \
		"$(jget "$TMP/io.json" '[r["calls"] for r in j["syscalls"] if r["syscall"] == "read"][0]')"
	grep -Eq '^fsync +3 +0 ' "$TMP/io.txt" || fail "text: no fsync row with 3 calls"
else
	echo "(the syscalls probe did not run here: the per-operation counts are not checked)"
fi
"$ANA" report io --format csv "$C" >"$TMP/io.csv"
assert_eq "csv rows = samples" "$(q "$C" "select count(*) from io_sample")" "$(($(wc -l <"$TMP/io.csv") - 1))"
"$ANA" replay --dump --at 99m --tab io --size 120x40 "$C" | grep -q 'per file: not collected' ||
	fail "replay: no I/O tab"
"$ANA" replay --dump --at 1s --tab overview --size 160x48 "$C" | grep -Eq '^ *I/O +(read|no sample)' ||
	fail "overview: no I/O line"

# --io-events (the eBPF lane): the denial with its path and errno, the rename with both
# paths, the delete, the truncation; nothing else of those kinds
if [ "$(id -u)" = 0 ]; then
	C4=$TMP/events.ptop
	rm -f "$D/out" "$D/new" && : >"$D/old" && : >"$D/gone"
	"$REC" --quiet --io-events --interval 250ms -o "$C4" -- "${drop[@]}" "$FIX/io_work" "$D" >/dev/null
	assert_eq "--io-events: io probe" "active/ebpf" \
		"$(q "$C4" "select state || '/' || source from probe where name = 'io'")"
	assert_eq "denials" "1" "$(q "$C4" "select count(*) from io_event where kind = 'denied'")"
	assert_eq "the denial" "$D/secret|13|openat" \
		"$(q "$C4" "select path || '|' || error || '|' || syscall from io_event where kind = 'denied'")"
	assert_eq "the rename" "$D/old|$D/new" \
		"$(q "$C4" "select path || '|' || new_path from io_event where kind = 'renamed'")"
	assert_eq "the delete" "$D/gone" "$(q "$C4" "select group_concat(path) from io_event where kind = 'deleted'")"
	assert_eq "the truncation" "$D/new|0|truncate" \
		"$(q "$C4" "select path || '|' || length || '|' || syscall from io_event where kind = 'truncated'")"
	assert_eq "the file created" "$D/out|577" \
		"$(q "$C4" "select path || '|' || flags from io_event where kind = 'created'")"
	"$ANA" report io "$C4" | grep -q '^file-system events: 1 opens denied, 1 created, 1 deleted, 1 renamed, 1 truncated$' ||
		fail "--io-events: no summary line"
	"$ANA" report io --format json "$C4" >"$TMP/ev.json"
	assert_eq "json: fs_events" 5 "$(jget "$TMP/ev.json" 'len(j["fs_events"])')"
	"$ANA" report io "$C" | grep -q '^file-system events: not collected (needs --io-events' ||
		fail "without --io-events: the report does not say why"
else
	echo "(not root: the --io-events lane is not checked)"
fi

# --no-ebpf: the /proc lane is the same
C2=$TMP/noebpf.ptop
rm -f "$D/out" && : >"$D/old" && : >"$D/gone" && rm -f "$D/new"
"$REC" --quiet --no-ebpf --interval 250ms -o "$C2" -- "${drop[@]}" "$FIX/io_work" "$D" >/dev/null
assert_eq "--no-ebpf: bytes written" 10485760 "$(q "$C2" "select sum(wchar) from io_sample")"
"$ANA" report io "$C2" | grep -q '^I/O syscalls: not collected (syscalls: unsupported: --no-ebpf' ||
	fail "--no-ebpf: the I/O syscalls not said 'not collected' with the reason"

# disabled: not collected, with the reason, never a zero
C3=$TMP/off.ptop
"$REC" --quiet --disable io,fds --duration 1s -o "$C3" -- sleep 0.3 >/dev/null
for k in io fds; do
	"$ANA" report $k "$C3" | tee "$TMP/off.txt"
	grep -q "^$k: not collected (disabled: " "$TMP/off.txt" || fail "--disable $k: no 'not collected' with its reason"
done
assert_eq "--disable io: rows" 0 "$(q "$C3" "select count(*) from io_sample")"
