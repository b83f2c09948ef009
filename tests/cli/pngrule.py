#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/cli/pngrule.py - rules checked on the PNG screenshots headless
Chromium takes of memplan's pictures (t0107, t0108), with the standard
library only: zlib and struct decode 8-bit RGB and RGBA PNGs.

  pngrule.py band BASE HOVER COLOR       the pixels that hovering changed all
                                         lie on or next to COLOR in BASE (the
                                         highlight stays inside its band)
  pngrule.py present IMG COLOR X0 Y0 X1 Y1   COLOR is drawn inside the box
  pngrule.py count IMG COLOR X0 Y0 X1 Y1     prints how many pixels are COLOR
  pngrule.py edge IMG [X0 Y0 X1 Y1]      the outermost pixels (of the box) are
                                         all white: nothing runs off the picture

Exit 0 when the rule holds, 1 when it does not (saying why), 2 on bad input.
"""
import struct
import sys
import zlib


def load(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit('%s: not a PNG' % path)
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, lace = struct.unpack('>IIBBBBB', body)
            if depth != 8 or ctype not in (2, 6) or lace:
                sys.exit('%s: only 8-bit RGB(A), not interlaced' % path)
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if f == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 255
        elif f == 3:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((a + prev[x]) >> 1)) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        rows.append(bytes(line[k:k + 3]) for k in range(0, stride, bpp))
        rows[-1] = list(rows[-1])
        prev = line
    return w, h, rows


def rgb(s):
    s = s.lstrip('#')
    return bytes(int(s[k:k + 2], 16) for k in (0, 2, 4))


def box(w, h, args):
    x0, y0, x1, y1 = (int(float(a)) for a in args)
    return max(0, x0), max(0, y0), min(w, x1), min(h, y1)


def main(argv):
    if len(argv) >= 4 and argv[0] == 'band':
        w, h, base = load(argv[1])
        w2, h2, hover = load(argv[2])
        if (w, h) != (w2, h2):
            sys.exit('the screenshots differ in size')
        c = rgb(argv[3])
        changed = outside = 0
        first = None
        for y in range(h):
            for x in range(w):
                if base[y][x] == hover[y][x]:
                    continue
                changed += 1
                near = any(base[yy][xx] == c
                           for yy in range(max(0, y - 2), min(h, y + 3))
                           for xx in range(max(0, x - 2), min(w, x + 3)))
                if not near:
                    outside += 1
                    first = first or (x, y)
        print('%d pixels changed, %d away from %s%s' %
              (changed, outside, argv[3],
               ' (first at %d,%d)' % first if first else ''))
        return 0 if changed and not outside else 1
    if len(argv) >= 7 and argv[0] in ('present', 'count'):
        w, h, img = load(argv[1])
        c = rgb(argv[2])
        x0, y0, x1, y1 = box(w, h, argv[3:7])
        n = sum(1 for y in range(y0, y1) for x in range(x0, x1) if img[y][x] == c)
        print(n)
        return 0 if n or argv[0] == 'count' else 1
    if len(argv) >= 2 and argv[0] == 'edge':
        w, h, img = load(argv[1])
        white = bytes((255, 255, 255))
        x0, y0, x1, y1 = box(w, h, argv[2:6]) if len(argv) >= 6 else (0, 0, w, h)
        edge = [(x, y) for x in range(x0, x1) for y in (y0, y1 - 1)] + \
               [(x, y) for y in range(y0, y1) for x in (x0, x1 - 1)]
        bad = [(x, y) for x, y in edge if img[y][x] != white]
        print('%d edge pixels drawn on%s' %
              (len(bad), ' (first at %d,%d)' % bad[0] if bad else ''))
        return 1 if bad else 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
