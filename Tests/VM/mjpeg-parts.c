/* A streaming client for the VM's systemd test: GETs an MJPEG stream (multipart/x-mixed-replace)
 * from a loopback port and prints the wall-clock time (CLOCK_REALTIME, seconds) at which each
 * part's boundary arrived, one `part T` line each, flushed, so a reload's gap can be measured
 * against the time it was asked for. Ends after SECONDS with `end open T` (the server kept the
 * connection: exit 0), or earlier with `end closed T` when the server closed or broke it (exit 1).
 *
 * usage: mjpeg-parts PORT PATH SECONDS      (built static on the host: gcc -O2 -static) */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static double mono(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: mjpeg-parts PORT PATH SECONDS\n"); return 2; }
    setvbuf(stdout, NULL, _IOLBF, 0);
    double deadline = mono() + atof(argv[3]);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[1])) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        printf("end closed %.6f connect: %s\n", now(), strerror(errno)); return 1;
    }
    char request[512];
    snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", argv[2]);
    if (write(fd, request, strlen(request)) != (ssize_t)strlen(request)) { printf("end closed %.6f write\n", now()); return 1; }

    static char buf[1 << 16];
    char head[8192]; size_t headlen = 0; int inbody = 0;
    char needle[256] = ""; size_t nlen = 0;
    char carry[256]; size_t clen = 0;   /* the last nlen-1 bytes, for a boundary split across reads */
    static char scan[(1 << 16) + 256];
    for (;;) {
        double left = deadline - mono();
        if (left <= 0) { printf("end open %.6f\n", now()); return 0; }
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r == 0) continue;
        if (r < 0) { if (errno == EINTR) continue; printf("end closed %.6f poll\n", now()); return 1; }
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) { printf("end closed %.6f %s\n", now(), n == 0 ? "eof" : strerror(errno)); return 1; }
        double t = now();
        char *data = buf; size_t len = (size_t)n;
        if (!inbody) {
            size_t take = len < sizeof head - 1 - headlen ? len : sizeof head - 1 - headlen;
            memcpy(head + headlen, data, take); headlen += take; head[headlen] = 0;
            char *end = strstr(head, "\r\n\r\n");
            if (!end) { if (headlen >= sizeof head - 1) { printf("end closed %.6f header too long\n", t); return 1; } continue; }
            size_t hsize = (size_t)(end + 4 - head);
            *end = 0;
            printf("status %.*s\n", (int)strcspn(head, "\r\n"), head);
            char *b = strstr(head, "boundary=");
            if (!b) { printf("end closed %.6f no boundary in: %s\n", t, head); return 1; }
            b += 9; if (*b == '"') b++;
            size_t blen = strcspn(b, "\";\r\n ");
            if (blen == 0 || blen > 200) { printf("end closed %.6f bad boundary\n", t); return 1; }
            needle[0] = '-'; needle[1] = '-'; memcpy(needle + 2, b, blen); nlen = blen + 2; needle[nlen] = 0;
            inbody = 1;
            /* the body bytes of this read: what followed the header in it */
            size_t before = headlen - take;   /* header bytes from earlier reads */
            if (hsize < before) hsize = before;
            data = buf + (hsize - before); len = (size_t)n - (hsize - before);
        }
        memcpy(scan, carry, clen); memcpy(scan + clen, data, len);
        size_t total = clen + len;
        for (size_t i = 0; i + nlen <= total; i++)
            if (memcmp(scan + i, needle, nlen) == 0) { printf("part %.6f\n", t); i += nlen - 1; }
        clen = total < nlen - 1 ? total : nlen - 1;
        memcpy(carry, scan + total - clen, clen);
    }
}
