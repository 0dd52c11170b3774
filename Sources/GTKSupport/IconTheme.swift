// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk

/// The icon theme, read once and off the GTK thread.
///
/// GTK reads the theme's folders on a worker thread when the display's theme is first asked for,
/// but adding a resource path throws that reading away, and libadwaita's start-up and
/// GtkApplication's (for the app's resources) each add one. The theme was read on the worker
/// and read again on the GTK thread at the window's first icon, 13 ms of a warm open under perf.
public enum IconTheme {
    /// Call once the display is open, before the application starts up: libadwaita adds its
    /// path first, then the theme is asked for, so GTK's one reading has every path. (Give the
    /// application no resource base path, or GtkApplication adds one more.) On a second launch
    /// of the app from the menu, which hands its activation over, this is spent for nothing.
    @MainActor public static func loadEarly() {
        adw_init()
        guard let display = gdk_display_get_default() else { return }
        _ = gtk_icon_theme_get_for_display(display)
    }
}
