#!/usr/bin/env python3
# perf_compare.py FOLDED PERF_TXT FUNC...: a CPU profile of ptop's (export --format folded)
# against perf's of the same process at the same time (perf script -F ip,sym,dso of a
# `perf record --call-graph dwarf`; "" when perf was not run), over user frames only:
#   - at least 95% of ptop's samples (and 500 at least) hold every FUNC: the stacks are
#     whole (a frame-pointer walk through code without frame pointers stops early);
#   - the functions perf names that are on most stacks (its top 12 by inclusive share)
#     have the same inclusive share in ptop's within 10 points;
#   - the 3 named functions with most self samples in perf's have the same self share in
#     ptop's within 8 points.
# Exits 1 when a check fails (each says which), 0 else. Used by profile_python.sh and
# profile_sqlite3.sh.
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
folded, perf_txt, need = sys.argv[1], sys.argv[2], sys.argv[3:]
q = fold_ptop(folded)
qt, qi, qs = shares(q)
whole = sum(n for fr, n in q.items() if all(f in fr for f in need))
print("ptop: %d samples, %.1f%% hold %s" % (qt, 100.0 * whole / max(qt, 1), ", ".join(need)))
if qt < 500 or whole * 100 < qt * 95:
    print("FAIL: ptop's stacks are not whole (or too few samples)")
    bad = 1
if perf_txt:
    pt, pi, ps = shares(fold_perf(perf_txt))
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
