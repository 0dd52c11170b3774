// SPDX-License-Identifier: LGPL-2.1-or-later
import CGdkPixbuf
import Glibc
import PhotoLibrary

/// The fonts a decode worker that draws SVGs reads: an SVG's text is drawn with the person's
/// fonts (librsvg through Pango and fontconfig), which FreeType opens by path as each is first
/// needed. Such a worker may read beneath these folders, and nothing else (Landlock); it draws a
/// line of text before it is shut in, so fontconfig's configuration and caches are loaded then.
/// (Issue 37: SVGs were drawn in a child with no walls at all, `photopick render-thumbnail`.)
enum WorkerFonts {
    /// Where fontconfig's configuration, caches and fonts are on Debian and most systems: the
    /// folders its fonts.conf names, and the XDG data folders' "fonts".
    static var folders: [String] {
        let environment = { (name: String) in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        let home = environment("HOME") ?? "/nonexistent"
        let dataHome = environment("XDG_DATA_HOME") ?? home + "/.local/share"
        let cacheHome = environment("XDG_CACHE_HOME") ?? home + "/.cache"
        let dataDirectories = (environment("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
        var folders = ["/etc/fonts", "/var/cache/fontconfig", cacheHome + "/fontconfig", dataHome + "/fonts", home + "/.fonts"]
        folders += dataDirectories.map { $0 + "/fonts" }
        var seen = Set<String>()
        return folders.filter { $0.hasPrefix("/") && seen.insert($0).inserted }
    }

    /// Draws a line of text with the SVG loader: fontconfig reads its configuration and caches,
    /// and the usual sans-serif face is opened, while the worker may still open anything.
    static func warmUp() {
        let svg = Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="64" height="16"><text x="0" y="12" font-family="sans-serif" font-size="12">Ag</text></svg>"#.utf8)
        guard let loader = LoaderMessages.quietly({ gdk_pixbuf_loader_new_with_type("svg", nil) }) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(loader)) }
        _ = svg.withUnsafeBufferPointer { gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize($0.count), nil) }
        _ = gdk_pixbuf_loader_close(loader, nil)
    }

    /// A font file beneath `folders`, for the check of the walls (read: allowed; write: refused).
    static func sample(in folders: [String]) -> String? {
        for folder in folders where folder.hasSuffix("/fonts") {
            var pending = [(folder, 0)]
            while let (path, depth) = pending.popLast() {
                guard let directory = opendir(path) else { continue }
                defer { closedir(directory) }
                while let entry = readdir(directory) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                    if name.hasPrefix(".") { continue }
                    let full = path + "/" + name
                    if entry.pointee.d_type == DT_DIR, depth < 4 { pending.append((full, depth + 1)) }
                    if entry.pointee.d_type == DT_REG, [".ttf", ".otf", ".ttc", ".pfb"].contains(where: { name.hasSuffix($0) }) { return full }
                }
            }
        }
        return nil
    }
}
