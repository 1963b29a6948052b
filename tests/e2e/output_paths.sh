# -o PATH: never through a symlink, never into a device, fifo or directory (exit 2, a
# one-line message, the thing left as it was, with or without --force); an existing
# file is replaced only with --force; the capture is 0600 whatever the umask; nothing
# (no temporary file either) is left behind by a refusal.
. "$(dirname "$0")/lib.sh"
D=$TMP/files
mkdir "$D"
listing() { (cd "$D" && ls -la --time-style=+ | sed 1d | awk '{ $2 = ""; print }'); }

# a symlink to a file: the file is neither written, truncated nor chmod'ed
echo precious >"$D/real.txt"
chmod 0644 "$D/real.txt"
ln -s real.txt "$D/link.ptop"
ln -s nowhere.ptop "$D/dangling.ptop"
before=$(listing)
for force in "" --force; do
	expect_exit 2 "$REC" --no-ebpf $force -o "$D/link.ptop" -- true
	grep -q 'is a symbolic link' "$TMP/err" || fail "no 'is a symbolic link' in: $(cat "$TMP/err")"
	expect_exit 2 "$REC" --no-ebpf $force -o "$D/dangling.ptop" -- true
	grep -q 'is a symbolic link' "$TMP/err" || fail "a dangling symlink is not refused as one"
done
assert_eq "symlink target's content" precious "$(cat "$D/real.txt")"
assert_eq "symlink target's mode" 644 "$(stat -c %a "$D/real.txt")"
[ ! -e "$D/nowhere.ptop" ] || fail "a file was made through a dangling symlink"
assert_eq "the folder after the refusals" "$before" "$(listing)"

# a fifo: refused at once (no reader needed, the open does not block)
mkfifo -m 0644 "$D/fifo.ptop"
expect_exit 2 "$REC" --no-ebpf --force -o "$D/fifo.ptop" -- true
grep -q 'is a fifo, not a regular file' "$TMP/err" || fail "fifo: $(cat "$TMP/err")"
[ -p "$D/fifo.ptop" ] || fail "the fifo is gone"
assert_eq "fifo mode" 644 "$(stat -c %a "$D/fifo.ptop")"

# a directory: said so, with the way out
mkdir "$D/dir"
expect_exit 2 "$REC" --no-ebpf -o "$D/dir" -- true
grep -q "$D/dir is a directory: give a file path" "$TMP/err" || fail "directory: $(cat "$TMP/err")"
expect_exit 2 "$REC" --no-ebpf --force -o "$D/dir/" -- true
grep -q 'is a directory' "$TMP/err" || fail "directory/: $(cat "$TMP/err")"
expect_exit 2 "$REC" --no-ebpf -o "$D/missing/" -- true
grep -q 'directory' "$TMP/err" || fail "a path ending in / is not refused as a directory"
[ -z "$(ls -A "$D/dir")" ] || fail "something was left in the directory"

# an existing regular file: kept without --force, replaced (0600) with it
echo old >"$D/run.ptop"
chmod 0644 "$D/run.ptop"
expect_exit 2 "$REC" --no-ebpf -o "$D/run.ptop" -- true
grep -q 'already exists: use --force' "$TMP/err" || fail "exists: $(cat "$TMP/err")"
assert_eq "kept without --force" old "$(cat "$D/run.ptop")"
ln "$D/run.ptop" "$D/hardlink.txt"
"$REC" --no-ebpf --quiet --force -o "$D/run.ptop" -- true
"$ANA" info "$D/run.ptop" | has 'complete' || fail "the replacing capture does not read complete"
assert_eq "replaced file mode" 600 "$(stat -c %a "$D/run.ptop")"
# replaced by rename: another name of the old file still has the old content
assert_eq "the old file's other name" old "$(cat "$D/hardlink.txt")"

# a new file is 0600 whatever the umask
(umask 0; "$REC" --no-ebpf --quiet -o "$D/new.ptop" -- true)
assert_eq "new file mode with umask 0" 600 "$(stat -c %a "$D/new.ptop")"

# no temporary name left by any of this
[ -z "$(ls -A "$D" | grep '^\.')" ] || fail "hidden files left: $(ls -A "$D")"

# a device node of our own, in our folder (/dev/null's numbers): not chmod'ed, not removed
if mknod -m 0644 "$D/null.ptop" c 1 3 2>/dev/null; then
	expect_exit 2 "$REC" --no-ebpf --force -o "$D/null.ptop" -- true
	grep -q 'is a character device, not a regular file' "$TMP/err" || fail "device: $(cat "$TMP/err")"
	[ -c "$D/null.ptop" ] || fail "the device node is gone"
	assert_eq "device node mode" 644 "$(stat -c %a "$D/null.ptop")"
else
	skip "cannot mknod in $D (the rest passed)"
fi
