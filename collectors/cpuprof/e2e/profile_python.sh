# The CPU profile of Debian's own python3 (built without frame pointers), beside
# `perf record --call-graph dwarf` on the same process at the same time: a script that
# builds dicts under 20 levels of Python recursion, recorded by --pid at 999 Hz with
# the default --user-stacks auto (the recorder finds no frame pointers in python3.11
# and takes stack copies) and by perf for the same 3 s. Then, over user frames only
# (perf's kernel frames left out, ptop's [k] ones too):
#   - ptop's stacks are whole: at least 95% of samples reach Py_BytesMain through
#     _PyEval_EvalFrameDefault (a frame-pointer walk stops in the first frame);
#   - the functions perf names that are on most stacks (its top 12 by inclusive share,
#     named ones) have the same inclusive share in ptop's profile within 10 points;
#   - the 3 named functions with most self samples in perf's have the same self share
#     in ptop's within 8 points.
# Skips, saying why, without /usr/bin/python3; without perf, only the first check runs.
. tests/e2e/lib.sh
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
end = time.time() + float(sys.argv[1])
t = 0
print("ready", flush=True)
while time.time() < end:
    t += level(20, 20000)
print(t)
PYEOF
"$PY" "$TMP/work.py" 6 >"$TMP/py.out" &
pypid=$!
kill_at_exit "$pypid"
wait_line "$TMP/py.out" '^ready' "python3 to start"
perf_ok=0
if command -v perf >/dev/null; then
	perf record -F 999 --call-graph dwarf -p "$pypid" -o "$TMP/perf.data" -- sleep 3 \
		>"$TMP/perf.err" 2>&1 &
	perfpid=$!
	perf_ok=1
else
	echo "note: perf is not installed: the comparison with perf --call-graph dwarf is skipped"
fi
"$REC" --quiet --pid "$pypid" --cpu-sample-hz 999 --duration 3s -o "$TMP/py.ptop" 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err" >&2; fail "ptop-record failed"; }
if [ $perf_ok = 1 ]; then
	wait "$perfpid" || { cat "$TMP/perf.err"; fail "perf record failed"; }
	perf script -i "$TMP/perf.data" -F ip,sym,dso >"$TMP/perf.txt" 2>/dev/null ||
		fail "perf script failed"
fi
wait "$pypid" || fail "python3 exited $?"
has "user stacks dwarf (--user-stacks auto: no frame pointers in python3.11" \
	<<<"$(q "$TMP/py.ptop" "select detail from probe where name = 'cpuprof'")" ||
	fail "auto did not choose stack copies for python3"
"$ANA" export --format folded "$TMP/py.ptop" >"$TMP/py.folded"
ls -l "$TMP/py.ptop"

python3 - "$TMP/py.folded" "$([ $perf_ok = 1 ] && echo "$TMP/perf.txt")" <<'PYEOF'
import collections, sys

def fold_ptop(path):
    st = collections.Counter()
    for line in open(path):
        s, n = line.rstrip("\n").rsplit(" ", 1)
        fr = [f for f in s.split(";") if not f.endswith("_[k]")]
        st[tuple(fr)] += int(n)
    return st

def fold_perf(path):  # perf script -F ip,sym,dso: a block of frames per sample, innermost first
    st = collections.Counter()
    cur = []
    for line in open(path, errors="replace"):
        if not line.strip():
            if cur:
                st[tuple(reversed(cur))] += 1
            cur = []
            continue
        if not line[:1].isspace():
            continue
        parts = line.strip().split(None, 1)
        if len(parts) < 2 or "kernel.kallsyms" in parts[1] or "(inlined)" in parts[1]:
            continue
        cur.append(parts[1].rsplit(" (", 1)[0].split("+0x")[0])
    if cur:
        st[tuple(reversed(cur))] += 1
    return st

def shares(st):
    tot = sum(st.values())
    inc, slf = collections.Counter(), collections.Counter()
    for fr, n in st.items():
        for f in set(fr):
            inc[f] += n
        if fr:
            slf[fr[-1]] += n
    return tot, {f: 100.0 * v / tot for f, v in inc.items()}, {f: 100.0 * v / tot for f, v in slf.items()}

def named(f):
    return f and f != "[unknown]" and "+0x" not in f and not f.startswith("0x")

bad = 0
q = fold_ptop(sys.argv[1])
qt, qi, qs = shares(q)
whole = sum(n for fr, n in q.items()
            if "Py_BytesMain" in fr and "_PyEval_EvalFrameDefault" in fr)
print("ptop: %d samples, %.1f%% reach Py_BytesMain through _PyEval_EvalFrameDefault"
      % (qt, 100.0 * whole / max(qt, 1)))
if qt < 500 or whole * 100 < qt * 95:
    print("FAIL: ptop's python3 stacks are not whole (or too few samples)")
    bad = 1
if len(sys.argv) > 2 and sys.argv[2]:
    pt, pi, ps = shares(fold_perf(sys.argv[2]))
    print("perf: %d samples" % pt)
    top = [f for f, _ in sorted(pi.items(), key=lambda x: (-x[1], x[0])) if named(f)][:12]
    for f in top:
        d = qi.get(f, 0.0) - pi[f]
        print("inclusive %-32s perf %5.1f%%  ptop %5.1f%%  %+5.1f" % (f, pi[f], qi.get(f, 0.0), d))
        if abs(d) > 10:
            print("FAIL: %s differs by more than 10 points" % f)
            bad = 1
    for f in [f for f, _ in sorted(ps.items(), key=lambda x: (-x[1], x[0])) if named(f)][:3]:
        d = qs.get(f, 0.0) - ps[f]
        print("self      %-32s perf %5.1f%%  ptop %5.1f%%  %+5.1f" % (f, ps[f], qs.get(f, 0.0), d))
        if abs(d) > 8:
            print("FAIL: %s's self share differs by more than 8 points" % f)
            bad = 1
sys.exit(bad)
PYEOF
