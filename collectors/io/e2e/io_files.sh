# Ground truth for the io collector's per-file lane (--io-files): io_files writes exactly
# 10 MiB to DIR/out in 2560 writes of 4 KiB, half of them through a dup() of its fd, with
# 3 fsyncs; reads exactly 1 MiB from DIR/in in 256 reads; opens DIR/in again with O_CREAT
# (it exists: not created); creates DIR/made (100 bytes); fails to open DIR/secret (mode
# 0000, run without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH); writes 8192 bytes to
# DIR/old, closes and renames it to DIR/new; deletes DIR/gone; creat()s DIR/crt and is
# denied a creat() of DIR/secret; and through io_uring writes
# 4 x 4096 bytes to DIR/ring and reads 2 x 4096 back. Checked: every per-file figure
# exactly, one row per (file, op) whatever the fd (the dup()), the renamed file under its
# new path, the created events (and none for the existing file), the io_uring counts by
# opcode and per file, the latency histograms' counts, the report in three formats, the
# figures, the replay tab and its drill-down. Without --io-files: "not collected" with
# the reason, in the report and the figures.
. tests/e2e/lib.sh
need_fixture io_files
[ "$(id -u)" = 0 ] || skip "needs root (eBPF)"
command -v setpriv >/dev/null || skip "no setpriv(1) to drop CAP_DAC_OVERRIDE"

D=$TMP/iof
mkdir -p "$D"
dd if=/dev/zero of="$D/in" bs=1M count=2 status=none
: >"$D/secret"
chmod 0000 "$D/secret"
: >"$D/old"
: >"$D/gone"
drop=(setpriv --inh-caps=-dac_override,-dac_read_search --bounding-set=-dac_override,-dac_read_search)

C=$TMP/files.ptop
"$REC" --quiet --io-files --interval 250ms -o "$C" -- "${drop[@]}" "$FIX/io_files" "$D" >"$TMP/out.txt" ||
	fail "io_files failed (see above)"
assert_eq "io probe" "active/ebpf" \
	"$(q "$C" "select state || '/' || source from probe where name = 'io'")"
row() { # row PATH OP: calls|errors|bytes|timed summed over the intervals
	q "$C" "select sum(calls) || '|' || sum(errors) || '|' || sum(bytes) || '|' || sum(timed)
		from io_file where path = '$1' and op = '$2'"
}
assert_eq "out: writes (both fds, one row per interval)" "2560|0|10485760|2560" "$(row "$D/out" write)"
assert_eq "out: fsyncs" "3|0|0|3" "$(row "$D/out" fsync)"
assert_eq "out: one file whatever the fd" 1 \
	"$(q "$C" "select count(distinct file) from io_file where path = '$D/out'")"
assert_eq "out: one row per interval" 0 \
	"$(q "$C" "select count(*) from (select time_ns from io_file where path = '$D/out' and op = 'write' group by time_ns having count(*) > 1)")"
assert_eq "in: reads" "256|0|1048576|256" "$(row "$D/in" read)"
assert_eq "made: write" "1|0|100|1" "$(row "$D/made" write)"
assert_eq "the renamed file under its new path" "2|0|8192|2" "$(row "$D/new" write)"
assert_eq "no row under the old path" 0 "$(q "$C" "select count(*) from io_file where path = '$D/old'")"
assert_eq "histogram counts = timed calls" \
	"$(q "$C" "select sum(timed) from io_file where path = '$D/out'")" \
	"$(q "$C" "select sum(h.count) from io_file_hist h where h.file = (select file from io_file where path = '$D/out' limit 1)")"
assert_eq "max within the call time" 0 \
	"$(q "$C" "select count(*) from io_file where max_ns > call_ns or (timed > 0 and max_ns is null)")"
assert_eq "the type" "file" "$(q "$C" "select distinct type from io_file where path = '$D/out'")"

# the events: created (not the existing file), denied, renamed, deleted; creat(2) is its
# own kind (its argument 2 is the mode, its flags O_CREAT|O_WRONLY|O_TRUNC = 577)
crt= crt_denied= nextra=0 o2= o2_denied=
if grep -q '^creat: ok' "$TMP/out.txt"; then
	crt="$D/crt " nextra=1
	crt_denied=" $D/secret|13|577"
fi
if grep -q '^openat2: ok' "$TMP/out.txt"; then # its flags are in its struct open_how
	o2=" $D/o2" nextra=$((nextra + 1))
	o2_denied=" $D/secret|13|2"
fi
assert_eq "created" "$crt$D/made$o2 $D/out $D/ring" \
	"$(q "$C" "select group_concat(path, ' ') from (select path from io_event where kind = 'created' order by path)")"
assert_eq "the created file's flags (O_WRONLY|O_CREAT|O_EXCL)" 193 \
	"$(q "$C" "select flags from io_event where kind = 'created' and path = '$D/made'")"
[ -z "$crt" ] || assert_eq "the creat()ed file's flags (O_CREAT|O_WRONLY|O_TRUNC)" 577 \
	"$(q "$C" "select flags from io_event where kind = 'created' and path = '$D/crt'")"
[ -z "$o2" ] || assert_eq "the openat2()ed file's flags (O_WRONLY|O_CREAT|O_EXCL)" 193 \
	"$(q "$C" "select flags from io_event where kind = 'created' and path = '$D/o2'")"
assert_eq "denied (open, then creat, then openat2)" "$D/secret|13|0$crt_denied$o2_denied" \
	"$(q "$C" "select group_concat(x, ' ') from (select path || '|' || error || '|' || flags as x from io_event where kind = 'denied' order by time_ns)")"
assert_eq "renamed" "$D/old|$D/new" "$(q "$C" "select path || '|' || new_path from io_event where kind = 'renamed'")"
assert_eq "deleted" "$D/gone" "$(q "$C" "select path from io_event where kind = 'deleted'")"
# the same file-system events in the timeline (report events --category io), one each
"$ANA" report events --category io --format csv "$C" >"$TMP/ev.csv" || fail "report events --category io: exit $?"
assert_eq "timeline: io events" "$(q "$C" "select count(*) from io_event")" "$(($(wc -l <"$TMP/ev.csv") - 1))"
assert_eq "timeline: the rename" 1 "$(grep -c ",file renamed,[0-9]*,false,[a-z]* $D/old -> $D/new$" "$TMP/ev.csv")"
assert_eq "timeline: the unlink" 1 "$(grep -c ",file deleted,[0-9]*,false,[a-z]* $D/gone$" "$TMP/ev.csv")"

# io_uring: 4 WRITE and 2 READ submitted and completed, their bytes, and per file; on a
# kernel without the io_uring_submit_req tracepoint (before 6.3; io_files_nouring.sh forces
# it) the io_uring lane is unsupported with its reason, and the requests are said to be not
# measured, never "none"
uring=$(q "$C" "select state from probe_lane where probe = 'io' and lane = 'io_uring'")
echo "io lanes: $(q "$C" "select lane || '=' || state from probe_lane where probe = 'io'" | tr '\n' ' ')"
assert_eq "io lanes proc, events, files" "active active active" \
	"$(q "$C" "select group_concat(state, ' ') from (select state from probe_lane
		where probe = 'io' and lane in ('proc', 'events', 'files') order by seq)")"
if [ "$uring" = unsupported ]; then
	assert_eq "io_uring lane: why" 1 "$(q "$C" "select reason like 'needs Linux 6.3: tp_btf:io_uring_submit_req (%)'
		from probe_lane where probe = 'io' and lane = 'io_uring'")"
	assert_eq "io_uring: no counts" 0 "$(q "$C" "select count(*) from io_uring_op")"
	"$ANA" report io "$C" | has '^io_uring requests: not measured (needs Linux 6.3: tp_btf:io_uring_submit_req' ||
		fail "report io does not say the io_uring requests were not measured"
	"$ANA" report io --format json "$C" >"$TMP/nu.json"
	assert_eq "json: io_uring" None "$(jget "$TMP/nu.json" 'j["io_uring"]')"
	assert_eq "json: io_uring_reason" 1 "$(jget "$TMP/nu.json" 'int(j["io_uring_reason"].startswith("needs Linux 6.3"))')"
elif grep -q '^io_uring: ok' "$TMP/out.txt"; then
	assert_eq "io_uring lane" active "$uring"
	assert_eq "io_uring by opcode" "READ|2|2|0|8192 WRITE|4|4|0|16384" \
		"$(q "$C" "select group_concat(x, ' ') from (select op || '|' || sum(submitted) || '|' || sum(completed) || '|' || sum(errors) || '|' || sum(bytes) as x from io_uring_op group by op order by op)")"
	assert_eq "io_uring per file" "io_uring:READ|2|8192 io_uring:WRITE|4|16384" \
		"$(q "$C" "select group_concat(x, ' ') from (select op || '|' || sum(calls) || '|' || sum(bytes) as x from io_file where path = '$D/ring' group by op order by op)")"
else
	echo "(io_uring unavailable here: its counts are not checked)"
fi

# report io: top files, per-op histogram, fsyncs, throughput, io_uring, events
"$ANA" report io "$C" | tee "$TMP/r.txt"
grep -A2 '^files by bytes:' "$TMP/r.txt" | grep -Eq "^$D/out +10.0 MiB +0 B +2,563 +3 +0 " ||
	fail "text: out not the top file by bytes (written, read, ops, fsyncs, errors)"
grep -A2 '^fsyncs per file' "$TMP/r.txt" | grep -Eq "^$D/out +3 +10.0 MiB$" ||
	fail "text: no fsync line for out"
grep -q 'time in the syscall, not device time' "$TMP/r.txt" || fail "text: time not said to be in the call"
"$ANA" report io --format json "$C" >"$TMP/r.json"
assert_eq "json: top file by bytes" "$D/out" "$(jget "$TMP/r.json" 'j["files"][0]["path"]')"
assert_eq "json: its written bytes" 10485760 "$(jget "$TMP/r.json" 'j["files"][0]["written_bytes"]')"
assert_eq "json: its writes" 2560 "$(jget "$TMP/r.json" 'j["files"][0]["writes"]')"
assert_eq "json: its fsyncs" 3 "$(jget "$TMP/r.json" 'j["files"][0]["fsyncs"]')"
assert_eq "json: in's read bytes" 1048576 \
	"$(jget "$TMP/r.json" '[f["read_bytes"] for f in j["files"] if f["path"] == "'"$D"'/in"][0]')"
assert_eq "json: write histogram count = timed writes" \
	"$(q "$C" "select sum(timed) from io_file where op = 'write'")" \
	"$(jget "$TMP/r.json" 'sum(b["count"] for b in j["latency"] if b["op"] == "write")')"
assert_eq "json: created events" $((3 + nextra)) "$(jget "$TMP/r.json" 'sum(1 for e in j["fs_events"] if e["kind"] == "created")')"
"$ANA" report io --format csv "$C" >"$TMP/r.csv"
[ -s "$TMP/r.csv" ] || fail "csv: empty"
head -1 "$TMP/r.csv" | grep -q '^t_s,interval_s,read_bytes,' || fail "csv: not the intervals by default"
# csv of the per-file tables, one by --table
csum() { # csum FILE EXPR: evaluate EXPR over the CSV's rows (as `rows`, dicts of text)
	python3 -c 'import csv,sys; rows=list(csv.DictReader(open(sys.argv[1]))); print(eval(sys.argv[2]))' "$1" "$2"
}
"$ANA" report io --format csv --table files "$C" >"$TMP/files.csv"
assert_eq "csv files: out's written bytes and writes" "10485760|2560|3" \
	"$(csum "$TMP/files.csv" '[r["written_bytes"] + "|" + r["writes"] + "|" + r["fsyncs"] for r in rows if r["path"] == "'"$D"'/out"][0]')"
"$ANA" report io --format csv --table operations "$C" >"$TMP/ops.csv"
assert_eq "csv operations: fsync calls" 3 "$(csum "$TMP/ops.csv" '[r["calls"] for r in rows if r["op"] == "fsync"][0]')"
"$ANA" report io --format csv --table latency "$C" >"$TMP/lat.csv"
assert_eq "csv latency: write histogram count = timed writes" \
	"$(q "$C" "select sum(timed) from io_file where op = 'write'")" \
	"$(csum "$TMP/lat.csv" 'sum(int(r["count"]) for r in rows if r["op"] == "write")')"
"$ANA" report io --format csv --table events "$C" >"$TMP/ev.csv"
assert_eq "csv events: created" $((3 + nextra)) "$(csum "$TMP/ev.csv" 'sum(1 for r in rows if r["kind"] == "created")')"
if [ "$uring" = active ] && grep -q '^io_uring: ok' "$TMP/out.txt"; then
	"$ANA" report io --format csv --table io_uring "$C" >"$TMP/u.csv"
	assert_eq "csv io_uring" "READ|2|8192 WRITE|4|16384" \
		"$(csum "$TMP/u.csv" '" ".join(r["op"] + "|" + r["completed"] + "|" + r["bytes"] for r in sorted(rows, key=lambda r: r["op"]))')"
fi
expect_exit 2 "$ANA" report io --format csv --table nosuch "$C"
grep -q -- '--table takes intervals, files' "$TMP/err" || fail "--table nosuch: no list of the tables"
expect_exit 2 "$ANA" report io --table files "$C"
expect_exit 2 "$ANA" report cpu --format csv --table files "$C"

# one file's throughput per interval (--file): its intervals sum to its totals
"$ANA" report io --file "$D/out" --format json "$C" >"$TMP/s.json"
assert_eq "--file json: the file" "$D/out" "$(jget "$TMP/s.json" 'j["path"]')"
assert_eq "--file json: written bytes, writes, fsyncs over the intervals" "10485760|2560|3" \
	"$(jget "$TMP/s.json" '"%d|%d|%d" % tuple(sum(i[k] for i in j["intervals"]) for k in ("written_bytes", "writes", "fsyncs"))')"
assert_eq "--file json: one row per interval with calls" \
	"$(q "$C" "select count(distinct time_ns) from io_file where path = '$D/out'")" \
	"$(jget "$TMP/s.json" 'len(j["intervals"])')"
assert_eq "--file json: the rate is bytes over the interval" 0 \
	"$(jget "$TMP/s.json" 'sum(1 for i in j["intervals"] if abs(i["written_per_s"] * i["interval_s"] - i["written_bytes"]) > 1)')"
id=$(q "$C" "select distinct file from io_file where path = '$D/out'")
"$ANA" report io --file "$id" --format csv "$C" >"$TMP/s.csv"
assert_eq "--file csv by identity: written bytes" 10485760 "$(csum "$TMP/s.csv" 'sum(int(r["written_bytes"]) for r in rows)')"
"$ANA" report io --file "$D/out" "$C" >"$TMP/s.txt"
grep -q "^io file $D/out ($id) (.*): [0-9]* intervals with calls" "$TMP/s.txt" || fail "--file text: no heading"
grep -Eq '^ *t_s +interval_s +read_bytes +written_bytes +read_per_s +written_per_s ' "$TMP/s.txt" ||
	fail "--file text: no table"
expect_exit 2 "$ANA" report io --file "$D/nosuch" "$C"
grep -q 'no such file in the capture' "$TMP/err" || fail "--file nosuch: not said"

# figures: per file bytes, fsyncs, denied
"$ANA" figures --format json "$C" >"$TMP/f.json"
assert_eq "figure io.fsyncs" 3 "$(jget "$TMP/f.json" '[f["value"] for f in j["figures"] if f["figure"] == "io.fsyncs"][0]')"
assert_eq "figure io.denied" $((1 + nextra)) "$(jget "$TMP/f.json" '[f["value"] for f in j["figures"] if f["figure"] == "io.denied"][0]')"
assert_eq "figure io.file_bytes(out)" 10485760 \
	"$(jget "$TMP/f.json" '[f["value"] for f in j["figures"] if f["figure"] == "io.file_bytes('"$D"'/out)"][0]')"

# replay: the file list, out at the top (the drill-down is checked by test_io 06)
"$ANA" replay --dump --at 99m --tab io --size 140x50 "$C" >"$TMP/v.txt"
grep -A1 'path  *read  *written' "$TMP/v.txt" | grep -Eq "^ *$D/out +0 B +10.0 MiB " ||
	fail "replay: out not the top of the I/O tab's file list"

# without --io-files: not collected, with the reason
C2=$TMP/nofiles.ptop
rm -f "$D/new" "$D/made" "$D/ring" "$D/crt" "$D/o2" && : >"$D/old" && : >"$D/gone"
"$REC" --quiet --interval 250ms -o "$C2" -- "${drop[@]}" "$FIX/io_files" "$D" >/dev/null
assert_eq "no --io-files: rows" 0 "$(q "$C2" "select count(*) from io_file")"
"$ANA" report io "$C2" | grep -q '^per file: not collected (off by default: needs --io-files' ||
	fail "no --io-files: the report does not say why"
"$ANA" figures --format json "$C2" >"$TMP/f2.json"
expect_exit 2 "$ANA" report io --file "$D/out" "$C2"
grep -q 'per file: not collected (off by default' "$TMP/err" || fail "no --io-files: --file does not say why"
expect_exit 2 "$ANA" report io --format csv --table files "$C2"
"$ANA" report io --format csv --table intervals "$C2" | grep -q '^t_s,interval_s,' || fail "no --io-files: no intervals csv"
assert_eq "no --io-files: io.fsyncs not measured" None \
	"$(jget "$TMP/f2.json" '[f.get("value") for f in j["figures"] if f["figure"] == "io.fsyncs"][0]')"
