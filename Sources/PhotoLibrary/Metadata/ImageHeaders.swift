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

    /// The pixel size a PNG, GIF or WebP header declares, believable or not (a side may be
    /// millions of pixels): for refusing a decompression bomb before any decoder sees the file.
    /// (GdkPixbuf's WebP loader allocates the whole image while only reading its size.)
    public static func declaredSize(of file: OpenFile) -> (width: Int, height: Int)? {
        let head = file.read(at: 0, count: 32)
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

    /// The stored pixel size of a JPEG, PNG, GIF or WebP read from its header (a decoder's
    /// memory estimate).
    public static func storedPixelSize(of file: OpenFile, mimeType: String) -> (width: Int, height: Int)? {
        pixelSize(of: file, mimeType: mimeType)
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
        let size: (width: Int, height: Int)??
        switch mimeType {
        case "image/x-portable-anymap", "image/x-portable-bitmap", "image/x-portable-graymap", "image/x-portable-pixmap":
            size = pnmSize(head)
        case "image/vnd.microsoft.icon":
            size = icoSize(head)
        case "image/x-tga":
            size = tgaSize(head)
        case "image/x-xpixmap":
            size = xpmSize(head)
        case "image/x-xbitmap":
            size = xbmSize(head)
        case "image/svg+xml":
            return svgSize(head).map { .size(width: $0.width, height: $0.height) } ?? .sizeUnknown
        case _ where mimeType == "image/jpeg" || mimeType == "image/png" || mimeType == "image/gif" || mimeType == "image/webp"
            || mimeType == "image/tiff" || mimeType == "image/bmp" || HEIFBoxes.mimeTypes.contains(mimeType):
            return .readElsewhere
        default:
            return .sizeUnknown
        }
        // nil: the header is not there; .some(nil): there, with sides out of range.
        guard let size else { return .damaged }
        return size.map { .size(width: $0.width, height: $0.height) } ?? .sizeUnknown
    }

    /// "P1"…"P6", then width and height in ASCII decimal, with "#" comments and any whitespace between.
    private static func pnmSize(_ head: [UInt8]) -> (width: Int, height: Int)?? {
        guard head.count >= 2, head[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(head[1]) else { return nil }
        var index = 2
        func number() -> Int? {
            while index < head.count {
                if head[index] == UInt8(ascii: "#") {
                    while index < head.count, head[index] != 0x0A, head[index] != 0x0D { index += 1 }
                } else if [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C].contains(head[index]) {
                    index += 1
                } else {
                    break
                }
            }
            var value = 0, digits = 0
            while index < head.count, (48...57).contains(head[index]) {
                // Saturates: more than ten digits is out of range anyway, and must not overflow.
                value = min(value * 10 + Int(head[index] - 48), 10_000_000_000)
                digits += 1
                index += 1
            }
            return digits > 0 ? value : nil
        }
        guard let width = number(), let height = number() else { return nil }
        return .some(positive(width, height))
    }

    /// An ICONDIR (reserved 0, type 1 or 2, a count) and 16-byte entries whose first two bytes are
    /// the width and height (0 meaning 256); the largest entry is the one shown.
    private static func icoSize(_ head: [UInt8]) -> (width: Int, height: Int)?? {
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
        guard let best else { return nil }
        return .some(best)
    }

    /// An 18-byte TGA header: colour-map type 0 or 1, a known image type, width and height at 12 and 14.
    private static func tgaSize(_ head: [UInt8]) -> (width: Int, height: Int)?? {
        guard head.count >= 18, head[1] <= 1, [1, 2, 3, 9, 10, 11].contains(head[2]),
              let width = head.littleEndian(at: 12, width: 2), let height = head.littleEndian(at: 14, width: 2) else { return nil }
        return .some(positive(Int(width), Int(height)))
    }

    /// "/* XPM */", then a C array whose first string is "width height colours characters-per-pixel".
    private static func xpmSize(_ head: [UInt8]) -> (width: Int, height: Int)?? {
        guard head.matches("/* XPM */", at: 0), let brace = head.firstIndex(of: UInt8(ascii: "{")),
              let quote = head[brace...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let values = head[(quote + 1)...].prefix { $0 != UInt8(ascii: "\"") }.split(separator: UInt8(ascii: " "))
            .map { $0.count <= 10 ? Int(String(decoding: $0, as: UTF8.self).trimmingSpaces) : nil }
        guard values.count >= 4, let width = values[0], let height = values[1] else { return nil }
        return .some(positive(width, height))
    }

    /// C source: "#define NAME_width 20" and "#define NAME_height 10" before the bits.
    private static func xbmSize(_ head: [UInt8]) -> (width: Int, height: Int)?? {
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
        return .some(positive(width, height))
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

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// A size both of whose sides are believable (a PNG may claim 2^32 - 1 pixels a side).
    private static func positive(_ width: Int, _ height: Int) -> (width: Int, height: Int)? {
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

    // MARK: WebP

    /// Walks the RIFF chunks of a WebP file, calling `visit` with each chunk's type and offset.
    private static func webpChunks(_ file: OpenFile, _ visit: (String, Int64, Int64) -> Bool) {
        let header = file.read(at: 0, count: 12)
        guard header.matches("RIFF", at: 0), header.matches("WEBP", at: 8) else { return }
        var offset: Int64 = 12
        var chunks = 0
        while offset + 8 <= file.size, chunks < 100_000 {
            let chunk = file.read(at: offset, count: 8)
            guard chunk.count == 8, let length = chunk.littleEndian(at: 4, width: 4) else { return }
            let type = String(decoding: chunk[0..<4], as: UTF8.self)
            if !visit(type, offset + 8, Int64(length)) { return }
            offset += 8 + Int64(length) + Int64(length & 1)
            chunks += 1
        }
    }

    /// The first frame of an animated WebP, on its own.
    public struct WebPFirstFrame: Sendable {
        /// The animation's canvas, and where the frame sits on it.
        public let canvasWidth: Int, canvasHeight: Int
        public let x: Int, y: Int, width: Int, height: Int
        /// The frame as a still WebP file that any WebP decoder reads.
        public let still: [UInt8]
    }

    /// The first frame of an animated WebP (nil for a still one, or when the chunks do not hold
    /// together), read chunk by chunk without decoding: a thumbnail needs that frame only.
    /// GdkPixbuf's loader decodes every frame at the canvas size up front, about 400 MB a frame
    /// for a 10000×10000 canvas: 500 one-pixel frames in a 24 KB file ended the window at 6.5 GB.
    public static func webpFirstFrame(of file: OpenFile, maximumFrameBytes: Int64 = 64 << 20) -> WebPFirstFrame? {
        var canvas: (width: Int, height: Int)?
        var animated = false
        var frame: (offset: Int64, length: Int64)?
        webpChunks(file) { type, offset, length in
            switch type {
            case "VP8X":
                let data = file.read(at: offset, count: 10)
                guard data.count == 10, let width = data.littleEndian(at: 4, width: 3), let height = data.littleEndian(at: 7, width: 3) else { return false }
                animated = data[0] & 0x02 != 0
                canvas = (Int(width) + 1, Int(height) + 1)
                return animated
            case "ANMF":
                frame = (offset, length)
                return false
            case "VP8 ", "VP8L":
                return false  // image data before any frame: a still image
            default:
                return true
            }
        }
        guard animated, let canvas, let frame, frame.length >= 16 + 8, frame.length - 16 <= maximumFrameBytes,
              frame.offset + frame.length <= file.size else { return nil }
        let header = file.read(at: frame.offset, count: 16)
        guard header.count == 16, let x = header.littleEndian(at: 0, width: 3), let y = header.littleEndian(at: 3, width: 3),
              let width = header.littleEndian(at: 6, width: 3), let height = header.littleEndian(at: 9, width: 3) else { return nil }
        // The frame's own chunks: an optional ALPH, then VP8 or VP8L (copied as they are).
        let data = file.read(at: frame.offset + 16, count: Int(frame.length - 16))
        guard data.count == Int(frame.length - 16) else { return nil }
        var chunks: [(type: String, bytes: ArraySlice<UInt8>)] = []
        var index = 0
        while index + 8 <= data.count {
            guard let length = data.littleEndian(at: index + 4, width: 4) else { return nil }
            let end = index + 8 + Int(length)
            guard end <= data.count else { return nil }
            chunks.append((String(decoding: data[index..<(index + 4)], as: UTF8.self), data[index..<end]))
            index = end + Int(length & 1)
        }
        guard let image = chunks.first(where: { $0.type == "VP8 " || $0.type == "VP8L" }) else { return nil }
        let frameWidth = Int(width) + 1, frameHeight = Int(height) + 1
        var body: [UInt8] = []
        func append(_ chunk: ArraySlice<UInt8>) {
            body += chunk
            if chunk.count & 1 == 1 { body.append(0) }
        }
        if image.type == "VP8 ", let alpha = chunks.first(where: { $0.type == "ALPH" }) {
            // Lossy with an alpha plane: the extended format, sized as the frame.
            var extended: [UInt8] = Array("VP8X".utf8) + [10, 0, 0, 0, 0x10, 0, 0, 0]
            for value in [frameWidth - 1, frameHeight - 1] { extended += [UInt8(value & 0xff), UInt8((value >> 8) & 0xff), UInt8((value >> 16) & 0xff)] }
            append(extended[...])
            append(alpha.bytes)
        }
        append(image.bytes)
        let size = UInt32(4 + body.count)
        let still = Array("RIFF".utf8) + [UInt8(size & 0xff), UInt8((size >> 8) & 0xff), UInt8((size >> 16) & 0xff), UInt8(size >> 24)]
            + Array("WEBP".utf8) + body
        return WebPFirstFrame(canvasWidth: canvas.width, canvasHeight: canvas.height, x: Int(x) * 2, y: Int(y) * 2,
                              width: frameWidth, height: frameHeight, still: still)
    }

    private static func webpFrameCount(_ file: OpenFile) -> Int? {
        var animated = false
        var frames = 0
        var sawImage = false
        webpChunks(file) { type, offset, _ in
            switch type {
            case "VP8X":
                let flags = file.read(at: offset, count: 1)
                animated = (flags.first ?? 0) & 0x02 != 0
                return animated  // a still VP8X file has one frame
            case "ANMF":
                frames += 1
                return frames < frameCountLimit
            case "VP8 ", "VP8L":
                sawImage = true
                return false
            default:
                return true
            }
        }
        if animated { return max(frames, 1) }
        return sawImage || frames == 0 ? 1 : frames
    }

    private static func webpPixelSize(_ file: OpenFile, believable: Bool = true) -> (width: Int, height: Int)? {
        var size: (width: Int, height: Int)?
        let positive = believable ? positive : { (width: Int, height: Int) in (width, height) }
        webpChunks(file) { type, offset, _ in
            let data = file.read(at: offset, count: 10)
            switch type {
            case "VP8X":
                if let width = data.littleEndian(at: 4, width: 3), let height = data.littleEndian(at: 7, width: 3) {
                    size = positive(Int(width) + 1, Int(height) + 1)
                }
                return false
            case "VP8 ":
                if data.count >= 10, data[3] == 0x9d, data[4] == 0x01, data[5] == 0x2a,
                   let width = data.littleEndian(at: 6, width: 2), let height = data.littleEndian(at: 8, width: 2) {
                    size = positive(Int(width & 0x3fff), Int(height & 0x3fff))
                }
                return false
            case "VP8L":
                if data.count >= 5, data[0] == 0x2f, let bits = data.littleEndian(at: 1, width: 4) {
                    size = positive(Int(bits & 0x3fff) + 1, Int((bits >> 14) & 0x3fff) + 1)
                }
                return false
            default:
                return true
            }
        }
        return size
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
        guard file.read(at: 0, count: 2) == [0xFF, 0xD8] else { return nil }
        var offset: Int64 = 2
        var segments = 0
        while offset + 4 <= file.size, segments < 10_000 {
            segments += 1
            let marker = file.read(at: offset, count: 9)
            guard marker.count >= 4, marker[0] == 0xFF else { return nil }
            let code = marker[1]
            if code == 0xFF { offset += 1; continue }  // fill byte
            if code == 0xD8 || (0xD0...0xD7).contains(code) || code == 0x01 { offset += 2; continue }
            guard let length = marker.bigEndian(at: 2, width: 2), length >= 2 else { return nil }
            let isStartOfFrame = (0xC0...0xCF).contains(code) && code != 0xC4 && code != 0xC8 && code != 0xCC
            if isStartOfFrame {
                guard let height = marker.bigEndian(at: 5, width: 2), let width = marker.bigEndian(at: 7, width: 2) else { return nil }
                return positive(Int(width), Int(height))
            }
            if code == 0xDA || code == 0xD9 { return nil }  // scan data before any frame header
            offset += 2 + Int64(length)
        }
        return nil
    }
}
