# `ptop-analyze diff` between identical runs raises no alarm (issue 20): one deterministic
# workload (tests/fixtures/diff_steady.c: allocates, keeps, frees and maps memory the same way
# every run) recorded RUNS times (default 3; RUNS=5 gives the issue's 20 ordered pairs) with
# every collector that is on by default plus --enable heap at its default sampling, and every
# ordered pair diffed. Each must have:
#  - no verdict other than "unchanged", "not significant" (within the noise its test allows)
#    or "too few samples": no better/worse/new/gone, nothing "not comparable" but the
#    collectors measured on neither side, nothing "not reported";
#  - no gate fired, with gates on every figure the issue saw fire;
#  - a sampled heap's site figures said "estimated";
#  - ptop's own memory (the preload lane's memfd) out of the target's: no vma group of it,
#    and memory_sample.probe_rss measured, out of rss (statm, the kernel's own counter, holds
#    both).
# The 5-recording version: RUNS=5 PTOP_BUILD=build PTOP_TESTS=diff_noise tests/run.sh
. "$(dirname "$0")/lib.sh"
need_ebpf
need_fixture diff_steady
command -v python3 >/dev/null || skip "python3 is not installed (the JSON checks)"

RUNS=${RUNS:-3}
for i in $(seq "$RUNS"); do
	"$REC" --quiet --enable heap -o "$TMP/r$i.ptop" -- "$FIX/diff_steady" 2500 >"$TMP/out$i" ||
		fail "recording run $i"
	has -x 'done 250250' <"$TMP/out$i" || fail "run $i did not do its work: $(cat "$TMP/out$i")"
done

gates=()
for g in 'heap.site(*).live_bytes > +10%' 'heap.site(*).alloc_bytes > +10%' \
	'heap.site(*).alloc_count > +10%' 'heap.live_bytes > +10%' 'heap.alloc_rate > +10%' \
	'heap.alloc_bytes > +10%' 'mem.uss_peak > +10%' 'mem.pss_peak > +10%' \
	'mem.rss_peak > +10%' 'mem.uss_peak < -10%' 'mem.pss_peak < -10%' \
	'vma.group(*).rss > +10%' 'vma.group(*).pss > +10%' 'vma.group(*).rss < -10%' \
	'syscalls.rate(*) > +20%' 'syscalls.rate(*) < -20%' 'cpu.share(*) > +5pp' \
	'fds.peak > +10%' 'io.read_bytes > +10%'; do
	gates+=(--fail-on "$g")
done

pairs=0
for i in $(seq "$RUNS"); do
	for j in $(seq "$RUNS"); do
		[ "$i" = "$j" ] && continue
		rc=0
		"$ANA" diff --format json "${gates[@]}" "$TMP/r$i.ptop" "$TMP/r$j.ptop" \
			>"$TMP/d.json" 2>"$TMP/d.err" || rc=$?
		python3 - "$TMP/d.json" "r$i r$j" "$rc" <<'PY' || fail "identical runs r$i r$j: an alarm"
import json, sys
d = json.load(open(sys.argv[1]))
pair, rc = sys.argv[2], int(sys.argv[3])
quiet = ("unchanged", "not_significant", "too_few_samples")
bad = []
for r in d["figures"]:
    if r["status"] in quiet:
        continue
    if r["status"] == "not_comparable" and (r["reason"] or "").startswith("not measured on either side"):
        continue
    bad.append((r["figure"], r["status"], r["verdict"], r["base"], r["new"], r["reason"]))
fired = [(g["expr"], g["status"], g["message"]) for g in d["gates"] if g["status"] != "pass"]
for b in bad:
    print(pair, "verdict:", b, file=sys.stderr)
for f in fired:
    print(pair, "gate:", f, file=sys.stderr)
assert not bad and not fired and rc == 0 and d["exit"] == 0, (pair, rc)
# the figures the issue saw move were compared, not left out
names = {r["figure"]: r for r in d["figures"]}
for want in ("mem.uss_peak", "mem.pss_peak", "heap.alloc_rate", "heap.site(keep_objects).alloc_count",
             "heap.site(churn_objects).alloc_bytes"):
    assert want in names, (pair, want)
# ptop's memfd is no group of the target's
assert not [n for n in names if "ptop-preload" in n and "libptop" not in n], pair
# a sampled heap's site figures are estimates, and say so
for n, r in names.items():
    if n.startswith("heap.site("):
        assert r["estimated"], (pair, n)
# an equal count over runs of different lengths is no change of its rate
a = names["heap.alloc_rate"]
assert a["base_count"] == a["new_count"] and a["status"] == "unchanged", (pair, a)
PY
		pairs=$((pairs + 1))
	done
done
[ "$pairs" = $((RUNS * (RUNS - 1))) ] || fail "$pairs pairs"

# the text says "estimated" for a sampled site, figures too
"$ANA" diff --all "$TMP/r1.ptop" "$TMP/r2.ptop" | has -E '^heap\.site\(keep_objects\)\.alloc_count .*estimated: about [0-9]+ vs [0-9]+ samples' ||
	fail "diff does not say a sampled site's figure is estimated"
"$ANA" figures "$TMP/r1.ptop" | has -E '^heap\.site\(keep_objects\)\.alloc_bytes .* yes +measured +estimated: one allocation sampled per 512 KiB' ||
	fail "figures does not say a sampled site's figure is estimated"

# ptop's own memory: measured apart in every sample with a rollup, out of rss. statm and
# smaps are read one after the other while the memfd may grow, so rss + probe_rss can pass
# statm_rss by that growth; rss that still held the memfd would be statm_rss itself, a whole
# probe_rss above: half of it tells them apart
"$ANA" sql --format csv "$TMP/r1.ptop" \
	"SELECT COUNT(*), COUNT(probe_rss), MAX(probe_rss), SUM(rss + probe_rss / 2 <= statm_rss) FROM memory_sample WHERE rss IS NOT NULL" \
	>"$TMP/probe.csv" || fail "sql on memory_sample"
IFS=, read -r n np maxp sane < <(tail -n 1 "$TMP/probe.csv")
[ "$n" -ge 1 ] && [ "$np" = "$n" ] || fail "probe_rss measured in $np of $n samples"
[ "$maxp" -ge $((1 << 20)) ] || fail "the preload memfd's RSS is $maxp bytes: not measured"
[ "$sane" = "$n" ] || fail "rss still holds ptop's memfd (statm_rss < rss + probe_rss / 2 in $((n - sane)) samples)"
"$ANA" report mem "$TMP/r1.ptop" | has -E '^probe overhead \(ptop.s own mappings in the target' ||
	fail "report mem does not show the probe overhead apart"
"$ANA" report mem --format json "$TMP/r1.ptop" | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = d["probe_overhead"]
assert p["samples"] >= 1 and p["rss_max"] >= 1 << 20, p' || fail "report mem --format json: probe_overhead"
# report vma lists the memfd (when a snapshot held it) as ptop's, out of the total
"$ANA" report vma "$TMP/r1.ptop" | grep -F 'memfd:ptop-preload' | has -vF "(ptop's, not in total)" &&
	fail "report vma lists ptop's memfd as the target's"
echo "ok ($pairs pairs)"
