/* bench_floor.c — the overhead floor: attaches bpf/bench_noop.bpf.c (programs on
 * raw_tp sys_enter/sys_exit that only return) and holds them until SIGINT or
 * SIGTERM. What a syscall loop pays with this running is the price of having the
 * tracepoints on at all; bench/overhead_syscalls.sh compares ptop against it.
 *
 * usage: bench_floor    prints "attached" on stdout once the programs are live
 */
#include "bench/floor.h"
#include "bpf/bench_noop.skel.h"

BENCH_FLOOR_MAIN("bench_floor", bench_noop, "raw_tp sys_enter/sys_exit")
