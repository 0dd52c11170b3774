// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// A file beside the index (`<index>.damaged`, holding the reason) that says SQLite found damage
/// inside it after it was opened. SQLite reports such damage only when a query reaches the bad
/// page, and reports it again on every run; the mark lets the next opening set the file aside
/// and rebuild, as it does for a damaged header.
enum DamageMark {
    static func path(for databasePath: String) -> String { databasePath + ".damaged" }

    static func set(databasePath: String, reason: String) {
        let fd = path(for: databasePath).withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { return }  // a read-only folder: nothing can be rebuilt there either
        let text = Array(reason.utf8.prefix(500))
        _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// The reason recorded, or nil when the index is not marked.
    static func reason(databasePath: String) -> String? {
        // (Never waits: a named pipe there is no mark, and a read of it would wait for a writer.)
        let fd = path(for: databasePath).withCString { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        var buffer = [UInt8](repeating: 0, count: 500)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
    }

    static func clear(databasePath: String) {
        unlink(path(for: databasePath))
    }
}
