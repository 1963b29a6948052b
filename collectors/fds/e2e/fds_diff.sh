# The fds figures in `figures` and the CI gates of `diff`: fd_leak leaks 200 eventfds
# (a steady rise), fd_leak churn opens and closes 400 fds (none kept). Checks:
#  - figures of the leak: fds.growth 200, fds.type(eventfd) 200 at the end, fds.peak =
#    fds.open_at_end; the opens and closes "not measured" (with the reason) without
#    --fd-stacks, never 0;
#  - diff churn -> leak with --fail-on 'fds.growth > +50' fails (exit 1) naming the gate;
#    leak -> churn passes it (exit 0);
#  - with --fd-stacks, fds.opens counts the churn's 400 opens and fds.closes its closes;
#  - with --disable fds every fds figure is "not measured" with the probe set's reason, and
#    a gate on one is "not comparable" (exit 1) unless --allow-missing.
. tests/e2e/lib.sh
need_ebpf
need_fixture fd_leak
command -v python3 >/dev/null || skip "python3 is not installed (the JSON checks)"

L=$TMP/leak.ptop C=$TMP/churn.ptop
"$REC" --quiet --interval 250ms -o "$L" -- "$FIX/fd_leak" eventfd 500 >/dev/null || fail "recording the leak"
"$REC" --quiet --interval 250ms -o "$C" -- "$FIX/fd_leak" churn 2500 >/dev/null || fail "recording the churn"

"$ANA" figures --format json "$L" >"$TMP/f.json" || fail "figures --format json: exit $?"
fig() { jget "$TMP/f.json" "[f['$2'] for f in j['figures'] if f['figure'] == '$1'][0]"; }
assert_eq "leak: fds.growth" 200 "$(fig fds.growth value)"
assert_eq "leak: fds.type(eventfd)" 200 "$(fig 'fds.type(eventfd)' value)"
assert_eq "leak: fds.open_at_end" "$(q "$L" "select total from fd_sample order by time_ns desc limit 1")" \
	"$(fig fds.open_at_end value)"
assert_eq "leak: fds.peak = fds.open_at_end (it only rose)" "$(fig fds.open_at_end value)" \
	"$(fig fds.peak value)"
assert_eq "leak: fds.opens without --fd-stacks" "not measured" "$(fig fds.opens status)"
fig fds.opens note | has -- '--fd-stacks' || fail "fds.opens: the reason does not name --fd-stacks"
"$ANA" figures "$C" | has -E '^fds\.growth +0 +count' || fail "churn: fds.growth is not 0"

# the gate: a leak fails the build, its fix passes
out=$("$ANA" diff --fail-on 'fds.growth > +50' "$C" "$L" 2>&1) && fail "churn -> leak: the gate passed:
$out"
rc=$?
assert_eq "churn -> leak: exit" 1 "$rc"
echo "$out" | has -E 'FAIL fds\.growth > \+50: FAILED: fds\.growth 0 -> 200 \(\+200' ||
	fail "churn -> leak: no failed gate line:
$out"
echo "$out" | has -E '^fds\.type\(eventfd\) +none +200 ' || fail "churn -> leak: no eventfd change:
$out"
"$ANA" diff --fail-on 'fds.growth > +50' "$L" "$C" >"$TMP/back.txt" 2>&1 ||
	{ cat "$TMP/back.txt"; fail "leak -> churn: the gate failed (exit $?)"; }
has -E 'pass fds\.growth > \+50: passed' <"$TMP/back.txt" || { cat "$TMP/back.txt"; fail "leak -> churn: no PASS line"; }

# the eBPF lane: opens and closes counted
S=$TMP/stacks.ptop
"$REC" --quiet --fd-stacks --interval 250ms -o "$S" -- "$FIX/fd_leak" churn 500 >/dev/null || fail "recording with --fd-stacks"
"$ANA" figures --format json "$S" >"$TMP/f.json"
assert_eq "--fd-stacks: fds.opens = report's" "$(q "$S" "select sum(opened) from fd_op")" "$(fig fds.opens value)"
assert_ge "--fd-stacks: fds.opens" 400 "$(fig fds.opens value)"
assert_ge "--fd-stacks: fds.closes" 400 "$(fig fds.closes value)"
assert_eq "--fd-stacks: fds.emfile" 0 "$(fig fds.emfile value)"

# not collected: not measured, never 0; a gate on it is not comparable
D=$TMP/off.ptop
"$REC" --quiet --disable fds --duration 1s -o "$D" -- sleep 0.3 >/dev/null
"$ANA" figures --format json "$D" >"$TMP/f.json"
for name in fds.growth fds.open_at_end fds.peak 'fds.type(*)' fds.opens; do
	assert_eq "--disable fds: $name" "not measured" "$(fig "$name" status)"
	fig "$name" note | has 'fds disabled' || fail "--disable fds: $name: no reason"
done
expect_exit 1 "$ANA" diff --fail-on 'fds.growth > +50' "$C" "$D"
has 'not comparable' <"$TMP/out" || has 'not comparable' <"$TMP/err" || fail "--disable fds: the gate is not 'not comparable'"
expect_exit 0 "$ANA" diff --allow-missing --fail-on 'fds.growth > +50' "$C" "$D"
echo "fds_diff: ok"
