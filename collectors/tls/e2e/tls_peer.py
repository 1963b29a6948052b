#!/usr/bin/env python3
"""tls_peer.py — the two ends of the tls collector's ground truth, over loopback.

server CERT KEY PORTFILE: accept one TLS connection, read until the client closes, answer
  each read with "ack:" + what it read (its own writes are not traced).
pidclient PORT COUNT GOFILE: import ssl first (libssl mapped), print "ready", and once GOFILE
  exists do as client (for a --pid recording that finds libssl at its start).
client PORT COUNT [SLEEP]: wait a moment (so the recorder is running before libssl is mapped),
  then `import ssl` (Python dlopens libssl then), wait 0.6 s (the recorder attaches at its
  next interval), connect, write COUNT messages
  "NNNN-secret-msg:" + 20 bytes of padding (36 bytes each), read each answer, close.
Nothing here is timed by the test: the counts and bytes are exact.
"""
import socket
import sys
import time


def server(cert, key, portfile):
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(ls.getsockname()[1]))
    import os
    os.rename(portfile + ".tmp", portfile)
    conn, _ = ls.accept()
    with ctx.wrap_socket(conn, server_side=True) as s:
        while True:
            data = s.recv(65536)
            if not data:
                break
            s.sendall(b"ack:" + data[:4])


def client(port, count, pause, gofile=None):
    if gofile:  # libssl mapped first; the exchange once GOFILE exists (--pid)
        import ssl
        import os
        print("ready", flush=True)
        while not os.path.exists(gofile):
            time.sleep(0.05)
    time.sleep(pause)
    import ssl  # libssl is mapped here, after the recording started
    # the recorder attaches to a libssl mapped late at its next interval (calls before
    # are not seen): wait two of the test's intervals (250 ms) before the first call
    time.sleep(0.6)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port)) as raw:
        with ctx.wrap_socket(raw) as s:
            print("fd %d" % s.fileno(), flush=True)
            for i in range(count):
                s.sendall(b"%04d-secret-msg:" % i + b"0123456789abcdefghij")
                got = b""
                while len(got) < 8:
                    got += s.recv(8 - len(got))
            # open past a poll of the recorder, whose net collector then sees its fd (the
            # peer of report tls is joined by it)
            time.sleep(0.6)
    time.sleep(pause)


if __name__ == "__main__":
    if sys.argv[1] == "pidclient":  # pidclient PORT COUNT GOFILE
        client(int(sys.argv[2]), int(sys.argv[3]), 0, sys.argv[4])
    elif sys.argv[1] == "server":
        server(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        client(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]) if len(sys.argv) > 4 else 1.5)
