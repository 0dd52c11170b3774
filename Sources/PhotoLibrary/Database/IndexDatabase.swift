// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import CGLib
import CSQLite
import Glibc

/// Where the index lives and how it is opened: WAL mode, migrations, and recovery from a damaged
/// file or one written by a newer Photopick (kept aside, never deleted, then rebuilt).
public struct IndexLocation: Sendable {
    /// The database file, or nil for an index kept in memory only.
    public let databasePath: String?

    public init(databasePath: String?) { self.databasePath = databasePath }

    /// `$XDG_DATA_HOME/photopick/index.sqlite` (default `~/.local/share/photopick/`).
    public static var standard: IndexLocation {
        IndexLocation(databasePath: XDGDirectories.dataHome.appending("photopick/index.sqlite").displayString)
    }

    public static var inMemory: IndexLocation { IndexLocation(databasePath: nil) }
}

/// Something the user should know about how the index was opened.
public struct IndexNotice: Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// A damaged index, or one from a newer version, was kept aside and rebuilt.
        case rebuilt
        /// The index could not be written where it belongs and lives in memory for this run.
        case memoryOnly
        /// The kernel's virtual folders inside the library (`--library /`) are not walked.
        case systemFoldersSkipped
        /// The index could be read but not opened for writing (a full disk leaves SQLite no room
        /// for the files it keeps beside it): it is read as it was, and not scanned this run.
        case frozen
    }

    public let kind: Kind
    public let message: String
    public var description: String { message }
}

enum IndexDatabase {
    /// Opens a connection, creating and migrating the database when needed. A damaged database or
    /// one from a newer schema is renamed aside and rebuilt; an unwritable location falls back to a
    /// memory-only index. Each of those is reported through `notices`.
    static func open(_ location: IndexLocation, notices: inout [IndexNotice]) throws -> SQLiteConnection {
        guard let path = location.databasePath else { return try openFresh(":memory:") }
        let directory = FilePath(path).parent
        if let problem = makeDirectories(directory) {
            notices.append(IndexNotice(kind: .memoryOnly, message: "cannot create \(directory): \(problem); the index is kept in memory only"))
            return try openFresh(":memory:")
        }
        // A named pipe (or a socket, a device, a folder) where the index or a file SQLite keeps
        // beside it belongs: SQLite would wait for ever reading it. Nothing there is touched.
        if let stray = strayFile(beside: path) {
            notices.append(IndexNotice(kind: .memoryOnly, message: "\(stray); the index is kept in memory only"))
            return try openFresh(":memory:")
        }
        // One process at a time sets the file up (a new file, a migration, a rebuild).
        let openLock = FileLock(path: path + ".open-lock")
        _ = openLock?.acquire(waiting: {}, isCancelled: { false })
        defer { openLock?.release() }
        return try openHoldingLock(path, notices: &notices)
    }

    /// The first of the index and the files beside it (SQLite's journal, WAL and shared memory,
    /// the damage mark, the lock) that is there and is not a regular file, in words.
    static func strayFile(beside path: String) -> String? {
        for candidate in [path, path + "-wal", path + "-shm", path + "-journal", DamageMark.path(for: path), path + ".open-lock"] {
            var info = stat()
            guard stat(candidate, &info) == 0, info.st_mode & S_IFMT != S_IFREG else { continue }
            return "\(candidate) is not a regular file (\(FileKind(mode: info.st_mode).spoken))"
        }
        return nil
    }

    private static func openHoldingLock(_ path: String, notices: inout [IndexNotice]) throws -> SQLiteConnection {
        // Damage met by an earlier run (or by the check after a scan): rebuilt from the start.
        // (Where the file cannot be moved, the mark stays and the index is used as it is.)
        if let reason = DamageMark.reason(databasePath: path), let aside = try? moveAside(path, reason: "corrupt") {
            DamageMark.clear(databasePath: path)
            let because = reason.isEmpty ? "" : " (\(reason))"
            notices.append(IndexNotice(kind: .rebuilt, message: "the index at \(path) was found damaged\(because); kept it as \(aside) and rebuilt it"))
        }
        do {
            let connection = try SQLiteConnection(path: path)
            try prepare(connection)
            let version = try connection.integer("PRAGMA user_version") ?? 0
            if version < 0 {
                // No Photopick writes that (migrations would start at index -1): damaged, or not ours.
                let aside = try moveAside(path, reason: "corrupt")
                notices.append(IndexNotice(kind: .rebuilt, message: "the index at \(path) has an impossible schema version \(version); kept it as \(aside) and rebuilt it"))
                return try openHoldingLock(path, notices: &notices)
            }
            if version > Schema.currentVersion {
                let aside = try moveAside(path, reason: "newer-schema-v\(version)")
                notices.append(IndexNotice(kind: .rebuilt, message: "the index at \(path) was written by a newer Photopick (schema \(version)); kept it as \(aside) and rebuilt it"))
                return try openHoldingLock(path, notices: &notices)
            }
            try migrate(connection, from: version)
            // Not as a connection of ours left it: every page is checked before it is used.
            if !IndexSeal.isIntact(databasePath: path) {
                let check = try connection.uncachedStatement("PRAGMA quick_check")
                var problems: [String] = []
                while try check.step(), problems.count < 5 {
                    // ("*** in database main ***\nPage 2630: …": one line a problem.)
                    problems += (check.string(0) ?? "").split(separator: "\n").map(String.init).filter { !$0.hasPrefix("***") }
                }
                check.reset()
                if problems != ["ok"] {
                    throw DatabaseError(code: SQLITE_CORRUPT, message: problems.joined(separator: "; "))
                }
                connection.wasCheckedAtOpening = true
            }
            connection.sealsOnClose = true
            return connection
        } catch let error as DatabaseError where error.isCorruption {
            DamageMark.clear(databasePath: path)  // marked by the failed read just now
            IndexSeal.clear(databasePath: path)
            let aside = try moveAside(path, reason: "corrupt")
            notices.append(IndexNotice(kind: .rebuilt, message: "the index at \(path) was damaged (\(error.message)); kept it as \(aside) and rebuilt it"))
            let connection = try SQLiteConnection(path: path)
            try prepare(connection)
            try migrate(connection, from: 0)
            connection.sealsOnClose = true
            return connection
        } catch let error as DatabaseError where error.code & 0xff == SQLITE_IOERR && access(path, R_OK) == 0 {
            // No room for the shared-memory and WAL files SQLite writes beside the index (a full
            // disk): what was committed can still be read, untouched, without them.
            guard let frozen = try? openFrozen(path) else { throw error }
            notices.append(IndexNotice(kind: .frozen, message: "cannot open the index at \(path) for writing (\(error.message)); it is read as it was, without looking for changes"))
            return frozen
        } catch let error as DatabaseError where error.isReadOnly || error.isDiskFull {
            // A read-only folder (a read-only mount, a home shared from elsewhere): the index there
            // is copied into memory, so only what changed since is read; nothing is written.
            if access(path, R_OK) == 0, let copy = try? openMemoryCopy(path) {
                notices.append(IndexNotice(kind: .memoryOnly, message: "cannot write the index at \(path) (\(error.message)); working from a copy of it in memory (changes found in this run are not saved)"))
                return copy
            }
            notices.append(IndexNotice(kind: .memoryOnly, message: "cannot write the index at \(path) (\(error.message)); the index is kept in memory only"))
            return try openFresh(":memory:")
        }
    }

    /// Opens the database read-only as an immutable file: no lock, no WAL or shared-memory
    /// file, nothing written. (Commits still in a WAL file are not seen.)
    static func openFrozen(_ path: String, anyVersion: Bool = false) throws -> SQLiteConnection {
        guard let uri = g_filename_to_uri(path, nil, nil) else { throw DatabaseError(code: SQLITE_CANTOPEN, message: "cannot name \(path) as a URI") }
        defer { g_free(uri) }
        let connection = try SQLiteConnection(path: String(cString: uri) + "?immutable=1", readOnly: true, uri: true)
        guard try anyVersion || connection.integer("PRAGMA user_version") == Schema.currentVersion else {
            throw DatabaseError(code: SQLITE_CANTOPEN, message: "the index at \(path) is of another version")
        }
        try connection.execute("PRAGMA temp_store = MEMORY; PRAGMA cache_size = -\(readerPageCacheKiB)")
        return connection
    }

    /// The database at `path`, read without writing anything there, copied into a private
    /// database in memory that is then migrated and used as any index.
    static func openMemoryCopy(_ path: String) throws -> SQLiteConnection {
        let copy = try SQLiteConnection(path: ":memory:")
        try copy.copyContents(of: try openFrozen(path, anyVersion: true))
        // The backup copies pages without reading them: damage would only show in later queries,
        // and a damaged file cannot be marked or set aside here. Then a fresh index is better.
        let check = try copy.uncachedStatement("PRAGMA quick_check")
        let verdict = try check.step() ? check.string(0) : nil
        check.reset()  // (a statement still running would keep the setup below from changing the database)
        guard verdict == "ok" else {
            throw DatabaseError(code: SQLITE_CORRUPT, message: "the index at \(path) is damaged")
        }
        let version = try copy.integer("PRAGMA user_version") ?? 0
        guard (0...Schema.currentVersion).contains(version) else {
            throw DatabaseError(code: SQLITE_CANTOPEN, message: "the index at \(path) is of another version")
        }
        try prepare(copy)
        try migrate(copy, from: version)
        return copy
    }

    /// Each connection's page cache, in KiB (SQLite's default is 2 MiB a connection). The
    /// window's reader filled its 2 MiB with the index pages of an album of 60,000 photos, pages
    /// the kernel's page cache holds anyway: with 512 KiB a warm open's peak was 1.4 MB lower.
    /// (A first scan's batches take 32 MiB for their time: Indexer.)
    static let pageCacheKiB = 512

    /// A reader's page cache, in KiB: the window's readers walk an album's ids once and read the
    /// rows in sight, pages the kernel's page cache holds anyway (a page read again is a copy from
    /// it). 128 KiB took another 0.5 MB off a warm open of 60,000 photos (12 rounds side by side;
    /// the time unchanged). The writer keeps `pageCacheKiB`: a transaction that dirties more pages
    /// than its cache holds spills them into the WAL while it still holds the write lock.
    static let readerPageCacheKiB = 128

    /// Opens another connection to an existing, migrated database (readers, cursors).
    static func openAdditional(_ path: String) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA foreign_keys = OFF; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -\(readerPageCacheKiB)")
        connection.sealsOnClose = true
        return connection
    }

    private static func openFresh(_ path: String) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path)
        try prepare(connection)
        try migrate(connection, from: 0)
        return connection
    }

    private static func prepare(_ connection: SQLiteConnection) throws {
        // journal_mode is the first read of the file: a damaged header fails here.
        _ = try connection.integer("PRAGMA schema_version")
        try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -\(pageCacheKiB)")
    }

    private static func migrate(_ connection: SQLiteConnection, from version: Int64) throws {
        guard version < Schema.currentVersion else { return }
        // Every step in one transaction: a killed upgrade leaves the old version intact, and a
        // new index writes each page once (a transaction a step wrote the first pages four
        // times, which a nearly full disk could not take).
        try connection.transaction {
            for next in Int(version)..<Schema.migrations.count { try connection.execute(Schema.migrations[next]) }
            try connection.execute("PRAGMA user_version = \(Schema.currentVersion)")
        }
    }

    /// Renames the database (and its WAL and shared-memory files) aside; returns the new name.
    private static func moveAside(_ path: String, reason: String) throws -> String {
        let aside = "\(path).\(reason)-\(time(nil))"
        for suffix in ["", "-wal", "-shm"] {
            if rename(path + suffix, aside + suffix) != 0 && errno != ENOENT && suffix.isEmpty {
                throw DatabaseError(code: SQLITE_CANTOPEN, message: "cannot move \(path) aside: \(errorDescription(errno))")
            }
        }
        return aside
    }

    /// mkdir -p with mode 0700; returns the reason on failure.
    private static func makeDirectories(_ directory: FilePath) -> String? {
        if let refusal = XDGDirectories.refusalToMake(directory) { return refusal }
        var current: [UInt8] = []
        for component in directory.bytes.split(separator: UInt8(ascii: "/")) {
            current += [UInt8(ascii: "/")] + component
            let made = FilePath(bytes: current).withCString { mkdir($0, 0o700) }
            if made != 0 && errno != EEXIST { return errorDescription(errno) }
        }
        var info = stat()
        let result = directory.withCString { stat($0, &info) }
        if result != 0 { return errorDescription(errno) }
        if info.st_mode & S_IFMT != S_IFDIR { return errorDescription(ENOTDIR) }
        return nil
    }
}
