// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary

/// Opens files in the desktop's default app for their type (Image Viewer, Videos …) through
/// GIO: one launch per app, with all its files, as Files does for a selection.
@MainActor
enum FileLauncher {
    /// What was opened where, or why not, for the picker to say.
    struct Outcome {
        var opened: [(app: String, count: Int)] = []
        var problems: [String] = []
        /// Files no app is set to open, by type (in pick order): the person is asked which app.
        var withoutApp: [(contentType: String, files: [FilePath])] = []
    }

    /// Opens each file as what its name says it is (a copy of a photo on another machine too).
    static func open(_ files: [FilePath], display: OpaquePointer) -> Outcome {
        var outcome = Outcome()
        // Files grouped by their app, in pick order.
        var groups: [(app: OpaquePointer, files: [FilePath])] = []
        for file in files {
            let mimeType = ContentType.guess(fileName: file.lastComponent).mimeType
            let contentType = g_content_type_from_mime_type(mimeType)
            defer { g_free(contentType) }
            guard let app = g_app_info_get_default_for_type(contentType, 0) else {
                let type = contentType.map { String(cString: $0) } ?? mimeType
                if let index = outcome.withoutApp.firstIndex(where: { $0.contentType == type }) {
                    outcome.withoutApp[index].files.append(file)
                } else {
                    outcome.withoutApp.append((type, [file]))
                }
                continue
            }
            if let index = groups.firstIndex(where: { g_app_info_equal($0.app, app) != 0 }) {
                groups[index].files.append(file)
                g_object_unref(UnsafeMutableRawPointer(app))
            } else {
                groups.append((app, [file]))
            }
        }
        for group in groups {
            defer { g_object_unref(UnsafeMutableRawPointer(group.app)) }
            launch(group.app, with: group.files, display: display, into: &outcome)
        }
        return outcome
    }

    /// Starts `app` with `files` in one launch, and says so in `outcome`.
    static func launch(_ app: OpaquePointer, with files: [FilePath], display: OpaquePointer, into outcome: inout Outcome) {
        let context = gdk_display_get_app_launch_context(display)!
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        var list: UnsafeMutablePointer<GList>?
        for file in files {
            list = g_list_append(list, UnsafeMutableRawPointer(file.withCString { g_file_new_for_path($0) }))
        }
        defer { g_list_free_full(list) { g_object_unref($0) } }
        var error: UnsafeMutablePointer<GError>?
        let name = String(cString: g_app_info_get_name(app))
        if g_app_info_launch(app, list, UnsafeMutableRawPointer(context).assumingMemoryBound(to: GAppLaunchContext.self), &error) != 0 {
            outcome.opened.append((name, files.count))
        } else {
            outcome.problems.append(i18n("{app} could not start: {reason}",
                                         ["app": name, "reason": error.map { String(cString: $0.pointee.message) } ?? i18n("unknown error")]))
            g_clear_error(&error)
        }
    }

    /// Files Files would ask about: GTK's "Open With" dialog (every app listed), one for all the
    /// files of a type no app is set to open, modal on `parent`; `done` gets what was opened.
    static func askWhichApp(for files: [FilePath], contentType: String, parent: UnsafeMutablePointer<GtkWindow>?, display: OpaquePointer,
                            done: @escaping @MainActor (Outcome) -> Void) {
        guard let first = files.first, let file = first.withCString({ g_file_new_for_path($0) }) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        let dialog = gtk_app_chooser_dialog_new(parent, GTK_DIALOG_MODAL, file)!
        let count = files.count
        let heading = count == 1
            ? i18n("No app is set to open “{file}”: choose one", ["file": first.displayString.split(separator: "/").last.map(String.init) ?? ""])
            : ni18n("No app is set to open these {count} files: choose one", "No app is set to open these {count} files: choose one", count)
        gtk_app_chooser_dialog_set_heading(OpaquePointer(dialog), heading)
        // GTK 4.8 puts the heading on one line, cut off at the dialog's edge ("…: выберите его"
        // lost its end in Russian): it wraps.
        if let label = label(in: dialog, saying: heading) {
            gtk_label_set_wrap(OpaquePointer(label), 1)
            gtk_label_set_max_width_chars(OpaquePointer(label), 50)
            gtk_label_set_justify(OpaquePointer(label), GTK_JUSTIFY_CENTER)
        }
        // (Its natural width, 400 px, showed two lines of heading over a narrow list.)
        gtk_window_set_default_size(UnsafeMutableRawPointer(dialog).assumingMemoryBound(to: GtkWindow.self), 520, 480)
        // (Apps for the type first; a type no app declares lists them all.)
        let widget = gtk_app_chooser_dialog_get_widget(OpaquePointer(dialog))
        gtk_app_chooser_widget_set_show_all(widget.map(OpaquePointer.init), 1)
        Signal.connect(UnsafeMutableRawPointer(dialog), "response", response: { response in
            var outcome = Outcome()
            if response == GTK_RESPONSE_OK.rawValue, let app = gtk_app_chooser_get_app_info(OpaquePointer(dialog)) {
                launch(app, with: files, display: display, into: &outcome)
                g_object_unref(UnsafeMutableRawPointer(app))
            }
            gtk_window_destroy(UnsafeMutableRawPointer(dialog).assumingMemoryBound(to: GtkWindow.self))
            done(outcome)
        })
        gtk_window_present(UnsafeMutableRawPointer(dialog).assumingMemoryBound(to: GtkWindow.self))
    }

    /// The label under `widget` that shows `text`.
    private static func label(in widget: UnsafeMutablePointer<GtkWidget>, saying text: String) -> UnsafeMutablePointer<GtkWidget>? {
        if g_type_check_instance_is_a(UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GTypeInstance.self), gtk_label_get_type()) != 0,
           let shown = gtk_label_get_text(OpaquePointer(widget)), String(cString: shown) == text {
            return widget
        }
        var child = gtk_widget_get_first_child(widget)
        while let current = child {
            if let found = label(in: current, saying: text) { return found }
            child = gtk_widget_get_next_sibling(current)
        }
        return nil
    }
}
