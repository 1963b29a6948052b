#!/usr/bin/env python3
"""grow_frames.py SRC DST PACE — write the capture SRC to DST one zstd frame at a time,
PACE seconds apart, as a recorder writes it at each flush (a finished capture grown
again, at a pace faster than it was recorded): for replay --follow's bench
(bench/follow_cost.sh). Frames are found by the zstd frame format (RFC 8878): a
skippable frame by its magic and size, a zstd frame by its header and block headers."""
import os
import struct
import sys
import time


def frames(data):
    """The (start, end) of each frame of DATA."""
    at = 0
    while at < len(data):
        magic = struct.unpack_from("<I", data, at)[0]
        if magic & 0xFFFFFFF0 == 0x184D2A50:  # skippable
            size = struct.unpack_from("<I", data, at + 4)[0]
            end = at + 8 + size
        elif magic == 0xFD2FB528:
            fhd = data[at + 4]
            fcs_flag, single, checksum, dict_flag = fhd >> 6, fhd >> 5 & 1, fhd >> 2 & 1, fhd & 3
            p = at + 5 + (0 if single else 1) + (0, 1, 2, 4)[dict_flag]
            p += (1 if single else 0, 2, 4, 8)[fcs_flag]
            while True:
                b = data[p] | data[p + 1] << 8 | data[p + 2] << 16
                last, btype, bsize = b & 1, b >> 1 & 3, b >> 3
                p += 3 + (1 if btype == 1 else bsize)
                if last:
                    break
            end = p + (4 if checksum else 0)
        else:
            raise SystemExit("grow_frames: no frame at byte %d of the capture" % at)
        if end > len(data):
            raise SystemExit("grow_frames: the frame at byte %d is cut short" % at)
        yield at, end
        at = end


def main():
    if len(sys.argv) != 4:
        raise SystemExit("usage: grow_frames.py SRC DST PACE_SECONDS")
    src, dst, pace = sys.argv[1], sys.argv[2], float(sys.argv[3])
    data = open(src, "rb").read()
    n = 0
    fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for start, end in frames(data):
        os.write(fd, data[start:end])
        n += 1
        time.sleep(pace)
    os.close(fd)
    print("grow_frames: %d frames, %d bytes" % (n, len(data)))


main()
