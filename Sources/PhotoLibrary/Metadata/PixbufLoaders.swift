import CGLib
import Glibc

/// The image types the installed GdkPixbuf loaders read: what the thumbnailer can show. Formats
/// exiv2 does not know (SVG, ICO, PNM, TGA, XPM…) are photos when a loader reads them, and
/// errors when none does, so the index and the thumbnailer agree on the same machine.
///
/// The list comes from the loaders' cache file (`gdk-pixbuf-query-loaders` writes it when a
/// loader package is installed); PhotoLibrary does not link GdkPixbuf. The loaders built into
/// GdkPixbuf (PNG and JPEG on Debian) are not in the file; exiv2 reads those formats anyway.
public enum PixbufLoaders {
    /// The installed loaders' image MIME types, as shared-mime-info names them; read once.
    public static let installedTypes: Set<String> = {
        guard let path = cachePath, let text = readText(path) else { return [] }
        return imageTypes(inCache: text)
    }()

    public static func reads(_ mimeType: String) -> Bool {
        installedTypes.contains(mimeType)
    }

    /// Where GdkPixbuf looks: `GDK_PIXBUF_MODULE_FILE`, else its build's default under libdir
    /// (Debian's multiarch folder, then the usual others).
    static var cachePath: String? {
        if let path = getenv("GDK_PIXBUF_MODULE_FILE").map({ String(cString: $0) }), !path.isEmpty { return path }
        var names = utsname()
        uname(&names)
        let machine = withUnsafeBytes(of: &names.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let candidates = ["/usr/lib/\(machine)-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"]
            .map { $0 + "/gdk-pixbuf-2.0/2.10.0/loaders.cache" }
        return candidates.first { access($0, R_OK) == 0 }
    }

    /// The image types listed in a loaders.cache text: blocks separated by blank lines, each a
    /// module path, a line about the format, then its MIME types as quoted strings ending with
    /// "". Types outside image/ are left out (the WebP loader also claims audio/x-riff), and
    /// aliases are resolved so they compare with what content sniffing names (image/x-icon is
    /// image/vnd.microsoft.icon).
    static func imageTypes(inCache text: String) -> Set<String> {
        var types: Set<String> = []
        var lineInBlock = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") { continue }
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { lineInBlock = 0; continue }
            lineInBlock += 1
            guard lineInBlock == 3 else { continue }
            for type in quotedStrings(line) where type.hasPrefix("image/") {
                types.insert(canonical(type))
            }
        }
        return types
    }

    /// The "…" strings of one cache line (MIME types hold no escapes).
    private static func quotedStrings(_ line: Substring) -> [String] {
        line.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 && !$0.element.isEmpty }
            .map { String($0.element) }
    }

    private static func canonical(_ mimeType: String) -> String {
        guard let type = g_content_type_from_mime_type(mimeType) else { return mimeType }
        defer { g_free(type) }
        guard let mime = g_content_type_get_mime_type(type) else { return mimeType }
        defer { g_free(mime) }
        return String(cString: mime)
    }

    /// A small text file's contents (the cache is a few kilobytes; more than 1 MB is not one).
    private static func readText(_ path: String) -> String? {
        var contents: UnsafeMutablePointer<gchar>?
        var length: gsize = 0
        guard g_file_get_contents(path, &contents, &length, nil) != 0, let contents else { return nil }
        defer { g_free(contents) }
        guard length < 1 << 20 else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: contents, count: Int(length)), as: UTF8.self)
    }
}
