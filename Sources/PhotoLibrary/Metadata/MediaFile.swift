// SPDX-License-Identifier: LGPL-2.1-or-later
/// Photo or video.
public enum MediaKind: Int, Sendable {
    /// A file the index looked at and found not to be media; kept so rescans skip it.
    case other = 0
    case photo = 1
    case video = 2

    public var name: String {
        switch self {
        case .other: "other"
        case .photo: "photo"
        case .video: "video"
        }
    }
}

/// Everything the index learns from one media file's headers.
struct MediaFile: Equatable {
    var kind: MediaKind
    var mimeType: String
    /// Displayed size: after EXIF orientation for photos, after the rotation matrix for videos.
    var width: Int?
    var height: Int?
    var orientation: Int = 1
    var captureDate: CaptureDate
    var make: String?
    var model: String?
    var lens: String?
    var duration: Double?
    var frameCount: Int?
    var rating: Int?
    /// Only the kind and capture date are known (a scan's first pass): the full read follows.
    var isPartial = false
    /// The earliest date inside the file refused for being ahead of the clock (`RefusedDates`).
    var refusedDate: Int64?
}

/// The identity of a file version, from `lstat`: a file whose three values did not change is not
/// opened again.
public struct FileVersion: Hashable, Sendable {
    public var size: Int64
    public var modificationTimeNanoseconds: Int64
    public var inode: UInt64

    public init(size: Int64, modificationTimeNanoseconds: Int64, inode: UInt64) {
        self.size = size
        self.modificationTimeNanoseconds = modificationTimeNanoseconds
        self.inode = inode
    }
}

/// What reading a file gave.
enum ReadOutcome: Equatable {
    /// The outcome with `refusedDate` noted on its media (`RefusedDates`).
    func refusing(_ date: Int64?) -> ReadOutcome {
        guard let date, case .media(var media) = self else { return self }
        media.refusedDate = date
        return .media(media)
    }

    case media(MediaFile)
    /// Not a photo or video (a text file, a PDF, a sidecar).
    case notMedia
    /// Looks like media by name or content but cannot be used; the reason is for `ls --errors`.
    case failed(String)
    /// Gone, or replaced by something we must not open, since it was listed.
    case vanished
    /// On another machine that stopped answering: nothing is known, the index keeps its row.
    case unreachable(String)
}
