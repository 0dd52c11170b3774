// SPDX-License-Identifier: LGPL-2.1-or-later
import CDecodeChannel
import Glibc

/// The decode worker's messages, as fixed little-endian records (the worker and the window are
/// the same program, but the reply comes from a process that may have been taken over by a
/// hostile file: every field is checked before it is believed).
///
/// Request (100 bytes, with the file's descriptor): "PPDR", version, box, CPU seconds, pixel limit,
/// kind (0 decode; 1 a check of the sandbox, with no file; 2 decode the EXIF thumbnail embedded
/// in a JPEG, the grid's first paint), the memory the decode may take (its share of the pool's
/// budget: the worker bounds its address space by it), the file's MIME type (64 bytes, NUL
/// padded: the worker cannot read the MIME database to sniff it, shut in as it is).
/// Reply (56 bytes, then `messageLength` bytes of text, and never a descriptor: one that comes is
/// refused): "PPDA", outcome, width, height, rowstride, has alpha, image width, image height,
/// limit, length, and whether the pixels are in the memory file the window made and shares with
/// the worker (the only place pixels are taken from).
enum DecodeMessages {
    static let requestMagic: UInt32 = 0x5244_5050  // "PPDR"
    static let replyMagic: UInt32 = 0x4144_5050    // "PPDA"
    static let version: UInt32 = 2
    static let requestSize = 100
    static let mimeTypeSize = 64
    static let replySize = 56
    static let maximumMessage = 4096
    /// The largest side a reply may have: the largest flavour, with room.
    static let maximumSide = 4096

    struct Request: Equatable {
        enum Kind: UInt32 { case decode = 0, checkSandbox = 1, embeddedPreview = 2 }
        var box: Int
        var cpuSeconds: Int
        var maximumPixels: Int
        var kind = Kind.decode
        /// Bytes of address space the decode may add (`photopick_worker_allow_memory`).
        var memoryAllowance = 1 << 30
        var mimeType = ""

        var bytes: [UInt8] {
            var out: [UInt8] = []
            out.append(le: requestMagic)
            out.append(le: version)
            out.append(le: UInt32(clamping: box))
            out.append(le: UInt32(clamping: cpuSeconds))
            out.append(le: UInt64(clamping: maximumPixels))
            out.append(le: kind.rawValue)
            out.append(le: UInt64(clamping: memoryAllowance))
            let type = Array(mimeType.utf8.prefix(mimeTypeSize - 1))
            return out + type + [UInt8](repeating: 0, count: mimeTypeSize - type.count)
        }

        init(box: Int, cpuSeconds: Int, maximumPixels: Int, kind: Kind = .decode, memoryAllowance: Int = 1 << 30, mimeType: String = "") {
            self.box = box
            self.cpuSeconds = cpuSeconds
            self.maximumPixels = maximumPixels
            self.kind = kind
            self.memoryAllowance = memoryAllowance
            self.mimeType = mimeType
        }

        /// Nil for anything that is not a request of this version with believable values.
        init?(_ bytes: [UInt8]) {
            guard bytes.count == requestSize, bytes.le32(0) == requestMagic, bytes.le32(4) == version else { return nil }
            let box = Int(bytes.le32(8)), seconds = Int(bytes.le32(12)), pixels = bytes.le64(16)
            let allowance = bytes.le64(28)
            guard (1...maximumSide).contains(box), (1...3600).contains(seconds), pixels > 0, pixels <= 1 << 40,
                  let kind = Kind(rawValue: bytes.le32(24)), allowance > 0, allowance <= 1 << 40 else { return nil }
            // A MIME type is letters, digits and a few marks ("image/svg+xml"), or nothing, and
            // ends within its field (a fuzzer found 64 letters and no end: not what we write).
            let type = bytes[36...].prefix { $0 != 0 }
            guard type.count < mimeTypeSize, type.allSatisfy({ (0x21...0x7e).contains($0) }) else { return nil }
            self.init(box: box, cpuSeconds: seconds, maximumPixels: Int(pixels), kind: kind, memoryAllowance: Int(allowance),
                      mimeType: String(decoding: type, as: UTF8.self))
        }
    }

    enum Outcome: UInt32 {
        case decoded = 0, undecodable = 1, tooLarge = 2, temporary = 3
        /// The answer to a check of the sandbox: what each forbidden step met, in `message`.
        case checked = 4
    }

    struct Reply {
        var outcome: Outcome
        var width = 0, height = 0, rowstride = 0
        var hasAlpha = false
        var imageWidth = 0, imageHeight = 0, limit = 0
        /// The pixels are at the start of the worker's shared memory file (no file came with them).
        var inSharedFile = false
        var message = ""

        var bytes: [UInt8] {
            let text = Array(message.utf8.prefix(maximumMessage))
            var out: [UInt8] = []
            out.append(le: replyMagic)
            out.append(le: outcome.rawValue)
            for value in [width, height, rowstride] { out.append(le: UInt32(clamping: value)) }
            out.append(le: UInt32(hasAlpha ? 1 : 0))
            for value in [imageWidth, imageHeight, limit] { out.append(le: UInt64(clamping: value)) }
            out.append(le: UInt32(text.count))
            out.append(le: UInt32(inSharedFile ? 1 : 0))
            return out + text
        }

        /// The fixed part; `messageLength` says how many bytes of text follow. Nil for garbage.
        static func header(_ bytes: [UInt8]) -> (reply: Reply, messageLength: Int)? {
            guard bytes.count == replySize, bytes.le32(0) == replyMagic, let outcome = Outcome(rawValue: bytes.le32(4)) else { return nil }
            let length = Int(bytes.le32(48))
            guard length <= maximumMessage else { return nil }
            var reply = Reply(outcome: outcome)
            reply.width = Int(bytes.le32(8))
            reply.height = Int(bytes.le32(12))
            reply.rowstride = Int(bytes.le32(16))
            reply.hasAlpha = bytes.le32(20) != 0
            reply.imageWidth = Int(clamping: bytes.le64(24))
            reply.imageHeight = Int(clamping: bytes.le64(32))
            reply.limit = Int(clamping: bytes.le64(40))
            reply.inSharedFile = bytes.le32(52) != 0
            return (reply, length)
        }

        /// Whether a decoded picture's sizes hold together: sides within the largest flavour,
        /// a row that holds its pixels, and pixels that fit the file that came with them.
        func pixelsFit(fileSize: Int) -> Bool {
            guard outcome == .decoded, (1...maximumSide).contains(width), (1...maximumSide).contains(height) else { return false }
            let channels = hasAlpha ? 4 : 3
            guard rowstride >= width * channels, rowstride <= width * channels + 64 else { return false }
            // (GdkPixbuf's last row is not padded.)
            return (height - 1) * rowstride + width * channels <= fileSize
        }
    }
}

extension DecodeMessages {
    /// What reading a worker's reply came to.
    enum ReplyRead {
        /// A whole reply: its fixed part, its text, and whether a descriptor came with it (closed
        /// here: the window takes none from a worker).
        case reply(Reply, message: String, cameWithFile: Bool)
        /// The deadline passed, however much of the reply had come.
        case late
        /// The channel ended or failed before the reply was whole (the worker died, or exited).
        case ended
        /// A whole header that is no reply of ours.
        case garbage
    }

    /// Reads one reply from `socket`, each part within the milliseconds `within` says are left
    /// (asked before each part): a worker that sends a byte of it and stops is given up on as
    /// one that sends nothing.
    static func readReply(from socket: Int32, within: () -> Int32) -> ReplyRead {
        var header = [UInt8](repeating: 0, count: replySize)
        var descriptor: Int32 = -1
        let received = photopick_channel_receive_within(socket, &header, header.count, &descriptor, within())
        let timedOut = received < 0 && errno == ETIMEDOUT
        var cameWithFile = descriptor >= 0
        if descriptor >= 0 { close(descriptor) }
        guard received == header.count else { return timedOut ? .late : .ended }
        guard let (reply, length) = Reply.header(header) else { return .garbage }
        var text = [UInt8](repeating: 0, count: length)
        if length > 0 {
            var extra: Int32 = -1
            let got = photopick_channel_receive_within(socket, &text, length, &extra, within())
            let late = got < 0 && errno == ETIMEDOUT
            if extra >= 0 { close(extra) }
            cameWithFile = cameWithFile || extra >= 0
            guard got == length else { return late ? .late : .ended }
        }
        return .reply(reply, message: String(decoding: text, as: UTF8.self), cameWithFile: cameWithFile)
    }
}

extension Array where Element == UInt8 {
    mutating func append(le value: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) } }
    mutating func append(le value: UInt64) { for shift in stride(from: 0, to: 64, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) } }

    func le32(_ offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(self[offset + $1]) << UInt32(8 * $1) }
    }

    func le64(_ offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(self[offset + $1]) << UInt64(8 * $1) }
    }
}
