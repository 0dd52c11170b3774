import CGtk
import PhotoLibrary

/// Puts files on the clipboard the way GNOME Files copies them, so that pasting into Files, a
/// chat app or a mail composer pastes the files themselves: `text/uri-list` (the standard),
/// `x-special/gnome-copied-files` ("copy" and the URIs: what Files and other GTK apps read), and
/// the paths as plain text for a terminal or a text field.
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
        // The union takes the providers; the clipboard takes a reference to the union.
        let union = providers.withUnsafeMutableBufferPointer { gdk_content_provider_new_union($0.baseAddress, gsize($0.count)) }
        gdk_clipboard_set_content(gdk_display_get_clipboard(display), union)
        g_object_unref(UnsafeMutableRawPointer(union))
    }

    /// The file:// URI of an absolute path, percent-encoded by GLib.
    static func uri(for path: FilePath) -> String? {
        guard let uri = path.withCString({ g_filename_to_uri($0, nil, nil) }) else { return nil }
        defer { g_free(uri) }
        return String(cString: uri)
    }
}
