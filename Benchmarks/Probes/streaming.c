// Where streamed (non-temporal) stores start to pay: the threshold behind YCbCrConverter.plan.
// For I420 frames from 1920x1080 to 3840x2160, to RGBA and RGB24, one thread, times the AVX2 and
// AVX-512 row kernels three ways: two rows per call through the cache ("pairs"), one row per
// call through the cache ("rows"), and two rows per call streamed ("streamed"); libyuv's
// I420ToABGR / I420ToRAW beside them. "traffic" is the bytes read and written per frame, as
// plan() counts them. Medians of 60 frames after 10 of warm-up, each frame converted again into
// the same output, as the Convert suite does (so a source and output that fit stay in the cache).
// With the argument `arithmetic`, every row is written over the output's first four, which stay
// in the L1/L2 cache: what is left is the kernels' arithmetic and their reads of the source.
//
//   cc -O2 -ISources/CEyedropperKernels/include Benchmarks/Probes/streaming.c
//      Sources/CEyedropperKernels/*.c -lyuv -o /tmp/streaming    (one line)
//   /tmp/streaming [arithmetic]
#include <libyuv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "CEyedropperKernels.h"

typedef void (*rows_fn)(const uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *,
                        uint8_t *, uint8_t *, ptrdiff_t, const ed_coefficients *, ed_output, int);

enum { WARMUP = 10, FRAMES = 60 };

// Set by the `arithmetic` argument: output rows wrap after four.
static int wrapRows = 0;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    int width, height, bpp;
    uint8_t *y, *cb, *cr, *out;
} frame;

// Coefficients of BT.601 limited range's size; the time does not depend on their values.
static const ed_coefficients k601 = {38142, 25826, 32644, -6344, -13147, -6955};

static void convert(const frame *f, rows_fn rows, int pairs, int stream) {
    ed_output output = f->bpp == 4 ? ED_OUTPUT_RGBA : ED_OUTPUT_RGB24;
    ptrdiff_t w = f->width, row_bytes = w * f->bpp;
    for (int r = 0; r < f->height; r += pairs ? 2 : 1) {
        const uint8_t *cb = f->cb + (r / 2) * (w / 2), *cr = f->cr + (r / 2) * (w / 2);
        int o = wrapRows ? r % 4 : r;
        rows(f->y + r * w, pairs ? f->y + (r + 1) * w : NULL, cb, cr, f->out + o * row_bytes,
             pairs ? f->out + (o + 1) * row_bytes : NULL, w, &k601, output, stream);
    }
}

static void libyuv(const frame *f) {
    int w = f->width;
    if (f->bpp == 4)
        I420ToABGR(f->y, w, f->cb, w / 2, f->cr, w / 2, f->out, w * 4, w, f->height);
    else
        I420ToRAW(f->y, w, f->cb, w / 2, f->cr, w / 2, f->out, w * 3, w, f->height);
}

// Median microseconds of one way of converting `f`: kernel 0 or 1 (AVX2, AVX-512), or -1 for libyuv.
static double median(const frame *f, int kernel, int pairs, int stream) {
    rows_fn rows = kernel == 1 ? ed_rows_planar_avx512 : ed_rows_planar_avx2;
    double times[FRAMES];
    for (int i = 0; i < WARMUP + FRAMES; i++) {
        double start = now_us();
        if (kernel < 0) libyuv(f);
        else convert(f, rows, pairs, stream);
        if (i >= WARMUP) times[i - WARMUP] = now_us() - start;
    }
    qsort(times, FRAMES, sizeof times[0], by_value);
    return times[FRAMES / 2];
}

int main(int argc, char **argv) {
    wrapRows = argc > 1 && strcmp(argv[1], "arithmetic") == 0;
    if (!ed_cpu_has_avx2()) {
        puts("this CPU lacks AVX2: nothing to measure");
        return 0;
    }
    int avx512 = ed_cpu_has_avx512bw() && ed_cpu_has_avx512vbmi();
    const int sizes[][2] = {{1920, 1080}, {2560, 1440}, {2880, 1620}, {3200, 1800}, {3840, 2160}};
    printf("%-15s %-6s %8s | %-6s %8s %8s %8s | %8s\n", "size", "output", "traffic", "kernel",
           "pairs", "rows", "streamed", "libyuv");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int bpp = 4; bpp >= 3; bpp--) {
            frame f = {sizes[s][0], sizes[s][1], bpp};
            size_t luma = (size_t)f.width * f.height, out = luma * bpp;
            f.y = aligned_alloc(64, luma);
            f.cb = aligned_alloc(64, luma / 4);
            f.cr = aligned_alloc(64, luma / 4);
            f.out = aligned_alloc(64, out);
            srand(7);
            for (size_t i = 0; i < luma; i++) f.y[i] = (uint8_t)rand();
            for (size_t i = 0; i < luma / 4; i++) f.cb[i] = (uint8_t)rand(), f.cr[i] = (uint8_t)rand();
            memset(f.out, 0, out);
            double traffic = (luma * 3 / 2 + out) / 1048576.0;
            double peer = median(&f, -1, 0, 0);
            for (int kernel = 0; kernel <= avx512; kernel++) {
                printf("%5dx%-9d %-6s %6.1f MiB | %-6s %6.0f us %6.0f us %6.0f us | %6.0f us\n",
                       f.width, f.height, bpp == 4 ? "RGBA" : "RGB24", traffic,
                       kernel ? "avx512" : "avx2", median(&f, kernel, 1, 0), median(&f, kernel, 0, 0),
                       median(&f, kernel, 1, 1), peer);
            }
            free(f.y), free(f.cb), free(f.cr), free(f.out);
        }
    }
    return 0;
}
