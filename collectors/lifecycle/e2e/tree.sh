# The lifecycle collector against a known process tree (tests/fixtures/tree_fixture.c): the
# target's children exec /bin/true with arguments, exit with a code, are killed by SIGKILL
# (one of them after its own child exited 3) or die of their own SIGTERM; `report tree`
# has each process under its parent with the exec's file and argv as the kernel had them,
# the exit codes and the signals exact, in text, JSON and CSV; the figures count them. An
# argv longer than the cap is marked cut. With --pid, the target's children already there
# are the tree's (present) and a new one is followed. Not collected when disabled; the /proc
# lane under --no-ebpf (tree_proc.sh).
. "$(dirname "$0")/../../../tests/e2e/lib.sh"
need_ebpf
need_fixture tree_fixture

CODE=7
rc=0
"$REC" --quiet --interval 200ms -o "$TMP/t.ptop" -- "$FIX/tree_fixture" $CODE >"$TMP/out.txt" || rc=$?
[ "$rc" = $((CODE + 1)) ] || fail "the fixture should exit $((CODE + 1)), exit $rc: $(cat "$TMP/out.txt")"
cat "$TMP/out.txt"
kid() { sed -n "s/^child $1 //p" "$TMP/out.txt"; }
exec_pid=$(kid exec) code_pid=$(kid code) killed_pid=$(kid killed) term_pid=$(kid term)
grand=$(sed -n 's/^grandchild //p' "$TMP/out.txt")
[ -n "$exec_pid" ] && [ -n "$code_pid" ] && [ -n "$killed_pid" ] && [ -n "$term_pid" ] &&
	[ -n "$grand" ] || fail "fixture output"
"$ANA" info "$TMP/t.ptop" | has -E '^ *lifecycle +active +ebpf' || fail "lifecycle not active"

"$ANA" report tree --format json "$TMP/t.ptop" >"$TMP/r.json" || fail "report tree json: exit $?"
python3 - "$TMP/r.json" "$CODE" "$exec_pid" "$code_pid" "$killed_pid" "$term_pid" "$grand" \
	"$FIX/tree_fixture" <<'PY' || fail "report tree json"
import json, sys
j = json.load(open(sys.argv[1]))
code, ex, cd, kl, tm, gr = map(int, sys.argv[2:8]); fixture = sys.argv[8]
assert j["collected"] is True and j["report"] == "tree", j
p = {r["pid"]: r for r in j["processes"]}
assert len(p) == 6, sorted(p)
root = [r for r in j["processes"] if r["ppid"] not in p]
assert len(root) == 1, root
root = root[0]
assert root["exit_code"] == code + 1 and root["signal"] is None, root
assert root["command"] == fixture + " " + str(code) and root["execs"] == 1, root
def is_(pid, **want):
    r = p[pid]
    for k, v in want.items():
        assert r[k] == v, (pid, k, r[k], v, r)
    print("ok:", pid, want)
is_(ex, ppid=root["pid"], exit_code=0, signal=None, execs=1, command="true alpha beta gamma",
    command_truncated=False, comm="true")
is_(cd, ppid=root["pid"], exit_code=code, signal=None, execs=0)
is_(kl, ppid=root["pid"], exit_code=None, signal="SIGKILL", core=False, comm="tf_mid")
is_(gr, ppid=kl, exit_code=3, signal=None, comm="tf_mid")
is_(tm, ppid=root["pid"], exit_code=None, signal="SIGTERM", core=False)
for r in j["processes"]:
    assert r["start_s"] is None or r["end_s"] >= r["start_s"], r
    assert r["cpu_s"] is not None and r["cpu_s"] >= 0, r
assert (j["forks"], j["execs"], j["exits"], j["killed"], j["failed"]) == (5, 2, 6, 2, 3), j
x = [e for e in j["exec_list"] if e["pid"] == ex]
assert len(x) == 1 and x[0]["filename"] == "/bin/true", x
assert x[0]["argv"] == ["true", "alpha", "beta gamma"] and x[0]["argc"] == 3, x
assert x[0]["argv_truncated"] is False, x
PY
# the text tree: the grandchild indented under its parent
"$ANA" report tree "$TMP/t.ptop" >"$TMP/r.txt" || fail "report tree: exit $?"
cat "$TMP/r.txt"
has -E "^process tree \(whole capture\): 6 processes; 5 forks, 2 execs, 6 exits \(2 by a signal, 3 with a non-zero code\)" \
	<"$TMP/r.txt" || fail "text: the totals"
has -E "^  $killed_pid .* SIGKILL " <"$TMP/r.txt" || fail "text: the killed child"
has -E "^    $grand .* 3 " <"$TMP/r.txt" || fail "text: the grandchild under it"
has -E "^  $exec_pid .* true alpha beta gamma" <"$TMP/r.txt" || fail "text: the exec's command"
"$ANA" report tree --format csv "$TMP/t.ptop" >"$TMP/r.csv" || fail "csv: exit $?"
head -1 "$TMP/r.csv" | has -x 'pid,ppid,start_s,end_s,lifetime_s,cpu_s,exit_code,signal,core,comm,command,command_truncated,execs,status_known' ||
	fail "csv header: $(head -1 "$TMP/r.csv")"
assert_eq "csv rows" 6 "$(($(wc -l <"$TMP/r.csv") - 1))"
"$ANA" figures --format csv "$TMP/t.ptop" >"$TMP/f.csv" || fail "figures: exit $?"
for f in forks:5 execs:2 killed:2 failed:3; do
	assert_eq "lifecycle.${f%:*}" "${f#*:}" \
		"$(awk -F, -v n="lifecycle.${f%:*}" '$1 == n { print $2 }' "$TMP/f.csv")"
done

# an argv longer than the cap (1024 bytes): cut, and said so
long=$(printf 'x%.0s' $(seq 1 2000))
"$REC" --quiet -o "$TMP/l.ptop" -- /bin/true "$long" >/dev/null || fail "recording /bin/true LONG"
assert_eq "long argv: cut, argc" "1|2|/bin/true" "$(q "$TMP/l.ptop" "SELECT argv_truncated, argc,
	filename FROM lifecycle_event WHERE kind = 'exec'" | tr , '|')"

# --pid: the children there at the start are present; a new one is followed
bash -c 'sleep 60 & echo "$!" >"$1/sleep"; while [ ! -e "$1/go" ]; do sleep 0.05; done
	/bin/true one two; exit 4' _ "$TMP" &
spid=$!
kill_at_exit "$spid"
wait_until "the shell's sleep" test -s "$TMP/sleep"
kill_at_exit "$(cat "$TMP/sleep")"
"$REC" --interval 200ms --pid "$spid" -o "$TMP/p.ptop" >/dev/null 2>"$TMP/p.err" &
rpid=$!
kill_at_exit "$rpid"
wait_line "$TMP/p.err" 'recording pid' "the recorder to attach"
touch "$TMP/go"
wait "$rpid" || fail "recording --pid: $(cat "$TMP/p.err")"
sp=$(cat "$TMP/sleep")
assert_eq "present: the shell and its sleep 60 (and the loop's short sleeps)" "$spid|$sp" \
	"$(q "$TMP/p.ptop" "SELECT group_concat(pid, '|') FROM (SELECT pid FROM lifecycle_event
	WHERE kind = 'present' AND pid IN ($spid, $sp) ORDER BY pid = $sp)")"
assert_eq "the sleep's parent" "$spid" \
	"$(q "$TMP/p.ptop" "SELECT ppid FROM lifecycle_event WHERE kind = 'present' AND pid = $sp")"
assert_eq "the new child's exec" '/bin/true|["/bin/true","one","two"]' \
	"$(q "$TMP/p.ptop" "SELECT filename || '|' || argv FROM lifecycle_event WHERE kind = 'exec' AND filename = '/bin/true'" | sed 's/^"//; s/"$//; s/""/"/g')"
assert_eq "the shell's exit code" 4 \
	"$(q "$TMP/p.ptop" "SELECT exit_code FROM lifecycle_event WHERE kind = 'exit' AND pid = $spid")"

# not collected: disabled, or without eBPF
"$REC" --quiet --disable lifecycle -o "$TMP/d.ptop" -- /bin/true >/dev/null || fail "--disable"
"$ANA" report tree "$TMP/d.ptop" | has -E '^tree: not collected' || fail "disabled: not said"
"$ANA" figures "$TMP/d.ptop" | has -E '^lifecycle\.forks +not measured' ||
	fail "disabled: the figure not said not measured"
# --no-ebpf: the /proc lane (tree_proc.sh tests it)
"$REC" --quiet --no-ebpf -o "$TMP/n.ptop" -- /bin/true >/dev/null || fail "--no-ebpf"
"$ANA" info "$TMP/n.ptop" | has -E '^ *lifecycle +active +proc' ||
	fail "--no-ebpf: $("$ANA" info "$TMP/n.ptop" | grep lifecycle)"
echo PASS
