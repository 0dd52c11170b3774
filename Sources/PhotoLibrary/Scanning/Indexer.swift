import Glibc

/// Walks library roots and brings the database in line with the disk, incrementally: a file whose
/// size, mtime and inode are unchanged is not opened again. Work is committed in batches, so a scan
/// killed at any point leaves a consistent database and the next scan finishes the job.
/// Runs on whatever thread calls it; the caller serialises scans (one writer).
final class Indexer {
    private let database: SQLiteConnection
    /// A batch is committed after this many writes or seconds. The first pass of a scan (which no
    /// grid shows while it runs) uses larger batches: every row touches a page of each index in
    /// date order, and a commit writes each touched page again, so small batches wrote the index
    /// several times over.
    private var batchFiles: Int { readDatesOnly ? 8000 : 400 }
    private var batchSeconds: Double { readDatesOnly ? 3 : 0.5 }

    private var inTransaction = false
    private var pendingWrites = 0
    private var batchStarted = 0.0
    private var pending = LibraryChange()
    private var progress = ScanProgress()
    private var started = 0.0
    private var lastReport = 0.0
    /// The first pass of `scan`: new files are dated, not read in full.
    private var readDatesOnly = false
    /// The page cache was enlarged for this scan's writes (set back when it ends).
    private var largeCache = false
    /// How many of the newest partial rows are read in full before the dates count as known: more
    /// than a first screen holds at the smallest cell size.
    static let firstScreenRows = 240

    /// Called after each commit with what it changed (on the scanning thread).
    var onCommit: ((LibraryChange) -> Void)?
    /// Called with progress a few times a second and once at the end (on the scanning thread).
    var onProgress: ((ScanProgress) -> Void)?
    /// Asked between files: true stops the scan (`ScanError.cancelled`) after committing what it read.
    var isCancelled: (() -> Bool)?

    /// Threads that read files for the scan (one per core), ahead of its writes.
    private let readers = WorkerPool(name: "index-readers", threads: WorkerPool.processorCount)
    /// The second pass's readers run at a lower priority: by then the grid is shown, and the
    /// thumbnails the person waits for come first.
    private let detailReaders = WorkerPool(name: "index-details", threads: WorkerPool.processorCount, background: true)

    init(database: SQLiteConnection) {
        self.database = database
    }

    struct Root {
        let id: Int64
        let path: FilePath
    }

    /// Registers the roots and returns their ids.
    func register(roots: [FilePath]) throws -> [Root] {
        try roots.map { path in
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
    func scan(roots: [Root], scope: ScanScope) throws -> LibraryChange {
        try run {
            readDatesOnly = true
            defer { readDatesOnly = false }
            for root in roots {
                try walk(from: root.path, root: root, recursive: true, scope: scope)
            }
            readDatesOnly = false
            try completePartialRows()
        }
    }

    /// Re-reads the given folders (their files, and any subfolder that is new or gone). Used when
    /// the file monitor reports changes.
    func rescan(folders: [FilePath], roots: [Root]) throws -> LibraryChange {
        try run {
            for folder in folders {
                guard let root = roots.filter({ folder == $0.path || folder.relative(to: $0.path) != nil })
                        .max(by: { $0.path.bytes.count < $1.path.bytes.count }),
                      !FolderRules.isHidden(folder, below: root.path) else { continue }
                try walk(from: folder, root: root, recursive: false, scope: .everyFile)
            }
        }
    }

    private func run(_ body: () throws -> Void) throws -> LibraryChange {
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
            if largeCache, (try? database.execute("PRAGMA cache_size = -2000")) != nil { largeCache = false }
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

    // MARK: The second pass

    /// Reads in full the files the first pass only dated, newest first, in place. Rows left
    /// partial by a scan that was stopped are finished by the next one.
    private func completePartialRows() throws {
        let select = try database.statement("""
            SELECT id, folder_id, name, path, size, mtime_ns, inode FROM assets WHERE partial != 0
            ORDER BY captured_at DESC, id DESC LIMIT ?1
            """)
        progress.filesToComplete = Int(try database.integer("SELECT count(*) FROM assets WHERE partial != 0") ?? 0)
        var batchSize = Self.firstScreenRows
        while true {
            struct Row { let id: Int64; let folderID: Int64; let name: [UInt8]; let path: FilePath; let version: FileVersion }
            var rows: [Row] = []
            select.bind(1, batchSize)
            while try select.step() {
                rows.append(Row(id: select.int64(0), folderID: select.int64(1), name: select.blob(2), path: FilePath(bytes: select.blob(3)),
                                version: FileVersion(size: select.int64(4), modificationTimeNanoseconds: select.int64(5),
                                                     inode: UInt64(bitPattern: select.int64(6)))))
            }
            select.reset()
            if rows.isEmpty { break }
            var touched: [Int64: Set<[UInt8]>] = [:]
            let outcomes = ReadAhead(count: rows.count, on: detailReaders) { [rows] index in
                MetadataReader.read(path: rows[index].path, version: rows[index].version)
            }
            for (index, row) in rows.enumerated() {
                if isCancelled?() == true {
                    try relinkPairs(touched)
                    try commit()
                    throw ScanError.cancelled
                }
                let outcome = outcomes[index]
                if case .vanished = outcome {
                    try deleteAsset(row.id)
                } else {
                    // A file changed since it was dated is the next scan's: its version is the listed one.
                    try write(outcome, name: row.name, path: row.path, folderID: row.folderID, version: row.version, replacing: row.id)
                }
                touched[row.folderID, default: []].insert(AlbumRules.stem(of: row.name))
                progress.filesCompleted += 1
                reportProgressIfDue()
            }
            try relinkPairs(touched)
            try commit()
            if !progress.datesKnown {
                progress.datesKnown = true
                progress.elapsedSeconds = monotonicSeconds() - started
                progress.datedSeconds = progress.elapsedSeconds
                onProgress?(progress)
            }
            batchSize = 400
        }
        if !progress.datesKnown {
            progress.datesKnown = true
            progress.datedSeconds = monotonicSeconds() - started
            onProgress?(progress)
        }
    }

    private func relinkPairs(_ stems: [Int64: Set<[UInt8]>]) throws {
        for (folderID, stems) in stems { try relinkPairs(in: folderID, stems: stems) }
    }

    // MARK: Walking

    private func walk(from start: FilePath, root: Root, recursive: Bool, scope: ScanScope) throws {
        // Known folders, read once: an unchanged folder is passed by its time alone.
        let known = scope == .changedFolders ? try knownFolders(under: root) : [:]
        var stack: [(path: FilePath, recursive: Bool)] = [(start, recursive)]
        while let (folder, walkChildren) = stack.popLast() {
            if isCancelled?() == true {
                try commit()
                throw ScanError.cancelled
            }
            if let record = known[folder], let listed = record.listedTime, walkChildren,
               DirectoryListing.modificationTime(of: folder, followLink: folder == root.path) == listed {
                // No entry was added, removed or renamed here since it was listed.
                progress.foldersSeen += 1
                progress.foldersUnchanged += 1
                for child in record.children.reversed() { stack.append((child, true)) }
                continue
            }
            let relative = folder.relative(to: root.path) ?? []
            switch DirectoryListing.list(folder, followLink: folder == root.path) {
            case .failure(.vanished):
                try removeFolderTree(folder)
            case .failure(.unreadable(let reason)):
                // Its files cannot be read any more: drop them, and say why in the error list.
                let record = try upsertFolder(folder, relative: relative, root: root, error: reason)
                try removeAssets(whereFolder: record.id)
                for child in try knownChildFolders(of: folder) { try removeFolderTree(child) }
                try setListedTime(nil, of: record)
                progress.foldersSeen += 1
            case .success(let listing):
                let record = try upsertFolder(folder, relative: relative, root: root, error: nil)
                progress.foldersSeen += 1
                let subfolders = listing.entries.filter { $0.type == .directory }.map { folder.appending($0.name) }
                let known = try knownChildFolders(of: folder)
                for gone in known.subtracting(subfolders) { try removeFolderTree(gone) }
                for subfolder in subfolders.reversed() where walkChildren || !known.contains(subfolder) {
                    stack.append((subfolder, true))
                }
                try index(folderID: record.id, path: folder, entries: listing.entries)
                try setListedTime(Self.trustworthy(listing.modificationTimeNanoseconds), of: record)
            }
            try commitIfDue()
        }
    }

    /// A folder's time is kept only when it is at least two seconds old: timestamps are coarse
    /// (a few milliseconds on ext4), so an entry added just after the listing, within the same
    /// tick, would leave the time unchanged and go unseen. A folder changed that recently is
    /// simply listed again next time.
    private static func trustworthy(_ time: Int64?) -> Int64? {
        guard let time else { return nil }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nowNanoseconds = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        return time < nowNanoseconds - 2_000_000_000 ? time : nil
    }

    private struct KnownFolder {
        var listedTime: Int64?
        var children: [FilePath] = []
    }

    /// Every known folder below `root` with its listed time and known children (a folder that
    /// could not be read has no time: it is tried again).
    private func knownFolders(under root: Root) throws -> [FilePath: KnownFolder] {
        let statement = try database.statement("SELECT path, CASE WHEN error IS NULL THEN listed_mtime_ns END FROM folders WHERE root_id = ?1")
        statement.bind(1, root.id)
        defer { statement.reset() }
        var folders: [FilePath: KnownFolder] = [:]
        while try statement.step() {
            let path = FilePath(bytes: statement.blob(0))
            folders[path, default: KnownFolder()].listedTime = statement.isNull(1) ? nil : statement.int64(1)
            if path != root.path, path.relative(to: root.path) != nil {
                folders[path.parent, default: KnownFolder()].children.append(path)
            }
        }
        for key in folders.keys { folders[key]?.children.sort() }
        return folders
    }

    // MARK: One folder

    private struct StoredFile {
        let id: Int64
        let version: FileVersion
    }

    private func index(folderID: Int64, path folder: FilePath, entries: [DirectoryListing.Entry]) throws {
        var stored = try storedFiles(in: folderID)
        // Name stems written or deleted since the pairs were last relinked: only those can pair anew.
        var touchedStems = Set<[UInt8]>()
        // The files to read, in listing order.
        var toRead: [(name: [UInt8], version: FileVersion, existing: StoredFile?)] = []
        for entry in entries {
            guard case .file(let version) = entry.type else { continue }
            progress.filesSeen += 1
            let existing = stored.removeValue(forKey: entry.name)
            if let existing, existing.version == version {
                progress.filesUnchanged += 1
                continue
            }
            guard existing != nil || MetadataReader.mayBeMedia(fileName: entry.name) else { continue }
            toRead.append((entry.name, version, existing))
        }
        // Files are read on the reader threads, a window ahead of the writes made here (SQLite has
        // one writer): reading and writing overlap, and reading uses every core.
        let readDatesOnly = self.readDatesOnly
        let outcomes = ReadAhead(count: toRead.count, on: readers) { [toRead] index in
            let path = folder.appending(toRead[index].name)
            return readDatesOnly ? MetadataReader.readDate(path: path, version: toRead[index].version)
                                 : MetadataReader.read(path: path, version: toRead[index].version)
        }
        for (index, file) in toRead.enumerated() {
            let outcome = outcomes[index]
            let path = folder.appending(file.name)
            progress.filesRead += 1
            if case .media(let media) = outcome, media.isPartial { progress.filesToComplete += 1 }
            touchedStems.insert(AlbumRules.stem(of: file.name))
            switch outcome {
            case .vanished:
                if let existing = file.existing { try deleteAsset(existing.id) }
            case .media, .notMedia, .failed:
                if case .failed = outcome { progress.filesFailed += 1 }
                try write(outcome, name: file.name, path: path, folderID: folderID, version: file.version, replacing: file.existing?.id)
            }
            reportProgressIfDue()
            let cancelled = isCancelled?() == true
            if isBatchDue || cancelled {
                // Pairs are relinked before every commit, so a killed scan leaves them right.
                try relinkPairs(in: folderID, stems: touchedStems)
                touchedStems.removeAll()
                try commit()
                if cancelled { throw ScanError.cancelled }
            }
        }
        for (name, gone) in stored {
            try deleteAsset(gone.id)
            touchedStems.insert(AlbumRules.stem(of: name))
        }
        try relinkPairs(in: folderID, stems: touchedStems)
        reportProgressIfDue()
    }

    private func storedFiles(in folderID: Int64) throws -> [[UInt8]: StoredFile] {
        let statement = try database.statement("SELECT id, name, size, mtime_ns, inode FROM assets WHERE folder_id = ?1")
        statement.bind(1, folderID)
        defer { statement.reset() }
        var result: [[UInt8]: StoredFile] = [:]
        while try statement.step() {
            result[statement.blob(1)] = StoredFile(
                id: statement.int64(0),
                version: FileVersion(size: statement.int64(2), modificationTimeNanoseconds: statement.int64(3),
                                     inode: UInt64(bitPattern: statement.int64(4))))
        }
        return result
    }

    private func write(_ outcome: ReadOutcome, name: [UInt8], path: FilePath, folderID: Int64, version: FileVersion,
                       replacing existingID: Int64?) throws {
        try beginIfNeeded()
        let sql = existingID == nil
            ? """
              INSERT INTO assets(folder_id, name, path, size, mtime_ns, inode, kind, mime, width, height, orientation,
                  captured_at, capture_offset, date_source, make, model, lens, duration, frame_count, rating, traits,
                  album_bits, stem, burst_key, error, partial)
              VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,
                  ?21, ?22, ?23, ?24, ?26)
              """
            : """
              UPDATE assets SET folder_id = ?1, name = ?2, path = ?3, size = ?4, mtime_ns = ?5, inode = ?6, kind = ?7,
                  mime = ?8, width = ?9, height = ?10, orientation = ?11, captured_at = ?12, capture_offset = ?13,
                  date_source = ?14, make = ?15, model = ?16, lens = ?17, duration = ?18, frame_count = ?19,
                  rating = ?20, traits = ?21, album_bits = ?21, stem = ?22, burst_key = ?23, error = ?24,
                  paired_id = NULL, partial = ?26
              WHERE id = ?25
              """
        let statement = try database.statement(sql)
        statement.bind(1, folderID).bind(2, blob: name).bind(3, blob: path.bytes).bind(4, version.size)
            .bind(5, version.modificationTimeNanoseconds).bind(6, Int64(bitPattern: version.inode))
        switch outcome {
        case .media(let read):
            // The readers check what they read; this is the last check before it is kept.
            let media = read.plausible(modificationTimeNanoseconds: version.modificationTimeNanoseconds)
            let traits = AlbumRules.traits(of: media, fileName: name)
            statement.bind(7, media.kind.rawValue).bind(8, media.mimeType).bind(9, media.width).bind(10, media.height)
                .bind(11, media.orientation).bind(12, media.captureDate.millisecondsSinceEpoch)
                .bind(13, media.captureDate.utcOffsetMinutes).bind(14, media.captureDate.source.rawValue)
                .bind(15, media.make).bind(16, media.model).bind(17, media.lens).bind(18, media.duration)
                .bind(19, media.frameCount).bind(20, media.rating).bind(21, traits.rawValue)
                .bind(22, blob: AlbumRules.stem(of: name))
                .bind(23, traits.contains(.bursts) ? AlbumRules.burstKey(folderID: folderID, media: media) : nil)
                .bind(24, nil as String?)
        case .failed(let reason):
            statement.bind(7, MediaKind.other.rawValue).bind(11, 1)
                .bind(12, version.modificationTimeNanoseconds.floorDivided(by: 1_000_000))
                .bind(14, 0).bind(21, 0).bind(24, reason)
        case .notMedia, .vanished:
            statement.bind(7, MediaKind.other.rawValue).bind(11, 1)
                .bind(12, version.modificationTimeNanoseconds.floorDivided(by: 1_000_000))
                .bind(14, 0).bind(21, 0).bind(24, nil as String?)
        }
        if let existingID { statement.bind(25, existingID) }
        var partial = false
        if case .media(let media) = outcome { partial = media.isPartial }
        statement.bind(26, partial ? 1 : 0)
        try statement.run()
        pendingWrites += 1
        let isMedia: Bool
        if case .media = outcome { isMedia = true } else { isMedia = false }
        if let existingID {
            pending.updated.insert(existingID)
        } else if isMedia {
            pending.inserted.insert(database.lastInsertedRowID)
        }
        if isMedia || existingID != nil { pending.foldersChanged = true }
    }

    private func deleteAsset(_ id: Int64) throws {
        try beginIfNeeded()
        let statement = try database.statement("DELETE FROM assets WHERE id = ?1")
        statement.bind(1, id)
        try statement.run()
        pending.removed.insert(id)
        pending.foldersChanged = true
        pendingWrites += 1
    }

    /// Pairs each still with the video of the same stem in its folder (a Live Photo: one asset, the
    /// video half hidden from every album), and undoes pairs whose other half is gone. Only the
    /// given stems are looked at (one indexed query each), so the cost follows what changed, not
    /// the size of the folder.
    private func relinkPairs(in folderID: Int64, stems: Set<[UInt8]>) throws {
        guard !stems.isEmpty else { return }
        let statement = try database.statement("""
            SELECT id, stem, kind, traits, album_bits, paired_id FROM assets
            WHERE folder_id = ?1 AND stem = ?2 AND error IS NULL AND kind IN (1, 2) ORDER BY id
            """)
        struct Row { let id: Int64; let stem: [UInt8]; let kind: MediaKind; let traits: Int64; let bits: Int64; let paired: Int64? }
        var rows: [Row] = []
        for stem in stems {
            statement.bind(1, folderID).bind(2, blob: stem)
            while try statement.step() {
                rows.append(Row(id: statement.int64(0), stem: statement.blob(1), kind: MediaKind(rawValue: statement.int(2)) ?? .other,
                                traits: statement.int64(3), bits: statement.int64(4),
                                paired: statement.isNull(5) ? nil : statement.int64(5)))
            }
            statement.reset()
        }
        rows.sort { $0.id < $1.id }
        var stills: [[UInt8]: Int64] = [:]
        var videos: [[UInt8]: Int64] = [:]
        for row in rows {
            if row.kind == .photo, stills[row.stem] == nil { stills[row.stem] = row.id }
            if row.kind == .video, videos[row.stem] == nil { videos[row.stem] = row.id }
        }
        let update = try database.statement("UPDATE assets SET album_bits = ?1, paired_id = ?2 WHERE id = ?3")
        for row in rows {
            var bits = row.traits
            var paired: Int64?
            if row.kind == .photo, stills[row.stem] == row.id, let video = videos[row.stem] {
                bits |= SmartAlbum.livePhotos.bit
                paired = video
            } else if row.kind == .video, videos[row.stem] == row.id, let still = stills[row.stem] {
                bits = 0
                paired = still
            }
            guard bits != row.bits || paired != row.paired else { continue }
            try beginIfNeeded()
            update.bind(1, bits).bind(2, paired).bind(3, row.id)
            try update.run()
            if !pending.inserted.contains(row.id) { pending.updated.insert(row.id) }
            pending.foldersChanged = true
        }
    }

    // MARK: Folders

    struct FolderRecord {
        let id: Int64
        let listedTime: Int64?
    }

    private func upsertFolder(_ path: FilePath, relative: [UInt8], root: Root, error: String?) throws -> FolderRecord {
        let existing = try database.statement("SELECT id, error IS NOT ?2, root_id, listed_mtime_ns FROM folders WHERE path = ?1")
        existing.bind(1, blob: path.bytes).bind(2, error)
        if try existing.step() {
            let id = existing.int64(0), errorChanged = existing.int(1) != 0, rootChanged = existing.int64(2) != root.id
            let listed = existing.isNull(3) ? nil : existing.int64(3)
            existing.reset()
            if errorChanged || rootChanged {
                try beginIfNeeded()
                let update = try database.statement("UPDATE folders SET error = ?1, root_id = ?2, relative = ?3 WHERE id = ?4")
                update.bind(1, error).bind(2, root.id).bind(3, blob: relative).bind(4, id)
                try update.run()
                pending.foldersChanged = true
            }
            return FolderRecord(id: id, listedTime: listed)
        }
        existing.reset()
        try beginIfNeeded()
        let insert = try database.statement("INSERT INTO folders(root_id, path, relative, error) VALUES (?1, ?2, ?3, ?4)")
        insert.bind(1, root.id).bind(2, blob: path.bytes).bind(3, blob: relative).bind(4, error)
        try insert.run()
        pending.foldersChanged = true
        return FolderRecord(id: database.lastInsertedRowID, listedTime: nil)
    }

    /// Remembers the time a folder had when it was listed and indexed (written with the batch
    /// that holds its last files, so a scan killed before then lists it again).
    private func setListedTime(_ time: Int64?, of folder: FolderRecord) throws {
        guard time != folder.listedTime else { return }
        try beginIfNeeded()
        let update = try database.statement("UPDATE folders SET listed_mtime_ns = ?1 WHERE id = ?2")
        update.bind(1, time).bind(2, folder.id)
        try update.run()
    }

    /// Known folders directly inside `folder`.
    private func knownChildFolders(of folder: FilePath) throws -> Set<FilePath> {
        let (low, high) = FolderRules.descendantRange(of: folder)
        let statement = try database.statement("SELECT path FROM folders WHERE path > ?1 AND path < ?2")
        statement.bind(1, blob: low).bind(2, blob: high)
        defer { statement.reset() }
        var result: Set<FilePath> = []
        while try statement.step() {
            let path = statement.blob(0)
            if !path[low.count...].contains(UInt8(ascii: "/")) { result.insert(FilePath(bytes: path)) }
        }
        return result
    }

    private func removeFolderTree(_ folder: FilePath) throws {
        let (low, high) = FolderRules.descendantRange(of: folder)
        let ids = try database.statement("""
            SELECT a.id FROM assets a JOIN folders f ON a.folder_id = f.id
            WHERE f.path = ?1 OR (f.path > ?2 AND f.path < ?3)
            """)
        ids.bind(1, blob: folder.bytes).bind(2, blob: low).bind(3, blob: high)
        var removed: [Int64] = []
        while try ids.step() { removed.append(ids.int64(0)) }
        ids.reset()
        try beginIfNeeded()
        for id in removed { try deleteAsset(id) }
        let folders = try database.statement("DELETE FROM folders WHERE path = ?1 OR (path > ?2 AND path < ?3)")
        folders.bind(1, blob: folder.bytes).bind(2, blob: low).bind(3, blob: high)
        try folders.run()
        if database.changes > 0 { pending.foldersChanged = true }
    }

    private func removeAssets(whereFolder folderID: Int64) throws {
        for file in try storedFiles(in: folderID).values { try deleteAsset(file.id) }
    }

    // MARK: Transactions and progress

    private func beginIfNeeded() throws {
        guard !inTransaction else { return }
        if readDatesOnly && !largeCache {
            // A first pass that writes: a 32 MiB page cache (SQLite's default is 2 MiB), because a
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

    private var isBatchDue: Bool {
        inTransaction && (pendingWrites >= batchFiles || monotonicSeconds() - batchStarted >= batchSeconds)
    }

    private func commitIfDue() throws {
        if isBatchDue { try commit() }
    }

    private func commit() throws {
        guard inTransaction else { return }
        try database.execute("COMMIT")
        inTransaction = false
        pendingWrites = 0
        let change = pending
        pending = LibraryChange()
        if !change.isEmpty { onCommit?(change) }
    }

    private func rollback() {
        if inTransaction { try? database.execute("ROLLBACK") }
        inTransaction = false
        pendingWrites = 0
        pending = LibraryChange()
    }

    private func reportProgressIfDue() {
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
