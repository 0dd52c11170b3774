// SPDX-License-Identifier: LGPL-2.1-or-later
import PhotoLibrary

/// A JPEG's colour profile in APP2 "ICC_PROFILE" chunks, as GdkPixbuf's JPEG loader puts it
/// together. Debian 12's fix for CVE-2025-7345 (gdk-pixbuf 2.42.10+dfsg-1+deb12u3) frees the
/// profile at any APP2 segment it does not take, another program's or a chunk it refuses, but
/// keeps its allocated size: a later chunk is then copied to a null pointer, and the loader ends
/// its process (bench/fuzz, decode target). Such a file is refused before GdkPixbuf sees it.
enum JPEGProfileChunks {
    /// Whether GdkPixbuf's loader would copy a chunk of `file`'s profile to a freed buffer: the
    /// loader's steps replayed over the APP2 segments before the first scan.
    static func breakGdkPixbuf(_ file: OpenFile) -> Bool {
        guard file.read(at: 0, count: 2) == [0xFF, 0xD8] else { return false }
        var allocated = 0, held = false
        var offset: Int64 = 2
        var segments = 0
        while offset + 4 <= file.size, segments < 100_000 {
            segments += 1
            let head = file.read(at: offset, count: 18)
            guard head.count >= 4 else { return false }
            // (libjpeg skips bytes that are not a marker to the next 0xFF, and fill bytes.)
            if head[0] != 0xFF {
                guard let next = nextMarkerByte(in: file, from: offset) else { return false }
                offset = next
                continue
            }
            if head[1] == 0xFF { offset += 1; continue }
            let code = head[1]
            // (0xFF 0x00 is not a marker: libjpeg skips it and looks on.)
            if code == 0x00 || code == 0xD8 || (0xD0...0xD7).contains(code) || code == 0x01 { offset += 2; continue }
            // The loader's markers are those libjpeg read with the header: up to the first scan.
            if code == 0xDA || code == 0xD9 { return false }
            let length = Int(head[2]) << 8 | Int(head[3])
            guard length >= 2 else { return false }
            offset += 2 + Int64(length)
            guard code == 0xE2 else { continue }
            let data = Array(head.dropFirst(4)), dataLength = length - 2
            let isChunk = dataLength >= 16 && data.count >= 14 && data.prefix(12).elementsEqual(Array("ICC_PROFILE".utf8) + [0])
            let sequence = isChunk ? Int(data[12]) : 0, chunks = isChunk ? Int(data[13]) : 0
            guard isChunk, sequence > 0, sequence <= chunks else {
                held = false  // refused: freed, its size kept
                continue
            }
            let size = dataLength - 14, at = (sequence - 1) * 0xFFEF
            if chunks == 1 {
                if allocated > 0 { held = false; continue }
                allocated = size
                held = true
                continue
            }
            if allocated == 0 {
                allocated = chunks * 0xFFFF
                held = true
            }
            if at + size > allocated { held = false; continue }
            if !held { return true }  // copied to the freed profile's null pointer
        }
        return false
    }

    /// Where the next 0xFF is from `offset`, read 4 KB at a time.
    private static func nextMarkerByte(in file: OpenFile, from offset: Int64) -> Int64? {
        var at = offset
        while at < file.size {
            let chunk = file.read(at: at, count: 4096)
            if chunk.isEmpty { return nil }
            if let index = chunk.firstIndex(of: 0xFF) { return at + Int64(index) }
            at += Int64(chunk.count)
        }
        return nil
    }
}
