// SPDX-License-Identifier: LGPL-2.1-or-later
// GTK4 with GDK and GdkPixbuf, and libadwaita, for the picker window (not for library code).
#include <gtk/gtk.h>
#include <adwaita.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#include <X11/Xatom.h>
#endif
#ifdef GDK_WINDOWING_WAYLAND
#include <gdk/wayland/gdkwayland.h>
#endif

// `--attach=XID` (zenity's): on X11, makes the realized window transient for another program's
// window, so the window manager keeps it above that window and centres it there. Returns FALSE
// when the display is not X11 (Wayland has no foreign XIDs) or the window has no surface yet.
static inline gboolean photopick_window_set_transient_for_xid(GtkWidget *window, unsigned long xid) {
#ifdef GDK_WINDOWING_X11
    GdkDisplay *display = gtk_widget_get_display(window);
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (!GDK_IS_X11_DISPLAY(display) || surface == NULL) return FALSE;
    XSetTransientForHint(gdk_x11_display_get_xdisplay(display), gdk_x11_surface_get_xid(surface), (Window)xid);
    return TRUE;
#else
    return FALSE;
#endif
}

// The portal's `x11:` parent (as xdg-desktop-portal-gnome does it): transient for another
// program's window, and a dialog to the window manager (_NET_WM_WINDOW_TYPE_DIALOG), which
// centres it over that window and keeps it above. FALSE when the display is not X11.
static inline gboolean photopick_window_set_dialog_for_xid(GtkWidget *window, unsigned long xid) {
#ifdef GDK_WINDOWING_X11
    if (!photopick_window_set_transient_for_xid(window, xid)) return FALSE;
    GdkDisplay *display = gtk_widget_get_display(window);
    Display *xdisplay = gdk_x11_display_get_xdisplay(display);
    Window own = gdk_x11_surface_get_xid(gtk_native_get_surface(GTK_NATIVE(window)));
    Atom type = gdk_x11_get_xatom_by_name_for_display(display, "_NET_WM_WINDOW_TYPE");
    Atom dialog = gdk_x11_get_xatom_by_name_for_display(display, "_NET_WM_WINDOW_TYPE_DIALOG");
    XChangeProperty(xdisplay, own, type, XA_ATOM, 32, PropModeReplace, (unsigned char *)&dialog, 1);
    return TRUE;
#else
    return FALSE;
#endif
}

// The portal's `wayland:` parent: the realized window becomes a child of another client's
// toplevel, exported through xdg-foreign (GTK 4.8 imports with its v1). FALSE when the display is
// not Wayland or the compositor has no xdg-foreign.
static inline gboolean photopick_window_set_transient_for_exported(GtkWidget *window, const char *handle) {
#ifdef GDK_WINDOWING_WAYLAND
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (surface == NULL || !GDK_IS_WAYLAND_TOPLEVEL(surface)) return FALSE;
    return gdk_wayland_toplevel_set_transient_for_exported(GDK_TOPLEVEL(surface), (char *)handle);
#else
    return FALSE;
#endif
}

// A display of `backend` ("x11" or "wayland") for a window whose parent is on it: the default
// display when it is one, else one opened for it once (an X11 app's parent under a Wayland
// session, through Xwayland), or NULL when none can be opened.
static inline GdkDisplay *photopick_display_for_backend(const char *backend) {
    GdkDisplay *display = gdk_display_get_default();
    gboolean x11 = g_str_equal(backend, "x11");
#ifdef GDK_WINDOWING_X11
    if (x11 && display != NULL && GDK_IS_X11_DISPLAY(display)) return display;
#endif
#ifdef GDK_WINDOWING_WAYLAND
    if (!x11 && display != NULL && GDK_IS_WAYLAND_DISPLAY(display)) return display;
#endif
    static GdkDisplay *opened[2];
    if (opened[x11] == NULL) {
        gdk_set_allowed_backends(backend);
        opened[x11] = gdk_display_open(NULL);
        gdk_set_allowed_backends(NULL);
    }
    return opened[x11];
}

// gtk_accessible_update_property is variadic: set one string property (a label) through the
// value-array form.
static inline void photopick_accessible_set_label(GtkWidget *widget, const char *label) {
    GValue value = G_VALUE_INIT;
    g_value_init(&value, G_TYPE_STRING);
    g_value_set_string(&value, label);
    GtkAccessibleProperty property = GTK_ACCESSIBLE_PROPERTY_LABEL;
    gtk_accessible_update_property_value(GTK_ACCESSIBLE(widget), 1, &property, &value);
    g_value_unset(&value);
}

// The accessible description of `widget` (NULL: none), through the value-array form.
static inline void photopick_accessible_set_description(GtkWidget *widget, const char *description) {
    if (description == NULL) {
        gtk_accessible_reset_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
        return;
    }
    GValue value = G_VALUE_INIT;
    g_value_init(&value, G_TYPE_STRING);
    g_value_set_string(&value, description);
    GtkAccessibleProperty property = GTK_ACCESSIBLE_PROPERTY_DESCRIPTION;
    gtk_accessible_update_property_value(GTK_ACCESSIBLE(widget), 1, &property, &value);
    g_value_unset(&value);
}

// gtk_accessible_announce (GTK 4.14) when the GTK this process runs has it, found at run time so
// that one binary announces on every GTK; FALSE when it has not.
#include <dlfcn.h>
static inline gboolean photopick_accessible_announce(GtkWidget *widget, const char *message) {
    typedef void (*Announce)(GtkAccessible *accessible, const char *message, int priority);
    static Announce announce;
    static gboolean looked;
    if (!looked) {
        announce = (Announce) dlsym(RTLD_DEFAULT, "gtk_accessible_announce");
        looked = TRUE;
    }
    if (announce == NULL) return FALSE;
    announce(GTK_ACCESSIBLE(widget), message, 1);  // GTK_ACCESSIBLE_ANNOUNCEMENT_PRIORITY_MEDIUM
    return TRUE;
}

// Tests: whether an accessible's state or string property holds a value (the gtk_test_accessible_check_*
// functions are variadic). The state is read as an int: GTK collects booleans that may be undefined so.
static inline gboolean photopick_accessible_state_is(GtkWidget *widget, GtkAccessibleState state, int expected) {
    char *message = gtk_test_accessible_check_state(GTK_ACCESSIBLE(widget), state, expected);
    gboolean equal = message == NULL;
    g_free(message);
    return equal;
}

static inline gboolean photopick_accessible_property_is(GtkWidget *widget, GtkAccessibleProperty property, const char *expected) {
    char *message = gtk_test_accessible_check_property(GTK_ACCESSIBLE(widget), property, expected);
    gboolean equal = message == NULL;
    g_free(message);
    return equal;
}

// A GtkWidget subclass written in Swift (GTKSupport's WidgetType): the instance owns one Swift
// object, its state, which dispose releases after the widget's children are unparented.
typedef struct {
    GtkWidget parent;
    void *state;  // a retained Swift object; NULL before it is adopted and after dispose
} PhotopickSwiftWidgetInstance;

typedef struct {
    GtkWidgetClass parent_class;
} PhotopickSwiftWidgetClass;

// PhotopickCameraPaintable (PickerUI): a GdkPaintable that shows the newest camera frame. New
// frames change its contents, not its object: a GtkPicture then only redraws, where a new
// paintable each frame made it measure and lay out the whole grid again.
typedef struct {
    GObject parent;
    GdkPaintable *texture;  // owned; NULL before the first frame
} PhotopickCameraPaintableInstance;

// The picker widget's GObject shell (Sources/CPhotopick), seen from Swift in this module: a
// module of its own would include GTK's headers a second time and split their declarations.
#include "../CPhotopick/photopick-private.h"
