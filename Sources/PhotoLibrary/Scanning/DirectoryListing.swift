// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// The entries of one folder, read with `readdir` and `fstatat` on the folder's descriptor.
/// Symbolic links are listed as `.other` and never followed, so a link loop or a link to `/`
/// cannot send a scan across the disk. Hidden entries (names starting with ".") are left out.
struct DirectoryListing {
    enum EntryType: Equatable {
        case file(FileVersion)
        /// A regular file by its directory entry, not `stat`ed (`list(statsFiles: false)`).
        case unstattedFile
        case directory
        case other
    }

    struct Entry {
        let name: [UInt8]
        let type: EntryType
    }

    let entries: [Entry]
    /// The folder's modification time when it was opened.
    let modificationTimeNanoseconds: Int64?

    enum Failure: Error, Equatable {
        case vanished
        case unreadable(String)
        /// A remote folder whose server did not answer: what the index holds of it stays.
        case unreachable(String)
    }

    /// Lists `path`. `followLink` is for a library root the user named, which may itself be a link.
    /// Without `statsFiles`, an entry the folder itself says is a regular file is listed as
    /// `.unstattedFile`, and whoever reads it learns its version (a first scan: its readers, on
    /// every core, instead of the one thread that lists).
    static func list(_ path: FilePath, followLink: Bool = false, statsFiles: Bool = true) -> Result<DirectoryListing, Failure> {
        if path.isLocationURI {
            return RemoteFiles.list(path).mapError { failure in
                switch failure.kind {
                case .vanished: .vanished
                case .refused: .unreadable("cannot open folder: \(failure.message)")
                case .notMounted, .staleMount, .unreachable: .unreachable(failure.message)
                }
            }
        }
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followLink ? 0 : O_NOFOLLOW)
        let fd = path.withCString { open($0, flags) }
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR || code == ELOOP { return .failure(.vanished) }
            return .failure(.unreadable("cannot open folder: \(errorDescription(code))"))
        }
        guard let directory = fdopendir(fd) else {
            let code = errno
            close(fd)
            return .failure(.unreadable("cannot open folder: \(errorDescription(code))"))
        }
        defer { closedir(directory) }
        // The folder's time as it was before reading: a change made while it is read moves it on.
        var info = Glibc.stat()
        let modified = fstat(fd, &info) == 0 ? nanoseconds(info.st_mtim) : nil
        var entries: [Entry] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { return .failure(.unreadable("cannot read folder: \(errorDescription(errno))")) }
                break
            }
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            guard let first = name.first, first != UInt8(ascii: ".") else { continue }
            let type: EntryType
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_DIR): type = .directory
            case Int32(DT_REG) where !statsFiles: type = .unstattedFile
            case Int32(DT_REG), Int32(DT_UNKNOWN): type = stat(name, in: fd)
            default: type = .other  // links, devices, sockets, FIFOs
            }
            entries.append(Entry(name: name, type: type))
        }
        entries.sort { $0.name.precedesInByteOrder($1.name) }
        return .success(DirectoryListing(entries: entries, modificationTimeNanoseconds: modified))
    }

    /// A folder's modification time, or nil when it is not a folder (any more) or cannot be read.
    /// The kernel moves it whenever an entry is added, removed or renamed in the folder, not when
    /// a file in it is rewritten in place.
    static func modificationTime(of path: FilePath, followLink: Bool) -> Int64? {
        if path.isLocationURI { return RemoteFiles.modificationTime(of: path) }
        var info = Glibc.stat()
        let status = path.withCString { fstatat(AT_FDCWD, $0, &info, followLink ? 0 : AT_SYMLINK_NOFOLLOW) }
        guard status == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return nanoseconds(info.st_mtim)
    }

    private static func nanoseconds(_ time: timespec) -> Int64 {
        Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    private static func stat(_ name: [UInt8], in directory: Int32) -> EntryType {
        var info = Glibc.stat()
        let result = (name + [0]).withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                fstatat(directory, $0, &info, AT_SYMLINK_NOFOLLOW)
            }
        }
        guard result == 0 else { return .other }  // vanished since readdir
        return type(of: info)
    }

    /// What `lstat` says of `path`: a file's version, or what else it is (nil: gone).
    static func entryType(of path: FilePath) -> EntryType? {
        if path.isLocationURI { return (try? RemoteFiles.entryType(of: path).get()) ?? nil }
        var info = Glibc.stat()
        guard path.withCString({ lstat($0, &info) }) == 0 else { return nil }
        return type(of: info)
    }

    private static func type(of info: Glibc.stat) -> EntryType {
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            // Clamped: a file dated beyond 2262 or before 1677 must not trap the scan.
            let seconds = min(max(Int64(info.st_mtim.tv_sec), -9_000_000_000), 9_000_000_000)
            let nanoseconds = seconds * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            return .file(FileVersion(size: Int64(info.st_size), modificationTimeNanoseconds: nanoseconds,
                                     inode: UInt64(info.st_ino)))
        case S_IFDIR: return .directory
        default: return .other
        }
    }
}

extension DirectoryListing {
    /// Counts the files below `root` with `readdir` alone (no `stat`): a quick total for a progress
    /// bar before a first scan. Follows the same rules as the scan: no hidden entries, no links.
    /// A remote root is not counted: that would list each of its folders twice over the network
    /// (its first scan shows what it read, without a total).
    static func countFiles(under root: FilePath) -> Int {
        guard !root.isLocationURI else { return 0 }
        var count = 0
        walkNames(under: root) { _, type in if type != Int32(DT_DIR) { count += 1 } }
        return count
    }

    /// Every folder below `root` (and `root` itself), by the scan's rules.
    static func folders(under root: FilePath) -> [FilePath] {
        var result = [root]
        guard !root.isLocationURI else { return result }
        walkNames(under: root) { path, type in if type == Int32(DT_DIR) { result.append(path) } }
        return result
    }

    /// Visits non-hidden regular files and folders below `root` by their `d_type`, without `stat`.
    private static func walkNames(under root: FilePath, _ visit: (FilePath, Int32) -> Void) {
        var stack = [root]
        while let folder = stack.popLast() {
            let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (folder == root ? 0 : O_NOFOLLOW)
            let fd = folder.withCString { open($0, flags) }
            guard fd >= 0, let directory = fdopendir(fd) else {
                if fd >= 0 { close(fd) }
                continue
            }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: &entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                guard let first = name.first, first != UInt8(ascii: ".") else { continue }
                let type = Int32(entry.pointee.d_type)
                switch type {
                case Int32(DT_DIR):
                    let path = folder.appending(name)
                    stack.append(path)
                    visit(path, type)
                case Int32(DT_REG), Int32(DT_UNKNOWN):
                    visit(folder.appending(name), type)
                default: break
                }
            }
            closedir(directory)
        }
    }
}
