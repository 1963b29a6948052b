# The preload lane's unwinder where it could hurt the target (tests/fixtures/heap_hostile,
# -O2 -fomit-frame-pointer), every allocation's stack (--heap-sample-bytes 0), --no-ebpf:
# the command runs to its end ("ok", exit 0), every count is exact, every frame of every
# stack lies in a module of the capture (no junk address is kept as a frame), and:
#   101 bytes: below a frame without unwinding rules whose rbp is junk, the walk ends at
#       that frame (junk_call) for each of the six junk values
#   102 bytes: in a thread with the smallest stack, the 40 frames of the recursion
#   103 bytes: in a signal handler on the thread's stack, through the kernel's signal
#       frame to the code the signal interrupted (sig_c) and main
#   104 bytes: in a handler on a sigaltstack, 105 bytes: in a makecontext coroutine, 107
#       bytes: in the handler on the sigaltstack below a frame whose rbp is an unmapped
#       address above that stack: the interposed function and its caller only (another
#       stack than the thread's: not walked)
#   106 bytes: a fork child's, not recorded (the library is inert there)
#   108 bytes: in a thread whose first call is pthread_getattr_np on itself (the walk
#       must not ask it for the stack from inside its own realloc: that waits for ever)
#   109 bytes: in a thread glibc started without pthread_create (thrd_create): the
#       stack is not known, the caller only
. tests/e2e/lib.sh
[ -e "$B/libptop-preload.so" ] || missing "$B/libptop-preload.so is not built (make programs)"
need_fixture heap_hostile

C=$TMP/hostile.ptop
# (--interval 100ms: the mappings are scanned while the libraries are loaded; the
# fixture sleeps 300 ms before it exits)
# (timeout: a deadlock in the target is a failure, not a hang of the suite)
timeout 120 "$REC" --quiet --no-ebpf --enable heap --heap-lane preload --heap-sample-bytes 0 \
	--interval 100ms -o "$C" -- "$FIX/heap_hostile" > "$TMP/out.txt" || fail "ptop-record or heap_hostile failed"
assert_eq "heap_hostile ran to its end" ok "$(cat "$TMP/out.txt")"
assert_eq "the target's exit status" 0 "$(q "$C" "select target_exit_code from capture")"
exe=$(readlink -f "$FIX/heap_hostile")
base=$(q "$C" "select min(start - offset) from mapping where path = '$exe'")
[ -n "$base" ] || fail "no mapping of $exe in the capture"

# where FUNCTION: "lo hi" of FUNCTION's code, as offsets from the load base
range() {
	local a n
	read -r a n < <(nm -S "$FIX/heap_hostile" | awk -v f="$1" '$4 == f { print $1, $2 }')
	[ -n "$n" ] || fail "no symbol $1 in $FIX/heap_hostile"
	echo $((16#$a)) $((16#$a + 16#$n))
}
# the sites (stacks) allocating SIZE bytes each time
sites() {
	echo "select stack_id from heap_site group by stack_id
		having sum(alloc_bytes) = $1 * sum(alloc_count)"
}
# frames of the SIZE sites whose return address lies in FUNCTION (after the call: lo < ip <= hi)
in_fn() {
	local lo hi
	read -r lo hi < <(range "$2")
	q "$C" "select count(*) from stack_frame where stack_id in ($(sites "$1"))
		and depth > 0 and ip - $base > $lo and ip - $base <= $hi"
}

for s in 101:600 102:100 103:100 104:100 105:100 106:0 107:100 108:100 109:100; do
	assert_eq "allocations of ${s%:*} bytes" "${s#*:}" "$(q "$C" "select coalesce(sum(alloc_count), 0)
		from heap_site where stack_id in ($(sites "${s%:*}"))")"
done
assert_eq "frames outside every module of the capture" 0 "$(q "$C" "select count(*)
	from stack_frame f where f.depth > 0 and not exists (select 1 from mapping m
		where f.ip >= m.start and f.ip < m.end)")"

# 101: each stack ends in junk_call (the frame without rules), whatever its rbp
n=$(q "$C" "select count(*) from ($(sites 101))")
assert_ge "stacks below junk_call" 1 "$n"
read -r lo hi < <(range junk_call)
assert_eq "stacks that end in junk_call" "$n" "$(q "$C" "select count(*) from stack_frame f
	where f.stack_id in ($(sites 101)) and f.depth = (select max(depth) from stack_frame g
		where g.stack_id = f.stack_id) and f.ip - $base > $lo and f.ip - $base <= $hi")"

# 102: the recursion, whole, in the thread's 16 KiB stack
assert_eq "frames in recurse" 40 "$(in_fn 102 recurse)"
assert_eq "frames in tiny_main" 1 "$(in_fn 102 tiny_main)"

# 103: through the signal frame
assert_eq "the interrupted sig_c" 1 "$(in_fn 103 sig_c)"
assert_ge "main, below the signal" 1 "$(in_fn 103 main)"

# 108: the thread's stack was found when it started
assert_eq "frames in getattr_main" 1 "$(in_fn 108 getattr_main)"

# 104, 105, 107: on another stack; 109: the stack not known: the caller only
for s in 104 105 107 109; do
	assert_eq "frames of the $s-byte stacks" 2 "$(q "$C" "select max(depth) + 1 from stack_frame
		where stack_id in ($(sites $s))")"
done
