// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// What the index file looked like when Photopick last left it: its size, modification time
/// and inode, kept beside it (`<index>.sealed`) whenever a connection of ours closes. Damage that
/// raises no error (2 KB of random bytes over a page in the middle of the file: a bad sector, a
/// stray write) made `ls` list 58,163 of 58,178 assets, silently; SQLite checks a page only as
/// far as a query needs it. An index that is not as it was left has every page checked
/// (`quick_check`, 0.04 s for 60,000 photos here) before it is used; an index as it was left
/// (every `ls` after the first) costs one stat.
enum IndexSeal {
    static func path(for databasePath: String) -> String { databasePath + ".sealed" }

    private static func identity(of databasePath: String) -> String? {
        var info = stat()
        guard databasePath.withCString({ stat($0, &info) }) == 0 else { return nil }
        return "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(info.st_ino)"
    }

    /// Whether the file is as a connection of ours left it.
    static func isIntact(databasePath: String) -> Bool {
        guard let now = identity(of: databasePath),
              let recorded = ConfigurationFile.read(FilePath(path(for: databasePath)), limit: 256) else { return false }
        return String(decoding: recorded, as: UTF8.self) == now
    }

    /// Records the file as it is now (written aside, then renamed over the seal). A crash leaves
    /// the seal of an earlier moment: the next opening checks the file, as it should.
    static func record(databasePath: String) {
        guard let now = identity(of: databasePath) else { return }
        let seal = path(for: databasePath), temporary = seal + ".new"
        let fd = temporary.withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { return }
        let bytes = Array(now.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        if written == bytes.count { rename(temporary, seal) } else { unlink(temporary) }
    }

    static func clear(databasePath: String) { unlink(path(for: databasePath)) }
}
