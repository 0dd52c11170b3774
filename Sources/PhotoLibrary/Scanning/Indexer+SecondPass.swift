// SPDX-License-Identifier: LGPL-2.1-or-later
import Dispatch
import Glibc

/// The second pass of a scan: the files the first pass only dated are read in full.
extension Indexer {
    // MARK: The second pass

    /// A batch of rows the first pass only dated, with their full reads under way.
    struct PartialRows {
        struct Row { let id: Int64; let folderID: Int64; let name: [UInt8]; let path: FilePath; let version: FileVersion }
        let rows: [Row]
        let outcomes: ReadAhead<ReadOutcome>
    }

    /// The newest `count` partial rows, their full reads started (on `pool`).
    func readPartialRows(newest count: Int, on pool: WorkerPool) throws -> PartialRows {
        let select = try database.statement("""
            SELECT id, folder_id, name, path, size, mtime_ns, inode FROM assets WHERE partial != 0
            ORDER BY captured_at DESC, id DESC LIMIT ?1
            """)
        defer { select.reset() }
        var rows: [PartialRows.Row] = []
        select.bind(1, count)
        while try select.step() {
            rows.append(PartialRows.Row(id: select.int64(0), folderID: select.int64(1), name: select.blob(2), path: FilePath(bytes: select.blob(3)),
                                        version: FileVersion(size: select.int64(4), modificationTimeNanoseconds: select.int64(5),
                                                             inode: UInt64(bitPattern: select.int64(6)))))
        }
        let workers = pool === detailReaders ? backgroundMetadataWorkers : metadataWorkers, journal = self.journal
        let outcomes = ReadAhead(count: rows.count, on: pool) { [rows] range in
            MetadataReader.read(range.map { (rows[$0].path, rows[$0].version) }, datesOnly: false, workers: workers, journal: journal)
        }
        outcomes.start()
        return PartialRows(rows: rows, outcomes: outcomes)
    }

    /// Reads in full the files the first pass only dated, newest first, in place. Rows left
    /// partial by a scan that was stopped are finished by the next one. `firstBatch`: the first
    /// screen's rows, their reads started while the first pass was finishing.
    func completePartialRows(firstBatch: PartialRows? = nil) throws {
        let remoteLeft = remoteFirstRun.map { $0.files.count - $0.next } ?? 0
        progress.filesToComplete = Int(try database.integer("SELECT count(*) FROM assets WHERE partial != 0") ?? 0) + remoteLeft
        // The first batch is what the first screen waits for: read at the usual priority.
        try complete(firstBatch ?? readPartialRows(newest: Self.firstScreenRows, on: readers))
        if !progress.datesKnown {
            progress.datesKnown = true
            progress.elapsedSeconds = monotonicSeconds() - started
            progress.datedSeconds = progress.elapsedSeconds
            onProgress?(progress)
        }
        // The rest is behind the first screen: its writes too run at a lower priority, so that
        // the thumbnails the person waits for come first.
        try behindTheFirstScreen { [self] in
            try runCompletingDates()
            // A first run's remote files that could not enter the first screen, below it.
            try readRemoteFirstRun(untilFirstScreenIsFinal: false)
            while true {
                let batch = try readPartialRows(newest: 400, on: detailReaders)
                if batch.rows.isEmpty { break }
                try complete(batch)
            }
        }
    }

    /// Writes a batch's full reads in place of its rows, and commits.
    private func complete(_ batch: PartialRows) throws {
        guard !batch.rows.isEmpty else { return }
        var touched: [Int64: Set<[UInt8]>] = [:]
        for (index, row) in batch.rows.enumerated() {
            if isCancelled?() == true {
                try relinkPairs(touched)
                try commit()
                throw ScanError.cancelled
            }
            let outcome = batch.outcomes[index]
            // (Remote files are read in full at once; one that was not stays partial for the next scan.)
            if case .unreachable = outcome { continue }
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
    }

    /// Runs `body` on the background writer thread (lower CPU priority) and waits for it: the
    /// scan's thread cannot lower its own priority and raise it again afterwards.
    private func behindTheFirstScreen(_ body: @escaping () throws -> Void) throws {
        // The body (and the indexer it holds) is let go on the writer thread before the wait
        // ends: otherwise the last reference could outlive the scan there, and a command
        // exiting meanwhile would never close the index (its WAL not checkpointed).
        final class Job: @unchecked Sendable {
            var body: (() throws -> Void)?
            var error: Error?
        }
        let job = Job()
        job.body = body
        let finished = DispatchSemaphore(value: 0)
        let submitted = backgroundWriter.submit {
            do { try job.body?() } catch { job.error = error }
            job.body = nil
            finished.signal()
        }
        // A pool that is stopping runs nothing: the work runs here, as before.
        guard submitted else { return try body() }
        finished.wait()
        if let error = job.error { throw error }
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
