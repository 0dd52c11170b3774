// SPDX-License-Identifier: LGPL-2.1-or-later
/// What a metadata worker reads of a remote file, fetched before the file is handed over: the
/// worker has no network (it is sandboxed), only the mirror of what was fetched.
extension OpenFile {
    /// Everything of a photo that is not a JPEG, a HEIF or a video, read from its start: more
    /// than any header this program reads (a PNG's chunks before its pixels, a WebP's, a TIFF's
    /// first directory), and a small part of a camera's raw file.
    static let remoteHeadLength: Int64 = 256 * 1024

    /// Fetches what parsing this remote file as `mimeType` reads. Our own readers walk it here,
    /// over the mirror, so exactly what they touch arrives: a JPEG's segments up to its image
    /// data (exiv2 stops there too), a HEIF's boxes and its EXIF item, a video's movie header.
    /// False when the server stopped answering. Does nothing to a local file.
    func prepareForParsing(mimeType: String, isVideo: Bool) -> Bool {
        guard let remote else { return true }
        if mimeType == "image/jpeg" {
            _ = remote.fetch(0..<Self.jpegHeadersEnd(self))
        } else if HEIFBoxes.mimeTypes.contains(mimeType) {
            _ = HEIFBoxes.read(self)
            _ = ImageHeaders.pixelSize(of: self, mimeType: mimeType)
        } else if isVideo {
            _ = VideoHeaders.read(self, mimeType: mimeType)
        } else {
            _ = remote.fetch(0..<Self.remoteHeadLength)
        }
        return remote.failure == nil || remote.failure?.kind == .vanished
    }

    /// Where a JPEG's start-of-scan segment ends (its compressed image data follows), walking
    /// the segments' lengths; the whole file when it has none in its first megabyte.
    static func jpegHeadersEnd(_ file: OpenFile) -> Int64 {
        let limit = min(file.size, 1 << 20)
        var position: Int64 = 2
        while position + 4 <= limit {
            let header = file.read(at: position, count: 4)
            guard header.count == 4, header[0] == 0xFF else { return position }
            let marker = header[1]
            if marker == 0xFF { position += 1; continue }  // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { position += 2; continue }
            let length = Int64(header[2]) << 8 | Int64(header[3])
            // Start of scan (or the end of the image): its header is the last thing read.
            if marker == 0xDA || marker == 0xD9 { return min(file.size, position + 2 + length) }
            position += 2 + length
        }
        return limit
    }
}

extension OpenFile {
    /// Whether the file is on another machine (opened from a location URI).
    public var isRemote: Bool { remote != nil }

    /// Fetches every byte of a remote file not fetched yet (a decode reads the whole picture);
    /// nil when they are all here, else why not. Nothing to do for a local file.
    public func fetchEverything() -> String? {
        guard let remote, !remote.fetchAll() else { return nil }
        return remote.failure?.message ?? "the server stopped answering"
    }
}
