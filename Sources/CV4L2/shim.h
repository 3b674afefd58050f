// Swift cannot call variadic C functions (v4l2_open, v4l2_ioctl) or expand function-like macros
// (VIDIOC_* are _IOWR(...)): these give them plain names. Nothing else belongs here.
#ifndef EYEDROPPER_CV4L2_SHIM_H
#define EYEDROPPER_CV4L2_SHIM_H

#include <fcntl.h>
#include <libv4l2.h>
#include <linux/videodev2.h>

static inline int ed_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
static inline int ed_v4l2_close(int fd) { return v4l2_close(fd); }
static inline int ed_v4l2_ioctl(int fd, unsigned long request, void *argument) {
    return v4l2_ioctl(fd, request, argument);
}

static const unsigned long ED_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long ED_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long ED_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long ED_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;

#endif
