"""heaptrack_trace.py — reads a heaptrack trace (FILE.zst, as heaptrack writes it) by
heaptrack's own rules and prints its allocation calls, bytes allocated, the peak of the
live heap, and temporary allocations counted two ways: as heaptrack_print does (after a
free its last allocation is index 0, so a free of allocation record 0 just after another
free counts) and without that artefact; then the allocations made in libstdc++ from
ld.so's initialisers (heaptrack's own runtime in a C program), with their bytes.
Used by bench/heap_vs_heaptrack.sh."""
import subprocess
import sys

p = subprocess.Popen(["zstd", "-dc", sys.argv[1]], stdout=subprocess.PIPE, text=True)
strings, ips, traces, info = [], [], [], []
live = peak = allocs = abytes = 0
last = last0 = None
temp = temp0 = 0
for line in p.stdout:
    f = line.split()
    if not f:
        continue
    m = f[0]
    if m == "s":
        strings.append(line[2:].rstrip("\n").split(" ", 1)[-1])
    elif m == "i":
        ips.append(f[1:])
    elif m == "t":
        traces.append((int(f[1], 16), int(f[2], 16)))
    elif m == "a":
        info.append((int(f[1], 16), int(f[2], 16)))
    elif m == "+":
        i = int(f[1], 16)
        allocs += 1
        abytes += info[i][0]
        live += info[i][0]
        peak = max(peak, live)
        last = last0 = i
    elif m == "-":
        i = int(f[1], 16)
        live -= info[i][0]
        temp += last == i
        temp0 += (last0 if last0 is not None else 0) == i
        last, last0 = None, 0


def modules(t):
    out = []
    while t:
        ip, t = traces[t - 1]
        r = ips[ip - 1]
        out.append(strings[int(r[1], 16) - 1] if len(r) > 1 else "?")
    return out


own = [(s, t) for s, t in info
       if (lambda ms: ms and "libstdc++" in ms[0] and any("ld-linux" in x for x in ms))(modules(t))]
print("heaptrack trace:        allocs %d  bytes %d  peak %d  temporaries %d (by heaptrack_print's reader: %d)"
      % (allocs, abytes, peak, temp, temp0))
print("heaptrack's own runtime: %d allocation record(s), %d bytes (libstdc++ from ld.so's initialisers)"
      % (len(own), sum(s for s, _ in own)))
