/// Small readers for what exiv2 does not tell: the frame count of GIF, WebP and APNG files, and
/// the pixel size when exiv2 gave up on a file whose image data may still be fine. They read
/// headers and skip over pixel data by its declared lengths; they never decode pixels.
enum ImageHeaders {
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

    private static func webpPixelSize(_ file: OpenFile) -> (width: Int, height: Int)? {
        var size: (width: Int, height: Int)?
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
