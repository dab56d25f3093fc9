#!/usr/bin/env python3
"""Writes the heightmap fuzz seeds (tiny PNGs, a few hundred bytes each) to corpus/heightmap/,
and the reproducers of the findings to findings/heightmap/ (run.sh replays those before fuzzing).

Every colour type and bit depth the reader expands, Adam7 interlacing, a palette with tRNS, and
two files followed by a sidecar (heightmap_fuzz.cpp writes the bytes after IEND as the .json).
Run from anywhere: python3 tests/fuzz/make_heightmap_corpus.py
"""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "heightmap")
FINDINGS = os.path.join(HERE, "findings", "heightmap")
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
         (0, 1, 1, 2)]


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def pack_row(samples, depth):
    """Packs one row of sample values (already flattened over channels) at `depth` bits."""
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    if depth == 8:
        return bytes(samples)
    bits = "".join(format(s, "0%db" % depth) for s in samples)
    bits += "0" * (-len(bits) % 8)
    return bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))


def png(width, height, colour, depth, pixel, interlace=False, extra=b"", trailing=b""):
    """pixel(x, y) -> tuple of channel values."""
    def rows(xs, ys):
        out = b""
        for y in ys:
            out += b"\x00" + pack_row([c for x in xs for c in pixel(x, y)], depth)
        return out

    if interlace:
        raw = b""
        for x0, y0, dx, dy in ADAM7:
            xs, ys = range(x0, width, dx), range(y0, height, dy)
            if len(xs) and len(ys):
                raw += rows(xs, ys)
    else:
        raw = rows(range(width), range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, int(interlace))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"") + trailing)


def ramp(maximum):
    return lambda x, y: ((x * 37 + y * 11) % (maximum + 1),)


def rgb(maximum, alpha=False):
    def f(x, y):
        p = ((x * 50) % (maximum + 1), (y * 80) % (maximum + 1), ((x + y) * 20) % (maximum + 1))
        return p + ((maximum,) if alpha else ())
    return f


SIDECAR = (b'{"format": "planetgen heightmap sidecar 1", "files": [{"file": "heightmap.png", '
           b'"encoding": "png-gray16", "width": 8, "height": 4, "min_m": -9000.5, '
           b'"max_m": 6500.25}]}\n')

seeds = {
    "gray8_8x4.png": png(8, 4, 0, 8, ramp(255)),
    "gray16_8x4.png": png(8, 4, 0, 16, lambda x, y: ((x * 9000 + y * 4000) % 65536,)),
    "gray1_16x8.png": png(16, 8, 0, 1, lambda x, y: ((x ^ y) & 1,)),
    "gray4_8x4.png": png(8, 4, 0, 4, ramp(15)),
    "gray_alpha8_4x2.png": png(4, 2, 4, 8, lambda x, y: (x * 60, 255)),
    "gray_alpha16_4x2.png": png(4, 2, 4, 16, lambda x, y: (x * 15000, 65535)),
    "rgb8_4x2.png": png(4, 2, 2, 8, rgb(255)),
    "rgba16_4x2.png": png(4, 2, 6, 16, rgb(65535, alpha=True)),
    "palette_trns_4x2.png": png(
        4, 2, 3, 8, lambda x, y: ((x + y) % 3,),
        extra=chunk(b"PLTE", bytes([0, 0, 0, 128, 128, 128, 255, 255, 255])) +
        chunk(b"tRNS", bytes([255, 0]))),
    "gray8_interlaced_9x5.png": png(9, 5, 0, 8, ramp(255), interlace=True),
    "gray16_interlaced_8x8.png": png(8, 8, 0, 16, lambda x, y: (x * 8000 + y,), interlace=True),
    "gray16_sidecar_8x4.png": png(8, 4, 0, 16, ramp(65535), trailing=SIDECAR),
    "gray8_bad_sidecar_4x2.png": png(4, 2, 0, 8, ramp(255), trailing=b'{"files": [{"min_m": 5}]}'),
    "gray8_1x1_too_small.png": png(1, 1, 0, 8, ramp(255)),
    "gray8_truncated.png": png(8, 4, 0, 8, ramp(255))[:60],
}

SIGNATURE_IHDR_8X4 = png(8, 4, 0, 8, ramp(255))[:33]  # signature and IHDR chunk only

# Findings (reported to export/, fixed there); each must be rejected with an error naming the file.
findings = {
    # A sidecar range that is finite as a double but beyond float: importHeightmap returned
    # infinite elevations instead of an error.
    "sidecar_range_beyond_float.png": png(2, 1, 0, 8, lambda x, y: (255 * x,),
                                          trailing=b'{"files":[{"min_m":0,"max_m":1e39}]}'),
    # 45 bytes declaring a 1 GiB zTXt chunk: libpng treats a chunk over png_set_chunk_malloc_max
    # as a benign error (only a warning when reading) and the zTXt handler then allocates the
    # declared length before reading it (libFuzzer: malloc over -malloc_limit_mb).
    "ztxt_length_beyond_chunk_limit.png": SIGNATURE_IHDR_8X4 + struct.pack(">I", 1 << 30) +
                                          b"zTXt" + b"k\0\0x",
}

for folder, files in ((OUT, seeds), (FINDINGS, findings)):
    os.makedirs(folder, exist_ok=True)
    for name, data in files.items():
        assert len(data) < 20000, name
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    print("wrote %d files to %s" % (len(files), folder))
