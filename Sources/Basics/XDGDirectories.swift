// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// The XDG base and user directories, read the way xdg-user-dirs writes them.
public enum XDGDirectories {
    public static var home: FilePath {
        if let home = environment("HOME"), !home.isEmpty { return FilePath(home) }
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir { return FilePath(String(cString: directory)) }
        return FilePath("/")
    }

    public static var dataHome: FilePath { base("XDG_DATA_HOME", default: ".local/share") }
    public static var cacheHome: FilePath { base("XDG_CACHE_HOME", default: ".cache") }
    public static var stateHome: FilePath { base("XDG_STATE_HOME", default: ".local/state") }
    public static var configHome: FilePath { base("XDG_CONFIG_HOME", default: ".config") }

    /// Why `folder` must not be made: it lies inside a home folder that does not exist (HOME
    /// set to a folder that is not there: making it, as root, made that whole path). Nil when
    /// it may be made.
    public static func refusalToMake(_ folder: FilePath) -> String? {
        let home = self.home
        guard home != FilePath("/"), folder == home || folder.relative(to: home) != nil else { return nil }
        var info = stat()
        guard home.withCString({ stat($0, &info) }) != 0 else { return nil }
        return "the home folder \(home.displayString) does not exist"
    }

    /// The Pictures and Videos folders from `user-dirs.dirs`, falling back to `~/Pictures`.
    /// Entries that point at the home folder itself are ignored (xdg-user-dirs' way to disable one).
    public static var mediaFolders: [FilePath] {
        let configured = userDirectories()
        var folders: [FilePath] = []
        for key in ["XDG_PICTURES_DIR", "XDG_VIDEOS_DIR"] {
            if let folder = configured[key], folder != home, !folders.contains(folder) { folders.append(folder) }
        }
        return folders.isEmpty ? [home.appending("Pictures")] : folders
    }

    /// The Pictures folder (`XDG_PICTURES_DIR`, else `~/Pictures`): where camera captures go.
    public static var picturesFolder: FilePath {
        if let folder = userDirectories()["XDG_PICTURES_DIR"], folder != home { return folder }
        return home.appending("Pictures")
    }

    /// Parses `$XDG_CONFIG_HOME/user-dirs.dirs`: lines `XDG_NAME_DIR="$HOME/Folder"` or an absolute path.
    static func userDirectories(file: FilePath? = nil) -> [String: FilePath] {
        let path = file ?? configHome.appending("user-dirs.dirs")
        guard let text = readSmallFile(path) else { return [:] }
        var result: [String: FilePath] = [:]
        for rawLine in text.split(separator: UInt8(ascii: "\n")) {
            let line = Array(rawLine)
            guard line.first != UInt8(ascii: "#"), let equals = line.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(decoding: line[..<equals], as: UTF8.self).trimmingSpaces
            var value = Array(line[(equals + 1)...])
            while value.last == UInt8(ascii: " ") || value.last == UInt8(ascii: "\r") { value.removeLast() }
            guard value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") else { continue }
            value = Array(value[1..<(value.count - 1)])
            let homePrefix = Array("$HOME".utf8)
            if value.starts(with: homePrefix) {
                value = home.bytes + value[homePrefix.count...]
            } else if value.first != UInt8(ascii: "/") {
                continue
            }
            result[key] = FilePath(bytes: value)
        }
        return result
    }

    private static func base(_ variable: String, default relative: String) -> FilePath {
        // The spec says relative values are invalid and must be ignored.
        if let value = environment(variable), value.hasPrefix("/") { return FilePath(value) }
        return home.appending(relative)
    }
}

func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
}

/// Reads a small configuration file whole, or nil when it is missing or refused
/// (`ConfigurationFile.read`).
public func readSmallFile(_ path: FilePath, limit: Int = 1 << 20) -> [UInt8]? {
    ConfigurationFile.read(path, limit: limit)
}

/// The files Photopick reads as it starts (`state.ini`, `folders`, `user-dirs.dirs`, the
/// `.thumbnailer` key files, `loaders.cache`): opened without blocking and taken only when they
/// are regular files of a bounded size. A named pipe as `state.ini` kept the window from ever
/// appearing, and one as `folders` held `photopick ls` forever, without a word. A refused file
/// is ignored, and said once (`takeProblems`): the command line prints it, the window shows it.
public enum ConfigurationFile {
    private static let lock = Lock()
    nonisolated(unsafe) private static var problems: [String] = []
    nonisolated(unsafe) private static var told: Set<[UInt8]> = []

    /// The file's bytes; nil when it does not exist, or is not a regular file, or is larger than
    /// `limit`, or cannot be read (those three are kept as problems).
    public static func read(_ path: FilePath, limit: Int = 1 << 20) -> [UInt8]? {
        let fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard fd >= 0 else {
            let code = errno
            if code != ENOENT && code != ENOTDIR {
                refuse(path, "\(path.displayString) cannot be read (\(errorDescription(code))): it is ignored")
            }
            return nil
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            refuse(path, "\(path.displayString) is not a regular file (\(FileKind(mode: info.st_mode).spoken)): it is ignored")
            return nil
        }
        guard Int(info.st_size) <= limit else {
            refuse(path, "\(path.displayString) is larger than \(limit) bytes: it is ignored")
            return nil
        }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while result.count <= limit {
            let count = Glibc.read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            result += buffer[..<count]
        }
        // (It grew while being read: a log, not a configuration.)
        guard result.count <= limit else {
            refuse(path, "\(path.displayString) is larger than \(limit) bytes: it is ignored")
            return nil
        }
        return result
    }

    /// Whether `path` may be handed to a reader that opens it itself (GdkPixbuf's loaders.cache):
    /// a regular file, or missing. Refusals are kept as problems.
    public static func isSafeToOpen(_ path: FilePath) -> Bool {
        var info = stat()
        guard path.withCString({ stat($0, &info) }) == 0 else { return true }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            refuse(path, "\(path.displayString) is not a regular file (\(FileKind(mode: info.st_mode).spoken)): it is ignored")
            return false
        }
        return true
    }

    /// The problems not said yet; each file's is said once per process.
    public static func takeProblems() -> [String] {
        lock.withLock {
            defer { problems = [] }
            return problems
        }
    }

    private static func refuse(_ path: FilePath, _ message: String) {
        lock.withLock {
            guard told.insert(path.bytes).inserted else { return }
            problems.append(message)
        }
    }
}

/// What kind of file a mode names, in words ("a named pipe"). (English, as the index's notices:
/// PhotoLibrary has no catalogue of its own.)
public struct FileKind {
    public let mode: mode_t

    public init(mode: mode_t) { self.mode = mode }

    public var spoken: String {
        switch mode & S_IFMT {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a named pipe"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a file"
        }
    }
}

extension String {
    public var trimmingSpaces: String {
        var scalars = Substring(self)
        while scalars.first == " " || scalars.first == "\t" { scalars.removeFirst() }
        while scalars.last == " " || scalars.last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
