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

/// Reads a small file whole (configuration), or nil when it cannot be read.
public func readSmallFile(_ path: FilePath, limit: Int = 1 << 20) -> [UInt8]? {
    let fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16384)
    while result.count < limit {
        let count = read(fd, &buffer, buffer.count)
        if count <= 0 { break }
        result += buffer[..<count]
    }
    return result
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while scalars.first == " " || scalars.first == "\t" { scalars.removeFirst() }
        while scalars.last == " " || scalars.last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
