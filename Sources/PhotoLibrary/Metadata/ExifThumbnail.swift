// SPDX-License-Identifier: LGPL-2.1-or-later
/// The thumbnail a camera or phone embeds in a JPEG's EXIF block (IFD1, usually 160×120), read
/// without exiv2: one read of the first APP1 segment, within the file's first 64 KB. A cell paints
/// it at once while the photo decodes. exiv2 would need its one-thread-at-a-time lock, which the
/// index's readers hold for each file they read on a first run (at a lowered priority: a thumbnail
/// worker waiting on one of them waited for a thread the scheduler had put aside).
public enum ExifThumbnail {
    /// The EXIF thumbnail of a JPEG `file`, with the photo's orientation; nil when it has none
    /// (or its structure does not read cleanly: then there is simply no first paint).
    public static func read(in file: OpenFile) -> EmbeddedPreview? {
        let head = file.read(at: 0, count: 4096)
        guard QuickDate.isJPEG(head), let (start, length) = exifSegment(file, head: head) else { return nil }
        let tiff = file.read(at: start, count: length)
        guard tiff.count == length else { return nil }
        return thumbnail(inTIFF: tiff)
    }

    /// The EXIF orientation of a JPEG `file` (1-8), as GdkPixbuf's JPEG loader reads it: the tag
    /// in the first EXIF block's first IFD. Nil when it has none.
    public static func orientation(in file: OpenFile) -> Int? {
        let head = file.read(at: 0, count: 4096)
        guard QuickDate.isJPEG(head), let (start, length) = exifSegment(file, head: head) else { return nil }
        let tiff = file.read(at: start, count: length)
        guard tiff.count == length, let reader = TIFFNumbers(tiff), reader.integer(2, 2) == 42,
              let first = reader.integer(4, 4), let ifd0 = entries(of: first, in: reader) else { return nil }
        return ifd0.values[0x0112].flatMap { (1...8).contains($0) ? $0 : nil }
    }

    /// An IFD's SHORT or LONG values by tag, and the offset of the IFD after it.
    private static func entries(of ifd: Int, in reader: TIFFNumbers) -> (values: [Int: Int], next: Int)? {
        let integer = reader.integer
        guard let count = integer(ifd, 2), count > 0, count < 1000 else { return nil }
        var values: [Int: Int] = [:]
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = integer(at, 2), let type = integer(at + 2, 2) else { return nil }
            switch type {
            case 3: values[tag] = integer(at + 8, 2)
            case 4: values[tag] = integer(at + 8, 4)
            default: break
            }
        }
        return (values, integer(ifd + 2 + count * 12, 4) ?? 0)
    }

    /// Where the TIFF structure of the first APP1 "Exif" segment lies (offset, length).
    private static func exifSegment(_ file: OpenFile, head: [UInt8]) -> (Int64, Int)? {
        var offset: Int64 = 2
        for _ in 0..<32 {
            let marker = offset + 4 <= Int64(head.count) ? Array(head[Int(offset)..<Int(offset + 4)]) : file.read(at: offset, count: 4)
            guard marker.count == 4, marker[0] == 0xFF else { return nil }
            if marker[1] == 0xDA || marker[1] == 0xD9 { return nil }  // the image data: no EXIF block before it
            let length = Int(marker[2]) << 8 | Int(marker[3])
            guard length >= 2 else { return nil }
            if marker[1] == 0xE1, length >= 8, file.read(at: offset + 4, count: 6) == [0x45, 0x78, 0x69, 0x66, 0, 0] {  // "Exif\0\0"
                return (offset + 10, length - 8)
            }
            offset += 2 + Int64(length)
        }
        return nil
    }

    static func thumbnail(inTIFF tiff: [UInt8]) -> EmbeddedPreview? {
        guard let reader = TIFFNumbers(tiff) else { return nil }
        let integer = reader.integer
        guard integer(2, 2) == 42, let first = integer(4, 4), let ifd0 = entries(of: first, in: reader),
              ifd0.next > 0, ifd0.next != first, let ifd1 = entries(of: ifd0.next, in: reader),
              let start = ifd1.values[0x0201], let length = ifd1.values[0x0202],
              length > 0, start > 0, start <= tiff.count - length else { return nil }
        let data = Array(tiff[start..<(start + length)])
        guard let size = jpegSize(data) else { return nil }
        let orientation = ifd0.values[0x0112].flatMap { (1...8).contains($0) ? $0 : nil } ?? 1
        return EmbeddedPreview(data: data, width: size.width, height: size.height, orientation: orientation)
    }

    /// The width and height in a JPEG's frame header (SOF0 to SOF15, not DHT, JPG or DAC).
    static func jpegSize(_ data: [UInt8]) -> (width: Int, height: Int)? {
        guard data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 else { return nil }
        var offset = 2
        for _ in 0..<64 {
            guard offset + 9 <= data.count, data[offset] == 0xFF else { return nil }
            let marker = data[offset + 1]
            let length = Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = Int(data[offset + 5]) << 8 | Int(data[offset + 6])
                let width = Int(data[offset + 7]) << 8 | Int(data[offset + 8])
                return Plausible.size(width: width, height: height)
            }
            guard length >= 2, marker != 0xDA else { return nil }
            offset += 2 + length
        }
        return nil
    }
}
