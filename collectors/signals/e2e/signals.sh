# The signals collector against known signals (tests/fixtures/sig_fixture.c): a child named
# sigfix_child sends SIGUSR1 to its parent, the target, exactly N times, each handled; the
# target raises SIGUSR2 on itself M times (SI_TKILL, handled), SIGHUP twice while it blocks
# it (blocked, then already pending; handled once when unblocked), SIGPIPE 3 times under
# SIG_IGN (ignored); the child's exit sends one SIGCHLD (ignored by default). Every count is
# exact, with the sender's pid and name; then the target raises SIGTERM under its default
# action and dies of it: the fatal delivery is counted (the kernel turns a fatal signal into
# a group SIGKILL, which is what the thread takes). The report in text, JSON and CSV, the
# figures, and "not collected" when disabled; under --no-ebpf the counts not measured.
. "$(dirname "$0")/../../../tests/e2e/lib.sh"
need_ebpf
need_fixture sig_fixture

N=37 M=11
rc=0
"$REC" --quiet --interval 200ms -o "$TMP/s.ptop" -- "$FIX/sig_fixture" $N $M die \
	>"$TMP/out.txt" || rc=$?
[ "$rc" = 143 ] || fail "the fixture should die of SIGTERM (143), exit $rc: $(cat "$TMP/out.txt")"
parent=$(sed -n 's/^parent //p' "$TMP/out.txt")
child=$(sed -n 's/^child //p' "$TMP/out.txt")
[ -n "$parent" ] && [ -n "$child" ] || fail "fixture output: $(cat "$TMP/out.txt")"
"$ANA" info "$TMP/s.ptop" | has -E '^ *signals +active +ebpf' || fail "signals not active"

# stage|name|code|result|sender_pid|sender_comm|tid -> count, over the whole capture
q "$TMP/s.ptop" "SELECT stage, name, code, result, sender_pid,
	sender_comm, tid, SUM(count) FROM signal_count
	GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 4" | tr ',' '|' >"$TMP/rows"
cat "$TMP/rows"
want() { # ROW: present exactly
	grep -qxF "$1" "$TMP/rows" || fail "missing or not exact: $1"
	echo "ok: $1"
}
want "generate|SIGUSR1|0|delivered|$child|sigfix_child|$parent|$N"
want "deliver|SIGUSR1|0|handled|||$parent|$N"
want "generate|SIGUSR2|-6|delivered|$parent|sig_fixture|$parent|$M"
want "deliver|SIGUSR2|-6|handled|||$parent|$M"
want "generate|SIGHUP|-6|blocked|$parent|sig_fixture|$parent|1"
want "generate|SIGHUP|-6|already_pending|$parent|sig_fixture|$parent|1"
want "deliver|SIGHUP|-6|handled|||$parent|1"
want "generate|SIGPIPE|-6|ignored|$parent|sig_fixture|$parent|3"
want "generate|SIGCHLD|1|ignored|$child|sigfix_child|$parent|1"
want "generate|SIGTERM|-6|delivered|$parent|sig_fixture|$parent|1"
want "deliver|SIGKILL|0|fatal|||$parent|1"
assert_eq "rows (nothing else)" 11 "$(wc -l <"$TMP/rows")"

# the timeline (report events --category signals): counts per interval as signal_count has
# them, never single signals: the SIGUSR1 counts sent by the child add up to N, in fewer
# events than signals when an interval held several
"$ANA" report events --category signals --format csv "$TMP/s.ptop" >"$TMP/ev.csv" ||
	fail "report events --category signals: exit $?"
python3 - "$TMP/ev.csv" "$N" "$M" "$child" "$parent" <<'PY' || fail "timeline: signals"
import csv, re, sys
n, m, child, parent = map(int, sys.argv[2:6])
rows = list(csv.DictReader(open(sys.argv[1])))
def total(kind, sig, sender=None):
    k = 0
    for r in rows:
        x = re.match(r"(\S+) x(\d+)( from pid (\d+) \((.*)\))? to tid (\d+): (\S+)$", r["text"])
        assert x, r
        if r["kind"] == kind and x.group(1) == sig and (sender is None or x.group(4) == str(sender)):
            assert int(r["pid"]) == parent and int(x.group(6)) == parent, r
            k += int(x.group(2))
    return k
assert total("signal sent", "SIGUSR1", child) == n, rows
assert total("signal taken", "SIGUSR1") == n, rows
assert total("signal sent", "SIGUSR2", parent) == m, rows
assert total("signal taken", "SIGKILL") == 1, rows
usr1 = [r for r in rows if r["kind"] == "signal sent" and r["text"].startswith("SIGUSR1 ")]
assert 1 <= len(usr1) <= n, usr1
print("ok: timeline: SIGUSR1 x%d from %d in %d events, SIGUSR2 x%d" % (n, child, len(usr1), m))
PY

# the report: text, JSON, CSV say the same
"$ANA" report signals "$TMP/s.ptop" >"$TMP/r.txt" || fail "report: exit $?"
cat "$TMP/r.txt"
sent=$((N + M + 2 + 3 + 1 + 1)) taken=$((N + M + 1 + 1))
has -E "^signals \(whole capture\): $sent sent to the target's threads, $taken taken by them" \
	<"$TMP/r.txt" || fail "report text totals"
has -E "^SIGUSR1 +$N +$N +$N +0$" <"$TMP/r.txt" || fail "report: SIGUSR1 by signal"
has -E "^sent +SIGUSR1 +SI_USER +delivered +$child +$child +sigfix_child +$parent +$parent +$N$" \
	<"$TMP/r.txt" || fail "report: the SIGUSR1 row"
has -E "^sent +SIGCHLD +CLD_EXITED +ignored" <"$TMP/r.txt" || fail "report: SIGCHLD's code"
"$ANA" report signals --format json "$TMP/s.ptop" >"$TMP/r.json" || fail "json: exit $?"
python3 - "$TMP/r.json" "$N" "$M" "$child" <<'PY' || fail "report json"
import json, sys
j = json.load(open(sys.argv[1])); n, m, child = map(int, sys.argv[2:5])
assert j["collected"] is True and j["report"] == "signals", j
assert j["sent"] == n + m + 7 and j["taken"] == n + m + 2, (j["sent"], j["taken"])
by = {r["signal"]: r for r in j["by_signal"]}
assert by["SIGUSR1"]["sent"] == n and by["SIGUSR1"]["handled"] == n, by
assert by["SIGKILL"]["fatal"] == 1, by
u = [r for r in j["signals"] if r["signal"] == "SIGUSR1" and r["stage"] == "sent"]
assert len(u) == 1 and u[0]["sender_pid"] == child and u[0]["count"] == n, u
assert sum(r["count"] for r in j["signals"] if r["stage"] == "sent") == j["sent"]
PY
"$ANA" report signals --format csv "$TMP/s.ptop" >"$TMP/r.csv" || fail "csv: exit $?"
head -1 "$TMP/r.csv" | has -x 'stage,signal,code,result,sender_pid,sender_tid,sender_comm,pid,tid,count' ||
	fail "csv header: $(head -1 "$TMP/r.csv")"
assert_eq "csv rows" 11 "$(($(wc -l <"$TMP/r.csv") - 1))"

# figures: the counts the report prints
"$ANA" figures --format csv "$TMP/s.ptop" >"$TMP/f.csv" || fail "figures: exit $?"
assert_eq "signals.sent(SIGUSR1)" "$N" "$(awk -F, '$1 == "signals.sent(SIGUSR1)" { print $2 }' "$TMP/f.csv")"
assert_eq "signals.sent(SIGUSR2)" "$M" "$(awk -F, '$1 == "signals.sent(SIGUSR2)" { print $2 }' "$TMP/f.csv")"
assert_eq "signals.fatal" 1 "$(awk -F, '$1 == "signals.fatal" { print $2 }' "$TMP/f.csv")"

# diff: ten times the SIGUSR1 of another recording is a change for the worse, the rest equal
"$REC" --quiet -o "$TMP/x.ptop" -- "$FIX/sig_fixture" $((N * 10)) $M >/dev/null ||
	fail "recording N x 10"
"$ANA" diff --all --format json "$TMP/s.ptop" "$TMP/x.ptop" >"$TMP/d.json" || fail "diff: exit $?"
python3 - "$TMP/d.json" "$N" <<'PY' || fail "diff of the signals figures"
import json, sys
f = {r["figure"]: r for r in json.load(open(sys.argv[1]))["figures"]}; n = int(sys.argv[2])
r = f["signals.sent(SIGUSR1)"]
assert (r["base"], r["new"], r["status"], r["verdict"]) == (n, 10 * n, "changed", "worse"), r
assert f["signals.sent(SIGUSR2)"]["status"] == "unchanged", f["signals.sent(SIGUSR2)"]
PY

# not collected: disabled, or without eBPF; never a 0 in its place
"$REC" --quiet --disable signals -o "$TMP/d.ptop" -- "$FIX/sig_fixture" 2 1 >/dev/null ||
	fail "recording with --disable signals"
"$ANA" report signals "$TMP/d.ptop" | has -E '^signals: not collected' ||
	fail "disabled: not said not collected"
"$ANA" figures "$TMP/d.ptop" | has -E '^signals\.fatal +not measured' ||
	fail "disabled: the figure not said not measured"
"$REC" --quiet --no-ebpf -o "$TMP/n.ptop" -- "$FIX/sig_fixture" 2 1 >/dev/null ||
	fail "recording with --no-ebpf"
# without eBPF the /proc lane runs (collectors/signals/e2e/signals_proc.sh): no counts
"$ANA" report signals "$TMP/n.ptop" | has -E '^signals \(whole capture\): sent and taken not measured' ||
	fail "--no-ebpf: $("$ANA" report signals "$TMP/n.ptop")"
"$ANA" figures "$TMP/n.ptop" | has -E '^signals\.sent\(\*\) +not measured' ||
	fail "--no-ebpf: the figures not said not measured"
echo "PASS"
