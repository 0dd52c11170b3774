// SPDX-License-Identifier: LGPL-2.1-or-later
/// One photo or video in the index, as stored. A value: read it by id through `PhotoLibrary.asset(id:)`.
public struct Asset: Hashable, Sendable, Identifiable {
    public let id: Int64
    public let path: FilePath
    public let folderID: Int64
    public let kind: MediaKind
    public let mimeType: String?
    /// Displayed size (after orientation).
    public let width: Int?
    public let height: Int?
    /// EXIF orientation 1-8.
    public let orientation: Int
    public let captureDate: CaptureDate
    public let make: String?
    public let model: String?
    public let lens: String?
    /// Seconds, for videos.
    public let duration: Double?
    public let rating: Int?
    public let albums: AlbumBits
    /// Frames of one burst share this key.
    public let burstKey: String?
    /// The other half of a Live Photo: the video for the still, the still for the video.
    public let pairedID: Int64?
    public let version: FileVersion

    public var isFavorite: Bool { albums.contains(.favorites) }
    public var isLivePhoto: Bool { albums.contains(.livePhotos) }

    /// The columns `init(row:)` reads, in order.
    static let columns = """
        id, path, folder_id, kind, mime, width, height, orientation, captured_at, capture_offset, date_source, \
        make, model, lens, duration, rating, album_bits, burst_key, paired_id, size, mtime_ns, inode
        """

    init(row: SQLiteStatement) {
        id = row.int64(0)
        path = FilePath(bytes: row.blob(1))
        folderID = row.int64(2)
        kind = MediaKind(rawValue: row.int(3)) ?? .other
        mimeType = row.string(4)
        // An index written by an older version may hold whatever its readers believed (a duration
        // of 1.8e19 seconds, a negative width): values out of range are read as unknown.
        let size = Plausible.size(width: row.optionalInt(5), height: row.optionalInt(6))
        width = size?.width
        height = size?.height
        orientation = Plausible.orientation(row.int(7)) ?? 1
        captureDate = CaptureDate(millisecondsSinceEpoch: row.int64(8), utcOffsetMinutes: Plausible.utcOffset(row.optionalInt(9)),
                                  source: CaptureDate.Source(rawValue: row.int(10)) ?? .fileModificationTime)
        make = row.string(11)
        model = row.string(12)
        lens = row.string(13)
        duration = Plausible.duration(row.optionalDouble(14))
        rating = Plausible.rating(row.optionalInt(15))
        albums = AlbumBits(rawValue: row.int64(16))
        burstKey = row.string(17)
        pairedID = row.isNull(18) ? nil : row.int64(18)
        version = FileVersion(size: row.int64(19), modificationTimeNanoseconds: row.int64(20), inode: UInt64(bitPattern: row.int64(21)))
    }
}

/// A file the index could not use, and why.
public struct IndexProblem: Hashable, Sendable {
    public let path: FilePath
    public let reason: String
    public let isFolder: Bool

    public init(path: FilePath, reason: String, isFolder: Bool) {
        self.path = path
        self.reason = reason
        self.isFolder = isFolder
    }
}
