// SPDX-License-Identifier: LGPL-2.1-or-later
// V4L2 from Swift: the kernel's capture interface and libv4lconvert, the pixel-format conversions
// V4L2 viewers use. ioctl is variadic and its request codes are function-like macros, so neither
// reaches Swift directly: small inline wrappers and constants carry them.
#include <linux/videodev2.h>
#include <libv4lconvert.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/inotify.h>
#include <poll.h>
#include <fcntl.h>
#include <errno.h>

static inline int pp_ioctl(int fd, unsigned long request, void *argument) {
    int result;
    // A signal may interrupt a blocking ioctl; the call is simply repeated.
    do { result = ioctl(fd, request, argument); } while (result == -1 && errno == EINTR);
    return result;
}

static const unsigned long PP_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long PP_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long PP_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long PP_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long PP_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long PP_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long PP_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long PP_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long PP_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long PP_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long PP_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long PP_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long PP_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long PP_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;

// libv4lconvert asks its device what it is; converting without one (tests, the benchmark) gives
// it a stand-in that says "a capture device" and knows nothing else.
#include <libv4l-plugin.h>
#include <string.h>

static int pp_deviceless_ioctl(void *private_data, int fd, unsigned long int request, void *argument) {
    (void)private_data; (void)fd;
    if (request == VIDIOC_QUERYCAP) {
        struct v4l2_capability *capability = argument;
        memset(capability, 0, sizeof *capability);
        strcpy((char *)capability->driver, "photopick");
        strcpy((char *)capability->card, "no device");
        capability->capabilities = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING | V4L2_CAP_DEVICE_CAPS;
        capability->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
        return 0;
    }
    errno = EINVAL;
    return -1;
}

static inline struct v4lconvert_data *pp_v4lconvert_create_without_device(void) {
    static const struct libv4l_dev_ops operations = { .ioctl = pp_deviceless_ioctl };
    return v4lconvert_create_with_dev_ops(-1, NULL, &operations);
}
