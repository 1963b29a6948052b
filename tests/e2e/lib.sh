# lib.sh — helpers sourced by the end-to-end tests (tests/e2e/*.sh).
# A test exits 0 to pass, 77 to skip (after printing "SKIP: reason"), else fails.
set -euo pipefail
B=${PTOP_BUILD:-build}
REC=$B/ptop-record
ANA=$B/ptop-analyze
FIX=$B/tests/fixtures
TMP=$(mktemp -d /tmp/ptop-e2e.XXXXXX)
# At exit: the processes given to kill_at_exit that are still this shell's jobs (not
# waited for yet: never a pid reused since) get SIGTERM and are waited for, the
# directories made by make_dirs are removed (the last made first), then TMP.
pids_to_kill=() dirs_made=()
kill_at_exit() { pids_to_kill+=("$@"); }
make_dirs() { # DIR...: mkdir each (parents first); false when one cannot be made
	local d
	for d; do
		mkdir "$d" || return 1
		dirs_made=("$d" "${dirs_made[@]}")
	done
}
lib_exit() {
	local p d live=()
	for p in $(jobs -p); do
		case " ${pids_to_kill[*]} " in *" $p "*) live+=("$p") ;; esac
	done
	for p in "${live[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	for p in "${live[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	for d in "${dirs_made[@]}"; do
		[ -d "$d" ] && rmdir "$d" 2>/dev/null || true
	done
	rm -rf "$TMP"
}
trap lib_exit EXIT
export XDG_CACHE_HOME=$TMP/cache

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
# missing WHAT: something the build makes is not there (a fixture, a built file, a
# collector of this tree): a skip, but under PTOP_STRICT=1 (make test, which builds
# everything first) a failure. What the machine lacks (eBPF, a tool) is a skip().
missing() {
	[ "${PTOP_STRICT:-0}" = 1 ] && fail "$* (PTOP_STRICT: make test builds it)"
	skip "$*"
}
# need_fixture NAME...: each of $FIX/NAME is built, else missing
need_fixture() {
	local f
	for f; do
		[ -x "$FIX/$f" ] || missing "fixture $f is not built (tests/fixtures/$f.c)"
	done
}
[ -x "$ANA" ] || missing "$ANA is not built (make programs)"
[ -x "$REC" ] || missing "$REC is not built (make programs)"

# CMD | has [GREP_OPTIONS] PATTERN: whether CMD printed a matching line. It reads
# all of stdin first: `grep -q` stops at the first match, and under pipefail the
# writer's SIGPIPE would then fail the pipeline (or, before `&& fail`, pass it).
has() { local in; in=$(cat); grep -q "$@" <<<"$in"; }

# Skip (with the reason) unless this machine can load and attach eBPF programs.
need_ebpf() {
	[ "$(id -u)" = 0 ] || skip "eBPF tests need root"
	[ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF (/sys/kernel/btf/vmlinux)"
	local out
	out=$("$REC" --caps 2>&1) || true
	echo "$out" | has -E '^ *syscalls +yes' || skip "eBPF unavailable here: $(echo "$out" | grep -E '^ *syscalls' || echo "$out" | sed -n 1,3p)"
}

# poll_until CMD...: run CMD every 0.1 s until it succeeds (true), at most 30 s (false):
# a bound, not a timing assertion.
poll_until() {
	local i
	for i in $(seq 300); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
# wait_until WHAT CMD...: poll_until CMD, or fail saying what was waited for.
wait_until() {
	local what=$1
	shift
	poll_until "$@" || fail "timed out (30 s) waiting for $what"
}
# wait_line FILE PATTERN WHAT: until FILE has a line matching PATTERN (else FILE is
# shown, and the test fails).
wait_line() {
	poll_until grep -q "$2" "$1" 2>/dev/null && return 0
	cat "$1" >&2 || true
	fail "timed out waiting for $3"
}

# assert_eq WHAT EXPECTED ACTUAL
assert_eq() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; echo "ok: $1 = $3"; }
# assert_ge WHAT MIN ACTUAL, assert_le WHAT MAX ACTUAL
assert_ge() { [ "$3" -ge "$2" ] || fail "$1: expected >= $2, got $3"; echo "ok: $1 = $3 (>= $2)"; }
assert_le() { [ "$3" -le "$2" ] || fail "$1: expected <= $2, got $3"; echo "ok: $1 = $3 (<= $2)"; }

# q CAPTURE_OR_DB SQL: the query's rows as CSV, without the header line.
q() { "$ANA" sql --format csv "$1" "$2" | tail -n +2; }

# jget JSON_FILE PYTHON_EXPR: evaluate an expression over the parsed JSON (as `j`).
jget() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# expect_exit CODE CMD...: run CMD, require exit CODE, keep its stderr in $TMP/err.
expect_exit() {
	local want=$1 rc=0; shift
	"$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" = "$want" ] || { cat "$TMP/err" >&2; fail "'$*' exited $rc, expected $want"; }
	echo "ok: '$*' exited $rc: $(head -1 "$TMP/err")"
}

# need_cgroup2: V2, where cgroup2 is mounted, and V1, the cgroup v1 memory controller's
# mount ("" when there is none); skip without cgroup2. From /proc/self/mountinfo:
# "ID PARENT DEV ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER".
need_cgroup2() {
	local mi=/proc/self/mountinfo
	V2=$(awk '{ for (i = 7; i <= NF && $i != "-"; i++) ;
		if ($(i + 1) == "cgroup2") { print $5; exit } }' "$mi")
	[ -n "$V2" ] || skip "cgroup2 is not mounted (no cgroup2 line in $mi)"
	V1=$(awk '{ for (i = 7; i <= NF && $i != "-"; i++) ;
		if ($(i + 1) == "cgroup" && index("," $(i + 3) ",", ",memory,")) { print $5; exit } }' "$mi")
}

# assert_copy_fallback CAPTURE PROBE REFUSED FEATURE: the collector PROBE recorded with
# PTOP_TEST_REFUSE=REFUSED and --user-stacks dwarf fell back from stack copies to
# frame-pointer stacks (record/stackcopy.h, user_stacks__lanes/__copy_failed): it ran
# (active, eBPF), its stack_copy lane failed (REFUSED "stack_copy": the load refused) or
# is unsupported (REFUSED the kernel FEATURE the copies need), its fp lane is active and
# named as what ran in the copies' place (in the probe set and in `info`), and no stack
# copy was written.
assert_copy_fallback() {
	local c=$1 probe=$2 refuse=$3 feature=$4 want
	assert_eq "$refuse: $probe" active/ebpf \
		"$(q "$c" "select state || '/' || source from probe where name = '$probe'")"
	if [ "$refuse" = stack_copy ]; then
		want="failed load refused by PTOP_TEST_REFUSE"
	else
		want="unsupported needs Linux 5.17: $feature (refused by PTOP_TEST_REFUSE)"
	fi
	assert_eq "$refuse: stack_copy lane" "$want" \
		"$(q "$c" "select state || ' ' || reason from probe_lane where probe = '$probe' and lane = 'stack_copy'")"
	assert_eq "$refuse: in its place" fp \
		"$(q "$c" "select instead from probe_lane where probe = '$probe' and lane = 'stack_copy'")"
	assert_eq "$refuse: fp lane" active \
		"$(q "$c" "select state from probe_lane where probe = '$probe' and lane = 'fp'")"
	"$ANA" info "$c" | has -E "^ +$probe +stack_copy +(failed|unsupported) +ebpf +fp *$" ||
		fail "$refuse: info does not show fp in the place of $probe's stack copies"
	assert_eq "$refuse: no stack copies" 0 "$(q "$c" "select count(*) from stack_copy")"
}
