// SPDX-License-Identifier: LGPL-2.1-or-later
/// What the index needs from a video file: duration, displayed size and the recording time, read
/// from the container header (ISO base media: MP4, MOV, 3GP; Matroska: MKV, WebM).
struct VideoHeader: Equatable {
    var duration: Double?
    var width: Int?
    var height: Int?
    /// Seconds since the Unix epoch, UTC, when the container records it.
    var createdAt: Int64?
}

enum VideoHeaders {
    enum Failure: Error, Equatable {
        /// The container is missing the header that describes the movie (truncated or not a movie).
        case noMovieHeader
    }

    static func read(_ file: OpenFile, mimeType: String) -> Result<VideoHeader, Failure> {
        let head = file.read(at: 0, count: 16)
        if head.matches("ftyp", at: 4) || head.matches("moov", at: 4) || head.matches("mdat", at: 4)
            || head.matches("wide", at: 4) || head.matches("free", at: 4) {
            return isoBaseMedia(file)
        }
        if head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return matroska(file) }
        // A video type without a reader here (AVI, MPEG-TS …): indexable, with no duration.
        return .success(VideoHeader())
    }

    // MARK: ISO base media file format

    private static let isoEpochOffset: Int64 = 2_082_844_800  // 1904-01-01 to 1970-01-01

    private static func isoBaseMedia(_ file: OpenFile) -> Result<VideoHeader, Failure> {
        // Find the top-level moov box; it may come after mdat in files that were not "fast-started".
        var offset: Int64 = 0
        var boxes = 0
        while offset + 8 <= file.size, boxes < 10_000 {
            let header = file.read(at: offset, count: 16)
            guard header.count >= 8, var size = header.bigEndian(at: 0, width: 4).map(Int64.init) else { break }
            var headerLength: Int64 = 8
            if size == 1 {
                guard let large = header.bigEndian(at: 8, width: 8), large < UInt64(Int64.max) else { break }
                size = Int64(large)
                headerLength = 16
            } else if size == 0 {
                size = file.size - offset
            }
            guard size >= headerLength, size <= file.size - offset else { break }
            if header.matches("moov", at: 4) {
                guard size <= 64 << 20 else { return .failure(.noMovieHeader) }
                let moov = file.read(at: offset + headerLength, count: Int(size - headerLength))
                return parseMovie(moov).map { .success($0) } ?? .failure(.noMovieHeader)
            }
            offset += size
            boxes += 1
        }
        return .failure(.noMovieHeader)
    }

    /// Child boxes of a container box's payload: (type, payload range).
    private static func children(_ data: [UInt8], in range: Range<Int>) -> [(String, Range<Int>)] {
        var result: [(String, Range<Int>)] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound, result.count < 4096 {
            guard var size = data.bigEndian(at: offset, width: 4).map(Int.init) else { break }
            var headerLength = 8
            if size == 1 {
                guard let large = data.bigEndian(at: offset + 8, width: 8), large < UInt64(Int.max) else { break }
                size = Int(large)
                headerLength = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= headerLength, size <= range.upperBound - offset else { break }
            let type = String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self)
            result.append((type, (offset + headerLength)..<(offset + size)))
            offset += size
        }
        return result
    }

    private static func parseMovie(_ moov: [UInt8]) -> VideoHeader? {
        var header = VideoHeader()
        var sawMovieHeader = false
        for (type, range) in children(moov, in: 0..<moov.count) {
            if type == "mvhd", !range.isEmpty {
                let version = moov[range.lowerBound]
                let fieldWidth = version == 1 ? 8 : 4
                let base = range.lowerBound + 4
                guard let created = moov.bigEndian(at: base, width: fieldWidth),
                      let timescale = moov.bigEndian(at: base + 2 * fieldWidth, width: 4),
                      let duration = moov.bigEndian(at: base + 2 * fieldWidth + 4, width: fieldWidth) else { continue }
                sawMovieHeader = true
                // All ones means "unknown"; a zero timescale or a claim beyond 30 days is not believed.
                if duration != UInt64.max, duration != UInt64(UInt32.max) || version == 1 {
                    header.duration = Plausible.duration(units: duration, timescale: timescale)
                }
                // Beyond year 9999 is a broken clock, not a date (and would overflow later arithmetic).
                if created > UInt64(isoEpochOffset), created < UInt64(isoEpochOffset) + 253_402_300_800 {
                    header.createdAt = Int64(created) - isoEpochOffset
                }
            } else if type == "trak", header.width == nil, let size = videoTrackSize(moov, range) {
                header.width = size.width
                header.height = size.height
            }
        }
        return sawMovieHeader ? header : nil
    }

    /// The displayed size of a video track (tkhd width and height, swapped for a 90° matrix).
    private static func videoTrackSize(_ data: [UInt8], _ trak: Range<Int>) -> (width: Int, height: Int)? {
        let boxes = children(data, in: trak)
        let isVideo = boxes.contains { type, range in
            type == "mdia" && children(data, in: range).contains { childType, childRange in
                childType == "hdlr" && data.matches("vide", at: childRange.lowerBound + 8)
            }
        }
        guard isVideo, let tkhd = boxes.first(where: { $0.0 == "tkhd" })?.1, !tkhd.isEmpty else { return nil }
        let version = data[tkhd.lowerBound]
        let matrixOffset = tkhd.lowerBound + (version == 1 ? 52 : 40)
        guard let a = data.bigEndian(at: matrixOffset, width: 4), let d = data.bigEndian(at: matrixOffset + 16, width: 4),
              let width = data.bigEndian(at: matrixOffset + 36, width: 4),
              let height = data.bigEndian(at: matrixOffset + 40, width: 4) else { return nil }
        guard let size = Plausible.size(width: width >> 16, height: height >> 16) else { return nil }
        return a == 0 && d == 0 ? (size.height, size.width) : size
    }

    // MARK: Matroska and WebM

    private static let matroskaEpochOffset: Int64 = 978_307_200  // 2001-01-01 to 1970-01-01

    private static func matroska(_ file: OpenFile) -> Result<VideoHeader, Failure> {
        var reader = SequentialReader(file: file)
        var header = VideoHeader()
        var timecodeScale: UInt64 = 1_000_000
        var rawDuration: Double?
        var sawInfo = false
        var currentTrackIsVideo = false
        var elements = 0
        // Descend into master elements we care about; skip everything else by its size.
        let masters: Set<UInt32> = [0x18538067, 0x1549A966, 0x1654AE6B, 0xAE, 0xE0]
        scan: while !reader.isAtEnd, elements < 100_000 {
            elements += 1
            guard let id = readElementID(&reader), let size = readElementSize(&reader) else { break }
            switch id {
            case 0x1F43B675:  // Cluster: the header elements are all before the first one
                break scan
            case _ where masters.contains(id):
                if id == 0x1549A966 { sawInfo = true }
                if id == 0xAE { currentTrackIsVideo = false }
                continue
            case 0x2AD7B1, 0x4489, 0x4461, 0x83, 0xB0, 0xBA:
                guard let size, size <= 8, let bytes = reader.bytes(Int(size)) else { return .failure(.noMovieHeader) }
                let value = bytes.bigEndian(at: 0, width: bytes.count) ?? 0
                switch id {
                case 0x2AD7B1: if value > 0 { timecodeScale = value }
                case 0x4489:
                    if bytes.count == 4 { rawDuration = Double(Float(bitPattern: UInt32(value))) }
                    if bytes.count == 8 { rawDuration = Double(bitPattern: value) }
                case 0x4461:
                    if bytes.count == 8 { header.createdAt = Int64(bitPattern: value) / 1_000_000_000 + matroskaEpochOffset }
                case 0x83: currentTrackIsVideo = value == 1
                case 0xB0: if currentTrackIsVideo || header.width == nil { header.width = Int(exactly: value) }
                case 0xBA: if currentTrackIsVideo || header.height == nil { header.height = Int(exactly: value) }
                default: break
                }
            default:
                guard let size else { break scan }  // unknown-size non-master: cannot skip safely
                reader.skip(Int64(clamping: size))
            }
        }
        guard sawInfo else { return .failure(.noMovieHeader) }
        // The float may be infinite or NaN, and a finite one times the scale may overflow to
        // infinity: only the product is checked, and only a plausible one is kept.
        if let rawDuration {
            header.duration = Plausible.duration(rawDuration * Double(timecodeScale) / 1_000_000_000)
        }
        let size = Plausible.size(width: header.width, height: header.height)
        header.width = size?.width
        header.height = size?.height
        return .success(header)
    }

    private static func readElementID(_ reader: inout SequentialReader) -> UInt32? {
        guard let first = reader.byte(), first != 0 else { return nil }
        let length = first.leadingZeroBitCount + 1
        guard length <= 4 else { return nil }
        var id = UInt32(first)
        for _ in 1..<length {
            guard let next = reader.byte() else { return nil }
            id = id << 8 | UInt32(next)
        }
        return id
    }

    /// An element size; the outer nil means unreadable, the inner nil "unknown size".
    private static func readElementSize(_ reader: inout SequentialReader) -> UInt64?? {
        guard let first = reader.byte(), first != 0 else { return nil }
        let length = first.leadingZeroBitCount + 1
        var value = UInt64(first & (0xFF >> length))
        var allOnes = value == UInt64(0xFF >> length)
        for _ in 1..<length {
            guard let next = reader.byte() else { return nil }
            value = value << 8 | UInt64(next)
            allOnes = allOnes && next == 0xFF
        }
        return .some(allOnes ? nil : value)
    }
}
