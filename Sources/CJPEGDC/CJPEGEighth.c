// SPDX-License-Identifier: LGPL-2.1-or-later
// A JPEG's picture at 1/8 scale, decoded by our own entropy decoder, the picture libjpeg makes,
// pixel for pixel (the arithmetic below is the arithmetic of libjpeg's 1x1 and 2x2 inverse DCTs,
// its upsampling at 1/8 and its YCbCr conversion; DecodingTests compares it with GdkPixbuf's).
// At 1/8 scale a block is one pixel, made from its DC coefficient alone (or 2x2 pixels for
// chroma stored at half size both ways, from a few AC coefficients too), so:
// - a baseline file: each block's DC is read and its AC coefficients skipped several codes a
//   lookup. libjpeg-turbo does the same work a code at a time: on the 25 baseline originals of
//   bench/make-real-photos this takes 0.68 of its time.
// - a progressive file: only its DC scans are read (and the AC scans of 4:2:0 chroma, whose 2x2
//   blocks take AC coefficients), the others skipped to their end marker unread. libjpeg's
//   buffered-image mode (CJPEGDC.c) decodes every scan up to the last DC one into a whole-size
//   coefficient buffer. On the 13 progressive originals: 0.10-0.20 of libjpeg's time.
//
// The file is hostile until proven otherwise: every read is bounded by the buffer, every table by
// its size, and anything unusual (a marker inside the data, a code no table has, a restart
// marker out of place, a colour space or sampling other than the common ones) gives up, and the
// caller decodes the file through GdkPixbuf as before.
#include "CJPEGDC.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    SINGLE_BITS = 11,  // a lookup table for one code
    MULTI_BITS = 14,   // a lookup table for as many AC codes (and their extra bits) as fit
    MAX_COMPONENTS = 3,
    MAX_BLOCKS_IN_MCU = 10,
};

typedef struct {
    int defined;
    // (length << 8 | symbol) for each SINGLE_BITS-bit prefix that starts with a code; 0: longer
    uint16_t single[1 << SINGLE_BITS];
    // For AC tables: (bits << 16 | ends_block << 15 | coefficients skipped), the codes wholly
    // inside a MULTI_BITS-bit prefix, up to and with an end of block; 0: not one code fits.
    uint32_t multi[1 << MULTI_BITS];
    // Canonical decoding of codes longer than SINGLE_BITS.
    int32_t max_code[18], first_code[17], first_index[17];
    uint8_t symbols[256];
} Table;

typedef struct {
    const uint8_t *next, *end;
    uint64_t bits;   // the next bits at the top
    int count;       // how many of them are there
    int padding;     // how many of them, at the bottom, are zeros put there at a marker
    int at_marker;
} Reader;

typedef struct {
    int id, h, v, quant, dc_table, ac_table;
    int scaled;          // 1 or 2 samples a block each way, as libjpeg chooses at 1/8
    int blocks_wide, blocks_high;  // in whole MCUs
    int plane_width;     // blocks_wide * scaled
    uint8_t *plane;
    // Progressive: the coefficients so far (DC alone, `stride` 1, or all 64 for a 2x2 block),
    // and the lowest bit of the DC they have (-1: none yet).
    int16_t *coefficients;
    int stride;
    int dc_low;
    // The lowest bit of each AC coefficient so far (zigzag order), -1: none yet: a scan out of
    // libjpeg's order (which it warns of) is given up on, and so is a file that refines the same
    // coefficients over and over to be slow.
    int8_t ac_low[64];
    // The quantisation table as at the component's first scan (libjpeg latches it there).
    uint16_t quant_table[64];
    int latched;
} Component;

// The order in which a block's coefficients are stored, as rows of 8.
static const uint8_t zigzag[64 + 16] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    // (a run past the end lands on coefficient 63, as in libjpeg)
    63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

static int build_table(Table *table, const uint8_t *counts, const uint8_t *symbols, int total, int is_ac) {
    memset(table, 0, sizeof *table);
    memcpy(table->symbols, symbols, (size_t)total);
    int code = 0, index = 0;
    for (int length = 1; length <= 16; length++) {
        table->first_index[length] = index;
        table->first_code[length] = code;
        for (int i = 0; i < counts[length - 1]; i++, index++, code++) {
            if (code >= (1 << length)) return 0;  // more codes than the length holds
            if (length <= SINGLE_BITS) {
                int shift = SINGLE_BITS - length;
                for (int fill = 0; fill < (1 << shift); fill++)
                    table->single[(code << shift) | fill] = (uint16_t)(length << 8 | symbols[index]);
            }
        }
        table->max_code[length] = counts[length - 1] ? code - 1 : -1;
        code <<= 1;
    }
    table->max_code[17] = INT32_MAX;
    if (is_ac) {
        // Codes of up to MULTI_BITS bits, from a table of one code each looked up at each step.
        uint16_t *one = calloc(1 << MULTI_BITS, sizeof(uint16_t));
        if (!one) return 0;
        code = 0;
        index = 0;
        for (int length = 1; length <= MULTI_BITS; length++, code <<= 1)
            for (int i = 0; i < counts[length - 1]; i++, index++, code++) {
                int shift = MULTI_BITS - length;
                for (int fill = 0; fill < (1 << shift); fill++) one[(code << shift) | fill] = (uint16_t)(length << 8 | symbols[index]);
            }
        for (int prefix = 0; prefix < (1 << MULTI_BITS); prefix++) {
            int used = 0, skipped = 0, ends = 0;
            while (!ends) {
                int entry = one[(prefix << used) & ((1 << MULTI_BITS) - 1)];
                int length = entry >> 8, symbol = entry & 255, size = symbol & 15, run = symbol >> 4;
                if (!entry || used + length + size > MULTI_BITS) break;
                used += length + size;
                if (size) skipped += run + 1;
                else if (run == 15) skipped += 16;
                else ends = 1;
            }
            table->multi[prefix] = used ? (uint32_t)(used << 16 | ends << 15 | skipped) : 0;
        }
        free(one);
    }
    table->defined = 1;
    return 1;
}

static void refill_bytewise(Reader *reader);

// Tops the bits up to at least 57: eight bytes at once when none of them is 0xFF, else a byte at
// a time, taking 0xFF 0x00 as 0xFF and stopping at any other marker (zeros from there on).
static inline void refill(Reader *reader) {
    if (!reader->at_marker && reader->end - reader->next >= 8) {
        uint64_t word;
        memcpy(&word, reader->next, 8);
        word = __builtin_bswap64(word);
        int bytes = (64 - reader->count) >> 3;
        uint64_t taken = bytes == 8 ? ~0ULL : ~(~0ULL >> (bytes * 8));
        uint64_t inverted = ~word | ~taken;  // a 0xFF byte taken is a zero byte here
        if (!((inverted - 0x0101010101010101ULL) & ~inverted & 0x8080808080808080ULL & taken)) {
            reader->bits |= (word & taken) >> reader->count;
            reader->count += bytes * 8;
            reader->next += bytes;
            return;
        }
    }
    refill_bytewise(reader);
}

__attribute__((noinline)) static void refill_bytewise(Reader *reader) {
    while (reader->count <= 56) {
        uint64_t byte = 0;
        int from_file = 0;
        if (!reader->at_marker && reader->next < reader->end) {
            byte = *reader->next;
            if (byte != 0xFF) reader->next++, from_file = 1;
            else if (reader->next + 1 < reader->end && reader->next[1] == 0) reader->next += 2, from_file = 1;
            else reader->at_marker = 1, byte = 0;
        }
        if (!from_file) reader->padding += 8;
        reader->bits |= byte << (56 - reader->count);
        reader->count += 8;
    }
}

static inline void drop(Reader *reader, int count) {
    reader->bits <<= count;
    reader->count -= count;
}

static int decode_long(Reader *reader, const Table *table);

// The next code's symbol, or -1 when no code of the table starts here.
static inline int decode(Reader *reader, const Table *table) {
    if (reader->count < 16) refill(reader);
    int entry = table->single[reader->bits >> (64 - SINGLE_BITS)];
    if (entry) {
        drop(reader, entry >> 8);
        return entry & 255;
    }
    return decode_long(reader, table);
}

// A code longer than the lookup table's bits.
__attribute__((noinline)) static int decode_long(Reader *reader, const Table *table) {
    for (int length = SINGLE_BITS + 1; length <= 16; length++) {
        int32_t code = (int32_t)(reader->bits >> (64 - length));
        if (code <= table->max_code[length]) {
            drop(reader, length);
            return table->symbols[table->first_index[length] + code - table->first_code[length]];
        }
    }
    return -1;
}

// A coefficient's value from its `size` extra bits.
static inline int receive(Reader *reader, int size) {
    if (!size) return 0;
    if (reader->count < size) refill(reader);
    int value = (int)(reader->bits >> (64 - size));
    drop(reader, size);
    return value < (1 << (size - 1)) ? value - (1 << size) + 1 : value;
}

// skip_ac and read_ac keep the bits in locals, where most of the decoding time goes (through the
// reader they stayed in memory: perf); these two work on those locals.
static inline __attribute__((always_inline)) void refill_locals(Reader *reader, uint64_t *bits, int *count) {
    reader->bits = *bits, reader->count = *count;
    refill(reader);
    *bits = reader->bits, *count = reader->count;
}

// The next code's symbol, from locals holding at least 16 bits; -1 when no code starts there.
static inline __attribute__((always_inline)) int decode_locals(Reader *reader, const Table *table, uint64_t *bits, int *count) {
    int single = table->single[*bits >> (64 - SINGLE_BITS)];
    if (single) {
        *bits <<= single >> 8;
        *count -= single >> 8;
        return single & 255;
    }
    reader->bits = *bits, reader->count = *count;
    int symbol = decode_long(reader, table);
    *bits = reader->bits, *count = reader->count;
    return symbol;
}

// Skips a block's AC coefficients: several codes a lookup, then one at a time near the block's
// end (a block may end without an end-of-block code). 0 when a code is none of the table's.
static inline int skip_ac(Reader *reader, const Table *table) {
    uint64_t bits = reader->bits;
    int count = reader->count;
    for (int k = 1; k < 64;) {
        if (count < 32) refill_locals(reader, &bits, &count);
        uint32_t entry = table->multi[bits >> (64 - MULTI_BITS)];
        if (entry && k + (int)(entry & 0x7FFF) < 64) {
            bits <<= entry >> 16;
            count -= (int)(entry >> 16);
            if (entry & 0x8000) break;
            k += (int)(entry & 0x7FFF);
            continue;
        }
        int symbol = decode_locals(reader, table, &bits, &count);
        if (symbol < 0) return 0;
        int run = symbol >> 4, size = symbol & 15;
        if (size) {
            k += run + 1;
            bits <<= size;  // (32 bits were there: a code takes 16 at most, its value 15)
            count -= size;
        } else if (run == 15) k += 16;
        else break;
    }
    reader->bits = bits, reader->count = count;
    return 1;
}

// Reads a block's AC coefficients into `coefficients` (zeroed, in rows of 8). 0 when a code is
// none of the table's.
static inline int read_ac(Reader *reader, const Table *table, int16_t *coefficients) {
    uint64_t bits = reader->bits;
    int count = reader->count;
    for (int k = 1; k < 64; k++) {
        if (count < 32) refill_locals(reader, &bits, &count);
        int symbol = decode_locals(reader, table, &bits, &count);
        if (symbol < 0) return 0;
        int run = symbol >> 4, size = symbol & 15;
        if (size) {
            k += run;
            int value = (int)(bits >> (64 - size));
            bits <<= size;
            count -= size;
            // (past the end, k < 80: coefficient 63, as in libjpeg)
            coefficients[zigzag[k]] = (int16_t)(value < (1 << (size - 1)) ? value - (1 << size) + 1 : value);
        } else if (run == 15) k += 15;
        else break;
    }
    reader->bits = bits, reader->count = count;
    return 1;
}

static inline uint8_t sample(int32_t value) {
    // (libjpeg's range limit: a value wraps in 1024 and is clamped to 0 ... 255 around 128)
    int wrapped = (int)(((int64_t)value + 512) & 1023) - 512 + 128;
    return (uint8_t)(wrapped < 0 ? 0 : wrapped > 255 ? 255 : wrapped);
}

static inline int32_t descale(int64_t value, int bits) { return (int32_t)((value + (1LL << (bits - 1))) >> bits); }

// The 2x2 picture of a block (libjpeg's jpeg_idct_2x2 arithmetic: rows and columns 0, 1, 3, 5, 7).
// 0 for a block no picture makes: a coefficient above 4,096 (a block of 8-bit samples has none
// above 2,048, and one quantised to 1 is at least half its step) or a value beyond libjpeg's
// range limit. libjpeg-turbo's SSE2 version of this, which GdkPixbuf uses, works in 16 bits and
// saturates there where the C version wraps (bench/fuzz, differential): GdkPixbuf decodes those.
static int inverse_dct_2x2(const int16_t *coefficients, const uint16_t *quant, uint8_t *out, int stride) {
    static const int odd_rows[4] = {1, 3, 5, 7};
    // sqrt(2) times sums of cosines, in 13-bit fixed point: rows/columns 1, 3, 5, 7.
    static const int64_t weights[8] = {0, 29692, 0, -10426, 0, 6967, 0, -5906};
    int32_t work[2][8] = {{0}};
    for (int column = 0; column < 8; column++) {
        if (column == 2 || column == 4 || column == 6) continue;
        int64_t dc = (int64_t)coefficients[column] * quant[column];
        int flat = 1;
        for (int i = 0; i < 4; i++) flat &= coefficients[odd_rows[i] * 8 + column] == 0;
        if (dc > 4096 || dc < -4096) return 0;
        if (flat) {
            work[0][column] = work[1][column] = (int32_t)(dc * 4);
            continue;
        }
        int64_t even = dc * 32768, odd = 0;  // (a shift of a negative number is undefined in C)
        for (int i = 3; i >= 0; i--) {
            int row = odd_rows[i];
            int64_t value = (int64_t)coefficients[row * 8 + column] * quant[row * 8 + column];
            if (value > 4096 || value < -4096) return 0;
            odd += value * weights[row];
        }
        work[0][column] = descale(even + odd, 13);
        work[1][column] = descale(even - odd, 13);
    }
    for (int row = 0; row < 2; row++) {
        const int32_t *w = work[row];
        uint8_t *line = out + row * stride;
        // (The SSE2 version holds these in 16 bits between its passes, saturated: a review found a
        // block of coefficients within 4,096 that goes past them.)
        for (int column = 0; column < 8; column += column ? 2 : 1)
            if (w[column] < INT16_MIN || w[column] > INT16_MAX) return 0;
        int32_t first, second;
        if (!w[1] && !w[3] && !w[5] && !w[7]) {
            first = second = descale(w[0], 5);
        } else {
            int64_t even = (int64_t)w[0] * 32768;
            int64_t odd = (int64_t)w[7] * weights[7] + (int64_t)w[5] * weights[5] + (int64_t)w[3] * weights[3] + (int64_t)w[1] * weights[1];
            first = descale(even + odd, 20);
            second = descale(even - odd, 20);
        }
        if (first < -512 || first > 511 || second < -512 || second > 511) return 0;
        line[0] = sample(first);
        line[1] = sample(second);
    }
    return 1;
}

static uint16_t read16(const uint8_t *at) { return (uint16_t)(at[0] << 8 | at[1]); }

typedef struct {
    const uint8_t *data;
    size_t size;
    Table *tables;  // DC 0-3, AC 0-3
    uint16_t quant[4][64];
    int quant_defined[4];
    Component components[MAX_COMPONENTS];
    int count, width, height, restart_interval, progressive, jfif, adobe;
    int max_h, max_v, mcus_wide, mcus_high;
    int set_up;
    int tables_defined;
} Frame;

// The offset of the next marker's 0xFF at or after `at` that is neither a stuffed zero nor a
// restart marker: the end of a scan's data. 0 when there is none.
static size_t end_of_scan(const uint8_t *data, size_t size, size_t at) {
    while (at + 1 < size) {
        const uint8_t *found = memchr(data + at, 0xFF, size - at - 1);
        if (!found) return 0;
        at = (size_t)(found - data);
        int next = data[at + 1];
        if (next != 0 && next != 0xFF && (next < 0xD0 || next > 0xD7)) return at;
        at++;
    }
    return 0;
}

// Once, at the first scan: the colour space, the size at 1/8, each component's blocks and where
// its samples go. 0 when this decoder does not take the file.
static int set_up(Frame *frame, int min_width, int min_height, long long max_pixels) {
    // libjpeg's guess of the colour space: three components are YCbCr unless an Adobe marker says
    // RGB or their ids are R, G, B (both rare: GdkPixbuf then).
    Component *components = frame->components;
    if (frame->count == 3 && !frame->jfif &&
        (frame->adobe == 0 || (frame->adobe < 0 && components[0].id == 'R' && components[1].id == 'G' && components[2].id == 'B')))
        return 0;
    if ((long long)frame->width * frame->height > max_pixels) return 0;
    if ((frame->width + 7) / 8 < min_width || (frame->height + 7) / 8 < min_height) return 0;
    int max_h = 1, max_v = 1, blocks_in_mcu = 0;
    for (int c = 0; c < frame->count; c++) {
        if (components[c].h > max_h) max_h = components[c].h;
        if (components[c].v > max_v) max_v = components[c].v;
    }
    if (frame->count == 1) components[0].h = components[0].v = max_h = max_v = 1;  // (one component: blocks in rows)
    frame->max_h = max_h;
    frame->max_v = max_v;
    frame->mcus_wide = (frame->width + 8 * max_h - 1) / (8 * max_h);
    frame->mcus_high = (frame->height + 8 * max_v - 1) / (8 * max_v);
    for (int c = 0; c < frame->count; c++) {
        Component *component = &components[c];
        // The size libjpeg decodes a block at: doubled while the component is stored at half size
        // or less both ways (the upsampling after is then plain copies).
        int scaled = 1;
        while (scaled < 8 && (max_h % (component->h * scaled * 2)) == 0 && (max_v % (component->v * scaled * 2)) == 0) scaled *= 2;
        if (scaled > 2 || max_h % (component->h * scaled) || max_v % (component->v * scaled)) return 0;
        component->scaled = scaled;
        component->blocks_wide = frame->mcus_wide * component->h;
        component->blocks_high = frame->mcus_high * component->v;
        component->plane_width = component->blocks_wide * scaled;
        component->plane = malloc((size_t)component->plane_width * component->blocks_high * scaled);
        if (!component->plane) return 0;
        if (frame->progressive) {
            // (A 2x2 block takes AC coefficients too: this component's AC scans are read.)
            component->stride = scaled == 1 ? 1 : 64;
            component->coefficients = calloc((size_t)component->blocks_wide * component->blocks_high * component->stride, sizeof(int16_t));
            if (!component->coefficients) return 0;
        }
        component->dc_low = -1;
        memset(component->ac_low, -1, sizeof component->ac_low);
        blocks_in_mcu += component->h * component->v;
    }
    if (blocks_in_mcu > MAX_BLOCKS_IN_MCU) return 0;
    frame->set_up = 1;
    return 1;
}

static void own_blocks(const Frame *frame, const Component *component, int *wide, int *high);

// At the end of a restart interval: what is left of its last byte is dropped, bytes that are not
// a marker before the restart marker skipped (as libjpeg does), and the marker must be the next
// in turn. 0 otherwise.
static int restart(Reader *reader, const uint8_t *end, int *next_restart) {
    if (reader->count < reader->padding) return 0;  // (its bits must all have come from the file)
    const uint8_t *marker = reader->next;
    while (marker + 1 < end && !(marker[0] == 0xFF && marker[1] != 0 && marker[1] != 0xFF)) marker++;
    if (marker + 1 >= end || marker[1] != 0xD0 + *next_restart) return 0;
    *reader = (Reader){.next = marker + 2, .end = end};
    *next_restart = (*next_restart + 1) & 7;
    return 1;
}

// Before each MCU of a scan: at the end of a restart interval, its restart marker (restart()).
// 1 when one was passed (the caller resets what restarts), 0 when not, -1 when it was not there.
static inline int pass_restart(const Frame *frame, Reader *reader, int *until_restart, int *next_restart) {
    if (!frame->restart_interval) return 0;
    int passed = 0;
    if (!*until_restart) {
        if (!restart(reader, frame->data + frame->size, next_restart)) return -1;
        *until_restart = frame->restart_interval;
        passed = 1;
    }
    (*until_restart)--;
    return passed;
}

// A baseline file's only scan, every component in it: each block's DC into its component's
// samples, its AC skipped (or read, for a 2x2 block). Returns where its data ends, 0 on a
// damaged or cut file.
static const uint8_t *decode_baseline_scan(Frame *frame, const uint8_t *start) {
    Reader reader = {.next = start, .end = frame->data + frame->size};
    int predictions[MAX_COMPONENTS] = {0}, until_restart = frame->restart_interval, next_restart = 0;
    int16_t coefficients[64];
    for (int mcu_y = 0; mcu_y < frame->mcus_high; mcu_y++) {
        for (int mcu_x = 0; mcu_x < frame->mcus_wide; mcu_x++) {
            int passed = pass_restart(frame, &reader, &until_restart, &next_restart);
            if (passed < 0) return NULL;
            if (passed) memset(predictions, 0, sizeof predictions);
            for (int c = 0; c < frame->count; c++) {
                Component *component = &frame->components[c];
                const Table *dc_table = &frame->tables[component->dc_table], *ac_table = &frame->tables[component->ac_table];
                const uint16_t *q = component->quant_table;
                for (int block_y = 0; block_y < component->v; block_y++) {
                    for (int block_x = 0; block_x < component->h; block_x++) {
                        int symbol = decode(&reader, dc_table);
                        if (symbol < 0 || symbol > 15) return NULL;
                        predictions[c] += receive(&reader, symbol);
                        // (libjpeg keeps a coefficient in 16 bits: beyond that, GdkPixbuf's picture)
                        if (predictions[c] < INT16_MIN || predictions[c] > INT16_MAX) return NULL;
                        int16_t dc = (int16_t)predictions[c];
                        size_t row = (size_t)(mcu_y * component->v + block_y) * component->scaled;
                        size_t column = (size_t)(mcu_x * component->h + block_x) * component->scaled;
                        uint8_t *out = component->plane + row * component->plane_width + column;
                        if (component->scaled == 1) {
                            *out = sample(descale((int64_t)dc * q[0], 3));
                            if (!skip_ac(&reader, ac_table)) return NULL;
                        } else {
                            memset(coefficients, 0, sizeof coefficients);
                            coefficients[0] = dc;
                            if (!read_ac(&reader, ac_table, coefficients)) return NULL;
                            if (!inverse_dct_2x2(coefficients, q, out, component->plane_width)) return NULL;
                        }
                    }
                }
            }
        }
        // (Every bit so far must have come from the file: a cut or damaged one goes to GdkPixbuf,
        // which says what is wrong.)
        if (reader.count < reader.padding) return NULL;
    }
    return reader.next;
}

// A progressive file's DC scan, first (`high` 0) or refining (one more bit, `low`), of one
// component (its own blocks, in rows) or several (in MCUs). Returns where its data ends, 0 on a
// damaged or cut file.
static const uint8_t *decode_dc_scan(Frame *frame, const uint8_t *start, Component **in_scan, int scan_count, int high, int low) {
    Reader reader = {.next = start, .end = frame->data + frame->size};
    int predictions[MAX_COMPONENTS] = {0}, until_restart = frame->restart_interval, next_restart = 0;
    int mcus_wide = frame->mcus_wide, mcus_high = frame->mcus_high;
    if (scan_count == 1) own_blocks(frame, in_scan[0], &mcus_wide, &mcus_high);  // (one component: its blocks in rows)
    for (int mcu_y = 0; mcu_y < mcus_high; mcu_y++) {
        for (int mcu_x = 0; mcu_x < mcus_wide; mcu_x++) {
            int passed = pass_restart(frame, &reader, &until_restart, &next_restart);
            if (passed < 0) return NULL;
            if (passed) memset(predictions, 0, sizeof predictions);
            for (int i = 0; i < scan_count; i++) {
                Component *component = in_scan[i];
                int blocks_h = scan_count == 1 ? 1 : component->h, blocks_v = scan_count == 1 ? 1 : component->v;
                for (int block_y = 0; block_y < blocks_v; block_y++) {
                    for (int block_x = 0; block_x < blocks_h; block_x++) {
                        size_t row = (size_t)mcu_y * blocks_v + block_y, column = (size_t)mcu_x * blocks_h + block_x;
                        int16_t *dc = &component->coefficients[(row * component->blocks_wide + column) * component->stride];
                        if (high == 0) {
                            int symbol = decode(&reader, &frame->tables[component->dc_table]);
                            if (symbol < 0 || symbol > 15) return NULL;
                            predictions[i] += receive(&reader, symbol);
                            int32_t shifted = predictions[i] * (1 << low);
                            if (predictions[i] < INT16_MIN || predictions[i] > INT16_MAX || shifted < INT16_MIN || shifted > INT16_MAX)
                                return NULL;
                            *dc = (int16_t)shifted;
                        } else {
                            if (reader.count < 1) refill(&reader);
                            if (reader.bits >> 63) *dc = (int16_t)(*dc | (1 << low));
                            drop(&reader, 1);
                        }
                    }
                }
            }
        }
        if (reader.count < reader.padding) return NULL;
    }
    return reader.next;
}

// A component's own blocks, in rows, as a scan of it alone goes through them (not whole MCUs).
static void own_blocks(const Frame *frame, const Component *component, int *wide, int *high) {
    *wide = ((frame->width * component->h + frame->max_h - 1) / frame->max_h + 7) / 8;
    *high = ((frame->height * component->v + frame->max_v - 1) / frame->max_v + 7) / 8;
}

static inline int read_bit(Reader *reader) {
    if (reader->count < 1) refill(reader);
    int bit = (int)(reader->bits >> 63);
    drop(reader, 1);
    return bit;
}

static inline int read_bits(Reader *reader, int count) {
    if (!count) return 0;
    if (reader->count < count) refill(reader);
    int value = (int)(reader->bits >> (64 - count));
    drop(reader, count);
    return value;
}

// A progressive file's AC scan of one component whose blocks are 2x2 (ITU T.81 G.1.2.2, as
// libjpeg's decode_mcu_AC_first and decode_mcu_AC_refine): coefficients `first` to `last`, the
// first time from bit `low` up (`high` 0), else one more bit. Returns where its data ends, 0 on a
// damaged or cut file.
static const uint8_t *decode_ac_scan(Frame *frame, const uint8_t *start, Component *component, int first, int last, int high, int low) {
    Reader reader = {.next = start, .end = frame->data + frame->size};
    const Table *table = &frame->tables[component->ac_table];
    int until_restart = frame->restart_interval, next_restart = 0, end_of_bands = 0, wide, tall;
    own_blocks(frame, component, &wide, &tall);
    int plus = 1 << low, minus = -plus;
    for (int block_y = 0; block_y < tall; block_y++) {
        for (int block_x = 0; block_x < wide; block_x++) {
            int passed = pass_restart(frame, &reader, &until_restart, &next_restart);
            if (passed < 0) return NULL;
            if (passed) end_of_bands = 0;
            int16_t *block = &component->coefficients[((size_t)block_y * component->blocks_wide + block_x) * 64];
            int k = first;
            if (high == 0) {
                if (end_of_bands > 0) {
                    end_of_bands--;
                    continue;
                }
                for (; k <= last; k++) {
                    int symbol = decode(&reader, table);
                    if (symbol < 0) return NULL;
                    int run = symbol >> 4, size = symbol & 15;
                    if (size) {
                        k += run;
                        int value = receive(&reader, size);
                        block[zigzag[k]] = (int16_t)(value * plus);  // (k < 80: past the end, 63)
                    } else if (run == 15) {
                        k += 15;
                    } else {
                        end_of_bands = (1 << run) + read_bits(&reader, run) - 1;
                        break;
                    }
                }
                continue;
            }
            // Refining: a bit for each coefficient already there, new ones of +-1 in between.
            if (end_of_bands == 0) {
                for (; k <= last; k++) {
                    int symbol = decode(&reader, table);
                    if (symbol < 0) return NULL;
                    int run = symbol >> 4, size = symbol & 15, value = 0;
                    if (size) {
                        if (size != 1) return NULL;  // (libjpeg warns)
                        value = read_bit(&reader) ? plus : minus;
                    } else if (run != 15) {
                        end_of_bands = (1 << run) + read_bits(&reader, run);
                        break;
                    }
                    do {
                        int16_t *coefficient = &block[zigzag[k]];
                        if (*coefficient != 0) {
                            if (read_bit(&reader) && (*coefficient & plus) == 0)
                                *coefficient = (int16_t)(*coefficient + (*coefficient >= 0 ? plus : minus));
                        } else if (--run < 0) {
                            break;
                        }
                        k++;
                    } while (k <= last);
                    if (value) block[zigzag[k]] = (int16_t)value;  // (k <= 64 here: zigzag holds it)
                }
            }
            if (end_of_bands > 0) {
                for (; k <= last; k++) {
                    int16_t *coefficient = &block[zigzag[k]];
                    if (*coefficient != 0 && read_bit(&reader) && (*coefficient & plus) == 0)
                        *coefficient = (int16_t)(*coefficient + (*coefficient >= 0 ? plus : minus));
                }
                end_of_bands--;
            }
        }
        if (reader.count < reader.padding) return NULL;
    }
    return reader.next;
}

int photopick_jpeg_decode_eighth(const unsigned char *data, size_t size, int min_width, int min_height,
                                 long long max_pixels, photopick_jpeg_dc_picture *picture) {
    if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return 0;
    Frame *frame = calloc(1, sizeof(Frame));
    if (!frame) return 0;
    frame->data = data;
    frame->size = size;
    frame->adobe = -1;
    frame->tables = calloc(8, sizeof(Table));
    Component *components = frame->components;
    int result = 0, frames = 0, done = 0;
    uint8_t *pixels = NULL;
    if (!frame->tables) goto out;
    size_t at = 2;
    while (!done) {
        while (at < size && data[at] == 0xFF) at++;  // (fill bytes before a marker)
        if (at >= size || at < 1 || data[at - 1] != 0xFF) goto out;
        int marker = data[at++];
        if (marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) continue;
        if (marker == 0xD9) {
            // The end of a progressive file (every scan's header read, for the order checks): its
            // picture once each DC is whole. (AC coefficients never sent stay zero: GdkPixbuf
            // turns libjpeg's block smoothing, which would guess them, off.)
            if (!frame->progressive || !frame->set_up) goto out;
            for (int c = 0; c < frame->count; c++)
                if (components[c].dc_low != 0) goto out;
            break;
        }
        if (at + 2 > size) goto out;
        size_t length = read16(data + at);
        if (length < 2 || at + length > size) goto out;
        const uint8_t *segment = data + at + 2, *segment_end = data + at + length;
        switch (marker) {
        case 0xC0: case 0xC1: case 0xC2:  // baseline, extended sequential or progressive, Huffman-coded
            if (frames++ || length < 8 || segment[0] != 8) goto out;
            frame->progressive = marker == 0xC2;
            frame->height = read16(segment + 1);
            frame->width = read16(segment + 3);
            frame->count = segment[5];
            if ((frame->count != 1 && frame->count != 3) || length != 8 + 3 * (size_t)frame->count || !frame->width || !frame->height)
                goto out;
            for (int c = 0; c < frame->count; c++) {
                Component *component = &components[c];
                component->id = segment[6 + 3 * c];
                component->h = segment[7 + 3 * c] >> 4;
                component->v = segment[7 + 3 * c] & 15;
                component->quant = segment[8 + 3 * c];
                if (component->h < 1 || component->h > 4 || component->v < 1 || component->v > 4 || component->quant > 3) goto out;
                for (int other = 0; other < c; other++)
                    if (components[other].id == component->id) goto out;
            }
            break;
        case 0xC3: case 0xC5: case 0xC6: case 0xC7: case 0xC9: case 0xCA: case 0xCB:
        case 0xCD: case 0xCE: case 0xCF: case 0xDC:
            goto out;  // lossless, hierarchical, arithmetic-coded, or a height given later
        case 0xC4:
            for (const uint8_t *p = segment; p < segment_end;) {
                // (Each table is built as it comes, its lookups filled: a file of thousands of
                // tables would cost seconds; real ones define a few dozen at most.)
                if (segment_end - p < 17 || ++frame->tables_defined > 256) goto out;
                int is_ac = p[0] >> 4, slot = p[0] & 15, total = 0;
                if (is_ac > 1 || slot > 3) goto out;
                for (int i = 1; i <= 16; i++) total += p[i];
                if (total > 256 || segment_end - p < 17 + total) goto out;
                // (A progressive file's AC tables are never used here: not worth their lookups.)
                if (!build_table(&frame->tables[is_ac * 4 + slot], p + 1, p + 17, total, is_ac && !frame->progressive)) goto out;
                p += 17 + total;
            }
            break;
        case 0xDB:
            for (const uint8_t *p = segment; p < segment_end;) {
                int precision = p[0] >> 4, slot = p[0] & 15;
                if (precision > 1 || slot > 3 || segment_end - p < 1 + 64 * (precision + 1)) goto out;
                for (int i = 0; i < 64; i++)
                    frame->quant[slot][zigzag[i]] = precision ? read16(p + 1 + 2 * i) : p[1 + i];
                frame->quant_defined[slot] = 1;
                p += 1 + 64 * (precision + 1);
            }
            break;
        case 0xDD:
            if (length != 4) goto out;
            frame->restart_interval = read16(segment);
            break;
        case 0xE0:
            if (length >= 16 && !memcmp(segment, "JFIF", 5)) frame->jfif = 1;  // (as libjpeg: 14 bytes at least)
            break;
        case 0xEE:
            if (length >= 14 && !memcmp(segment, "Adobe", 5)) frame->adobe = segment[11];
            break;
        case 0xDA: {
            if (!frames || length < 3) goto out;
            if (!frame->set_up && !set_up(frame, min_width, min_height, max_pixels)) goto out;
            int scan_count = segment[0];
            if (scan_count < 1 || scan_count > frame->count || length != 6 + 2 * (size_t)scan_count) goto out;
            Component *in_scan[MAX_COMPONENTS];
            for (int i = 0; i < scan_count; i++) {
                Component *component = NULL;
                for (int c = 0; c < frame->count; c++)
                    if (components[c].id == segment[1 + 2 * i]) component = &components[c];
                for (int other = 0; other < i; other++)
                    if (in_scan[other] == component) component = NULL;
                if (!component) goto out;
                in_scan[i] = component;
                component->dc_table = segment[2 + 2 * i] >> 4;
                component->ac_table = 4 + (segment[2 + 2 * i] & 15);
                if (component->dc_table > 3 || component->ac_table > 7) goto out;
                if (!component->latched) {
                    if (!frame->quant_defined[component->quant]) goto out;
                    memcpy(component->quant_table, frame->quant[component->quant], sizeof component->quant_table);
                    component->latched = 1;
                }
            }
            const uint8_t *spectrum = segment + 1 + 2 * scan_count;
            int first = spectrum[0], last = spectrum[1], high = spectrum[2] >> 4, low = spectrum[2] & 15;
            const uint8_t *end;
            if (!frame->progressive) {
                // One scan holding every component, with the whole spectrum: baseline's only shape
                // taken here (a scan a component goes to GdkPixbuf).
                if (scan_count != frame->count || first != 0 || last != 63 || high || low) goto out;
                for (int c = 0; c < frame->count; c++)
                    if (!frame->tables[components[c].dc_table].defined || !frame->tables[components[c].ac_table].defined) goto out;
                if (!decode_baseline_scan(frame, segment_end)) goto out;
                done = 1;
                break;
            }
            if (first == 0) {
                // A DC scan: the first (each component's DC so far, from bit `low` up) or one more bit.
                if (last != 0 || low > 13) goto out;
                for (int i = 0; i < scan_count; i++) {
                    Component *component = in_scan[i];
                    if (high == 0 ? component->dc_low != -1 || !frame->tables[component->dc_table].defined
                                  : component->dc_low != high || low != high - 1)
                        goto out;  // (a progression libjpeg warns of)
                }
                if (!(end = decode_dc_scan(frame, segment_end, in_scan, scan_count, high, low))) goto out;
                for (int i = 0; i < scan_count; i++) in_scan[i]->dc_low = low;
                at = (size_t)(end - data);
            } else {
                // An AC scan (one component, after its first DC scan): skipped unread, unless the
                // component's blocks are 2x2.
                Component *component = in_scan[0];
                if (scan_count != 1 || last < first || last > 63 || component->dc_low < 0 || low > 13) goto out;
                for (int k = first; k <= last; k++) {
                    if (high == 0 ? component->ac_low[k] != -1 : component->ac_low[k] != high || low != high - 1) goto out;
                    component->ac_low[k] = low;
                }
                if (component->stride == 64) {
                    if (!frame->tables[component->ac_table].defined) goto out;
                    if (!(end = decode_ac_scan(frame, segment_end, component, first, last, high, low))) goto out;
                    at = (size_t)(end - data);
                } else {
                    at = (size_t)(segment_end - data);
                }
            }
            if (!(at = end_of_scan(data, size, at))) goto out;
            continue;
        }
        default:
            break;
        }
        at += length;
    }

    // A progressive file's samples, now that each DC is whole (and each 2x2 block's AC).
    for (int c = 0; frame->progressive && c < frame->count; c++) {
        Component *component = &components[c];
        if (component->stride == 1) {
            for (size_t i = 0; i < (size_t)component->blocks_wide * component->blocks_high; i++)
                component->plane[i] = sample(descale((int64_t)component->coefficients[i] * component->quant_table[0], 3));
            continue;
        }
        for (int row = 0; row < component->blocks_high; row++)
            for (int column = 0; column < component->blocks_wide; column++)
                if (!inverse_dct_2x2(&component->coefficients[((size_t)row * component->blocks_wide + column) * 64], component->quant_table,
                                     component->plane + (size_t)row * 2 * component->plane_width + column * 2, component->plane_width))
                    goto out;
    }
    int out_width = (frame->width + 7) / 8, out_height = (frame->height + 7) / 8, count = frame->count;
    size_t rowstride = (size_t)out_width * 3;
    pixels = malloc(rowstride * out_height);
    if (!pixels) goto out;
    for (int y = 0; y < out_height; y++) {
        const uint8_t *rows[MAX_COMPONENTS];
        int steps[MAX_COMPONENTS];
        for (int c = 0; c < count; c++) {
            const Component *component = &components[c];
            // (Upsampling at 1/8 is copies: each sample covers max/(h x scaled) output pixels.)
            rows[c] = component->plane + (size_t)(y * component->v * component->scaled / frame->max_v) * component->plane_width;
            steps[c] = frame->max_h / (component->h * component->scaled);
        }
        uint8_t *out = pixels + (size_t)y * rowstride;
        for (int x = 0; x < out_width; x++, out += 3) {
            int luma = rows[0][x / steps[0]];
            if (count == 1) {
                out[0] = out[1] = out[2] = (uint8_t)luma;
                continue;
            }
            // libjpeg's YCbCr to RGB, in 16-bit fixed point.
            int cb = rows[1][x / steps[1]] - 128, cr = rows[2][x / steps[2]] - 128;
            int red = luma + (int)((91881LL * cr + 32768) >> 16);
            int green = luma + (int)((-22554LL * cb - 46802LL * cr + 32768) >> 16);
            int blue = luma + (int)((116130LL * cb + 32768) >> 16);
            out[0] = (uint8_t)(red < 0 ? 0 : red > 255 ? 255 : red);
            out[1] = (uint8_t)(green < 0 ? 0 : green > 255 ? 255 : green);
            out[2] = (uint8_t)(blue < 0 ? 0 : blue > 255 ? 255 : blue);
        }
    }
    picture->pixels = pixels;
    picture->width = out_width;
    picture->height = out_height;
    picture->rowstride = (int)rowstride;
    picture->image_width = frame->width;
    picture->image_height = frame->height;
    pixels = NULL;
    result = 1;
out:
    free(pixels);
    for (int c = 0; c < MAX_COMPONENTS; c++) {
        free(components[c].plane);
        free(components[c].coefficients);
    }
    free(frame->tables);
    free(frame);
    return result;
}
