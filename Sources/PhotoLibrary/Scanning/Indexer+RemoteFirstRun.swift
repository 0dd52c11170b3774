// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// A first run over folders on another machine: every folder is listed first, then the files are
/// read newest first, and the first screen opens as soon as nothing left to read can enter it.
///
/// Why: a remote file is dated by reading its first blocks, a few round trips each (5,000 files
/// over SFTP on loopback: 4-5 s), while listing them all is one exchange per folder (0.16 s).
/// Reading them all before the grid opened put a first run at twice Nautilus's time.
///
/// The rule that makes an early first screen final: a photo is not taken after its file was last
/// written (a camera writes it then, and a copy keeps that time or takes a later one), and a
/// capture time without its zone may be off by up to a day. So once the newest photos read fill
/// a first screen, and the oldest of them is more than a day later than the newest unread file's
/// time, no unread file can enter that screen. The rest is read behind the grid and arrives in
/// place, below what is in sight. A file that breaks the rule (a camera clock set ahead) arrives
/// like a new photo would.
extension Indexer {
    // MARK: Files on another machine, in a first run

    /// The files of remote folders listed in a first run, in the order they are read.
    final class RemoteFirstRun {
        struct File {
            let root: FilePath
            let folderID: Int64
            let path: FilePath
            let name: [UInt8]
            let version: FileVersion
            /// The newest time among the files of its folder with its stem (a Live Photo's still
            /// and video): they are read one after the other, and both by the same side of the
            /// first screen.
            var newestOfStem: Int64 = 0
        }
        var files: [File] = []
        /// The folders whose files are listed here, with their listed time: written once all
        /// their files are, so a scan stopped before then lists them again.
        var folders: [(root: FilePath, record: FolderRecord, time: Int64?)] = []
        var outcomes: ReadAhead<(FileVersion?, ReadOutcome)>?
        /// The next file to write.
        var next = 0
        /// Roots whose server stopped answering: their files are not written.
        var unreachable: Set<FilePath> = []
    }

    /// Whether the files of a folder just listed are read later, newest first (a first run's
    /// remote folders), rather than with the folder.
    func defersReading(of folder: FilePath) -> Bool {
        intoEmptyIndex && folder.isLocationURI
    }

    /// Keeps a remote folder's listed files for `readRemoteFirstRun`.
    func deferReading(folderID: Int64, path folder: FilePath, root: Root, entries: [DirectoryListing.Entry],
                      record: FolderRecord, listedTime: Int64?) {
        let run = remoteFirstRun ?? RemoteFirstRun()
        remoteFirstRun = run
        for entry in entries {
            guard case .file(let version) = entry.type else { continue }
            progress.filesSeen += 1
            guard MetadataReader.mayBeMedia(fileName: entry.name) else { continue }
            run.files.append(RemoteFirstRun.File(root: root.path, folderID: folderID, path: folder.appending(entry.name),
                                                 name: entry.name, version: version))
        }
        run.folders.append((root.path, record, listedTime))
    }

    /// Writes the listed remote files, newest first: with `untilFirstScreenIsFinal`, stops once
    /// no file left can enter the first screen of Recents (see above), otherwise goes on to the
    /// last. Returns whether every file is written.
    @discardableResult
    func readRemoteFirstRun(untilFirstScreenIsFinal: Bool) throws -> Bool {
        guard let run = remoteFirstRun else { return true }
        if run.outcomes == nil { startReading(run) }
        guard let outcomes = run.outcomes else { return true }
        var touched: [Int64: Set<[UInt8]>] = [:]
        func commitWithPairs() throws {
            try relinkPairs(touched)
            touched.removeAll()
            try commit()
        }
        while run.next < run.files.count {
            let index = run.next
            let file = run.files[index]
            // (Checked between stems only: a Live Photo's halves stay on one side.)
            if untilFirstScreenIsFinal, index == 0 || run.files[index - 1].newestOfStem != file.newestOfStem
                || run.files[index - 1].folderID != file.folderID || AlbumRules.stem(of: run.files[index - 1].name) != AlbumRules.stem(of: file.name),
               firstScreenIsFinal(unreadNewest: file.newestOfStem) {
                try commitWithPairs()
                progress.filesLeftBehindFirstScreen = run.files.count - index
                return false
            }
            if isCancelled?() == true {
                try commitWithPairs()
                throw ScanError.cancelled
            }
            run.next += 1
            guard !run.unreachable.contains(file.root) else { continue }
            let (version, outcome) = outcomes[index]
            progress.filesRead += 1
            if !untilFirstScreenIsFinal { progress.filesCompleted += 1 }
            switch (outcome, version) {
            case (.unreachable(let reason), _):
                // What the index holds of the root stays; its folders are listed again next time.
                try commitWithPairs()
                run.unreachable.insert(file.root)
                unreachableRoots[file.root] = reason
            case (.vanished, _), (_, nil):
                break
            case (_, let version?):
                if case .failed = outcome { progress.filesFailed += 1 }
                try write(outcome, name: file.name, path: file.path, folderID: file.folderID, version: version, replacing: nil)
                touched[file.folderID, default: []].insert(AlbumRules.stem(of: file.name))
            }
            if isBatchDue { try commitWithPairs() }
            reportProgressIfDue()
        }
        try relinkPairs(touched)
        for folder in run.folders where !run.unreachable.contains(folder.root) {
            try setListedTime(folder.time, of: folder.record)
        }
        try commit()
        remoteFirstRun = nil
        return true
    }

    /// Orders the files newest first (a stem's files together) and starts reading them, a few
    /// in flight on each remote reader.
    private func startReading(_ run: RemoteFirstRun) {
        var newest: [Int64: [[UInt8]: Int64]] = [:]
        for file in run.files {
            newest[file.folderID, default: [:]][AlbumRules.stem(of: file.name), default: .min]
                .update(max: file.version.modificationTimeNanoseconds)
        }
        for index in run.files.indices {
            run.files[index].newestOfStem = newest[run.files[index].folderID]![AlbumRules.stem(of: run.files[index].name)]!
        }
        run.files.sort {
            if $0.newestOfStem != $1.newestOfStem { return $0.newestOfStem > $1.newestOfStem }
            if $0.folderID != $1.folderID { return $0.folderID < $1.folderID }
            return $0.name.precedesInByteOrder($1.name)
        }
        let files = run.files.map { ($0.path, Optional($0.version)) }
        let workers = metadataWorkers, journal = self.journal
        let outcomes = ReadAhead(count: files.count, on: remoteReaders, chunk: Self.remoteChunk) { range in
            Self.read(Array(files[range]), datesOnly: false, workers: workers, journal: journal)
        }
        outcomes.start()
        run.outcomes = outcomes
    }

    /// Whether the first screen of Recents is final: the newest photos written fill it, and the
    /// oldest of them is more than a day later than `unreadNewest` (nanoseconds since the epoch),
    /// the newest time of the files not written yet.
    private func firstScreenIsFinal(unreadNewest: Int64) -> Bool {
        guard let oldestShown = firstScreenDates.oldest, firstScreenDates.isFull else { return false }
        return oldestShown > unreadNewest.floorDivided(by: 1_000_000) + 86_400_000
    }
}

/// The newest capture dates written, as many as a first screen holds (milliseconds since the
/// epoch): what `readRemoteFirstRun` compares the unread files with.
struct NewestDates {
    let capacity: Int
    /// Ascending: the oldest kept first.
    private var dates: [Int64] = []

    init(capacity: Int) { self.capacity = capacity }

    var isFull: Bool { dates.count >= capacity }
    var oldest: Int64? { dates.first }

    mutating func add(_ date: Int64) {
        if isFull, let oldest, date <= oldest { return }
        var low = 0, high = dates.count
        while low < high {
            let middle = (low + high) / 2
            if dates[middle] < date { low = middle + 1 } else { high = middle }
        }
        dates.insert(date, at: low)
        if dates.count > capacity { dates.removeFirst() }
    }

    mutating func removeAll() { dates.removeAll() }
}

private extension Int64 {
    mutating func update(max other: Int64) { if other > self { self = other } }
}
