// SPDX-License-Identifier: LGPL-2.1-or-later
/// A JPEG's, PNG's, GIF's or WebP's capture date worked out without exiv2: the first pass of a scan
/// orders a new library by date with it (Recents needs every date before its first screen is
/// final), and the full read follows. From a JPEG's EXIF block it reads the tags the full reader
/// believes first (`Exif.Photo.DateTimeOriginal`, then `Exif.Image.DateTimeOriginal`, with the
/// sub-seconds and offset beside it); a JPEG, PNG or WebP with no block exiv2 takes a date from,
/// and any GIF, gets its file time, as the full reader gives it. Anything else (a date only in XMP
/// or IPTC, an EXIF block without a believable date, a damaged structure) is nil, and the caller
/// does the full read. So both readers agree on
/// every date this one gives (a test holds them to it on every generated file).
enum QuickDate {
    /// Bytes read first: EXIF blocks of phones and cameras hold their dates within this.
    static let headLength = 2048

    /// JPEG files start with SOI and a marker.
    static func isJPEG(_ head: [UInt8]) -> Bool {
        head.count >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF
    }

    /// What the full reader will take as the capture date.
    enum Answer: Equatable {
        /// The EXIF date.
        case embedded(CaptureDate)
        /// The file holds no block exiv2 takes a date from (EXIF, XMP or IPTC): the file's
        /// modification time.
        case fileTime
    }

    /// The date of a JPEG, PNG, GIF or WebP, or nil when the full reader must decide. `head` is the start of
    /// the file (more is read from `file` where needed).
    static func answer(_ file: OpenFile, head: [UInt8]) -> Answer? {
        if isJPEG(head) {
            switch metadataBlock(file, head: head) {
            case .exif(let tiff): return date(inTIFF: tiff).map(Answer.embedded)
            case .none: return .fileTime
            case .other, .unknown: return nil
            }
        }
        switch ContentType.commonType(content: head) {
        case "image/png": return hasPNGMetadata(file) == false ? .fileTime : nil
        // exiv2 0.27 reads a GIF's size and nothing else (no XMP): the full read dates it by its time.
        case "image/gif": return .fileTime
        case "image/webp": return hasWebPMetadata(file) == false ? .fileTime : nil
        default: return nil
        }
    }

    /// Whether a PNG has a chunk exiv2 may read a date from (eXIf, or text whose keyword names an
    /// EXIF, IPTC or XMP profile); nil when the chunks do not walk cleanly to IEND. Other text is
    /// what exiv2 passes over (GNOME's screenshots write "Creation Time", ImageMagick "date:create").
    private static func hasPNGMetadata(_ file: OpenFile) -> Bool? {
        var offset: Int64 = 8
        for _ in 0..<100_000 {
            let header = file.read(at: offset, count: 8)
            guard header.count == 8 else { return nil }
            let length = Int64(header[0]) << 24 | Int64(header[1]) << 16 | Int64(header[2]) << 8 | Int64(header[3])
            switch String(decoding: header[4..<8], as: UTF8.self) {
            case "eXIf": return true
            case "tEXt", "zTXt", "iTXt":
                let keyword = file.read(at: offset + 8, count: Int(min(length, 80))).prefix { $0 != 0 }
                if keyword.starts(with: "Raw profile".utf8) || keyword.starts(with: "XML:".utf8) { return true }
            case "IEND": return false
            default: break
            }
            offset += 12 + length
            guard length >= 0, offset <= file.size else { return nil }
        }
        return nil
    }

    /// Whether a WebP has an EXIF or XMP chunk; nil when its chunks do not walk cleanly to the end
    /// the RIFF header gives.
    private static func hasWebPMetadata(_ file: OpenFile) -> Bool? {
        let header = file.read(at: 0, count: 12)
        guard header.count == 12 else { return nil }
        let end = min(file.size, 8 + (Int64(header[4]) | Int64(header[5]) << 8 | Int64(header[6]) << 16 | Int64(header[7]) << 24))
        var offset: Int64 = 12
        for _ in 0..<10_000 {
            if offset >= end { return offset == end ? false : nil }
            let chunk = file.read(at: offset, count: 8)
            guard chunk.count == 8 else { return nil }
            switch String(decoding: chunk[0..<4], as: UTF8.self) {
            case "EXIF", "XMP ": return true
            default: break
            }
            let length = Int64(chunk[4]) | Int64(chunk[5]) << 8 | Int64(chunk[6]) << 16 | Int64(chunk[7]) << 24
            offset += 8 + length + (length & 1)
        }
        return nil
    }

    private enum MetadataBlock {
        /// The TIFF structure of the first APP1 "Exif" segment.
        case exif([UInt8])
        /// An XMP or IPTC block and no EXIF block: the full reader decides.
        case other
        /// No metadata block before the image data.
        case none
        /// The markers do not read cleanly (too many, or cut off).
        case unknown
    }

    /// The JPEG's metadata blocks before the image data.
    private static func metadataBlock(_ file: OpenFile, head: [UInt8]) -> MetadataBlock {
        var offset = 2
        var bytes = head
        var other = false
        func ensure(_ end: Int) -> Bool {
            if end <= bytes.count { return true }
            guard Int64(end) <= file.size else { return false }
            bytes += file.read(at: Int64(bytes.count), count: end - bytes.count)
            return end <= bytes.count
        }
        // Markers before the image data: APP0 (JFIF) and a few others, usually.
        for _ in 0..<32 {
            guard ensure(offset + 4), bytes[offset] == 0xFF else { return .unknown }
            let marker = bytes[offset + 1]
            if marker == 0xDA || marker == 0xD9 { return other ? .other : .none }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2 else { return .unknown }
            if marker == 0xE1 {
                guard ensure(offset + 10) else { return .unknown }
                if bytes[(offset + 4)..<(offset + 10)].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {  // "Exif\0\0"
                    // A segment too short to hold its own "Exif\0\0" is damaged (bench/fuzz found one
                    // of length 6, whose TIFF range ran backwards).
                    guard length >= 8, ensure(offset + 2 + length) else { return .unknown }
                    return .exif(Array(bytes[(offset + 10)..<(offset + 2 + length)]))
                }
                other = true  // XMP, or something exiv2 may read
            }
            if marker == 0xED { other = true }  // APP13: Photoshop's IPTC
            offset += 2 + length
        }
        return .unknown
    }

    private static func date(inTIFF tiff: [UInt8]) -> CaptureDate? {
        guard let reader = TIFFNumbers(tiff) else { return nil }
        let integer = reader.integer
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

/// The numbers of an EXIF block's TIFF structure, in its byte order ("II" or "MM").
struct TIFFNumbers {
    let bytes: [UInt8]
    let little: Bool

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        self.bytes = bytes
    }

    /// The unsigned number of `width` bytes at `at`, or nil past the end.
    func integer(_ at: Int, _ width: Int) -> Int? {
        guard at >= 0, at <= bytes.count - width else { return nil }
        var value = 0
        for index in 0..<width { value = value << 8 | Int(bytes[at + (little ? width - 1 - index : index)]) }
        return value
    }
}
