// SPDX-License-Identifier: LGPL-2.1-or-later
import CExiv2Guard
import CGExiv2
import CGLib
import Glibc
import Synchronization

/// EXIF and XMP fields the index keeps, read through gexiv2 (exiv2).
struct EmbeddedMetadata {
    var pixelWidth: Int?
    var pixelHeight: Int?
    /// The EXIF orientation tag; nil when missing or outside 1-8.
    var orientation: Int?
    var captureDate: CaptureDate?
    var make: String?
    var model: String?
    var lens: String?
    /// Star rating, EXIF Rating or XMP xmp:Rating (the latter wins: Shotwell, digiKam and darktable write it).
    var rating: Int?

    /// Reads the file's metadata; throws exiv2's message when it cannot parse the file at all.
    /// exiv2 opens the file through /proc/self/fd: the very file `OpenFile` checked (a regular
    /// file, not a link or a FIFO swapped in since), without reading it whole into memory.
    /// `exifBlocks` are further EXIF blocks (TIFF structures) the file holds where exiv2 does not
    /// look, such as every EXIF item of a HEIF file; their tags count as the file's own, after it.
    /// A file exiv2 must not open (`ExifLibrary.refusal(forHead:)`) is not opened; its
    /// `exifBlocks` are still read.
    static func read(_ file: OpenFile, exifBlocks: [[UInt8]] = []) throws(MetadataReadError) -> EmbeddedMetadata {
        let refusal = ExifLibrary.refusal(forHead: file.read(at: 0, count: ExifLibrary.headLength))
        let result = ExifLibrary.serialized {
            Result { () throws(MetadataReadError) -> EmbeddedMetadata in
                try readUnserialized(file: refusal == nil ? file : nil, refusal: refusal, exifBlocks: exifBlocks)
            }
        }
        return try result.get()
    }

    private static func readUnserialized(file: OpenFile?, refusal: String?, exifBlocks: [[UInt8]]) throws(MetadataReadError) -> EmbeddedMetadata {
        ExifLibrary.initializeOnce()
        var sources: [Metadata] = []
        defer { sources.forEach { g_object_unref($0) } }
        var fileError = refusal.map { MetadataReadError(message: $0) }
        // In a metadata worker nothing can be opened by name: exiv2 reads the file mapped into
        // memory (it only touches the pages it parses), and the mapping goes once it is done.
        var mapped: (address: UnsafeMutableRawPointer, length: Int)?
        defer { if let mapped { munmap(mapped.address, mapped.length) } }
        if let file, ExifLibrary.readsFromMemory {
            if file.size <= 0 || file.size > ExifLibrary.largestMappedFile {
                fileError = MetadataReadError(message: file.size <= 0 ? "empty file" : "too large to read its metadata")
            } else if let address = mmap(nil, Int(file.size), PROT_READ, MAP_PRIVATE, file.descriptor, 0), address != MAP_FAILED {
                mapped = (address, Int(file.size))
                do {
                    sources.append(try open { metadata, error in
                        guarded_gexiv2_metadata_open_buf(metadata, address.assumingMemoryBound(to: UInt8.self), glong(file.size), &error)
                    })
                } catch {
                    fileError = error
                }
            } else {
                fileError = MetadataReadError(message: "cannot map the file: \(errorDescription(errno))")
            }
        } else if let file {
            let path = file.reopenablePath
            do {
                sources.append(try open { metadata, error in path.withCString { guarded_gexiv2_metadata_open_path(metadata, $0, &error) } })
            } catch {
                fileError = error
            }
        }
        for block in exifBlocks {
            // A damaged block is skipped: the others, and the file itself, may still say enough.
            if let source = try? open({ metadata, error in
                block.withUnsafeBufferPointer { guarded_gexiv2_metadata_open_buf(metadata, $0.baseAddress, glong($0.count), &error) }
            }) {
                sources.append(source)
            }
        }
        if let fileError, sources.isEmpty { throw fileError }

        var result = EmbeddedMetadata()
        // exiv2 passes on what the header claims: a PNG may say 2^31 - 1 pixels a side. Only the
        // file's own header counts: an EXIF block's pixel size is what the camera wrote.
        if fileError == nil, let metadata = sources.first,
           let size = Plausible.size(width: guarded_gexiv2_metadata_get_pixel_width(metadata), height: guarded_gexiv2_metadata_get_pixel_height(metadata)) {
            result.pixelWidth = size.width
            result.pixelHeight = size.height
        }

        /// The tag's text from the first source that has it.
        func string(_ tag: String) -> String? {
            for metadata in sources {
                if let text = string(tag, in: metadata) { return text }
            }
            return nil
        }
        func string(_ tag: String, in metadata: Metadata) -> String? {
            guard guarded_gexiv2_metadata_try_has_tag(metadata, tag, nil) != 0 else { return nil }
            var error: UnsafeMutablePointer<GError>?
            guard let value = guarded_gexiv2_metadata_try_get_tag_string(metadata, tag, &error) else {
                g_clear_error(&error)
                return nil
            }
            defer { g_free(value) }
            let text = String(cString: value).trimmingSpaces
            return text.isEmpty ? nil : text
        }
        func integer(_ tag: String) -> Int? {
            guard let text = string(tag) else { return nil }
            return Int(text) ?? Int(text.prefix { $0 == "-" || $0.isNumber })
        }

        result.orientation = Plausible.orientation(integer("Exif.Image.Orientation") ?? integer("Xmp.tiff.Orientation"))
        result.make = string("Exif.Image.Make")
        result.model = string("Exif.Image.Model")
        result.lens = string("Exif.Photo.LensModel") ?? string("Xmp.exifEX.LensModel") ?? string("Xmp.aux.Lens")
        result.rating = Plausible.rating(integer("Xmp.xmp.Rating") ?? integer("Exif.Image.Rating"))

        // A date from before 1900 or after tomorrow is a camera's clock gone wrong: the next tag
        // is tried, and in the end the file's modification time is used. EXIF's original date
        // comes first, from any source (some TIFF writers put it in IFD0 instead of the Exif IFD),
        // with the sub-seconds and offset of the source that holds it.
        original: for metadata in sources {
            for tag in ["Exif.Photo.DateTimeOriginal", "Exif.Image.DateTimeOriginal"] {
                guard let text = string(tag, in: metadata) else { continue }
                let date = CaptureDate.parse(text, subseconds: string("Exif.Photo.SubSecTimeOriginal", in: metadata),
                                             offset: string("Exif.Photo.OffsetTimeOriginal", in: metadata))
                if let date = Plausible.captureDate(date) {
                    result.captureDate = date
                    break original
                }
            }
        }
        if result.captureDate == nil {
            for tag in ["Xmp.exif.DateTimeOriginal", "Xmp.photoshop.DateCreated", "Exif.Photo.DateTimeDigitized"] {
                if let date = sources.lazy.compactMap({ string(tag, in: $0) }).compactMap({ Plausible.captureDate(CaptureDate.parse($0)) }).first {
                    result.captureDate = date
                    break
                }
            }
        }
        // IPTC's date (newsroom and scanning software) only when no EXIF or XMP date is believed:
        // "2019-05-06" and "07:08:09+02:00" in two datasets; without a time, the day's start.
        if result.captureDate == nil, let day = string("Iptc.Application2.DateCreated") {
            let time = string("Iptc.Application2.TimeCreated") ?? "00:00:00"
            result.captureDate = Plausible.captureDate(CaptureDate.parse(day + "T" + time))
        }
        return result
    }

    private typealias Metadata = UnsafeMutablePointer<GExiv2Metadata>

    /// A new gexiv2 object filled by `load`, or exiv2's message.
    private static func open(_ load: (Metadata, inout UnsafeMutablePointer<GError>?) -> gboolean) throws(MetadataReadError) -> Metadata {
        guard let metadata = guarded_gexiv2_metadata_new() else { throw MetadataReadError(message: "exiv2 is not available or out of memory") }
        var error: UnsafeMutablePointer<GError>?
        if load(metadata, &error) == 0 {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_clear_error(&error)
            g_object_unref(metadata)
            throw MetadataReadError(message: message)
        }
        return metadata
    }
}

struct MetadataReadError: Error {
    let message: String
}

/// exiv2 is set up once per process, with its warnings kept off the terminal and counted instead.
enum ExifLibrary {
    static let warningCount = Atomic<Int>(0)

    /// Loads gexiv2 (CExiv2Guard: on first use, not with the program) and sets it up; false when
    /// it cannot be loaded, and every read then fails as for a file exiv2 cannot read.
    @discardableResult
    static func initializeOnce() -> Bool {
        photopick_exiv2_load { _, _ in ExifLibrary.warningCount.add(1, ordering: .relaxed) } != 0
    }

    /// Set in a metadata worker, which can open nothing by name: files are read mapped instead.
    nonisolated(unsafe) static var readsFromMemory = false
    /// The largest file a worker maps for exiv2 (its address space is bounded).
    static let largestMappedFile: Int64 = 2 << 30

    /// How much of a file `refusal(forHead:)` looks at.
    static let headLength = 32

    /// Why a file must not be handed to exiv2, or nil. exiv2 picks its parser from the content,
    /// and Debian's is built with its video parsers, which abort the process on damaged input (an
    /// assertion in MatroskaVideo::decodeBlock, found by bench/fuzz). The index reads videos with
    /// its own header readers (VideoHeaders), so exiv2 only ever gets what is not a video
    /// container: Matroska and WebM, AVI (RIFF that is not WebP), ASF, and ISO base media or
    /// QuickTime unless it is a HEIF or AVIF image.
    static func refusal(forHead head: [UInt8]) -> String? {
        let container: String?
        if head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) {
            container = "a Matroska"
        } else if head.starts(with: [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11]) {
            container = "an ASF"
        } else if head.matches("RIFF", at: 0) {
            container = head.matches("WEBP", at: 8) ? nil : "a RIFF"
        } else if head.count >= 12, ["moov", "mdat", "free", "wide", "skip", "pnot", "PICT", "junk", "pdin", "prfl", "uuid"]
            .contains(where: { head.matches($0, at: 4) }) {
            container = "a QuickTime"
        } else if head.matches("ftyp", at: 4) {
            // The brands: the major one at 8, the compatible ones from 16 to the end of the box.
            let boxEnd = min(head.count, Int(head.bigEndian(at: 0, width: 4) ?? 0))
            let brands = ([8] + Array(stride(from: 16, to: boxEnd - 3, by: 4))).filter { $0 + 4 <= head.count }
            // HEIF and AVIF images, and Canon's CR3 raw photos.
            let imageBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis", "crx "]
            let isImage = brands.contains { offset in imageBrands.contains(String(decoding: head[offset..<(offset + 4)], as: UTF8.self)) }
            container = isImage ? nil : "an ISO base media"
        } else {
            container = nil
        }
        return container.map { "\($0) container, not an image exiv2 should read" }
    }

    /// exiv2 is used by one thread at a time: gexiv2 sets up its XMP toolkit without the lock
    /// functions the toolkit needs to be used from several threads, and the index's readers and
    /// the thumbnail workers all read metadata. An `urgent` user (a thumbnail on screen) goes
    /// before the index's readers waiting: on a first run they read 60,000 files through it.
    static func serialized<R>(urgent: Bool = false, _ body: () -> R) -> R { lock.withLock(urgent: urgent, body) }
    private static let lock = PriorityLock()
}

/// A preview image embedded in a photo's metadata (the EXIF thumbnail, or a larger preview some
/// cameras add): a first paint for the grid while the full image decodes.
public struct EmbeddedPreview: Sendable {
    /// The encoded image (usually JPEG).
    public let data: [UInt8]
    public let width: Int
    public let height: Int
    /// The photo's EXIF orientation: embedded previews are stored unrotated, like the image.
    public let orientation: Int

    /// The smallest preview of `file` whose shorter side is at least `minimumSide` pixels (the
    /// cheapest to decode that still covers the cell).
    public static func smallest(in file: OpenFile, minimumSide: Int) -> EmbeddedPreview? {
        ExifLibrary.serialized(urgent: true) { smallestUnserialized(in: file, minimumSide: minimumSide) }
    }

    private static func smallestUnserialized(in file: OpenFile, minimumSide: Int) -> EmbeddedPreview? {
        guard ExifLibrary.refusal(forHead: file.read(at: 0, count: ExifLibrary.headLength)) == nil else { return nil }
        ExifLibrary.initializeOnce()
        guard let metadata = guarded_gexiv2_metadata_new() else { return nil }
        defer { g_object_unref(metadata) }
        let opened = file.reopenablePath.withCString { guarded_gexiv2_metadata_open_path(metadata, $0, nil) }
        guard opened != 0, let list = guarded_gexiv2_metadata_get_preview_properties(metadata) else { return nil }
        var best: UnsafeMutablePointer<GExiv2PreviewProperties>?
        var bestArea = Int.max
        var index = 0
        while let properties = list[index] {
            // Two 32-bit sides from the file: their product may not fit an Int unless checked.
            if let size = Plausible.size(width: guarded_gexiv2_preview_properties_get_width(properties),
                                         height: guarded_gexiv2_preview_properties_get_height(properties)),
               min(size.width, size.height) >= minimumSide, size.width * size.height < bestArea {
                best = properties
                bestArea = size.width * size.height
            }
            index += 1
        }
        guard let best else { return nil }
        var error: UnsafeMutablePointer<GError>?
        guard let image = guarded_gexiv2_metadata_try_get_preview_image(metadata, best, &error) else {
            g_clear_error(&error)
            return nil
        }
        defer { g_object_unref(image) }
        var size: guint32 = 0
        guard let bytes = guarded_gexiv2_preview_image_get_data(image, &size), size > 0 else { return nil }
        var orientationError: UnsafeMutablePointer<GError>?
        let orientation = Int(guarded_gexiv2_metadata_try_get_tag_long(metadata, "Exif.Image.Orientation", &orientationError))
        g_clear_error(&orientationError)
        guard let side = Plausible.size(width: guarded_gexiv2_preview_image_get_width(image),
                                        height: guarded_gexiv2_preview_image_get_height(image)) else { return nil }
        return EmbeddedPreview(data: Array(UnsafeBufferPointer(start: bytes, count: Int(size))),
                               width: side.width, height: side.height,
                               orientation: (1...8).contains(orientation) ? orientation : 1)
    }
}
