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
#include <dlfcn.h>
#include <stddef.h>

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

// libv4lconvert is opened the first time a camera's frames are converted, not linked: a window
// with no camera (or --no-camera, or a host's picker) never needs it, and a linked library is
// mapped and relocated at every start (88 kB of a warm window's memory, issue 42). Its
// functions are looked up once; NULL (a create) or -1 (a conversion) when it cannot be opened.
struct pp_v4lconvert_functions {
    int loaded;
    struct v4lconvert_data *(*create)(int fd);
    struct v4lconvert_data *(*create_with_dev_ops)(int fd, void *dev_ops_priv, const struct libv4l_dev_ops *dev_ops);
    void (*destroy)(struct v4lconvert_data *data);
    int (*convert)(struct v4lconvert_data *data, const struct v4l2_format *src_fmt, const struct v4l2_format *dest_fmt,
                   unsigned char *src, int src_size, unsigned char *dest, int dest_size);
    const char *(*get_error_message)(struct v4lconvert_data *data);
};

// (Swift calls these from one thread at a time: the camera's worker. A second lookup racing the
// first would find the same library and the same addresses.)
static inline const struct pp_v4lconvert_functions *pp_v4lconvert(void) {
    static struct pp_v4lconvert_functions functions;
    if (!functions.loaded) {
        void *library = dlopen("libv4lconvert.so.0", RTLD_NOW | RTLD_LOCAL);
        if (library) {
            functions.create = (struct v4lconvert_data *(*)(int))dlsym(library, "v4lconvert_create");
            functions.create_with_dev_ops = (struct v4lconvert_data *(*)(int, void *, const struct libv4l_dev_ops *))
                dlsym(library, "v4lconvert_create_with_dev_ops");
            functions.destroy = (void (*)(struct v4lconvert_data *))dlsym(library, "v4lconvert_destroy");
            functions.convert = (int (*)(struct v4lconvert_data *, const struct v4l2_format *, const struct v4l2_format *,
                                         unsigned char *, int, unsigned char *, int))dlsym(library, "v4lconvert_convert");
            functions.get_error_message = (const char *(*)(struct v4lconvert_data *))dlsym(library, "v4lconvert_get_error_message");
        }
        functions.loaded = 1;
    }
    return &functions;
}

/// Why libv4lconvert could not be opened (dlerror's words), or NULL when it is open.
static inline const char *pp_v4lconvert_missing(void) {
    const struct pp_v4lconvert_functions *functions = pp_v4lconvert();
    if (functions->create && functions->create_with_dev_ops && functions->destroy && functions->convert
        && functions->get_error_message) return NULL;
    return "libv4lconvert.so.0 cannot be opened (the package libv4l-0 is not installed?)";
}

static inline struct v4lconvert_data *pp_v4lconvert_create(int fd) {
    return pp_v4lconvert_missing() ? NULL : pp_v4lconvert()->create(fd);
}

static inline void pp_v4lconvert_destroy(struct v4lconvert_data *data) {
    if (!pp_v4lconvert_missing()) pp_v4lconvert()->destroy(data);
}

static inline int pp_v4lconvert_convert(struct v4lconvert_data *data, const struct v4l2_format *src_fmt,
                                        const struct v4l2_format *dest_fmt, unsigned char *src, int src_size,
                                        unsigned char *dest, int dest_size) {
    if (pp_v4lconvert_missing()) return -1;
    return pp_v4lconvert()->convert(data, src_fmt, dest_fmt, src, src_size, dest, dest_size);
}

static inline const char *pp_v4lconvert_get_error_message(struct v4lconvert_data *data) {
    return pp_v4lconvert_missing() ? "libv4lconvert is not installed" : pp_v4lconvert()->get_error_message(data);
}

static inline struct v4lconvert_data *pp_v4lconvert_create_without_device(void) {
    static const struct libv4l_dev_ops operations = { .ioctl = pp_deviceless_ioctl };
    return pp_v4lconvert_missing() ? NULL : pp_v4lconvert()->create_with_dev_ops(-1, NULL, &operations);
}
