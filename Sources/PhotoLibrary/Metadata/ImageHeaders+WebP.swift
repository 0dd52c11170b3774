// SPDX-License-Identifier: LGPL-2.1-or-later


/// WebP's RIFF chunks: the canvas and frame count of an animation, the size of a still.
extension ImageHeaders {
    // MARK: WebP

    /// Walks the RIFF chunks of a WebP file, calling `visit` with each chunk's type and offset.
    static func webpChunks(_ file: OpenFile, _ visit: (String, Int64, Int64) -> Bool) {
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
        /// The size its VP8 or VP8L bitstream says (nil when it cannot be read).
        public let stillSize: (width: Int, height: Int)?

        /// Whether the frame lies on the canvas and is the size of its bitstream, as the format
        /// requires: a frame said to be 2,293,824 x 560 on a canvas of 64 x 48 made GdkPixbuf's
        /// loader, asked for that size, allocate 3.9 GB (bench/fuzz).
        public var holdsTogether: Bool {
            guard let stillSize, stillSize.width == width, stillSize.height == height else { return false }
            return x + width <= canvasWidth && y + height <= canvasHeight
        }
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
        // The bitstream's own size (the chunk's payload starts after its 8-byte header).
        let payload = Array(image.bytes.dropFirst(8).prefix(10))
        var stillSize: (width: Int, height: Int)?
        if image.type == "VP8 ", payload.count >= 10, payload[3] == 0x9d, payload[4] == 0x01, payload[5] == 0x2a,
           let width = payload.littleEndian(at: 6, width: 2), let height = payload.littleEndian(at: 8, width: 2) {
            stillSize = (Int(width & 0x3fff), Int(height & 0x3fff))
        } else if image.type == "VP8L", payload.count >= 5, payload[0] == 0x2f, let bits = payload.littleEndian(at: 1, width: 4) {
            stillSize = (Int(bits & 0x3fff) + 1, Int((bits >> 14) & 0x3fff) + 1)
        }
        return WebPFirstFrame(canvasWidth: canvas.width, canvasHeight: canvas.height, x: Int(x) * 2, y: Int(y) * 2,
                              width: frameWidth, height: frameHeight, still: still, stillSize: stillSize)
    }

    static func webpFrameCount(_ file: OpenFile) -> Int? {
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

    static func webpPixelSize(_ file: OpenFile, believable: Bool = true) -> (width: Int, height: Int)? {
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
}
