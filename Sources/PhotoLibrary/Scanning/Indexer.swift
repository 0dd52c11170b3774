// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// Walks library roots and brings the database in line with the disk, incrementally: a file whose
/// size, mtime and inode are unchanged is not opened again. Work is committed in batches, so a scan
/// killed at any point leaves a consistent database and the next scan finishes the job.
/// Runs on whatever thread calls it; the caller serialises scans (one writer).
final class Indexer {
    let database: SQLiteConnection
    /// A batch is committed after this many writes or seconds. The first pass of a scan (which no
    /// grid shows while it runs) uses larger batches: every row touches a page of each index in
    /// date order, and a commit writes each touched page again, so small batches wrote the index
    /// several times over.
    var batchFiles: Int { batchFilesForTesting ?? (readDatesOnly ? 8000 : 400) }
    var batchFilesForTesting: Int?
    var batchSeconds: Double { readDatesOnly ? 3 : 0.5 }

    var inTransaction = false
    var pendingWrites = 0
    var batchStarted = 0.0
    var pending = LibraryChange()
    var progress = ScanProgress()
    var started = 0.0
    var lastReport = 0.0
    /// The remote roots whose servers stopped answering in the last scan or rescan, with why.
    var unreachableRoots: [FilePath: String] = [:]
    /// The first pass of `scan`: new files are dated, not read in full.
    var readDatesOnly = false
    /// The first pass of a first scan: the index held no asset when it began. The triggers that
    /// keep the album counts are set aside then, and the scan keeps the counts itself: rows added
    /// by album bits and folder, written with each batch (`countChanges`).
    var intoEmptyIndex = false
    var countChanges = AlbumCountChanges()
    /// Run once the dates are known (the first screen is final): what a first scan put off.
    var completingDates: (() throws -> Void)?
    /// A first run's remote files, listed and not read yet (`readRemoteFirstRun`).
    var remoteFirstRun: RemoteFirstRun?
    /// The newest capture dates a first run wrote (photos in Recents), for `readRemoteFirstRun`.
    var firstScreenDates = NewestDates(capacity: Indexer.firstScreenRows)
    /// The page cache was enlarged for this scan's writes (set back when it ends).
    var largeCache = false
    /// `write`'s statements, found once: the connection's cache finds a statement by hashing its
    /// whole text, 600 bytes for each file written (3 % of a first run's scan thread, perf).
    var assetWrites: (insert: SQLiteStatement, update: SQLiteStatement)?
    /// How many of the newest partial rows are read in full before the dates count as known: more
    /// than a first screen holds at the smallest cell size.
    static let firstScreenRows = 240

    /// Called after each commit with what it changed (on the scanning thread).
    var onCommit: ((LibraryChange) -> Void)?
    /// Called with progress a few times a second and once at the end (on the scanning thread).
    var onProgress: ((ScanProgress) -> Void)?
    /// Called once on a first scan, as soon as every file is dated: the newest of Recents.
    var onNewestInRecents: (([FilePath]) -> Void)?
    /// Asked between files: true stops the scan (`ScanError.cancelled`) after committing what it read.
    var isCancelled: (() -> Bool)?
    /// The kernel's virtual file systems, which a walk does not enter (tests give their own).
    var systemMounts = SystemMounts.current
    /// Where the headers of photos and videos are parsed: sandboxed worker processes when this
    /// is `photopick`, this process otherwise (tests give their own workers).
    var metadataWorkers = MetadataWorkers.ofThisProgram
    /// Those the second pass uses behind the first screen (a lower priority, as `detailReaders`).
    var backgroundMetadataWorkers = MetadataWorkers.inBackgroundOfThisProgram
    /// What the readers in this process are reading, for the start after a crash (nil: none kept).
    var journal: CrashJournal?

    /// Threads that read files for the scan (one per core), ahead of its writes.
    let readers = WorkerPool(name: "index-readers", threads: WorkerPool.processorCount, onDemand: true)
    /// The second pass's readers run at a lower priority: by then the grid is shown, and the
    /// thumbnails the person waits for come first.
    let detailReaders = WorkerPool(name: "index-details", threads: WorkerPool.processorCount, background: true, onDemand: true)
    /// Threads that read a remote folder's files: their time goes to round trips (opening a file
    /// over gvfs and SFTP, then its first blocks, one exchange each), so several are in flight;
    /// at a lower priority than local roots (300 generated files over loopback SFTP: 2.29 s with the
    /// two local readers, 1.87 s with these).
    lazy var remoteReaders = WorkerPool(name: "index-remote", threads: 8, background: true, onDemand: true)
    /// Writes what the scan does once the first screen is final, at the same lower priority (the
    /// scanning thread waits meanwhile: one writer at a time, as SQLite has it).
    let backgroundWriter = WorkerPool(name: "index-writer", threads: 1, background: true, onDemand: true)

    init(database: SQLiteConnection) {
        self.database = database
    }

    struct Root {
        let id: Int64
        let path: FilePath
    }

    /// Marks to be read again (a size no file has; its folder listed again) every row whose file
    /// holds a date refused for being ahead of the clock that the clock has now passed: a first
    /// index made while the clock was a year behind gets that year's dates once it is set right.
    func readAgainWhatTheClockPassed() throws {
        let passed = Plausible.currentMilliseconds() + Plausible.captureLeadMilliseconds
        let count = try database.statement("SELECT count(*) FROM assets WHERE refused_date_ms IS NOT NULL AND refused_date_ms <= ?1")
        count.bind(1, passed)
        _ = try count.step()
        let rows = count.int64(0)
        count.reset()
        guard rows > 0 else { return }
        try beginIfNeeded()
        try database.statement("""
            UPDATE folders SET listed_mtime_ns = NULL WHERE id IN
                (SELECT folder_id FROM assets WHERE refused_date_ms IS NOT NULL AND refused_date_ms <= ?1)
            """).bind(1, passed).run()
        try database.statement("UPDATE assets SET size = -1 WHERE refused_date_ms IS NOT NULL AND refused_date_ms <= ?1").bind(1, passed).run()
        try commit()
    }

    /// Registers the roots and returns their ids. The index forgets what it holds of any other
    /// root: a folder no longer among the default folders (the XDG Pictures folder moved
    /// elsewhere) leaves the library.
    func register(roots: [FilePath]) throws -> [Root] {
        try forgetRoots(otherThan: roots)
        return try roots.map { path in
            let statement = try database.statement(
                "INSERT INTO roots(path) VALUES (?1) ON CONFLICT(path) DO UPDATE SET path = excluded.path RETURNING id")
            statement.bind(1, blob: path.bytes)
            defer { statement.reset() }
            _ = try statement.step()
            return Root(id: statement.int64(0), path: path)
        }
    }

    /// Scans every folder below the roots (`scope` says whether every file is checked, or only the
    /// folders whose listing changed). Returns everything the scan changed.
    ///
    /// Two passes. The first lists every folder and dates every new or changed file, most of them
    /// from a few kilobytes of EXIF (`MetadataReader.readDate`): then the order of every album by
    /// date is final. The second reads those files in full, newest first, and updates their rows
    /// in place (same ids, same places). `progress.datesKnown` turns true once the first pass and
    /// the newest files' full reads are committed: what a first screen shows will not change.
    /// (A first run's files on another machine are read once, newest first, and only until the
    /// first screen is final: the rest with the second pass, see `readRemoteFirstRun`.)
    func scan(roots: [Root], scope: ScanScope) throws -> LibraryChange {
        try run {
            let buildsDateIndexesAfter = try prepareDateOrderIndexes()
            readDatesOnly = true
            intoEmptyIndex = buildsDateIndexesAfter
            firstScreenDates.removeAll()
            defer { readDatesOnly = false; intoEmptyIndex = false; remoteFirstRun = nil }
            try readAgainWhatTheClockPassed()
            try walk(roots: roots, scope: scope)
            try readRemoteFirstRun(untilFirstScreenIsFinal: true)
            readDatesOnly = false
            intoEmptyIndex = false
            var firstBatch: PartialRows?
            if buildsDateIndexesAfter {
                // The newest files' full reads start now, on the readers, while this thread
                // restores the counts and builds the indexes.
                firstBatch = try readPartialRows(newest: Self.firstScreenRows, on: readers)
                try reportNewestInRecents()
                try restoreAlbumCounts(recounting: countChanges.isApproximate)
                // Recents' first, for the first screen; the others once it is shown (each index
                // is a pass over the whole table: 0.2 s for all of them at 60,000 files).
                try buildDateOrderIndexes(only: Self.firstScreenIndexes)
                completingDates = { [unowned self] in try buildDateOrderIndexes() }
            }
            defer { completingDates = nil }
            // (Only local files are read in two passes: a remote file is read once, in full.)
            try completePartialRows(firstBatch: firstBatch)
        }
    }

    /// Tells which files the first screen of Recents will show, while their rows are still read
    /// in full: their thumbnails can be made meanwhile (a sort of the table: 10-20 ms at 60,000).
    func reportNewestInRecents() throws {
        guard let onNewestInRecents else { return }
        let select = try database.statement("""
            SELECT path FROM assets WHERE (album_bits & 1) != 0 ORDER BY captured_at DESC, id DESC LIMIT ?1
            """)
        defer { select.reset() }
        select.bind(1, Self.firstScreenRows)
        var paths: [FilePath] = []
        while try select.step() { paths.append(FilePath(bytes: select.blob(0))) }
        onNewestInRecents(paths)
    }

    /// The index a first screen needs: Recents'. The partial rows' comes with the others, before
    /// the rows behind the first screen are read in full (the first screen's own were selected
    /// before any index was built): at 60,000 files each index took 35-40 ms of the first run
    /// before the window could show anything (trace, 2026-12-06).
    static let firstScreenIndexes: Set<String> = ["album_recents"]

    /// Into an empty index (a first run) the first pass inserts the whole library: the indexes in
    /// date order and the triggers that keep the album counts are dropped for it; once it ends the
    /// albums are counted in one pass and the indexes built in one sorted pass each (60,000 rows:
    /// 0.2 s, against 1.3 s for the indexes and about as much for the triggers row by row).
    /// Nothing shows an album until then (the window waits for the dates). Returns whether they
    /// were dropped. Meanwhile the scan keeps the counts itself, a batch at a time. A scan killed
    /// in between leaves them missing; the next scan recounts and restores them first. Until then
    /// queries are still right, only slower.
    func prepareDateOrderIndexes() throws -> Bool {
        let indexes = try countInSchema("index", Schema.dateOrderIndexes.map(\.name))
        let triggers = try countInSchema("trigger", Schema.countTriggers.map(\.name))
        if try database.integer("SELECT NOT EXISTS (SELECT 1 FROM assets)") == 1 {
            guard indexes > 0 || triggers > 0 else { return true }
            try beginIfNeeded()
            for index in Schema.dateOrderIndexes { try database.execute("DROP INDEX IF EXISTS \(index.name)") }
            for trigger in Schema.countTriggers { try database.execute("DROP TRIGGER IF EXISTS \(trigger.name)") }
            try commit()
            return true
        }
        if triggers < Schema.countTriggers.count { try restoreAlbumCounts(recounting: true) }
        if indexes < Schema.dateOrderIndexes.count { try buildDateOrderIndexes() }
        return false
    }

    private func countInSchema(_ type: String, _ names: [String]) throws -> Int64 {
        let list = names.map { "'\($0)'" }.joined(separator: ", ")
        return try database.integer("SELECT count(*) FROM sqlite_master WHERE type = '\(type)' AND name IN (\(list))") ?? 0
    }

    /// Puts the triggers that keep the album counts back, counting the albums from the rows first
    /// when the counts kept meanwhile may be off (a scan killed in its first pass kept them only
    /// up to its last batch).
    func restoreAlbumCounts(recounting: Bool) throws {
        try commit()
        try beginIfNeeded()
        if recounting { try Schema.recount(database) }
        for trigger in Schema.countTriggers { try database.execute(trigger.create) }
        try commit()
        countChanges = AlbumCountChanges()
    }

    func buildDateOrderIndexes(only names: Set<String>? = nil) throws {
        try commit()
        try beginIfNeeded()
        for index in Schema.dateOrderIndexes where names?.contains(index.name) ?? true { try database.execute(index.create) }
        try commit()
    }

    /// Re-reads the given folders (their files, and any subfolder that is new or gone). Used when
    /// the file monitor reports changes.
    func rescan(folders: [FilePath], roots: [Root]) throws -> LibraryChange {
        try run {
            unreachableRoots = [:]
            for folder in folders {
                guard let root = roots.filter({ folder == $0.path || folder.relative(to: $0.path) != nil })
                        .max(by: { $0.path.bytes.count < $1.path.bytes.count }),
                      !FolderRules.isHidden(folder, below: root.path) else { continue }
                do {
                    try walk(from: folder, root: root, recursive: false, scope: .everyFile)
                } catch let error as RootUnreachable {
                    try commit()
                    unreachableRoots[root.path] = error.reason
                }
            }
        }
    }

    func run(_ body: () throws -> Void) throws -> LibraryChange {
        progress = ScanProgress()
        started = monotonicSeconds()
        var total = LibraryChange()
        let previous = onCommit
        onCommit = { change in
            total.merge(change)
            previous?(change)
        }
        defer {
            onCommit = previous
            if largeCache, (try? database.execute("PRAGMA cache_size = -\(IndexDatabase.pageCacheKiB)")) != nil { largeCache = false }
        }
        do {
            try body()
            try commit()
        } catch ScanError.cancelled {
            // What was read is committed already (pairs relinked): keep it for the next scan.
            throw ScanError.cancelled
        } catch let error as DatabaseError {
            rollback()
            throw error.isDiskFull ? ScanError.diskFull(error.message) : ScanError.database(error)
        } catch {
            rollback()
            throw error
        }
        progress.finishedListing = true
        progress.finished = true
        progress.elapsedSeconds = monotonicSeconds() - started
        onProgress?(progress)
        return total
    }

    // MARK: Transactions and progress

    func beginIfNeeded() throws {
        guard !inTransaction else { return }
        if readDatesOnly && !largeCache {
            // A first pass that writes: a 32 MiB page cache (IndexDatabase.pageCacheKiB otherwise), because a
            // batch touches pages all over the date indexes, and pages that do not fit are written
            // out before the commit and again in it. Only then: a scan that writes nothing would
            // just fill the larger cache with pages it reads once (more memory, more page faults).
            try database.execute("PRAGMA cache_size = -32768")
            largeCache = true
        }
        try database.execute("BEGIN IMMEDIATE")
        inTransaction = true
        batchStarted = monotonicSeconds()
    }

    var isBatchDue: Bool {
        inTransaction && (pendingWrites >= batchFiles || monotonicSeconds() - batchStarted >= batchSeconds)
    }

    func commitIfDue() throws {
        if isBatchDue { try commit() }
    }

    func commit() throws {
        guard inTransaction else { return }
        if !countChanges.isEmpty {
            try countChanges.write(to: database)
            countChanges.clear()
        }
        try database.execute("COMMIT")
        inTransaction = false
        pendingWrites = 0
        let change = pending
        pending = LibraryChange()
        if !change.isEmpty { onCommit?(change) }
    }

    func rollback() {
        countChanges.clear()
        if inTransaction { try? database.execute("ROLLBACK") }
        inTransaction = false
        pendingWrites = 0
        pending = LibraryChange()
    }

    func reportProgressIfDue() {
        let now = monotonicSeconds()
        guard let onProgress, now - lastReport >= 0.2 else { return }
        lastReport = now
        progress.elapsedSeconds = now - started
        onProgress(progress)
    }
}

enum FolderRules {
    /// The byte range holding every path strictly below `folder`: ("folder/", "folder0"), since
    /// "0" is the byte after "/".
    static func descendantRange(of folder: FilePath) -> (low: [UInt8], high: [UInt8]) {
        let base = folder.bytes.last == UInt8(ascii: "/") ? Array(folder.bytes.dropLast()) : folder.bytes
        return (base + [UInt8(ascii: "/")], base + [UInt8(ascii: "0")])
    }

    /// Whether any component of `path` below `root` is hidden.
    static func isHidden(_ path: FilePath, below root: FilePath) -> Bool {
        guard let relative = path.relative(to: root) else { return false }
        return relative.split(separator: UInt8(ascii: "/")).contains { $0.first == UInt8(ascii: ".") }
    }
}

/// Album counts kept by the scan itself while the triggers are set aside: how many rows each set
/// of album bits and each folder gained, written with the batch that added them.
struct AlbumCountChanges {
    private var byBits: [Int64: Int64] = [:]
    private var byFolder: [Int64: Int64] = [:]
    /// A row was changed or removed without its old bits known: a recount is due at the end.
    private(set) var isApproximate = false

    var isEmpty: Bool { byBits.isEmpty && byFolder.isEmpty }

    mutating func add(bits: Int64, folderID: Int64, count: Int64 = 1) {
        guard bits != 0 else { return }
        byBits[bits, default: 0] += count
        if bits & SmartAlbum.recents.bit != 0 { byFolder[folderID, default: 0] += count }
    }

    mutating func change(bits old: Int64, to new: Int64, folderID: Int64) {
        add(bits: old, folderID: folderID, count: -1)
        add(bits: new, folderID: folderID)
    }

    mutating func markApproximate() { isApproximate = true }

    mutating func clear() {
        byBits.removeAll()
        byFolder.removeAll()
    }

    func write(to database: SQLiteConnection) throws {
        let smart = try database.statement("UPDATE smart_album_counts SET count = count + ?1 WHERE bit = ?2")
        for album in SmartAlbum.allCases {
            let delta = byBits.filter { $0.key & album.bit != 0 }.reduce(0) { $0 + $1.value }
            guard delta != 0 else { continue }
            smart.bind(1, delta).bind(2, album.bit)
            try smart.run()
        }
        let folders = try database.statement("UPDATE folders SET asset_count = asset_count + ?1 WHERE id = ?2")
        for (folderID, delta) in byFolder where delta != 0 {
            folders.bind(1, delta).bind(2, folderID)
            try folders.run()
        }
    }
}
