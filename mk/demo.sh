#!/usr/bin/env bash
# demo.sh — `make demo`: record the bundled demo workload for about 5 s with the
# real collectors, then show what ptop-analyze says about it.
set -euo pipefail
B=${PTOP_BUILD:-build}
out=$B/demo.ptop
rec=("$B/ptop-record" --force -o "$out")
if [ "$(id -u)" != 0 ]; then
	echo "demo: not root, so eBPF collectors cannot load: recording with --no-ebpf" >&2
	echo "demo: (run 'sudo make demo' to see the eBPF collectors)" >&2
	rec+=(--no-ebpf)
fi
echo "\$ ptop-record -o $out -- $B/tests/fixtures/demo_workload 5"
"${rec[@]}" -- "$B/tests/fixtures/demo_workload" 5
echo
echo "\$ ptop-analyze info $out"
"$B/ptop-analyze" info "$out"
for r in syscalls cpu mem; do
	echo
	echo "\$ ptop-analyze report $r $out"
	"$B/ptop-analyze" report "$r" --top 10 "$out"
done
