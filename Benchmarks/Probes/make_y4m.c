// Writes a YUV4MPEG2 file of N frames like Eyedropper's noisy test pattern, for the whole-process
// comparison (snapshot-vs-glued.sh): 75% colour bars over the upper two thirds, a grey ramp, a hue
// sweep, in BT.709 limited range (what Eyedropper assumes of a 1080-line .y4m without a matrix
// tag), plus seeded sensor-like noise (-7...7, triangular) on every sample, new in every frame.
//
//   cc -O2 Benchmarks/Probes/make_y4m.c -o /tmp/make_y4m && /tmp/make_y4m out.y4m 1920 1080 60
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state = 0x4e6f697379ULL;
static uint64_t next(void) { // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint8_t clamp(double v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)(v + 0.5); }

static void rgb_at(int x, int y, int w, int h, double rgb[3]) {
    static const double bars[8][3] = {{191, 191, 191}, {191, 191, 0}, {0, 191, 191}, {0, 191, 0},
                                      {191, 0, 191},   {191, 0, 0},   {0, 0, 191},   {0, 0, 0}};
    if (y < h * 2 / 3) {
        const double *c = bars[x * 8 / w];
        rgb[0] = c[0], rgb[1] = c[1], rgb[2] = c[2];
    } else if (y < h * 5 / 6) {
        rgb[0] = rgb[1] = rgb[2] = 255.0 * x / (w - 1);
    } else { // hue sweep, full saturation
        double hue = 6.0 * x / w, f = hue - (int)hue;
        double ramp[6][3] = {{1, f, 0}, {1 - f, 1, 0}, {0, 1, f}, {0, 1 - f, 1}, {f, 0, 1}, {1, 0, 1 - f}};
        for (int i = 0; i < 3; i++) rgb[i] = 255 * ramp[(int)hue % 6][i];
    }
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: %s OUT.y4m WIDTH HEIGHT FRAMES\n", argv[0]); return 2; }
    int w = atoi(argv[2]), h = atoi(argv[3]), frames = atoi(argv[4]), cw = (w + 1) / 2, ch = (h + 1) / 2;
    size_t size = (size_t)w * h + 2 * (size_t)cw * ch;
    uint8_t *clean = malloc(size), *noisy = malloc(size);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double c[3];
            rgb_at(x, y, w, h, c);
            double yy = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
            clean[(size_t)y * w + x] = clamp(16 + 219 * yy / 255);
            if (x % 2 == 0 && y % 2 == 0) {
                size_t i = (size_t)(y / 2) * cw + x / 2;
                clean[(size_t)w * h + i] = clamp(128 + 224 * (c[2] - yy) / 1.8556 / 255);
                clean[(size_t)w * h + (size_t)cw * ch + i] = clamp(128 + 224 * (c[0] - yy) / 1.5748 / 255);
            }
        }
    FILE *out = fopen(argv[1], "wb");
    if (!out) { perror(argv[1]); return 1; }
    fprintf(out, "YUV4MPEG2 W%d H%d F30:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n", w, h);
    for (int f = 0; f < frames; f++) {
        for (size_t i = 0; i < size; i++) {
            uint64_t draw = next();
            int v = clean[i] + (int)(draw & 7) + (int)((draw >> 3) & 7) - 7;
            noisy[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
        fputs("FRAME\n", out);
        fwrite(noisy, 1, size, out);
    }
    return fclose(out) == 0 ? 0 : 1;
}
