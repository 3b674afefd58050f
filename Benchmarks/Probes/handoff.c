// Why two threads convert a 1080p frame barely faster than one, on a 2-vCPU VM: is it memory
// bandwidth, or handing the frame to a sleeping helper thread? Times, for one 1920x1080 I420
// frame split into two bands of rows: a copy of the same bytes (the memory limit, as the Convert
// suite's memcpy rows), libyuv I420ToABGR and I420ToRAW, and the hand-off alone, each on one
// thread and on two; the helper either sleeps between frames in a pthread barrier (a futex, as
// ParallelConverter's condition variable does) or spins on an atomic counter. Medians of 300
// frames after 10 of warm-up; the frame stays in the L3 cache, as it does in the suite.
//
//   cc -O2 Benchmarks/Probes/handoff.c -lyuv -lpthread -o /tmp/handoff
//   /tmp/handoff         # helper sleeps between frames
//   /tmp/handoff spin    # helper spins between frames
#include <libyuv.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { W = 1920, H = 1080, FRAMES = 300, WARMUP = 10 };
enum Work { COPY_RGB24, COPY_RGBA, LIBYUV_ABGR, LIBYUV_RAW, NOTHING, WORKS };
static const char *names[WORKS] = {
    "copy, RGB24 bytes", "copy, RGBA bytes", "libyuv I420ToABGR", "libyuv I420ToRAW", "hand-off alone"};

static uint8_t *frame, *output;
static enum Work work;
static int bands, spin;
static pthread_barrier_t start, done;
static atomic_ulong started, finished;
static atomic_int quit;

static double microseconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/// One band of rows (even boundaries, so chroma rows stay whole).
static void convert(int band) {
    int top = (H * band / bands) & ~1, bottom = band + 1 == bands ? H : (H * (band + 1) / bands) & ~1;
    const uint8_t *y = frame, *cb = frame + W * H, *cr = cb + (W / 2) * (H / 2);
    size_t rows = (size_t)(bottom - top);
    switch (work) {
    case COPY_RGB24:
    case COPY_RGBA: {
        // Read the band's share of the planes, write its share of the output: copy, then fill.
        size_t bytesPerPixel = work == COPY_RGB24 ? 3 : 4, in = rows * W * 3 / 2, out = rows * W * bytesPerPixel;
        uint8_t *destination = output + (size_t)top * W * bytesPerPixel;
        memcpy(destination, frame + (size_t)top * W * 3 / 2, in);
        memset(destination + in, 0xff, out - in);
        break;
    }
    case LIBYUV_ABGR:
        I420ToABGR(y + top * W, W, cb + top / 2 * (W / 2), W / 2, cr + top / 2 * (W / 2), W / 2,
                   output + (size_t)top * W * 4, W * 4, W, (int)rows);
        break;
    case LIBYUV_RAW:
        I420ToRAW(y + top * W, W, cb + top / 2 * (W / 2), W / 2, cr + top / 2 * (W / 2), W / 2,
                  output + (size_t)top * W * 3, W * 3, W, (int)rows);
        break;
    default:
        break;
    }
}

static void *helper(void *unused) {
    (void)unused;
    unsigned long seen = 0;
    for (;;) {
        if (spin) {
            while (atomic_load(&started) == seen) __builtin_ia32_pause();
            seen = atomic_load(&started);
        } else {
            pthread_barrier_wait(&start);
        }
        if (atomic_load(&quit)) return NULL;
        convert(1);
        if (spin) atomic_store(&finished, seen); else pthread_barrier_wait(&done);
    }
}

/// One frame on the calling thread (band 0) and, with two bands, the helper (band 1).
static void convertFrame(void) {
    if (bands == 1) { convert(0); return; }
    if (spin) {
        unsigned long frameNumber = atomic_load(&started) + 1;
        atomic_store(&started, frameNumber);
        convert(0);
        while (atomic_load(&finished) != frameNumber) __builtin_ia32_pause();
    } else {
        pthread_barrier_wait(&start);
        convert(0);
        pthread_barrier_wait(&done);
    }
}

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    spin = argc > 1 && strcmp(argv[1], "spin") == 0;
    printf("helper between frames: %s\n", spin ? "spins (atomic counter)" : "sleeps (pthread barrier, futex)");
    frame = aligned_alloc(64, W * H * 3 / 2);
    output = aligned_alloc(64, W * H * 4);
    for (size_t i = 0; i < (size_t)W * H * 3 / 2; i++) frame[i] = (uint8_t)((i * 2654435761u) >> 13);
    memset(output, 0, (size_t)W * H * 4);
    pthread_barrier_init(&start, NULL, 2);
    pthread_barrier_init(&done, NULL, 2);
    pthread_t thread;
    pthread_create(&thread, NULL, helper, NULL);
    for (work = 0; work < WORKS; work++) {
        double median[3];
        for (bands = 1; bands <= 2; bands++) {
            double times[FRAMES];
            for (int i = 0; i < WARMUP + FRAMES; i++) {
                double before = microseconds();
                convertFrame();
                if (i >= WARMUP) times[i - WARMUP] = microseconds() - before;
            }
            qsort(times, FRAMES, sizeof times[0], ascending);
            median[bands] = times[FRAMES / 2];
            printf("%-18s %d thread%s  median %7.1f us  fastest %7.1f us\n",
                   names[work], bands, bands == 1 ? " " : "s", times[FRAMES / 2], times[0]);
        }
        if (work != NOTHING) printf("%-18s speedup %.2fx\n", names[work], median[1] / median[2]);
    }
    atomic_store(&quit, 1);
    if (spin) atomic_fetch_add(&started, 1); else pthread_barrier_wait(&start);
    pthread_join(thread, NULL);
    return 0;
}
