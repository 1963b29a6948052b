# make install and make uninstall with a PREFIX of the test's own, staged with DESTDIR
# too: the programs, the preload library and the man pages land under the prefix
# (man pages under PREFIX/share/man), and the installed ptop-record, run from another
# folder, finds its preload library and records a launched command's heap with it;
# uninstall removes every file it installed and the library's folder.
. "$(dirname "$0")/lib.sh"
[ -e "$B/libptop-preload.so" ] || missing "$B/libptop-preload.so is not built (make programs)"
[ -x "$FIX/heap_leak" ] || missing "fixture heap_leak is not built"
command -v make >/dev/null || skip "make is not installed"
top=$(cd "$(dirname "$0")/../.." && pwd)
fix_abs=$(cd "$FIX" && pwd)
prefix=$TMP/opt/ptop-test

installed="bin/ptop-record bin/ptop-analyze lib/ptop/libptop-preload.so
share/man/man1/ptop-record.1 share/man/man1/ptop-analyze.1 share/man/man5/ptop-capture.5"

# DESTDIR stages: nothing goes to PREFIX itself.
make -s -C "$top" --no-print-directory B="$B" PREFIX=/opt/ptop-test DESTDIR="$TMP/stage" \
	install >"$TMP/stage.log" 2>&1 || { cat "$TMP/stage.log"; fail "make install DESTDIR= failed"; }
for f in $installed; do
	[ -f "$TMP/stage/opt/ptop-test/$f" ] || fail "DESTDIR install lacks $f"
done
[ -e /opt/ptop-test ] && fail "DESTDIR install wrote to /opt/ptop-test itself"

make -s -C "$top" --no-print-directory B="$B" PREFIX="$prefix" install \
	>"$TMP/install.log" 2>&1 || { cat "$TMP/install.log"; fail "make install PREFIX= failed"; }
for f in $installed; do
	[ -f "$prefix/$f" ] || fail "install lacks $prefix/$f"
done
[ "$(stat -c %a "$prefix/bin/ptop-record")" = 755 ] || fail "ptop-record is not mode 755"

# From another folder, with no PTOP_PRELOAD_LIB: the library is found beside the prefix.
mkdir "$TMP/elsewhere"
(
	cd "$TMP/elsewhere"
	unset PTOP_PRELOAD_LIB
	"$prefix/bin/ptop-record" --quiet --no-ebpf --enable heap --heap-lane preload \
		--heap-sample-bytes 0 -o run.ptop -- "$fix_abs/heap_leak" >/dev/null
) || fail "the installed ptop-record could not record with the preload lane"
out=$("$prefix/bin/ptop-analyze" sql "$TMP/elsewhere/run.ptop" \
	"select state || '/' || source || ' ' || detail from probe where name = 'heap'")
echo "$out" | has "^active/preload " || fail "heap probe not active/preload: $out"
echo "$out" | has "$prefix/lib/ptop/libptop-preload.so" ||
	fail "the probe detail does not name the installed library: $out"
"$prefix/bin/ptop-analyze" report heap "$TMP/elsewhere/run.ptop" --format csv | has leak_pages ||
	fail "report heap from the installed programs lacks leak_pages"

make -s -C "$top" --no-print-directory B="$B" PREFIX="$prefix" uninstall \
	>"$TMP/uninstall.log" 2>&1 || { cat "$TMP/uninstall.log"; fail "make uninstall failed"; }
for f in $installed; do
	[ -e "$prefix/$f" ] && fail "uninstall left $prefix/$f"
done
[ -d "$prefix/lib/ptop" ] && fail "uninstall left $prefix/lib/ptop"
echo "install: ok"
