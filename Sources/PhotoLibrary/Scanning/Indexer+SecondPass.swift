import Glibc

/// The second pass of a scan: the files the first pass only dated are read in full.
extension Indexer {
    // MARK: The second pass

    /// Reads in full the files the first pass only dated, newest first, in place. Rows left
    /// partial by a scan that was stopped are finished by the next one.
    func completePartialRows() throws {
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
            // The first batch is what the first screen waits for: read at the usual priority.
            let outcomes = ReadAhead(count: rows.count, on: progress.datesKnown ? detailReaders : readers) { [rows] index in
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
                try runCompletingDates()
            }
            batchSize = 400
        }
        if !progress.datesKnown {
            progress.datesKnown = true
            progress.datedSeconds = monotonicSeconds() - started
            onProgress?(progress)
        }
        try runCompletingDates()
    }

    private func runCompletingDates() throws {
        let work = completingDates
        completingDates = nil
        try work?()
    }

    func relinkPairs(_ stems: [Int64: Set<[UInt8]>]) throws {
        for (folderID, stems) in stems { try relinkPairs(in: folderID, stems: stems) }
    }
}
