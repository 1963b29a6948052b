# cache_parallel: several analyzers at once on a capture not yet in the cache (parallel CI
# jobs) answer byte for byte what they answer one after the other. Per round, a fresh
# cache folder and 16 commands started together over golden's full capture (report cpu,
# report syscalls, symbolize, diff --all --format json, info, sql on the names stored):
# the entry is built once under a private name and renamed into place, its frames named
# before it appears, so no command sees it half built or half named. Then, with
# PTOP_CACHE_MAX=1, 15 commands over golden's five captures at once: a build's cap never
# removes an entry another process uses, nor the new one. ROUNDS (default 20) rounds of
# the first, ROUNDS_MAX (default 10) of the second.
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BABS=$(cd "$B" && pwd)
ANA_ABS=$BABS/ptop-analyze
ROUNDS=${ROUNDS:-20}
ROUNDS_MAX=${ROUNDS_MAX:-10}
[ -f "$BABS/libptop-proto.a" ] || missing "$BABS/libptop-proto.a is not built (make programs)"
export TZ=UTC LC_ALL=C.UTF-8
unset COLUMNS NO_COLOR DEBUGINFOD_URLS PTOP_CACHE_MAX

cc -O1 -std=gnu11 -D_GNU_SOURCE -I"$ROOT" -I"$BABS" $(pkg-config --cflags libzstd libprotobuf-c) \
	-o "$TMP/gen" "$ROOT/tests/golden/gen.c" "$BABS/libptop-proto.a" \
	$(pkg-config --libs libzstd libprotobuf-c) || fail "cannot build tests/golden/gen.c"
CAP=$TMP/cap
mkdir -p "$CAP" "$TMP/s" "$TMP/p"
"$TMP/gen" "$CAP" || fail "gen failed"

# one K N: command N of the mixed set (N mod 6) over full.ptop, its answer and exit
# status into folder K
one() {
	local k=$1 n=$2 rc=0
	case $((n % 6)) in
	0) (cd "$CAP" && "$ANA_ABS" report cpu full.ptop) ;;
	1) (cd "$CAP" && "$ANA_ABS" report syscalls full.ptop) ;;
	2) (cd "$CAP" && "$ANA_ABS" symbolize full.ptop) ;;
	3) (cd "$CAP" && "$ANA_ABS" diff --all --format json noheap.ptop full.ptop) ;;
	4) (cd "$CAP" && "$ANA_ABS" info full.ptop) ;;
	5) (cd "$CAP" && "$ANA_ABS" sql full.ptop \
		'SELECT count(*) FROM symbol_frame UNION ALL SELECT count(*) FROM frame_module') ;;
	esac >"$TMP/$k/$n" 2>&1 || rc=$?
	echo "--- exit $rc" >>"$TMP/$k/$n"
}

# serial answers, from a fresh cache
export XDG_CACHE_HOME=$TMP/cache-serial
for n in $(seq 0 15); do one s "$n"; done
grep -q "3 named" "$TMP/s/2" || fail "the serial symbolize did not name 3 frames: $(cat "$TMP/s/2")"

bad=0
for r in $(seq 1 "$ROUNDS"); do
	export XDG_CACHE_HOME=$TMP/cache-$r
	for n in $(seq 0 15); do one p "$n" & done
	wait
	for n in $(seq 0 15); do
		if ! cmp -s "$TMP/s/$n" "$TMP/p/$n"; then
			bad=$((bad + 1))
			echo "round $r, command $n differs from the serial run:"
			diff "$TMP/s/$n" "$TMP/p/$n" | head -8 || true
		fi
	done
	ls "$XDG_CACHE_HOME/ptop" | grep -q '\.tmp\.' && fail "round $r left a temporary build"
	rm -rf "$XDG_CACHE_HOME"
done
[ "$bad" = 0 ] || fail "$bad of $((ROUNDS * 16)) parallel answers differ from the serial ones"
echo "ok: $((ROUNDS * 16)) parallel answers equal the serial ones"

# PTOP_CACHE_MAX=1: every build removes what it may; none removes an entry in use
caps="full truncated noheap noebpf cgroup"
mkdir -p "$TMP/ms" "$TMP/mp"
export XDG_CACHE_HOME=$TMP/cache-max-serial
for c in $caps; do
	for k in info "report syscalls" "report cpu"; do
		(cd "$CAP" && PTOP_CACHE_MAX=1 "$ANA_ABS" $k "$c.ptop") >"$TMP/ms/$c-${k// /_}" 2>&1 ||
			echo "--- exit $?" >>"$TMP/ms/$c-${k// /_}"
	done
done
bad=0
for r in $(seq 1 "$ROUNDS_MAX"); do
	export XDG_CACHE_HOME=$TMP/cache-max-$r
	for c in $caps; do
		for k in info "report syscalls" "report cpu"; do
			( (cd "$CAP" && PTOP_CACHE_MAX=1 "$ANA_ABS" $k "$c.ptop") >"$TMP/mp/$c-${k// /_}" 2>&1 ||
				echo "--- exit $?" >>"$TMP/mp/$c-${k// /_}") &
		done
	done
	wait
	for f in "$TMP"/ms/*; do
		if ! cmp -s "$f" "$TMP/mp/${f##*/}"; then
			bad=$((bad + 1))
			echo "PTOP_CACHE_MAX=1 round $r, ${f##*/} differs from the serial run:"
			diff "$f" "$TMP/mp/${f##*/}" | head -8 || true
		fi
	done
	n=$(ls "$XDG_CACHE_HOME/ptop" | grep -c '\.db$' || true)
	[ "$n" -ge 1 ] || fail "PTOP_CACHE_MAX=1 round $r: the cap removed every entry, the new one too"
	rm -rf "$XDG_CACHE_HOME"
done
[ "$bad" = 0 ] || fail "$bad of $((ROUNDS_MAX * 15)) answers under PTOP_CACHE_MAX=1 differ from the serial ones"
echo "ok: $((ROUNDS_MAX * 15)) parallel answers under PTOP_CACHE_MAX=1 equal the serial ones"
echo "cache_parallel: ok"
