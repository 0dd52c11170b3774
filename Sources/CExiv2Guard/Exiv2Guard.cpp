// SPDX-License-Identifier: LGPL-2.1-or-later
// See CExiv2Guard.h: every exception exiv2 lets out through gexiv2 stops here.
#include "CExiv2Guard.h"

#include <exception>

namespace {

GQuark guardQuark() { return g_quark_from_static_string("photopick-exiv2-guard"); }

void setError(GError **error, const char *what) {
    g_clear_error(error);  // gexiv2 may have set one before the exception left it
    g_set_error(error, guardQuark(), 1, "exiv2 failed: %s", what);
}

// Runs `body`; an exception becomes `fallback` and, where there is one, a GError.
template <typename Result, typename Body>
Result guarded(GError **error, Result fallback, Body body) {
    try {
        return body();
    } catch (const std::exception &exception) {
        setError(error, exception.what());
    } catch (...) {
        setError(error, "an unknown C++ exception");
    }
    return fallback;
}

}  // namespace

extern "C" {

gboolean guarded_gexiv2_metadata_open_path(GExiv2Metadata *self, const gchar *path, GError **error) {
    return guarded(error, gboolean(FALSE), [&] { return gexiv2_metadata_open_path(self, path, error); });
}

gboolean guarded_gexiv2_metadata_open_buf(GExiv2Metadata *self, const guint8 *data, glong length, GError **error) {
    return guarded(error, gboolean(FALSE), [&] { return gexiv2_metadata_open_buf(self, data, length, error); });
}

gint guarded_gexiv2_metadata_get_pixel_width(GExiv2Metadata *self) {
    return guarded(nullptr, gint(-1), [&] { return gexiv2_metadata_get_pixel_width(self); });
}

gint guarded_gexiv2_metadata_get_pixel_height(GExiv2Metadata *self) {
    return guarded(nullptr, gint(-1), [&] { return gexiv2_metadata_get_pixel_height(self); });
}

gboolean guarded_gexiv2_metadata_try_has_tag(GExiv2Metadata *self, const gchar *tag, GError **error) {
    return guarded(error, gboolean(FALSE), [&] { return gexiv2_metadata_try_has_tag(self, tag, error); });
}

gchar *guarded_gexiv2_metadata_try_get_tag_string(GExiv2Metadata *self, const gchar *tag, GError **error) {
    return guarded(error, static_cast<gchar *>(nullptr), [&] { return gexiv2_metadata_try_get_tag_string(self, tag, error); });
}

glong guarded_gexiv2_metadata_try_get_tag_long(GExiv2Metadata *self, const gchar *tag, GError **error) {
    return guarded(error, glong(0), [&] { return gexiv2_metadata_try_get_tag_long(self, tag, error); });
}

GExiv2PreviewProperties **guarded_gexiv2_metadata_get_preview_properties(GExiv2Metadata *self) {
    return guarded(nullptr, static_cast<GExiv2PreviewProperties **>(nullptr),
                   [&] { return gexiv2_metadata_get_preview_properties(self); });
}

GExiv2PreviewImage *guarded_gexiv2_metadata_try_get_preview_image(GExiv2Metadata *self, GExiv2PreviewProperties *props, GError **error) {
    return guarded(error, static_cast<GExiv2PreviewImage *>(nullptr),
                   [&] { return gexiv2_metadata_try_get_preview_image(self, props, error); });
}

}  // extern "C"
