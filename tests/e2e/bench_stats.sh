#!/usr/bin/env bash
# bench_stats.sh — what the benches compute from their runs, on figures given here (no
# timing, nothing measured):
#  - bench/lib.sh's bench_caps lists every collector of ptop-record --caps but the one
#    named, including those listed after a collector's "lane" lines (a bench's "collector
#    alone" runs disable the others with it);
#  - bench/overhead_issue23.sh's tables (REPORT=FILE): the median of per-round ratios,
#    its order-statistic 95% interval (15 rounds: the 4th and 12th of the sorted ratios,
#    coverage 96.5%), the verdict against +/-1.8% (by the BPF time where the A/B interval
#    is wider, with and without the background), and the BPF run time per operation and
#    as a share of the workload's CPU time, with the idle background subtracted.
. tests/e2e/lib.sh

# bench_caps: every collector but the one named
B_=$B
(
	B=$B_
	REC=$B/ptop-record
	. bench/lib.sh
	want=$("$REC" --caps | awk '/^collectors/ { on = 1; next } on && /^  [a-z]/ { print $1; next }
		on && /^    / { next } on { exit }' | grep -vx threads | paste -sd, -)
	case ,$want, in *,signals,*) ;; *) fail "--caps lists no signals collector: $want" ;; esac
	bench_caps threads || true
	assert_eq "bench_caps threads: the others" "$want" "$others"
) || exit 1

# REPORT: 15 rounds. pipe: "none" 1000 ns/op each round; "threads" 1000 * (1 + i/100) in
# round i (ratios 1.01 ... 1.15: median 1.08, interval [1.04, 1.12]); "signals" 1000 *
# (1 + (i - 8)/1000) (ratios 0.993 ... 1.007: inside +/-1.8%); "floor-threads" 1000 (so
# threads vs its floor is threads vs none).
raw=$TMP/raw
for i in $(seq 1 15); do
	echo "ab $i pipe none 1000 100000"
	echo "ab $i pipe threads $((1000 + 10 * i)) 100000"
	echo "ab $i pipe signals $(awk -v i="$i" 'BEGIN { printf "%.1f", 1000 * (1 + (i - 8) / 1000) }') 100000"
	echo "ab $i pipe floor-threads 1000 100000"
	echo "ab $i pipe locks $((900 + 200 * (i % 2))) 100000"
done >"$raw"
# BPF statistics, one run of threads: 200,000 ops in 1e9 ns of CPU; its program ran
# 300,000 times for 60 ms in the 2 s window, and 10,000 times for 1 ms in the 1 s idle
# window before (background 2 ms over the window): 300 ns/op, 6.000% of the CPU, bg-sub
# 5.800%, 200 ns per run, 1.50 runs per op
echo "st 1 pipe threads 200000 1000000000 2000000000 1000000000 7 thr_switch 300000 60000000 10000 1000000" >>"$raw"
# locks: A/B ratios 0.9 and 1.1 (an interval wider than +/-1.8%); its programs 30 ms in
# the window (3% of the CPU), but 20 ms a second in the idle window before: after the
# background, within
echo "st 1 pipe locks 200000 1000000000 2000000000 1000000000 8 lk_enter 100000 30000000 100000 20000000" >>"$raw"
out=$(REPORT=$raw CONFIGS="none threads signals locks floor-threads" bash bench/overhead_issue23.sh)
echo "$out"
row() { echo "$out" | awk -v c="$1" '$1 == c' | tr -s ' '; }
has -F "threads 1080.0 +8.0% [+4.0%, +12.0%] +8.0% [+4.0%, +12.0%] 300.0 200.0 6.000% 5.800% 1.50 A/B above: costs more" \
	<<<"$(row threads)" || fail "threads row: $(row threads)"
has -F "signals 1000.0 +0.0% [-0.4%, +0.4%]" <<<"$(row signals)" || fail "signals row: $(row signals)"
has -F "A/B within" <<<"$(row signals)" || fail "signals not within +/-1.8%: $(row signals)"
has -F "thr_switch 200ns/run x 1.50/op" <<<"$out" || fail "no per-program line for thr_switch"
has -F "3.000% -1.000% 0.50 A/B wider than +/-1.8%; BPF time > 1.8% of CPU with the events of other processes, <= after the background" \
	<<<"$(row locks)" || fail "locks row: $(row locks)"
has -F "untraced 1000.0 CPU ns/op" <<<"$out" || fail "no untraced line"

# fewer than 6 rounds: no interval is claimed
grep "^ab [1-5] " "$raw" >"$TMP/raw5"
out=$(REPORT=$TMP/raw5 CONFIGS="none threads" bash bench/overhead_issue23.sh)
has -F "(n=5)" <<<"$(row threads)" || fail "5 rounds: $(row threads)"
has -F "[" <<<"$(row threads)" && fail "5 rounds gave an interval: $(row threads)"
echo "ok"
