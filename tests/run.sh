#!/usr/bin/env bash
# run.sh — runs every unit test (plain and ASan/UBSan builds) and every
# end-to-end test, then each fuzzer briefly, and ends with one line: "N passed, N failed,
# N skipped".
#
# Unit tests are cmocka binaries $PTOP_BUILD/tests/test_*; each case counts, a case that
# calls skip() counts as skipped (with the reason the test printed: a line starting "skip").
# End-to-end tests are tests/e2e/*.sh and a collector's own collectors/NAME/e2e*.sh and
# collectors/NAME/e2e/*.sh; exit 0 passes, 77 skips (the script prints why), anything else
# fails. PTOP_TESTS=PATTERN runs only matching ones: a space-separated list, each word a
# substring of the name, or "=NAME" for that name alone (e.g. "=heap/heap_attach").
# PTOP_TEST_LOGS: the logs' folder (default $PTOP_BUILD/test-logs).
#
# PTOP_STRICT=1 (set by `make test`, which builds everything first): a unit test whose
# binary is missing fails, and so does an end-to-end test that misses a fixture, a built
# file or a collector (lib.sh's `missing`); what the machine truly lacks (eBPF, a tool)
# still skips with its reason.
set -u
strict=${PTOP_STRICT:-0}
B=${PTOP_BUILD:-build}
pattern=${PTOP_TESTS:-}
passed=0 failed=0 skipped=0
failures=()
# skipped_by_pattern NAME: true when PTOP_TESTS is set and none of its words selects NAME
skipped_by_pattern() {
	local w
	[ -z "$pattern" ] && return 1
	for w in $pattern; do
		case $w in
		=*) [ "$1" = "${w#=}" ] && return 1 ;;
		*) [[ $1 == *"$w"* ]] && return 1 ;;
		esac
	done
	return 0
}
log_dir=${PTOP_TEST_LOGS:-$B/test-logs}
mkdir -p "$log_dir"

run_unit() { # binary label
	local bin=$1 label=$2 log out p f
	log="$log_dir/$(echo "$label" | tr '/ ' '__').log"
	CMOCKA_MESSAGE_OUTPUT=stdout "$bin" >"$log" 2>&1
	local rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	# cmocka 1.1: "[  SKIPPED ] N test(s), listed below:", then "[  SKIPPED ] NAME" each
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s), listed below:.*/\1/p' "$log" | tail -1)
	p=${p:-0} f=${f:-0} s=${s:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi # crashed or sanitizer report
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	if [ "$f" -ne 0 ]; then
		failures+=("$label")
		printf 'FAIL  %-40s (%d passed, %d failed, %d skipped; log %s)\n' "$label" "$p" "$f" "$s" "$log"
		grep -E '^\[  (FAILED|ERROR) \]|ERROR: AddressSanitizer|runtime error|Failure!' "$log" | head -20 | sed 's/^/      /'
	elif [ "$s" -ne 0 ]; then
		printf 'ok    %-40s (%d cases, %d skipped)\n' "$label" "$p" "$s"
	else
		printf 'ok    %-40s (%d cases)\n' "$label" "$p"
	fi
	if [ "$s" -ne 0 ]; then # the skipped cases, then the reasons the tests printed
		sed -n '/^\[  SKIPPED \] [0-9]* test(s), listed below:/,$s/^\[  SKIPPED \] \([^ ]*\)$/\1/p' \
			"$log" | sed "s|^|skip  $label:|"
		grep -iE '^ *skip[:( ]' "$log" | head -"$s" | sed 's/^ */      why: /'
	fi
}

# A unit test's source without its binary: under PTOP_STRICT a failure (make test builds
# them all), else a skip that says how to build it.
for src in tests/test_*.c collectors/*/test_*.c; do
	[ -f "$src" ] || continue
	name=${src##*/}; name=${name%.c}
	skipped_by_pattern "$name" && continue
	[ -x "$B/tests/$name" ] && continue
	if [ "$strict" = 1 ]; then
		failed=$((failed + 1)); failures+=("unit/$name")
		printf 'FAIL  %-40s (not built: %s/tests/%s is missing)\n' "unit/$name" "$B" "$name"
	else
		skipped=$((skipped + 1))
		printf 'skip  %-40s SKIP not built: make tests-build\n' "unit/$name"
	fi
done

for bin in "$B"/tests/test_*; do
	[ -x "$bin" ] || continue
	name=${bin##*/}
	skipped_by_pattern "$name" && continue
	run_unit "$bin" "unit/$name"
	if [ -x "$B/asan/tests/$name" ]; then
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			run_unit "$B/asan/tests/$name" "asan/$name"
	fi
done

# tests/e2e/NAME.sh is e2e/NAME; collectors/C/e2e*.sh and collectors/C/e2e/*.sh are e2e/C/NAME
# (they source tests/e2e/lib.sh by its path from the repository's root, where this runs).
# Names by expansion, not basename(1): a process costs 0.1-0.3 s under QEMU without KVM.
for t in tests/e2e/*.sh collectors/*/e2e*.sh collectors/*/e2e/*.sh; do
	[ "${t##*/}" = lib.sh ] && continue
	[ -f "$t" ] || continue
	case $t in
	tests/e2e/*) name=${t##*/}; name=${name%.sh} ;;
	*) c=${t#collectors/}; b=${t##*/}; name=${c%%/*}/${b%.sh} ;;
	esac
	skipped_by_pattern "$name" && continue
	log="$log_dir/e2e_$(echo "$name" | tr / _).log"
	start=$(date +%s)
	PTOP_BUILD=$B PTOP_STRICT=$strict bash "$t" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	case $rc in
	0) passed=$((passed + 1)); printf 'ok    %-40s (%ds)\n' "e2e/$name" "$secs" ;;
	77) skipped=$((skipped + 1))
	    printf 'skip  %-40s %s\n' "e2e/$name" "$(grep -m1 '^SKIP' "$log" || echo '(no reason printed)')" ;;
	*) failed=$((failed + 1)); failures+=("e2e/$name")
	   printf 'FAIL  %-40s (exit %d, %ds; log %s)\n' "e2e/$name" "$rc" "$secs" "$log"
	   tail -25 "$log" | sed 's/^/      /' ;;
	esac
done

# Fuzzers ($B/fuzz/fuzz_*, built by `make fuzz`, and by `make test` when clang's
# libFuzzer is there): each runs PTOP_FUZZ_SECS (default 20) seconds from its checked-in
# seeds (tests/fuzz/corpus_NAME) and the inputs of crashes fixed (tests/fuzz/regress_NAME)
# into a scratch folder, so those stay as they are; a crash, leak or sanitizer report fails it (the input is kept in $log_dir).
fuzz_secs=${PTOP_FUZZ_SECS:-20}
for src in tests/fuzz/fuzz_*.c; do
	[ -f "$src" ] || continue
	name=${src##*/}; name=${name%.c}
	skipped_by_pattern "$name" && continue
	bin=$B/fuzz/$name
	if [ ! -x "$bin" ]; then
		skipped=$((skipped + 1))
		printf 'skip  %-40s SKIP not built: clang with libFuzzer (Debian: clang, libclang-rt-14-dev) is missing; `make fuzz` builds it\n' "fuzz/$name"
		continue
	fi
	log="$log_dir/fuzz_$name.log"
	work=$(mktemp -d)
	corpus=
	for d in tests/fuzz/corpus_${name#fuzz_} tests/fuzz/regress_${name#fuzz_}; do
		[ -d "$d" ] && corpus="$corpus $d"
	done
	start=$(date +%s)
	PTOP_FUZZ_DB_BASE=tests/fuzz/corpus_records \
		"$bin" -max_total_time="$fuzz_secs" -close_fd_mask=3 -print_final_stats=1 \
		-artifact_prefix="$log_dir/$name-" "$work" $corpus >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	rm -rf "$work"
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
	if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
		passed=$((passed + 1))
		printf 'ok    %-40s (%ss, %s runs, %s)\n' "fuzz/$name" "$secs" "$runs" "$cov"
	else
		failed=$((failed + 1)); failures+=("fuzz/$name")
		printf 'FAIL  %-40s (exit %d, %ds; log %s)\n' "fuzz/$name" "$rc" "$secs" "$log"
		grep -E 'ERROR: |runtime error|SUMMARY|Test unit written' "$log" | head -10 | sed 's/^/      /'
	fi
done

# The kernel matrix (tests/kernels/run.sh) when PTOP_KERNELS names kernels (`make test`:
# TEST_KERNELS, 6.1) and PTOP_TESTS does not narrow the run: the smoke set inside each of
# those kernels under QEMU (this kernel ran it above), its counts in the totals. Without
# network or QEMU its tests are skipped with the reason.
if [ -n "${PTOP_KERNELS:-}" ] && [ -z "$pattern" ]; then
	kout=$(mktemp)
	PTOP_KERNEL_HOST=0 PTOP_BUILD=$B PTOP_STRICT=$strict tests/kernels/run.sh | tee "$kout" |
		grep --line-buffered -vE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$kout" | tail -1)
	if [ -n "$line" ]; then
		read -r p _ f _ s _ <<<"${line//,/}"
		passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
		while read -r n; do failures+=("$n"); done \
			< <(sed -n 's/^\[\([^]]*\)\] FAIL  \(e2e\/[^ ]*\).*/\1:\2/p' "$kout")
	else
		failed=$((failed + 1)); failures+=("kernels")
		echo "FAIL  kernels: tests/kernels/run.sh ended without its closing line"
	fi
	rm -f "$kout"
fi

echo
if [ ${#failures[@]} -gt 0 ]; then echo "failed: ${failures[*]}"; fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
