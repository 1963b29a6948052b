# heap_attach.sh with uprobe_multi links refused (PTOP_TEST_REFUSE, record/kfeature.h), as
# on a kernel before Linux 6.6 (Debian 12's 6.1): the heap's uprobes go as perf-event
# uprobes, with the same exact counts as heap_attach.sh asserts, and the probe set names the
# lane that ran and why the other did not.
export PTOP_TEST_REFUSE=uprobe_multi
. collectors/heap/e2e/heap_attach.sh
for m in plain fork; do
	assert_eq "$m: heap lanes" \
		"uprobe_multi unsupported needs Linux 6.6: uprobe_multi (refused by PTOP_TEST_REFUSE)
perf_uprobe active " \
		"$(q "$TMP/$m.ptop" "select lane || ' ' || state || ' ' || coalesce(reason, '')
			from probe_lane where probe = 'heap' and lane like '%uprobe%' order by seq")"
done
"$ANA" info "$TMP/plain.ptop" >"$TMP/info.txt"
has 'perf_uprobe' <"$TMP/info.txt" || fail "info does not show the heap's lanes"
