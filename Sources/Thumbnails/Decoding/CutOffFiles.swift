// SPDX-License-Identifier: LGPL-2.1-or-later
import PhotoLibrary

/// Whether a photo file stops before its end: a download that was stopped, a copy to a full disk.
/// GdkPixbuf's loaders decode what there is of most such files without an error (a cut-off WebP
/// showed its top and was printed as a pick: issue 40, point 10), so each format's own structure
/// says it, before anything is decoded: the end marker a format has (JPEG, PNG, GIF), or the
/// length its header declares (WebP's RIFF size, TIFF's strips, HEIF's and AVIF's boxes).
enum CutOffFiles {
    /// Why the file is cut off, or nil when it is whole (or not a format checked here).
    static func reason(_ file: OpenFile) -> String? {
        let head = file.read(at: 0, count: 16)
        if JPEGScans.isCutOff(file) == true { return "the JPEG file is cut off (no end of image)" }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            // The last chunk is IEND (length 0, "IEND"); some writers leave bytes after it, which
            // decoders ignore: look for it near the end.
            let tail = file.read(at: max(0, file.size - 4096), count: 4096)
            return contains(tail, [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44]) ? nil : "the PNG file is cut off (no end chunk)"
        }
        if head.starts(with: Array("GIF8".utf8)) {
            // A GIF ends with its trailer byte; some writers pad after it with zeros.
            let tail = file.read(at: max(0, file.size - 4096), count: 4096)
            return tail.reversed().drop(while: { $0 == 0 }).first == 0x3B ? nil : "the GIF file is cut off (no trailer)"
        }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            // RIFF's size counts what follows its first 8 bytes.
            let declared = Int64(littleEndian(head, at: 4, width: 4))
            return file.size < declared + 8 ? "the WebP file is cut off (\(file.size) of \(declared + 8) bytes)" : nil
        }
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            return tiffEnd(file, littleEndian: head[0] == 0x49).map { $0 > file.size ? "the TIFF file is cut off (its picture ends after the file)" : nil } ?? nil
        }
        if head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) {
            return isoBoxesEnd(file).map { $0 > file.size ? "the \(brand(head)) file is cut off (its last box ends after the file)" : nil } ?? nil
        }
        return nil
    }

    private static func brand(_ head: [UInt8]) -> String {
        let major = String(decoding: head[8..<12], as: UTF8.self)
        return major.hasPrefix("avi") ? "AVIF" : "HEIF"
    }

    /// Where the last top-level box of an ISO base media file ends (HEIF, AVIF): its boxes follow
    /// one another, each with its length; one that runs past the file's end was cut. (A last box
    /// of length 0 runs to the end by definition: nil, nothing to tell.)
    private static func isoBoxesEnd(_ file: OpenFile) -> Int64? {
        var offset: Int64 = 0
        for _ in 0..<10_000 {
            guard offset + 8 <= file.size else { return offset }
            let header = file.read(at: offset, count: 16)
            guard header.count >= 8 else { return nil }
            var size = Int64(bigEndian(header, at: 0, width: 4))
            if size == 1 {
                guard header.count >= 16 else { return offset + 16 }
                size = Int64(clamping: bigEndian(header, at: 8, width: 8))
            } else if size == 0 {
                return nil
            }
            guard size >= 8 else { return nil }  // (damaged, not cut: the decoder says so)
            let (end, overflow) = offset.addingReportingOverflow(size)
            if overflow || end > file.size { return overflow ? Int64.max : end }
            offset = end
        }
        return nil
    }

    /// Where the first image's pixel data ends in a TIFF: the furthest strip or tile
    /// (offset + byte count) of its first directory.
    private static func tiffEnd(_ file: OpenFile, littleEndian little: Bool) -> Int64? {
        func value(_ bytes: [UInt8], at index: Int, width: Int) -> UInt64 {
            little ? littleEndian(bytes, at: index, width: width) : bigEndian(bytes, at: index, width: width)
        }
        let ifdOffset = Int64(value(file.read(at: 4, count: 4), at: 0, width: 4))
        guard ifdOffset >= 8 else { return nil }
        let countBytes = file.read(at: ifdOffset, count: 2)
        guard countBytes.count == 2 else { return ifdOffset + 2 }
        let count = Int(value(countBytes, at: 0, width: 2))
        guard count > 0, count < 4096 else { return nil }
        let entries = file.read(at: ifdOffset + 2, count: count * 12)
        guard entries.count == count * 12 else { return ifdOffset + 2 + Int64(count * 12) }
        /// A tag's values (SHORT or LONG), inline or at their offset; at most 1 << 16 of them.
        func values(of tag: UInt64) -> [UInt64]? {
            guard let index = (0..<count).first(where: { value(entries, at: $0 * 12, width: 2) == tag }) else { return nil }
            let type = value(entries, at: index * 12 + 2, width: 2), number = Int(value(entries, at: index * 12 + 4, width: 4))
            let width = type == 3 ? 2 : type == 4 ? 4 : 0
            guard width > 0, number > 0, number <= 1 << 16 else { return nil }
            let data = number * width <= 4 ? Array(entries[(index * 12 + 8)..<(index * 12 + 12)])
                : file.read(at: Int64(value(entries, at: index * 12 + 8, width: 4)), count: number * width)
            guard data.count >= number * width else { return nil }
            return (0..<number).map { value(data, at: $0 * width, width: width) }
        }
        // Strips (273, 279), else tiles (324, 325).
        guard let offsets = values(of: 273) ?? values(of: 324), let counts = values(of: 279) ?? values(of: 325),
              offsets.count == counts.count else { return nil }
        return zip(offsets, counts).map { Int64(clamping: $0 &+ $1) }.max()
    }

    private static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        bytes.count >= pattern.count && (0...(bytes.count - pattern.count)).contains { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }

    private static func littleEndian(_ bytes: [UInt8], at index: Int, width: Int) -> UInt64 {
        guard index + width <= bytes.count else { return 0 }
        return (0..<width).reduce(0) { $0 | UInt64(bytes[index + $1]) << (8 * UInt64($1)) }
    }

    private static func bigEndian(_ bytes: [UInt8], at index: Int, width: Int) -> UInt64 {
        guard index + width <= bytes.count else { return 0 }
        return (0..<width).reduce(0) { $0 << 8 | UInt64(bytes[index + $1]) }
    }
}
