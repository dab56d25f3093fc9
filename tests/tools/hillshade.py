#!/usr/bin/env python3
"""Hillshade of a planetgen heightmap.r32 (equirectangular float32), whole or a crop.

  hillshade.py OUTDIR/heightmap.json OUT.png [--exaggeration 100] [--box LON0 LON1 LAT0 LAT1]
               [--width PIXELS]

Reads the sidecar for the size, radius and sea level; shades with light from the north-west at
45 degrees, the relief scaled by --exaggeration (metres of height per metre of ground); land in
a hypsometric grey-brown, sea in blue. Python standard library only (zlib for the PNG).
"""
import argparse
import array
import json
import math
import os
import struct
import zlib


def write_png(path, width, height, rgb):
    raw = bytearray()
    stride = width * 3
    for y in range(height):
        raw.append(0)
        raw += rgb[y * stride:(y + 1) * stride]
    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(bytes(raw), 6)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sidecar")
    ap.add_argument("out")
    ap.add_argument("--exaggeration", type=float, default=100.0)
    ap.add_argument("--box", type=float, nargs=4, metavar=("LON0", "LON1", "LAT0", "LAT1"))
    ap.add_argument("--width", type=int, default=0, help="output width (nearest-pixel resample)")
    args = ap.parse_args()
    side = json.load(open(args.sidecar))
    info = next(f for f in side["files"] if f["file"] == "heightmap.r32")
    w, h = info["width"], info["height"]
    radius, sea = info["radius_m"], info["sea_level_m"]
    data = array.array("f")
    with open(os.path.join(os.path.dirname(args.sidecar), "heightmap.r32"), "rb") as f:
        data.frombytes(f.read())
    lon0, lon1, lat0, lat1 = args.box if args.box else (-180.0, 180.0, -90.0, 90.0)
    x0 = max(0, int((lon0 + 180.0) / 360.0 * w))
    x1 = min(w, int(math.ceil((lon1 + 180.0) / 360.0 * w)))
    y0 = max(0, int((90.0 - lat1) / 180.0 * h))
    y1 = min(h, int(math.ceil((90.0 - lat0) / 180.0 * h)))
    cw, ch = x1 - x0, y1 - y0
    # Output pixels sample the source at fractional positions (bilinear): fewer pixels than the
    # crop shrinks it, more enlarge it smoothly.
    step = cw / args.width if args.width else 1.0
    ow, oh = int(cw / step), int(ch / step)
    dlon = 2.0 * math.pi / w
    dlat = math.pi / h
    lx, ly, lz = -1.0 / math.sqrt(3), 1.0 / math.sqrt(3), 1.0 / math.sqrt(3)  # from the north-west
    top = max(data[y * w + x] for y in range(y0, y1) for x in range(x0, x1))
    rgb = bytearray(ow * oh * 3)

    def at(x, y):
        x = min(max(x, 0), w - 1)
        y = min(max(y, 0), h - 1)
        return data[y * w + x]

    def bilinear(fx, fy):
        ix, iy = int(math.floor(fx)), int(math.floor(fy))
        tx, ty = fx - ix, fy - iy
        return ((at(ix, iy) * (1 - tx) + at(ix + 1, iy) * tx) * (1 - ty) +
                (at(ix, iy + 1) * (1 - tx) + at(ix + 1, iy + 1) * tx) * ty)

    ex = args.exaggeration
    for oy in range(oh):
        y = y0 + oy * step
        lat = math.pi / 2 - (y + 0.5) * dlat
        dx_m = max(radius * math.cos(lat) * dlon * step, 1.0)
        dy_m = radius * dlat * step
        for ox in range(ow):
            x = x0 + ox * step
            z = bilinear(x, y)
            gx = (bilinear(x + step, y) - bilinear(x - step, y)) / (2 * dx_m) * ex
            gy = (bilinear(x, y - step) - bilinear(x, y + step)) / (2 * dy_m) * ex
            n = 1.0 / math.sqrt(gx * gx + gy * gy + 1.0)
            shade = max(0.0, (-gx * lx - gy * ly + lz) * n)
            shade = 0.25 + 0.75 * shade
            if z < sea:
                base = (70, 110, 170)
                shade = 0.85 + 0.15 * shade
            else:
                t = min(1.0, max(0.0, (z - sea) / max(top - sea, 1.0)))
                base = (int(150 + 70 * t), int(140 + 60 * t), int(110 + 90 * t))
            i = (oy * ow + ox) * 3
            rgb[i] = min(255, int(base[0] * shade))
            rgb[i + 1] = min(255, int(base[1] * shade))
            rgb[i + 2] = min(255, int(base[2] * shade))
    write_png(args.out, ow, oh, rgb)


if __name__ == "__main__":
    main()
