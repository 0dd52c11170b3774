// SPDX-License-Identifier: LGPL-2.1-or-later
/// The metadata worker's messages (`MetadataWorker`, `MetadataWorkers`): a batch of files goes
/// in one request with their descriptors, their outcomes come back in one reply. Little-endian
/// records; the reply comes from a process a hostile file may have taken over, so every field is
/// checked before it is believed, and a reply that does not hold together costs its batch a
/// worker, not the index a wrong row.
///
/// Request: "PPMR", version, count, payload length; then per file: kind (1 photo, 2 video), the
/// MIME type (a byte of length, then its letters), and the date to fall back on (the file time
/// the scan listed: milliseconds, whether an offset follows, the offset, its source).
/// Reply: "PPMA", version, count, payload length; then per file: 0 and a `MediaFile`, or 1 and
/// the reason it failed.
public enum MetadataMessages {
    static let requestMagic: UInt32 = 0x524D_5050  // "PPMR"
    static let replyMagic: UInt32 = 0x414D_5050    // "PPMA"
    static let version: UInt32 = 1
    static let headerSize = 16
    /// Files a batch holds at most: what one message can carry as descriptors.
    public static let maximumBatch = 64
    static let maximumRequestPayload = maximumBatch * 160
    static let maximumReplyPayload = 1 << 20
    /// The longest text a field may have (a camera's model, a failure's reason).
    static let maximumText = 1024

    /// What the worker is asked to do with one file: read its headers as `MetadataReader.parse` does.
    struct Job: Equatable {
        var kind: MediaKind
        var mimeType: String
        var fallbackDate: CaptureDate
    }

    /// A header: the magic, the version, the count and the payload's length; nil for garbage.
    static func header(_ bytes: [UInt8], magic: UInt32, maximumPayload: Int) -> (count: Int, payload: Int)? {
        var reader = ByteReader(bytes)
        guard bytes.count == headerSize, reader.u32() == magic, reader.u32() == version,
              let count = reader.u32(), let payload = reader.u32(),
              (1...UInt32(maximumBatch)).contains(count), payload <= UInt32(maximumPayload) else { return nil }
        return (Int(count), Int(payload))
    }

    static func headerBytes(magic: UInt32, count: Int, payload: Int) -> [UInt8] {
        var writer = ByteWriter()
        writer.u32(magic)
        writer.u32(version)
        writer.u32(UInt32(count))
        writer.u32(UInt32(payload))
        return writer.bytes
    }

    // MARK: Requests

    static func requestPayload(_ jobs: [Job]) -> [UInt8] {
        var writer = ByteWriter()
        for job in jobs {
            writer.u8(UInt8(job.kind.rawValue))
            writer.shortText(job.mimeType)
            writer.date(job.fallbackDate)
        }
        return writer.bytes
    }

    /// The jobs of a request payload, or nil when it is not `count` believable jobs exactly.
    static func jobs(_ payload: [UInt8], count: Int) -> [Job]? {
        var reader = ByteReader(payload)
        var jobs: [Job] = []
        for _ in 0..<count {
            guard let kindValue = reader.u8(), let kind = MediaKind(rawValue: Int(kindValue)), kind != .other,
                  let mimeType = reader.shortText(), ContentType.isPlausibleMIMEType(mimeType),
                  let date = reader.date() else { return nil }
            jobs.append(Job(kind: kind, mimeType: mimeType, fallbackDate: date))
        }
        return reader.isAtEnd ? jobs : nil
    }

    // MARK: Replies

    /// What the worker can answer for one file: never `notMedia` or `vanished` (the window
    /// decided those before asking).
    static func replyPayload(_ outcomes: [ReadOutcome]) -> [UInt8] {
        var writer = ByteWriter()
        for outcome in outcomes {
            switch outcome {
            case .media(let media):
                writer.u8(0)
                writer.u8(UInt8(media.kind.rawValue))
                writer.shortText(media.mimeType)
                writer.optional(media.width) { $0.i64(Int64($1)) }
                writer.optional(media.height) { $0.i64(Int64($1)) }
                writer.u8(UInt8(clamping: media.orientation))
                writer.date(media.captureDate)
                for text in [media.make, media.model, media.lens] { writer.optional(text) { $0.text($1) } }
                writer.optional(media.duration) { $0.u64($1.bitPattern) }
                writer.optional(media.frameCount) { $0.i64(Int64($1)) }
                writer.optional(media.rating) { $0.i64(Int64($1)) }
                writer.u8(media.isPartial ? 1 : 0)
                writer.optional(media.refusedDate) { $0.i64($1) }
            case .failed(let reason):
                writer.u8(1)
                writer.text(reason)
            case .notMedia, .vanished, .unreachable:
                writer.u8(1)
                writer.text("not read")
            }
        }
        return writer.bytes
    }

    /// The outcomes of a reply payload, or nil when it is not `count` believable outcomes exactly.
    static func outcomes(_ payload: [UInt8], count: Int) -> [ReadOutcome]? {
        var reader = ByteReader(payload)
        var outcomes: [ReadOutcome] = []
        for _ in 0..<count {
            switch reader.u8() {
            case 0:
                guard let kindValue = reader.u8(), let kind = MediaKind(rawValue: Int(kindValue)), kind != .other,
                      let mimeType = reader.shortText(), ContentType.isPlausibleMIMEType(mimeType),
                      let width = reader.optional({ $0.i64() }), let height = reader.optional({ $0.i64() }),
                      let orientation = reader.u8(), let date = reader.date(),
                      let make = reader.optional({ $0.text() }), let model = reader.optional({ $0.text() }),
                      let lens = reader.optional({ $0.text() }),
                      let duration = reader.optional({ $0.u64().map(Double.init(bitPattern:)) }),
                      let frames = reader.optional({ $0.i64() }), let rating = reader.optional({ $0.i64() }),
                      let partial = reader.u8(), partial <= 1,
                      let refused = reader.optional({ $0.i64() }), refused.map({ $0 > 0 }) ?? true else { return nil }
                // Sizes and counts as the readers bound them; nothing else could have come from them.
                let sides = [width, height].compactMap { $0 }
                guard sides.allSatisfy({ (1...Int64(Plausible.maximumSide)).contains($0) }), (width == nil) == (height == nil),
                      Plausible.orientations.contains(Int(orientation)),
                      duration.map({ $0.isFinite && $0 >= 0 && $0 <= Plausible.maximumDuration }) ?? true,
                      frames.map({ (1...Int64(Int32.max)).contains($0) }) ?? true,
                      rating.map({ Plausible.ratings.contains(Int($0)) }) ?? true else { return nil }
                var media = MediaFile(kind: kind, mimeType: mimeType, captureDate: date)
                media.width = width.map { Int($0) }
                media.height = height.map { Int($0) }
                media.orientation = Int(orientation)
                media.make = make
                media.model = model
                media.lens = lens
                media.duration = duration
                media.frameCount = frames.map { Int($0) }
                media.rating = rating.map { Int($0) }
                media.isPartial = partial == 1
                media.refusedDate = refused
                outcomes.append(.media(media))
            case 1:
                guard let reason = reader.text(), !reason.isEmpty else { return nil }
                outcomes.append(.failed(reason))
            default:
                return nil
            }
        }
        return reader.isAtEnd ? outcomes : nil
    }
}

// MARK: Bytes

/// Little-endian fields appended to a buffer.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u32(_ value: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) } }
    mutating func u64(_ value: UInt64) { for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) } }
    mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }

    /// Up to 255 bytes of text, after a byte of length.
    mutating func shortText(_ text: String) {
        let utf8 = Array(text.utf8.prefix(255))
        u8(UInt8(utf8.count))
        bytes += utf8
    }

    /// Up to `MetadataMessages.maximumText` bytes of text, after four bytes of length.
    mutating func text(_ text: String) {
        var utf8 = Array(text.utf8.prefix(MetadataMessages.maximumText))
        // (Cut at a character's start: the reader checks that the text is whole UTF-8.)
        while let last = utf8.last, utf8.count == MetadataMessages.maximumText, last & 0xC0 == 0x80 || last >= 0xC0 { utf8.removeLast() }
        u32(UInt32(utf8.count))
        bytes += utf8
    }

    mutating func optional<T>(_ value: T?, _ write: (inout ByteWriter, T) -> Void) {
        guard let value else { return u8(0) }
        u8(1)
        write(&self, value)
    }

    mutating func date(_ date: CaptureDate) {
        i64(date.millisecondsSinceEpoch)
        optional(date.utcOffsetMinutes) { $0.i64(Int64($1)) }
        u8(UInt8(date.source.rawValue))
    }
}

/// Little-endian fields read from a buffer; nil past its end.
struct ByteReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }

    mutating func u8() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u32() -> UInt32? {
        guard bytes.count - position >= 4 else { return nil }
        defer { position += 4 }
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[position + $1]) << UInt32(8 * $1) }
    }

    mutating func u64() -> UInt64? {
        guard bytes.count - position >= 8 else { return nil }
        defer { position += 8 }
        return (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[position + $1]) << UInt64(8 * $1) }
    }

    mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }

    private mutating func utf8(count: Int) -> String? {
        guard count <= MetadataMessages.maximumText, bytes.count - position >= count else { return nil }
        defer { position += count }
        let slice = bytes[position..<(position + count)]
        // Text that is not whole UTF-8 was not written by us.
        guard let text = String(validating: slice, as: UTF8.self) else { return nil }
        return text
    }

    mutating func shortText() -> String? { u8().flatMap { utf8(count: Int($0)) } }
    mutating func text() -> String? { u32().flatMap { $0 <= UInt32(MetadataMessages.maximumText) ? utf8(count: Int($0)) : nil } }

    /// nil when the field is cut off; `.some(nil)` when it says there is no value.
    mutating func optional<T>(_ read: (inout ByteReader) -> T?) -> T?? {
        switch u8() {
        case 0: return .some(nil)
        case 1: return read(&self).map { .some($0) }
        default: return nil
        }
    }

    mutating func date() -> CaptureDate? {
        guard let milliseconds = i64(), let offset = optional({ $0.i64() }), let sourceValue = u8(),
              let source = CaptureDate.Source(rawValue: Int(sourceValue)) else { return nil }
        if let offset, Plausible.utcOffset(Int(clamping: offset)) == nil { return nil }
        return CaptureDate(millisecondsSinceEpoch: milliseconds, utcOffsetMinutes: offset.map { Int($0) }, source: source)
    }
}
