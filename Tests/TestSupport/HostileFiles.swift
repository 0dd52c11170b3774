// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// Small media files whose headers claim absurd values (durations near 2^64 seconds, infinite or
/// NaN durations, images billions of pixels wide), written byte by byte so each test knows
/// exactly what the reader sees.
public enum HostileFiles {
    // MARK: MP4

    /// An MP4 (ftyp, moov with a version-1 mvhd and one 640×480 video track, an empty mdat)
    /// whose movie header says `duration` units of `timescale` per second, created on
    /// `createdAt` (seconds since 1970).
    public static func mp4(duration: UInt64, timescale: UInt32, createdAt: Int64 = 1_577_836_800) -> [UInt8] {
        let created = UInt64(createdAt + 2_082_844_800)  // the ISO epoch is 1904
        var mvhd: [UInt8] = [1, 0, 0, 0] + be(created, 8) + be(created, 8) + be(UInt64(timescale), 4) + be(duration, 8)
        mvhd += be(0x0001_0000, 4) + be(0x0100, 2) + zeros(10) + identityMatrix + zeros(24) + be(2, 4)
        var tkhd: [UInt8] = [0, 0, 0, 3] + be(created, 4) + be(created, 4) + be(1, 4) + zeros(4) + be(0, 4) + zeros(8)
        tkhd += zeros(8) + identityMatrix + be(640 << 16, 4) + be(480 << 16, 4)
        let hdlr: [UInt8] = zeros(8) + Array("vide".utf8) + zeros(12) + [0]
        let trak = box("trak", box("tkhd", tkhd) + box("mdia", box("hdlr", hdlr)))
        return box("ftyp", Array("isom".utf8) + zeros(4) + Array("isommp41".utf8))
            + box("moov", box("mvhd", mvhd) + trak) + box("mdat", zeros(16))
    }

    private static let identityMatrix: [UInt8] =
        be(0x0001_0000, 4) + zeros(12) + be(0x0001_0000, 4) + zeros(12) + be(0x4000_0000, 4)

    private static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be(UInt64(8 + payload.count), 4) + Array(type.utf8) + payload
    }

    // MARK: HEIF

    /// One EXIF item of a HEIF file: its TIFF structure, and whether it describes the primary
    /// image (a `cdsc` reference to it) or the thumbnail.
    public struct HEIFExif {
        public var tiff: [UInt8]
        public var describesPrimary: Bool
        public init(tiff: [UInt8], describesPrimary: Bool = true) {
            self.tiff = tiff
            self.describesPrimary = describesPrimary
        }
    }

    /// A HEIF file's boxes without coded pixels: a primary image (item 1) of `width` × `height`
    /// with an optional `clap` crop (width, height as whole pixels) and `irot` (quarter turns
    /// anticlockwise), a 160×120 thumbnail (item 2, whose `ispe` comes first in `ipco`, as
    /// Apple writes it), and EXIF items (3, 4, …) whose data is in `mdat`, or in `idat` when
    /// `exifInIdat`. `meta` is the place to break things: `patch` edits its bytes.
    public static func heif(width: UInt32, height: UInt32, crop: (width: UInt32, height: UInt32)? = nil, quarterTurns: UInt8? = nil,
                            exif: [HEIFExif] = [], exifInIdat: Bool = false,
                            clapDenominator: UInt32 = 1, patchMeta: (inout [UInt8]) -> Void = { _ in }) -> [UInt8] {
        let ftyp = box("ftyp", Array("heic".utf8) + zeros(4) + Array("mif1heic".utf8))
        let payloads = exif.map { be(6, 4) + Array("Exif\0\0".utf8) + $0.tiff }

        func meta(dataStart: Int) -> [UInt8] {
            var infe: [UInt8] = []
            infe += box("infe", [2, 0, 0, 0] + be(1, 2) + be(0, 2) + Array("hvc1".utf8) + [0])
            infe += box("infe", [2, 0, 0, 1] + be(2, 2) + be(0, 2) + Array("hvc1".utf8) + [0])
            for index in exif.indices { infe += box("infe", [2, 0, 0, 1] + be(UInt64(3 + index), 2) + be(0, 2) + Array("Exif".utf8) + [0]) }
            let iinf = box("iinf", [0, 0, 0, 0] + be(UInt64(2 + exif.count), 2) + infe)
            // iloc version 1: 4-byte offsets and lengths, no base offset; method 0 (file) or 1 (idat).
            var iloc: [UInt8] = [1, 0, 0, 0, 0x44, 0x00] + be(UInt64(exif.count), 2)
            var position = dataStart
            for (index, payload) in payloads.enumerated() {
                iloc += be(UInt64(3 + index), 2) + be(exifInIdat ? 1 : 0, 2) + be(0, 2) + be(1, 2) + be(UInt64(position), 4) + be(UInt64(payload.count), 4)
                position += payload.count
            }
            var ipco = box("ispe", zeros(4) + be(160, 4) + be(120, 4)) + box("ispe", zeros(4) + be(UInt64(width), 4) + be(UInt64(height), 4))
            var primaryProperties: [UInt8] = [2]
            if let crop {
                ipco += box("clap", be(UInt64(crop.width) * UInt64(clapDenominator), 4) + be(UInt64(clapDenominator), 4)
                                    + be(UInt64(crop.height) * UInt64(clapDenominator), 4) + be(UInt64(clapDenominator), 4) + zeros(16))
                primaryProperties.append(3)
            }
            if let quarterTurns {
                ipco += box("irot", [quarterTurns])
                primaryProperties.append(UInt8(crop == nil ? 3 : 4) | 0x80)  // essential
            }
            let ipma = box("ipma", [0, 0, 0, 0] + be(2, 4) + be(2, 2) + [1, 1] + be(1, 2) + [UInt8(primaryProperties.count)] + primaryProperties)
            let iprp = box("iprp", box("ipco", ipco) + ipma)
            var references = box("thmb", be(2, 2) + be(1, 2) + be(1, 2))
            for (index, item) in exif.enumerated() {
                references += box("cdsc", be(UInt64(3 + index), 2) + be(1, 2) + be(item.describesPrimary ? 1 : 2, 2))
            }
            let iref = box("iref", [0, 0, 0, 0] + references)
            let idat = exifInIdat ? box("idat", payloads.flatMap { $0 }) : []
            var content = box("hdlr", zeros(8) + Array("pict".utf8) + zeros(13)) + box("pitm", [0, 0, 0, 0] + be(1, 2)) + iinf + box("iloc", iloc) + iprp + iref + idat
            content = [0, 0, 0, 0] + content
            patchMeta(&content)
            return box("meta", content)
        }

        if exifInIdat {
            // Offsets count from the start of idat's payload.
            return ftyp + meta(dataStart: 0) + box("mdat", zeros(16))
        }
        let length = meta(dataStart: 0).count
        return ftyp + meta(dataStart: ftyp.count + length + 8) + box("mdat", payloads.flatMap { $0 })
    }

    /// A little-endian TIFF structure as EXIF blocks hold it: IFD0 with `make` (when given) and
    /// `orientation` (when given), and a pointer to an Exif IFD holding DateTimeOriginal (when given).
    public static func exifTIFF(dateTimeOriginal: String? = nil, make: String? = nil, orientation: UInt16? = nil) -> [UInt8] {
        func le(_ value: UInt64, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
        let makeText: [UInt8] = make.map { Array($0.utf8) + [0] } ?? []
        let dateText: [UInt8] = dateTimeOriginal.map { Array($0.utf8) + [0] } ?? []
        let entries = (make == nil ? 0 : 1) + (orientation == nil ? 0 : 1) + 1
        let ifd0Size = 2 + 12 * entries + 4
        let makeOffset = 8 + ifd0Size
        let exifIFDOffset = makeOffset + makeText.count
        let exifIFDSize = 2 + 12 * (dateTimeOriginal == nil ? 0 : 1) + 4
        let dateOffset = exifIFDOffset + exifIFDSize
        var tiff: [UInt8] = Array("II*\0".utf8) + le(8, 4) + le(UInt64(entries), 2)
        if make != nil { tiff += le(0x010F, 2) + le(2, 2) + le(UInt64(makeText.count), 4) + le(UInt64(makeOffset), 4) }
        if let orientation { tiff += le(0x0112, 2) + le(3, 2) + le(1, 4) + le(UInt64(orientation), 2) + le(0, 2) }
        tiff += le(0x8769, 2) + le(4, 2) + le(1, 4) + le(UInt64(exifIFDOffset), 4) + le(0, 4)
        tiff += makeText
        tiff += le(dateTimeOriginal == nil ? 0 : 1, 2)
        if dateTimeOriginal != nil { tiff += le(0x9003, 2) + le(2, 2) + le(UInt64(dateText.count), 4) + le(UInt64(dateOffset), 4) }
        tiff += le(0, 4) + dateText
        return tiff
    }

    // MARK: WebM

    /// A WebM header (EBML, Segment, Info with a millisecond TimecodeScale and a 64-bit float
    /// Duration, one 640×480 video track, the start of a Cluster).
    public static func webm(duration: Double, timecodeScale: UInt64 = 1_000_000) -> [UInt8] {
        webm(durationBytes: be(duration.bitPattern, 8), timecodeScale: timecodeScale)
    }

    /// The same with a 32-bit float Duration.
    public static func webm(duration32: Float) -> [UInt8] {
        webm(durationBytes: be(UInt64(duration32.bitPattern), 4), timecodeScale: 1_000_000)
    }

    private static func webm(durationBytes: [UInt8], timecodeScale: UInt64) -> [UInt8] {
        let header = element([0x42, 0x86], [1]) + element([0x42, 0xF7], [1]) + element([0x42, 0xF2], [4])
            + element([0x42, 0xF3], [8]) + element([0x42, 0x82], Array("webm".utf8)) + element([0x42, 0x87], [2])
            + element([0x42, 0x85], [2])
        let info = element([0x2A, 0xD7, 0xB1], be(timecodeScale, 8)) + element([0x44, 0x89], durationBytes)
        let video = element([0xB0], be(640, 2)) + element([0xBA], be(480, 2))
        let track = element([0x83], [1]) + element([0xE0], video)
        let segment = element([0x15, 0x49, 0xA9, 0x66], info) + element([0x16, 0x54, 0xAE, 0x6B], element([0xAE], track))
            + element([0x1F, 0x43, 0xB6, 0x75], element([0xE7], [0]))
        // The Segment has the "unknown size" a live recording writes.
        return element([0x1A, 0x45, 0xDF, 0xA3], header) + [0x18, 0x53, 0x80, 0x67, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
            + segment
    }

    private static func element(_ id: [UInt8], _ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count < 0x3FFF)
        let size: [UInt8] = payload.count < 0x7F ? [0x80 | UInt8(payload.count)]
            : [0x40 | UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        return id + size + payload
    }

    // MARK: PNG

    /// A PNG whose IHDR claims `width` × `height` pixels (with one tiny IDAT and IEND).
    public static func png(width: UInt32, height: UInt32) -> [UInt8] {
        let ihdr = be(UInt64(width), 4) + be(UInt64(height), 4) + [8, 2, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
            + chunk("IDAT", [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]) + chunk("IEND", [])
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be(UInt64(data.count), 4) + typed + be(UInt64(crc32(typed)), 4)
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    // MARK: Bytes

    private static func be(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
    }

    private static func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }

    /// Writes `bytes` to `name` in `folder`.
    @discardableResult
    public static func write(_ bytes: [UInt8], to folder: URL, name: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    /// A library folder holding one of each hostile file and one sane video, by file name.
    public static func writeLibrary(in folder: URL) throws {
        try write(mp4(duration: UInt64.max - 1, timescale: 1), to: folder, name: "huge-duration.mp4")
        try write(mp4(duration: 5000, timescale: 0), to: folder, name: "timescale-zero.mp4")
        try write(webm(duration: .infinity), to: folder, name: "infinite.webm")
        try write(webm(duration: .nan), to: folder, name: "nan.webm")
        try write(webm(duration: 1e300), to: folder, name: "huge.webm")
        try write(png(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF), to: folder, name: "absurd.png")
        try write(mp4(duration: 7000, timescale: 1000), to: folder, name: "sane.mp4")
    }
}
