# png_check.py — what a rendered chart's screenshot shows, for test_chart.sh:
# prints the number of distinct colours, the share of non-white pixels, and
# how many pixels are near each named colour, in the whole picture or in a
# box (X0,Y0 to X1,Y1, inclusive).  Decodes the PNG with zlib alone (8-bit
# RGB or RGBA, no interlace: what Chromium writes).
#
#   python3 png_check.py FILE.png [NAME=RRGGBB[@X0,Y0,X1,Y1] ...]
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, "unsupported PNG layout"
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    out = []
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.extend(tuple(line[x * bpp:x * bpp + 3]) for x in range(width))
        prev = line
    return width, out


def main():
    width, px = pixels(sys.argv[1])
    colours = set(px)
    non_white = sum(1 for p in px if p != (255, 255, 255))
    print("colours %d" % len(colours))
    print("non_white_percent %.2f" % (100.0 * non_white / len(px)))
    for arg in sys.argv[2:]:
        name, hexrgb = arg.split("=")
        hexrgb, _, box = hexrgb.partition("@")
        x0, y0, x1, y1 = (int(v) for v in box.split(",")) if box else (0, 0, width - 1, len(px) // width - 1)
        want = tuple(int(hexrgb[i:i + 2], 16) for i in (0, 2, 4))
        near = sum(1 for y in range(y0, y1 + 1) for x in range(x0, x1 + 1)
                   if max(abs(px[y * width + x][k] - want[k]) for k in range(3)) <= 24)
        print("%s %d" % (name, near))


main()
