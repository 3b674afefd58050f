// Swift cannot call variadic C functions (v4l2_open, v4l2_ioctl) or expand function-like macros
// (VIDIOC_* are _IOWR(...)): these give them plain names. Nothing else belongs here.
#ifndef EYEDROPPER_CV4L2_SHIM_H
#define EYEDROPPER_CV4L2_SHIM_H

#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <libv4l2.h>
#include <linux/videodev2.h>

static inline int ed_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
static inline int ed_v4l2_close(int fd) { return v4l2_close(fd); }
static inline int ed_v4l2_ioctl(int fd, unsigned long request, void *argument) {
    return v4l2_ioctl(fd, request, argument);
}
static inline void *ed_v4l2_mmap(size_t length, int fd, int64_t offset) {
    return v4l2_mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
}
static inline int ed_v4l2_munmap(void *start, size_t length) { return v4l2_munmap(start, length); }

static const unsigned long ED_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long ED_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long ED_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long ED_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long ED_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long ED_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long ED_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long ED_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long ED_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long ED_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long ED_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long ED_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long ED_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long ED_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;

#endif
