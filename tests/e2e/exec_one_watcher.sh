# One watcher of execs per run (issue 23): the exec watch that heap and goalloc follow
# (record/exec_watch.h) has no program of its own; lifecycle's lc_exec is the run's only
# program on sched_process_exec, whether lifecycle is enabled or not. While a recorder
# runs with --enable heap (which follows execs, holding each new program), its BPF links
# on that tracepoint are counted through /proc/PID/fdinfo (tp_name):
# exactly one on sched_process_exec, with lifecycle enabled and with --disable lifecycle.
# Then, with lifecycle disabled, heap still follows a chain of execs: every exec is
# followed and the last program's figures are exactly those it has recorded alone; the
# probe set says which program follows the execs, and lifecycle recorded no event.
. tests/e2e/lib.sh
need_ebpf
need_fixture heap_kinds

# exec_links PID: how many of PID's BPF links are on the sched_process_exec tracepoint (a
# tp_btf or raw_tp link's fdinfo names its tracepoint, on 6.1 as on 6.18)
exec_links() {
	local fd n=0
	for fd in /proc/$1/fd/*; do
		[ "$(readlink "$fd" 2>/dev/null)" = "anon_inode:bpf_link" ] || continue
		grep -qx "tp_name:[[:space:]]*sched_process_exec" "/proc/$1/fdinfo/${fd##*/}" \
			2>/dev/null && n=$((n + 1))
	done
	echo $n
}

# count OPTS...: record a command with OPTS that waits for the count, then execs (heap
# follows that exec); count the recorder's exec links while the command waits (the watch
# is open and the launch followed by then)
count() {
	rm -f "$TMP/go" "$TMP/counted"
	"$REC" --quiet -o "$TMP/count.ptop" --force "$@" -- sh -c "touch '$TMP/go'
		while [ ! -e '$TMP/counted' ]; do sleep 0.05; done; exec sleep 0.1" \
		>/dev/null 2>"$TMP/count.err" &
	local rec=$!
	wait_until "the command to start" test -e "$TMP/go"
	exec_links $rec
	touch "$TMP/counted"
	wait $rec || { cat "$TMP/count.err" >&2; fail "the recorder failed: $*"; }
}

assert_eq "lifecycle and heap: programs on sched_process_exec" 1 "$(count --enable heap)"
assert_eq "heap, lifecycle disabled: programs on sched_process_exec" 1 \
	"$(count --enable heap --disable lifecycle)"
assert_eq "no --enable heap (the mappings refresh after execs): one program" 1 "$(count)"

# heap follows an exec with lifecycle disabled
cat >"$TMP/chain.sh" <<'SH'
#!/bin/sh
[ "$1" -gt 0 ] && exec "$0" $(($1 - 1)) "$2"
exec "$2"
SH
chmod +x "$TMP/chain.sh"
exe=$(readlink -f "$FIX/heap_kinds")
fn() {
	"$ANA" report heap --by count --top 100 --format json "$1" >"$TMP/fn.json"
	jget "$TMP/fn.json" "sum(f['$3'] or 0 for f in j['sites'] if f['func'] == '$2')"
}
"$REC" --quiet --heap-sample-bytes 0 --heap-lane uprobe --enable heap -o "$TMP/alone.ptop" \
	-- "$exe" >/dev/null
"$REC" --quiet --verbose --heap-sample-bytes 0 --heap-lane uprobe --enable heap \
	--disable lifecycle -o "$TMP/chain.ptop" -- "$TMP/chain.sh" 2 "$exe" >/dev/null \
	2>"$TMP/chain.err"
A=$TMP/alone.ptop C=$TMP/chain.ptop
assert_eq "lifecycle disabled: three execs followed" 3 "$(grep -c "the target exec'd" "$TMP/chain.err")"
assert_eq "lifecycle disabled in the probe set" disabled \
	"$(q "$C" "select state from probe where name = 'lifecycle'")"
assert_eq "heap active from eBPF after the execs" "active|ebpf" \
	"$(q "$C" "select state || '|' || source from probe_change where name = 'heap' order by rowid desc limit 1")"
q "$C" "select detail from probe_change where name = 'heap' order by rowid desc limit 1" |
	has "execs followed at once (sched_process_exec, lifecycle's lc_exec; held" ||
	fail "heap's probe does not say which program follows execs: $(q "$C" "select detail from probe where name = 'heap'")"
assert_eq "no lifecycle event recorded" 0 \
	"$("$ANA" export --format jsonl "$C" | grep -c '"category":"lifecycle"\|LifecycleEvent' || true)"
for f in grow:alloc_count zeroed:alloc_count aligned:alloc_count aligned:live_bytes; do
	assert_eq "heap_kinds ${f%%:*} ${f#*:}: as recorded alone" "$(fn "$A" "${f%%:*}" "${f#*:}")" \
		"$(fn "$C" "${f%%:*}" "${f#*:}")"
done
