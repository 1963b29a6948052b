#!/usr/bin/env bash
# overhead_fd_stacks.sh — what --fd-stacks costs the target per open, by how it takes the
# opening sites' stacks: the CPU time per openat+close pair of bench/workload_fds_nofp
# (built -O2 -fomit-frame-pointer, as distributions build; the loop runs in a thread 12
# calls deep, so a copy reads its full 16 KiB) at RATES pairs per second (default 1000
# 10000 100000), its own user+system time, with
#   none        no tracer
#   floor       bench_floor: no-op BPF programs on raw_tp sys_enter/sys_exit
#   proc        ptop-record --pid with only the fds collector, no --fd-stacks: its /proc
#               lane (a readlink per fd each interval); no BPF
#   fp          ptop-record --pid, only fds, --fd-stacks --user-stacks fp: a frame-pointer
#               walk per open (bpf_get_stack; short and untrusted here, but its cost)
#   dwarf       the same with --user-stacks dwarf: a stack copy per open (16 KiB read,
#               its words classified and hashed; sent once per key), what auto takes for
#               this workload (checked in the probe detail)
# Each configuration runs RUNS times (default 5) per rate, interleaved round by round;
# the table shows medians, ratios to "none" and the CPU each adds per pair against
# "none". Then, once per mode, the time the BPF programs ran per open
# (kernel.bpf_stats_enabled, fd_exit's and fd_enter's run_time_ns / opens; they run at
# every syscall exit and entry of the machine, so the other processes' syscalls are in
# it too) and the capture's size. Needs root. Build folder from $PTOP_BUILD (default build); SECONDS_PER_RUN
# (default 2). With 2+ CPUs the workload is pinned to the last CPU and the tracers to the
# others (PIN=0 turns this off).
#
#   make build/bench/workload_fds_nofp build/bench/bench_floor build/ptop-record \
#       build/ptop-analyze && sudo PTOP_BUILD=build bash bench/overhead_fd_stacks.sh
set -uo pipefail
B=${PTOP_BUILD:-build}
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
RATES=${RATES:-1000 10000 100000}
SECS=${SECONDS_PER_RUN:-2}
W=$B/bench/workload_fds_nofp
REC=$B/ptop-record
ANA=$B/ptop-analyze
bench_pin

bench_need_root overhead_fd_stacks "BPF programs are attached"
bench_need_exe overhead_fd_stacks "$W" "$B/bench/bench_floor" "$REC" "$ANA"
BPFTOOL=${BPFTOOL:-$(PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin" command -v bpftool)}

tmp=$(mktemp -d)
wpid='' tpid=''
stats0=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
cleanup() {
	[ -n "$tpid" ] && kill -INT "$tpid" 2>/dev/null
	[ -n "$wpid" ] && kill -KILL "$wpid" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$stats0" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# progstats: "RUN_TIME_NS RUN_CNT" of the newest programs named fd_exit (raw_tp
# sys_exit) and fd_enter (raw_tp sys_enter, close_range's entry: it runs at every
# syscall entry of the machine too), summed (ours, unless another recorder with
# --fd-stacks started since), or nothing
progstats() {
	local p out ns=0 cnt=0
	for p in fd_exit fd_enter; do
		out=$("$BPFTOOL" prog show name $p 2>/dev/null |
			sed -n 's/.*run_time_ns \([0-9]*\) run_cnt \([0-9]*\).*/\1 \2/p' | tail -1)
		[ -n "$out" ] || return
		ns=$((ns + ${out% *})); cnt=$((cnt + ${out#* }))
	done
	echo "$ns $cnt"
}

bench_caps fds || {
	echo "overhead_fd_stacks: fds cannot run here: $caps_line" >&2
	exit 1
}
configs=(none floor proc fp dwarf)

# run_one CONFIG RATE [STATS]: prints "NS_PER_PAIR PAIRS_PER_S", or nothing if the run
# failed. STATS: also leave fd_exit's run time in $tmp/stats and keep the capture.
run_one() {
	local cfg=$1 rate=$2 stats=${3:-} ok=0 t_out=$tmp/t.out t_err=$tmp/t.err
	local rec=("${tr_pin[@]}" "$REC" --interval 1s -o "$tmp/$cfg.ptop" --force
		--disable "$others")
	: >"$t_out"; : >"$t_err"
	"${wl_pin[@]}" "$W" -r "$rate" -d "$SECS" -w >"$tmp/w.out" &
	wpid=$!
	bench_wait_for "$tmp/w.out" '^pid ' 5 || return
	tpid=''
	case $cfg in
	none) ok=1 ;;
	floor)
		bench_floor_start "$B/bench/bench_floor" && ok=1 ;;
	proc)
		"${rec[@]}" --pid "$wpid" >"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	fp | dwarf)
		"${rec[@]}" --pid "$wpid" --fd-stacks --user-stacks "$cfg" >"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_err" 'probes:' 15 && ok=1 ;;
	esac
	if [ -n "$stats" ] && [ $ok -eq 1 ] && [ -n "$BPFTOOL" ]; then
		# the program's run time and runs over the workload's loop alone
		progstats >"$tmp/stats0"
		kill -USR1 "$wpid"
		wait "$wpid"
		progstats >"$tmp/stats1"
		paste -d' ' "$tmp/stats0" "$tmp/stats1" | awk 'NF == 4 { print $3 - $1, $4 - $2 }' \
			>"$tmp/stats"
		ok=2 # let go already
	fi
	if [ $ok -eq 2 ]; then
		wpid=''
		kill -INT "$tpid" 2>/dev/null
		wait "$tpid" 2>/dev/null
		tpid=''
		ok=1
	else
		bench_end_run overhead_fd_stacks "$cfg" "$ok" "$t_err"
	fi
	[ -z "$stats" ] && rm -f "$tmp/$cfg.ptop"
	[ $ok -eq 1 ] && awk -v s="$SECS" '/^pairs/ { print $6, $2 / s }' "$tmp/w.out"
}

bench_other_links overhead_fd_stacks "tp '(sys_enter|sys_exit)'" sys_enter/sys_exit

declare -A res rate_got
echo "overhead_fd_stacks: $SECS s per run, $RUNS runs per configuration and rate, $ncpu CPUs," \
	"$(bench_kernel_line)${wl_pin:+, workload pinned to CPU $((ncpu - 1))}"
run_one none 1000 >/dev/null # warm-up
bench_rounds rate_got "${configs[@]}"

for rate in $RATES; do
	base=$(echo "${res[none.$rate]:-}" | median)
	printf '\nrate %s open+close pairs/s asked (%s/s reached untraced)\n' "$rate" \
		"$(echo "${rate_got[none.$rate]:-0}" | median | awk '{ printf "%.0f", $1 }')"
	printf '%-13s %12s %9s %12s  %s\n' configuration 'CPU ns/pair' 'vs none' '+ns/pair' \
		'runs (CPU ns/pair)'
	for cfg in "${configs[@]}"; do
		vals=$(echo "${res[$cfg.$rate]:-}" | tr ' ' '\n' | grep .)
		if [ -z "$vals" ] || [ -z "$base" ]; then
			printf '%-13s %s\n' "$cfg" "failed: see the messages above"
			continue
		fi
		m=$(echo "$vals" | median)
		printf '%-13s %12.1f %8.2fx %12.1f  %s\n' "$cfg" "$m" "$(echo "$m / $base" | bc -l)" \
			"$(echo "$m - $base" | bc -l)" "$(echo $vals)"
	done
	bench_noise "${res[none.$rate]:-}"
done

# the BPF program's own time per run, and what each mode writes (one run per mode at the
# highest rate)
rate=${RATES##* }
sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null || echo "(no kernel.bpf_stats_enabled)"
printf '\nat %s pairs/s, one run each: fd_exit + fd_enter run time per open, runs, capture\n' "$rate"
for cfg in fp dwarf; do
	rm -f "$tmp/stats"
	run_one "$cfg" "$rate" stats >"$tmp/one" || true
	[ -s "$tmp/one" ] || { echo "$cfg: failed"; continue; }
	opens=$("$ANA" sql --format csv "$tmp/$cfg.ptop" \
		"select coalesce(sum(opened), 0) from fd_op" | tail -1)
	detail=$("$ANA" sql --format csv "$tmp/$cfg.ptop" \
		"select detail from probe where name = 'fds'" | tail -1)
	copies=$("$ANA" sql --format csv "$tmp/$cfg.ptop" \
		"select count(*) from stack_copy" | tail -1)
	case $detail in *"opening user stacks $cfg"*) ;; *)
		echo "overhead_fd_stacks: $cfg: the probe detail does not say $cfg: $detail" >&2 ;;
	esac
	if [ -s "$tmp/stats" ]; then
		read -r ns cnt <"$tmp/stats"
		printf '%-6s %8.0f ns of BPF per open (%s runs of fd_exit and fd_enter, %s opens)' "$cfg" \
			"$(echo "$ns / ($opens + 1)" | bc -l)" "$cnt" "$opens"
	else
		printf '%-6s (no BPF run time: bpftool missing or stats off)' "$cfg"
	fi
	printf '; capture %s bytes, %s stack copies\n' "$(stat -c %s "$tmp/$cfg.ptop")" "$copies"
done
