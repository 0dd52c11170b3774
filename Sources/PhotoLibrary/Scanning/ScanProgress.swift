// SPDX-License-Identifier: LGPL-2.1-or-later
/// How far a scan has come, reported to a callback while it runs.
public struct ScanProgress: Sendable {
    /// Files listed so far (media or not, hidden ones excluded).
    public init() {}

    public var filesSeen = 0
    /// Files opened and read this scan (new or changed).
    public var filesRead = 0
    /// Files skipped because size, mtime and inode did not change.
    public var filesUnchanged = 0
    /// Files whose problem was recorded (see `ls --errors`).
    public var filesFailed = 0
    public var foldersSeen = 0
    /// Files the first pass only dated (`MetadataReader.readDate`), and how many of them the second
    /// pass has read in full since.
    public var filesToComplete = 0
    public var filesCompleted = 0
    /// Every file is listed and dated, and the newest are read in full: albums are in their final
    /// order and their first screens will not change (only files new on disk arrive above).
    /// In a first run over folders on another machine, files that cannot enter the first screen
    /// of Recents may still be unread then (`filesLeftBehindFirstScreen`); they arrive below it.
    public var datesKnown = false
    /// Files on another machine that a first run read after `datesKnown` (counted in
    /// `filesToComplete`).
    public var filesLeftBehindFirstScreen = 0
    /// When `datesKnown` turned true, in seconds since the scan started.
    public var datedSeconds = 0.0
    /// Folders passed without listing them: their time says no entry changed (`.changedFolders`).
    public var foldersUnchanged = 0
    public var elapsedSeconds = 0.0
    /// True once every folder has been listed: `filesSeen` is then the total.
    public var finishedListing = false
    public var finished = false

    /// Files dealt with: read or found unchanged.
    public var filesIndexed: Int { filesRead + filesUnchanged }

    public var filesPerSecond: Double { elapsedSeconds > 0 ? Double(filesIndexed) / elapsedSeconds : 0 }
}

/// How much a scan looks at.
public enum ScanScope: Sendable {
    /// Every file's size, time and inode (`photopick index`, the picker's scan): sees files
    /// rewritten in place.
    case everyFile
    /// Only folders whose own time moved, which happens when an entry in them is added, removed
    /// or renamed: an unchanged library costs one `stat` per folder. A file rewritten in place
    /// under the same name is not seen (`ls` and `albums` before they answer).
    case changedFolders
}

/// What a scan changed, by asset id: enough to compute exact positions for any open album.
public struct LibraryChange: Sendable, Equatable {
    public var inserted: Set<Int64> = []
    public var removed: Set<Int64> = []
    /// Rows rewritten (the file changed) or whose album membership changed.
    public var updated: Set<Int64> = []
    /// Folders appeared, vanished or changed their count: the album list needs a refresh.
    public var foldersChanged = false

    public init() {}

    public var isEmpty: Bool { inserted.isEmpty && removed.isEmpty && updated.isEmpty && !foldersChanged }

    /// All ids the change touches.
    public var touched: Set<Int64> { inserted.union(removed).union(updated) }

    public mutating func merge(_ other: LibraryChange) {
        for id in other.inserted {
            if removed.remove(id) != nil { updated.insert(id) } else { inserted.insert(id) }
        }
        for id in other.removed {
            if inserted.remove(id) == nil { removed.insert(id) }
            updated.remove(id)
        }
        for id in other.updated where !inserted.contains(id) { updated.insert(id) }
        foldersChanged = foldersChanged || other.foldersChanged
    }
}

/// Why a scan stopped early. The index stays consistent: what was committed is kept and the next
/// scan continues from there.
/// What a scan does while another process scans the same index.
public enum WhenIndexBusy: Sendable {
    /// Waits for the other scan to end, then scans (little is left to do by then).
    case wait
    /// Throws `ScanError.busy` at once: for a reader that can answer from the index as it is.
    case giveUp
}

public enum ScanError: Error, CustomStringConvertible {
    case diskFull(String)
    case database(DatabaseError)
    /// Stopped on request (the picker closed): what was read so far is committed.
    case cancelled
    /// Another process is scanning this index (with `WhenIndexBusy.giveUp`).
    case busy

    public var description: String {
        switch self {
        case .diskFull(let path): "the disk holding the index is full (\(path)); the index is incomplete and the next scan continues"
        case .database(let error): "index database error: \(error.message)"
        case .cancelled: "indexing was stopped before it finished; the next scan continues"
        case .busy: "another Photopick is updating the index"
        }
    }
}
