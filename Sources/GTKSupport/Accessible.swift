// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import CGtk
import GObjectSupport

/// What GTK's accessible and chooser calls need that Swift cannot say directly.
public enum Accessible {
    /// Sets a state that may also be undefined (SELECTED, EXPANDED): GTK reads its value as an
    /// int, not a gboolean, through the GValue call (the variadic one is out of Swift's reach).
    @MainActor public static func set(_ state: GtkAccessibleState, _ on: Bool, of widget: UnsafeMutablePointer<GtkWidget>) {
        var state = state
        var value = GValue()
        g_value_init(&value, GType(6 << 2))  // G_TYPE_INT
        g_value_set_int(&value, on ? 1 : 0)
        gtk_accessible_update_state_value(OpaquePointer(widget), 1, &state, &value)
        g_value_unset(&value)
    }
}

extension Accessible {
    /// Says `text` to a screen reader, as news, not as a widget's name: GTK 4.14's announce when
    /// the running GTK has it; before, the text is the description of the focused widget a
    /// moment (Orca 43 speaks a new description on the focused object, whatever its role), then
    /// the description it had goes back.
    @MainActor public static func announce(_ text: String, near widget: UnsafeMutablePointer<GtkWidget>) {
        if photopick_accessible_announce(widget, text) != 0 { return }
        let target = gtk_widget_get_root(widget).flatMap { gtk_root_get_focus($0) } ?? widget
        photopick_accessible_set_description(target, text)
        let held = GObjectRef(UnsafeMutableRawPointer(target), transfer: .none)
        MainLoop.add(after: 600, priority: G_PRIORITY_DEFAULT) {
            photopick_accessible_set_description(held.pointer(as: GtkWidget.self), nil)
            return false
        }
    }
}

/// What a folder chooser's answer names: a folder here by its path, or a shared folder the
/// chooser mounted by its address (its gvfs FUSE path, when there is one, only goes round
/// through gvfs again).
public func chosenLocation(_ file: OpaquePointer) -> FilePath? {
    if g_file_is_native(file) == 0, let uri = g_file_get_uri(file) {
        defer { g_free(uri) }
        return FilePath(String(cString: uri))
    }
    guard let path = g_file_get_path(file) else { return nil }
    defer { g_free(path) }
    return FilePath(String(cString: path))
}
