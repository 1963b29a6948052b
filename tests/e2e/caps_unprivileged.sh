# --caps as an unprivileged user tells the truth about the heap: the preload lane
# records a launched command's heap without privileges (and does, here), the uprobe
# lane (--pid) needs CAP_BPF and CAP_PERFMON (issue 10: it said the heap needs CAP_BPF).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (to run the recorder as nobody with setpriv)"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
nobody true 2>/dev/null || skip "cannot run as nobody here"
nobody test -x "$REC" || skip "$REC is not reachable by nobody"
chmod 755 "$TMP"
mkdir -m 777 "$TMP/out"

nobody "$REC" --caps >"$TMP/caps"
grep -E '^ +heap ' "$TMP/caps" >"$TMP/heap" || fail "no heap line in --caps"
cat "$TMP/heap"
grep -qE '^ +heap +yes +preload ' "$TMP/heap" || fail "the heap is not 'yes preload' without privileges"
grep -q 'launched command' "$TMP/heap" || fail "the heap line does not say: launched commands"
grep -q 'needs no privileges' "$TMP/heap" || fail "the heap line does not say the preload lane needs no privileges"
grep -q 'CAP_BPF and CAP_PERFMON' "$TMP/heap" || fail "the heap line does not say what uprobes need"
grep -qE '^ +syscalls +no ' "$TMP/caps" || fail "syscalls is not 'no' without privileges"

# ...and so it is: the heap of a launched command, recorded as nobody.
nobody "$REC" --quiet --enable heap --heap-sample-bytes 0 -o "$TMP/out/h.ptop" -- "$FIX/heap_leak" >/dev/null
assert_eq "heap state as nobody" active "$(q "$TMP/out/h.ptop" "select state from probe where name = 'heap'")"
assert_eq "heap source as nobody" preload "$(q "$TMP/out/h.ptop" "select source from probe where name = 'heap'")"
