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
