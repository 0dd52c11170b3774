// SPDX-License-Identifier: GPL-3.0-or-later
// libjpeg at 1/8 scale, as GdkPixbuf's JPEG loader decodes a large photo for a thumbnail (the
// same library, SIMD and all, block smoothing off), with every warning counted: only a file it decodes without one
// has a picture our decoder must match.
#include "CFuzzReference.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf exit;
} Errors;

static void error_exit(j_common_ptr cinfo) { longjmp(((Errors *)cinfo->err)->exit, 1); }
static void output_message(j_common_ptr cinfo) { (void)cinfo; }

int photopick_reference_eighth(const unsigned char *data, size_t size, unsigned char **pixels, int *width, int *height) {
    struct jpeg_decompress_struct cinfo;
    Errors errors;
    unsigned char *volatile out = NULL;
    cinfo.err = jpeg_std_error(&errors.manager);
    errors.manager.error_exit = error_exit;
    errors.manager.output_message = output_message;
    if (setjmp(errors.exit)) {
        jpeg_destroy_decompress(&cinfo);
        free(out);
        return 0;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = 1;
    cinfo.scale_denom = 8;
    cinfo.out_color_space = JCS_RGB;
    // As GdkPixbuf's JPEG loader sets it: no guessing of AC coefficients a progressive file
    // never sent.
    cinfo.do_block_smoothing = FALSE;
    jpeg_start_decompress(&cinfo);
    size_t rowstride = (size_t)cinfo.output_width * 3;
    out = malloc(rowstride * cinfo.output_height);
    if (!out) longjmp(errors.exit, 1);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = out + (size_t)cinfo.output_scanline * rowstride;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    int clean = errors.manager.num_warnings == 0;
    *width = (int)cinfo.output_width;
    *height = (int)cinfo.output_height;
    jpeg_abort_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    if (!clean) {
        free(out);
        return 0;
    }
    *pixels = out;
    return 1;
}
