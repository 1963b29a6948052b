# Every BPF program of every collector, in every configuration the recorder loads it
# with (each --user-stacks mode, each option that changes its read-only data, a
# launched command, --pid and --cgroup), verifies, and within the budget: at most
# 250,000 instructions processed by the verifier (a quarter of its 1M limit, so that
# another kernel's verifier, which may explore more, still loads it; issue 19: the stack
# copy once took 1,000,001 on a 6.18 build and did not load at all).
# PTOP_VERIFY_ONLY=1 makes each collector stop right after its load (record/bpf_util.c,
# bpf_util__loaded): nothing is attached. ptop-record -v prints each program's
# bpf_prog_info.verified_insns; a program refused by the verifier is a failure here
# (libbpf's "BPF program load failed"), and so is a collector a configuration names
# that reported no program. The figures are printed (bench/README.md quotes them).
. tests/e2e/lib.sh
need_ebpf
need_fixture regress
BUDGET=250000

# A cgroup to record read-only: this shell's own (--cgroup takes the path as
# /proc/PID/cgroup prints it); nothing is created or moved.
cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
go_bin=
if command -v go >/dev/null; then
	mkdir -p "$TMP/go"
	cp tests/fixtures/go/alloc.go "$TMP/go/"
	(cd "$TMP/go" && GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GO111MODULE=off GOPROXY=off \
		GOFLAGS=-mod=mod go build -o alloc alloc.go) && go_bin=$TMP/go/alloc
fi

n=0 worst=0 worst_name= failures=()
# bad MESSAGE: a failure, reported at the end (every configuration is tried)
bad() { echo "FAIL: $*" >&2; failures+=("$*"); }
# run NAME "COLLECTORS THAT MUST LOAD" RECORDER-ARGS...
run() {
	local name=$1 want=$2 c out=$TMP/run$n.err
	shift 2
	n=$((n + 1))
	PTOP_VERIFY_ONLY=1 "$REC" -v --duration 300ms -o "$TMP/run$n.ptop" "$@" >/dev/null 2>"$out" ||
		true # a run whose collectors all stopped after their load may exit 1
	if grep -E "BPF program load failed|BPF program is too large" "$out" >&2; then
		bad "$name: a program did not load (log: above)"
	fi
	for c in $want; do
		grep -q "^ptop-record: verified: $c/" "$out" ||
			{ grep -E "^ *$c:" "$out" >&2 || true; bad "$name: $c loaded no program"; }
	done
	grep '^ptop-record: verified: ' "$out" >"$TMP/lines" || true
	while read -r _ _ prog insns _; do
		if [ "$insns" = unknown ]; then
			bad "$name: $prog: the kernel did not say how many instructions it verified"
			continue
		fi
		printf '%-34s %-28s %8d\n' "$name" "$prog" "$insns"
		if [ "$insns" -gt "$worst" ]; then worst=$insns worst_name="$name $prog"; fi
		[ "$insns" -le "$BUDGET" ] || bad "$name: $prog verified $insns instructions, over the budget of $BUDGET"
	done <"$TMP/lines"
}

common="cpu syscalls cpuprof"
cmd=(-- "$FIX/regress" 1000 0 100 0 5)
for us in fp dwarf; do
	run "command --user-stacks $us" "$common" --user-stacks "$us" "${cmd[@]}"
	run "cgroup --user-stacks $us" "$common net" --user-stacks "$us" --enable net --cgroup "$cg"
	run "fd-stacks --user-stacks $us" fds --user-stacks "$us" --fd-stacks "${cmd[@]}"
	run "heap uprobe $us" heap --user-stacks "$us" --enable heap --heap-lane uprobe "${cmd[@]}"
	run "security --user-stacks $us" security --user-stacks "$us" --enable security "${cmd[@]}"
	run "heap uprobe $us every,events" heap --user-stacks "$us" --enable heap --heap-lane uprobe \
		--heap-sample-bytes 0 --heap-events "${cmd[@]}"
done
# --pid: the target's pid is a constant of the programs (bpf/filter.bpf.h), which the
# verifier tracks; the stack scan once verified in 19,928 instructions for one pid and
# failed past 1,000,000 for another. A few targets, two of them shells.
sleep 30 &
spid=$!
kill_at_exit "$spid"
run "pid, heap uprobe" "$common heap" --enable heap --pid "$spid"
for k in 1 2 3; do
	bash -c 'sleep 30; exit 0' &
	spid=$!
	kill_at_exit "$spid"
	run "pid $k (a shell), dwarf" "$common" --user-stacks dwarf --pid "$spid"
done
run "net" net --enable net "${cmd[@]}"
# threads: auto takes stack copies (as dwarf); fp walks; a pid (a constant of the filter)
run "threads" threads --enable threads "${cmd[@]}"
run "threads --user-stacks fp" threads --enable threads --user-stacks fp "${cmd[@]}"
run "threads --user-stacks dwarf" threads --enable threads --user-stacks dwarf "${cmd[@]}"
run "threads --offcpu-min off" threads --enable threads --offcpu-min off "${cmd[@]}"
run "threads cgroup" threads --enable threads --cgroup "$cg"
run "threads cgroup fp" threads --enable threads --user-stacks fp --cgroup "$cg"
run "threads pid (a shell), dwarf" threads --enable threads --user-stacks dwarf --pid "$spid"
run "security auto" security --enable security "${cmd[@]}"
run "security pid" security --enable security --pid "$spid"
run "security cgroup" security --enable security --cgroup "$cg"
run "io-events" io --io-events "${cmd[@]}"
run "io-files" io --io-files "${cmd[@]}"
run "mark" mark --mark requests=handle_request "${cmd[@]}"
run "signals" signals "${cmd[@]}"
run "signals cgroup" signals --cgroup "$cg"
run "lifecycle" lifecycle "${cmd[@]}"
run "lifecycle cgroup" lifecycle --cgroup "$cg"
run "locks" locks --enable locks "${cmd[@]}"
run "locks --user-stacks fp" locks --enable locks --user-stacks fp "${cmd[@]}"
run "locks cgroup" locks --enable locks --cgroup "$cg"
# tls: without --tls-bytes (the plaintext read is dead code) and with the most
run "tls" tls --enable tls "${cmd[@]}"
run "tls --tls-bytes 4096" tls --enable tls --tls-bytes 4096 "${cmd[@]}"
if [ -n "$go_bin" ]; then
	run "goalloc" goalloc --enable goalloc -- "$go_bin" 1000
	run "goalloc every" goalloc --enable goalloc --heap-sample-bytes 0 -- "$go_bin" 1000
else
	echo "note: no 'go' command (golang-go): goalloc's program not verified here"
fi
echo "largest: $worst_name, $worst instructions (budget $BUDGET)"
[ ${#failures[@]} = 0 ] || fail "${#failures[@]} failures: $(printf '%s; ' "${failures[@]}")"
