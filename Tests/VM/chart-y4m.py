#!/usr/bin/env python3
"""Writes a 640x480 Y4M (4:2:0, BT.601 limited range) of a ColorChecker Classic 24 drawn flat on a
dark grey ground, its patches at the chart's published sRGB values, and prints the centres of its
four corner patches as calibrate's --corner arguments (dark skin, bluish green, black, white).
The VM's systemd test calibrates on it (on the host) for a profile to reload serve with.

usage: chart-y4m.py OUT.y4m [FRAMES]"""
import sys

SRGB = [
    (115, 82, 68), (194, 150, 130), (98, 122, 157), (87, 108, 67), (133, 128, 177), (103, 189, 170),
    (214, 126, 44), (80, 91, 166), (193, 90, 99), (94, 60, 108), (157, 188, 64), (224, 163, 46),
    (56, 61, 150), (70, 148, 73), (175, 54, 60), (231, 199, 31), (187, 86, 149), (8, 133, 161),
    (243, 243, 242), (200, 200, 200), (160, 160, 160), (122, 122, 121), (85, 85, 85), (52, 52, 52),
]
W, H, PATCH, GAP, LEFT, TOP, GROUND = 640, 480, 80, 20, 30, 50, (40, 40, 40)


def ycbcr(rgb):
    r, g, b = (c / 255 for c in rgb)
    y = 16 + 219 * (0.299 * r + 0.587 * g + 0.114 * b)
    cb = 128 + 224 * (-0.168736 * r - 0.331264 * g + 0.5 * b)
    cr = 128 + 224 * (0.5 * r - 0.418688 * g - 0.081312 * b)
    return tuple(max(0, min(255, round(v))) for v in (y, cb, cr))


def colour_at(x, y):
    col, dx = divmod(x - LEFT, PATCH + GAP)
    row, dy = divmod(y - TOP, PATCH + GAP)
    if x >= LEFT and y >= TOP and col < 6 and row < 4 and dx < PATCH and dy < PATCH:
        return SRGB[row * 6 + col]
    return GROUND


def main():
    out, frames = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3
    planes = [bytearray(W * H), bytearray(W * H // 4), bytearray(W * H // 4)]
    for y in range(H):
        for x in range(W):
            planes[0][y * W + x] = ycbcr(colour_at(x, y))[0]
    for y in range(H // 2):
        for x in range(W // 2):
            _, cb, cr = ycbcr(colour_at(2 * x, 2 * y))   # patch edges fall on even pixels
            planes[1][y * W // 2 + x] = cb
            planes[2][y * W // 2 + x] = cr
    with open(out, "wb") as f:
        f.write(b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n" % (W, H))
        for _ in range(frames):
            f.write(b"FRAME\n")
            for p in planes:
                f.write(p)

    def centre(row, col):
        return (LEFT + col * (PATCH + GAP) + PATCH / 2) / W, (TOP + row * (PATCH + GAP) + PATCH / 2) / H

    print(" ".join("--corner %.6f,%.6f" % centre(r, c) for r, c in ((0, 0), (0, 5), (3, 5), (3, 0))))


main()
