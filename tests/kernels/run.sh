#!/usr/bin/env bash
# run.sh — the kernel matrix (`make test-kernels`): the smoke set (tests/kernels/smoke.list,
# end-to-end tests through tests/run.sh) on the host's kernel, then inside each kernel of
# PTOP_KERNELS (default "6.1": Debian 12's own, under QEMU without KVM, tests/kernels/vm.sh).
# Every test line is prefixed with its kernel; a closing line per kernel, then the totals:
# "N passed, N failed, N skipped".
#
# A kernel that cannot be had (no network for `apt-get download`, no QEMU, not root) skips
# each of its tests with the reason; a VM that does not finish (it hung: --timeout, or it
# could not start) fails every test that did not report.
#
# Environment: PTOP_BUILD (default build, built by `make test-kernels`), PTOP_KERNELS (the
# kernel series, "" for the host alone), PTOP_KERNEL_HOST=0 (not on the host),
# PTOP_KERNEL_TESTS (a tests/run.sh pattern list instead of smoke.list),
# PTOP_KERNEL_TIMEOUT (seconds for one VM, default 2400), PTOP_STRICT (as tests/run.sh),
# PTOP_KERNEL_CACHE (the kernels, default $PTOP_BUILD/kernels).
# The logs: $PTOP_BUILD/test-logs/kernel-NAME/.
set -u
cd "$(dirname "$0")/../.."
B=${PTOP_BUILD:-build}
export PTOP_KERNEL_CACHE=${PTOP_KERNEL_CACHE:-$B/kernels}
kernels=${PTOP_KERNELS-6.1}
strict=${PTOP_STRICT:-0}
vm_timeout=${PTOP_KERNEL_TIMEOUT:-2400}
if [ -n "${PTOP_KERNEL_TESTS:-}" ]; then
	tests=$PTOP_KERNEL_TESTS
else
	tests=$(sed -e 's/#.*//' tests/kernels/smoke.list | tr -s ' \n\t' '  ')
fi
ntests=$(echo $tests | wc -w)
passed=0 failed=0 skipped=0
summary=()

# one KERNEL-LABEL OUTPUT-FILE: add the closing line of a tests/run.sh output to the totals
# (false when there is none).
count() {
	local line p f s
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$2" | tail -1)
	[ -n "$line" ] || return 1
	read -r p _ f _ s _ <<<"${line//,/}"
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	summary+=("$1: $line")
}

# run LABEL CMD...: run tests/run.sh through CMD, its lines prefixed with the label; the
# closing line is kept apart (only the totals close the output).
run() {
	local label=$1 out rc
	shift
	out=$(mktemp)
	"$@" 2>&1 | tee "$out" | grep --line-buffered -vE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$|^$' |
		sed -u "s/^/[$label] /"
	rc=${PIPESTATUS[0]}
	if ! count "$label" "$out"; then
		# the VM did not finish: the tests that did not report fail
		local done_n
		done_n=$(grep -cE '^(ok|FAIL|skip) +e2e/' "$out")
		local p f s
		p=$(grep -cE '^ok +e2e/' "$out"); f=$(grep -cE '^FAIL +e2e/' "$out"); s=$(grep -cE '^skip +e2e/' "$out")
		f=$((f + ntests - done_n))
		passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
		summary+=("$label: $p passed, $f failed, $s skipped (did not finish, exit $rc: $((ntests - done_n)) tests never reported)")
		echo "[$label] FAIL  the run did not finish (exit $rc): $((ntests - done_n)) of $ntests tests never reported"
	fi
	rm -f "$out"
}

start=$(date +%s)
if [ "${PTOP_KERNEL_HOST:-1}" != 0 ]; then
	logs=$B/test-logs/kernel-host
	mkdir -p "$logs"
	t0=$(date +%s)
	echo "== host kernel $(uname -r): $ntests tests"
	run "host $(uname -r)" env PTOP_BUILD="$B" PTOP_STRICT="$strict" PTOP_TEST_LOGS="$logs" \
		PTOP_TESTS="$tests" tests/run.sh
	echo "== host kernel: $(($(date +%s) - t0)) s"
fi

for k in $kernels; do
	logs=$B/test-logs/kernel-$k
	mkdir -p "$logs"
	logs=$(cd "$logs" && pwd -P)
	if ! why=$(PTOP_VM_KERNEL=$k tests/kernels/vm.sh --prepare 2>&1); then
		why=$(echo "$why" | tail -1)
		echo "[$k] skip  all $ntests smoke tests: ${why:-vm.sh --prepare failed}"
		skipped=$((skipped + ntests))
		summary+=("$k: 0 passed, 0 failed, $ntests skipped ($why)")
		continue
	fi
	t0=$(date +%s)
	echo "== Linux $k under QEMU (TCG, no KVM): $ntests tests"
	run "$k" env PTOP_VM_KERNEL="$k" tests/kernels/vm.sh --timeout "$vm_timeout" --mem 3072 \
		--log "$logs/console.log" --rw "$logs" -- \
		env PTOP_BUILD="$B" PTOP_STRICT="$strict" PTOP_TEST_LOGS="$logs" PTOP_TESTS="$tests" tests/run.sh
	echo "== Linux $k: $(($(date +%s) - t0)) s (boot included); logs and console in $logs"
done

echo
for s in "${summary[@]}"; do echo "  $s"; done
echo "kernels: $(($(date +%s) - start)) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
