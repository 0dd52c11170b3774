// GLib and GIO for Swift: content-type sniffing, option parsing, the main loop.
#include <glib.h>
#include <gio/gio.h>
#include <glib-unix.h>

// g_free is a function, but GLib's string helpers that are macros need wrapping.
static inline void photopick_g_free(void *p) { g_free(p); }

#include <unistd.h>
#include <sys/syscall.h>
// Whether the caller runs on the process's first thread (the GTK thread in the picker).
static inline int photopick_is_main_thread(void) { return getpid() == (pid_t)syscall(SYS_gettid); }
