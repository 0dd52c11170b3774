// SPDX-License-Identifier: LGPL-2.1-or-later
// A progressive JPEG's picture at 1/8 scale from its DC scans alone (libjpeg's buffered-image
// mode). At 1/8 scale libjpeg makes each pixel from its block's DC coefficient only, so the
// picture is the one a whole decode gives, without the AC scans' entropy decoding, which is most
// of a progressive file's bytes and of its decoding time. (With chroma stored at half size
// both ways, 4:2:0, libjpeg makes the chroma with a 2x2 inverse DCT, which takes three AC
// coefficients: there the colours differ by a few levels in 255, 4 at most in 13 real photos.)
#ifndef PHOTOPICK_CJPEGDC_H
#define PHOTOPICK_CJPEGDC_H

#include <stddef.h>

/// Reads up to `size` bytes at the current position into `buffer`; 0 at the end, -1 on an error.
typedef long (*photopick_jpeg_read_func)(void *context, unsigned char *buffer, long size);

typedef struct {
    /// RGB, 3 bytes a pixel, rows of `rowstride` bytes; the caller frees it with free().
    unsigned char *pixels;
    int width, height, rowstride;
    /// The picture's full size, from its frame header.
    int image_width, image_height;
} photopick_jpeg_dc_picture;

/// Decodes the DC scans of a progressive JPEG at 1/8 scale. Returns 1 with `picture` filled; 0
/// when this way does not apply (a baseline file, a colour space other than grey or YCbCr/RGB, a
/// 1/8 picture smaller than `min_width` x `min_height`, more than `max_pixels`) or the file
/// ends or breaks before its DC scans are whole: the caller decodes it the ordinary way then.
int photopick_jpeg_decode_dc(photopick_jpeg_read_func read, void *context, int min_width, int min_height,
                             long long max_pixels, photopick_jpeg_dc_picture *picture);

#endif
