# Ground truth for per-process memory: tests/fixtures/mem_compose touches 64 MiB of
# private anonymous memory, maps a 32 MiB file and reads all of it, and shares 16 MiB
# of MAP_SHARED anonymous memory with a forked child (both touch it). Recorded with
# --pid (the /proc lanes only), the capture must show its USS growing by at least
# 64 MiB, half of the shared 16 MiB in its PSS (the VMA rows of that mapping),
# `report vma` must show the file by path with 32 MiB RSS, and RSS, PSS and USS
# must agree within 2% with smem(8) run on the same process while it holds still.
#
# Timing: the fixture waits for SIGUSR1 before it allocates, and is only sent it
# once the capture holds two memory samples (the baseline); after it says "ready"
# it holds still until SIGTERM, and smem runs once the capture holds two more
# samples taken after that. Every wait is bounded (30 s) and fails with a reason.
. tests/e2e/lib.sh
command -v smem >/dev/null || skip "smem is not installed (Debian package smem; mk/deps.sh installs it)"

MiB=$((1 << 20))
samples() { q "$TMP/run.ptop" "select count(*) from memory_sample" 2>/dev/null || echo 0; }
has_line() { grep -q "^$1" "$TMP/fix.out"; }
at_least() { [ "$(samples)" -ge "$1" ]; }

"$FIX/mem_compose" "$TMP/data.bin" >"$TMP/fix.out" &
FPID=$!
kill_at_exit "$FPID"
wait_until "the fixture to start" has_line waiting
"$REC" --quiet --no-ebpf --pid "$FPID" --interval 100ms --vma-interval 100ms \
	--flush-interval 100ms -o "$TMP/run.ptop" &
RPID=$!
kill_at_exit "$RPID"
wait_until "two baseline memory samples" at_least 2
kill -USR1 "$FPID"
wait_until "the fixture to allocate" has_line ready
n=$(samples)
wait_until "two samples after the fixture is ready" at_least $((n + 3))

# smem on the held state, then stop the recorder: its final sample is that state too
smem -c "pid uss pss rss" -H -P mem_compose >"$TMP/smem.txt"
kill -INT "$RPID"
wait "$RPID" || fail "ptop-record exited $?"
cat "$TMP/smem.txt"
read -r s_uss s_pss s_rss <<<"$(awk -v p="$FPID" '$1 == p { print $2 * 1024, $3 * 1024, $4 * 1024 }' "$TMP/smem.txt")"
[ -n "$s_pss" ] || fail "smem did not list pid $FPID"
"$ANA" report mem "$TMP/run.ptop"
"$ANA" report vma "$TMP/run.ptop" | tee "$TMP/vma.txt"

# USS grew by the 64 MiB of private anonymous memory (and the 32 MiB file read)
uss_growth=$(q "$TMP/run.ptop" "select (select uss from memory_sample where uss is not null
	order by time_ns desc limit 1) - (select uss from memory_sample where uss is not null
	order by time_ns limit 1) as growth")
assert_ge "USS growth (bytes)" $((64 * MiB)) "$uss_growth"

# the shared 16 MiB: all of it resident, half of it in the parent's PSS
last_snap="(select max(snapshot_id) from vma_snapshot)"
shared=$(q "$TMP/run.ptop" "select rss || ' ' || pss as f from vma where snapshot_id = $last_snap
	and perms like '___s' and size = $((16 * MiB))")
read -r sh_rss sh_pss <<<"$shared"
assert_eq "shared mapping RSS" $((16 * MiB)) "$sh_rss"
assert_ge "shared mapping PSS" $((8 * MiB * 98 / 100)) "$sh_pss"
assert_le "shared mapping PSS" $((8 * MiB * 102 / 100)) "$sh_pss"

# report vma: the file by path, 32 MiB resident; --growth: it appeared, [anon] grew
"$ANA" report vma --format json "$TMP/run.ptop" >"$TMP/vma.json"
assert_eq "file mapping RSS (report vma json)" $((32 * MiB)) \
	"$(jget "$TMP/vma.json" "[g['rss'] for g in j['groups'] if g['mapping'] == '$TMP/data.bin'][0]")"
grep -Eq "^$TMP/data.bin +1 +32.0 MiB +32.0 MiB " "$TMP/vma.txt" ||
	fail "report vma does not show $TMP/data.bin with 32 MiB RSS"
assert_eq "final snapshot reported" True "$(jget "$TMP/vma.json" "j['snapshot']['final']")"
"$ANA" report vma --growth --format json "$TMP/run.ptop" >"$TMP/growth.json"
assert_eq "file mapping appeared" appeared \
	"$(jget "$TMP/growth.json" "[c['change'] for c in j['changes'] if c['mapping'] == '$TMP/data.bin'][0]")"
# (the 64 MiB, less what the other anonymous mappings may have lost: 1 MiB at most)
assert_ge "[anon] PSS growth" $((63 * MiB)) \
	"$(jget "$TMP/growth.json" "[c['pss_delta'] for c in j['changes'] if c['mapping'] == '[anon]'][0]")"
"$ANA" report vma --mapping "$TMP/data.bin" "$TMP/run.ptop" >"$TMP/map.txt"
grep -Eq '^0x[0-9a-f]+ +0x[0-9a-f]+ +r--p +0x0 +32.0 MiB +32.0 MiB ' "$TMP/map.txt" ||
	fail "report vma --mapping does not list the file's one VMA: $(cat "$TMP/map.txt")"
# a question the capture cannot answer: exit 2, the reason on stderr, nothing on stdout
# (never the head of a JSON object). The window ends halfway between the first two VMA
# snapshots, so it holds exactly one.
one=$(q "$TMP/run.ptop" "select printf('%.6f', ((select time_ns from vma_snapshot order by time_ns
	limit 1) + (select time_ns from vma_snapshot order by time_ns limit 1 offset 1)) / 2e9
	- start_monotonic_ns / 1e9) as w from capture")
for fmt in json text csv; do
	expect_exit 2 "$ANA" report vma --mapping "no such mapping" --format $fmt "$TMP/run.ptop"
	[ -s "$TMP/out" ] && fail "report vma --mapping (none such) --format $fmt wrote to stdout: $(head -c 200 "$TMP/out")"
	has "no mapping 'no such mapping'" <"$TMP/err" || fail "no reason on stderr: $(cat "$TMP/err")"
	expect_exit 2 "$ANA" report vma --growth --window "..$one" --format $fmt "$TMP/run.ptop"
	[ -s "$TMP/out" ] && fail "report vma --growth (one snapshot) --format $fmt wrote to stdout: $(head -c 200 "$TMP/out")"
	has "needs two VMA snapshots" <"$TMP/err" || fail "no reason on stderr: $(cat "$TMP/err")"
done

# the last memory sample and smem, on the same held state: within 2%
read -r r_uss r_pss r_rss <<<"$(q "$TMP/run.ptop" "select uss || ' ' || pss || ' ' || rss as f
	from memory_sample where rss is not null order by time_ns desc limit 1")"
within2() { # WHAT OURS SMEM
	local d=$(($2 > $3 ? $2 - $3 : $3 - $2))
	[ $((d * 100)) -le $(($3 * 2)) ] || fail "$1: ptop $2, smem $3: more than 2% apart"
	echo "ok: $1: ptop $2, smem $3 (within 2%)"
}
within2 RSS "$r_rss" "$s_rss"
within2 PSS "$r_pss" "$s_pss"
within2 USS "$r_uss" "$s_uss"

# the budget: default 150 ms, nothing skipped on a process this small; coverage says so
"$ANA" report mem --format json "$TMP/run.ptop" >"$TMP/mem.json"
assert_eq "smaps budget" 150000000 "$(jget "$TMP/mem.json" "j['coverage']['budget_ns']")"
assert_eq "rollups skipped" 0 "$(jget "$TMP/mem.json" "j['coverage']['rollup_skipped']")"
assert_eq "walks skipped" 0 "$(q "$TMP/run.ptop" "select sum(skipped_walks) from vma_snapshot")"

# a budget far too small (1 us per 100 ms): the first reads run on the full budget and
# put it in debt, the later ones are skipped and marked (no value in their place), the
# final ones are taken regardless
"$REC" --quiet --no-ebpf --pid "$FPID" --interval 100ms --vma-interval 100ms \
	--smaps-budget 1us --duration 1s -o "$TMP/tight.ptop"
assert_ge "rollups skipped (1 us budget)" 5 \
	"$(q "$TMP/tight.ptop" "select count(*) from memory_sample where rollup_skipped = 1")"
assert_eq "skipped rollups with a value" 0 \
	"$(q "$TMP/tight.ptop" "select count(*) from memory_sample where rollup_skipped = 1 and (rss is not null or pss is not null or uss is not null)")"
assert_eq "skipped samples still carry statm" 0 \
	"$(q "$TMP/tight.ptop" "select count(*) from memory_sample where rollup_skipped = 1 and statm_rss is null")"
assert_ge "the final sample read smaps_rollup (USS)" $((96 * MiB)) \
	"$(q "$TMP/tight.ptop" "select uss from memory_sample order by time_ns desc limit 1")"
assert_eq "VMA snapshots: the first and the final" "0 1" \
	"$(q "$TMP/tight.ptop" "select group_concat(final, ' ') from (select final from vma_snapshot order by snapshot_id)")"
assert_ge "walks skipped" 5 "$(q "$TMP/tight.ptop" "select skipped_walks from vma_snapshot where final = 1")"
"$ANA" report mem "$TMP/tight.ptop" >"$TMP/tight.txt"
head -4 "$TMP/tight.txt"
grep -Eq '^smaps coverage: [0-9]+ of [0-9]+ samples read smaps_rollup, [0-9]+ skipped by the smaps budget \(1(\.00)? us per interval\)' "$TMP/tight.txt" ||
	fail "report mem does not show the coverage under the 1 us budget"
