/// A JPEG's capture date read straight from its EXIF block, without exiv2: the first pass of a
/// scan orders a new library by date with it (Recents needs every date before its first screen
/// is final), and the full read follows. It reads the tags the full reader believes first
/// (`Exif.Photo.DateTimeOriginal`, then `Exif.Image.DateTimeOriginal`, with the sub-seconds and
/// offset beside it) and answers only when it found one of them and it is plausible; for anything
/// else (no EXIF, a date only in XMP or IPTC, a damaged block) it answers nil and the caller does
/// the full read. So both readers agree on every date this one gives.
enum QuickDate {
    /// Bytes read first: EXIF blocks of phones and cameras hold their dates within this.
    static let headLength = 2048

    /// JPEG files start with SOI and a marker.
    static func isJPEG(_ head: [UInt8]) -> Bool {
        head.count >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF
    }

    /// The date of a JPEG, or nil when the full reader must decide. `head` is the start of the file
    /// (more is read from `file` when the EXIF block is longer).
    static func ofJPEG(_ file: OpenFile, head: [UInt8]) -> CaptureDate? {
        guard isJPEG(head), let exif = exifBlock(file, head: head) else { return nil }
        return date(inTIFF: exif)
    }

    /// The TIFF structure of the first APP1 "Exif" segment before the image data.
    private static func exifBlock(_ file: OpenFile, head: [UInt8]) -> [UInt8]? {
        var offset = 2
        var bytes = head
        func ensure(_ end: Int) -> Bool {
            if end <= bytes.count { return true }
            guard Int64(end) <= file.size else { return false }
            bytes += file.read(at: Int64(bytes.count), count: end - bytes.count)
            return end <= bytes.count
        }
        // Markers before the EXIF block: APP0 (JFIF) usually, a few others at most.
        for _ in 0..<16 {
            guard ensure(offset + 4), bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            // Image data or the end: no EXIF block before it.
            if marker == 0xDA || marker == 0xD9 { return nil }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2 else { return nil }
            if marker == 0xE1 {
                guard ensure(offset + 10) else { return nil }
                if bytes[(offset + 4)..<(offset + 10)].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {  // "Exif\0\0"
                    guard ensure(offset + 2 + length) else { return nil }
                    return Array(bytes[(offset + 10)..<(offset + 2 + length)])
                }
            }
            offset += 2 + length
        }
        return nil
    }

    private static func date(inTIFF tiff: [UInt8]) -> CaptureDate? {
        guard tiff.count >= 8 else { return nil }
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func integer(_ at: Int, _ width: Int) -> Int? {
            guard at >= 0, at + width <= tiff.count else { return nil }
            var value = 0
            for index in 0..<width {
                let byte = Int(tiff[at + (little ? width - 1 - index : index)])
                value = value << 8 | byte
            }
            return value
        }
        guard integer(2, 2) == 42, let ifd0 = integer(4, 4) else { return nil }

        /// The ASCII tags wanted from one IFD, and the offset of the Exif IFD when it points to one.
        func read(ifd: Int, wanted: Set<Int>) -> (values: [Int: String], exifIFD: Int?)? {
            guard let count = integer(ifd, 2), count > 0, count < 1000 else { return nil }
            var values: [Int: String] = [:]
            var exifIFD: Int?
            for entry in 0..<count {
                let at = ifd + 2 + entry * 12
                guard let tag = integer(at, 2), let type = integer(at + 2, 2), let length = integer(at + 4, 4) else { return nil }
                if tag == 0x8769, let pointer = integer(at + 8, 4) { exifIFD = pointer }
                guard wanted.contains(tag), type == 2, length > 0, length < 256 else { continue }
                let start = length <= 4 ? at + 8 : (integer(at + 8, 4) ?? -1)
                guard start >= 0, start + length <= tiff.count else { continue }
                // As exiv2 gives an ASCII value: up to the first NUL, spaces trimmed.
                let raw = tiff[start..<(start + length)].prefix { $0 != 0 }
                guard let text = String(validating: raw, as: UTF8.self)?.trimmingSpaces, !text.isEmpty else { continue }
                values[tag] = text
            }
            return (values, exifIFD)
        }
        let dateTimeOriginal = 0x9003, subseconds = 0x9291, offset = 0x9011
        guard let image = read(ifd: ifd0, wanted: [dateTimeOriginal]) else { return nil }
        var exif: [Int: String] = [:]
        if let pointer = image.exifIFD {
            guard let found = read(ifd: pointer, wanted: [dateTimeOriginal, subseconds, offset]) else { return nil }
            exif = found.values
        }
        // The full reader's order: the Exif IFD's original date, then IFD0's, each with the Exif
        // IFD's sub-seconds and offset; a date not believed falls through to the next.
        for text in [exif[dateTimeOriginal], image.values[dateTimeOriginal]].compactMap({ $0 }) {
            if let date = Plausible.captureDate(CaptureDate.parse(text, subseconds: exif[subseconds], offset: exif[offset])) {
                return date
            }
        }
        return nil
    }
}
