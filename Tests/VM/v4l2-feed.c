// Feeds frames of one's own into a v4l2loopback device, as a camera would deliver them: sets the
// output format, then write()s one whole frame per call, round and round the files given, at a
// fixed rate, until killed. A raw frame (YUYV) must be exactly width x height x 2 bytes; a JPEG
// (MJPG) frame is any size, and the driver hands the reader the length written.
//
// usage: v4l2-feed DEVICE YUYV|MJPG WIDTH HEIGHT FPS FILE...
// Prints "feeding N frames" on stderr once the first frame is written. Built static on the host
// (the guest has only busybox): gcc -O2 -static -o v4l2-feed v4l2-feed.c
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "v4l2-feed: %s: %s\n", what, detail);
    exit(1);
}

int main(int argc, char **argv) {
    if (argc < 7) fail("usage", "v4l2-feed DEVICE YUYV|MJPG WIDTH HEIGHT FPS FILE...");
    const char *device = argv[1], *fourcc = argv[2];
    int width = atoi(argv[3]), height = atoi(argv[4]), fps = atoi(argv[5]);
    int raw = strcmp(fourcc, "YUYV") == 0;
    if (!raw && strcmp(fourcc, "MJPG") != 0) fail(fourcc, "the format is YUYV or MJPG");
    if (width <= 0 || height <= 0 || fps <= 0) fail(argv[3], "width, height and fps must be positive");

    int count = argc - 6;
    unsigned char **frames = calloc(count, sizeof *frames);
    size_t *sizes = calloc(count, sizeof *sizes);
    for (int i = 0; i < count; i++) {
        const char *path = argv[6 + i];
        int fd = open(path, O_RDONLY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0) fail(path, strerror(errno));
        sizes[i] = (size_t)st.st_size;
        if (raw && sizes[i] != (size_t)width * height * 2) fail(path, "a YUYV frame is width x height x 2 bytes");
        frames[i] = malloc(sizes[i]);
        for (size_t done = 0; done < sizes[i];) {
            ssize_t n = read(fd, frames[i] + done, sizes[i] - done);
            if (n <= 0) fail(path, n < 0 ? strerror(errno) : "shorter than its size");
            done += (size_t)n;
        }
        close(fd);
    }

    int fd = open(device, O_RDWR);
    if (fd < 0) fail(device, strerror(errno));
    struct v4l2_format format = {.type = V4L2_BUF_TYPE_VIDEO_OUTPUT};
    format.fmt.pix.width = width;
    format.fmt.pix.height = height;
    format.fmt.pix.pixelformat = raw ? V4L2_PIX_FMT_YUYV : V4L2_PIX_FMT_MJPEG;
    format.fmt.pix.field = V4L2_FIELD_NONE;
    format.fmt.pix.bytesperline = raw ? width * 2 : 0;
    format.fmt.pix.sizeimage = width * height * 2;
    if (ioctl(fd, VIDIOC_S_FMT, &format) != 0) fail("VIDIOC_S_FMT", strerror(errno));
    if (format.fmt.pix.width != (unsigned)width || format.fmt.pix.height != (unsigned)height)
        fail("VIDIOC_S_FMT", "the driver changed the size");
    struct v4l2_streamparm parm = {.type = V4L2_BUF_TYPE_VIDEO_OUTPUT};
    parm.parm.output.timeperframe.numerator = 1;
    parm.parm.output.timeperframe.denominator = fps;
    ioctl(fd, VIDIOC_S_PARM, &parm);  // best effort: the pace below is what the reader sees
    // Frames go in by write(), but STREAMON marks this opener as the device's writer: without it,
    // v4l2loopback (exclusive_caps=1) does not offer the output again once this program is gone.
    int type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    if (ioctl(fd, VIDIOC_STREAMON, &type) != 0) fail("VIDIOC_STREAMON", strerror(errno));

    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (long written = 0;; written++) {
        int i = (int)(written % count);
        ssize_t n = write(fd, frames[i], sizes[i]);
        if (n != (ssize_t)sizes[i]) fail("write", n < 0 ? strerror(errno) : "short write");
        if (written == 0) fprintf(stderr, "v4l2-feed: feeding %d frames to %s\n", count, device);
        next.tv_nsec += 1000000000L / fps;
        if (next.tv_nsec >= 1000000000L) { next.tv_sec++; next.tv_nsec -= 1000000000L; }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
}
