# lib.sh — what the bench/overhead_*.sh scripts share. Sourced, not run: set B (the
# build folder) first.

# bench_pin: set ncpu, and wl_pin and tr_pin to the commands that pin the workload to
# the last CPU and the tracers to the others. Empty with one CPU, without taskset, or
# with PIN=0. Pinning halves the run-to-run spread.
bench_pin() {
	ncpu=$(nproc)
	wl_pin=() tr_pin=()
	if [ "${PIN:-1}" = 1 ] && [ "$ncpu" -ge 2 ] && command -v taskset >/dev/null; then
		wl_pin=(taskset -c $((ncpu - 1)))
		tr_pin=(taskset -c 0-$((ncpu - 2)))
	fi
}

# bench_need_root NAME WHY: unless root, say why root is needed and skip (exit 0).
bench_need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "$1: needs root ($2); skipped" >&2
		exit 0
	fi
}

# bench_need_exe NAME EXE...: exit 1 naming the make command for the first EXE not built.
bench_need_exe() {
	local name=$1 exe
	shift
	for exe; do
		if [ ! -x "$exe" ]; then
			echo "$name: $exe is missing: run make B=$B $exe" >&2
			exit 1
		fi
	done
}

# median: the median of the numbers on stdin (separated by blanks or newlines); the
# mean of the middle two for an even count; nothing for none.
median() {
	tr -s ' \t' '\n\n' | grep . | sort -g | awk '{ v[NR] = $1 }
		END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_alloc_report WIDTH WHY CFG...: the tables of the allocation benches. From the
# global arrays res[CFG.RATE] (CPU ns per unit of each run) and apu[none.RATE]
# (allocations per unit), for each rate in $RATES: every CFG's median, its ratio to
# "none" and to "floor", and the CPU it adds per allocation; then the noise floor, the
# largest gap to "none" in the 0-allocation row (WHY says why nothing fires there) and
# the spread of the untraced runs; each rate's table under the line of bench_conditions
# (the kernel, its build, the trap floor). note[CFG], when set, stands in for CFG's row (the
# caller declares note with declare -A, empty or not). WIDTH: the first column's.
bench_alloc_report() {
	local width=$1 why=$2 noise=0 base0='' cfg m rate base floor a
	shift 2
	case " $RATES " in *" 0 "*) base0=$(echo "${res[none.0]:-}" | median) ;; esac
	if [ -n "$base0" ]; then
		for cfg; do
			m=$(echo "${res[$cfg.0]:-}" | median)
			[ -n "$m" ] || continue
			noise=$(echo "$m $base0 $noise" | awk '{ d = $1 / $2 - 1; if (d < 0) d = -d;
				print (d > $3) ? d : $3 }')
		done
		noise=$(echo "${res[none.0]} " | tr ' ' '\n' | grep . | awk -v m="$base0" -v n="$noise" '
			{ d = $1 / m - 1; if (d < 0) d = -d; if (d > n) n = d } END { print n }')
	fi
	for rate in $RATES; do
		base=$(echo "${res[none.$rate]:-}" | median)
		floor=$(echo "${res[floor.$rate]:-}" | median)
		a=$(echo "${apu[none.$rate]:-}" | median)
		printf '\nrate %s allocations per million units (%s allocations/CPU-s untraced)\n' \
			"$rate" "$(awk -v a="${a:-0}" -v b="${base:-0}" \
				'BEGIN { printf "%.0f", b ? a / b * 1e9 : 0 }')"
		bench_conditions
		printf "%-${width}s %12s %9s %9s %12s  %s\n" configuration 'CPU ns/unit' 'vs none' \
			'vs floor' '+ns/alloc' 'runs (CPU ns/unit)'
		for cfg; do
			if [ -n "${note[$cfg]:-}" ]; then
				printf "%-${width}s %s\n" "$cfg" "${note[$cfg]}"
				continue
			fi
			m=$(echo "${res[$cfg.$rate]:-}" | median)
			if [ -z "$m" ] || [ -z "$base" ]; then
				printf "%-${width}s %s\n" "$cfg" \
					"n/a (no successful run: see the messages above)"
				continue
			fi
			printf "%-${width}s %12.1f %8.3fx %9s %12s  %s\n" "$cfg" "$m" \
				"$(echo "$m / $base" | bc -l)" \
				"$([ -n "$floor" ] && printf '%.3fx' "$(echo "$m / $floor" | bc -l)")" \
				"$(awk -v m="$m" -v b="$base" -v a="$a" 'BEGIN {
					if (a > 0) printf "%.1f", (m - b) / a; else print "-" }')" \
				"$(echo ${res[$cfg.$rate]})"
		done
	done
	[ -n "$base0" ] && printf '\nnoise floor: +/-%.1f%% (largest gap to "none" at 0 allocations,'\
' %s)\n' "$(echo "$noise * 100" | bc -l)" "$why"
	return 0
}

# bench_caps NAME: set others to every collector but NAME, as ptop-record --caps lists
# them (comma-separated; the "lane" lines under a collector are skipped), and caps_line to --caps's line for NAME; true when NAME can
# run here. (--caps is read whole first: "--caps | grep -q" may quit early, and
# pipefail takes the writer's SIGPIPE.)
bench_caps() {
	local caps
	caps=$("$REC" --caps 2>&1 || true)
	others=$(awk -v me="$1" '/^collectors/ { on = 1; next }
		on && /^  [a-z]/ { if ($1 != me) print $1; next } on && /^    / { next }
		on { exit }' <<<"$caps" | paste -sd, -)
	caps_line=$(grep -E "^ *$1 " <<<"$caps" || true)
	grep -Eq "^ *$1 +yes" <<<"$caps"
}

# bench_need_cgroup2 NAME: set V2 to where cgroup2 is mounted; without one, say so and
# skip (exit 0).
bench_need_cgroup2() {
	V2=$(awk '{ for (i = 7; i <= NF && $i != "-"; i++) ;
		if ($(i + 1) == "cgroup2") { print $5; exit } }' /proc/self/mountinfo)
	if [ -z "$V2" ]; then
		echo "$1: no cgroup2 mount; skipped" >&2
		exit 0
	fi
}

# bench_wait_for FILE PATTERN SECONDS: true once FILE has a line matching PATTERN,
# false after SECONDS.
bench_wait_for() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# bench_end_run NAME CFG OK ERRFILE: end one run of the globals wpid (the workload) and
# tpid (the tracer, or empty). OK 1: the tracer started, so the workload is let go
# (SIGUSR1) and waited for; else it is killed, and ERRFILE's start says why CFG did
# not start. Then the tracer gets SIGINT and is waited for. Both are emptied.
bench_end_run() {
	if [ "$3" -eq 1 ]; then
		kill -USR1 "$wpid"
		wait "$wpid"
	else
		kill -KILL "$wpid" 2>/dev/null
		wait "$wpid" 2>/dev/null
		echo "$1: $2 did not start: $(head -c 300 "$4")" >&2
	fi
	wpid=''
	if [ -n "$tpid" ]; then
		kill -INT "$tpid" 2>/dev/null
		wait "$tpid" 2>/dev/null
		tpid=''
	fi
}

# bench_tmp: a scratch folder in tmp, and the globals of a run, wpid (the workload) and
# tpid (the tracer), empty; at exit the workload still running is killed, the tracer still
# running gets SIGINT, and tmp is removed.
bench_tmp() {
	tmp=$(mktemp -d)
	wpid='' tpid=''
	trap bench_tmp_cleanup EXIT
}
bench_tmp_cleanup() {
	[ -n "$tpid" ] && kill -INT "$tpid" 2>/dev/null
	[ -n "$wpid" ] && kill -KILL "$wpid" 2>/dev/null
	rm -rf "$tmp"
}

# bench_rounds EXTRA CFG...: RUNS rounds, interleaved so that drift hits every
# configuration alike: in each, for each rate of $RATES, each CFG once. The caller's
# run_one CFG RATE prints "VALUE SECOND" (nothing when the run failed): VALUE is appended
# to the global array res[CFG.RATE], SECOND to the array named EXTRA (declare both with
# declare -A first).
bench_rounds() {
	local -n extra_=$1
	local r rate cfg v
	shift
	for ((r = 1; r <= RUNS; r++)); do
		for rate in $RATES; do
			for cfg; do
				v=$(run_one "$cfg" "$rate")
				[ -n "$v" ] || continue
				res[$cfg.$rate]+="${v% *} "
				extra_[$cfg.$rate]+="${v#* } "
			done
		done
	done
}

# bench_floor_start CMD...: start a floor tracer (or any tracer that says "attached"),
# pinned to the tracers' CPUs, its output in the caller's $t_out and $t_err and its pid
# in the caller's tpid; true once it says "attached", false after 10 s.
bench_floor_start() {
	"${tr_pin[@]}" "$@" >"$t_out" 2>"$t_err" &
	tpid=$!
	bench_wait_for "$t_out" attached 10
}

# bench_other_links NAME REGEX WHAT: warn (on stderr) when BPF links other than ours
# match REGEX in bpftool link show (WHAT names them): every row, "none" included, pays
# for them.
bench_other_links() {
	local n
	n=$(bpftool link show 2>/dev/null | grep -cE "$2")
	if [ "${n:-0}" -gt 0 ]; then
		echo "$1: warning: $n other BPF link(s) on $3 are attached (bpftool link show):" \
			"every row, \"none\" included, pays for them" >&2
	fi
}

# bench_ratio M BASE: "1.234x", or "-" without a base.
bench_ratio() { [ -n "$2" ] && printf '%.3fx' "$(echo "$1 / $2" | bc -l)" || echo -; }

# bench_noise VALUES: "noise: ..." — how far the runs VALUES (of "none", untraced) lie from
# their median at the most: what "within the noise" means for that row.
bench_noise() {
	local m
	m=$(echo "$1" | median)
	echo "$1" | tr ' ' '\n' | grep . | awk -v m="$m" '
		{ d = $1 / m - 1; if (d < 0) d = -d; if (d > n) n = d }
		END { printf "noise: the untraced runs lie within +/-%.1f%% of their median\n", n * 100 }'
}

# bench_kernel_line: the kernel the figures were measured on, its release and its build
# line (uname -r; uname -v: SMP, PREEMPT_DYNAMIC or PREEMPT_NONE, the build's date; and
# the preemption mode in use when debugfs shows it). Two
# builds of one release trap at different costs (a uprobe hit 0.7–1.6 µs on one 6.18
# build, 5–8 µs on another: issue 19), so no figure leaves a bench without it.
bench_kernel_line() {
	local mode
	printf 'kernel %s, build "%s"' "$(uname -r)" "$(uname -v)"
	# a PREEMPT_DYNAMIC kernel's mode in use, where debugfs shows it ("none (full) lazy")
	mode=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' /sys/kernel/debug/sched/preempt 2>/dev/null)
	[ -n "$mode" ] && printf ', preempt=%s' "$mode"
	return 0
}

# bench_trap_run W FLOOR none|probe: one run of workload W at one allocation per unit,
# untraced or under FLOOR --only malloc (one uprobe at malloc+0, a BPF program that only
# counts); prints "CPU_NS_PER_UNIT ALLOCS_PER_UNIT", nothing when it failed. Uses the
# globals of bench_tmp and bench_pin.
bench_trap_run() {
	local out=$tmp/trap.w t_out=$tmp/trap.t t_err=$tmp/trap.e ok=0
	: >"$out"; : >"$t_out"; : >"$t_err"
	tpid=''
	"${wl_pin[@]}" "$1" -r 1000000 -d "${DUR:-1}" -w >"$out" &
	wpid=$!
	if ! bench_wait_for "$out" '^pid ' 5; then
		kill -KILL "$wpid" 2>/dev/null
		wait "$wpid" 2>/dev/null
		wpid=''
		return
	fi
	if [ "$3" = probe ]; then
		"${tr_pin[@]}" "$2" --pid "$wpid" --only malloc >"$t_out" 2>"$t_err" &
		tpid=$!
		bench_wait_for "$t_out" attached 10 && ok=1
	else
		ok=1
	fi
	bench_end_run bench_trap_floor "uprobe malloc+0" "$ok" "$t_err"
	[ $ok -eq 1 ] && awk '$1 == "units" { print $8, ($2 ? $4 / $2 : 0) }' "$out"
}

# bench_trap_floor W FLOOR: the bare uprobe trap floor of this kernel, measured in this
# run: CPU ns per hit of one uprobe at malloc+0 whose program only counts (FLOOR:
# bench_uprobe_floor), on workload W (workload_alloc) at one allocation per unit —
# (CPU per unit traced − untraced) / allocations per unit, medians of TRAP_RUNS (default
# 3) interleaved pairs of DUR-second runs. Sets trap_ns ("" when not measured) and
# trap_why (why not). Needs root, bench_pin and bench_tmp first. TRAP=0 skips it.
bench_trap_floor() {
	local r v none='' probe='' apu=''
	trap_ns='' trap_why=''
	if [ "${TRAP:-1}" = 0 ]; then
		trap_why='TRAP=0'
		return
	fi
	if [ ! -x "$1" ] || [ ! -x "$2" ]; then
		trap_why="$1 or $2 is not built: make B=$B $1 $2"
		return
	fi
	for ((r = 1; r <= ${TRAP_RUNS:-3}; r++)); do
		v=$(bench_trap_run "$1" "$2" none)
		[ -n "$v" ] && none+="${v% *} " && apu+="${v#* } "
		v=$(bench_trap_run "$1" "$2" probe)
		[ -n "$v" ] && probe+="${v% *} "
	done
	if [ -z "$none" ] || [ -z "$probe" ]; then
		trap_why='no successful run: see the messages above'
		return
	fi
	trap_ns=$(awk -v p="$(echo "$probe" | median)" -v n="$(echo "$none" | median)" \
		-v a="$(echo "$apu" | median)" 'BEGIN { if (a > 0) printf "%.0f", (p - n) / a }')
	[ -n "$trap_ns" ] || trap_why='the untraced runs made no allocation'
}

# bench_conditions: the line every result of a uprobe bench carries: the kernel and its
# build, and the trap floor bench_trap_floor measured in this run (or why it was not),
# so that figures from two machines are never compared bare.
bench_conditions() {
	printf 'conditions: %s; bare uprobe trap floor ' "$(bench_kernel_line)"
	if [ -n "${trap_ns:-}" ]; then
		printf '%s ns per hit (malloc+0, measured in this run, median of %s)\n' \
			"$trap_ns" "${TRAP_RUNS:-3}"
	else
		printf 'not measured (%s)\n' "${trap_why:-bench_trap_floor was not run}"
	fi
}
