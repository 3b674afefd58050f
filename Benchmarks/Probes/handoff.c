// Why two threads convert a 1080p frame barely faster than one, on a 2-vCPU VM: is it memory
// bandwidth, or handing the frame to a sleeping helper thread? Times, for one 1920x1080 I420
// frame split into two bands of rows: a copy of the same bytes (the memory limit, as the Convert
// suite's memcpy rows), libyuv I420ToABGR and I420ToRAW, and the hand-off alone, each on one
// thread and on two; the helper either sleeps between frames on a condition variable, handed
// each frame as ParallelConverter's BandCrew does (broadcast a new generation, convert band 0,
// wait until no band is pending), or spins on an atomic counter, or sleeps as in the crew but
// the rows are dealt out in chunks of 16 from a shared counter ("share"), so the caller converts
// whatever the helper, still waking, has not taken, and never sleeps waiting for it. Medians of 300
// frames after 10 of warm-up; the frame stays in the L3 cache, as it does in the suite.
//
//   cc -O2 Benchmarks/Probes/handoff.c -lyuv -lpthread -o /tmp/handoff
//   /tmp/handoff         # helper sleeps between frames
//   /tmp/handoff spin    # helper spins between frames
//   /tmp/handoff share   # helper sleeps; rows shared in chunks
//   /tmp/handoff MODE paced   # 5 ms idle between frames (untimed), as between a camera's frames
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
static int bands, spin, share, paced;
enum { CHUNK_ROWS = 16 };
static atomic_int nextChunk, active;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static unsigned long generation;
static int pending;
static atomic_ulong started, finished;
static atomic_int quit;

static double microseconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/// Rows top..<bottom (top even, so chroma rows stay whole).
static void convertRows(int top, int bottom) {
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

/// One band of rows (even boundaries).
static void convert(int band) {
    convertRows((H * band / bands) & ~1, band + 1 == bands ? H : (H * (band + 1) / bands) & ~1);
}

/// Takes chunks of rows until none is left.
static void convertChunks(void) {
    for (;;) {
        int top = atomic_fetch_add(&nextChunk, 1) * CHUNK_ROWS;
        if (top >= H) return;
        convertRows(top, top + CHUNK_ROWS < H ? top + CHUNK_ROWS : H);
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
            pthread_mutex_lock(&lock);
            while (generation == seen && !atomic_load(&quit)) pthread_cond_wait(&changed, &lock);
            seen = generation;
            pthread_mutex_unlock(&lock);
        }
        if (atomic_load(&quit)) return NULL;
        if (share) {
            atomic_fetch_add(&active, 1);
            convertChunks();
            atomic_fetch_sub(&active, 1);
            continue;
        }
        convert(1);
        if (spin) {
            atomic_store(&finished, seen);
        } else {
            pthread_mutex_lock(&lock);
            if (--pending == 0) pthread_cond_broadcast(&changed);
            pthread_mutex_unlock(&lock);
        }
    }
}

/// One frame on the calling thread (band 0) and, with two bands, the helper (band 1).
static void convertFrame(void) {
    if (bands == 1) { convert(0); return; }
    if (share) {
        atomic_store(&nextChunk, 0);
        pthread_mutex_lock(&lock);
        generation++;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
        convertChunks();
        while (atomic_load(&active) > 0) __builtin_ia32_pause();  // at most the helper's last chunk
        return;
    }
    if (spin) {
        unsigned long frameNumber = atomic_load(&started) + 1;
        atomic_store(&started, frameNumber);
        convert(0);
        while (atomic_load(&finished) != frameNumber) __builtin_ia32_pause();
    } else {
        pthread_mutex_lock(&lock);
        generation++;
        pending = 1;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
        convert(0);
        pthread_mutex_lock(&lock);
        while (pending > 0) pthread_cond_wait(&changed, &lock);
        pthread_mutex_unlock(&lock);
    }
}

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    spin = argc > 1 && strcmp(argv[1], "spin") == 0;
    share = argc > 1 && strcmp(argv[1], "share") == 0;
    paced = argc > 2 && strcmp(argv[2], "paced") == 0;
    printf("helper between frames: %s\n", spin ? "spins (atomic counter)"
           : share ? "sleeps (condition variable); rows shared in chunks of 16"
                   : "sleeps (condition variable, as BandCrew)");
    if (paced) printf("5 ms idle between frames\n");
    frame = aligned_alloc(64, W * H * 3 / 2);
    output = aligned_alloc(64, W * H * 4);
    for (size_t i = 0; i < (size_t)W * H * 3 / 2; i++) frame[i] = (uint8_t)((i * 2654435761u) >> 13);
    memset(output, 0, (size_t)W * H * 4);
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
                if (paced) {
                    struct timespec idle = {0, 5000000};
                    nanosleep(&idle, NULL);
                }
            }
            qsort(times, FRAMES, sizeof times[0], ascending);
            median[bands] = times[FRAMES / 2];
            printf("%-18s %d thread%s  median %7.1f us  fastest %7.1f us\n",
                   names[work], bands, bands == 1 ? " " : "s", times[FRAMES / 2], times[0]);
        }
        if (work != NOTHING) printf("%-18s speedup %.2fx\n", names[work], median[1] / median[2]);
    }
    atomic_store(&quit, 1);
    if (spin) {
        atomic_fetch_add(&started, 1);
    } else {
        pthread_mutex_lock(&lock);
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
    }
    pthread_join(thread, NULL);
    return 0;
}
