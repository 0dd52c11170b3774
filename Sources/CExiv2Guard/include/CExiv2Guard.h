// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef PHOTOPICK_EXIV2_GUARD_H
#define PHOTOPICK_EXIV2_GUARD_H

#include <gexiv2/gexiv2.h>

#ifdef __cplusplus
extern "C" {
#endif

// The gexiv2 calls Photopick makes, each inside a C++ try/catch. gexiv2 turns Exiv2::Error into
// a GError but lets any other C++ exception through: exiv2 0.27 throws std::overflow_error from
// its size arithmetic (a damaged Fuji RAF header does it; bench/fuzz found it), and an exception
// that reaches C or Swift frames ends the process in std::terminate. Here it becomes a GError
// (or a "nothing there" answer), as a damaged file should.
//
// gexiv2 (and exiv2 under it) is loaded the first time it is needed, not with the program: only
// the metadata workers and the embedded-preview reader use it, and loading it with the window
// cost every start 1.5 ms and 1.6 MB (exiv2's 19,000 relocations and its static tables). Until
// photopick_exiv2_load() has succeeded, every call here fails as for a file exiv2 cannot read.

// Loads gexiv2, initialises it, and sends its log to `log_handler`; TRUE once it is loaded
// (the later calls return at once). Call it before a sandbox forbids opening libraries.
gboolean photopick_exiv2_load(GExiv2LogHandler log_handler);

GExiv2Metadata *guarded_gexiv2_metadata_new(void);
guint32 guarded_gexiv2_preview_properties_get_width(GExiv2PreviewProperties *self);
guint32 guarded_gexiv2_preview_properties_get_height(GExiv2PreviewProperties *self);
const guint8 *guarded_gexiv2_preview_image_get_data(GExiv2PreviewImage *self, guint32 *size);
guint32 guarded_gexiv2_preview_image_get_width(GExiv2PreviewImage *self);
guint32 guarded_gexiv2_preview_image_get_height(GExiv2PreviewImage *self);

gboolean guarded_gexiv2_metadata_open_path(GExiv2Metadata *self, const gchar *path, GError **error);
gboolean guarded_gexiv2_metadata_open_buf(GExiv2Metadata *self, const guint8 *data, glong length, GError **error);
gint guarded_gexiv2_metadata_get_pixel_width(GExiv2Metadata *self);
gint guarded_gexiv2_metadata_get_pixel_height(GExiv2Metadata *self);
gboolean guarded_gexiv2_metadata_try_has_tag(GExiv2Metadata *self, const gchar *tag, GError **error);
gchar *guarded_gexiv2_metadata_try_get_tag_string(GExiv2Metadata *self, const gchar *tag, GError **error);
glong guarded_gexiv2_metadata_try_get_tag_long(GExiv2Metadata *self, const gchar *tag, GError **error);
GExiv2PreviewProperties **guarded_gexiv2_metadata_get_preview_properties(GExiv2Metadata *self);
GExiv2PreviewImage *guarded_gexiv2_metadata_try_get_preview_image(GExiv2Metadata *self, GExiv2PreviewProperties *props, GError **error);

#ifdef __cplusplus
}
#endif

#endif
