/* bench_net_floor.c — the net collector's overhead floor: attaches bpf/bench_net_noop.bpf.c
 * (no-op programs on tp_btf sock_send_length/sock_recv_length) until SIGINT or
 * SIGTERM. What a send/recv loop pays with this running is the price of having the
 * tracepoints on at all; bench/overhead_net.sh compares the net collector against it.
 *
 * usage: bench_net_floor    prints "attached" on stdout once the programs are live
 */
#include "bench/floor.h"
#include "bpf/bench_net_noop.skel.h"

BENCH_FLOOR_MAIN("bench_net_floor", bench_net_noop, "tp_btf sock_send_length/sock_recv_length")
