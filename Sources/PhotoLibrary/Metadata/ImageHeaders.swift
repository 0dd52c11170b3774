// SPDX-License-Identifier: LGPL-2.1-or-later
/// Small readers for what exiv2 does not tell: the frame count of GIF, WebP and APNG files, and
/// the pixel size when exiv2 gave up on a file whose image data may still be fine. They read
/// headers and skip over pixel data by its declared lengths; they never decode pixels.
public enum ImageHeaders {
    /// Counting stops here: the index only needs to know "more than one".
    static let frameCountLimit = 2

    /// Frames in an animated GIF, WebP or PNG (capped at `frameCountLimit`); nil for other formats
    /// or when the header cannot be read.
    static func frameCount(of file: OpenFile, mimeType: String) -> Int? {
        switch mimeType {
        case "image/gif": return gifFrameCount(file)
        case "image/webp": return webpFrameCount(file)
        case "image/png", "image/apng", "image/vnd.mozilla.apng": return apngFrameCount(file)
        default: return nil
        }
    }

    /// The pixel size a PNG, GIF, WebP or JPEG header declares, believable or not (a side may be
    /// millions of pixels): for refusing a decompression bomb before any decoder sees the file.
    /// (GdkPixbuf's WebP loader allocates the whole image while only reading its size; its JPEG
    /// loader, told in "size-prepared" that the size is refused, still makes a picture of the
    /// whole frame: 12.9 GB for a 677-byte file, bench/fuzz.)
    public static func declaredSize(of file: OpenFile) -> (width: Int, height: Int)? {
        let head = file.read(at: 0, count: 32)
        // (libjpeg needs only the start of image: junk may follow it, before the first marker.)
        if head.starts(with: [0xFF, 0xD8]) { return jpegPixelSize(file) }
        switch ContentType.commonType(content: head) {
        case "image/png":
            guard head.matches("IHDR", at: 12), let width = head.bigEndian(at: 16, width: 4),
                  let height = head.bigEndian(at: 20, width: 4) else { return nil }
            return (Int(width), Int(height))
        case "image/gif":
            guard let width = head.littleEndian(at: 6, width: 2), let height = head.littleEndian(at: 8, width: 2) else { return nil }
            return (Int(width), Int(height))
        case "image/webp":
            return webpPixelSize(file, believable: false)
        default:
            return nil
        }
    }

    /// The pixel size a decoder of `file` works at, read from its header (a decode's memory
    /// estimate): JPEG, PNG, GIF, WebP, TIFF, BMP, HEIF and AVIF, PNM, ICO, TGA and XPM. Nil for
    /// anything else, and for an SVG, which is drawn at the size asked, at a cost no header says.
    public static func decodedPixelSize(of file: OpenFile, mimeType: String) -> (width: Int, height: Int)? {
        if let size = pixelSize(of: file, mimeType: mimeType) { return size }
        switch mimeType {
        case "image/tiff": return tiffSize(file)
        case "image/bmp", "image/x-bmp", "image/x-ms-bmp": return bmpSize(file.read(at: 0, count: 26))
        case _ where HEIFBoxes.mimeTypes.contains(mimeType): return HEIFBoxes.read(file)?.displayedSize
        case "image/svg+xml": return nil
        default:
            if case .size(let width, let height) = loaderHeader(of: file, mimeType: mimeType) { return (width, height) }
            return nil
        }
    }

    /// The first image's ImageWidth and ImageLength tags (256, 257) in a TIFF's first directory,
    /// as GdkPixbuf's TIFF loader decodes it. (BigTIFF: nil.)
    static func tiffSize(_ file: OpenFile) -> (width: Int, height: Int)? {
        let head = file.read(at: 0, count: 8)
        let little: Bool
        if head.matches("II*\u{0}", at: 0) { little = true } else if head.matches("MM\u{0}*", at: 0) { little = false } else { return nil }
        func number(_ bytes: [UInt8], at offset: Int, width: Int) -> UInt64? {
            little ? bytes.littleEndian(at: offset, width: width) : bytes.bigEndian(at: offset, width: width)
        }
        guard let directory = number(head, at: 4, width: 4), directory >= 8, directory < UInt64(file.size),
              let count = number(file.read(at: Int64(directory), count: 2), at: 0, width: 2), count > 0, count <= 1000 else { return nil }
        let entries = file.read(at: Int64(directory) + 2, count: Int(count) * 12)
        var width: Int?, height: Int?
        for start in stride(from: 0, to: entries.count - 11, by: 12) {
            guard let tag = number(entries, at: start, width: 2), tag == 256 || tag == 257, let type = number(entries, at: start + 2, width: 2) else { continue }
            // SHORT (3) or LONG (4), one value, in the entry itself.
            let value = type == 3 ? number(entries, at: start + 8, width: 2) : type == 4 ? number(entries, at: start + 8, width: 4) : nil
            guard let value else { continue }
            if tag == 256 { width = Int(value) } else { height = Int(value) }
        }
        guard let width, let height else { return nil }
        return positive(width, height)
    }

    /// "BM", then a header whose size says its kind: 12 bytes (OS/2: 16-bit sides) or more
    /// (32-bit sides; a negative height is a top-down picture).
    static func bmpSize(_ head: [UInt8]) -> (width: Int, height: Int)? {
        guard head.matches("BM", at: 0), let headerSize = head.littleEndian(at: 14, width: 4) else { return nil }
        if headerSize == 12 {
            guard let width = head.littleEndian(at: 18, width: 2), let height = head.littleEndian(at: 20, width: 2) else { return nil }
            return positive(Int(width), Int(height))
        }
        guard let width = head.littleEndian(at: 18, width: 4), let height = head.littleEndian(at: 22, width: 4) else { return nil }
        return positive(Int(Int32(bitPattern: UInt32(width))), abs(Int(Int32(bitPattern: UInt32(height)))))
    }

    /// The stored pixel size of a JPEG, PNG, GIF or WebP read from its header.
    static func pixelSize(of file: OpenFile, mimeType: String) -> (width: Int, height: Int)? {
        let head = file.read(at: 0, count: 64)
        switch mimeType {
        case "image/png":
            guard head.matches("IHDR", at: 12), let width = head.bigEndian(at: 16, width: 4),
                  let height = head.bigEndian(at: 20, width: 4) else { return nil }
            return positive(Int(width), Int(height))
        case "image/gif":
            guard head.matches("GIF", at: 0), let width = head.littleEndian(at: 6, width: 2),
                  let height = head.littleEndian(at: 8, width: 2) else { return nil }
            return positive(Int(width), Int(height))
        case "image/webp":
            return webpPixelSize(file)
        case "image/jpeg":
            return jpegPixelSize(file)
        default:
            return nil
        }
    }

    /// What the header of a format only GdkPixbuf's loaders read (exiv2 does not) says.
    enum LoaderHeader: Equatable {
        case size(width: Int, height: Int)
        /// A sound header without a usable size: an SVG sized in "10cm" or "100%", a PNM claiming
        /// a billion pixels a side, a format we have no reader for.
        case sizeUnknown
        /// Not the header of the format its content was taken for.
        case damaged
        /// A format exiv2, `pixelSize` or the HEIF reader read: reaching here, its header is broken.
        case readElsewhere
    }

    /// The size from the header of a PNM, ICO, TGA, XPM, XBM or SVG file (other loader-only formats,
    /// such as ICNS: unknown).
    static func loaderHeader(of file: OpenFile, mimeType: String) -> LoaderHeader {
        let head = file.read(at: 0, count: 4096)
        if let declared = loaderDeclaredSize(head, mimeType: mimeType) {
            // nil: the header is not there; out of range: a sound header, its size unknown.
            guard let declared else { return .damaged }
            return positive(declared.width, declared.height).map { .size(width: $0.width, height: $0.height) } ?? .sizeUnknown
        }
        switch mimeType {
        case "image/svg+xml":
            return svgSize(head).map { .size(width: $0.width, height: $0.height) } ?? .sizeUnknown
        case _ where mimeType == "image/jpeg" || mimeType == "image/png" || mimeType == "image/gif" || mimeType == "image/webp"
            || mimeType == "image/tiff" || mimeType == "image/bmp" || HEIFBoxes.mimeTypes.contains(mimeType):
            return .readElsewhere
        default:
            return .sizeUnknown
        }
    }

    /// The size a PNM, ICO, TGA, XPM or XBM header declares, believable or not; .some(nil) when
    /// the header is not there, nil for another format.
    private static func loaderDeclaredSize(_ head: [UInt8], mimeType: String) -> (width: Int, height: Int)?? {
        switch mimeType {
        case "image/x-portable-anymap", "image/x-portable-bitmap", "image/x-portable-graymap", "image/x-portable-pixmap":
            return .some(pnmSize(head))
        case "image/vnd.microsoft.icon": return .some(icoSize(head))
        case "image/x-tga": return .some(tgaSize(head))
        case "image/x-xpixmap": return .some(xpmSize(head))
        case "image/x-xbitmap": return .some(xbmSize(head))
        default: return nil
        }
    }

    /// The pixel size a header declares, believable or not, by the file's type: what a decode of
    /// it would be asked to hold, for refusing it first (GdkPixbuf's loaders allocate the whole
    /// picture even when "size-prepared" refuses the size: 3 GB for a 28-byte PPM; bench/fuzz).
    public static func declaredSize(of file: OpenFile, mimeType: String) -> (width: Int, height: Int)? {
        if let size = declaredSize(of: file) { return size }
        if let declared = loaderDeclaredSize(file.read(at: 0, count: 4096), mimeType: mimeType) { return declared }
        return decodedPixelSize(of: file, mimeType: mimeType)
    }

    /// "P1"…"P6", then width and height in ASCII decimal, with "#" comments and any whitespace
    /// between, each read as GdkPixbuf's PNM loader reads it: a word (up to 128 bytes, to the next
    /// whitespace or "#") taken by strtol, so a NUL ends its number ("1", then 15 NULs and
    /// "00000000", is 1: a file read otherwise here was 1 x 1,000,000,000 to the loader, 4 GB; bench/fuzz).
    private static func pnmSize(_ head: [UInt8]) -> (width: Int, height: Int)? {
        guard head.count >= 2, head[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(head[1]) else { return nil }
        let spaces: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C]
        var index = 2
        func number() -> Int? {
            while index < head.count {
                if head[index] == UInt8(ascii: "#") {
                    while index < head.count, head[index] != 0x0A, head[index] != 0x0D { index += 1 }
                } else if spaces.contains(head[index]) {
                    index += 1
                } else {
                    break
                }
            }
            let start = index
            while index < head.count, index - start < 128, !spaces.contains(head[index]), head[index] != UInt8(ascii: "#") { index += 1 }
            guard index > start else { return nil }
            let word = head[start..<index].prefix { $0 != 0 }
            let digits = word.first == UInt8(ascii: "+") ? word.dropFirst() : word[...]
            guard digits.allSatisfy({ (48...57).contains($0) }), !(digits.isEmpty && !word.isEmpty) else { return nil }
            // Saturates: more than ten digits is out of range anyway, and must not overflow.
            return digits.reduce(0) { min($0 * 10 + Int($1 - 48), 10_000_000_000) }
        }
        guard let width = number(), let height = number() else { return nil }
        return (width, height)
    }

    /// An ICONDIR (reserved 0, type 1 or 2, a count) and 16-byte entries whose first two bytes are
    /// the width and height (0 meaning 256); the largest entry is the one shown.
    private static func icoSize(_ head: [UInt8]) -> (width: Int, height: Int)? {
        guard head.littleEndian(at: 0, width: 2) == 0, let type = head.littleEndian(at: 2, width: 2), type == 1 || type == 2,
              let count = head.littleEndian(at: 4, width: 2), count > 0 else { return nil }
        var best: (width: Int, height: Int)?
        for entry in 0..<Int(count) {
            let offset = 6 + 16 * entry
            guard offset + 16 <= head.count else { break }  // 255 entries fit in the head
            let width = head[offset] == 0 ? 256 : Int(head[offset])
            let height = head[offset + 1] == 0 ? 256 : Int(head[offset + 1])
            if width * height > (best.map { $0.width * $0.height } ?? 0) { best = (width, height) }
        }
        return best
    }

    /// An 18-byte TGA header: colour-map type 0 or 1, a known image type, width and height at 12 and 14.
    private static func tgaSize(_ head: [UInt8]) -> (width: Int, height: Int)? {
        guard head.count >= 18, head[1] <= 1, [1, 2, 3, 9, 10, 11].contains(head[2]),
              let width = head.littleEndian(at: 12, width: 2), let height = head.littleEndian(at: 14, width: 2) else { return nil }
        return (Int(width), Int(height))
    }

    /// "/* XPM */", then a C array whose first string is "width height colours characters-per-pixel".
    private static func xpmSize(_ head: [UInt8]) -> (width: Int, height: Int)? {
        guard head.matches("/* XPM */", at: 0), let brace = head.firstIndex(of: UInt8(ascii: "{")),
              let quote = head[brace...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let values = head[(quote + 1)...].prefix { $0 != UInt8(ascii: "\"") }.split(separator: UInt8(ascii: " "))
            .map { $0.count <= 10 ? Int(String(decoding: $0, as: UTF8.self).trimmingSpaces) : nil }
        guard values.count >= 4, let width = values[0], let height = values[1] else { return nil }
        return (width, height)
    }

    /// C source: "#define NAME_width 20" and "#define NAME_height 10" before the bits.
    private static func xbmSize(_ head: [UInt8]) -> (width: Int, height: Int)? {
        var width: Int?, height: Int?
        for line in head.split(separator: 0x0A) where line.starts(with: Array("#define ".utf8)) {
            let words = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D })
            // More digits than an Int holds is out of range like any other huge side.
            guard words.count == 3, let value = words[2].count <= 18 ? Int(String(decoding: words[2], as: UTF8.self)) : Int.max else { continue }
            let name = String(decoding: words[1], as: UTF8.self)
            if name.hasSuffix("_width") || name == "width" { width = width ?? value }
            if name.hasSuffix("_height") || name == "height" { height = height ?? value }
        }
        guard let width, let height else { return nil }
        return (width, height)
    }

    /// The width and height attributes of the first <svg> tag when both are plain numbers (user
    /// units, "px" allowed); lengths in cm or %, or a size only in viewBox, give none.
    static func svgSize(_ head: [UInt8]) -> (width: Int, height: Int)? {
        let open = Array("<svg".utf8)
        guard let start = head.indices.first(where: { head[$0...].starts(with: open) && head.count > $0 + 4 && isSpace(head[$0 + 4]) }),
              let end = head[start...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
        // name="value" pairs of the tag, read whole so that "stroke-width" is never "width".
        var attributes: [String: String] = [:]
        var index = start + 4
        while index < end {
            while index < end, isSpace(head[index]) { index += 1 }
            let nameStart = index
            while index < end, !isSpace(head[index]), head[index] != UInt8(ascii: "=") { index += 1 }
            let name = String(decoding: head[nameStart..<index], as: UTF8.self)
            while index < end, isSpace(head[index]) { index += 1 }
            guard index < end, head[index] == UInt8(ascii: "=") else { index += 1; continue }
            index += 1
            while index < end, isSpace(head[index]) { index += 1 }
            guard index < end, head[index] == UInt8(ascii: "\"") || head[index] == UInt8(ascii: "'") else { continue }
            let quote = head[index]
            let valueStart = index + 1
            guard let valueEnd = head[valueStart..<end].firstIndex(of: quote) else { break }
            attributes[name] = String(decoding: head[valueStart..<valueEnd], as: UTF8.self)
            index = valueEnd + 1
        }
        func length(_ name: String) -> Int? {
            guard var value = attributes[name]?.trimmingSpaces else { return nil }
            if value.hasSuffix("px") { value = String(value.dropLast(2)) }
            guard !value.isEmpty, value.count <= 12, value.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }),
                  let number = Double(value), number.isFinite else { return nil }
            return Int(number.rounded())
        }
        return positive(length("width") ?? 0, length("height") ?? 0)
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// A size both of whose sides are believable (a PNG may claim 2^32 - 1 pixels a side).
    static func positive(_ width: Int, _ height: Int) -> (width: Int, height: Int)? {
        Plausible.size(width: width, height: height)
    }

    // MARK: GIF

    private static func gifFrameCount(_ file: OpenFile) -> Int? {
        var reader = SequentialReader(file: file)
        guard let header = reader.bytes(13), header.matches("GIF", at: 0) else { return nil }
        if header[10] & 0x80 != 0 { reader.skip(3 << (Int64(header[10] & 0x07) + 1)) }
        var frames = 0
        while frames < frameCountLimit, let introducer = reader.byte() {
            switch introducer {
            case 0x21:  // extension: label, then sub-blocks
                guard reader.byte() != nil, skipSubBlocks(&reader) else { return frames }
            case 0x2C:  // image descriptor
                guard let descriptor = reader.bytes(9) else { return frames }
                frames += 1
                if descriptor[8] & 0x80 != 0 { reader.skip(3 << (Int64(descriptor[8] & 0x07) + 1)) }
                guard reader.byte() != nil, skipSubBlocks(&reader) else { return frames }
            default:  // trailer (0x3B) or garbage
                return frames
            }
        }
        return frames
    }

    /// Skips GIF data sub-blocks up to the zero-length terminator; false at the end of the file.
    private static func skipSubBlocks(_ reader: inout SequentialReader) -> Bool {
        while let length = reader.byte() {
            if length == 0 { return true }
            reader.skip(Int64(length))
        }
        return false
    }

    // MARK: PNG

    /// An APNG declares its frame count in an acTL chunk before the first IDAT.
    private static func apngFrameCount(_ file: OpenFile) -> Int? {
        guard file.read(at: 0, count: 8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { return nil }
        var offset: Int64 = 8
        var chunks = 0
        while offset + 12 <= file.size, chunks < 10_000 {
            let chunk = file.read(at: offset, count: 12)
            guard let length = chunk.bigEndian(at: 0, width: 4) else { return nil }
            if chunk.matches("acTL", at: 4), let frames = chunk.bigEndian(at: 8, width: 4) {
                return Int(min(frames, UInt64(Int32.max)))
            }
            if chunk.matches("IDAT", at: 4) || chunk.matches("IEND", at: 4) { return 1 }
            offset += 12 + Int64(length)
            chunks += 1
        }
        return 1
    }

    // MARK: JPEG

    /// The size from the first start-of-frame marker, skipping other segments by their lengths.
    private static func jpegPixelSize(_ file: OpenFile) -> (width: Int, height: Int)? {
        jpegFrame(file).flatMap { positive($0.width, $0.height) }
    }

    /// The bytes libjpeg holds for every block of a progressive JPEG while its scans come in
    /// (2 per sample at the stored size, whatever the scale it decodes at): 0 for a baseline
    /// JPEG, which is decoded a row of blocks at a time. Nil when no frame header is read.
    public static func jpegCoefficientBytes(_ file: OpenFile) -> Int? {
        guard let frame = jpegFrame(file) else { return nil }
        // SOF2, SOF6, SOF10 and SOF14 are progressive.
        guard [0xC2, 0xC6, 0xCA, 0xCE].contains(frame.code) else { return 0 }
        let blocksWide = (frame.width + 7) / 8, blocksHigh = (frame.height + 7) / 8
        let (blocks, overflow) = blocksWide.multipliedReportingOverflow(by: blocksHigh)
        guard !overflow, blocks <= Int.max / (64 * 2 * 4) else { return Int.max }
        // Each component's blocks in proportion to its sampling; at most 4 components of the frame's size.
        return Int((Double(blocks) * frame.samplesPerPixel).rounded(.up)) * 64 * 2
    }

    /// Where the next `byte` is in `file` from `offset`, read 4 KB at a time.
    private static func nextByte(_ byte: UInt8, in file: OpenFile, from offset: Int64) -> Int64? {
        var at = offset
        while at < file.size {
            let chunk = file.read(at: at, count: 4096)
            if chunk.isEmpty { return nil }
            if let index = chunk.firstIndex(of: byte) { return at + Int64(index) }
            at += Int64(chunk.count)
        }
        return nil
    }

    /// The first start-of-frame marker: its code, size, and samples per pixel over all components.
    private static func jpegFrame(_ file: OpenFile) -> (code: UInt8, width: Int, height: Int, samplesPerPixel: Double)? {
        guard file.read(at: 0, count: 2) == [0xFF, 0xD8] else { return nil }
        var offset: Int64 = 2
        var segments = 0
        while offset + 4 <= file.size, segments < 10_000 {
            segments += 1
            let marker = file.read(at: offset, count: 10 + 3 * 4)
            guard marker.count >= 4 else { return nil }
            if marker[0] != 0xFF {
                // Bytes that are not a marker: libjpeg skips them to the next 0xFF (with a
                // warning), and finds the frame header after them, so this does too (bench/fuzz).
                guard let next = nextByte(0xFF, in: file, from: offset) else { return nil }
                offset = next
                continue
            }
            let code = marker[1]
            if code == 0xFF { offset += 1; continue }  // fill byte
            // (0xFF 0x00 is not a marker: libjpeg skips it and looks on.)
            if code == 0x00 || code == 0xD8 || (0xD0...0xD7).contains(code) || code == 0x01 { offset += 2; continue }
            guard let length = marker.bigEndian(at: 2, width: 2), length >= 2 else { return nil }
            let isStartOfFrame = (0xC0...0xCF).contains(code) && code != 0xC4 && code != 0xC8 && code != 0xCC
            if isStartOfFrame {
                guard let height = marker.bigEndian(at: 5, width: 2), let width = marker.bigEndian(at: 7, width: 2) else { return nil }
                // Components: id, sampling (horizontal << 4 | vertical), table; samples per pixel
                // are each one's sampling over the largest.
                let count = marker.count > 9 ? min(Int(marker[9]), 4) : 0
                var sampling: [(Int, Int)] = []
                for index in 0..<count where marker.count > 11 + 3 * index {
                    let factors = marker[11 + 3 * index]
                    sampling.append((max(1, Int(factors >> 4)), max(1, Int(factors & 0x0F))))
                }
                let largest = (sampling.map(\.0).max() ?? 1, sampling.map(\.1).max() ?? 1)
                let samples = sampling.isEmpty ? 3 : sampling.reduce(0.0) { $0 + Double($1.0 * $1.1) / Double(largest.0 * largest.1) }
                return (code, Int(width), Int(height), samples)
            }
            if code == 0xDA || code == 0xD9 { return nil }  // scan data before any frame header
            offset += 2 + Int64(length)
        }
        return nil
    }
}
