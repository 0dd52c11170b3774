import GObjectSupport
import Glibc
import PhotoLibrary
import Thumbnails

/// What a confirmed picker prints: the picked files in pick order, as paths or URIs, one a line,
/// joined on one line (zenity), NUL-terminated, or as JSON. Only files that exist at the moment
/// of printing are printed: a pick deleted meanwhile is left out and said on standard error.
enum PickOutput {
    enum Format: Equatable {
        /// Each path followed by the terminator (a newline, or NUL for `-0`).
        case terminated(by: [UInt8], uri: Bool)
        /// zenity's: the paths joined by the separator, then one newline.
        case joined(by: [UInt8], uri: Bool)
        /// A JSON array of `ls --json` objects.
        case json
    }

    struct NothingLeft: Error {}

    /// The picks still on disk; each one that is gone is said. Throws when none is left.
    static func existing(_ assets: [Asset]) throws -> [Asset] {
        let kept = assets.filter { asset in
            var info = stat()
            if asset.path.withCString({ lstat($0, &info) }) == 0 { return true }
            warn(i18n("{file}: {reason}; it was deleted or moved after it was picked, and is left out", ["file": asset.path.displayString, "reason": errorDescription(errno)]))
            return false
        }
        if kept.isEmpty && !assets.isEmpty { throw NothingLeft() }
        return kept
    }

    /// The bytes to print for `paths` (with `assets`, their rows for JSON).
    static func render(_ assets: [Asset], paths: [FilePath], format: Format, library: PhotoLibrary?) -> [UInt8] {
        func text(_ path: FilePath, uri: Bool) -> [UInt8] {
            guard uri else { return path.bytes }
            return (try? Array(ThumbnailCache.uri(for: path).utf8)) ?? path.bytes
        }
        switch format {
        case .terminated(let terminator, let uri):
            return paths.flatMap { text($0, uri: uri) + terminator }
        case .joined(let separator, let uri):
            return Array(paths.map { text($0, uri: uri) }.joined(separator: separator)) + [UInt8(ascii: "\n")]
        case .json:
            // A copy is described as the picked asset, at the copy's path; a typed path (Ctrl+L),
            // which the library may not hold, by its path alone.
            let objects = assets.isEmpty || library == nil ? paths.map(describePath) : zip(assets, paths).map { describe($0, library: library!, at: $1) }
            return Array(("[" + objects.joined(separator: ",\n ") + "]\n").utf8)
        }
    }
}
