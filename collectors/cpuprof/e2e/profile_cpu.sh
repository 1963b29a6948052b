# The CPU profile names where the time went: cpu_split spends ~80% of its CPU
# time in burn_hot and ~20% in burn_cold, so `report cpu` ranks them first and
# second by self samples, with shares within 10 points of 80/20. Exports: the
# folded stacks hold the same counts, and the pprof file decodes (with
# `go tool pprof` when it is installed).
# At the default rate (99 Hz): cpu_split's slices are of random length, so
# the sampling cannot alias with them; 6 s give ~600 samples, and a share of
# 80% is then known to about +-1.7 points (one standard deviation).
. tests/e2e/lib.sh
need_ebpf
"$REC" --quiet -o "$TMP/run.ptop" -- "$FIX/cpu_split" 6 >/dev/null
"$ANA" report cpu --format json "$TMP/run.ptop" > "$TMP/cpu.json"
assert_eq "profile collected" True "$(jget "$TMP/cpu.json" "j['profile']['collected']")"
samples=$(jget "$TMP/cpu.json" "j['profile']['samples']")
assert_ge "profile samples (6 s at 99 Hz)" 450 "$samples"
assert_eq "first by self" burn_hot "$(jget "$TMP/cpu.json" "j['profile']['top_self'][0]['function']")"
assert_eq "second by self" burn_cold "$(jget "$TMP/cpu.json" "j['profile']['top_self'][1]['function']")"
hot=$(jget "$TMP/cpu.json" "round(j['profile']['top_self'][0]['self_pct'])")
cold=$(jget "$TMP/cpu.json" "round(j['profile']['top_self'][1]['self_pct'])")
assert_ge "burn_hot self %" 70 "$hot"
assert_le "burn_hot self %" 90 "$hot"
assert_ge "burn_cold self %" 10 "$cold"
assert_le "burn_cold self %" 30 "$cold"
assert_eq "burn_hot file" tests/fixtures/cpu_split.c \
	"$(jget "$TMP/cpu.json" "j['profile']['top_self'][0]['file']")"
req=$(jget "$TMP/cpu.json" "j['profile']['requested_hz']")
assert_eq "requested rate (the default)" 99 "$req"

# folded: the burn_hot leaf lines add up to its self samples
"$ANA" export --format folded "$TMP/run.ptop" > "$TMP/folded"
hot_self=$(jget "$TMP/cpu.json" "j['profile']['top_self'][0]['self']")
folded_hot=$(awk '{n=$NF; $NF=""; sub(/ $/, ""); k=split($0, f, ";"); if (f[k] == "burn_hot") s += n}
	END {print s + 0}' "$TMP/folded")
assert_eq "folded burn_hot leaf samples" "$hot_self" "$folded_hot"
# (a frame-pointer walk ends at libc's __libc_start_call_main; with stack copies, the
# default on a libc without frame pointers, the stack goes on to _start)
grep -Eq '^(_start;__libc_start_main[^;]*;)?__libc_start_call_main;main;burn_hot ' "$TMP/folded" ||
	fail "no main;burn_hot stack in folded output"

"$ANA" export --format pprof -o "$TMP/cpu.pb.gz" "$TMP/run.ptop"
gzip -t "$TMP/cpu.pb.gz" || fail "the pprof export is not gzip"
if command -v go >/dev/null; then
	go tool pprof -top "$TMP/cpu.pb.gz" > "$TMP/pprof.txt" 2>&1 || { cat "$TMP/pprof.txt"; fail "go tool pprof refused the export"; }
	first=$(awk '$NF ~ /^burn_/ {print $NF; exit}' "$TMP/pprof.txt")
	assert_eq "go tool pprof: first burn_ function" burn_hot "$first"
else
	echo "note: go is not installed: the pprof file was checked as gzip only"
fi
