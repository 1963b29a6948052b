#!/usr/bin/env python3
"""workload_tls.py — a target for the tls overhead bench (bench/overhead_tls.sh): a TLS
client and server inside one process, over memory BIOs (ssl.SSLObject: no sockets, no
syscalls in the loop), one SSL_write_ex of 64 bytes by the client and one SSL_read_ex of
them by the server per pair, paced to a rate of calls (two per pair; 50 pairs back to back,
then a sleep to the next deadline). Its own CPU time per
call is what a tracer costs it.

usage: workload_tls.py CERT KEY [-r CALLS_PER_S] [-d SECONDS] [-w]
  -r RATE   SSL calls per second (default 0: as fast as it can)
  -d SECS   run this long (default 1)
  -w        print "pid N" and wait for SIGUSR1 before starting (libssl is mapped already)
Prints: "calls N cpu_ns T ns_per_call X rate R" (T: the process's CPU time over the loop).
"""
import os
import signal
import ssl
import sys
import time


def main():
    args = sys.argv[1:]
    cert, key = args[0], args[1]
    rate, dur, wait = 0.0, 1.0, False
    i = 2
    while i < len(args):
        if args[i] == "-r":
            rate = float(args[i + 1]); i += 2
        elif args[i] == "-d":
            dur = float(args[i + 1]); i += 2
        elif args[i] == "-w":
            wait = True; i += 1
        else:
            sys.exit("workload_tls: unknown option " + args[i])
    sctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    sctx.load_cert_chain(cert, key)
    cctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    cctx.check_hostname = False
    cctx.verify_mode = ssl.CERT_NONE
    c_in, c_out, s_in, s_out = (ssl.MemoryBIO() for _ in range(4))
    c = cctx.wrap_bio(c_in, c_out)
    s = sctx.wrap_bio(s_in, s_out, server_side=True)
    for _ in range(20):  # the handshake, through the BIOs
        for side in (c, s):
            try:
                side.do_handshake()
            except ssl.SSLWantReadError:
                pass
        s_in.write(c_out.read())
        c_in.write(s_out.read())
    msg = b"x" * 64
    if wait:
        got = []
        signal.signal(signal.SIGUSR1, lambda *_: got.append(1))
        print("pid %d" % os.getpid(), flush=True)
        while not got:
            signal.pause()
    calls = 0
    burst = 50  # pairs made back to back, then a sleep to the next deadline
    period = 2.0 * burst / rate if rate > 0 else 0.0
    t0 = time.monotonic()
    c0 = time.process_time_ns()
    nxt = t0
    end = t0 + dur
    while True:
        now = time.monotonic()
        if now >= end:
            break
        if period:
            if now < nxt:
                time.sleep(nxt - now)
                continue
            nxt += period
        for _ in range(burst):
            c.write(msg)
            s_in.write(c_out.read())
            s.read(64)
        calls += 2 * burst
    cpu = time.process_time_ns() - c0
    el = time.monotonic() - t0
    print("calls %d cpu_ns %d ns_per_call %.1f rate %.0f" % (calls, cpu, cpu / max(calls, 1),
                                                             calls / el), flush=True)


main()
