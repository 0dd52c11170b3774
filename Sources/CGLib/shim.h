// SPDX-License-Identifier: LGPL-2.1-or-later
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

// Mounts the volume that holds `file` (an sftp:// or smb:// location gvfs has not mounted yet)
// and waits for it, on a main context of the calling thread's own: the scan's threads and a
// script's command have no main loop running. `operation` answers the server's questions (NULL:
// none can be answered, and a server that asks for a password fails with the reason).
typedef struct {
    GMainLoop *loop;
    gboolean mounted;
    GError *error;
} PhotopickMountWait;

static void photopick_mount_finished(GObject *source, GAsyncResult *result, gpointer data) {
    PhotopickMountWait *wait = data;
    wait->mounted = g_file_mount_enclosing_volume_finish(G_FILE(source), result, &wait->error);
    g_main_loop_quit(wait->loop);
}

static inline gboolean photopick_mount_enclosing_volume_sync(GFile *file, GMountOperation *operation,
                                                             GCancellable *cancellable, GError **error) {
    GMainContext *context = g_main_context_new();
    g_main_context_push_thread_default(context);
    PhotopickMountWait wait = { g_main_loop_new(context, FALSE), FALSE, NULL };
    g_file_mount_enclosing_volume(file, G_MOUNT_MOUNT_NONE, operation, cancellable, photopick_mount_finished, &wait);
    g_main_loop_run(wait.loop);
    g_main_loop_unref(wait.loop);
    g_main_context_pop_thread_default(context);
    g_main_context_unref(context);
    if (wait.error) g_propagate_error(error, wait.error);
    return wait.mounted;
}

// Makes this process forget a mount whose gvfs backend is gone (its server went away): gvfs
// 1.50's client keeps the mount's D-Bus name in a cache of its own, and every later call on the
// location fails with "The name :1.3 was not provided by any .service files", even once it is
// mounted again. Only an unmount's reply clears that entry (whether the unmount succeeded or
// not: here it cannot, its backend being gone), so that is asked for, and waited for as above.
static void photopick_unmount_finished(GObject *source, GAsyncResult *result, gpointer data) {
    PhotopickMountWait *wait = data;
    wait->mounted = g_mount_unmount_with_operation_finish(G_MOUNT(source), result, NULL);
    g_main_loop_quit(wait->loop);
}

static inline void photopick_forget_stale_mount_sync(GFile *file) {
    GMount *mount = g_file_find_enclosing_mount(file, NULL, NULL);
    if (!mount) return;
    GMainContext *context = g_main_context_new();
    g_main_context_push_thread_default(context);
    PhotopickMountWait wait = { g_main_loop_new(context, FALSE), FALSE, NULL };
    g_mount_unmount_with_operation(mount, G_MOUNT_UNMOUNT_NONE, NULL, NULL, photopick_unmount_finished, &wait);
    g_main_loop_run(wait.loop);
    g_main_loop_unref(wait.loop);
    g_main_context_pop_thread_default(context);
    g_main_context_unref(context);
    g_object_unref(mount);
}

#include <linux/memfd.h>
// An anonymous file in memory, close-on-exec (memfd_create is a GNU declaration the module does
// not see): a remote file's mirror, which a sandboxed worker reads like a file.
static inline int photopick_memory_file(const char *name) { return (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC); }

/* malloc_trim: the memory a host's last picker let go of goes back to the system. */
#include <malloc.h>

#include <malloc.h>
// At most `arenas` malloc arenas (the photopick program: one a core), unless MALLOC_ARENA_MAX
// says otherwise. M_ARENA_MAX is a macro Swift does not see.
static inline void photopick_limit_malloc_arenas(int arenas) {
    if (!getenv("MALLOC_ARENA_MAX")) mallopt(M_ARENA_MAX, arenas);
}
