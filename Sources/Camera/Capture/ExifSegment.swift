// SPDX-License-Identifier: LGPL-2.1-or-later
/// The EXIF block (a JPEG APP1 segment) of a camera capture: when it was taken, in which time
/// zone, with which device, upright. Written by hand: a few fixed tags need no library.
public struct ExifSegment {
    public var make: String
    public var model: String
    /// Local time of the capture, as "YYYY:MM:DD HH:MM:SS".
    public var dateTimeOriginal: String
    /// Milliseconds, as "257".
    public var subsecondsOriginal: String
    /// The local time's offset from UTC, as "+HH:MM".
    public var offsetTimeOriginal: String

    public init(make: String, model: String, dateTimeOriginal: String, subsecondsOriginal: String, offsetTimeOriginal: String) {
        self.make = make
        self.model = model
        self.dateTimeOriginal = dateTimeOriginal
        self.subsecondsOriginal = subsecondsOriginal
        self.offsetTimeOriginal = offsetTimeOriginal
    }

    /// The segment, from its FFE1 marker on.
    public var bytes: [UInt8] {
        var tiff = TIFFWriter()
        // IFD0: tags in ascending order, as TIFF requires.
        let ifd0: [TIFFWriter.Entry] = [
            .ascii(0x010F, make), // Make
            .ascii(0x0110, model), // Model
            .short(0x0112, 1), // Orientation: upright
            .ascii(0x0132, dateTimeOriginal), // DateTime
            .exifPointer(0x8769),
        ]
        let exif: [TIFFWriter.Entry] = [
            .undefined(0x9000, Array("0232".utf8)), // ExifVersion
            .ascii(0x9003, dateTimeOriginal), // DateTimeOriginal
            .ascii(0x9004, dateTimeOriginal), // DateTimeDigitized
            .ascii(0x9010, offsetTimeOriginal), // OffsetTime
            .ascii(0x9011, offsetTimeOriginal), // OffsetTimeOriginal
            .ascii(0x9012, offsetTimeOriginal), // OffsetTimeDigitized
            .ascii(0x9291, subsecondsOriginal), // SubSecTimeOriginal
            .ascii(0x9292, subsecondsOriginal), // SubSecTimeDigitized
        ]
        let body = tiff.write(ifd0: ifd0, exif: exif)
        let payload = Array("Exif".utf8) + [0, 0] + body
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// `jpeg` with this segment right after its start marker.
    public func inserted(into jpeg: [UInt8]) -> [UInt8]? {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        return [0xFF, 0xD8] + bytes + jpeg[2...]
    }
}

/// A little-endian TIFF structure with IFD0 and an EXIF IFD: enough for a capture's tags.
struct TIFFWriter {
    enum Entry {
        case ascii(UInt16, String)
        case short(UInt16, UInt16)
        case undefined(UInt16, [UInt8])
        /// IFD0's pointer to the EXIF IFD (filled in when written).
        case exifPointer(UInt16)

        var tag: UInt16 {
            switch self {
            case .ascii(let tag, _), .short(let tag, _), .undefined(let tag, _), .exifPointer(let tag): tag
            }
        }
    }

    private var bytes: [UInt8] = []

    mutating func write(ifd0: [Entry], exif: [Entry]) -> [UInt8] {
        bytes = Array("II".utf8) + le16(42) + le32(8)
        let ifd0Size = directorySize(ifd0)
        let exifOffset = 8 + ifd0Size
        writeDirectory(ifd0, at: 8, exifOffset: exifOffset)
        writeDirectory(exif, at: exifOffset, exifOffset: 0)
        return bytes
    }

    /// Entries plus the values that do not fit in an entry's four bytes.
    private func directorySize(_ entries: [Entry]) -> Int {
        2 + entries.count * 12 + 4 + entries.map { outOfLineSize($0) }.reduce(0, +)
    }

    private func outOfLineSize(_ entry: Entry) -> Int {
        let size: Int
        switch entry {
        case .ascii(_, let text): size = Array(text.utf8).count + 1
        case .undefined(_, let data): size = data.count
        case .short, .exifPointer: size = 0
        }
        // Values start on a word boundary.
        return size > 4 ? size + size % 2 : 0
    }

    private mutating func writeDirectory(_ entries: [Entry], at offset: Int, exifOffset: Int) {
        precondition(bytes.count == offset)
        var valueOffset = offset + 2 + entries.count * 12 + 4
        var values: [UInt8] = []
        bytes += le16(UInt16(entries.count))
        for entry in entries.sorted(by: { $0.tag < $1.tag }) {
            bytes += le16(entry.tag)
            switch entry {
            case .short(_, let value):
                bytes += le16(3) + le32(1) + le16(value) + [0, 0]
            case .exifPointer:
                bytes += le16(4) + le32(1) + le32(UInt32(exifOffset))
            case .ascii(_, let text):
                field(type: 2, data: Array(text.utf8) + [0], valueOffset: &valueOffset, values: &values)
            case .undefined(_, let data):
                field(type: 7, data: data, valueOffset: &valueOffset, values: &values)
            }
        }
        bytes += le32(0) // no next IFD
        bytes += values
    }

    private mutating func field(type: UInt16, data: [UInt8], valueOffset: inout Int, values: inout [UInt8]) {
        bytes += le16(type) + le32(UInt32(data.count))
        if data.count <= 4 {
            bytes += data + [UInt8](repeating: 0, count: 4 - data.count)
        } else {
            bytes += le32(UInt32(valueOffset))
            let padded = data + (data.count % 2 == 1 ? [0] : [])
            values += padded
            valueOffset += padded.count
        }
    }

    private func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
}
