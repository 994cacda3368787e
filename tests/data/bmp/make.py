#!/usr/bin/python3
"""Regenerates tests/data/bmp (MapTest's bitmaps): run in this folder with ImageMagick's `convert` and
GraphicsMagick's `gm` (Debian 12: 1.3.40, the library map_server reads maps with) on the PATH.

- Bitmaps ImageMagick writes from grey.pgm and rgba.png: 8-bit palettes plain and RLE8, 24 bits (Windows and OS/2
  core headers), a V5 palette, a 4-bit palette, a 1-bit one, 5-6-5 and ARGB bit fields.
- Bitmaps written here byte by byte: the bit fields and defaults GraphicsMagick and ImageMagick read differently
  (4-4-4, 4-4-4-4 with alpha in a V4 header, 10-10-10, uncompressed 16 bits, uncompressed 32 bits whose fourth byte
  GraphicsMagick reads as alpha, a 5-6-5 ramp of every green).
- For each NAME.bmp, GraphicsMagick's decoding of it, lossless for its Q16 quanta: NAME.gm.ppm (16-bit PPM) without
  alpha, NAME.gm.png (16-bit PNG) with; MapTest.BmpAgreesTest compares them cell by cell in every mode and at 255
  thresholds.
"""
import glob
import os
import random
import struct
import subprocess

W, H = 29, 13


def run(*args):
    subprocess.run(args, check=True)


def write_bmp(name, width, height, bits, compression, masks, pixels, header=40):
    """pixels: rows bottom first, each a list of ints (16 or 32 bits a pixel)."""
    fmt = "<H" if bits == 16 else "<I"
    stride = (bits * width + 31) // 32 * 4
    data = b"".join(b"".join(struct.pack(fmt, p) for p in row).ljust(stride, b"\0") for row in pixels)
    info = struct.pack("<IiiHHIIiiII", header, width, height, 1, bits, compression, len(data), 2835, 2835, 0, 0)
    after = b""
    if header == 40 and compression == 3:
        after = b"".join(struct.pack("<I", m) for m in masks)
    elif header > 40:
        info += b"".join(struct.pack("<I", m) for m in (masks + [0, 0, 0, 0])[:4])
        info = info.ljust(header, b"\0")
    offset = 14 + len(info) + len(after)
    with open(name, "wb") as f:
        f.write(b"BM" + struct.pack("<IHHI", offset + len(data), 0, 0, offset) + info + after + data)


def by_imagemagick():
    rng = random.Random(7)
    shades = [0, 254, 205, 255, 1, 100, 89, 90, 91, 166, 167, 168, 50, 200, 128] + list(range(60, 90))
    grey, rgba = [], []
    for y in range(H):
        for x in range(W):
            if x in (0, W - 1) or y in (0, H - 1):
                v = 0
            elif (x * 7 + y * 3) % 5 == 0:
                v = rng.choice(shades)
            else:
                v = 205 if x > 20 and y > 7 else 254
            grey.append(v)
            a = 255 if (x + y) % 4 else rng.choice([0, 128, 255, 200, 40])
            rgba += [v, min(255, v + rng.choice([0, 3, 9])), v, a]
    with open("grey.pgm", "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (W, H) + bytes(grey))
    with open("rgba.pam", "wb") as f:
        f.write(b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n" % (W, H) + bytes(rgba))
    run("convert", "rgba.pam", "rgba.png")
    os.remove("rgba.pam")
    run("convert", "grey.pgm", "+dither", "-type", "Palette", "-compress", "None", "BMP3:grey-pal8.bmp")
    run("convert", "grey.pgm", "+dither", "-type", "Palette", "-compress", "RLE", "BMP3:grey-rle8.bmp")
    run("convert", "grey.pgm", "-type", "TrueColor", "BMP3:grey-rgb24.bmp")
    run("convert", "grey.pgm", "-type", "TrueColor", "BMP2:grey-os2.bmp")
    run("convert", "grey.pgm", "+dither", "-type", "Palette", "-compress", "None", "BMP:grey-v5pal8.bmp")
    run("convert", "grey.pgm", "-colors", "16", "-type", "Palette", "BMP3:grey16-pal4.bmp")
    run("convert", "grey.pgm", "-threshold", "50%", "-type", "Bilevel", "BMP3:mono-pal1.bmp")
    run("convert", "rgba.png", "-define", "bmp:subtype=ARGB8888", "BMP:rgba-argb32.bmp")
    run("convert", "rgba.png", "-alpha", "off", "-define", "bmp:subtype=RGB565", "BMP:rgb565.bmp")


def by_hand():
    def ramp(n):  # n values of a channel of `bits` bits spread over its range, in a map-like 29 x 13 image
        return [[(x * 37 + y * 11) % n for x in range(W)] for y in range(H)]

    r4 = ramp(16)
    write_bmp("x444.bmp", W, H, 16, 3, [0xF00, 0x0F0, 0x00F],
              [[(v << 8) | ((15 - v) << 4) | (v >> 1) for v in row] for row in r4])
    write_bmp("a4444.bmp", W, H, 16, 3, [0xF00, 0x0F0, 0x00F, 0xF000],
              [[((v * 7) % 16 << 12) | (v << 8) | (v << 4) | v for v in row] for row in r4], header=108)
    r10 = ramp(1024)
    write_bmp("x101010.bmp", W, H, 32, 3, [0x3FF00000, 0xFFC00, 0x3FF],
              [[(v << 20) | (v << 10) | (1023 - v) for v in row] for row in r10])
    r5 = ramp(32)
    write_bmp("rgb16.bmp", W, H, 16, 0, [], [[(v << 10) | (v << 5) | v for v in row] for row in r5])
    r8 = ramp(256)
    write_bmp("rgb32.bmp", W, H, 32, 0, [],
              [[((v * 5) % 256 << 24) | (v << 16) | (v << 8) | v for v in row] for row in r8])
    write_bmp("ramp565.bmp", 64, 1, 16, 3, [0xF800, 0x07E0, 0x001F],
              [[((x // 2) << 11) | (x << 5) | (x // 2) for x in range(64)]])


if __name__ == "__main__":
    by_imagemagick()
    by_hand()
    for name in sorted(glob.glob("*.bmp")):
        # Without alpha a 16-bit PPM, with alpha a 16-bit PNG (GraphicsMagick 1.3.40's PNG writer makes a bilevel
        # image a broken 1-bit PNG whatever -depth and -type say; its PPM is exact).
        matte = subprocess.run(["gm", "identify", "-format", "%A", name], check=True, capture_output=True,
                               text=True).stdout.strip().lower() == "true"
        out = name[:-4] + (".gm.png" if matte else ".gm.ppm")
        run("gm", "convert", name, "-depth", "16", ("PNG:" if matte else "PPM:") + out)
