# A steady, mixed workload for an hour: CPU, allocation, file writes, a thread pool, sleeps.
import os, threading, time, hashlib, tempfile, socket
d = tempfile.mkdtemp(prefix="ptop1h-")
end = time.time() + float(os.environ.get("SECS", "3660"))
def worker(n):
    while time.time() < end:
        b = [bytearray(4096) for _ in range(200)]
        h = hashlib.sha256(b"".join(bytes(x) for x in b[:20])).hexdigest()
        with open(os.path.join(d, "w%d" % n), "w") as f:
            f.write(h * 50)
        time.sleep(0.05)
ts = [threading.Thread(target=worker, args=(i,)) for i in range(3)]
for t in ts: t.start()
a, b = socket.socketpair()
while time.time() < end:
    a.send(b"x" * 1000); b.recv(1000)
    time.sleep(0.01)
for t in ts: t.join()
