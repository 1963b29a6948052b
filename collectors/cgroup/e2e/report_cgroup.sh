# report cgroup and report apps on a real --cgroup recording. Ground truth: two
# cg_pair children that each touch 16 MiB of private memory, one in an
# app-*.scope child cgroup, the other in a plain child cgroup next to a sleep:
# report cgroup lists both children first by PSS (>= 16 MiB each) with full
# coverage; report apps groups the first by its scope, the second by its
# executable (cg_pair), sleep by /usr/bin/sleep (or wherever sleep is), and
# --top 1 folds the other two into "others (2)".
. tests/e2e/lib.sh
need_ebpf

need_cgroup2
NAME=ptop-e2e-rcg-$$
SCOPE=app-ptop-e2e-$$.scope
CG=$V2/$NAME

make_dirs "$CG" "$CG/$SCOPE" "$CG/plain" || skip "cannot create a cgroup under $V2"
[ -n "$V1" ] && make_dirs "$V1/$NAME"

"$FIX/cg_pair" 10 16 >"$TMP/pair.out" &
PAIR=$!
kill_at_exit "$PAIR"
SLEEP_BIN=$(readlink -f "$(command -v sleep)")
sleep 600 &
SLP=$!
kill_at_exit "$SLP"
for i in $(seq 300); do # up to 30 s (a bound, not a timing assertion)
	grep -q '^pids ' "$TMP/pair.out" && break
	sleep 0.1
done
read -r _ C1 C2 <"$TMP/pair.out" || fail "cg_pair did not print its pids"
echo "$C1" >"$CG/$SCOPE/cgroup.procs"
echo "$C2" >"$CG/plain/cgroup.procs"
echo "$SLP" >"$CG/plain/cgroup.procs"
if [ -n "$V1" ]; then
	for p in "$C1" "$C2" "$SLP"; do echo "$p" >"$V1/$NAME/cgroup.procs"; done
fi
kill -USR1 "$PAIR"
for i in $(seq 300); do
	grep -q '^done' "$TMP/pair.out" && break
	sleep 0.1
done
grep -q '^done' "$TMP/pair.out" || fail "cg_pair's children did not touch their memory"

P=$TMP/run.ptop
"$REC" --quiet --cgroup "$CG" --interval 200ms --duration 1s -o "$P"

if [ -r "$CG/memory.current" ]; then lane=v2; elif [ -n "$V1" ]; then lane=v1; else lane=; fi
"$ANA" report cgroup --format json "$P" >"$TMP/cg.json"
assert_eq "collected" True "$(jget "$TMP/cg.json" "j['collected']")"
assert_eq "path" "/$NAME" "$(jget "$TMP/cg.json" "j['path']")"
if [ -n "$lane" ]; then
	assert_eq "lane" "$lane" "$(jget "$TMP/cg.json" "j['lane']")"
	assert_ge "memory current at the end: the children's 2 x 16 MiB" $((32 << 20)) \
		"$(jget "$TMP/cg.json" "j['memory']['current']['last']")"
fi
assert_eq "the two children first by PSS" "$(printf '%s\n' "$C1" "$C2" | sort -n | tr '\n' ' ')" \
	"$(jget "$TMP/cg.json" "' '.join(sorted(str(p['pid']) for p in j['processes'][:2])) + ' '")"
assert_ge "their smaller PSS (bytes)" $((16 << 20)) \
	"$(jget "$TMP/cg.json" "min(p['pss'] for p in j['processes'][:2])")"
assert_eq "processes seen: the children and sleep" 3 "$(jget "$TMP/cg.json" "j['processes_seen']")"
assert_eq "every read covered" "$(jget "$TMP/cg.json" "j['coverage']['processes']")" \
	"$(jget "$TMP/cg.json" "j['coverage']['covered']")"
assert_eq "the scope's child's unit" "$SCOPE" \
	"$(jget "$TMP/cg.json" "[p['unit'] for p in j['processes'] if p['pid'] == $C1][0]")"

"$ANA" report apps --format json "$P" >"$TMP/apps.json"
# the two 16 MiB applications in either order, then sleep
PAIR_EXE=$(readlink -f "$FIX/cg_pair")
assert_eq "apps: the scope and cg_pair (by exe), then sleep" \
	"$PAIR_EXE:exe $SCOPE:unit | $SLEEP_BIN:exe" \
	"$(jget "$TMP/apps.json" "' '.join(sorted(a['app'] + ':' + a['kind'] for a in j['apps'][:2])) + ' | ' + ' '.join(a['app'] + ':' + a['kind'] for a in j['apps'][2:])")"
assert_ge "their smaller PSS" $((16 << 20)) "$(jget "$TMP/apps.json" "min(a['pss'] for a in j['apps'][:2])")"
# figures: each application's PSS as report apps sums it (cg_apps__load), named by the app
# (an executable by its base name)
"$ANA" figures --format json "$P" >"$TMP/fig.json"
assert_eq "figures: cgroup.app(NAME).pss of every application, as report apps" \
	"$(jget "$TMP/apps.json" "' '.join(sorted('%s=%d' % (a['app'].rsplit('/', 1)[-1] if a['kind'] == 'exe' else a['app'], a['pss']) for a in j['apps']))")" \
	"$(python3 -c 'import json, sys
f = json.load(open(sys.argv[1]))["figures"]
print(" ".join(sorted("%s=%d" % (x["figure"][len("cgroup.app("):-len(").pss")], x["value"])
	for x in f if x["figure"].startswith("cgroup.app(") and x["figure"].endswith(").pss"))))' \
	"$TMP/fig.json")"
if [ -n "$lane" ]; then # the cgroup's usage holds the two children's 16 MiB each
	assert_ge "figures: cgroup.usage_peak" $((32 << 20)) \
		"$(jget "$TMP/fig.json" "int([x['value'] for x in j['figures'] if x['figure'] == 'cgroup.usage_peak'][0])")"
fi
"$ANA" report apps --top 1 --by uss --format json "$P" >"$TMP/top.json"
assert_eq "--top 1 folds the rest into others (2)" "others (2)|2|2" \
	"$(jget "$TMP/top.json" "'|'.join([j['apps'][1]['app'], str(j['apps'][1]['folded']), str(j['apps'][1]['processes'])])")"
"$ANA" report cgroup "$P" >"$TMP/cg.txt"
grep -q "^processes by PSS (3 seen" "$TMP/cg.txt" || { cat "$TMP/cg.txt"; fail "text report"; }
# replay: the Memory tab at the end shows the cgroup and its three processes, the children first
"$ANA" replay --dump --at 99m --tab memory --size 120x40 "$P" >"$TMP/replay.txt"
grep -q "^ cgroup /$NAME  lane ${lane:-none}  sample " "$TMP/replay.txt" || { cat "$TMP/replay.txt"; fail "replay: no cgroup title"; }
grep -q "Processes in this sample: 3 " "$TMP/replay.txt" || { cat "$TMP/replay.txt"; fail "replay: not 3 processes"; }
assert_eq "replay: the children first by PSS" "$(printf '%s\n' "$C1" "$C2" | sort -n | tr '\n' ' ')" \
	"$(grep -A2 '^ *pid comm' "$TMP/replay.txt" | awk 'NR > 1 { print $1 }' | sort -n | tr '\n' ' ')"
grep -q "coverage this interval: 3 processes due: 3 covered" "$TMP/replay.txt" || { cat "$TMP/replay.txt"; fail "replay: coverage"; }
expect_exit 2 "$ANA" report cgroup --by pss "$P"
expect_exit 2 "$ANA" report apps --by nope "$P"
