import CGExiv2
import CGLib
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
    static func read(_ file: OpenFile) throws(MetadataReadError) -> EmbeddedMetadata {
        try read(path: file.reopenablePath)
    }

    static func read(path: FilePath) throws(MetadataReadError) -> EmbeddedMetadata {
        ExifLibrary.initializeOnce()
        guard let metadata = gexiv2_metadata_new() else { throw MetadataReadError(message: "out of memory") }
        defer { g_object_unref(metadata) }
        var error: UnsafeMutablePointer<GError>?
        let opened = path.withCString { gexiv2_metadata_open_path(metadata, $0, &error) }
        if opened == 0 {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_clear_error(&error)
            throw MetadataReadError(message: message)
        }
        var result = EmbeddedMetadata()
        // exiv2 passes on what the header claims: a PNG may say 2^31 - 1 pixels a side.
        if let size = Plausible.size(width: gexiv2_metadata_get_pixel_width(metadata), height: gexiv2_metadata_get_pixel_height(metadata)) {
            result.pixelWidth = size.width
            result.pixelHeight = size.height
        }

        func string(_ tag: String) -> String? {
            guard gexiv2_metadata_try_has_tag(metadata, tag, nil) != 0 else { return nil }
            var error: UnsafeMutablePointer<GError>?
            guard let value = gexiv2_metadata_try_get_tag_string(metadata, tag, &error) else {
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
        // is tried, and in the end the file's modification time is used.
        if let original = string("Exif.Photo.DateTimeOriginal") {
            result.captureDate = Plausible.captureDate(CaptureDate.parse(original, subseconds: string("Exif.Photo.SubSecTimeOriginal"),
                                                                         offset: string("Exif.Photo.OffsetTimeOriginal")))
        }
        if result.captureDate == nil {
            for tag in ["Xmp.exif.DateTimeOriginal", "Xmp.photoshop.DateCreated", "Exif.Photo.DateTimeDigitized"] {
                if let text = string(tag), let date = Plausible.captureDate(CaptureDate.parse(text)) {
                    result.captureDate = date
                    break
                }
            }
        }
        return result
    }
}

struct MetadataReadError: Error {
    let message: String
}

/// exiv2 is set up once per process, with its warnings kept off the terminal and counted instead.
enum ExifLibrary {
    static let warningCount = Atomic<Int>(0)

    private static let initialized: Bool = {
        _ = gexiv2_initialize()
        gexiv2_log_set_level(GEXIV2_LOG_LEVEL_WARN)
        gexiv2_log_set_handler { _, _ in ExifLibrary.warningCount.add(1, ordering: .relaxed) }
        return true
    }()

    static func initializeOnce() { _ = initialized }
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
        ExifLibrary.initializeOnce()
        guard let metadata = gexiv2_metadata_new() else { return nil }
        defer { g_object_unref(metadata) }
        let opened = file.reopenablePath.withCString { gexiv2_metadata_open_path(metadata, $0, nil) }
        guard opened != 0, let list = gexiv2_metadata_get_preview_properties(metadata) else { return nil }
        var best: UnsafeMutablePointer<GExiv2PreviewProperties>?
        var bestArea = Int.max
        var index = 0
        while let properties = list[index] {
            // Two 32-bit sides from the file: their product may not fit an Int unless checked.
            if let size = Plausible.size(width: gexiv2_preview_properties_get_width(properties),
                                         height: gexiv2_preview_properties_get_height(properties)),
               min(size.width, size.height) >= minimumSide, size.width * size.height < bestArea {
                best = properties
                bestArea = size.width * size.height
            }
            index += 1
        }
        guard let best else { return nil }
        var error: UnsafeMutablePointer<GError>?
        guard let image = gexiv2_metadata_try_get_preview_image(metadata, best, &error) else {
            g_clear_error(&error)
            return nil
        }
        defer { g_object_unref(image) }
        var size: guint32 = 0
        guard let bytes = gexiv2_preview_image_get_data(image, &size), size > 0 else { return nil }
        var orientationError: UnsafeMutablePointer<GError>?
        let orientation = Int(gexiv2_metadata_try_get_tag_long(metadata, "Exif.Image.Orientation", &orientationError))
        g_clear_error(&orientationError)
        guard let side = Plausible.size(width: gexiv2_preview_image_get_width(image),
                                        height: gexiv2_preview_image_get_height(image)) else { return nil }
        return EmbeddedPreview(data: Array(UnsafeBufferPointer(start: bytes, count: Int(size))),
                               width: side.width, height: side.height,
                               orientation: (1...8).contains(orientation) ? orientation : 1)
    }
}
