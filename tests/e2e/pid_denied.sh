# --pid of a process ptop-record may not read: the message names the real cause
# (issue 10: as root it said "run ptop-record as root"). Exit 2, no file left.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (to record as root and as another user)"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
"$FIX/spin" 60 & target=$!
kill_at_exit $target
chmod 755 "$TMP"

# Root without CAP_SYS_PTRACE, and a target that holds it: the capabilities.
expect_exit 2 setpriv --inh-caps=-sys_ptrace --bounding-set=-sys_ptrace \
	"$REC" --pid $target -o "$TMP/a.ptop"
grep -q 'holds capabilities ptop-record lacks (.*CAP_SYS_PTRACE' "$TMP/err" || fail "the missing capability is not named"
[ ! -e "$TMP/a.ptop" ] || fail "a file was left behind"

# Another user: the two uids.
expect_exit 2 setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$REC" --pid $target -o "$TMP/b.ptop"
grep -q "runs as uid 0 and ptop-record as uid $(id -u nobody)" "$TMP/err" || fail "the uids are not named"

# Root with CAP_SYS_PTRACE in a Landlock domain the target is outside of: a security
# module refuses it, and "run as root" would be wrong advice.
cat >"$TMP/landlock.py" <<'PY'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
# landlock_create_ruleset(2) = 444, landlock_restrict_self(2) = 446 (x86_64 and most)
attr = struct.pack("Q", 1 << 11)  # handles LANDLOCK_ACCESS_FS_MAKE_BLOCK only
fd = libc.syscall(444, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), 0)
if fd < 0 or libc.syscall(446, fd, 0) != 0:
    print("SKIP: Landlock is not available:", os.strerror(ctypes.get_errno()))
    sys.exit(77)
os.execv(sys.argv[1], sys.argv[1:])
PY
rc=0
python3 "$TMP/landlock.py" "$REC" --pid $target -o "$TMP/c.ptop" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc != 77 ] || skip "$(cat "$TMP/out")"
[ $rc = 2 ] || { cat "$TMP/err" >&2; fail "in a Landlock domain: exited $rc, expected 2"; }
cat "$TMP/err"
grep -q 'although ptop-record has CAP_SYS_PTRACE, so a security module refuses it' "$TMP/err" ||
	fail "the security module is not named"
grep -q 'as root' "$TMP/err" && fail "root was told to run as root"
[ ! -e "$TMP/c.ptop" ] || fail "a file was left behind"
exit 0
