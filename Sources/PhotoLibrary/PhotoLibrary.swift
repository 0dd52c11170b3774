// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// A photo library: roots on disk, their index, albums and fetch results. Library code only, no
/// GTK: the picker window and the command line both stand on it.
///
/// Threads: `scan` and `rescan` run on the caller's thread (a worker, never the GTK thread) and
/// are serialised; reads (`albums`, `fetchAssets`, `asset`) may run on any thread meanwhile.
public final class PhotoLibrary: @unchecked Sendable {
    public let roots: [FilePath]
    /// The folders it was opened for, normalised, present or not (`roots` leaves out a missing
    /// default folder that never held a photo).
    private let configuredRoots: [FilePath]
    public let location: IndexLocation
    /// Things the user should know about how the index was opened (recovered, memory-only).
    public private(set) var notices: [IndexNotice] = []
    /// Read as it was, not written (no room beside it for SQLite's files): scans throw
    /// `ScanError.diskFull`, and what was committed is listed.
    public let isFrozen: Bool

    private let writeLock: Lock
    /// Held for a whole scan, against other processes' scans of the same index (nil in memory).
    private let scanLock: FileLock?
    /// Scans and rescans under way on this thread (the write lock is recursive): the scan lock is
    /// taken by the outermost and released by it.
    private var scanDepth = 0
    private let writer: SQLiteConnection
    let indexer: Indexer
    private let readLock: Lock
    private let reader: SQLiteConnection
    private let poolLock = Lock()
    private var idleConnections: [SQLiteConnection] = []
    private let cache = AssetCache(capacity: 4096)
    private let unreachableLock = Lock()
    private var unreachableStore: [FilePath: String] = [:]

    /// Opens the index for `roots` (absolute paths). Each distinct set of roots has its own
    /// database file, so `--library DIR` runs never disturb the index of the Pictures folder.
    public convenience init(roots: [FilePath], location: IndexLocation = .standard) throws {
        try self.init(roots: roots, location: location, ofDefaultFolders: false)
    }

    /// Opens the library of the default folders (`LibraryFolders.defaults`: Pictures, Videos and
    /// those added from the picker), what every picker shows when no folder is named. It has one
    /// index whichever of them are there: a folder added is read alone, and one that is missing
    /// (a disk not plugged in) stays in it and in `roots`, its photos offline
    /// (`unreachableRoots`) until it is back. One that never held a photo here is left out.
    /// (Issue 37: the index was named by the folders present, so a missing disk started another
    /// library, read from nothing, and its picks were lost.)
    public convenience init(defaultFoldersAt location: IndexLocation = .standard) throws {
        try self.init(roots: LibraryFolders.defaults, location: location, ofDefaultFolders: true)
    }

    private init(roots: [FilePath], location: IndexLocation, ofDefaultFolders: Bool) throws {
        let configured = PhotoLibrary.normalise(roots)
        configuredRoots = configured
        var notices: [IndexNotice] = []
        var resolved = location
        if let path = location.databasePath, path.hasSuffix(".sqlite") {
            let base = String(path.dropLast(7))
            resolved = IndexLocation(databasePath: base + "-" + (ofDefaultFolders ? Self.defaultFoldersKey : PhotoLibrary.key(for: configured)) + ".sqlite")
            if ofDefaultFolders {
                Self.adoptIndexOfPresentFolders(base: base, as: resolved.databasePath!, configured: configured)
            }
        }
        writer = try IndexDatabase.open(resolved, notices: &notices)
        if ofDefaultFolders {
            let known = (try? Self.rootsWithFolders(writer)) ?? []
            let shown = configured.filter { $0.mayHoldALibrary || known.contains($0) }
            // (None at all: the first, missing, is the window's "No Pictures Folder".)
            self.roots = shown.isEmpty ? Array(configured.prefix(1)) : shown
        } else {
            self.roots = configured
        }
        let memoryOnly = notices.contains { $0.kind == .memoryOnly } || resolved.databasePath == nil
        let frozen = notices.contains { $0.kind == .frozen }
        isFrozen = frozen
        self.location = memoryOnly ? .inMemory : resolved
        // A memory-only index has one connection: reads and scans then share one (recursive) lock,
        // so a read waits for a scan to finish instead of racing it on the same connection.
        reader = memoryOnly || frozen ? writer : try IndexDatabase.openAdditional(resolved.databasePath!)
        writeLock = Lock(recursive: true)
        scanLock = memoryOnly || frozen ? nil : resolved.databasePath.flatMap { FileLock(path: $0 + ".scan-lock") }
        readLock = memoryOnly || frozen ? writeLock : Lock()
        indexer = Indexer(database: writer)
        if !memoryOnly, !frozen, let path = resolved.databasePath {
            let journal = CrashJournal.shared(indexPath: path)
            journal.gatherCrashes()
            indexer.journal = journal
        }
        self.notices = notices
        noteSystemFolders(SystemMounts.current)
    }

    /// Where scans parse the headers of photos and videos: `MetadataWorkers.ofThisProgram` by
    /// default (nil in a test process: in process). Set before a scan.
    public var metadataWorkers: MetadataWorkers? {
        get { indexer.metadataWorkers }
        set {
            indexer.metadataWorkers = newValue
            indexer.backgroundMetadataWorkers = newValue
        }
    }

    /// Says once which of the kernel's folders (/proc, /sys …) inside the roots are left out.
    func noteSystemFolders(_ mounts: SystemMounts) {
        indexer.systemMounts = mounts
        notices.removeAll { $0.kind == .systemFoldersSkipped }
        let skipped = roots.flatMap { mounts.virtual(inside: $0) }
        guard !skipped.isEmpty else { return }
        let names = skipped.prefix(4).map(\.displayString).joined(separator: ", ") + (skipped.count > 4 ? " and \(skipped.count - 4) more" : "")
        notices.append(IndexNotice(kind: .systemFoldersSkipped, message: "\(names): system folders, not photos; left out"))
    }

    // MARK: Scanning

    /// Brings the index in line with the disk. `progress` is called on this thread a few times a
    /// second; `committed` after each batch with what it changed (for a grid that fills as it goes).
    /// `isCancelled` is asked between files: when it says true, what was read is committed and the
    /// scan throws `ScanError.cancelled`.
    ///
    /// While another process scans the same index, the scan waits for it (`waiting` is told once)
    /// or, with `whenBusy: .giveUp`, throws `ScanError.busy` at once.
    @discardableResult
    public func scan(_ scope: ScanScope = .everyFile, progress: ((ScanProgress) -> Void)? = nil,
                     committed: ((LibraryChange) -> Void)? = nil,
                     isCancelled: (() -> Bool)? = nil,
                     whenBusy: WhenIndexBusy = .wait, waiting: (() -> Void)? = nil,
                     newestInRecents: (([FilePath]) -> Void)? = nil) throws -> LibraryChange {
        try writeLock.withLock {
            try holdingScanLock(whenBusy: whenBusy, waiting: waiting, isCancelled: isCancelled) {
                indexer.onNewestInRecents = newestInRecents
                defer { indexer.onNewestInRecents = nil }
                return try runScan(scope, progress: progress, committed: committed, isCancelled: isCancelled)
            }
        }
    }

    private func runScan(_ scope: ScanScope, progress: ((ScanProgress) -> Void)?, committed: ((LibraryChange) -> Void)?,
                         isCancelled: (() -> Bool)?) throws -> LibraryChange {
        indexer.onProgress = progress
        indexer.isCancelled = isCancelled
        indexer.onCommit = { [cache] change in
            cache.remove(change.touched)
            committed?(change)
        }
        defer { indexer.onProgress = nil; indexer.onCommit = nil; indexer.isCancelled = nil }
        let registered = try indexer.register(roots: roots)
        defer { unreachable = indexer.unreachableRoots }
        return try indexer.scan(roots: registered, scope: scope)
    }

    /// The remote roots whose servers did not answer in the last scan, with the reason: their
    /// photos stay in the index as they were (offline), and the next scan tries again.
    public var unreachableRoots: [FilePath: String] { unreachableLock.withLock { unreachableStore } }
    private var unreachable: [FilePath: String] {
        get { unreachableLock.withLock { unreachableStore } }
        set { unreachableLock.withLock { unreachableStore = newValue } }
    }

    /// Removes the index's files when it holds no folder and no photo and no other process is
    /// scanning it: a window that ended before it showed (its folder on another machine was no
    /// folder) leaves no index of a library that never was. Call it once no scan of this
    /// library runs. Returns whether they were removed.
    @discardableResult
    public func removeIndexIfEmpty() -> Bool {
        guard let path = location.databasePath else { return false }
        return (try? holdingScanLock(whenBusy: .giveUp, waiting: nil, isCancelled: nil) { () -> Bool in
            let empty = try readLock.withLock {
                try reader.integer("SELECT NOT EXISTS (SELECT 1 FROM assets) AND NOT EXISTS (SELECT 1 FROM folders)")
            }
            guard empty == 1 else { return false }
            // (The scan lock's file last: it is held until then.)
            for suffix in ["-wal", "-shm", ".open-lock", "", ".scan-lock"] { _ = unlink(path + suffix) }
            return true
        }) ?? false
    }

    /// Whether opening checked every page of the index (it was not sealed: `sealIfIdle`).
    public var indexWasCheckedAtOpening: Bool { writer.wasCheckedAtOpening }

    /// Seals the index file as it is now (`IndexSeal`), its log written into it, so that its next
    /// opening need not check every page, when nothing writes it now (no scan here or in another
    /// process). The window's process ends without releasing its library (a reader may be waiting
    /// on a server that stopped answering), so the connection's close never sealed the file: every
    /// start after a checkpoint checked all of it, 59 ms of a warm start at 60,000 photos.
    /// Returns whether the whole log went into the file.
    @discardableResult
    public func sealIfIdle() -> Bool {
        guard let path = location.databasePath, writer.sealsOnClose else { return false }
        return writeLock.withLockIfFree { () -> Bool in
            guard scanDepth == 0, scanLock?.tryAcquire() ?? true else { return false }
            defer { scanLock?.release() }
            // (A reader in the middle of a query makes the checkpoint busy, rather than the
            // window's end waiting for it.)
            writer.setBusyTimeout(milliseconds: 100)
            defer { writer.setBusyTimeout(milliseconds: SQLiteConnection.busyTimeout) }
            guard let checkpoint = try? writer.uncachedStatement("PRAGMA wal_checkpoint(TRUNCATE)"),
                  (try? checkpoint.step()) == true else { return false }
            let busy = checkpoint.int(0) != 0
            checkpoint.reset()
            // Sealed busy or not: a checkpoint that met a reader has still written what it could
            // of the log into the file. Unsealed, the next start checked every page of a file
            // only we had written (a warm window closed at its first frame: 1 start in 10 at
            // 60,000 photos paid 35-50 ms for it, and each start after it until a close found
            // no reader).
            IndexSeal.record(databasePath: path)
            return !busy
        } ?? false
    }

    /// Runs `body` holding the scan lock (taken by the outermost scan of this thread).
    private func holdingScanLock<R>(whenBusy: WhenIndexBusy, waiting: (() -> Void)?, isCancelled: (() -> Bool)?,
                                    _ body: () throws -> R) throws -> R {
        if isFrozen { throw ScanError.diskFull(location.databasePath ?? "") }
        if scanDepth == 0, let scanLock {
            let acquired = whenBusy == .giveUp
                ? scanLock.tryAcquire()
                : scanLock.acquire(waiting: { waiting?() }, isCancelled: { isCancelled?() ?? false })
            guard acquired else { throw whenBusy == .giveUp ? ScanError.busy : ScanError.cancelled }
        }
        scanDepth += 1
        defer {
            scanDepth -= 1
            if scanDepth == 0 { scanLock?.release() }
        }
        return try body()
    }

    /// Re-reads the given folders only (what a file monitor reported).
    @discardableResult
    public func rescan(folders: [FilePath]) throws -> LibraryChange {
        try writeLock.withLock {
            try holdingScanLock(whenBusy: .wait, waiting: nil, isCancelled: nil) {
                indexer.onCommit = { [cache] change in cache.remove(change.touched) }
                defer { indexer.onCommit = nil }
                let registered = try indexer.register(roots: roots)
                return try indexer.rescan(folders: folders, roots: registered)
            }
        }
    }

    /// Checks the whole index file (SQLite's quick_check: every page, a fraction of a second for
    /// 60,000 photos). Damage inside a table can make a query return fewer rows without an
    /// error; found here, it is marked, and the next opening rebuilds the index. Returns what
    /// SQLite found, nil when the index is whole (or kept in memory).
    public func damageFound() throws -> String? {
        guard let path = location.databasePath else { return nil }
        return try writeLock.withLock {
            let statement = try writer.uncachedStatement("PRAGMA quick_check")
            var problems: [String] = []
            while try statement.step(), problems.count < 5 { problems.append(statement.string(0) ?? "") }
            guard problems != ["ok"] else { return nil }
            let reason = problems.joined(separator: "; ")
            DamageMark.set(databasePath: path, reason: reason)
            return reason
        }
    }

    /// Files below the roots, counted without reading them: the total for a first scan's progress.
    public func countFiles() -> Int {
        roots.reduce(0) { $0 + DirectoryListing.countFiles(under: $1) }
    }

    /// Files the index knows, media or not: the expected total of a rescan.
    public var knownFileCount: Int {
        Int((try? withReader { try $0.integer("SELECT count(*) FROM assets") }) ?? 0)
    }

    /// Whether a scan has ever stored anything for these roots (a first run shows progress).
    public var isEmpty: Bool {
        (try? withReader { try $0.integer("SELECT EXISTS(SELECT 1 FROM folders)") }) == 0
    }

    // MARK: Assets

    /// The asset with `id`, from a small cache in front of the database.
    public func asset(id: Int64) throws -> Asset? {
        if let cached = cache.asset(id) { return cached }
        let asset = try withReader { db -> Asset? in
            let statement = try db.statement("SELECT \(Asset.columns) FROM assets WHERE id = ?1")
            statement.bind(1, id)
            defer { statement.reset() }
            return try statement.step() ? Asset(row: statement) : nil
        }
        if let asset { cache.insert(asset) }
        return asset
    }

    /// The asset stored for the file at `path`, if it is indexed.
    public func asset(path: FilePath) throws -> Asset? {
        try withReader { db -> Asset? in
            let statement = try db.statement("SELECT \(Asset.columns) FROM assets WHERE path = ?1")
            statement.bind(1, blob: path.bytes)
            defer { statement.reset() }
            return try statement.step() ? Asset(row: statement) : nil
        }
    }

    /// Whether `path` is inside one of the roots (a folder below it is indexed).
    public func contains(_ path: FilePath) -> Bool {
        roots.contains { root in path.bytes.starts(with: root.bytes + [UInt8(ascii: "/")]) || path == root }
    }

    /// Assets for ids, in the same order (ids that vanished are left out). One query per call.
    public func assets(ids: [Int64]) throws -> [Asset] {
        var found: [Int64: Asset] = [:]
        var missing: [Int64] = []
        for id in ids {
            if let cached = cache.asset(id) { found[id] = cached } else { missing.append(id) }
        }
        try read(missing) { found[$0.id] = $0 }
        return ids.compactMap { found[$0] }
    }

    /// Reads into memory the rows of `ids` it does not hold yet, for the cells bound next
    /// (`asset(_:)` then finds them without a query). What is held already costs one lookup: a
    /// scroll step asks for 40 rows of cells, 360 ids, most of them held (copying each held row
    /// out, as `assets(ids:)` does, took 0.5 ms of every frame while scrolling).
    public func readAhead(ids: [Int64]) throws {
        try read(cache.missing(from: ids)) { _ in }
    }

    /// Reads the rows of `ids` into the cache, 500 a query.
    private func read(_ ids: [Int64], _ each: (Asset) -> Void) throws {
        guard !ids.isEmpty else { return }
        try withReader { db in
            for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
                let list = chunk.map(String.init).joined(separator: ",")
                let statement = try db.uncachedStatement("SELECT \(Asset.columns) FROM assets WHERE id IN (\(list))")
                while try statement.step() {
                    let asset = Asset(row: statement)
                    each(asset)
                    cache.insert(asset)
                }
            }
        }
    }

    /// Files and folders that could not be read, with the reason, by path.
    public func problems() throws -> [IndexProblem] {
        try withReader { db in
            var result: [IndexProblem] = []
            let files = try db.statement("SELECT path, error FROM assets WHERE error IS NOT NULL")
            while try files.step() {
                result.append(IndexProblem(path: FilePath(bytes: files.blob(0)), reason: files.string(1) ?? "", isFolder: false))
            }
            files.reset()
            let folders = try db.statement("SELECT path, error FROM folders WHERE error IS NOT NULL")
            while try folders.step() {
                result.append(IndexProblem(path: FilePath(bytes: folders.blob(0)), reason: folders.string(1) ?? "", isFolder: true))
            }
            folders.reset()
            return result.sorted { $0.path < $1.path }
        }
    }

    // MARK: Connections

    func withWriter<R>(_ body: (SQLiteConnection) throws -> R) throws -> R {
        try writeLock.withLock { try body(writer) }
    }

    func withReader<R>(_ body: (SQLiteConnection) throws -> R) throws -> R {
        try readLock.withLock { try body(reader) }
    }

    func checkoutConnection() throws -> SQLiteConnection {
        if let idle = poolLock.withLock({ idleConnections.popLast() }) { return idle }
        return isFrozen ? try IndexDatabase.openFrozen(location.databasePath!) : try IndexDatabase.openAdditional(location.databasePath!)
    }

    func checkin(_ connection: SQLiteConnection) {
        poolLock.withLock { if idleConnections.count < 4 { idleConnections.append(connection) } }
    }

    // MARK: Roots

    /// Absolute, without duplicates, and without roots inside another root.
    static func normalise(_ roots: [FilePath]) -> [FilePath] {
        var result: [FilePath] = []
        for root in roots.map({ $0.isLocationURI ? RemoteFiles.canonical($0) : $0.absolute() }) where !result.contains(root) { result.append(root) }
        return result.filter { root in !result.contains { $0 != root && root.relative(to: $0) != nil } }
    }

    /// Whether this is the library `folders` would open: the default folders' picker asks it when
    /// their list is written, and is built again only for other folders. (Comparing with `roots`
    /// built it twice after "Choose Folder…" with no Pictures folder: the keys pressed in between
    /// were lost.)
    public func isOpened(for folders: [FilePath]) -> Bool { PhotoLibrary.normalise(folders) == configuredRoots }

    /// The suffix of the default folders' index file (`init(defaultFoldersAt:)`).
    static let defaultFoldersKey = "default"

    /// The roots the index holds folders of.
    private static func rootsWithFolders(_ database: SQLiteConnection) throws -> Set<FilePath> {
        let statement = try database.statement("SELECT r.path FROM roots r WHERE EXISTS (SELECT 1 FROM folders f WHERE f.root_id = r.id)")
        defer { statement.reset() }
        var result = Set<FilePath>()
        while try statement.step() { result.insert(FilePath(bytes: statement.blob(0))) }
        return result
    }

    /// Earlier versions named the default folders' index by the folders present: the first
    /// open of the default library takes that file over, when it was closed cleanly (no
    /// write-ahead log beside it: nothing else has it open), instead of reading the whole
    /// library again.
    private static func adoptIndexOfPresentFolders(base: String, as path: String, configured: [FilePath]) {
        guard access(path, F_OK) != 0 else { return }
        let older = base + "-" + key(for: configured.filter(\.mayHoldALibrary)) + ".sqlite"
        guard access(older, F_OK) == 0, access(older + "-wal", F_OK) != 0 else { return }
        _ = rename(older, path)
    }

    /// A stable short key for a set of roots: the database file's suffix.
    static func key(for roots: [FilePath]) -> String {
        // FNV-1a over the sorted paths: stable across runs and versions, unlike Hasher.
        var hash: UInt64 = 0xcbf29ce484222325
        for root in roots.sorted() {
            for byte in root.bytes + [0] {
                hash ^= UInt64(byte)
                hash = hash &* 0x100000001b3
            }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// A bounded cache of asset rows, dropped entry by entry as scans change them.
final class AssetCache: @unchecked Sendable {
    private let lock = Lock()
    private var entries: [Int64: Asset] = [:]
    private var order: [Int64] = []
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func asset(_ id: Int64) -> Asset? { lock.withLock { entries[id] } }

    /// Those of `ids` not held, in their order. (By index: `entries[id] == nil` copied each row
    /// out, its strings retained, before comparing.)
    func missing(from ids: [Int64]) -> [Int64] { lock.withLock { ids.filter { entries.index(forKey: $0) == nil } } }

    func insert(_ asset: Asset) {
        lock.withLock {
            if entries.updateValue(asset, forKey: asset.id) == nil { order.append(asset.id) }
            if order.count > capacity {
                // Drop the oldest half at once: amortised O(1), and no per-access bookkeeping.
                for id in order.prefix(capacity / 2) { entries[id] = nil }
                order.removeFirst(capacity / 2)
            }
        }
    }

    func remove(_ ids: Set<Int64>) {
        guard !ids.isEmpty else { return }
        lock.withLock { for id in ids { entries[id] = nil } }
    }
}

extension String {
    /// Safe inside an SQL string literal.
    var replacingSingleQuotes: String { split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") }

    /// Case-insensitive, number-aware order ("2" before "10"), as file managers sort names.
    func localizedStandardLess(_ other: String) -> Bool {
        Self.nameLess(Array(lowercased().unicodeScalars), Array(other.lowercased().unicodeScalars))
    }

    /// `items` in localizedStandardLess's order of their names, each name lowered once: sorting
    /// lowered both names at every comparison, 7 ms on the GTK thread for 542 folders when a
    /// picker opened (issue 38, point 6).
    public static func sortedByName<Item>(_ items: [Item], name: (Item) -> String) -> [Item] {
        items.map { (key: Array(name($0).lowercased().unicodeScalars), item: $0) }
            .sorted { nameLess($0.key, $1.key) }
            .map(\.item)
    }

    /// The order of two lowered names: runs of ASCII digits by their value, the rest scalar by scalar.
    private static func nameLess(_ left: [Unicode.Scalar], _ right: [Unicode.Scalar]) -> Bool {
        var i = 0, j = 0
        while i < left.count, j < right.count {
            let a = left[i], b = right[j]
            if a.properties.numericType != nil, b.properties.numericType != nil,
               let (x, endX) = number(in: left, at: i), let (y, endY) = number(in: right, at: j) {
                if x != y { return x < y }
                i = endX
                j = endY
                continue
            }
            if a != b { return a.value < b.value }
            i += 1
            j += 1
        }
        return i == left.count && j < right.count
    }

    /// The value of the ASCII digits from `start`, and where they end; nil when there are none
    /// or they overflow (the scalars are then compared as they are).
    private static func number(in scalars: [Unicode.Scalar], at start: Int) -> (Int, Int)? {
        var value = 0, end = start
        while end < scalars.count, scalars[end].isASCII, scalars[end].properties.numericType != nil {
            let (times, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowedToo) = times.addingReportingOverflow(Int(scalars[end].value) - 48)
            if overflowed || overflowedToo { return nil }
            value = sum
            end += 1
        }
        return end > start ? (value, end) : nil
    }
}
