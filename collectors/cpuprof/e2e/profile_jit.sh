# JIT code is named from the perf map the recorder copied into the capture
# (the fixture deletes /tmp/perf-PID.map at exit): jit_perfmap spends ~80% in
# generated code named jit_hot_loop and ~20% in "~jit_cold_loop" (V8's tier
# marker, stripped), both shown as [jit] frames. 6 s at 99 Hz: ~600 samples.
. tests/e2e/lib.sh
need_ebpf
[ "$(uname -m)" = x86_64 ] || skip "the JIT fixture writes x86-64 code"
"$REC" --quiet -o "$TMP/run.ptop" -- "$FIX/jit_perfmap" 6 >/dev/null
n=$(q "$TMP/run.ptop" "select count(*) from perf_map where complete = 1")
assert_ge "perf maps in the capture" 1 "$n"
"$ANA" report cpu --format json "$TMP/run.ptop" > "$TMP/cpu.json"
assert_eq "first by self" jit_hot_loop "$(jget "$TMP/cpu.json" "j['profile']['top_self'][0]['function']")"
assert_eq "its module" "[jit]" "$(jget "$TMP/cpu.json" "j['profile']['top_self'][0]['module']")"
assert_eq "second by self" jit_cold_loop "$(jget "$TMP/cpu.json" "j['profile']['top_self'][1]['function']")"
hot=$(jget "$TMP/cpu.json" "round(j['profile']['top_self'][0]['self_pct'])")
assert_ge "jit_hot_loop self %" 70 "$hot"
assert_le "jit_hot_loop self %" 90 "$hot"
"$ANA" export --format folded "$TMP/run.ptop" | has ';jit_hot_loop [0-9]*$' ||
	fail "no stack ending in jit_hot_loop in the folded export"
echo "ok: folded export names jit_hot_loop"
