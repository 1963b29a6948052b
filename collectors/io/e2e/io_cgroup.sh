# The io collector under --cgroup, in a cgroup the test makes (and removes) under the
# cgroup2 mount: one io_sample row per process of the cgroup's subtree each interval
# (/proc/PID/io of each process its cgroup.procs files list), and the eBPF lanes
# (--io-files) filtered by the cgroup, with the process on every row. io_files A runs in
# the cgroup, io_files B in a child cgroup, io_files O outside: A's and B's ground truth
# (10 MiB to DIR/out in 2560 writes, the denial, the rename) under their own pids; no row
# of O. With the /proc lane alone (--no-ebpf): a shell in the cgroup whose child, seen by
# the polls, has a child of its own write exactly 1 MiB; the kernel adds a reaped child's
# counters to its parent's, so the MiB is in the child's rows and again in its parent's
# change when the parent waits for it: it must be counted once.
. tests/e2e/lib.sh
need_fixture io_files
need_ebpf
need_cgroup2
command -v setpriv >/dev/null || skip "no setpriv(1) to drop CAP_DAC_OVERRIDE"
CG=$V2/ptop-e2e-io-$$
make_dirs "$CG" "$CG/sub" || skip "cannot create a cgroup under $V2"
drop=(setpriv --inh-caps=-dac_override,-dac_read_search --bounding-set=-dac_override,-dac_read_search)

setup() { # setup DIR: what io_files expects there
	mkdir -p "$1"
	dd if=/dev/zero of="$1/in" bs=1M count=2 status=none
	: >"$1/secret"
	chmod 0000 "$1/secret"
	: >"$1/old"
	: >"$1/gone"
}
# start OUT [OPTION...]: the recorder on the cgroup, in the background ($rec)
start() {
	local out=$1
	shift
	"$REC" --cgroup "$CG" --interval 250ms "$@" -o "$out" 2>"$TMP/rec.err" &
	rec=$!
	kill_at_exit "$rec"
	wait_line "$TMP/rec.err" 'recording cgroup' "the recorder to start"
}
stop() {
	local rc=0
	kill -INT "$rec"
	wait "$rec" || rc=$?
	assert_eq "ptop-record exit status" 0 "$rc"
}

# --io-files: A in the cgroup, B in its child, O outside
for x in a b o; do setup "$TMP/$x"; done
C=$TMP/files.ptop
start "$C" --io-files
sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" "${drop[@]}" \
	"$FIX/io_files" "$TMP/a" >"$TMP/a.out" &
pa=$!
sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG/sub" "${drop[@]}" \
	"$FIX/io_files" "$TMP/b" >"$TMP/b.out" &
pb=$!
"${drop[@]}" "$FIX/io_files" "$TMP/o" >"$TMP/o.out" &
po=$!
wait "$pa" || fail "io_files A failed"
wait "$pb" || fail "io_files B failed"
wait "$po" || fail "io_files O (outside) failed"
stop
assert_eq "io probe" "active/ebpf" \
	"$(q "$C" "select state || '/' || source from probe where name = 'io'")"
assert_eq "io_sample: one row per process of the cgroup, A and B" \
	"$(printf '%s\n' "$pa" "$pb" | sort -n | paste -sd' ')" \
	"$(q "$C" "select group_concat(pid, ' ') from (select distinct pid from io_sample order by pid)")"
for x in "a $pa" "b $pb"; do
	set -- $x
	D=$TMP/$1
	assert_ge "$1: bytes written (/proc/$2/io wchar)" $((10485760 + 8192 + 100)) \
		"$(q "$C" "select sum(wchar) from io_sample where pid = $2")"
	assert_eq "$1: writes to out, per file, under its pid" "2560|0|10485760|$2" \
		"$(q "$C" "select sum(calls) || '|' || sum(errors) || '|' || sum(bytes) || '|' || group_concat(distinct pid) from io_file where path = '$D/out' and op = 'write'")"
	assert_eq "$1: reads of in" "256|1048576" \
		"$(q "$C" "select sum(calls) || '|' || sum(bytes) from io_file where path = '$D/in' and op = 'read' and pid = $2")"
	assert_eq "$1: denied, under its pid" "$D/secret|13|$2" \
		"$(q "$C" "select path || '|' || error || '|' || pid from io_event where kind = 'denied' and path = '$D/secret' and flags = 0")"
	assert_eq "$1: renamed, under its pid" "$D/old|$D/new|$2" \
		"$(q "$C" "select path || '|' || new_path || '|' || pid from io_event where kind = 'renamed' and path = '$D/old'")"
	assert_eq "$1: the renamed file under its new path" "2|8192" \
		"$(q "$C" "select sum(calls) || '|' || sum(bytes) from io_file where path = '$D/new' and op = 'write' and pid = $2")"
done
assert_eq "O (outside): no row" "0 0 0" \
	"$(q "$C" "select (select count(*) from io_sample where pid = $po) || ' ' || (select count(*) from io_file where pid = $po or path like '$TMP/o/%') || ' ' || (select count(*) from io_event where pid = $po or path like '$TMP/o/%')")"
# the report: the intervals sum the processes
"$ANA" report io --format json "$C" >"$TMP/r.json"
assert_eq "report: written bytes = the processes' sum" \
	"$(q "$C" "select sum(wchar) from io_sample")" "$(jget "$TMP/r.json" 'j["totals"]["written_bytes"]')"
assert_eq "report: one row per interval" "$(q "$C" "select count(distinct time_ns) from io_sample")" \
	"$(jget "$TMP/r.json" 'len(j["intervals"])')"
"$ANA" report io "$C" >"$TMP/r.txt"
head -1 "$TMP/r.txt" | grep -q "^io (whole capture): [0-9]* intervals, /proc/PID/io of 2 processes, summed per interval: each process's own I/O and, as the kernel counts it, that of the children it waited for\$" ||
	fail "report: the heading does not say the rows sum 2 processes"
assert_eq "report: A's and B's out" "$TMP/a/out $TMP/b/out" \
	"$(jget "$TMP/r.json" '" ".join(sorted(f["path"] for f in j["files"] if f["written_bytes"] == 10485760))')"

# --no-ebpf: a child's I/O, reaped by its parent, counted once
P=$TMP/proc.ptop
start "$P" --no-ebpf
sh -c 'echo $$ >"$1/cgroup.procs"; sh -c "sleep 0.6; head -c 1048576 /dev/zero >\"\$1\"; sleep 0.6" sh "$2"; sleep 0.6' \
	sh "$CG" "$TMP/reaped.out"
sleep 0.5
stop
assert_eq "proc: io probe" "active/proc" \
	"$(q "$P" "select state || '/' || source from probe where name = 'io'")"
assert_ge "proc: the shell and its child seen" 2 "$(q "$P" "select count(distinct pid) from io_sample")"
w=$(q "$P" "select sum(wchar) from io_sample")
assert_ge "proc: the MiB counted" 1048576 "$w"
assert_le "proc: the MiB counted once (not again in the parent that reaped it)" $((1048576 + 4096)) "$w"
