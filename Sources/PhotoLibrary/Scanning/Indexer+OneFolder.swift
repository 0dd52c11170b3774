// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// One folder's files: what changed is read and written; Live Photo pairs are relinked.
extension Indexer {
    // MARK: One folder

    struct StoredFile {
        let id: Int64
        let version: FileVersion
    }

    func index(folderID: Int64, path folder: FilePath, entries: [DirectoryListing.Entry]) throws {
        var stored = try storedFiles(in: folderID)
        // Name stems written or deleted since the pairs were last relinked: only those can pair anew.
        var touchedStems = Set<[UInt8]>()
        // Into an empty index, only a video's stem can pair: the video's, when it is written (its
        // still may be there already), and a still's whose video was written before it.
        var videoStems = Set<[UInt8]>()
        // The files to read, in listing order (a version not known yet is learnt by its reader).
        var toRead: [(name: [UInt8], version: FileVersion?, existing: StoredFile?)] = []
        for entry in entries {
            let listedVersion: FileVersion?
            switch entry.type {
            case .file(let version): listedVersion = version
            case .unstattedFile: listedVersion = nil
            case .directory, .other: continue
            }
            progress.filesSeen += 1
            // (Into an empty index, nothing to look up: hashing 60,000 names cost 1 % of the thread.)
            let existing = stored.isEmpty ? nil : stored.removeValue(forKey: entry.name)
            if let existing, existing.version == listedVersion {
                progress.filesUnchanged += 1
                continue
            }
            guard existing != nil || MetadataReader.mayBeMedia(fileName: entry.name) else { continue }
            toRead.append((entry.name, listedVersion, existing))
        }
        // Files are read on the reader threads, a window ahead of the writes made here (SQLite has
        // one writer): reading and writing overlap, and reading uses every core.
        let readDatesOnly = self.readDatesOnly
        let workers = metadataWorkers, journal = self.journal
        let remote = folder.isLocationURI
        let outcomes = ReadAhead(count: toRead.count, on: remote ? remoteReaders : readers, chunk: remote ? Self.remoteChunk : ReadAhead<Int>.chunkSize) { [toRead] range in
            Self.read(range.map { (folder.appending(toRead[$0].name), toRead[$0].version) }, datesOnly: readDatesOnly, workers: workers, journal: journal)
        }
        for (index, file) in toRead.enumerated() {
            let (readVersion, outcome) = outcomes[index]
            let path = folder.appending(file.name)
            progress.filesRead += 1
            if case .media(let media) = outcome, media.isPartial { progress.filesToComplete += 1 }
            if intoEmptyIndex {
                if case .media(let media) = outcome, media.kind == .video || media.kind == .photo {
                    let stem = AlbumRules.stem(of: file.name)
                    if media.kind == .video { videoStems.insert(stem); touchedStems.insert(stem) }
                    else if videoStems.contains(stem) { touchedStems.insert(stem) }
                }
            } else {
                touchedStems.insert(AlbumRules.stem(of: file.name))
            }
            switch (outcome, readVersion) {
            case (.unreachable(let reason), _):
                throw RootUnreachable(reason: reason)
            case (.vanished, _), (_, nil):
                if let existing = file.existing { try deleteAsset(existing.id) }
            case (.media, let version?), (.notMedia, let version?), (.failed, let version?):
                if case .failed = outcome { progress.filesFailed += 1 }
                try write(outcome, name: file.name, path: path, folderID: folderID, version: version, replacing: file.existing?.id)
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

    /// Files of a remote folder handed to a reader at a time: its time goes to round trips, so
    /// each of the reader threads has one in flight.
    static let remoteChunk = 2

    /// Reads a chunk of files as one batch (their photos' and videos' headers go to a worker
    /// together), each with the version it was read at (nil: gone or no longer a regular file).
    static func read(_ chunk: [(path: FilePath, version: FileVersion?)], datesOnly: Bool, workers: MetadataWorkers?,
                     journal: CrashJournal?) -> [(FileVersion?, ReadOutcome)] {
        // Thumbnails read from another machine go first (a person waits for them).
        if chunk.first?.path.isLocationURI == true { RemoteTraffic.yieldToAwaited() }
        var files: [(path: FilePath, version: FileVersion)] = []
        var versions: [FileVersion?] = []
        for (path, listed) in chunk {
            let version = listed ?? regularFileVersion(of: path)
            versions.append(version)
            if let version { files.append((path, version)) }
        }
        var read = MetadataReader.read(files, datesOnly: datesOnly, workers: workers, journal: journal).makeIterator()
        return versions.map { version in version.map { ($0, read.next()!) } ?? (nil, .vanished) }
    }

    /// The version of a file listed without `stat` (nil: gone, or no longer a regular file, which
    /// the next listing sees).
    static func regularFileVersion(of path: FilePath) -> FileVersion? {
        guard case .file(let version) = DirectoryListing.entryType(of: path) else { return nil }
        return version
    }

    func storedFiles(in folderID: Int64) throws -> [[UInt8]: StoredFile] {
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

    func write(_ outcome: ReadOutcome, name: [UInt8], path: FilePath, folderID: Int64, version: FileVersion,
                       replacing existingID: Int64?) throws {
        try beginIfNeeded()
        let statement = try assetWrite(replacing: existingID != nil)
        statement.bind(1, folderID).bind(2, blob: name).bind(3, blob: path.bytes).bind(4, version.size)
            .bind(5, version.modificationTimeNanoseconds).bind(6, Int64(bitPattern: version.inode))
        var albumBits: Int64 = 0
        switch outcome {
        case .media(let read):
            // The readers check what they read; this is the last check before it is kept.
            let media = read.plausible(modificationTimeNanoseconds: version.modificationTimeNanoseconds, path: path)
            let traits = AlbumRules.traits(of: media, fileName: name)
            albumBits = traits.rawValue
            if intoEmptyIndex, media.kind != .video, albumBits & SmartAlbum.recents.bit != 0 {
                // (Videos are left out: a Live Photo's is hidden once its still is found.)
                firstScreenDates.add(media.captureDate.millisecondsSinceEpoch)
            }
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
        case .notMedia, .vanished, .unreachable:
            statement.bind(7, MediaKind.other.rawValue).bind(11, 1)
                .bind(12, version.modificationTimeNanoseconds.floorDivided(by: 1_000_000))
                .bind(14, 0).bind(21, 0).bind(24, nil as String?)
        }
        if let existingID { statement.bind(25, existingID) }
        var partial = false
        var refusedDate: Int64?
        if case .media(let media) = outcome {
            partial = media.isPartial
            // (Kept only when the file's own date stands in for the refused one.)
            if media.captureDate.source != .embedded { refusedDate = media.refusedDate }
        }
        statement.bind(26, partial ? 1 : 0).bind(27, refusedDate)
        try statement.run()
        pendingWrites += 1
        let isMedia: Bool
        if case .media = outcome { isMedia = true } else { isMedia = false }
        if intoEmptyIndex {
            // The triggers that count are set aside: count here (an update's old bits are not known).
            if existingID != nil { countChanges.markApproximate() } else { countChanges.add(bits: albumBits, folderID: folderID) }
        }
        if let existingID {
            pending.updated.insert(existingID)
        } else if isMedia {
            pending.inserted.insert(database.lastInsertedRowID)
        }
        if isMedia || existingID != nil { pending.foldersChanged = true }
    }

    /// The statement that writes a file's row: a new row, or the row it replaces (same id).
    private func assetWrite(replacing: Bool) throws -> SQLiteStatement {
        let statements = try assetWrites ?? (database.statement(Self.insertAsset), database.statement(Self.updateAsset))
        assetWrites = statements
        let statement = replacing ? statements.update : statements.insert
        statement.reset()
        return statement
    }

    static let insertAsset = """
        INSERT INTO assets(folder_id, name, path, size, mtime_ns, inode, kind, mime, width, height, orientation,
            captured_at, capture_offset, date_source, make, model, lens, duration, frame_count, rating, traits,
            album_bits, stem, burst_key, error, partial, refused_date_ms)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,
            ?21, ?22, ?23, ?24, ?26, ?27)
        """

    static let updateAsset = """
        UPDATE assets SET folder_id = ?1, name = ?2, path = ?3, size = ?4, mtime_ns = ?5, inode = ?6, kind = ?7,
            mime = ?8, width = ?9, height = ?10, orientation = ?11, captured_at = ?12, capture_offset = ?13,
            date_source = ?14, make = ?15, model = ?16, lens = ?17, duration = ?18, frame_count = ?19,
            rating = ?20, traits = ?21, album_bits = ?21, stem = ?22, burst_key = ?23, error = ?24,
            paired_id = NULL, partial = ?26, refused_date_ms = ?27
        WHERE id = ?25
        """

    func deleteAsset(_ id: Int64) throws {
        try beginIfNeeded()
        let statement = try database.statement("DELETE FROM assets WHERE id = ?1")
        statement.bind(1, id)
        try statement.run()
        if intoEmptyIndex { countChanges.markApproximate() }
        pending.removed.insert(id)
        pending.foldersChanged = true
        pendingWrites += 1
    }

    /// Pairs each still with the video of the same stem in its folder (a Live Photo: one asset, the
    /// video half hidden from every album), and undoes pairs whose other half is gone. Only the
    /// given stems are looked at (one indexed query each), so the cost follows what changed, not
    /// the size of the folder.
    func relinkPairs(in folderID: Int64, stems: Set<[UInt8]>) throws {
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
            if intoEmptyIndex { countChanges.change(bits: row.bits, to: bits, folderID: folderID) }
            if !pending.inserted.contains(row.id) { pending.updated.insert(row.id) }
            pending.foldersChanged = true
        }
    }
}
