# replay_heap.sh — the replay viewer's F9 Heap tab on a real capture of
# tests/fixtures/heap_leak.c (1000 x 4096 bytes leaked from leak_pages(), 1,000,000
# malloc(64)+free pairs in churn()), every allocation with its stack: at the end, the top
# call site by live bytes is leak_pages with exactly 4,096,000 live bytes (3.91 MiB), named
# with its file:line, the census line is there, and leak_pages is a leak suspect (--leak-age
# 1s). A capture without the heap collector says "not collected" with the reason.
. "$(dirname "$0")/lib.sh"
need_ebpf
caps=$("$REC" --caps 2>&1 || true)
echo "$caps" | has -E '^ *heap +yes' ||
	skip "the heap collector cannot run here: $(echo "$caps" | grep -E '^ *heap ')"
[ -x "$FIX/heap_leak" ] || missing "fixture heap_leak is not built (tests/fixtures/heap_leak.c)"

"$REC" --quiet --enable heap --heap-sample-bytes 0 --leak-age 1s -o "$TMP/heap.ptop" -- "$FIX/heap_leak" >/dev/null
"$ANA" replay --dump --at 99m --tab heap --size 160x48 "$TMP/heap.ptop" >"$TMP/heap.txt"
cat "$TMP/heap.txt"
assert_eq "frame lines" 48 "$(wc -l <"$TMP/heap.txt")"
grep -q "Top call sites in this interval by live bytes" "$TMP/heap.txt" ||
	fail "the heap tab shows no call sites"
grep -q "census: " "$TMP/heap.txt" || fail "the heap tab shows no census line"
# the first site row: leak_pages, 3.91 MiB live (4,096,000 bytes), with its source line
first=$(grep -A1 -E "^ +live +live# +allocated" "$TMP/heap.txt" | tail -1)
echo "first row: $first"
echo "$first" | has -E "^ +3\.91 MiB +1,000 .* leak_pages +[^ ]*heap_leak\.c:[0-9]+ +heap_leak" ||
	fail "the top call site is not leak_pages with 3.91 MiB in 1,000 live blocks at heap_leak.c:LINE"
grep -Eq "^ Leak suspects up to here: [1-9]" "$TMP/heap.txt" || fail "no leak suspect"
grep -Eq "^ score .* leak_pages \(heap_leak\)" "$TMP/heap.txt" || fail "leak_pages is not a suspect"
grep -Eq "^ score .* churn " "$TMP/heap.txt" && fail "churn (everything freed) is a suspect"

# without the heap collector: not collected, with the probe set's reason, no table
"$REC" --quiet -o "$TMP/noheap.ptop" -- "$FIX/heap_leak" >/dev/null
"$ANA" replay --dump --at 99m --tab heap "$TMP/noheap.ptop" >"$TMP/noheap.txt"
cat "$TMP/noheap.txt"
grep -q "not collected" "$TMP/noheap.txt" || fail "no heap collector: the tab does not say not collected"
grep -q "Top call sites" "$TMP/noheap.txt" && fail "no heap collector: a call-site table was drawn"

# the live viewer in tmux: F9, the end, Enter on the top site shows its stack, named; Esc back
if ! command -v tmux >/dev/null; then
	echo "replay_heap: ok (tmux not installed: the drill-in was not driven)"
	exit 0
fi
SOCK=ptop-replay-heap-$$
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null || true; sleep 0.2; rm -rf "$TMP" 2>/dev/null || rm -rf "$TMP"' EXIT
wait_for() { # PATTERN WHAT: poll the pane, up to 30 s
	local i
	for i in $(seq 1 300); do
		tm capture-pane -p -t rh | has -E -- "$1" && { echo "ok: $2"; return 0; }
		sleep 0.1
	done
	tm capture-pane -p -t rh >&2
	fail "timed out waiting for: $2"
}
tm -u new-session -d -s rh -x 160 -y 48 \
	"env -i PATH=$PATH HOME=$TMP TERM=screen LANG=C.UTF-8 XDG_CACHE_HOME=$XDG_CACHE_HOME PS1='READY\$ ' bash --norc --noprofile"
wait_for '^READY\$' "shell prompt"
tm send-keys -t rh "$ANA replay $TMP/heap.ptop; echo EXITED=\$?" Enter
wait_for 'ptop replay +heap_leak' "viewer open"
tm send-keys -t rh 9
tm send-keys -t rh G
wait_for 'Top call sites in this interval by live bytes' "F9, end: the call sites"
tm send-keys -t rh Enter
wait_for 'Stack of leak_pages, the allocating function first' "Enter: the stack of leak_pages"
wait_for '^ +leak_pages at [^ ]*heap_leak\.c:[0-9]+ +\(heap_leak\)' "its frame, named with file:line"
wait_for '^ +main at [^ ]*heap_leak\.c:[0-9]+ +\(heap_leak\)' "main, its caller"
tm send-keys -t rh Escape
wait_for 'Top call sites in this interval' "Esc: back to the call sites"
tm send-keys -t rh q
wait_for '^EXITED=0' "q quits with status 0"
echo "replay_heap: ok"
