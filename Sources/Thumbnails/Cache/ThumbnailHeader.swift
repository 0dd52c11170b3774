// SPDX-License-Identifier: LGPL-2.1-or-later
import PhotoLibrary

/// What a thumbnail PNG says about itself before a pixel of it is decoded: its size (IHDR) and
/// the text keys written ahead of its image data, where GdkPixbuf (so GNOME and Photopick) puts
/// Thumb::URI, Thumb::MTime and Thumb::Size. A thumbnail is a file anyone can plant beside the
/// photos (a shared `.sh_thumbnails` repository comes with the folder), so it is judged on these
/// first: a 200 KB PNG can claim 40000 × 40000 pixels, gigabytes once decoded.
struct ThumbnailHeader: Equatable {
    var width: Int
    var height: Int
    /// tEXt and uncompressed iTXt entries found before the first IDAT chunk.
    var text: [String: String]

    /// The first bytes hold the header and the keys in every thumbnail written by GdkPixbuf.
    static let bytesRead = 8192

    /// Nil when the file is not a PNG (or its header chunk is damaged).
    static func read(_ file: OpenFile) -> ThumbnailHeader? {
        parse(file.read(at: 0, count: bytesRead))
    }

    static func parse(_ bytes: [UInt8]) -> ThumbnailHeader? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 33, bytes.starts(with: signature) else { return nil }
        func number(at offset: Int) -> Int {
            bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
        }
        // IHDR comes first, 13 bytes long: width and height, each 4 bytes big-endian.
        guard number(at: 8) == 13, bytes[12..<16].elementsEqual(Array("IHDR".utf8)) else { return nil }
        var header = ThumbnailHeader(width: number(at: 16), height: number(at: 20), text: [:])
        var offset = 33  // signature, IHDR's length, type, 13 bytes and CRC
        while offset + 8 <= bytes.count {
            let length = number(at: offset)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if type == "IDAT" || type == "IEND" { break }
            let start = offset + 8, end = start + length
            guard length >= 0, end <= bytes.count else { break }  // a chunk past what was read
            let data = bytes[start..<end]
            if type == "tEXt", let zero = data.firstIndex(of: 0) {
                // Latin-1, which maps byte for byte to the first 256 code points.
                let key = String(data[..<zero].map { Character(Unicode.Scalar($0)) })
                header.text[key] = String(data[(zero + 1)...].map { Character(Unicode.Scalar($0)) })
            } else if type == "iTXt", let zero = data.firstIndex(of: 0), zero + 2 < end, data[zero + 1] == 0 {
                // keyword, NUL, compression flag (0: none), method, language, NUL, translated
                // keyword, NUL, UTF-8 text.
                var rest = data[(zero + 3)...]
                for _ in 0..<2 {
                    guard let next = rest.firstIndex(of: 0) else { rest = []; break }
                    rest = rest[(next + 1)...]
                }
                header.text[String(decoding: data[..<zero], as: UTF8.self)] = String(decoding: rest, as: UTF8.self)
            }
            offset = end + 4  // and the CRC
        }
        return header
    }
}
