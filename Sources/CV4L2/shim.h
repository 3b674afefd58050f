// Swift cannot call variadic C functions (v4l2_open, v4l2_ioctl), expand function-like macros
// (VIDIOC_* are _IOWR(...)) or reach into packed structs with unions (v4l2_ext_control,
// v4l2_querymenu): these give them plain names. Nothing else belongs here.
#ifndef EYEDROPPER_CV4L2_SHIM_H
#define EYEDROPPER_CV4L2_SHIM_H

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
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
static const unsigned long ED_VIDIOC_QUERY_EXT_CTRL = VIDIOC_QUERY_EXT_CTRL;
static const unsigned long ED_VIDIOC_G_EXT_CTRLS = VIDIOC_G_EXT_CTRLS;
static const unsigned long ED_VIDIOC_S_EXT_CTRLS = VIDIOC_S_EXT_CTRLS;

/// VIDIOC_QUERY_EXT_CTRL's "the control after this id", compound (array) controls included.
static const uint32_t ED_CTRL_FLAG_NEXT = V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND;

/// Gets (request VIDIOC_G_EXT_CTRLS) or sets (VIDIOC_S_EXT_CTRLS) one control's current value:
/// `value64` for 64-bit controls, else the 32-bit `value`. Returns v4l2_ioctl's result.
static inline int ed_v4l2_control_value(int fd, unsigned long request, uint32_t id, int is64, int64_t *value) {
    struct v4l2_ext_control control = { .id = id };
    if (is64) control.value64 = *value; else control.value = (int32_t)*value;
    struct v4l2_ext_controls controls = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 1, .controls = &control };
    int result = v4l2_ioctl(fd, request, &controls);
    if (result == 0) *value = is64 ? control.value64 : (int64_t)control.value;
    return result;
}

/// Gets or sets one string control through `text`, `size` bytes including the NUL.
static inline int ed_v4l2_control_string(int fd, unsigned long request, uint32_t id, char *text, uint32_t size) {
    struct v4l2_ext_control control = { .id = id, .size = size, .string = text };
    struct v4l2_ext_controls controls = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 1, .controls = &control };
    return v4l2_ioctl(fd, request, &controls);
}

/// One menu entry (VIDIOC_QUERYMENU): its label (a menu) or its integer (an integer menu).
static inline int ed_v4l2_query_menu(int fd, uint32_t id, uint32_t index, char label[32], int64_t *value) {
    struct v4l2_querymenu entry = { .id = id, .index = index };
    int result = v4l2_ioctl(fd, VIDIOC_QUERYMENU, &entry);
    if (result == 0) {
        memcpy(label, entry.name, 32);
        *value = entry.value;
    }
    return result;
}

#endif
