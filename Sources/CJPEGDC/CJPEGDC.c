// SPDX-License-Identifier: LGPL-2.1-or-later
#include "CJPEGDC.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>
#include <jerror.h>

enum { CHUNK = 64 * 1024 };

typedef struct {
    struct jpeg_source_mgr manager;
    photopick_jpeg_read_func read;
    void *context;
    unsigned char buffer[CHUNK];
} Source;

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf exit;
} Errors;

static void init_source(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean fill_input_buffer(j_decompress_ptr cinfo) {
    Source *source = (Source *)cinfo->src;
    long count = source->read(source->context, source->buffer, CHUNK);
    if (count <= 0) {
        // The file ended (or failed): an end-of-image marker, as libjpeg's own sources do; the
        // DC scans are then not whole and the caller decodes the file the ordinary way.
        static const JOCTET end[2] = {0xFF, JPEG_EOI};
        WARNMS(cinfo, JWRN_JPEG_EOF);
        source->manager.next_input_byte = end;
        source->manager.bytes_in_buffer = 2;
        return TRUE;
    }
    source->manager.next_input_byte = source->buffer;
    source->manager.bytes_in_buffer = (size_t)count;
    return TRUE;
}

static void skip_input_data(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *source = cinfo->src;
    if (count <= 0) return;
    while (count > (long)source->bytes_in_buffer) {
        count -= (long)source->bytes_in_buffer;
        (void)fill_input_buffer(cinfo);
    }
    source->next_input_byte += count;
    source->bytes_in_buffer -= (size_t)count;
}

static void term_source(j_decompress_ptr cinfo) { (void)cinfo; }

// A damaged file ends the decode here (libjpeg would exit the process).
static void error_exit(j_common_ptr cinfo) { longjmp(((Errors *)cinfo->err)->exit, 1); }

// Warnings (a cut-off file, a corrupt segment) are not printed: the file is refused or decoded
// the ordinary way, which says what is wrong.
static void output_message(j_common_ptr cinfo) { (void)cinfo; }

// Whether every component's DC coefficient has all its bits (coef_bits[c][0] is the lowest bit
// still missing, 0 when whole; -1 before any scan of it).
static int dc_is_whole(j_decompress_ptr cinfo) {
    for (int component = 0; component < cinfo->num_components; component++)
        if (cinfo->coef_bits[component][0] != 0) return 0;
    return 1;
}

int photopick_jpeg_decode_dc(photopick_jpeg_read_func read, void *context, int min_width, int min_height,
                             long long max_pixels, photopick_jpeg_dc_picture *picture) {
    struct jpeg_decompress_struct cinfo;
    Errors errors;
    Source *source = malloc(sizeof(Source));
    unsigned char *volatile pixels = NULL;
    if (!source) return 0;
    cinfo.err = jpeg_std_error(&errors.manager);
    errors.manager.error_exit = error_exit;
    errors.manager.output_message = output_message;
    if (setjmp(errors.exit)) {
        free(pixels);
        jpeg_destroy_decompress(&cinfo);
        free(source);
        return 0;
    }
    jpeg_create_decompress(&cinfo);
    source->manager.init_source = init_source;
    source->manager.fill_input_buffer = fill_input_buffer;
    source->manager.skip_input_data = skip_input_data;
    source->manager.resync_to_restart = jpeg_resync_to_restart;
    source->manager.term_source = term_source;
    source->manager.bytes_in_buffer = 0;
    source->manager.next_input_byte = NULL;
    source->read = read;
    source->context = context;
    cinfo.src = &source->manager;

    int applies = jpeg_read_header(&cinfo, TRUE) == JPEG_HEADER_OK && cinfo.progressive_mode &&
                  (cinfo.jpeg_color_space == JCS_YCbCr || cinfo.jpeg_color_space == JCS_GRAYSCALE ||
                   cinfo.jpeg_color_space == JCS_RGB) &&
                  (long long)cinfo.image_width * cinfo.image_height <= max_pixels;
    if (applies) {
        cinfo.scale_num = 1;
        cinfo.scale_denom = 8;
        cinfo.out_color_space = JCS_RGB;
        cinfo.buffered_image = TRUE;
        // (Block smoothing guesses the missing AC coefficients, and in libjpeg-turbo 2.1 changes
        // DC too: the picture would be smoother than a whole decode's.)
        cinfo.do_block_smoothing = FALSE;
        jpeg_calc_output_dimensions(&cinfo);
        applies = (int)cinfo.output_width >= min_width && (int)cinfo.output_height >= min_height;
    }
    if (applies) {
        jpeg_start_decompress(&cinfo);
        int result;
        do {
            result = jpeg_consume_input(&cinfo);
        } while (result != JPEG_REACHED_EOI && result != JPEG_SUSPENDED && !(result == JPEG_SCAN_COMPLETED && dc_is_whole(&cinfo)));
        // (Read to its end, a file whose DC is still not whole is left to the ordinary decode.)
        applies = dc_is_whole(&cinfo) && result != JPEG_SUSPENDED && errors.manager.num_warnings == 0;
    }
    if (applies) {
        jpeg_start_output(&cinfo, cinfo.input_scan_number);
        int rowstride = (int)cinfo.output_width * 3;
        pixels = malloc((size_t)rowstride * cinfo.output_height);
        if (!pixels) longjmp(errors.exit, 1);
        while (cinfo.output_scanline < cinfo.output_height) {
            JSAMPROW row = pixels + (size_t)cinfo.output_scanline * rowstride;
            jpeg_read_scanlines(&cinfo, &row, 1);
        }
        jpeg_finish_output(&cinfo);
        picture->pixels = pixels;
        picture->width = (int)cinfo.output_width;
        picture->height = (int)cinfo.output_height;
        picture->rowstride = rowstride;
        picture->image_width = (int)cinfo.image_width;
        picture->image_height = (int)cinfo.image_height;
    }
    // (The AC scans after the DC are not read.)
    jpeg_destroy_decompress(&cinfo);
    free(source);
    return applies;
}
