#!/bin/sh
# deps.sh — check ptop's build dependencies; as root on Debian/Ubuntu, install
# what is missing with apt-get, otherwise print the command and fail.
# `deps.sh kernels`: the same for the kernel matrix's QEMU (make test-kernels).
set -u
# bpftool lives in /usr/sbin, outside a normal user's PATH.
PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin

# Debian package : a command or pkg-config module that proves it is there.
DEPS="
clang:cmd:clang
llvm:cmd:llvm-strip
bpftool:cmd:bpftool
pkg-config:cmd:pkg-config
protobuf-c-compiler:cmd:protoc-c
libbpf-dev:pc:libbpf
libelf-dev:pc:libelf
libdw-dev:pc:libdw
libdebuginfod-dev:pc:libdebuginfod
libzstd-dev:pc:libzstd
libprotobuf-c-dev:pc:libprotobuf-c
libsqlite3-dev:pc:sqlite3
libcmocka-dev:pc:cmocka
libncurses-dev:pc:ncursesw
zlib1g-dev:pc:zlib
libclang-rt-14-dev:file:/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a
tmux:cmd:tmux
python3:cmd:python3
sqlite3:file:/usr/bin/sqlite3
heaptrack:cmd:heaptrack_print
golang-go:cmd:go
debuginfod:cmd:debuginfod
binutils:cmd:objcopy
smem:cmd:smem
libc6-dev:file:/usr/lib/x86_64-linux-gnu/libc.a
"

# `deps.sh kernels` (make test-kernels): QEMU and virtiofsd for tests/kernels/vm.sh, only.
# The kernel packages are downloaded at test time (apt-get download): an empty package list
# is refreshed here, once, as root.
if [ "${1:-}" = kernels ]; then
	DEPS="
qemu-system-x86:cmd:qemu-system-x86_64
qemu-system-common:file:/usr/lib/qemu/virtiofsd
"
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 &&
		[ -z "$(apt-cache pkgnames linux-image-6.1.0- 2>/dev/null)" ]; then
		echo "deps: no linux-image-6.1.0-* in apt's lists: apt-get update" >&2
		apt-get update -q >/tmp/ptop-deps.log 2>&1 || echo "deps: apt-get update failed (log: /tmp/ptop-deps.log)" >&2
	fi
fi

missing=""
for d in $DEPS; do
	pkg=${d%%:*}; rest=${d#*:}; kind=${rest%%:*}; what=${rest#*:}
	case $kind in
	cmd) command -v "$what" >/dev/null 2>&1 && continue ;;
	pc) command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$what" && continue ;;
	file) [ "$(uname -m)" != x86_64 ] && continue; [ -e "$what" ] && continue ;;
	esac
	missing="$missing $pkg"
done

[ -z "$missing" ] && exit 0

cmd="apt-get install -y$missing"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	# An empty or old package list is refreshed once before installing.
	if ! apt-get install -y -q $missing >/tmp/ptop-deps.log 2>&1; then
		apt-get update -q >>/tmp/ptop-deps.log 2>&1
		if ! apt-get install -y -q $missing >>/tmp/ptop-deps.log 2>&1; then
			tail -20 /tmp/ptop-deps.log >&2
			echo "deps: '$cmd' failed (log: /tmp/ptop-deps.log)" >&2
			exit 1
		fi
	fi
	echo "deps: installed$missing" >&2
	exit 0
fi

echo "deps: missing:$missing" >&2
if command -v apt-get >/dev/null 2>&1; then
	echo "deps: install them as root with: $cmd" >&2
else
	echo "deps: install the equivalents of these Debian packages with your package manager" >&2
fi
exit 1
