// SPDX-License-Identifier: LGPL-2.1-or-later
// A JPEG's picture at 1/8 scale, the scale GdkPixbuf decodes a large photo at for a thumbnail,
// for less than libjpeg's whole entropy decoding: by our own decoder (CJPEGEighth.c), which skips
// a baseline file's AC coefficients several at a time and a progressive file's AC scans whole
// (but 4:2:0 chroma's), and for a progressive file it does not take (RGB, a damaged one), from
// its DC scans through libjpeg's buffered-image mode (CJPEGDC.c), which decodes the AC scans
// that come before the last DC one.
//
// Progressive: the DC scans come first, and at 1/8 scale libjpeg makes each pixel from its
// block's DC coefficient, so the picture is the one a whole decode gives without the AC scans,
// most of the file's bytes. (With chroma stored at half size both ways, 4:2:0, libjpeg makes the
// chroma with a 2x2 inverse DCT that also takes AC coefficients of rows and columns 1, 3, 5 and
// 7: there the colours differ by a few levels in 255, 4 at most in 13 real photos. The baseline
// decoder reads those coefficients and is exact.)
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

/// Decodes a JPEG at 1/8 scale with our own entropy decoder (CJPEGEighth.c), from the whole file
/// in memory: a baseline file (one scan of every component) or a progressive one (its DC scans,
/// and the AC scans of chroma stored at half size both ways), Huffman-coded, grey or YCbCr.
/// Returns 1 with `picture` filled, libjpeg's picture pixel for pixel; 0 when this way does not
/// apply (an arithmetic-coded file, RGB or CMYK, an unusual sampling, a 1/8 picture
/// smaller than `min_width` x `min_height`, more than `max_pixels`) or the file is cut or
/// damaged: the caller decodes it another way then.
int photopick_jpeg_decode_eighth(const unsigned char *data, size_t size, int min_width, int min_height,
                                 long long max_pixels, photopick_jpeg_dc_picture *picture);

#endif
