# faults: the fault-injection suite (tests/faults/fault_inject.c): the Nth allocation, then
# the Nth I/O call, fails in the capture writer and in the loader (into an existing DB and
# into a new one), and every run must end with a clean error or a whole result, no file
# or DB half-written, and no crash or leak: the program is built here with ASan+UBSan
# against build/asan's libraries when they are there (make test builds them), else
# against the plain ones. PTOP_FAULT_RUNS=P scales the runs of each sweep to P% (default
# 100: about 30 s under ASan); 0 fails every call once (long).
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BABS=$(cd "$B" && pwd)
LIBS="libptop-analyze.a libptop-symbol.a libptop-proto.a"
L=$BABS/asan SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
for l in $LIBS version.o; do
	[ -f "$L/$l" ] || { L=$BABS SAN=; break; }
done
for l in $LIBS version.o; do
	[ -f "$L/$l" ] || missing "$L/$l is not built (make programs)"
done
[ -n "$SAN" ] && echo "built with ASan+UBSan ($L)" || echo "built without sanitizers ($L: no build/asan)"
WRAP=-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=open,--wrap=write
WRAP=$WRAP,--wrap=pread,--wrap=fsync,--wrap=ftruncate,--wrap=ZSTD_createCCtx
WRAP=$WRAP,--wrap=ZSTD_createDCtx,--wrap=ZSTD_compress2
PKGS="libbpf libdw libelf libzstd libprotobuf-c sqlite3 ncursesw libdebuginfod"
# shellcheck disable=SC2086
cc -O1 -g -std=gnu11 -Wall -Wextra -Werror -Wno-missing-field-initializers -D_GNU_SOURCE \
	-fno-omit-frame-pointer $SAN -I"$ROOT" -I"$L" -I"$BABS" $(pkg-config --cflags $PKGS) \
	-o "$TMP/fault_inject" "$ROOT/tests/faults/fault_inject.c" \
	$(for l in $LIBS; do echo "$L/$l"; done) "$L/version.o" $(ls "$L"/common/*.o 2>/dev/null) \
	$WRAP $(pkg-config --libs $PKGS) -lz -lm || fail "cannot build tests/faults/fault_inject.c"

# the captures it writes and loads: the golden ones
cc -O1 -g -std=gnu11 -Wall -Wextra -Werror -Wno-missing-field-initializers -D_GNU_SOURCE \
	-I"$ROOT" -I"$BABS" $(pkg-config --cflags libzstd libprotobuf-c) -o "$TMP/gen" \
	"$ROOT/tests/golden/gen.c" "$BABS/libptop-proto.a" $(pkg-config --libs libzstd libprotobuf-c) ||
	fail "cannot build tests/golden/gen.c"
mkdir "$TMP/d"
"$TMP/gen" "$TMP/d" || fail "gen failed"

ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$TMP/fault_inject" "$TMP/d" || fail "fault_inject: a fault did not end cleanly (above)"
