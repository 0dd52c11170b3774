// SPDX-License-Identifier: GPL-3.0-or-later
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

        /// Whether the answer is URIs (`--uri`), not paths.
        var givesURIs: Bool {
            switch self {
            case .terminated(_, let uri), .joined(_, let uri): uri
            case .json: false
            }
        }
    }

    /// No pick is left to print: each was deleted or moved (`allGone`), or some cannot be reached.
    struct NothingLeft: Error {
        let allGone: Bool

        var message: String {
            allGone ? i18n("nothing to print: every picked file was deleted or moved")
                : i18n("nothing to print: none of the picked files can be reached")
        }
    }

    /// The picks still on disk; each one left out is said, with why. Throws when none is left.
    /// A pick on another machine (a location URI) is answered with its local copy (`copies`, made
    /// while the window was open), or with its URI when `remoteURIs` (`--uri`: nothing is
    /// downloaded) and the server says it is there.
    static func existing(_ assets: [Asset], remoteURIs: Bool, copies: [Int64: FilePath] = [:]) throws(NothingLeft) -> [Asset] {
        var allGone = true
        let kept = assets.filter { asset in
            let path = copies[asset.id] ?? asset.path
            if path.isLocationURI {
                allGone = false
                let file = asset.path.displayString
                guard remoteURIs else {
                    warn(i18n("{file} is on another computer and cannot be given as a local file yet (photopick --uri gives its URI); it is left out",
                              ["file": file]))
                    return false
                }
                do {
                    // (After the window: a server that hangs must not keep the script waiting.)
                    try RemoteFiles.checkFile(asset.path, within: 10)
                    return true
                } catch {
                    // (The sentence for the person; the server's answer for whoever reads the log.)
                    DeveloperLog.say("\(file): \(error)")
                    warn(i18n("{file} cannot be reached, and is left out", ["file": file]))
                    return false
                }
            }
            var info = stat()
            if path.withCString({ lstat($0, &info) }) == 0 { return true }
            let file = asset.path.displayString
            switch errno {
            case ENOENT, ENOTDIR:
                warn(i18n("{file} was deleted or moved after it was picked, and is left out", ["file": file]))
            case let code:
                // (A folder on the way that lost its permissions, a disk that went away: not deleted.)
                allGone = false
                warn(i18n("{file} cannot be reached ({reason}), and is left out", ["file": file, "reason": errorDescription(code)]))
            }
            return false
        }
        if kept.isEmpty && !assets.isEmpty { throw NothingLeft(allGone: allGone) }
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
