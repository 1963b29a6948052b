#!/usr/bin/env bash
# overhead_issue23.sh — what the threads, locks, signals and lifecycle collectors cost the
# target, alone and all four together, measured two ways in one run (issue 23's cost):
#
# 1. A/B CPU time, interleaved: RUNS rounds (default 15); in each, for each workload, every
#    configuration once, in a new random order each round. Each run's figure is the
#    workload's own CPU time per operation (user+system, getrusage). A configuration is
#    compared with "none" (and a collector with its floor) by the ratio of the two runs of
#    the same round — drift of the machine between rounds cancels — and the table gives
#    the median of these per-round ratios with a distribution-free 95% interval for it
#    (order statistics of the ratios: the binomial interval of a median; its coverage is
#    printed, at least 95%; none below 6 rounds).
# 2. The BPF programs' own run time, from the kernel: STATS_RUNS (default 3) more runs of
#    each traced configuration with the kernel's BPF run-time statistics on. They are
#    turned on only for this phase by bench/bpf_stats enable (the BPF_ENABLE_STATS command:
#    a file descriptor, statistics stop when it closes; the sysctl is never written), and
#    never during phase 1, whose runs they would slow. Each program of the tracer (found
#    from /proc/PID/fdinfo and held open by bpf_stats hold, read through bpf_prog_info)
#    gives run_time_ns and run_cnt over the workload's run; that is, for every event of
#    the machine, the target's and the other processes' (the programs filter by pid
#    inside): an upper bound on the target's share. An idle window of IDLE seconds (default 1) just before the workload
#    starts measures the background the other processes cause; "bg-sub" subtracts it.
#    The no-op floors' programs are measured the same way.
#
# Workloads (WORKLOADS, default "pipe100k pipe1m futex exec"):
#   pipe100k  workload_switch: two threads on one CPU pass a byte through two pipes,
#             paced to 100,000 switches/s
#   pipe1m    the same, paced to 1,000,000 switches/s (as fast as it can if it cannot)
#   futex     workload_switch -m futex: the two threads pass the turn through a futex word
#             (a FUTEX_WAKE and a sleeping FUTEX_WAIT per switch), 100,000 switches/s
#   exec      workload_proc -k exec: fork, exec /bin/true, wait, as fast as it can
#             (its children's CPU counted)
#   signal    (not in the default) workload_proc -k signal: raise(SIGUSR1), handled,
#             100,000/s: the signals collector's worst case
# Configurations (CONFIGS, default all):
#   none                  no tracer
#   threads locks signals lifecycle
#                         ptop-record --pid with that collector alone (--enable for the
#                         ones off by default), its default options
#   all                   the four together, nothing else
#   floor-NAME            bench_collector_floor NAME: no-op programs on NAME's tracepoints
#                         (floor-all: on all four's, as many programs per tracepoint)
# SECS (default 1): seconds of work per run at the paced rate (exec: 300*SECS execs).
# RUNS=0 measures the BPF statistics alone; STATS_RUNS=0 the A/B alone.
# RAW=FILE keeps every run's figures; REPORT=FILE prints the tables of a kept RAW file
# without measuring. Needs root. Build folder from $PTOP_BUILD (default build).
#
#   make build/bench/workload_switch build/bench/workload_proc build/bench/bpf_stats \
#        build/bench/bench_collector_floor programs &&
#   PTOP_BUILD=build RUNS=15 bash bench/overhead_issue23.sh        # as root
set -uo pipefail
B=${PTOP_BUILD:-build}
REC=$B/ptop-record
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-15}
STATS_RUNS=${STATS_RUNS:-3}
SECS=${SECS:-1}
IDLE=${IDLE:-1}
WORKLOADS=${WORKLOADS:-"pipe100k pipe1m futex exec"}
CONFIGS=${CONFIGS:-"none threads locks signals lifecycle all floor-threads floor-locks floor-signals floor-lifecycle floor-all"}
SW=$B/bench/workload_switch
PW=$B/bench/workload_proc
FLOOR=$B/bench/bench_collector_floor
STATS=$B/bench/bpf_stats
FOUR="threads locks signals lifecycle"

# report RAW: the tables, from the lines of a RAW file:
#   ab ROUND WL CFG NS_PER_OP OPS_PER_S
#   st RUN WL CFG OPS CPU_NS WINDOW_NS IDLE_NS PROG_ID NAME RUNS_WINDOW NS_WINDOW RUNS_IDLE NS_IDLE
#   info WORDS...: printed as they are
report() {
	grep '^info ' "$1" | cut -d' ' -f2-
	awk -v runs_wanted="$RUNS" -v order="$CONFIGS" '
	function sortn(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) {
			t = a[i]
			for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
			a[j + 1] = t
		}
	}
	function med(a, n) {
		sortn(a, n)
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	# the order-statistic interval of the median of a[1..n] (sorted by med): sets lo, hi
	# and cov (its coverage); lo = "" below 6 values
	function ci(a, n,   k, c, p, j, cdf) {
		lo = ""; hi = ""; cov = 0
		# cdf[j] = P(Binomial(n, 1/2) <= j)
		c = 1; cdf[-1] = 0
		for (j = 0; j <= n; j++) {
			p = c / (2 ^ n)
			cdf[j] = cdf[j - 1] + p
			c = c * (n - j) / (j + 1)
		}
		for (k = int(n / 2); k >= 1; k--)
			if (1 - 2 * cdf[k - 1] >= 0.95) {
				lo = a[k]; hi = a[n - k + 1]; cov = 1 - 2 * cdf[k - 1]
				return
			}
	}
	function pct(r) { return sprintf("%+.1f%%", (r - 1) * 100) }
	# "MED [LO, HI]" as percentages of the ratios vs BASE, with the verdict word in v
	function ab(wl, cfg, base,   r, n, x, y, rr) {
		n = 0
		for (r = 1; r <= nround; r++) {
			x = val[wl, cfg, r]; y = val[wl, base, r]
			if (x == "" || y == "" || y <= 0) continue
			rr[++n] = x / y
		}
		abn = n
		if (!n) { v = "-"; return "n/a" }
		m = med(rr, n); ci(rr, n)
		if (lo == "") { v = "few rounds"; return pct(m) " (n=" n ")" }
		v = (lo >= 0.982 && hi <= 1.018) ? "within" : (lo > 1.018) ? "above" : \
		    (hi < 0.982) ? "below" : "wider"
		return sprintf("%s [%s, %s]", pct(m), pct(lo), pct(hi))
	}
	$1 == "ab" {
		val[$3, $4, $2] = $5; rate[$3, $4, $2] = $6
		if ($2 > nround) nround = $2
		if (!($3 in seenw)) { seenw[$3] = 1; wls[++nw] = $3 }
		if (!(($3, $4) in seenc)) { seenc[$3, $4] = 1; cfgs[$3, ++nc[$3]] = $4 }
	}
	$1 == "st" {
		k = $3 SUBSEP $4 SUBSEP $2
		if (!(k in st_seen)) {
			st_seen[k] = 1; st_n[$3, $4]++
			ops[k] = $5; cpu[k] = $6; win[k] = $7; idle[k] = $8
		}
		if ($9 != "-") {
			tns[k] += $12; tcnt[k] += $11; ins[k] += $14
			# by name: the programs of one name in a run summed (floor-all has two
			# noop_fork), the ids differ from run to run
			pk = $3 SUBSEP $4 SUBSEP $10
			if (!(pk in pseen)) { pseen[pk] = 1; plist[$3, $4] = plist[$3, $4] " " $10 }
			prun[pk, $2] += $11; pns[pk, $2] += $12
		}
		if (!(($3, $4) in seenc)) { seenc[$3, $4] = 1; cfgs[$3, ++nc[$3]] = $4 }
		if (!($3 in seenw)) { seenw[$3] = 1; wls[++nw] = $3 }
	}
	END {
		no = split(order, ord, " ")
		for (w = 1; w <= nw; w++) {
			wl = wls[w]
			# the rows in the order of CONFIGS, then any other the file has
			n = 0
			for (i = 1; i <= no; i++) if ((wl, ord[i]) in seenc) { row[++n] = ord[i]; inord[ord[i]] = 1 }
			for (c = 1; c <= nc[wl]; c++) if (!(cfgs[wl, c] in inord)) row[++n] = cfgs[wl, c]
			for (c = 1; c <= n; c++) cfgs[wl, c] = row[c]
			n = 0
			for (r = 1; r <= nround; r++)
				if (val[wl, "none", r] != "") { b[++n] = val[wl, "none", r]; rt[n] = rate[wl, "none", r] }
			bmed = n ? med(b, n) : 0; rmed = n ? med(rt, n) : 0
			spread = 0
			for (i = 1; i <= n; i++) { d = b[i] / bmed - 1; if (d < 0) d = -d; if (d > spread) spread = d }
			printf "\n%s: untraced %.1f CPU ns/op, %.0f ops/s reached (medians of %d runs; they lie within +/-%.1f%% of their median)\n", \
				wl, bmed, rmed, n, spread * 100
			printf "%-16s %10s %26s %26s %10s %9s %9s %9s %9s  %s\n", "configuration", "CPU ns/op", \
				"vs none: median [95% CI]", "vs its floor [95% CI]", "BPF ns/op", "ns/run", \
				"BPF/CPU", "bg-sub", "runs/op", "verdict (+/-1.8%)"
			for (c = 1; c <= nc[wl]; c++) {
				cfg = cfgs[wl, c]
				if (cfg == "none") continue
				n = 0
				for (r = 1; r <= nround; r++) if (val[wl, cfg, r] != "") b[++n] = val[wl, cfg, r]
				cmed = n ? med(b, n) : 0
				vn = ab(wl, cfg, "none"); vv = v; cov1 = cov; n1 = abn
				vf = (cfg ~ /^floor-/) ? "-" : ab(wl, cfg, "floor-" cfg)
				# BPF statistics: medians over the stats runs
				ns = 0
				for (s = 1; s <= 100; s++) {
					k = wl SUBSEP cfg SUBSEP s
					if (!(k in st_seen) || ops[k] <= 0 || cpu[k] <= 0) continue
					ns++
					perop[ns] = tns[k] / ops[k]
					share[ns] = tns[k] / cpu[k]
					perrun[ns] = tcnt[k] ? tns[k] / tcnt[k] : 0
					runsop[ns] = tcnt[k] / ops[k]
					bgs[ns] = (tns[k] - (idle[k] > 0 ? ins[k] * win[k] / idle[k] : 0)) / cpu[k]
				}
				if (ns)
					sp = sprintf("%10.1f %9.1f %8.3f%% %8.3f%% %9.2f", med(perop, ns), \
						med(perrun, ns), med(share, ns) * 100, med(bgs, ns) * 100, med(runsop, ns))
				else
					sp = sprintf("%10s %9s %9s %9s %9s", "n/a", "-", "-", "-", "-")
				shr = ns ? med(share, ns) : -1
				bgm = ns ? med(bgs, ns) : -1
				verdict = (vv == "within") ? "A/B within" : (vv == "above") ? "A/B above: costs more" : \
					(vv == "below") ? "A/B below (noise)" : "A/B wider than +/-1.8%"
				if (vv != "within" && vv != "above" && ns)
					verdict = verdict ((shr <= 0.018) ? "; BPF time <= 1.8% of CPU" : \
						(bgm <= 0.018) ? "; BPF time > 1.8% of CPU with the events of other processes, <= after the background" : \
						"; BPF time > 1.8% of CPU")
				printf "%-16s %10.1f %26s %26s %s  %s\n", cfg, cmed, vn, vf, sp, verdict
			}
			# per program: ns per run and runs per operation (medians over the stats runs)
			for (c = 1; c <= nc[wl]; c++) {
				cfg = cfgs[wl, c]
				if (plist[wl, cfg] == "") continue
				line = ""
				np = split(plist[wl, cfg], pp, " ")
				for (i = 1; i <= np; i++) {
					q[2] = pp[i]
					pk = wl SUBSEP cfg SUBSEP q[2]
					ns = 0
					for (s = 1; s <= 100; s++) {
						k = wl SUBSEP cfg SUBSEP s
						if (!((pk, s) in prun) || ops[k] <= 0) continue
						ns++
						a1[ns] = prun[pk, s] ? pns[pk, s] / prun[pk, s] : -1
						a2[ns] = prun[pk, s] / ops[k]
					}
					if (!ns) continue
					m1 = med(a1, ns)
					line = line sprintf(" %s %s/run x %.2f/op;", q[2], \
						m1 < 0 ? "-" : sprintf("%.0fns", m1), med(a2, ns))
				}
				printf "  %-14s%s\n", cfg ":", line
			}
		}
		if (nround < runs_wanted)
			printf "\n(%d rounds of %d)\n", nround, runs_wanted
	}' "$1"
}

if [ -n "${REPORT:-}" ]; then
	report "$REPORT"
	exit 0
fi

bench_pin
bench_need_root overhead_issue23 "BPF programs are attached and BPF statistics turned on"
bench_need_exe overhead_issue23 "$SW" "$PW" "$FLOOR" "$STATS" "$REC"
for c in $FOUR; do
	bench_caps "$c" || { echo "overhead_issue23: $c cannot run here: $caps_line" >&2; exit 0; }
done
all_collectors=$(bench_caps none; echo "$others" | tr , ' ')
bench_tmp
spid='' hpid=''
trap 'kill -INT "$spid" "$hpid" 2>/dev/null; bench_tmp_cleanup' EXIT
RAW=${RAW:-$tmp/raw}
: >"$RAW"
read -ra configs <<<"$CONFIGS"
read -ra wls <<<"$WORKLOADS"
if [ "$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null)" = 1 ]; then
	echo "overhead_issue23: warning: kernel.bpf_stats_enabled is 1 (someone turned it on):" \
		"every BPF program runs with statistics in phase 1 too" >&2
fi

# rec_args CFG: the options that make ptop-record run CFG's collectors alone
rec_args() {
	local want=" $1 " c en=() dis=()
	[ "$1" = all ] && want=" $FOUR "
	for c in $all_collectors; do
		case $want in *" $c "*) en+=("$c") ;; *) dis+=("$c") ;; esac
	done
	echo "--enable $(IFS=,; echo "${en[*]}") --disable $(IFS=,; echo "${dis[*]}")"
}

# wl_cmd WL: the workload's command line (it waits for SIGUSR1: -w)
wl_cmd() {
	local s=$SECS
	case $1 in
	pipe100k) echo "$SW -m pipe -c $((ncpu - 1)) -r 100000 -n $(awk -v s="$s" 'BEGIN { print int(100000 * s) }') -w" ;;
	pipe1m) echo "$SW -m pipe -c $((ncpu - 1)) -r 1000000 -n $(awk -v s="$s" 'BEGIN { print int(1000000 * s) }') -w" ;;
	futex) echo "$SW -m futex -c $((ncpu - 1)) -r 100000 -n $(awk -v s="$s" 'BEGIN { print int(100000 * s) }') -w" ;;
	exec) echo "${wl_pin[*]} $PW -k exec -r 0 -n $(awk -v s="$s" 'BEGIN { print int(300 * s) }') -w" ;;
	signal) echo "${wl_pin[*]} $PW -k signal -r 100000 -n $(awk -v s="$s" 'BEGIN { print int(100000 * s) }') -w" ;;
	*) echo "overhead_issue23: no workload $1 (pipe100k, pipe1m, futex, exec, signal)" >&2; return 2 ;;
	esac
}
for w in "${wls[@]}"; do wl_cmd "$w" >/dev/null || exit 2; done

now_ns() { date +%s%N; }

# snap K: the K-th reading of the holder (bpf_stats hold, pid $hpid): its program lines
snap() {
	local i
	kill -USR1 "$hpid" 2>/dev/null || return
	for ((i = 0; i < 100; i++)); do
		[ "$(grep -c '^end' "$tmp/hold.out")" -ge "$1" ] && break
		sleep 0.02
	done
	awk -v k="$1" '/^end/ { n++; next } n == k - 1 && /^prog / { print }' "$tmp/hold.out"
}

# run_one CFG WL [STATSRUN]: one run; prints "NS_PER_OP OPS_PER_S" (nothing if it failed).
# With STATSRUN, appends the st lines of its programs to $RAW instead.
run_one() {
	local cfg=$1 wl=$2 srun=${3:-} ok=0 t_out=$tmp/t.out t_err=$tmp/t.err cmd s0='' s1='' s2=''
	local ti tw0 tw1 tp
	: >"$t_out"; : >"$t_err"; : >"$tmp/w.out"
	read -ra cmd <<<"$(wl_cmd "$wl")"
	"${cmd[@]}" >"$tmp/w.out" &
	wpid=$!
	if ! bench_wait_for "$tmp/w.out" '^pid ' 5; then
		echo "overhead_issue23: $cfg on $wl: the workload did not start in 5 s: run left out" >&2
		kill -KILL "$wpid" 2>/dev/null
		wait "$wpid" 2>/dev/null
		wpid=''
		return
	fi
	tpid=''
	case $cfg in
	none) ok=1 ;;
	floor-all) bench_floor_start "$FLOOR" $FOUR && ok=1 ;;
	floor-*) bench_floor_start "$FLOOR" "${cfg#floor-}" && ok=1 ;;
	*)
		# shellcheck disable=SC2046
		"${tr_pin[@]}" "$REC" --pid "$wpid" $(rec_args "$cfg") -o "$tmp/run.ptop" --force \
			>"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	esac
	if [ $ok -ne 1 ]; then
		bench_end_run overhead_issue23 "$cfg" 0 "$t_err"
		return
	fi
	hpid=''
	if [ -n "$srun" ] && [ -n "$tpid" ]; then
		# the programs held open: a recorder ends with its target, and its programs
		# with it, before the last reading could be taken
		: >"$tmp/hold.out"
		"$STATS" hold "$tpid" >"$tmp/hold.out" &
		hpid=$!
		if bench_wait_for "$tmp/hold.out" '^held ' 5; then
			s0=$(snap 1); ti=$(now_ns)
			sleep "$IDLE"
			s1=$(snap 2); tw0=$(now_ns)
		fi
	fi
	kill -USR1 "$wpid"
	wait "$wpid"
	[ -n "$s1" ] && { s2=$(snap 3); tw1=$(now_ns); }
	if [ -n "$hpid" ]; then
		kill -INT "$hpid" 2>/dev/null
		wait "$hpid" 2>/dev/null
		hpid=''
	fi
	wpid='' tp=$tpid
	if [ -n "$tpid" ]; then
		kill -INT "$tpid" 2>/dev/null
		wait "$tpid" 2>/dev/null
		tpid=''
	fi
	rm -f "$tmp/run.ptop"
	if ! grep -Eq '^(switches|ops) ' "$tmp/w.out"; then
		echo "overhead_issue23: $cfg on $wl: the workload printed no result: run left out" >&2
		return
	fi
	if [ -z "$srun" ]; then
		awk '/^(switches|ops) / { print $6, $8 }' "$tmp/w.out"
		return
	fi
	if [ -z "$s0" ] || [ -z "$s2" ]; then
		echo "overhead_issue23: $cfg on $wl, statistics run $srun: bpf_stats listed no" \
			"program of the tracer (pid $tp); the run is left out" >&2
		return
	fi
	# st lines: per program, the window's and the idle window's runs and run time
	awk -v run="$srun" -v wl="$wl" -v cfg="$cfg" -v idle=$((tw0 - ti)) -v window=$((tw1 - tw0)) \
		-v s0="$s0" -v s1="$s1" -v s2="$s2" '
		BEGIN {
			split(s0, a, "\n"); for (i in a) { split(a[i], f, " "); n0[f[2]] = f[5]; c0[f[2]] = f[6] }
			split(s1, a, "\n"); for (i in a) { split(a[i], f, " "); n1[f[2]] = f[5]; c1[f[2]] = f[6] }
		}
		/^(switches|ops) / { ops = $2; cpu = $4 }
		END {
			n = split(s2, a, "\n")
			for (i = 1; i <= n; i++) {
				split(a[i], f, " ")
				if (!(f[2] in n1) || !(f[2] in n0)) continue
				printf "st %s %s %s %s %s %s %s %s %s %d %d %d %d\n", run, wl, cfg, ops, cpu,
					window, idle, f[2], f[4], f[6] - c1[f[2]], f[5] - n1[f[2]],
					c1[f[2]] - c0[f[2]], n1[f[2]] - n0[f[2]]
			}
		}' "$tmp/w.out" >>"$RAW"
}

bench_other_links overhead_issue23 \
	"sched_switch|sched_wakeup|sys_enter|sys_exit|signal_|sched_process" \
	"the tracepoints these collectors use"
{
	echo "info overhead_issue23: $(bench_kernel_line), $ncpu CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "info workloads: $WORKLOADS; $RUNS interleaved rounds (random order within each) of $SECS s per run; $STATS_RUNS runs with BPF statistics per traced configuration"
} >>"$RAW"
echo "overhead_issue23: $RUNS rounds of ${#wls[@]} workloads x ${#configs[@]} configurations, then" \
	"$STATS_RUNS BPF-statistics runs of each traced one; raw figures in $RAW" >&2

run_one none pipe100k >/dev/null # warm-up
for ((r = 1; r <= RUNS; r++)); do
	for w in "${wls[@]}"; do
		for cfg in $(printf '%s\n' "${configs[@]}" | shuf); do
			v=$(run_one "$cfg" "$w")
			[ -n "$v" ] && echo "ab $r $w $cfg $v" >>"$RAW"
		done
	done
	echo "overhead_issue23: round $r of $RUNS done" >&2
done

# phase 2: the BPF programs' own run time, statistics on for this phase only
if [ "$STATS_RUNS" -gt 0 ]; then
	: >"$tmp/stats.out"
	"$STATS" enable >"$tmp/stats.out" 2>"$tmp/stats.err" &
	spid=$!
	if bench_wait_for "$tmp/stats.out" enabled 5; then
		for ((s = 1; s <= STATS_RUNS; s++)); do
			for w in "${wls[@]}"; do
				for cfg in "${configs[@]}"; do
					[ "$cfg" = none ] && continue
					run_one "$cfg" "$w" "$s"
				done
			done
		done
	else
		echo "overhead_issue23: BPF statistics could not be turned on:" \
			"$(cat "$tmp/stats.err")" >&2
	fi
	kill -INT "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
fi
echo "info (RAW=$RAW; REPORT=FILE bash bench/overhead_issue23.sh prints these tables again)" >>"$RAW"
report "$RAW"
