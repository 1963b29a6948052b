# A short program behind a wrapper script (as pyenv's shims, or `env` and `nice` chains)
# is named: the wrapper execs it after the first poll and it ends before the next
# interval (30 s here, so that a loaded host cannot make it last until then), so without the mappings' looks soon after an exec (collector_ops.refresh)
# its libraries and its own file were never read, and every frame was unnamed. And the
# heap's preload lane judges a script by its interpreter, not "not an ELF file".
. tests/e2e/lib.sh
need_ebpf
need_fixture cpu_split
printf '#!/bin/sh\nsleep 0.3\nexec "%s" "$@"\n' "$FIX/cpu_split" >"$TMP/wrap"
chmod +x "$TMP/wrap"

"$REC" --quiet --interval 30s -o "$TMP/run.ptop" -- "$TMP/wrap" 0.5 >/dev/null
"$ANA" report cpu --format json "$TMP/run.ptop" >"$TMP/cpu.json"
n=$("$ANA" sql --format csv "$TMP/run.ptop" \
	"select count(*) from mapping where path like '%/cpu_split' and event != 'gone'" | tail -1)
assert_ge "mappings of cpu_split, exec'd after the first poll" 1 "$n"
assert_eq "first by self" burn_hot "$(jget "$TMP/cpu.json" "j['profile']['top_self'][0]['function']")"
unnamed=$(jget "$TMP/cpu.json" "round(j['profile']['unnamed_pct'])")
assert_le "unnamed samples %" 10 "$unnamed"

# the heap: the wrapper's interpreter (/bin/sh, dynamic) reads LD_PRELOAD
"$REC" --quiet --interval 30s --enable heap -o "$TMP/heap.ptop" -- "$TMP/wrap" 0.3 >/dev/null
"$ANA" info --format json "$TMP/heap.ptop" >"$TMP/info.json"
lane=$(jget "$TMP/info.json" "[p['source'] for p in j['probes'] if p['name'] == 'heap'][0]")
assert_eq "heap lane for a script" preload "$lane"
