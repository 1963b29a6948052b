/* bench_sched_floor.c — the threads collector's overhead floor: attaches
 * bpf/bench_sched_noop.bpf.c (no-op programs on tp_btf sched_switch and sched_wakeup) until
 * SIGINT or SIGTERM. What a context-switch loop pays with this running is the price of
 * having the tracepoints on at all; bench/overhead_threads.sh compares the threads
 * collector against it.
 *
 * usage: bench_sched_floor    prints "attached" on stdout once the programs are live
 */
#include "bench/floor.h"
#include "bpf/bench_sched_noop.skel.h"

BENCH_FLOOR_MAIN("bench_sched_floor", bench_sched_noop, "tp_btf sched_switch/sched_wakeup")
