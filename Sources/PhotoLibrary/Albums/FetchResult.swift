// SPDX-License-Identifier: LGPL-2.1-or-later
import Dispatch

/// The ordered asset ids of one album, as PHFetchResult is: opening it runs one query, reads the
/// count and the first page of ids, and nothing else. Further ids are read from the same query
/// (one SQLite read transaction, so the snapshot stays consistent with the count) as positions are
/// asked for; asset rows are read separately, by id, on demand. Thread-safe.
public final class FetchResult: @unchecked Sendable {
    public let album: Album
    /// The assets of the album it is limited to.
    public internal(set) var filter = AssetFilter.all
    /// Number of assets in the album, exact for this snapshot.
    public let count: Int

    private let lock = Lock()
    private var ids: [Int64]
    private var cursor: Cursor?

    /// A query in progress, holding its read transaction open until every id is read.
    final class Cursor {
        let connection: SQLiteConnection
        private(set) var statement: SQLiteStatement?
        let release: (SQLiteConnection) -> Void

        init(connection: SQLiteConnection, statement: SQLiteStatement, release: @escaping (SQLiteConnection) -> Void) {
            self.connection = connection
            self.statement = statement
            self.release = release
        }

        /// Ends the read transaction and hands the connection back, with no statement of ours
        /// left on it (another thread may take it at once).
        func close() {
            guard statement != nil else { return }
            statement = nil
            try? connection.execute("COMMIT")
            release(connection)
        }
    }

    static let firstPage = 256

    /// A fetch result over fixed ids (tests of views, memory-only indexes).
    public convenience init(album: Album, ids: [Int64]) {
        self.init(album: album, count: ids.count, firstIDs: ids, cursor: nil)
    }

    init(album: Album, count: Int, firstIDs: [Int64], cursor: Cursor?) {
        self.album = album
        self.count = count
        self.ids = firstIDs
        self.cursor = cursor
        if cursor != nil, firstIDs.count >= count { finishCursor() }
    }

    deinit { cursor?.close() }

    /// The id at `index` (0 ..< count).
    public func id(at index: Int) -> Int64 {
        precondition(index >= 0 && index < count, "index \(index) out of range 0..<\(count)")
        return lock.withLock {
            loadLocked(through: index)
            // The snapshot guarantees `count` ids; fall back defensively if a read failed.
            return index < ids.count ? ids[index] : -1
        }
    }

    /// The ids in `range`, clamped to the album.
    public func ids(in range: Range<Int>) -> [Int64] {
        let clamped = range.clamped(to: 0..<count)
        guard !clamped.isEmpty else { return [] }
        return lock.withLock {
            loadLocked(through: clamped.upperBound - 1)
            return Array(ids[clamped.clamped(to: 0..<ids.count)])
        }
    }

    /// Every id, reading the rest of the query if needed.
    public var allIDs: [Int64] {
        lock.withLock {
            loadLocked(through: count - 1)
            return ids
        }
    }

    /// The position of `id`, reading ids up to it.
    public func index(of id: Int64) -> Int? {
        allIDs.firstIndex(of: id)
    }

    /// Reads the remaining ids on `workers`, so that the read transaction a partly read album
    /// holds (which keeps SQLite from recycling its write-ahead log) ends soon. The window calls
    /// this once the first screen is shown.
    public func loadRemaining(on workers: WorkerPool, after delay: Double = 1) {
        // After a moment: the first frame needs both cores more than this does.
        workers.submit(after: delay) { [weak self] in _ = self?.allIDs }
    }

    /// How many ids are in memory (for tests and benchmarks: laziness is observable).
    public var loadedCount: Int { lock.withLock { ids.count } }

    private func loadLocked(through index: Int) {
        guard index >= ids.count, let cursor, let statement = cursor.statement else { return }
        // Read in chunks ahead of the request, so scrolling does not step the query one id at a time.
        let target = min(count, max(index + 1, ids.count * 2, ids.count + 1024))
        do {
            while ids.count < target, try statement.step() {
                ids.append(statement.int64(0))
            }
        } catch {
            finishCursor()
            return
        }
        if ids.count >= count { finishCursor() }
    }

    private func finishCursor() {
        cursor?.close()
        cursor = nil
    }
}
