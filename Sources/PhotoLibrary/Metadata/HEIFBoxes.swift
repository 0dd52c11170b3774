// SPDX-License-Identifier: LGPL-2.1-or-later
/// What the index takes from a HEIF (HEIC, AVIF) file's ISOBMFF boxes: the displayed size of the
/// primary image and every EXIF item. exiv2 0.27 reports the first `ispe` it meets (often a grid
/// tile or a thumbnail) and at most one EXIF item, and editors copy the camera's EXIF pixel size
/// into their output unchanged, so neither says how big the picture is shown.
///
/// Only the `meta` box is read (bounded by `metaLimit`), and EXIF items by their `iloc` extents
/// (bounded by `exifLimit`); no number from the file is used before it is range-checked.
struct HEIFBoxes {
    /// The primary image's size after its `clap` crop and `irot` rotation, as decoders show it.
    var displayedSize: (width: Int, height: Int)?
    /// The EXIF items as TIFF structures ("II*\0…"), those describing the primary image first.
    var exifBlocks: [[UInt8]] = []

    static let mimeTypes: Set<String> = ["image/heif", "image/heic", "image/heif-sequence", "image/heic-sequence", "image/avif"]
    /// A `meta` box is a few kilobytes (a 48-megapixel grid of 512-pixel tiles: about 10 kB).
    static let metaLimit = 4 << 20
    /// EXIF in a JPEG is at most 64 kB; maker notes in HEIF files stay well below this.
    static let exifLimit = 4 << 20
    /// More EXIF items than this is not a photo.
    static let exifItemLimit = 16

    static func read(_ file: OpenFile) -> HEIFBoxes? {
        guard let meta = metaBox(file) else { return nil }
        var boxes = HEIFBoxes()
        let children = Box.children(of: meta, from: 4)  // meta is a full box
        let primary = children.first { $0.type == "pitm" }.flatMap(primaryItem)
        let items = children.first { $0.type == "iinf" }.map(itemTypes) ?? [:]
        if let primary, let iprp = children.first(where: { $0.type == "iprp" }) {
            boxes.displayedSize = displayedSize(of: primary, properties: iprp)
        }
        let exifItems = items.filter { $0.value == "Exif" }.map(\.key).sorted()
        if !exifItems.isEmpty, let iloc = children.first(where: { $0.type == "iloc" }) {
            let describesPrimary = Set(children.first { $0.type == "iref" }.map { references(in: $0, type: "cdsc", to: primary) } ?? [])
            let ordered = exifItems.filter { describesPrimary.contains($0) } + exifItems.filter { !describesPrimary.contains($0) }
            let locations = itemLocations(iloc)
            let idat = children.first { $0.type == "idat" }
            for item in ordered.prefix(exifItemLimit) {
                if let location = locations[item], let data = location.read(file, idat: idat), let block = tiffBlock(data) {
                    boxes.exifBlocks.append(block)
                }
            }
        }
        return boxes
    }

    // MARK: Boxes

    /// One box's type and payload (the bytes after its header).
    struct Box {
        var type: String
        var payload: ArraySlice<UInt8>
        /// The payload's offset in the file (for `idat` extents).
        var payloadOffset: Int64

        /// The boxes inside `bytes` from `start`, stopping at the first that does not fit.
        static func children(of box: Box, from start: Int) -> [Box] {
            children(in: box.payload, from: box.payload.startIndex + start, fileOffset: box.payloadOffset - Int64(box.payload.startIndex))
        }

        static func children(in bytes: ArraySlice<UInt8>, from start: Int, fileOffset: Int64) -> [Box] {
            var boxes: [Box] = []
            var offset = start
            while offset + 8 <= bytes.endIndex, boxes.count < 100_000 {
                guard let size32 = bytes.bigEndian(at: offset, width: 4) else { break }
                var header = 8
                var size = Int(size32)
                if size32 == 1 {
                    guard let size64 = bytes.bigEndian(at: offset + 8, width: 8), size64 <= UInt64(bytes.endIndex - offset) else { break }
                    header = 16
                    size = Int(size64)
                } else if size32 == 0 {
                    size = bytes.endIndex - offset  // to the end of the enclosing box
                }
                guard size >= header, size <= bytes.endIndex - offset else { break }
                let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
                boxes.append(Box(type: type, payload: bytes[(offset + header)..<(offset + size)],
                                 payloadOffset: fileOffset + Int64(offset + header)))
                offset += size
            }
            return boxes
        }
    }

    /// The top-level `meta` box, read whole when it is no larger than `metaLimit`.
    private static func metaBox(_ file: OpenFile) -> Box? {
        let ftyp = file.read(at: 0, count: 12)
        guard ftyp.matches("ftyp", at: 4) else { return nil }
        var offset: Int64 = 0
        var boxes = 0
        while offset + 8 <= file.size, boxes < 1000 {
            boxes += 1
            let header = file.read(at: offset, count: 16)
            guard let size32 = header.bigEndian(at: 0, width: 4) else { return nil }
            var headerSize: Int64 = 8
            var size = Int64(size32)
            if size32 == 1 {
                guard let size64 = header.bigEndian(at: 8, width: 8), size64 <= UInt64(file.size - offset) else { return nil }
                headerSize = 16
                size = Int64(size64)
            } else if size32 == 0 {
                size = file.size - offset
            }
            guard size >= headerSize, size <= file.size - offset else { return nil }
            if header.matches("meta", at: 4) {
                guard size - headerSize <= metaLimit else { return nil }
                let payload = file.read(at: offset + headerSize, count: Int(size - headerSize))
                guard payload.count == Int(size - headerSize) else { return nil }
                return Box(type: "meta", payload: payload[...], payloadOffset: offset + headerSize)
            }
            offset += size
        }
        return nil
    }

    /// A full box's version (the byte before its 24 flag bits).
    private static func version(_ box: Box) -> UInt8? { box.payload.first }

    private static func primaryItem(_ pitm: Box) -> UInt32? {
        let start = pitm.payload.startIndex
        let value = version(pitm) == 0 ? pitm.payload.bigEndian(at: start + 4, width: 2) : pitm.payload.bigEndian(at: start + 4, width: 4)
        return value.map { UInt32($0) }
    }

    /// Item IDs and their types from `iinf` (`infe` version 2 and 3 say the type).
    private static func itemTypes(_ iinf: Box) -> [UInt32: String] {
        var types: [UInt32: String] = [:]
        for infe in Box.children(of: iinf, from: version(iinf) == 0 ? 6 : 8) where infe.type == "infe" {
            let bytes = infe.payload, start = bytes.startIndex
            switch version(infe) {
            case 2:
                guard let item = bytes.bigEndian(at: start + 4, width: 2), bytes.count >= 12 else { continue }
                types[UInt32(item)] = String(decoding: bytes[(start + 8)..<(start + 12)], as: UTF8.self)
            case 3:
                guard let item = bytes.bigEndian(at: start + 4, width: 4), bytes.count >= 14 else { continue }
                types[UInt32(item)] = String(decoding: bytes[(start + 10)..<(start + 14)], as: UTF8.self)
            default:
                continue
            }
        }
        return types
    }

    /// The items that point at `target` with references of `type` (an EXIF item's `cdsc`).
    private static func references(in iref: Box, type: String, to target: UInt32?) -> [UInt32] {
        guard let target else { return [] }
        let width = version(iref) == 0 ? 2 : 4
        var sources: [UInt32] = []
        for reference in Box.children(of: iref, from: 4) where reference.type == type {
            let bytes = reference.payload, start = bytes.startIndex
            guard let from = bytes.bigEndian(at: start, width: width),
                  let count = bytes.bigEndian(at: start + width, width: 2) else { continue }
            for index in 0..<Int(count) {
                guard let to = bytes.bigEndian(at: start + width + 2 + index * width, width: width) else { break }
                if to == target { sources.append(UInt32(from)) }
            }
        }
        return sources
    }

    // MARK: Properties

    /// The primary item's `ispe` size, cropped by `clap` and turned by `irot`.
    private static func displayedSize(of item: UInt32, properties iprp: Box) -> (width: Int, height: Int)? {
        let children = Box.children(of: iprp, from: 0)
        guard let ipco = children.first(where: { $0.type == "ipco" }) else { return nil }
        let list = Box.children(of: ipco, from: 0)
        var width: Int?, height: Int?
        var quarterTurns = 0
        var crop: (width: Int, height: Int)?
        for ipma in children where ipma.type == "ipma" {
            for index in associations(in: ipma, of: item) where index >= 1 && index <= list.count {
                let property = list[index - 1], bytes = property.payload, start = bytes.startIndex
                switch property.type {
                case "ispe":
                    guard let w = bytes.bigEndian(at: start + 4, width: 4), let h = bytes.bigEndian(at: start + 8, width: 4) else { continue }
                    width = Int(w)
                    height = Int(h)
                case "irot":
                    guard let angle = bytes.first else { continue }
                    quarterTurns = Int(angle & 0x03)
                case "clap":
                    guard let wn = bytes.bigEndian(at: start, width: 4), let wd = bytes.bigEndian(at: start + 4, width: 4),
                          let hn = bytes.bigEndian(at: start + 8, width: 4), let hd = bytes.bigEndian(at: start + 12, width: 4),
                          wd > 0, hd > 0 else { continue }
                    // Fractions of pixels, rounded as libheif does.
                    crop = (Int((wn + wd / 2) / wd), Int((hn + hd / 2) / hd))
                default:
                    continue
                }
            }
        }
        guard var size = Plausible.size(width: width, height: height) else { return nil }
        // A crop can only make the picture smaller; a larger or empty one is ignored.
        if let crop, (1...size.width).contains(crop.width), (1...size.height).contains(crop.height) { size = crop }
        return quarterTurns % 2 == 1 ? (size.height, size.width) : size
    }

    /// The 1-based property indexes `ipma` associates with `item`, in order.
    private static func associations(in ipma: Box, of item: UInt32) -> [Int] {
        let bytes = ipma.payload, start = bytes.startIndex
        guard let flags = bytes.bigEndian(at: start + 1, width: 3), let count = bytes.bigEndian(at: start + 4, width: 4) else { return [] }
        let itemWidth = version(ipma) == 0 ? 2 : 4
        let indexWidth = flags & 1 != 0 ? 2 : 1
        var offset = start + 8
        for _ in 0..<min(count, UInt64(bytes.count)) {
            guard let id = bytes.bigEndian(at: offset, width: itemWidth), let number = bytes.bigEndian(at: offset + itemWidth, width: 1) else { return [] }
            offset += itemWidth + 1
            var indexes: [Int] = []
            for _ in 0..<Int(number) {
                guard let value = bytes.bigEndian(at: offset, width: indexWidth) else { return [] }
                indexes.append(Int(value) & (indexWidth == 2 ? 0x7FFF : 0x7F))  // the top bit says "essential"
                offset += indexWidth
            }
            if id == item { return indexes }
        }
        return []
    }

    // MARK: Item data

    /// Where an item's bytes are: extents in the file (construction method 0) or in `idat` (1).
    struct Location {
        var inIdat: Bool
        var extents: [(offset: UInt64, length: UInt64)]

        /// The item's bytes, or nil when they are out of the file, over `exifLimit`, or unreadable.
        func read(_ file: OpenFile, idat: Box?) -> [UInt8]? {
            var data: [UInt8] = []
            for extent in extents {
                let (base, available): (Int64, Int64)
                if inIdat {
                    guard let idat else { return nil }
                    (base, available) = (idat.payloadOffset, Int64(idat.payload.count))
                } else {
                    (base, available) = (0, file.size)
                }
                guard extent.offset < UInt64(available) else { return nil }
                // A length of 0 means "to the end".
                let length = extent.length == 0 ? UInt64(available) - extent.offset : extent.length
                guard length <= UInt64(available) - extent.offset, UInt64(data.count) + length <= UInt64(exifLimit) else { return nil }
                let bytes = file.read(at: base + Int64(extent.offset), count: Int(length))
                guard bytes.count == Int(length) else { return nil }
                data += bytes
            }
            return data
        }
    }

    /// Every item's location from `iloc` (versions 0, 1 and 2).
    private static func itemLocations(_ iloc: Box) -> [UInt32: Location] {
        let bytes = iloc.payload
        guard let itemVersion = version(iloc), itemVersion <= 2,
              let sizes = bytes.bigEndian(at: bytes.startIndex + 4, width: 2) else { return [:] }
        let offsetSize = Int(sizes >> 12), lengthSize = Int((sizes >> 8) & 0xF), baseSize = Int((sizes >> 4) & 0xF)
        let indexSize = itemVersion == 0 ? 0 : Int(sizes & 0xF)
        // Field sizes are 0, 4 or 8 bytes; anything else is not an iloc we can read.
        guard [offsetSize, lengthSize, baseSize, indexSize].allSatisfy({ [0, 4, 8].contains($0) }) else { return [:] }
        let idWidth = itemVersion == 2 ? 4 : 2
        var offset = bytes.startIndex + 6
        func field(_ width: Int) -> UInt64? {
            if width == 0 { return 0 }
            defer { offset += width }
            return bytes.bigEndian(at: offset, width: width)
        }
        guard let count = field(itemVersion == 2 ? 4 : 2) else { return [:] }
        var locations: [UInt32: Location] = [:]
        for _ in 0..<min(count, UInt64(bytes.count)) {
            guard let id = field(idWidth) else { break }
            var method: UInt64 = 0
            if itemVersion >= 1 { guard let value = field(2) else { break }; method = value & 0xF }
            guard field(2) != nil, let base = field(baseSize), let extentCount = field(2) else { break }
            var extents: [(offset: UInt64, length: UInt64)] = []
            for _ in 0..<extentCount {
                guard field(indexSize) != nil, let start = field(offsetSize), let length = field(lengthSize) else { return locations }
                let (sum, overflow) = base.addingReportingOverflow(start)
                guard !overflow else { extents = []; break }
                extents.append((sum, length))
            }
            // Method 2 (data in another item) is not used for EXIF by any writer we know.
            if method <= 1, !extents.isEmpty { locations[UInt32(truncatingIfNeeded: id)] = Location(inIdat: method == 1, extents: extents) }
        }
        return locations
    }

    /// An EXIF item is a 32-bit offset to the TIFF header, then (usually) "Exif\0\0", then TIFF.
    private static func tiffBlock(_ data: [UInt8]) -> [UInt8]? {
        guard let skip = data.bigEndian(at: 0, width: 4), skip <= UInt64(data.count - 4) else { return nil }
        var start = 4 + Int(skip)
        // Some writers give an offset of 0 and still put "Exif\0\0" first.
        if data.matches("Exif\0\0", at: start) { start += 6 }
        let isTIFF = data.matches("II*\0", at: start) || data.matches("MM\0*", at: start)
        return isTIFF ? Array(data[start...]) : nil
    }
}

extension ArraySlice where Element == UInt8 {
    /// A big-endian number at an absolute index of the slice; nil past its end.
    func bigEndian(at offset: Int, width: Int) -> UInt64? {
        guard offset >= startIndex, width <= 8, offset + width <= endIndex else { return nil }
        var value: UInt64 = 0
        for index in offset..<(offset + width) { value = value << 8 | UInt64(self[index]) }
        return value
    }
}
