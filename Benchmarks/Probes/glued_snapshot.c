// The job `eyedropper snapshot --subsampling 420` does, as people glue it in C today: read a
// .y4m, convert each frame with libyuv (H420ToRAW for BT.709 limited, I420ToRAW for BT.601
// limited, J420ToRAW for full range) into one reused RGB24 buffer, compress it with tjCompress2
// (4:2:0, accurate DCT, into one reused tjBufSize buffer, TJFLAG_NOREALLOC, as JPEGEncoder does),
// and write each JPEG under a temporary name renamed when whole (as eyedropper's AtomicWrite).
// The peer of the whole-process comparison (snapshot-vs-glued.sh).
//
//   cc -O2 Benchmarks/Probes/glued_snapshot.c -lyuv -lturbojpeg -o /tmp/glued_snapshot
//   /tmp/glued_snapshot IN.y4m OUT_PREFIX QUALITY     # writes OUT_PREFIX-0001.jpg, ...
#include <libyuv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s IN.y4m OUT_PREFIX QUALITY\n", argv[0]); return 2; }
    FILE *in = fopen(argv[1], "rb");
    if (!in) { perror(argv[1]); return 1; }
    char header[1024];
    if (!fgets(header, sizeof header, in) || strncmp(header, "YUV4MPEG2 ", 10) != 0) {
        fprintf(stderr, "not a YUV4MPEG2 file\n");
        return 1;
    }
    int w = 0, h = 0, full = strstr(header, "XCOLORRANGE=FULL") != NULL;
    for (char *field = strtok(header + 10, " \n"); field; field = strtok(NULL, " \n")) {
        if (field[0] == 'W') w = atoi(field + 1);
        if (field[0] == 'H') h = atoi(field + 1);
    }
    // Eyedropper's reading of a .y4m without a matrix tag: BT.709 from 720 lines, else BT.601.
    int (*convert)(const uint8_t *, int, const uint8_t *, int, const uint8_t *, int, uint8_t *, int, int, int) =
        full ? J420ToRAW : h >= 720 ? H420ToRAW : I420ToRAW;
    int cw = (w + 1) / 2, ch = (h + 1) / 2, quality = atoi(argv[3]);
    size_t frameSize = (size_t)w * h + 2 * (size_t)cw * ch;
    uint8_t *frame = malloc(frameSize), *rgb = malloc((size_t)w * h * 3);
    tjhandle handle = tjInitCompress();
    unsigned long capacity = tjBufSize(w, h, TJSAMP_420);
    unsigned char *jpeg = tjAlloc((int)capacity);
    char line[64], path[4096], temporary[4200];
    for (int index = 1; fgets(line, sizeof line, in) && strncmp(line, "FRAME", 5) == 0; index++) {
        if (fread(frame, 1, frameSize, in) != frameSize) { fprintf(stderr, "short frame\n"); return 1; }
        const uint8_t *y = frame, *u = y + (size_t)w * h, *v = u + (size_t)cw * ch;
        convert(y, w, u, cw, v, cw, rgb, w * 3, w, h);
        unsigned long size = capacity;
        if (tjCompress2(handle, rgb, w, w * 3, h, TJPF_RGB, &jpeg, &size, TJSAMP_420, quality,
                        TJFLAG_NOREALLOC | TJFLAG_ACCURATEDCT) != 0) {
            fprintf(stderr, "tjCompress2: %s\n", tjGetErrorStr2(handle));
            return 1;
        }
        snprintf(path, sizeof path, "%s-%04d.jpg", argv[2], index);
        snprintf(temporary, sizeof temporary, "%s.tmp", path);
        FILE *out = fopen(temporary, "wb");
        if (!out || fwrite(jpeg, 1, size, out) != size || fclose(out) != 0 || rename(temporary, path) != 0) {
            perror(path);
            return 1;
        }
        puts(path);
    }
    return 0;
}
