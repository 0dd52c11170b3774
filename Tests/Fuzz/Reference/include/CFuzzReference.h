// SPDX-License-Identifier: GPL-3.0-or-later
#include <stddef.h>

/// libjpeg's own picture of a JPEG at 1/8 scale, RGB, 3 bytes a pixel in rows of width x 3 (the
/// reference the eighth target compares our decoder with). Returns 1 when libjpeg decoded it
/// without an error or a warning (`*pixels` then malloc'd, the caller frees it), else 0.
int photopick_reference_eighth(const unsigned char *data, size_t size, unsigned char **pixels, int *width, int *height);
