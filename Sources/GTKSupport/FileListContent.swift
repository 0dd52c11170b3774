// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import CGtk

/// Files handed to another app (a drag, a copy) as GTK hands them: a GdkContentProvider of a
/// GdkFileList, which GTK offers as `text/uri-list` and, where the document portal runs, as the
/// portal's file transfer (`application/vnd.portal.filetransfer`), which a sandboxed app can open.
public enum FileListContent {
    /// A provider of `paths` in their order (a new reference), or nil for none.
    public static func provider(_ paths: [FilePath]) -> UnsafeMutablePointer<GdkContentProvider>? {
        guard !paths.isEmpty else { return nil }
        var files: UnsafeMutablePointer<GSList>?
        for path in paths.reversed() { files = g_slist_prepend(files, UnsafeMutableRawPointer(path.withCString { g_file_new_for_path($0) })) }
        defer { g_slist_free_full(files) { g_object_unref($0) } }
        var value = GValue()
        g_value_init(&value, gdk_file_list_get_type())
        defer { g_value_unset(&value) }
        g_value_take_boxed(&value, UnsafeRawPointer(gdk_file_list_new_from_list(files)))
        return gdk_content_provider_new_for_value(&value)
    }
}
