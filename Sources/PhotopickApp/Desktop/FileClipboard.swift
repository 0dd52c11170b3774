// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary

/// Puts files on the clipboard the way GNOME Files copies them, so that pasting into Files, a
/// chat app or a mail composer pastes the files themselves: `text/uri-list` (the standard),
/// `x-special/gnome-copied-files` ("copy" and the URIs: what Files and other GTK apps read), the
/// paths as plain text for a terminal or a text field, and a GdkFileList, which GTK also offers
/// as `application/vnd.portal.filetransfer` when the document portal runs (every portal session):
/// a sandboxed app that pastes gets files it can open, where a path would be outside its sandbox.
@MainActor
enum FileClipboard {
    static func put(_ paths: [FilePath], on display: OpaquePointer) {
        let uris = paths.compactMap(uri(for:))
        let offers: [(String, String)] = [
            ("text/uri-list", uris.map { $0 + "\r\n" }.joined()),
            ("x-special/gnome-copied-files", (["copy"] + uris).joined(separator: "\n")),
            ("text/plain;charset=utf-8", paths.map(\.displayString).joined(separator: "\n")),
        ]
        var providers: [UnsafeMutablePointer<GdkContentProvider>?] = offers.map { mimeType, text in
            let bytes = Array(text.utf8)
            let data = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            defer { g_bytes_unref(data) }
            return gdk_content_provider_new_for_bytes(mimeType, data)
        }
        providers.append(FileListContent.provider(paths))
        // The union takes the providers; the clipboard takes a reference to the union.
        let union = providers.withUnsafeMutableBufferPointer { gdk_content_provider_new_union($0.baseAddress, gsize($0.count)) }
        gdk_clipboard_set_content(gdk_display_get_clipboard(display), union)
        g_object_unref(UnsafeMutableRawPointer(union))
    }

    /// Closing the app while it owns the clipboard: on X11 without a clipboard manager, the copied
    /// files would go with the process, though the toast said "paste them in Files". The window
    /// hides and the app stays (held) until another program takes the clipboard; then it ends.
    /// Returns false when nothing is owned: the window may close now.
    static func keepsServing(window: UnsafeMutablePointer<GtkWidget>, application: UnsafeMutablePointer<AdwApplication>) -> Bool {
        guard let clipboard = gdk_display_get_clipboard(gtk_widget_get_display(window)),
              gdk_clipboard_is_local(clipboard) != 0 else { return false }
        gtk_widget_set_visible(window, 0)
        // (Presented again by a second launch and closed again: still held, once.)
        guard !isServing else { return true }
        isServing = true
        g_application_hold(application.cast())
        var handler: gulong = 0
        handler = Signal.connect(UnsafeMutableRawPointer(clipboard), "changed") { () -> Void in
            guard gdk_clipboard_is_local(clipboard) == 0, isServing else { return }
            isServing = false
            g_signal_handler_disconnect(UnsafeMutableRawPointer(clipboard), handler)
            g_application_release(application.cast())
            // Shown again meanwhile, it stays: the person is using it.
            if gtk_widget_get_visible(window) == 0 { gtk_window_destroy(window.cast()) }
        }
        return true
    }

    /// Whether a closed app is kept alive for its clipboard.
    private static var isServing = false

    /// The file:// URI of an absolute path, percent-encoded by GLib.
    static func uri(for path: FilePath) -> String? {
        guard let uri = path.withCString({ g_filename_to_uri($0, nil, nil) }) else { return nil }
        defer { g_free(uri) }
        return String(cString: uri)
    }
}
