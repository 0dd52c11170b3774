// GLib and GIO for Swift: content-type sniffing, option parsing, the main loop.
#include <glib.h>
#include <gio/gio.h>
#include <glib-unix.h>
// gettext's bindtextdomain and bind_textdomain_codeset (GLib has the lookups, g_dgettext).
#include <libintl.h>

// g_free is a function, but GLib's string helpers that are macros need wrapping.
static inline void photopick_g_free(void *p) { g_free(p); }

#include <unistd.h>
#include <sys/syscall.h>
// Whether the caller runs on the process's first thread (the GTK thread in the picker).
static inline int photopick_is_main_thread(void) { return getpid() == (pid_t)syscall(SYS_gettid); }

#include <sys/prctl.h>
// Names the calling thread (15 bytes kept), as `top -H` and debuggers show it. prctl is variadic,
// which Swift cannot call.
static inline void photopick_name_thread(const char *name) { prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0); }

#include <sys/resource.h>
// Lowers the calling thread's CPU priority (nice 10; Linux gives threads their own): background
// work such as indexing then yields the cores to the window's thumbnails and frames.
static inline void photopick_lower_thread_priority(void) { setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10); }

// A GObject's reference count, read atomically (tests check that owning references unref once).
static inline guint photopick_object_ref_count(gpointer object) {
    return (guint)g_atomic_int_get((gint *)&((GObject *)object)->ref_count);
}

// Instance structs of the GObject types written in Swift. They are declared here because a Swift
// struct's layout is not promised to be C's, and GLib allocates and reads these as C structs.
// Their class structs are plain GObjectClass.

// PhotopickAssetListModel (PickerModel's GListModel): the Swift model that answers for it.
typedef struct {
    GObject parent;
    void *owner;  // an unretained AssetListModel, nil once it is gone
} PhotopickAssetListModelInstance;

// PhotopickAssetItem (the grid's item objects).
typedef struct {
    GObject parent;
    int64_t asset_id;
    int32_t is_camera;
} PhotopickAssetItemInstance;
