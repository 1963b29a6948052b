# The CPU profile of Debian's own python3 (built without frame pointers), beside
# `perf record --call-graph dwarf` on the same process at the same time: a script that
# builds dicts under 20 levels of Python recursion, recorded by --pid at 999 Hz with
# the default --user-stacks auto (the recorder finds no frame pointers in python3.11
# and takes stack copies) and by perf while it uses the same 3 s of CPU
# (beside_perf.bash). Then, over user frames only (perf's kernel frames left out,
# ptop's [k] ones too):
#   - ptop's stacks are whole: at least 95% of samples reach Py_BytesMain through
#     _PyEval_EvalFrameDefault (a frame-pointer walk stops in the first frame);
#   - the functions perf names that are on most stacks (its top 12 by inclusive share,
#     named ones) have the same inclusive share in ptop's profile within 10 points;
#   - the 3 named functions with most self samples in perf's have the same self share
#     in ptop's within 8 points.
# Skips, saying why, without /usr/bin/python3; without perf, only the first check runs.
. tests/e2e/lib.sh
. collectors/cpuprof/e2e/beside_perf.bash
need_ebpf
PY=/usr/bin/python3
[ -x "$PY" ] || skip "$PY is not installed (Debian's python3: apt-get install python3)"
sections=$(readelf -S "$(readlink -f "$PY")" 2>/dev/null)
grep -q eh_frame_hdr <<<"$sections" || skip "$PY is not an ELF program with .eh_frame_hdr"

cat > "$TMP/work.py" <<'PYEOF'
import sys, time
def build(n):
    d = {}
    for i in range(n):
        d["k%d" % i] = [i, str(i), {"v": i}]
    return d
def level(k, n):
    if k == 0:
        return len(build(n))
    return level(k - 1, n)
end = time.process_time() + float(sys.argv[1])  # CPU seconds: beside_perf wants 3
t = 0
print("ready", flush=True)
while time.process_time() < end:
    t += level(20, 20000)
print(t)
PYEOF
"$PY" "$TMP/work.py" 6 >"$TMP/py.out" &
pypid=$!
kill_at_exit "$pypid"
wait_line "$TMP/py.out" '^ready' "python3 to start"
beside_perf "$pypid" "$TMP/py.ptop" 3
wait "$pypid" || fail "python3 exited $?"
has "user stacks dwarf (--user-stacks auto: no frame pointers in python3.11" \
	<<<"$(q "$TMP/py.ptop" "select detail from probe where name = 'cpuprof'")" ||
	fail "auto did not choose stack copies for python3"
"$ANA" export --format folded "$TMP/py.ptop" >"$TMP/py.folded"
ls -l "$TMP/py.ptop"

python3 collectors/cpuprof/e2e/perf_compare.py "$TMP/py.folded" \
	"$([ $perf_ok = 1 ] && echo "$TMP/perf.txt")" Py_BytesMain _PyEval_EvalFrameDefault
