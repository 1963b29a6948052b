# The io collector's per-file paths (--io-files, walked up the dentries and mounts in the
# kernel) are relative to the process's root, as the process named them and as d_path()
# and /proc/PID/fd give them: io_churn runs chrooted into a bind of / (in a private mount
# namespace of its own: nothing outside changes) and its file is $D/r1, not
# $TMP/root$D/r1. (The kernel-matrix VM runs everything chrooted into /newroot: the walk
# went past the chroot and every per-file path there began with /newroot.)
. tests/e2e/lib.sh
need_fixture io_churn
need_ebpf
command -v unshare >/dev/null && command -v chroot >/dev/null || skip "no unshare(1) or chroot(8)"

R=$TMP/root
D=$TMP/reuse
mkdir -p "$R" "$D"
C=$TMP/chroot.ptop
"$REC" --quiet --io-files -o "$C" -- unshare -m -- sh -c \
	'mount --rbind / "$1" && exec chroot "$1" "$2" reuse "$3" 1' sh "$R" "$(realpath "$FIX/io_churn")" "$D" ||
	fail "io_churn in the chroot failed"
assert_eq "the file under its path in the chroot" "$D/r1|1|6" \
	"$(q "$C" "select path || '|' || sum(calls) || '|' || sum(bytes) from io_file where path like '%/reuse/r1' and op = 'write' group by path")"
assert_eq "events name it the same" "$D/r1" \
	"$(q "$C" "select path from io_event where kind = 'created' and path like '%/reuse/r1'")"
