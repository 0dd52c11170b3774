import Glibc

/// A photo library: roots on disk, their index, albums and fetch results. Library code only, no
/// GTK: the picker window and the command line both stand on it.
///
/// Threads: `scan` and `rescan` run on the caller's thread (a worker, never the GTK thread) and
/// are serialised; reads (`albums`, `fetchAssets`, `asset`) may run on any thread meanwhile.
public final class PhotoLibrary: @unchecked Sendable {
    public let roots: [FilePath]
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

    /// Opens the index for `roots` (absolute paths). Each distinct set of roots has its own
    /// database file, so `--library DIR` runs never disturb the index of the Pictures folder.
    public init(roots: [FilePath], location: IndexLocation = .standard) throws {
        self.roots = PhotoLibrary.normalise(roots)
        var notices: [IndexNotice] = []
        var resolved = location
        if let path = location.databasePath, path.hasSuffix(".sqlite") {
            resolved = IndexLocation(databasePath: String(path.dropLast(7)) + "-" + PhotoLibrary.key(for: self.roots) + ".sqlite")
        }
        writer = try IndexDatabase.open(resolved, notices: &notices)
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
        return try indexer.scan(roots: registered, scope: scope)
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

    // MARK: Albums

    /// The album list: smart albums with their counts, then folders that hold media, by name.
    /// Counts are kept exact by the database, so this is cheap even for a million assets.
    public func albums() throws -> [AlbumSummary] {
        try withReader { db in
            var counts: [Int64: Int] = [:]
            let smart = try db.statement("SELECT bit, count FROM smart_album_counts")
            while try smart.step() { counts[smart.int64(0)] = smart.int(1) }
            smart.reset()
            let groups = try db.integer(
                "SELECT count(DISTINCT burst_key) FROM assets WHERE (album_bits & \(SmartAlbum.bursts.bit)) != 0") ?? 0
            var result = SmartAlbum.allCases.map { album in
                AlbumSummary(album: .smart(album), name: album.name, count: counts[album.bit] ?? 0, folderPath: nil,
                             burstGroups: album == .bursts ? Int(groups) : nil)
            }
            result += try folderAlbums(db)
            return result
        }
    }

    private func folderAlbums(_ db: SQLiteConnection) throws -> [AlbumSummary] {
        let statement = try db.statement("""
            SELECT f.id, f.path, f.relative, f.asset_count, r.path FROM folders f JOIN roots r ON f.root_id = r.id
            WHERE f.asset_count > 0
            """)
        defer { statement.reset() }
        var rows: [(id: Int64, path: FilePath, name: String, count: Int, root: FilePath)] = []
        while try statement.step() {
            let path = FilePath(bytes: statement.blob(1)), relative = statement.blob(2), root = FilePath(bytes: statement.blob(4))
            guard roots.contains(root) else { continue }
            let name = relative.isEmpty ? String(decoding: root.lastComponent, as: UTF8.self) : String(decoding: relative, as: UTF8.self)
            rows.append((statement.int64(0), path, name, statement.int(3), root))
        }
        // Two roots may hold folders of the same name: prefix those with their root's name.
        var seen: [String: Int] = [:]
        for row in rows { seen[row.name, default: 0] += 1 }
        return rows.map { row in
            let name = seen[row.name]! > 1 && !(row.path == row.root)
                ? String(decoding: row.root.lastComponent, as: UTF8.self) + "/" + row.name : row.name
            return AlbumSummary(album: .folder(id: row.id), name: name, count: row.count, folderPath: row.path, burstGroups: nil)
        }
        .sorted { $0.name.localizedStandardLess($1.name) }
    }

    /// The album of a folder of the library (it may hold nothing yet), or nil when the index
    /// does not know the folder.
    public func album(forFolder path: FilePath) throws -> Album? {
        try withReader { db -> Album? in
            let statement = try db.statement("SELECT id FROM folders WHERE path = ?1")
            statement.bind(1, blob: path.bytes)
            defer { statement.reset() }
            return try statement.step() ? .folder(id: statement.int64(0)) : nil
        }
    }

    /// Finds an album by the name `albums()` shows: smart album names first, then folders. A
    /// trailing "/" ("Videos/") or the id `albums --json` prints ("folder:12") means a folder.
    public func album(named name: String) throws -> Album? {
        if name.hasPrefix("folder:"), let id = Int64(name.dropFirst(7)) {
            return try withReader { try folderAlbums($0) }.first { $0.album == .folder(id: id) }?.album
        }
        let wantsFolder = name.hasSuffix("/")
        if !wantsFolder, let smart = SmartAlbum(name: name) { return .smart(smart) }
        let folders = try withReader { try folderAlbums($0) }
        let trimmed = wantsFolder ? String(name.dropLast()) : name
        if let match = folders.first(where: { $0.name == trimmed }) { return match.album }
        return folders.first { $0.name.lowercased() == trimmed.lowercased() }?.album
    }

    // MARK: Fetching

    /// Opens an album: one query for its count and first ids; the rest are read as asked for.
    /// `filter` keeps only the assets it admits (types, name patterns); such an album is counted
    /// by a query instead of the kept counts.
    public func fetchAssets(in album: Album, filter assetFilter: AssetFilter = .all) throws -> FetchResult {
        var (filter, countSQL) = PhotoLibrary.sql(for: album)
        if let condition = assetFilter.sqlCondition {
            filter += " AND " + condition
            countSQL = "SELECT count(*) FROM assets WHERE \(filter)"
        }
        let query = "SELECT id FROM assets WHERE \(filter) ORDER BY captured_at DESC, id DESC"
        if location.databasePath == nil {
            return try withReader { db in
                let statement = try db.statement(query)
                defer { statement.reset() }
                var ids: [Int64] = []
                while try statement.step() { ids.append(statement.int64(0)) }
                let result = FetchResult(album: album, count: ids.count, firstIDs: ids, cursor: nil)
                result.filter = assetFilter
                return result
            }
        }
        let connection = try checkoutConnection()
        do {
            // One read transaction: the count and every id come from the same snapshot.
            try connection.execute("BEGIN")
            let count = Int(try connection.integer(countSQL) ?? 0)
            let statement = try connection.uncachedStatement(query)
            var first: [Int64] = []
            while first.count < min(count, FetchResult.firstPage), try statement.step() { first.append(statement.int64(0)) }
            let cursor = FetchResult.Cursor(connection: connection, statement: statement) { [weak self] in self?.checkin($0) }
            let result = FetchResult(album: album, count: count, firstIDs: first, cursor: cursor)
            result.filter = assetFilter
            return result
        } catch {
            try? connection.execute("ROLLBACK")
            checkin(connection)
            throw error
        }
    }

    /// Where a photo named like `text` is in an open album (type-ahead find): the first whose
    /// file name starts with it, letter case aside, or failing that the first whose name holds
    /// it; in `fetchResult`'s order. Reads the album's names (60,000 in about 40 ms here): call
    /// it off the GTK thread.
    public func position(ofName text: String, in fetchResult: FetchResult) throws -> Int? {
        let wanted = text.lowercased()
        guard !wanted.isEmpty else { return nil }
        var (filter, _) = PhotoLibrary.sql(for: fetchResult.album)
        if let condition = fetchResult.filter.sqlCondition { filter += " AND " + condition }
        var starting: Set<Int64> = [], holding: Set<Int64> = []
        try withReader { db in
            let statement = try db.statement("SELECT id, name FROM assets WHERE \(filter)")
            defer { statement.reset() }
            while try statement.step() {
                let name = String(decoding: statement.blob(1), as: UTF8.self).lowercased()
                if name.hasPrefix(wanted) { starting.insert(statement.int64(0)) } else if name.contains(wanted) { holding.insert(statement.int64(0)) }
            }
        }
        let ids = fetchResult.allIDs
        if !starting.isEmpty, let position = ids.firstIndex(where: starting.contains) { return position }
        return holding.isEmpty ? nil : ids.firstIndex(where: holding.contains)
    }

    /// The WHERE clause of an album and a query for its count. Bits are literals so that SQLite
    /// matches each album's partial index.
    private static func sql(for album: Album) -> (filter: String, count: String) {
        switch album {
        case .smart(let smart):
            return ("(album_bits & \(smart.bit)) != 0", "SELECT count FROM smart_album_counts WHERE bit = \(smart.bit)")
        case .folder(let id):
            return ("folder_id = \(id) AND (album_bits & 1) != 0", "SELECT asset_count FROM folders WHERE id = \(id)")
        }
    }

    /// How an open album changed after `change`: a new fetch result and the exact positions.
    /// Nil when the album is unaffected.
    /// `holdingBack` names assets left out of the new list as if not there yet: arrivals the
    /// window keeps from the person's view until they go to the top.
    public func changeDetails(for fetchResult: FetchResult, after change: LibraryChange,
                              holdingBack held: Set<Int64> = []) throws -> FetchResultChangeDetails? {
        guard !change.touched.isEmpty else { return nil }
        var updated = try fetchAssets(in: fetchResult.album, filter: fetchResult.filter)
        if !held.isEmpty {
            let shown = FetchResult(album: updated.album, ids: updated.allIDs.filter { !held.contains($0) })
            shown.filter = updated.filter
            updated = shown
        }
        let details = FetchResultChangeDetails(before: fetchResult, after: updated, change: change)
        return details.hasChanges ? details : nil
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
        if !missing.isEmpty {
            try withReader { db in
                for chunk in stride(from: 0, to: missing.count, by: 500).map({ Array(missing[$0..<min($0 + 500, missing.count)]) }) {
                    let list = chunk.map(String.init).joined(separator: ",")
                    let statement = try db.uncachedStatement("SELECT \(Asset.columns) FROM assets WHERE id IN (\(list))")
                    while try statement.step() {
                        let asset = Asset(row: statement)
                        found[asset.id] = asset
                        cache.insert(asset)
                    }
                }
            }
        }
        return ids.compactMap { found[$0] }
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

    private func withReader<R>(_ body: (SQLiteConnection) throws -> R) throws -> R {
        try readLock.withLock { try body(reader) }
    }

    private func checkoutConnection() throws -> SQLiteConnection {
        if let idle = poolLock.withLock({ idleConnections.popLast() }) { return idle }
        return isFrozen ? try IndexDatabase.openFrozen(location.databasePath!) : try IndexDatabase.openAdditional(location.databasePath!)
    }

    private func checkin(_ connection: SQLiteConnection) {
        poolLock.withLock { if idleConnections.count < 4 { idleConnections.append(connection) } }
    }

    // MARK: Roots

    /// Absolute, without duplicates, and without roots inside another root.
    static func normalise(_ roots: [FilePath]) -> [FilePath] {
        var result: [FilePath] = []
        for root in roots.map({ $0.absolute() }) where !result.contains(root) { result.append(root) }
        return result.filter { root in !result.contains { $0 != root && root.relative(to: $0) != nil } }
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
        var left = Array(lowercased().unicodeScalars)[...], right = Array(other.lowercased().unicodeScalars)[...]
        while let a = left.first, let b = right.first {
            if a.properties.numericType != nil, b.properties.numericType != nil,
               let x = Int(String(String.UnicodeScalarView(left.prefix { $0.properties.numericType != nil && $0.isASCII }))),
               let y = Int(String(String.UnicodeScalarView(right.prefix { $0.properties.numericType != nil && $0.isASCII }))) {
                if x != y { return x < y }
                left = left.drop { $0.properties.numericType != nil && $0.isASCII }
                right = right.drop { $0.properties.numericType != nil && $0.isASCII }
                continue
            }
            if a != b { return a.value < b.value }
            left = left.dropFirst()
            right = right.dropFirst()
        }
        return left.isEmpty && !right.isEmpty
    }
}
