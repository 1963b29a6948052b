# `report events` (the one timeline, analyze/events.c) against the lifecycle collector's known
# process tree (tests/fixtures/tree_fixture.c): --category lifecycle lists exactly the forks,
# execs and exits `report tree` counts, each with its process, the exec with its file and
# argv, the exits with their codes and signals; --pid keeps one process's events, --window
# those inside it; the CSV and the text have the JSON's rows; `replay --dump --tab timeline`
# shows them, and its category filter line.
. "$(dirname "$0")/../../../tests/e2e/lib.sh"
need_ebpf
need_fixture tree_fixture

CODE=7
rc=0
"$REC" --quiet --interval 200ms -o "$TMP/t.ptop" -- "$FIX/tree_fixture" $CODE >"$TMP/out.txt" || rc=$?
[ "$rc" = $((CODE + 1)) ] || fail "the fixture should exit $((CODE + 1)), exit $rc: $(cat "$TMP/out.txt")"
cat "$TMP/out.txt"
kid() { sed -n "s/^child $1 //p" "$TMP/out.txt"; }
exec_pid=$(kid exec) killed_pid=$(kid killed)
[ -n "$exec_pid" ] && [ -n "$killed_pid" ] || fail "fixture output"

"$ANA" report tree --format json "$TMP/t.ptop" >"$TMP/tree.json" || fail "report tree: exit $?"
"$ANA" report events --category lifecycle --format json "$TMP/t.ptop" >"$TMP/ev.json" ||
	fail "report events --category lifecycle: exit $?"
python3 - "$TMP/tree.json" "$TMP/ev.json" "$exec_pid" "$killed_pid" <<'PY' || fail "events against the tree"
import json, sys
tree = json.load(open(sys.argv[1])); ev = json.load(open(sys.argv[2]))
ex, kl = int(sys.argv[3]), int(sys.argv[4])
assert ev["report"] == "events", ev
e = ev["events"]
assert e and all(x["category"] == "lifecycle" for x in e), e
kinds = lambda k: [x for x in e if x["kind"] == k]
assert (len(kinds("fork")), len(kinds("exec")), len(kinds("exit"))) == \
    (tree["forks"], tree["execs"], tree["exits"]), (len(e), tree)
assert len(e) == tree["forks"] + tree["execs"] + tree["exits"], e
p = {r["pid"]: r for r in tree["processes"]}
# the forked processes are the tree's children, the exits its ended processes
assert sorted(x["pid"] for x in kinds("fork")) == \
    sorted(r["pid"] for r in tree["processes"] if r["ppid"] in p), kinds("fork")
assert sorted(x["pid"] for x in kinds("exit")) == \
    sorted(r["pid"] for r in tree["processes"] if r["end_s"] is not None), kinds("exit")
for x in kinds("fork"):
    assert "forked by %d" % p[x["pid"]]["ppid"] in x["text"], x
# the execs at the tree's times, with the file and argv
got = sorted((x["pid"], round(x["time_s"], 6)) for x in kinds("exec"))
want = sorted((r["pid"], round(r["t_s"], 6)) for r in tree["exec_list"])
assert got == want, (got, want)
x = [x for x in kinds("exec") if x["pid"] == ex]
assert len(x) == 1 and x[0]["text"] == "/bin/true [true alpha beta gamma]", x
for x in kinds("exit"):
    r = p[x["pid"]]
    if r["signal"]:
        assert x["text"].endswith("killed by " + r["signal"]), (x, r)
    else:
        assert x["text"].endswith("exited with code %d" % r["exit_code"]), (x, r)
assert [x for x in kinds("exit") if x["pid"] == kl][0]["text"].endswith("killed by SIGKILL")
assert all(x["warning"] is False for x in e), e
times = [x["time_s"] for x in e]
assert times == sorted(times), times
print("ok:", len(e), "lifecycle events as the tree has them")
PY

# --pid: only the exec'ing child's events (its fork, exec and exit), of every category
"$ANA" report events --pid "$exec_pid" --format json "$TMP/t.ptop" >"$TMP/pid.json" ||
	fail "--pid: exit $?"
assert_eq "--pid $exec_pid: the child's fork, exec, exit" "fork exec exit" \
	"$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["events"]
assert all(x["pid"] == int(sys.argv[2]) for x in e), e
print(" ".join(x["kind"] for x in e if x["category"] == "lifecycle"))' "$TMP/pid.json" "$exec_pid")"

# --window: the events from the exec'ing child's exec on (its time, to the ns) and none before
t=$(python3 -c 'import json,sys; print([x["time_s"] for x in json.load(open(sys.argv[1]))["events"]
	if x["kind"] == "exec" and x["pid"] == int(sys.argv[2])][0])' "$TMP/ev.json" "$exec_pid")
"$ANA" report events --category lifecycle --window "${t}.." --format json "$TMP/t.ptop" >"$TMP/w.json" ||
	fail "--window: exit $?"
python3 - "$TMP/ev.json" "$TMP/w.json" "$t" <<'PY' || fail "--window ${t}.."
import json, sys
a = json.load(open(sys.argv[1]))["events"]; w = json.load(open(sys.argv[2]))["events"]
t = float(sys.argv[3])
want = [x for x in a if x["time_s"] >= t - 1e-9]
assert w == want and 0 < len(w) < len(a), (len(w), len(want), len(a))
print("ok: window", t, "..:", len(w), "of", len(a))
PY

# signals (on by default): the SIGCHLD each child's exit sent the target, one count each from
# that child, as signal_count has them (never single signals made up)
if "$ANA" info "$TMP/t.ptop" | grep -qE '^ *signals +active'; then
	"$ANA" report events --category signals --format json "$TMP/t.ptop" >"$TMP/sig.json" ||
		fail "--category signals: exit $?"
	python3 - "$TMP/tree.json" "$TMP/sig.json" <<'PY' || fail "signals events"
import json, re, sys
tree = json.load(open(sys.argv[1])); e = json.load(open(sys.argv[2]))["events"]
p = {r["pid"]: r for r in tree["processes"]}
root = [r["pid"] for r in tree["processes"] if r["ppid"] not in p][0]
kids = sorted(r["pid"] for r in tree["processes"] if r["ppid"] == root)
chld = [x for x in e if x["text"].startswith("SIGCHLD x1 from pid ")]
got = sorted(int(re.match(r"SIGCHLD x1 from pid (\d+) ", x["text"]).group(1)) for x in chld)
assert got == kids, (got, kids, e)
assert all(x["pid"] == root and x["kind"] == "signal sent" for x in chld), chld
print("ok: SIGCHLD from", got)
PY
fi

# CSV and text: the JSON's rows
"$ANA" report events --category lifecycle --format csv "$TMP/t.ptop" >"$TMP/ev.csv" || fail "csv: exit $?"
head -1 "$TMP/ev.csv" | has -x 'time_s,category,kind,pid,warning,text' || fail "csv header: $(head -1 "$TMP/ev.csv")"
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["events"]))' "$TMP/ev.json")
assert_eq "csv rows" "$n" "$(python3 -c 'import csv,sys; print(len(list(csv.reader(open(sys.argv[1])))) - 1)' "$TMP/ev.csv")"
assert_eq "csv: the exec" "exec,$exec_pid,/bin/true [true alpha beta gamma]" \
	"$(python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["kind"] == "exec" and r["pid"] == sys.argv[2]: print(r["kind"], r["pid"], r["text"], sep=",")' "$TMP/ev.csv" "$exec_pid")"
"$ANA" report events --category lifecycle "$TMP/t.ptop" >"$TMP/ev.txt" || fail "text: exit $?"
cat "$TMP/ev.txt"
has -E "^events \(whole capture\): $n of [0-9]+$" <"$TMP/ev.txt" || fail "text: the count line"
assert_eq "text rows" "$n" "$(grep -cE ' lifecycle +(fork|exec|exit) ' "$TMP/ev.txt")"
has -E " lifecycle +exit +$killed_pid .*killed by SIGKILL" <"$TMP/ev.txt" || fail "text: the killed child"

# a category no event has: none; a bad --pid: a usage error
"$ANA" report events --category nosuch --format json "$TMP/t.ptop" >"$TMP/none.json" || fail "nosuch: exit $?"
assert_eq "--category nosuch" 0 "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["events"]))' "$TMP/none.json")"
rc=0; "$ANA" report events --pid x "$TMP/t.ptop" >/dev/null 2>"$TMP/e.err" || rc=$?
assert_eq "--pid x: exit" 2 "$rc"
has -- "--pid takes a process id" <"$TMP/e.err" || fail "--pid x: $(cat "$TMP/e.err")"

# the Timeline tab at the end: the same events, newest first, with the filter line
"$ANA" replay --dump --at 99m --tab timeline --size 160x60 "$TMP/t.ptop" >"$TMP/tl.txt" || fail "replay --dump: exit $?"
cat "$TMP/tl.txt"
has -E "c category: all +/ pid or word: any" <"$TMP/tl.txt" || fail "timeline: the filter line"
has -E " lifecycle +exec +$exec_pid /bin/true \[true alpha beta gamma\]" <"$TMP/tl.txt" ||
	fail "timeline: the exec"
has -E " lifecycle +exit +$killed_pid .*killed by SIGKILL" <"$TMP/tl.txt" || fail "timeline: the killed child"
echo PASS
