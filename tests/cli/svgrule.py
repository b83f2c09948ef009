#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/cli/svgrule.py - rules a person reading memplan's SVG pictures
relies on, checked on the SVG's structure (no browser; standard library):

  svgrule.py legend SVG     the timeline legend: distinct names, distinct
                            colours, no entry reading 0 B, the largest group
                            at the peak first, "other" last and never more
                            than half the peak
  svgrule.py reserved SVG   the reserved curve never runs below the live
                            stack (at the middle of each step of the top)
  svgrule.py ticks SVG      x tick labels a person reads: at most 6
                            characters, never "0.000..."
  svgrule.py overlap SVG    no two texts of the picture overlap, their boxes
                            estimated from font size and length (0.55 em a
                            character, a glyph's height above the baseline)
  svgrule.py text SVG       every text of the picture, one a line

Exit 0 when the rule holds, 1 when it does not (saying why), 2 on bad input.
"""
import re
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'


def load(path):
    try:
        return ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print('%s: %s' % (path, e))
        sys.exit(2)


def text_of(el):
    return ''.join(el.itertext())


def fail(msg):
    print('# ' + msg)
    sys.exit(1)


def legend(root):
    keys = [g for g in root.iter(NS + 'g') if g.get('class') == 'key']
    if not keys:
        fail('no legend entries')
    names, fills, peaks = [], [], []
    for g in keys:
        texts = g.findall(NS + 'text')
        rect = g.find(NS + 'rect')
        names.append(text_of(texts[0]))
        fills.append(rect.get('fill'))
        figure = ' '.join(text_of(t) for t in texts[1:]) or text_of(texts[0])
        if re.search(r'(^|[ (])0 B\b', figure):
            fail('entry %r reads 0 B' % names[-1])
        peaks.append(int(g.get('data-at-peak')))
    if len(set(names)) != len(names):
        fail('two entries read alike: %r' % names)
    if len(set(fills)) != len(fills):
        fail('two entries share a colour: %r' % list(zip(names, fills)))
    named = [p for n, p in zip(names, peaks) if n != 'other']
    if named != sorted(named, reverse=True):
        fail('not the largest first: %r' % list(zip(names, peaks)))
    if 'other' in names:
        if names[-1] != 'other':
            fail('"other" is not last: %r' % names)
        if 2 * peaks[-1] > sum(peaks):
            fail('"other" holds %d of %d bytes at the peak' % (peaks[-1], sum(peaks)))
    print('# legend: %s' % ', '.join('%s %d' % x for x in zip(names, peaks)))


def steps(d):
    """The points of an SVG path made of M, L, H and V commands."""
    pts, x, y = [], 0.0, 0.0
    for cmd, args in re.findall(r'([MLHV])([^MLHVZ]*)', d):
        v = [float(a) for a in args.replace(',', ' ').split()]
        if cmd in 'ML':
            x, y = v[0], v[1]
        elif cmd == 'H':
            x = v[0]
        else:
            y = v[0]
        pts.append((x, y))
    return pts


def reserved(root):
    paths = list(root.iter(NS + 'path'))
    areas = [p for p in paths if p.get('class') == 'area']
    res = [p for p in paths if p.get('class') == 'reserved']
    if not areas or not res:
        fail('no areas or no reserved curve')
    top = steps(areas[-1].get('d'))
    top = top[:len(top) // 2]  # the upper edge; the rest runs back below
    curve = steps(res[0].get('d'))

    def res_y(x):
        y = None
        for (x0, y0), (x1, y1) in zip(curve, curve[1:]):
            if y0 == y1 and min(x0, x1) <= x <= max(x0, x1):
                y = y0 if y is None else min(y, y0)
        return y
    for (x0, y0), (x1, y1) in zip(top, top[1:]):
        if y0 != y1 or x1 - x0 < 1:
            continue
        ry = res_y((x0 + x1) / 2)
        if ry is not None and ry > y0 + 0.6:  # SVG y grows downwards
            fail('reserved (y %.1f) below the live stack (y %.1f) at x %.1f'
                 % (ry, y0, (x0 + x1) / 2))


def ticks(root):
    labs = [text_of(t) for g in root.iter(NS + 'g') if g.get('class') == 'xticks'
            for t in g.iter(NS + 'text')]
    if not labs:
        fail('no x ticks')
    for s in labs:
        if len(s) > 6 or s.startswith('0.000'):
            fail('x tick %r is hard to read (all: %r)' % (s, labs))


def boxes(root):
    """Each text's box, with the font size inherited from its groups."""
    out = []

    def walk(el, size):
        size = float(el.get('font-size', size))
        if el.tag == NS + 'text' and el.get('visibility') != 'hidden' and text_of(el).strip():
            if el.get('transform'):  # the rotated axis title stands apart
                return
            x, y, n = float(el.get('x', 0)), float(el.get('y', 0)), len(text_of(el))
            w = 0.55 * size * n
            anchor = el.get('text-anchor', 'start')
            x0 = x - w if anchor == 'end' else x - w / 2 if anchor == 'middle' else x
            out.append((x0, y - 0.75 * size, x0 + w, y, text_of(el)))
        for c in el:
            walk(c, size)
    walk(root, 16)
    return out


def overlap(root):
    b = boxes(root)
    for i in range(len(b)):
        for j in range(i + 1, len(b)):
            p, q = b[i], b[j]
            if p[0] < q[2] - 0.5 and q[0] < p[2] - 0.5 and p[1] < q[3] - 0.5 and q[1] < p[3] - 0.5:
                fail('texts %r and %r overlap' % (p[4], q[4]))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('legend', 'reserved', 'ticks', 'overlap', 'text'):
        print(__doc__)
        sys.exit(2)
    root = load(sys.argv[2])
    if sys.argv[1] == 'text':
        for t in root.iter(NS + 'text'):
            print(text_of(t))
        return
    {'legend': legend, 'reserved': reserved, 'ticks': ticks, 'overlap': overlap}[sys.argv[1]](root)


main()
