// SPDX-License-Identifier: LGPL-2.1-or-later
import CSQLite
import Synchronization

/// An error from SQLite, with its result code and message.
public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String

    /// The database file is damaged or not a database at all.
    public var isCorruption: Bool {
        let primary = code & 0xff
        return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB
    }
    /// The disk or the file system quota is full.
    public var isDiskFull: Bool { code & 0xff == SQLITE_FULL }
    /// Another connection (another Photopick) held the write lock for longer than we waited.
    public var isBusy: Bool { code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED }
    /// The file or its folder cannot be written.
    public var isReadOnly: Bool {
        let primary = code & 0xff
        return primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN || primary == SQLITE_PERM
    }

    public var description: String { message }
}

/// One SQLite connection. Not thread-safe: each thread or role opens its own, or serialises access
/// (WAL mode lets readers on other connections run while one connection writes).
public final class SQLiteConnection: @unchecked Sendable {
    fileprivate let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// The database file (":memory:" for a private one): damage found in it is marked there.
    private let path: String

    /// A copy of everything in `source`, made here (a private database in memory, usually).
    func copyContents(of source: SQLiteConnection) throws {
        guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else {
            throw DatabaseError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE, finished == SQLITE_OK else {
            throw DatabaseError(code: stepped == SQLITE_DONE ? finished : stepped, message: String(cString: sqlite3_errstr(stepped == SQLITE_DONE ? finished : stepped)))
        }
    }

    /// Opens (and creates, unless `readOnly`) the database at `path`; ":memory:" for a private one.
    /// With `uri`, `path` is a `file:` URI (which may carry options such as `immutable=1`).
    public init(path: String, readOnly: Bool = false, uri: Bool = false) throws {
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
            | (uri ? SQLITE_OPEN_URI : 0)
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw DatabaseError(code: rc, message: message)
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        // Another connection may hold the write lock for a moment (a scan committing): wait, don't fail.
        sqlite3_busy_timeout(db, Self.busyTimeout)
    }

    /// Turns SQLite's memory statistics off for the whole process, before its first connection
    /// (see the shim): no process-wide mutex at each of its allocations, 6 % of a first run's scan
    /// thread. For the photopick program only: in a host that embeds the picker the setting is
    /// the host's (its soft heap limit needs the statistics).
    public static func turnOffMemoryStatisticsForThisProgram() {
        _ = photopick_sqlite_without_memory_statistics()
    }

    /// How long a statement waits for another connection's lock before it fails.
    static let busyTimeout: Int32 = 5000

    func setBusyTimeout(milliseconds: Int32) { sqlite3_busy_timeout(handle, milliseconds) }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
        // The file as this connection leaves it (its last checkpoint written): see IndexSeal.
        if sealsOnClose { IndexSeal.record(databasePath: path) }
    }

    /// Whether closing records the file's seal (connections to the index file, read-write).
    var sealsOnClose = false
    /// Whether every page was checked as it opened (the file was not sealed: IndexSeal).
    var wasCheckedAtOpening = false

    /// Runs one or more statements without results.
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw noted(DatabaseError(code: rc, message: text))
        }
    }

    /// A prepared statement, compiled once per connection and reused.
    public func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        let statement = try SQLiteStatement(connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// A statement that is not cached, for one-off or long-running queries (cursors).
    public func uncachedStatement(_ sql: String) throws -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<R>(_ body: () throws -> R) throws -> R {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    public var changes: Int { Int(sqlite3_changes(handle)) }

    fileprivate func error(_ code: Int32) -> DatabaseError {
        noted(DatabaseError(code: code, message: String(cString: sqlite3_errmsg(handle))))
    }

    /// Damage met in a file once it is open (a bad page deep in a table) is marked beside it, so
    /// the next opening sets the file aside and rebuilds the index instead of meeting it again.
    private func noted(_ error: DatabaseError) -> DatabaseError {
        if error.isCorruption && path != ":memory:" { DamageMark.set(databasePath: path, reason: error.message) }
        return error
    }

    /// Reads one integer, such as `PRAGMA user_version`.
    public func integer(_ sql: String) throws -> Int64? {
        let statement = try self.statement(sql)
        defer { statement.reset() }
        return try statement.step() ? statement.int64(0) : nil
    }
}

/// A prepared statement. Bind with 1-based indices; read columns with 0-based ones.
public final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    fileprivate init(connection: SQLiteConnection, sql: String) throws {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw connection.error(rc) }
        self.handle = statement
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement and clears its bindings; ends the read transaction it held.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    @discardableResult
    public func bind(_ index: Int32, _ value: Int64?) -> Self {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
        return self
    }

    @discardableResult
    public func bind(_ index: Int32, _ value: Int?) -> Self { bind(index, value.map(Int64.init)) }

    @discardableResult
    public func bind(_ index: Int32, _ value: Double?) -> Self {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
        return self
    }

    @discardableResult
    public func bind(_ index: Int32, _ value: String?) -> Self {
        if let value { sqlite3_bind_text(handle, index, value, -1, photopick_sqlite_transient()) }
        else { sqlite3_bind_null(handle, index) }
        return self
    }

    @discardableResult
    public func bind(_ index: Int32, blob value: [UInt8]?) -> Self {
        guard let value else { sqlite3_bind_null(handle, index); return self }
        value.withUnsafeBytes { raw in
            // A zero-length blob must still be a blob, not NULL: pass a non-nil pointer.
            _ = sqlite3_bind_blob(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count),
                                  photopick_sqlite_transient())
        }
        return self
    }

    /// Advances to the next row: true when there is one, false when done.
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(rc)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs a statement that returns no rows.
    public func run() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    public func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    public func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : int(column) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    public func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }

    public func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: text)
    }

    public func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
