#!/usr/bin/env bash
# vm.sh — run a command inside Debian 12's own kernel (6.1, linux-image-6.1.0-N-cloud-amd64)
# under QEMU without KVM (TCG), on this machine's root file system.
#
#   tests/kernels/vm.sh [OPTIONS] -- CMD [ARGS...]
#   tests/kernels/vm.sh --prepare     fetch the kernel and build the initramfs only
#
# The host's / is shared read-only through virtiofsd; inside the VM it lies under a tmpfs
# overlay, so the command can write anywhere and nothing reaches the host except through a
# writable share (--rw DIR). The working folder and the environment are the caller's;
# CMD's stdout and stderr come back as they are written, and vm.sh exits with CMD's exit
# code. vm.sh's own failures: 125 (the VM could not start or CMD did not report), 124
# (--timeout reached: QEMU is killed), 77 with a line starting "SKIP" (--prepare: no
# kernel package can be had, QEMU is missing, not root), 2 (usage).
#
# Everything lives in build/kernels/ beside this repository's build (or $PTOP_KERNEL_CACHE):
# the .deb files from `apt-get download` (the kernel and busybox-static), unpacked with
# `dpkg -x` (nothing is installed), the initramfs, and one folder per run (removed at the
# end unless --keep). Needs root (virtiofsd), qemu-system-x86 and qemu-system-common
# (`make test-kernels` installs them on Debian: mk/deps.sh kernels).
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${PTOP_KERNEL_CACHE:-$repo/build/kernels}
series=${PTOP_VM_KERNEL:-6.1}
cpus=${PTOP_VM_CPUS:-2}
mem=${PTOP_VM_MEM:-2048}
timeout=${PTOP_VM_TIMEOUT:-900}
keep=0 prepare=0 log= quiet=0
rw_dirs=()
VIRTIOFSD=${VIRTIOFSD:-/usr/lib/qemu/virtiofsd}
QEMU=${QEMU:-qemu-system-x86_64}
# The modules the initramfs loads, with what they need (from the package's modules.dep).
MODULES="virtio_pci virtiofs overlay"

usage() {
	cat <<EOF
usage: tests/kernels/vm.sh [OPTIONS] -- CMD [ARGS...]
       tests/kernels/vm.sh --prepare
Runs CMD inside Debian 12's $series kernel under QEMU (TCG), the host's / shared read-only
under a tmpfs overlay; the working folder and environment are kept; exits with CMD's code.
  --rw DIR         share DIR writable (at the same path); may be repeated
  --timeout SECS   kill the VM after SECS (default $timeout; exit 124)
  --cpus N         virtual CPUs (default $cpus)
  --mem MIB        memory in MiB (default $mem; half of it is the overlay's tmpfs)
  --log FILE       copy the VM's console (kernel messages, init) to FILE
  --keep           keep the run's folder (console log, stdout, stderr) under $cache/runs
  --quiet          no "vm:" progress lines on stderr
  --prepare        fetch the kernel and build the initramfs, run nothing (77: cannot)
Environment: PTOP_VM_KERNEL (series, default 6.1), PTOP_KERNEL_CACHE (default build/kernels),
PTOP_VM_CPUS, PTOP_VM_MEM, PTOP_VM_TIMEOUT.
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--rw) [ $# -ge 2 ] || { usage >&2; exit 2; }
	      [ -d "$2" ] || { echo "vm.sh: --rw $2: not a folder" >&2; exit 2; }
	      rw_dirs+=("$(cd "$2" && pwd -P)"); shift 2 ;;
	--timeout) timeout=${2:-}; shift 2 ;;
	--cpus) cpus=${2:-}; shift 2 ;;
	--mem) mem=${2:-}; shift 2 ;;
	--log) log=${2:-}; shift 2 ;;
	--keep) keep=1; shift ;;
	--quiet) quiet=1; shift ;;
	--prepare) prepare=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) echo "vm.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
for n in "$timeout" "$cpus" "$mem"; do
	case $n in ''|*[!0-9]*) echo "vm.sh: '$n' is not a number" >&2; exit 2 ;; esac
done
if [ "$prepare" = 0 ] && [ $# -eq 0 ]; then usage >&2; exit 2; fi

say() { [ "$quiet" = 1 ] || echo "vm: $*" >&2; }

# Cannot run at all: under --prepare a skip (77) with its reason, else a failure (125).
cannot() {
	if [ "$prepare" = 1 ]; then echo "SKIP $*"; exit 77; fi
	echo "vm.sh: $*" >&2; exit 125
}

[ "$(id -u)" = 0 ] || cannot "the kernel VM needs root (virtiofsd shares / as root)"
command -v "$QEMU" >/dev/null 2>&1 ||
	cannot "$QEMU is missing (Debian: apt-get install qemu-system-x86; make test-kernels installs it)"
[ -x "$VIRTIOFSD" ] ||
	cannot "$VIRTIOFSD is missing (Debian: apt-get install qemu-system-common)"

mkdir -p "$cache" && cache=$(cd "$cache" && pwd -P) || cannot "cannot create $cache"

# The kernel: the newest linux-image-$series.0-N-cloud-amd64 apt knows, downloaded once.
# With a kernel already unpacked, no network is needed: the newest unpacked one is used.
kernel_dir=
find_cached() {
	local d
	kernel_dir=$(for d in "$cache"/linux-"$series".*; do
		[ -f "$d/.unpacked" ] && echo "$d"; done | sort -V | tail -1)
}
newest_pkg() {
	apt-cache pkgnames "linux-image-$series.0-" 2>/dev/null |
		grep -E "^linux-image-${series//./\\.}\.0-[0-9]+-cloud-amd64$" | sort -V | tail -1
}
fetch_kernel() {
	local pkg ver err dl
	pkg=$(newest_pkg)
	[ -n "$pkg" ] || return 1
	ver=${pkg#linux-image-}
	dl=$cache/deb.$$
	rm -rf "$dl"; mkdir -p "$dl"
	say "downloading $pkg and busybox-static (apt-get download)"
	if ! err=$(cd "$dl" && apt-get download -q "$pkg" busybox-static 2>&1); then
		rm -rf "$dl"
		echo "$err" | grep -E '^(E|Err):' | head -3 >&2
		return 1
	fi
	rm -rf "$cache/linux-$ver"
	mkdir -p "$cache/linux-$ver/root"
	for f in "$dl"/*.deb; do
		dpkg -x "$f" "$cache/linux-$ver/root" || { rm -rf "$dl"; return 1; }
	done
	# only boot/, lib/modules/ and bin/busybox are used; the rest (usr/share/*/conf-hooks.d)
	# would meet the Makefile's search for *.d files in build/
	rm -rf "$cache/linux-$ver/root/usr" "$cache/linux-$ver/root/etc"
	mv "$dl"/*.deb "$cache/linux-$ver/"
	rm -rf "$dl"
	touch "$cache/linux-$ver/.unpacked"
}

# One process at a time fetches and builds; runs share the result.
exec 9>"$cache/.lock"
flock 9
find_cached
if [ -z "$kernel_dir" ]; then
	fetch_kernel || {
		flock -u 9
		cannot "cannot download Debian's linux-image-$series.0-*-cloud-amd64 (no network or no package list: apt-get update)"
	}
	find_cached
fi
[ -n "$kernel_dir" ] || cannot "no linux-image-$series kernel in $cache"
kroot=$kernel_dir/root
kver=$(basename "$(ls -d "$kroot"/lib/modules/*/ | head -1)")
vmlinuz=$kroot/boot/vmlinuz-$kver
[ -f "$vmlinuz" ] || cannot "$vmlinuz is missing"
[ -x "$kroot/bin/busybox" ] || cannot "$kroot/bin/busybox is missing (busybox-static)"

# The initramfs: busybox, init, and the modules with their dependencies in load order.
initrd=$kernel_dir/initrd.cpio.gz
if [ ! -f "$initrd" ] || [ "$here/init" -nt "$initrd" ] || [ "$0" -nt "$initrd" ]; then
	say "building the initramfs for $kver"
	ird=$kernel_dir/initrd.tree
	rm -rf "$ird"; mkdir -p "$ird/bin" "$ird/modules"
	cp "$kroot/bin/busybox" "$ird/bin/busybox"
	cp "$here/init" "$ird/init"; chmod 755 "$ird/init"
	moddir=$kroot/lib/modules/$kver
	# the package has no modules.dep (the installer makes it): busybox's depmod writes it here
	[ -f "$moddir/modules.dep" ] || "$kroot/bin/busybox" depmod -b "$kroot" "$kver" ||
		cannot "depmod failed in $kroot"
	# modules.dep: "kernel/a.ko: kernel/b.ko kernel/c.ko", the ones a.ko needs; loaded first.
	declare -A seen=()
	order=()
	add_mod() {
		local name=$1 line path deps d
		line=$(grep -E "/${name}\.ko(\.[a-z]+)?:" "$moddir/modules.dep" | head -1)
		[ -n "$line" ] || { echo "vm.sh: module $name is not in $kver's modules.dep" >&2; return 1; }
		path=${line%%:*}; deps=${line#*:}
		[ -n "${seen[$path]:-}" ] && return 0
		for d in $deps; do add_mod "$(basename "${d%%.ko*}")" || return 1; done
		seen[$path]=1
		order+=("$path")
	}
	for m in $MODULES; do add_mod "$m" || cannot "cannot build the initramfs"; done
	: >"$ird/modules.order"
	for p in "${order[@]}"; do
		case $p in *.ko) ;; *) cannot "compressed module $p: not supported yet" ;; esac
		cp "$moddir/$p" "$ird/modules/"
		basename "$p" >>"$ird/modules.order"
	done
	(cd "$ird" && find . | "$kroot/bin/busybox" cpio -o -H newc 2>/dev/null | gzip -1) >"$initrd.tmp" &&
		mv "$initrd.tmp" "$initrd" || cannot "cannot pack the initramfs"
	rm -rf "$ird"
fi
flock -u 9
exec 9>&-

if [ "$prepare" = 1 ]; then
	echo "ready: $vmlinuz ($kver), $initrd"
	exit 0
fi

# One run: a results folder shared writable, the scripts, the virtiofsd daemons, QEMU.
mkdir -p "$cache/runs"
run=$(mktemp -d "$cache/runs/run.XXXXXX") || cannot "mktemp failed"
run=$(cd "$run" && pwd -P)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	sleep 0.2
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	if [ -n "$log" ] && [ -f "$run/console.log" ]; then cp "$run/console.log" "$log"; fi
	if [ "$keep" = 1 ]; then say "run folder kept: $run"; else rm -rf "$run"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# The command: the caller's environment and folder, stdout and stderr into the results share.
{
	echo "# written by tests/kernels/vm.sh"
	export -p | grep -vE '^declare -x (PWD|OLDPWD|SHLVL|_)(=|$)'
	printf 'cd -- %q || { echo "vm: cannot enter %q in the VM" >&2; exit 125; }\n' "$PWD" "$PWD"
	printf 'exec'
	printf ' %q' "$@"
	printf ' >%q 2>%q\n' "$run/stdout" "$run/stderr"
} >"$run/cmd.sh"
: >"$run/stdout"; : >"$run/stderr"

# virtiofsd for the host's /: in a mount namespace of its own, on a read-only copy of the
# mount tree (without /proc, /sys, /dev), so even a misbehaving guest cannot write there.
mkdir -p "$run/rootview"
# virtiofsd keeps a file descriptor open for every host file the guest has looked up and
# not forgotten (with cache=always the guest forgets little): 4096 ran out within one
# smoke set run (every later test failed with EMFILE, "Too many open files")
start_virtiofsd() { # socket source ro
	unshare -m --propagation private sh -c '
		sock=$1 src=$2 ro=$3 view=$4 fsd=$5
		if [ "$ro" = 1 ]; then
			mount --rbind / "$view" || exit 1
			for sub in proc sys dev; do umount -l "$view/$sub" 2>/dev/null; done
			# every mount under the view, the deepest last: read-only binds
			awk -v v="$view" "{ if (\$5 == v || index(\$5, v \"/\") == 1) print \$5 }" /proc/self/mountinfo |
				while read -r m; do
					m=$(printf "%b" "$m")
					mount -o remount,bind,ro "$m" || exit 1
				done || exit 1
			src=$view
		fi
		exec "$fsd" --socket-path="$sock" -o source="$src" -o cache=always -o no_posix_lock \
			-o xattr --rlimit-nofile=65536 >/dev/null 2>&1
	' sh "$1" "$2" "$3" "$run/rootview" "$VIRTIOFSD" &
	pids+=($!)
}
start_virtiofsd "$run/root.sock" / 1
start_virtiofsd "$run/res.sock" "$run" 0
devs=(-chardev "socket,id=root,path=$run/root.sock" -device "vhost-user-fs-pci,queue-size=1024,chardev=root,tag=root"
	-chardev "socket,id=res,path=$run/res.sock" -device "vhost-user-fs-pci,queue-size=1024,chardev=res,tag=res")
: >"$run/mounts"
i=0
for d in "${rw_dirs[@]}"; do
	start_virtiofsd "$run/rw$i.sock" "$d" 0
	devs+=(-chardev "socket,id=rw$i,path=$run/rw$i.sock" -device "vhost-user-fs-pci,queue-size=1024,chardev=rw$i,tag=rw$i")
	echo "rw$i $d" >>"$run/mounts"
	i=$((i + 1))
done
# the sockets appear when each virtiofsd is ready
names=(root res)
for ((j = 0; j < i; j++)); do names+=("rw$j"); done
for s in "${names[@]}"; do
	for _ in $(seq 100); do [ -S "$run/$s.sock" ] && break; sleep 0.05; done
	[ -S "$run/$s.sock" ] || cannot "virtiofsd did not start for the $s share"
done

say "booting $kver (TCG, $cpus CPUs, ${mem} MiB, timeout ${timeout}s)"
start=$(date +%s%N)
"$QEMU" -nodefaults -no-user-config -display none -no-reboot \
	-machine q35,accel=tcg -cpu "${PTOP_VM_CPU:-max}" -smp "$cpus" -m "$mem" \
	-object "memory-backend-memfd,id=mem,size=${mem}M,share=on" -numa node,memdev=mem \
	-kernel "$vmlinuz" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 rdinit=/init mitigations=off ptop.res=$run ptop.script=cmd.sh ptop.tmpsize=$((mem / 2))m" \
	-serial "file:$run/console.log" "${devs[@]}" </dev/null >"$run/qemu.log" 2>&1 &
qemu=$!
pids=("$qemu" "${pids[@]}")
tail -n +1 -s 0.2 -f --pid="$qemu" "$run/stdout" 2>/dev/null &
tail_out=$!
tail -n +1 -s 0.2 -f --pid="$qemu" "$run/stderr" >&2 2>/dev/null &
tail_err=$!

timed_out=0
deadline=$(($(date +%s) + timeout))
while kill -0 "$qemu" 2>/dev/null; do
	if [ "$(date +%s)" -ge "$deadline" ]; then
		timed_out=1
		kill "$qemu" 2>/dev/null; sleep 1; kill -9 "$qemu" 2>/dev/null
		break
	fi
	sleep 0.2
done
wait "$qemu" 2>/dev/null
qrc=$?
wait "$tail_out" "$tail_err" 2>/dev/null
ms=$((($(date +%s%N) - start) / 1000000))
secs=$((ms / 1000)).$(printf %03d $((ms % 1000)))

show_console() {
	echo "vm.sh: the VM's console (last 30 lines of $run/console.log):" >&2
	tail -30 "$run/console.log" 2>/dev/null | sed 's/^/  | /' >&2
	[ -s "$run/qemu.log" ] && sed 's/^/  qemu: /' "$run/qemu.log" >&2
}
if [ "$timed_out" = 1 ]; then
	echo "vm.sh: timed out after ${timeout}s: QEMU killed" >&2
	show_console
	exit 124
fi
if [ -s "$run/init-error" ]; then
	echo "vm.sh: the VM's init failed: $(cat "$run/init-error")" >&2
	show_console
	exit 125
fi
if [ ! -s "$run/rc" ]; then
	echo "vm.sh: the VM ended (QEMU exit $qrc) without the command's exit code" >&2
	show_console
	exit 125
fi
rc=$(cat "$run/rc")
say "$kver: exit $rc, ${secs}s from QEMU's start to its exit"
exit "$rc"
