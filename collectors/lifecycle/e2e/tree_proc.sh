# The lifecycle collector's /proc lane (--no-ebpf) against a known tree whose processes
# each live about 2 s (20 intervals of 100 ms): a child that execs /bin/sleep with an
# argument, one that exits 5, one killed by SIGKILL, one with a grandchild; the target
# exits 3. What must hold: every process is in the tree under its parent; the exec is
# seen with /proc/PID/exe and the argv of /proc/PID/cmdline; the children's exits have
# their status unknown (never a 0: null in JSON, "unknown" in text) while the launched
# command's is exact (3, read by the recorder, its parent); every fork, exec and exit is
# marked at_poll in the capture and the report says the times are the polls'; the probe
# set says what the lane misses.
. "$(dirname "$0")/../../../tests/e2e/lib.sh"

cat >"$TMP/target.sh" <<'SH'
#!/bin/bash
sh -c 'sleep 2; exec /bin/sleep 1.5' & echo "execer $!"
sh -c 'sleep 2; exit 5' & echo "coder $!"
sleep 30 & k=$!; echo "killed $k"
sh -c 'sleep 2.5 & echo "grand $!"; wait' & echo "mid $!"
sleep 2; kill -KILL $k
wait
exit 3
SH
chmod +x "$TMP/target.sh"
rc=0
"$REC" --quiet --no-ebpf --interval 100ms -o "$TMP/t.ptop" -- "$TMP/target.sh" \
	>"$TMP/out.txt" 2>/dev/null || rc=$?
assert_eq "the target's exit status" 3 "$rc"
kid() { sed -n "s/^$1 //p" "$TMP/out.txt"; }
execer=$(kid execer) coder=$(kid coder) killed=$(kid killed) mid=$(kid mid) grand=$(kid grand)
[ -n "$execer" ] && [ -n "$coder" ] && [ -n "$killed" ] && [ -n "$mid" ] && [ -n "$grand" ] ||
	fail "target output: $(cat "$TMP/out.txt")"

"$ANA" info "$TMP/t.ptop" | has -E '^ *lifecycle +active +proc' ||
	fail "lifecycle not active from /proc: $("$ANA" info "$TMP/t.ptop" | grep lifecycle)"
q "$TMP/t.ptop" "SELECT detail FROM probe WHERE name = 'lifecycle'" |
	has "/proc lane: forks and exits seen at the poll, short-lived processes missed" ||
	fail "the probe detail: $(q "$TMP/t.ptop" "SELECT detail FROM probe WHERE name = 'lifecycle'")"

"$ANA" report tree --format json "$TMP/t.ptop" >"$TMP/r.json" || fail "report tree json: exit $?"
python3 - "$TMP/r.json" "$execer" "$coder" "$killed" "$mid" "$grand" "$(readlink -f /bin/sleep)" <<'PY' ||
import json, sys
j = json.load(open(sys.argv[1]))
ex, cd, kl, md, gr = map(int, sys.argv[2:7]); sleep = sys.argv[7]
assert j["collected"] is True and j["at_poll"] is True, j
p = {r["pid"]: r for r in j["processes"]}
root = [r for r in j["processes"] if r["ppid"] not in p]
assert len(root) == 1, root
root = root[0]
assert root["exit_code"] == 3 and root["signal"] is None and root["status_known"] is True, root
def is_(pid, **want):
    r = p[pid]
    for k, v in want.items():
        assert r[k] == v, (pid, k, r[k], v, r)
    print("ok:", pid, want)
unknown = dict(exit_code=None, signal=None, status_known=False)
is_(ex, ppid=root["pid"], command="/bin/sleep 1.5", **unknown)
is_(cd, ppid=root["pid"], **unknown)
is_(kl, ppid=root["pid"], command="sleep 30", **unknown)
is_(md, ppid=root["pid"], **unknown)
is_(gr, ppid=md, command="sleep 2.5", **unknown)
for r in j["processes"]:
    assert r["end_s"] is not None and (r["start_s"] is None or r["end_s"] >= r["start_s"]), r
assert j["status_unknown"] == j["exits"] - 1, j
x = [e for e in j["exec_list"] if e["pid"] == ex and e["filename"] == sleep]
assert len(x) == 1 and x[0]["argv"] == ["/bin/sleep", "1.5"] and x[0]["argc"] == 2, j["exec_list"]
PY
	fail "report tree json"

"$ANA" report tree "$TMP/t.ptop" >"$TMP/r.txt" || fail "report tree: exit $?"
cat "$TMP/r.txt"
has -E "^  $coder .* unknown " <"$TMP/r.txt" || fail "text: the code's exit not unknown"
has -E "^    $grand .* unknown " <"$TMP/r.txt" || fail "text: the grandchild under its parent"
has "times of forks, execs and exits are the polls'" <"$TMP/r.txt" || fail "text: not said at the poll"
has -E "^[0-9]+ exits with the status unknown" <"$TMP/r.txt" || fail "text: unknown exits not counted"

# in the capture: each fork, exec and exit seen at a poll says so
"$ANA" export --format jsonl "$TMP/t.ptop" >"$TMP/t.jsonl"
python3 - "$TMP/t.jsonl" <<'PY' || fail "at_poll in the capture"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
lc = [e["payload"] for e in ev if e.get("type") == "ptop.v1.LifecycleEvent"]
moves = [e for e in lc if e["kind"] != "present"]
assert len(moves) >= 15, len(moves)
assert all(e.get("at_poll") is True for e in moves), [e for e in moves if not e.get("at_poll")]
assert not any(e.get("at_poll") for e in lc if e["kind"] == "present")
print("ok: %d events, all at_poll" % len(moves))
PY
echo PASS
