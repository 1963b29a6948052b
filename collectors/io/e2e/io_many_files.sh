# The io collector's per-file lane across its growth boundaries: io_churn writes 7 bytes to
# each of N files, then reads them back (N (file, write) and N (file, read) entries in the
# recorder's table of one interval: with N = 63, 64, 65 the table of 64 entries grows as the
# first poll's entries cross 64 and 128; 1000 crosses 1024). Checked exactly: one write and
# one read of 7 bytes per file, under each file's own path, and every file there. Then 50,000
# files: more than the kernel's table holds (IO_MAX_FILES (file, op) entries): what it
# counted plus what it says it could not count is exactly 100,000 operations. The 1000
# files' paths all reach the recorder (--io-files sizes the ring buffer for them). The
# 50,000 files' creation events: recorded + the ring buffer's event drop = 50,000.
. tests/e2e/lib.sh
need_fixture io_churn
[ "$(id -u)" = 0 ] || skip "needs root (eBPF)"

for n in 63 64 65 1000; do
	D=$TMP/d$n
	mkdir -p "$D"
	C=$TMP/n$n.ptop
	"$REC" --quiet --io-files --interval 60s -o "$C" -- "$FIX/io_churn" files "$D" "$n" ||
		fail "N=$n: the recorder or io_churn failed (exit $?)"
	assert_eq "N=$n: io probe" "active/ebpf" \
		"$(q "$C" "select state || '/' || source from probe where name = 'io'")"
	assert_eq "N=$n: files written once, 7 bytes each" "$n|$n|$((7 * n))" \
		"$(q "$C" "select count(distinct path) || '|' || sum(calls) || '|' || sum(bytes) from io_file
			where path like '$D/f%' and op = 'write'")"
	assert_eq "N=$n: files read once, 7 bytes each" "$n|$n|$((7 * n))" \
		"$(q "$C" "select count(distinct path) || '|' || sum(calls) || '|' || sum(bytes) from io_file
			where path like '$D/f%' and op = 'read'")"
	assert_eq "N=$n: every file one write and one read" 0 \
		"$(q "$C" "select count(*) from (select path from io_file where path like '$D/f%'
			group by path having sum(calls) != 2 or sum(bytes) != 14 or count(distinct op) != 2)")"
	assert_eq "N=$n: each file under its own path (one per identity)" "$n" \
		"$(q "$C" "select count(distinct file) from io_file where path like '$D/f%'")"
	assert_eq "N=$n: the histograms count every call" "$((2 * n))" \
		"$(q "$C" "select sum(h.count) from io_file_hist h join (select distinct time_ns, file, op from io_file where path like '$D/f%') f
			on h.time_ns = f.time_ns and h.file = f.file and h.op = f.op")"
	# io_churn uses no pipe: the recorder's start pipe (one byte read before the exec) is
	# the recorder's I/O, not the command's
	assert_eq "N=$n: no pipe (the recorder's start pipe left out)" 0 \
		"$(q "$C" "select count(*) from io_file where type = 'pipe'")"
	assert_eq "N=$n: no drop" 0 \
		"$(q "$C" "select coalesce(sum(lost), 0) from drop_total where collector = 'io'")"
	echo "N=$n: $(q "$C" "select max(c) from (select count(*) as c from io_file group by time_ns)") entries in the largest interval"
done

n=50000
D=$TMP/d$n
mkdir -p "$D"
C=$TMP/n$n.ptop
"$REC" --quiet --io-files --interval 60s -o "$C" -- "$FIX/io_churn" files "$D" "$n" ||
	fail "N=$n: the recorder or io_churn failed (exit $?)"
# the fixture's operations: its reads and writes of files but libc's read (paths the ring
# buffer could not carry are NULL: counted by identity; the map is full well before it ends)
mine="type = 'file' and op in ('read', 'write') and (path is null or path like '$D/f%')"
counted=$(q "$C" "select sum(calls) from io_file where $mine")
full=$(q "$C" "select coalesce(sum(lost), 0) from drop_total where collector = 'io' and kind = 'map_full'")
echo "N=$n: $counted operations counted, $full not (io_files full)"
[ "$full" -gt 0 ] || fail "N=$n: the kernel's table did not fill: raise N above IO_MAX_FILES"
assert_eq "N=$n: counted + not counted = every operation" $((2 * n)) $((counted + full))
assert_eq "N=$n: 7 bytes per counted call" $((7 * counted)) \
	"$(q "$C" "select sum(bytes) from io_file where $mine")"
# its 50,000 creations: the events recorded and those the ring buffer lost add up to
# them; the path records it lost are counted apart (ringbuf_paths), not as events
created=$(q "$C" "select count(*) from io_event where kind = 'created' and path like '$D/f%'")
lost=$(q "$C" "select coalesce(sum(lost), 0) from drop_total where collector = 'io' and kind = 'ringbuf'")
echo "N=$n: $created created events recorded, $lost lost, $(q "$C" "select coalesce(sum(lost), 0) from drop_total where collector = 'io' and kind = 'ringbuf_paths'") path records lost"
assert_eq "N=$n: created events recorded + lost = files created" "$n" $((created + lost))
echo "PASS"
