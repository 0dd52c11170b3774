// SPDX-License-Identifier: LGPL-2.1-or-later
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
    /// One loader: the image types it reads and the byte patterns by which GdkPixbuf recognises them.
    struct Loader: Equatable {
        var mimeTypes: Set<String>
        var signatures: [Signature]
    }

    /// A pattern as loaders.cache writes it: bytes, a mask of the same length (' ' this byte,
    /// '!' not this byte, 'x' any, 'z' zero, 'n' non-zero; a leading '*' lets the pattern start
    /// anywhere), and a relevance (0: "not this format").
    struct Signature: Equatable {
        var pattern: [UInt8]
        var mask: [UInt8]
        var relevance: Int
    }

    /// The installed loaders that read images; read once.
    static let installed: [Loader] = {
        guard let path = cachePath, let text = readText(path) else { return [] }
        return loaders(inCache: text)
    }()

    /// The installed loaders' image MIME types, as shared-mime-info names them.
    public static let installedTypes: Set<String> = Set(installed.flatMap(\.mimeTypes))

    public static func reads(_ mimeType: String) -> Bool {
        installedTypes.contains(mimeType)
    }

    /// Whether the loader for `mimeType` recognises `head` as its format, as GdkPixbuf checks it.
    static func recognises(_ head: [UInt8], as mimeType: String) -> Bool {
        installed.contains { $0.mimeTypes.contains(mimeType) && $0.signatures.contains { $0.relevance > 0 && $0.matches(head) } }
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

    /// The image types listed in a loaders.cache text.
    static func imageTypes(inCache text: String) -> Set<String> {
        Set(loaders(inCache: text).flatMap(\.mimeTypes))
    }

    /// The loaders of a loaders.cache text: blocks separated by blank lines, each a module path,
    /// a line about the format, its MIME types and its extensions (quoted strings ending with
    /// ""), then one line per signature. Types outside image/ are left out (the WebP loader also
    /// claims audio/x-riff), and aliases are resolved so they compare with what content sniffing
    /// names (image/x-icon is image/vnd.microsoft.icon).
    static func loaders(inCache text: String) -> [Loader] {
        var loaders: [Loader] = []
        var current = Loader(mimeTypes: [], signatures: [])
        var lineInBlock = 0
        func finish() {
            if !current.mimeTypes.isEmpty { loaders.append(current) }
            current = Loader(mimeTypes: [], signatures: [])
            lineInBlock = 0
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") { continue }
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { finish(); continue }
            lineInBlock += 1
            let (strings, rest) = quotedStrings(Array(line.utf8))
            if lineInBlock == 3 {
                for bytes in strings {
                    let type = String(decoding: bytes, as: UTF8.self)
                    if type.hasPrefix("image/") { current.mimeTypes.insert(canonical(type)) }
                }
            } else if lineInBlock >= 5, strings.count == 2, let relevance = Int(String(decoding: rest, as: UTF8.self).trimmingSpaces) {
                current.signatures.append(Signature(pattern: strings[0], mask: strings[1], relevance: relevance))
            }
        }
        finish()
        return loaders
    }

    /// The "…" strings of one cache line with their C escapes undone (\001, \t, \\), and what follows the last.
    private static func quotedStrings(_ line: [UInt8]) -> (strings: [[UInt8]], rest: ArraySlice<UInt8>) {
        var strings: [[UInt8]] = []
        var index = 0
        var restStart = 0
        while index < line.count {
            guard line[index] == UInt8(ascii: "\"") else { index += 1; continue }
            index += 1
            var bytes: [UInt8] = []
            while index < line.count, line[index] != UInt8(ascii: "\"") {
                if line[index] == UInt8(ascii: "\\"), index + 1 < line.count {
                    index += 1
                    var octal = 0, digits = 0
                    while digits < 3, index < line.count, (48...55).contains(line[index]) {
                        octal = octal * 8 + Int(line[index] - 48)
                        digits += 1
                        index += 1
                    }
                    if digits > 0 { bytes.append(UInt8(truncatingIfNeeded: octal)); continue }
                    let escapes: [UInt8: UInt8] = [UInt8(ascii: "t"): 9, UInt8(ascii: "n"): 10, UInt8(ascii: "v"): 11,
                                                   UInt8(ascii: "f"): 12, UInt8(ascii: "r"): 13]
                    bytes.append(escapes[line[index]] ?? line[index])
                } else {
                    bytes.append(line[index])
                }
                index += 1
            }
            strings.append(bytes)
            index += 1
            restStart = min(index, line.count)
        }
        return (strings, line[restStart...])
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
        ConfigurationFile.read(FilePath(path)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// GdkPixbuf reads `GDK_PIXBUF_MODULE_FILE` itself, and waits forever on a named pipe there:
    /// one that is not a regular file leaves the environment before GdkPixbuf starts (it then
    /// reads its own default), and is said. Call before anything loads an image.
    public static func dropUnsafeModuleFile() {
        guard let value = getenv("GDK_PIXBUF_MODULE_FILE").map({ String(cString: $0) }), !value.isEmpty else { return }
        if !ConfigurationFile.isSafeToOpen(FilePath(value)) { unsetenv("GDK_PIXBUF_MODULE_FILE") }
    }
}

extension PixbufLoaders.Signature {
    /// GdkPixbuf's own check (format_check in gdk-pixbuf-io.c), byte for byte.
    func matches(_ head: [UInt8]) -> Bool {
        var pattern = self.pattern[...], mask = self.mask[...]
        let anchored = mask.first != UInt8(ascii: "*")
        if !anchored { pattern = pattern.dropFirst(); mask = mask.dropFirst() }
        guard !pattern.isEmpty else { return false }
        let starts = anchored ? 0..<min(1, head.count) : 0..<head.count
        for start in starts {
            guard start + pattern.count <= head.count else { return false }
            var matched = true
            for (offset, expected) in pattern.enumerated() {
                let byte = head[start + offset]
                let rule = offset < mask.count ? mask[mask.startIndex + offset] : UInt8(ascii: " ")
                switch rule {
                case UInt8(ascii: " "): matched = byte == expected
                case UInt8(ascii: "!"): matched = byte != expected
                case UInt8(ascii: "z"): matched = byte == 0
                case UInt8(ascii: "n"): matched = byte != 0
                default: matched = true  // 'x': any byte
                }
                if !matched { break }
            }
            if matched { return true }
        }
        return false
    }
}
