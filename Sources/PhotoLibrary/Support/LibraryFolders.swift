// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib
import Glibc

/// The folders a library is made of when none are named: the XDG Pictures and Videos folders,
/// and the folders the person added ("Choose Folder…" in an empty picker, the app's Library
/// Folders window), kept one absolute path or location URI a line in
/// `$XDG_CONFIG_HOME/photopick/folders` so that every command sees them. A media folder the
/// person removed is kept there as its path after a "-" (a line earlier versions skip: it is
/// not absolute).
public enum LibraryFolders {
    /// The list's file (a picker of the default folders watches it).
    public static var file: FilePath { XDGDirectories.configHome.appending("photopick/folders") }

    /// The file's lines: what was added, then what was removed of the media folders.
    private static var lines: [[UInt8]] {
        guard let text = readSmallFile(file) else { return [] }
        return text.split(separator: UInt8(ascii: "\n")).map(Array.init)
    }

    /// Folders added, in the order they were added.
    public static var added: [FilePath] { lines.map { FilePath(bytes: $0) }.filter(\.isAbsolute) }

    /// Media folders (Pictures, Videos) the person removed.
    public static var removed: [FilePath] {
        lines.filter { $0.first == UInt8(ascii: "-") }.map { FilePath(bytes: Array($0.dropFirst())) }.filter(\.isAbsolute)
    }

    /// The media folders not removed, then the added ones, without repeats.
    public static var defaults: [FilePath] {
        let removed = removed
        var folders: [FilePath] = []
        for folder in XDGDirectories.mediaFolders.filter({ !removed.contains($0) }) + added where !folders.contains(folder) {
            folders.append(folder)
        }
        return folders
    }

    /// The defaults that can be shown: local folders that exist, and every folder on another
    /// machine (answering or not: the scan keeps its photos, marked offline, until it answers).
    public static var present: [FilePath] { defaults.filter(\.mayHoldALibrary) }

    public struct AddError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Adds `folder` for later runs (written aside, then renamed over the list). A media folder
    /// removed before comes back.
    public static func add(_ folder: FilePath) throws(AddError) {
        guard folder.isAbsolute, !folder.bytes.contains(UInt8(ascii: "\n")) else {
            throw AddError(description: "cannot remember the folder \(folder): its name holds a line break")
        }
        var added = added, removed = removed
        guard !defaults.contains(folder) else { return }
        if removed.contains(folder) { removed.removeAll { $0 == folder } }
        if !XDGDirectories.mediaFolders.contains(folder) { added.append(folder) }
        try save(added: added, removed: removed, for: folder)
    }

    /// Removes `folder` from the defaults: an added folder is forgotten, a media folder is kept
    /// as removed. Nothing on disk but this list changes.
    public static func remove(_ folder: FilePath) throws(AddError) {
        var added = added, removed = removed
        added.removeAll { $0 == folder }
        if XDGDirectories.mediaFolders.contains(folder), !removed.contains(folder) { removed.append(folder) }
        try save(added: added, removed: removed, for: folder)
    }

    private static func save(added: [FilePath], removed: [FilePath], for folder: FilePath) throws(AddError) {
        let directory = file.parent
        if let refusal = XDGDirectories.refusalToMake(directory) { throw AddError(description: "cannot remember the folder \(folder): \(refusal)") }
        _ = directory.withCString { g_mkdir_with_parents($0, 0o700) }
        let temporary = directory.appending("folders.new")
        var bytes: [UInt8] = []
        for entry in added { bytes += entry.bytes + [UInt8(ascii: "\n")] }
        for entry in removed { bytes += [UInt8(ascii: "-")] + entry.bytes + [UInt8(ascii: "\n")] }
        let fd = temporary.withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw AddError(description: "cannot remember the folder: \(temporary): \(errorDescription(errno))") }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let code = errno
        close(fd)
        guard written == bytes.count else {
            _ = temporary.withCString { unlink($0) }
            throw AddError(description: "cannot remember the folder: \(temporary): \(errorDescription(code))")
        }
        guard temporary.withCString({ from in file.withCString { to in rename(from, to) } }) == 0 else {
            let code = errno
            _ = temporary.withCString { unlink($0) }
            throw AddError(description: "cannot remember the folder: \(file): \(errorDescription(code))")
        }
    }
}

extension FilePath {
    /// A location URI, or a folder that exists here: what a library may be made of.
    public var mayHoldALibrary: Bool { isLocationURI || isDirectory }
}
