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
                let name = file.withCString { g_filename_display_basename($0) }.map { name in
                    defer { g_free(name) }
                    return String(cString: name)
                } ?? ""
                outcome.problems.append(i18n("No app is set to open {file} ({type})", ["file": name, "type": mimeType]))
                continue
            }
            if let index = groups.firstIndex(where: { g_app_info_equal($0.app, app) != 0 }) {
                groups[index].files.append(file)
                g_object_unref(UnsafeMutableRawPointer(app))
            } else {
                groups.append((app, [file]))
            }
        }
        let context = gdk_display_get_app_launch_context(display)!
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        for group in groups {
            defer { g_object_unref(UnsafeMutableRawPointer(group.app)) }
            var list: UnsafeMutablePointer<GList>?
            for file in group.files {
                list = g_list_append(list, UnsafeMutableRawPointer(file.withCString { g_file_new_for_path($0) }))
            }
            defer { g_list_free_full(list) { g_object_unref($0) } }
            var error: UnsafeMutablePointer<GError>?
            let name = String(cString: g_app_info_get_name(group.app))
            if g_app_info_launch(group.app, list, UnsafeMutableRawPointer(context).assumingMemoryBound(to: GAppLaunchContext.self), &error) != 0 {
                outcome.opened.append((name, group.files.count))
            } else {
                outcome.problems.append(i18n("{app} could not start: {reason}",
                                             ["app": name, "reason": error.map { String(cString: $0.pointee.message) } ?? i18n("unknown error")]))
                g_clear_error(&error)
            }
        }
        return outcome
    }
}
