# The CPU profile of Debian's own sqlite3 (its CLI and libsqlite3, built without frame
# pointers), beside `perf record --call-graph dwarf` on the same process at the same
# time: a recursive query that counts to 40 million, recorded by --pid at 999 Hz with
# the default --user-stacks auto and by perf while it uses the same 3 s of CPU
# (beside_perf.bash). perf_compare.py checks that ptop's stacks are whole (95% of
# samples hold sqlite3_step and libc's __libc_start_call_main, the query's entry and
# the program's start) and that the functions perf names have the same inclusive and
# self shares within 10 and 8 points.
# Skips, saying why, without /usr/bin/sqlite3; without perf, only the first check runs.
. tests/e2e/lib.sh
. collectors/cpuprof/e2e/beside_perf.bash
need_ebpf
SQ=/usr/bin/sqlite3
[ -x "$SQ" ] || skip "$SQ is not installed (Debian's sqlite3: apt-get install sqlite3)"
grep -q eh_frame_hdr <<<"$(readelf -S "$(readlink -f "$SQ")" 2>/dev/null)" ||
	skip "$SQ is not an ELF program with .eh_frame_hdr"

"$SQ" :memory: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c
	LIMIT 400000000) SELECT sum(x) FROM c;" >/dev/null &
sqpid=$!
kill_at_exit "$sqpid"
sleep 0.3 # past its start: the query runs from here until it is killed
beside_perf "$sqpid" "$TMP/sq.ptop" 3
kill "$sqpid" 2>/dev/null
has "user stacks dwarf" <<<"$(q "$TMP/sq.ptop" "select detail from probe where name = 'cpuprof'")" ||
	fail "auto did not choose stack copies for sqlite3"
"$ANA" export --format folded "$TMP/sq.ptop" >"$TMP/sq.folded"
python3 collectors/cpuprof/e2e/perf_compare.py "$TMP/sq.folded" \
	"$([ $perf_ok = 1 ] && echo "$TMP/perf.txt")" sqlite3_step __libc_start_call_main
