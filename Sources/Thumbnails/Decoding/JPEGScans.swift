// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc
import PhotoLibrary

/// How many scans a progressive JPEG holds, counted from its markers without decoding it.
/// libjpeg decodes every scan of a progressive file over the whole image, even at 1/8 scale: a
/// few hundred kilobytes of tiny scans over 8000 × 8000 pixels keep a core busy for a minute.
/// Encoders write about ten scans (libjpeg's default script) and rarely more than a few dozen;
/// a file with hundreds is made to hurt.
enum JPEGScans {
    /// More scans than any encoder writes for a photo; a file past it is refused before decoding.
    static let limit = 200

    /// The most scans × 8 × 8 blocks a decode may cost (the luma blocks of the stored size): each
    /// scan is decoded over the whole image whatever the scale, so the work is their product.
    /// GdkPixbuf decodes about 36 million block-scans a second on this project's 2-core machine
    /// (96 scans over 10000 × 10000 took 4.2 s): this is about a second. An encoder's ten scans of
    /// a photo at the 100-megapixel limit are 15.6 million; 199 scans over 100 megapixels (224 KB
    /// made to take a worker for 8.4 s) are 311 million.
    static let workLimit = 40_000_000

    /// The work of decoding `scans` scans over a `width` × `height` picture, in block-scans.
    static func work(scans: Int, width: Int, height: Int) -> Int {
        let (blocks, overflow) = ((width + 7) / 8).multipliedReportingOverflow(by: (height + 7) / 8)
        let (work, overflowing) = blocks.multipliedReportingOverflow(by: scans)
        return overflow || overflowing ? Int.max : work
    }

    /// The number of scans when `file` is a progressive JPEG, counted up to `limit + 1`; nil for
    /// a baseline JPEG (a scan per component at most) or anything that is not a JPEG.
    static func count(in file: OpenFile, upTo limit: Int = JPEGScans.limit) -> Int? {
        count(Reader(size: file.size, read: file.read), upTo: limit)
    }

    /// The same for a JPEG held in memory (an embedded preview).
    static func count(in data: [UInt8], upTo limit: Int = JPEGScans.limit) -> Int? {
        count(Reader(size: Int64(data.count)) { offset, length in
            Array(data[Int(offset)..<Int(min(Int64(data.count), offset + Int64(length)))])
        }, upTo: limit)
    }

    private static func count(_ source: Reader, upTo limit: Int) -> Int? {
        guard let walk = walk(source, upTo: limit, stoppingAtSequential: true), walk.progressive else { return nil }
        return walk.scans
    }

    /// Whether a JPEG ends before its end-of-image marker: cut off (a download or a copy that
    /// stopped). GdkPixbuf decodes what there is, grey below the cut, without an error. Data after
    /// the marker (a phone's motion video, a trailer) does not count: the walk stops at the
    /// first image's end. Nil when `file` is not a JPEG or its markers do not read cleanly.
    static func isCutOff(_ file: OpenFile) -> Bool? {
        guard let walk = walk(Reader(size: file.size, read: file.read), upTo: limit, stoppingAtSequential: false) else { return nil }
        return walk.ranOut
    }

    private struct Walk {
        var scans = 0
        var progressive = false
        /// The file ended inside the image, before its end-of-image marker.
        var ranOut = false
    }

    /// The JPEG's markers, from the start to its end-of-image marker (or `limit` scans).
    private static func walk(_ source: Reader, upTo limit: Int, stoppingAtSequential: Bool) -> Walk? {
        var reader = source
        guard reader.byte(at: 0) == 0xFF, reader.byte(at: 1) == 0xD8 else { return nil }
        var offset: Int64 = 2
        var result = Walk()
        while result.scans <= limit {
            guard offset < reader.size else { result.ranOut = true; return result }
            // A marker: 0xFF, perhaps more 0xFF as fill, then its code.
            guard let first = reader.byte(at: offset) else { result.ranOut = true; return result }
            if first != 0xFF {
                // Bytes that are not a marker: libjpeg skips them (a warning) to the next one, so
                // this walk does too, or junk before a scan would hide it from the limit (bench/fuzz).
                guard let next = reader.nextMarker(from: offset) else { result.ranOut = true; return result }
                offset = next
                continue
            }
            var position = offset + 1
            while reader.byte(at: position) == 0xFF { position += 1 }
            guard let marker = reader.byte(at: position) else { result.ranOut = true; return result }
            offset = position + 1
            if marker == 0x00 { continue }                  // 0xFF 0x00 is no marker: libjpeg looks on
            if marker == 0xD9 { return result }             // end of image
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }  // no length
            guard let high = reader.byte(at: offset), let low = reader.byte(at: offset + 1) else { result.ranOut = true; return result }
            let length = Int64(high) << 8 | Int64(low)
            guard length >= 2 else { return nil }
            switch marker {
            case 0xC2, 0xC6, 0xCA, 0xCE: result.progressive = true  // SOF2, 6, 10, 14
            case 0xC0, 0xC1, 0xC3, 0xC5, 0xC7, 0xC9, 0xCB, 0xCD, 0xCF:  // sequential
                if stoppingAtSequential { return result }
            default: break
            }
            offset += length
            if marker == 0xDA {                              // start of scan: skip its data
                result.scans += 1
                guard let next = reader.nextMarker(from: offset) else { result.ranOut = true; return result }
                offset = next
            }
        }
        return result
    }

    /// Reads the file in blocks, for a walk that goes mostly forwards.
    private struct Reader {
        let size: Int64
        /// Up to `count` bytes at an offset below `size`.
        let read: (_ offset: Int64, _ count: Int) -> [UInt8]
        private var blockStart: Int64 = -1
        private var block: [UInt8] = []
        private static let blockSize = 65536

        init(size: Int64, read: @escaping (Int64, Int) -> [UInt8]) {
            self.size = size
            self.read = read
        }

        mutating func byte(at offset: Int64) -> UInt8? {
            guard offset >= 0, offset < size else { return nil }
            if offset < blockStart || offset >= blockStart + Int64(block.count) {
                blockStart = offset
                block = read(offset, Self.blockSize)
                guard !block.isEmpty else { return nil }
            }
            return block[Int(offset - blockStart)]
        }

        /// The offset of the next marker after entropy-coded data: a 0xFF followed by neither a
        /// stuffed zero nor a restart marker.
        mutating func nextMarker(from start: Int64) -> Int64? {
            var offset = start
            while offset < size {
                guard byte(at: offset) != nil else { return nil }
                // Find the next 0xFF in the block held (memchr: these runs are most of the file).
                let index = Int(offset - blockStart)
                let found = block.withUnsafeBytes { raw -> Int? in
                    guard let hit = memchr(raw.baseAddress! + index, 0xFF, raw.count - index) else { return nil }
                    return raw.baseAddress!.distance(to: UnsafeRawPointer(hit))
                }
                guard let found else {
                    offset = blockStart + Int64(block.count)
                    continue
                }
                let position = blockStart + Int64(found)
                guard let following = byte(at: position + 1) else { return nil }
                // A stuffed zero or a restart marker belongs to the scan's data.
                if following == 0x00 || (0xD0...0xD7).contains(following) {
                    offset = position + 2
                    continue
                }
                return position
            }
            return nil
        }
    }
}
