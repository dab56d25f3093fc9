# docs/rivers.md's pictures: the rivers and lakes of rivers.geojson drawn on relief.png (both from
# `planetgen generate`), cropped to a box of longitude and latitude. Plain Python (zlib only).
# usage: rivers_picture.py RELIEF_PNG RIVERS_GEOJSON OUT_PNG lon0 lon1 lat0 lat1 scale
import json, struct, sys, zlib


def readpng(p):
    d = open(p, 'rb').read()
    i = 8; idat = b''
    while i < len(d):
        n, = struct.unpack('>I', d[i:i + 4]); t = d[i + 4:i + 8]; c = d[i + 8:i + 8 + n]; i += 12 + n
        if t == b'IHDR': w, h, bd, ct = struct.unpack('>IIBB', c[:10])
        elif t == b'IDAT': idat += c
    assert bd == 8 and ct == 2
    raw = zlib.decompress(idat); bpp = 3; stride = w * bpp
    out = bytearray(h * stride); prev = bytearray(stride); pos = 0
    for y in range(h):
        f = raw[pos]; line = bytearray(raw[pos + 1:pos + 1 + stride]); pos += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa = abs(p - a); pb = abs(p - b); pc = abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 255
        out[y * stride:(y + 1) * stride] = line; prev = line
    return w, h, out

def writepng(p, w, h, px):
    raw = b''.join(b'\x00' + bytes(px[y * w * 3:(y + 1) * w * 3]) for y in range(h))
    def chunk(t, c): return struct.pack('>I', len(c)) + t + c + struct.pack('>I', zlib.crc32(t + c) & 0xffffffff)
    open(p, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) +
                        chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))

relief, geo, outp = sys.argv[1:4]
lon0, lon1, lat0, lat1, scale = map(float, sys.argv[4:9])
W, H, img = readpng(relief)
x0 = int((lon0 + 180) / 360 * W); x1 = int((lon1 + 180) / 360 * W)
y0 = int((90 - lat1) / 180 * H); y1 = int((90 - lat0) / 180 * H)
s = int(scale); cw = (x1 - x0) * s; ch = (y1 - y0) * s
px = bytearray(cw * ch * 3)
for y in range(ch):
    for x in range(cw):
        sx = x0 + x // s; sy = y0 + y // s; o = (sy * W + sx) * 3
        px[(y * cw + x) * 3:(y * cw + x) * 3 + 3] = img[o:o + 3]
def tox(lon): return ((lon + 180) / 360 * W - x0) * s
def toy(lat): return ((90 - lat) / 180 * H - y0) * s
def dot(x, y, r, col):
    for yy in range(int(y - r), int(y + r) + 1):
        for xx in range(int(x - r), int(x + r) + 1):
            if 0 <= xx < cw and 0 <= yy < ch and (xx - x) ** 2 + (yy - y) ** 2 <= r * r:
                px[(yy * cw + xx) * 3:(yy * cw + xx) * 3 + 3] = bytes(col)
g = json.load(open(geo))
lake = (70, 110, 235); river = (25, 60, 190)
for f in g['features']:
    t = f['geometry']['type']
    if t in ('Polygon', 'MultiPolygon'):
        polys = [f['geometry']['coordinates']] if t == 'Polygon' else f['geometry']['coordinates']
        for poly in polys:
            ring = [(tox(p[0]), toy(p[1])) for p in poly[0]]
            ys = [p[1] for p in ring]
            for y in range(max(0, int(min(ys))), min(ch, int(max(ys)) + 1)):
                xs = []
                for (ax, ay), (bx, by) in zip(ring, ring[1:]):
                    if (ay <= y < by) or (by <= y < ay): xs.append(ax + (y - ay) * (bx - ax) / (by - ay))
                xs.sort()
                for a, b in zip(xs[0::2], xs[1::2]):
                    for x in range(max(0, int(a)), min(cw, int(b) + 1)):
                        px[(y * cw + x) * 3:(y * cw + x) * 3 + 3] = bytes(lake)
for f in g['features']:
    if f['geometry']['type'] != 'LineString': continue
    c = f['geometry']['coordinates']; order = f['properties'].get('strahler', 1)
    r = 0.4 + 0.45 * order
    for a, b in zip(c, c[1:]):
        if abs(a[0] - b[0]) > 180: continue
        ax, ay, bx, by = tox(a[0]), toy(a[1]), tox(b[0]), toy(b[1])
        if max(ax, bx) < -5 or min(ax, bx) > cw + 5 or max(ay, by) < -5 or min(ay, by) > ch + 5: continue
        n = int(max(abs(bx - ax), abs(by - ay)) * 2) + 1
        for k in range(n + 1):
            dot(ax + (bx - ax) * k / n, ay + (by - ay) * k / n, r, river)
writepng(outp, cw, ch, px)
