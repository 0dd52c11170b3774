// SPDX-License-Identifier: LGPL-2.1-or-later
// See CExiv2Guard.h: gexiv2 is loaded on first use, and every exception exiv2 lets out through
// gexiv2 stops here.
#include "CExiv2Guard.h"

#include <dlfcn.h>
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

// gexiv2's functions, found in the library once it is loaded. (decltype names each one's type
// from the header without referring to the symbol: nothing is linked.)
struct Functions {
#define PHOTOPICK_GEXIV2_FUNCTIONS(X) \
    X(gexiv2_initialize) X(gexiv2_log_set_level) X(gexiv2_log_set_handler) X(gexiv2_metadata_new) \
    X(gexiv2_metadata_open_path) X(gexiv2_metadata_open_buf) X(gexiv2_metadata_get_pixel_width) \
    X(gexiv2_metadata_get_pixel_height) X(gexiv2_metadata_try_has_tag) X(gexiv2_metadata_try_get_tag_string) \
    X(gexiv2_metadata_try_get_tag_long) X(gexiv2_metadata_get_preview_properties) \
    X(gexiv2_metadata_try_get_preview_image) X(gexiv2_preview_properties_get_width) \
    X(gexiv2_preview_properties_get_height) X(gexiv2_preview_image_get_data) \
    X(gexiv2_preview_image_get_width) X(gexiv2_preview_image_get_height)
#define PHOTOPICK_GEXIV2_MEMBER(name) decltype(&::name) name = nullptr;
    PHOTOPICK_GEXIV2_FUNCTIONS(PHOTOPICK_GEXIV2_MEMBER)
    bool loaded = false;
};

Functions &functions() {
    static Functions table;
    return table;
}

// (A C++ static's initialisation runs once, whichever threads get here first.)
const Functions *loaded(GExiv2LogHandler handler) {
    static const bool ok = [handler] {
        Functions &table = functions();
        // The library's own soname (libgexiv2-2 on Debian 12).
        void *library = dlopen("libgexiv2.so.2", RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            g_printerr("photopick: cannot load gexiv2 (%s): no photo metadata is read\n", dlerror());
            return false;
        }
#define PHOTOPICK_GEXIV2_FIND(name) \
        table.name = reinterpret_cast<decltype(&::name)>(dlsym(library, #name)); \
        if (!table.name) { g_printerr("photopick: gexiv2 has no %s: no photo metadata is read\n", #name); return false; }
        PHOTOPICK_GEXIV2_FUNCTIONS(PHOTOPICK_GEXIV2_FIND)
        table.gexiv2_initialize();
        table.gexiv2_log_set_level(GEXIV2_LOG_LEVEL_WARN);
        if (handler) table.gexiv2_log_set_handler(handler);
        table.loaded = true;
        return true;
    }();
    return ok ? &functions() : nullptr;
}

// The table once loaded, or nullptr (before photopick_exiv2_load, or when it failed).
const Functions *table() {
    const Functions &table = functions();
    return __atomic_load_n(&table.loaded, __ATOMIC_ACQUIRE) ? &table : nullptr;
}

void notLoaded(GError **error) { g_set_error(error, guardQuark(), 2, "exiv2 is not loaded"); }

}  // namespace

extern "C" {

gboolean photopick_exiv2_load(GExiv2LogHandler log_handler) { return loaded(log_handler) != nullptr; }

GExiv2Metadata *guarded_gexiv2_metadata_new(void) {
    const Functions *f = table();
    return f ? guarded(nullptr, static_cast<GExiv2Metadata *>(nullptr), [&] { return f->gexiv2_metadata_new(); }) : nullptr;
}

gboolean guarded_gexiv2_metadata_open_path(GExiv2Metadata *self, const gchar *path, GError **error) {
    const Functions *f = table();
    if (!f) return notLoaded(error), FALSE;
    return guarded(error, gboolean(FALSE), [&] { return f->gexiv2_metadata_open_path(self, path, error); });
}

gboolean guarded_gexiv2_metadata_open_buf(GExiv2Metadata *self, const guint8 *data, glong length, GError **error) {
    const Functions *f = table();
    if (!f) return notLoaded(error), FALSE;
    return guarded(error, gboolean(FALSE), [&] { return f->gexiv2_metadata_open_buf(self, data, length, error); });
}

gint guarded_gexiv2_metadata_get_pixel_width(GExiv2Metadata *self) {
    const Functions *f = table();
    return f ? guarded(nullptr, gint(-1), [&] { return f->gexiv2_metadata_get_pixel_width(self); }) : -1;
}

gint guarded_gexiv2_metadata_get_pixel_height(GExiv2Metadata *self) {
    const Functions *f = table();
    return f ? guarded(nullptr, gint(-1), [&] { return f->gexiv2_metadata_get_pixel_height(self); }) : -1;
}

gboolean guarded_gexiv2_metadata_try_has_tag(GExiv2Metadata *self, const gchar *tag, GError **error) {
    const Functions *f = table();
    if (!f) return notLoaded(error), FALSE;
    return guarded(error, gboolean(FALSE), [&] { return f->gexiv2_metadata_try_has_tag(self, tag, error); });
}

gchar *guarded_gexiv2_metadata_try_get_tag_string(GExiv2Metadata *self, const gchar *tag, GError **error) {
    const Functions *f = table();
    if (!f) return notLoaded(error), nullptr;
    return guarded(error, static_cast<gchar *>(nullptr), [&] { return f->gexiv2_metadata_try_get_tag_string(self, tag, error); });
}

glong guarded_gexiv2_metadata_try_get_tag_long(GExiv2Metadata *self, const gchar *tag, GError **error) {
    const Functions *f = table();
    if (!f) return notLoaded(error), 0;
    return guarded(error, glong(0), [&] { return f->gexiv2_metadata_try_get_tag_long(self, tag, error); });
}

GExiv2PreviewProperties **guarded_gexiv2_metadata_get_preview_properties(GExiv2Metadata *self) {
    const Functions *f = table();
    return f ? guarded(nullptr, static_cast<GExiv2PreviewProperties **>(nullptr),
                       [&] { return f->gexiv2_metadata_get_preview_properties(self); })
             : nullptr;
}

GExiv2PreviewImage *guarded_gexiv2_metadata_try_get_preview_image(GExiv2Metadata *self, GExiv2PreviewProperties *props, GError **error) {
    const Functions *f = table();
    if (!f) return notLoaded(error), nullptr;
    return guarded(error, static_cast<GExiv2PreviewImage *>(nullptr),
                   [&] { return f->gexiv2_metadata_try_get_preview_image(self, props, error); });
}

guint32 guarded_gexiv2_preview_properties_get_width(GExiv2PreviewProperties *self) {
    const Functions *f = table();
    return f ? guarded(nullptr, guint32(0), [&] { return f->gexiv2_preview_properties_get_width(self); }) : 0;
}

guint32 guarded_gexiv2_preview_properties_get_height(GExiv2PreviewProperties *self) {
    const Functions *f = table();
    return f ? guarded(nullptr, guint32(0), [&] { return f->gexiv2_preview_properties_get_height(self); }) : 0;
}

const guint8 *guarded_gexiv2_preview_image_get_data(GExiv2PreviewImage *self, guint32 *size) {
    const Functions *f = table();
    *size = 0;
    return f ? guarded(nullptr, static_cast<const guint8 *>(nullptr), [&] { return f->gexiv2_preview_image_get_data(self, size); }) : nullptr;
}

guint32 guarded_gexiv2_preview_image_get_width(GExiv2PreviewImage *self) {
    const Functions *f = table();
    return f ? guarded(nullptr, guint32(0), [&] { return f->gexiv2_preview_image_get_width(self); }) : 0;
}

guint32 guarded_gexiv2_preview_image_get_height(GExiv2PreviewImage *self) {
    const Functions *f = table();
    return f ? guarded(nullptr, guint32(0), [&] { return f->gexiv2_preview_image_get_height(self); }) : 0;
}

}  // extern "C"
