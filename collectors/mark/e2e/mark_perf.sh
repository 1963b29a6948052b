# The mark collector with uprobe_multi links refused (PTOP_TEST_REFUSE, record/kfeature.h),
# as on a kernel before Linux 6.6: its uprobes go as perf events, each with its mark's index
# as the BPF cookie. Two marks, the counted one second (index 1): handle_request's calls
# are counted exactly, as the regress fixture says it made them; the probe set names the
# lane that ran and why the other did not.
. "$(dirname "$0")/../../../tests/e2e/lib.sh"
need_ebpf
need_fixture regress

PTOP_TEST_REFUSE=uprobe_multi "$REC" --quiet --interval 250ms --mark work=steady_work \
	--mark requests=handle_request -o "$TMP/m.ptop" -- "$FIX/regress" 1000 0 100 0 2 \
	>"$TMP/m.txt" || fail "recording"
want=$(sed -n 's/^requests: //p' "$TMP/m.txt")
got=$("$ANA" figures --format csv "$TMP/m.ptop" | awk -F, '$1 == "mark.count(requests)" { print $2 }')
[ -n "$want" ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ] ||
	fail "mark.count(requests) is '$got', the fixture made '$want' requests"
echo "ok: mark.count(requests) = $got"
assert_eq "mark state" "active" "$(q "$TMP/m.ptop" "select state from probe where name = 'mark'")"
assert_eq "mark lanes" \
	"uprobe_multi unsupported needs Linux 6.6: uprobe_multi (refused by PTOP_TEST_REFUSE)
perf_uprobe active " \
	"$(q "$TMP/m.ptop" "select lane || ' ' || state || ' ' || coalesce(reason, '')
		from probe_lane where probe = 'mark' order by seq")"
