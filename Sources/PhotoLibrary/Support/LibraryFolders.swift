// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib
import Glibc

/// The folders a library is made of when none are named: the XDG Pictures and Videos folders,
/// and the folders the person added from the picker ("Choose Folder…"), kept one absolute path
/// a line in `$XDG_CONFIG_HOME/photopick/folders` so that every command sees them.
public enum LibraryFolders {
    static var file: FilePath { XDGDirectories.configHome.appending("photopick/folders") }

    /// Folders added from the picker, in the order they were added.
    public static var added: [FilePath] {
        guard let text = readSmallFile(file) else { return [] }
        return text.split(separator: UInt8(ascii: "\n")).map { FilePath(bytes: Array($0)) }.filter(\.isAbsolute)
    }

    /// The media folders, then the added ones, without repeats.
    public static var defaults: [FilePath] {
        var folders: [FilePath] = []
        for folder in XDGDirectories.mediaFolders + added where !folders.contains(folder) { folders.append(folder) }
        return folders
    }

    /// The defaults that can be shown: local folders that exist, and every folder on another
    /// machine (answering or not: the scan keeps its photos, marked offline, until it answers).
    public static var present: [FilePath] { defaults.filter(\.mayHoldALibrary) }

    public struct AddError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Adds `folder` for later runs (written aside, then renamed over the list).
    public static func add(_ folder: FilePath) throws(AddError) {
        guard folder.isAbsolute, !folder.bytes.contains(UInt8(ascii: "\n")) else {
            throw AddError(description: "cannot remember the folder \(folder): its name holds a line break")
        }
        var folders = added
        guard !folders.contains(folder) else { return }
        folders.append(folder)
        let directory = file.parent
        if let refusal = XDGDirectories.refusalToMake(directory) { throw AddError(description: "cannot remember the folder \(folder): \(refusal)") }
        _ = directory.withCString { g_mkdir_with_parents($0, 0o700) }
        let temporary = directory.appending("folders.new")
        var bytes: [UInt8] = []
        for entry in folders { bytes += entry.bytes + [UInt8(ascii: "\n")] }
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
