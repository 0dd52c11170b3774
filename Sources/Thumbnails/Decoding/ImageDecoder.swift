// SPDX-License-Identifier: LGPL-2.1-or-later
import CGdkPixbuf
import CGLib
import CJPEGDC
import Glibc
import PhotoLibrary
import Synchronization

/// Decodes a still image at thumbnail size through GdkPixbuf's loaders (JPEG, PNG, GIF, WebP,
/// TIFF, HEIF, AVIF … whatever is installed). The size is set before decoding, so the JPEG loader
/// uses libjpeg's DCT scaling instead of decoding every pixel and shrinking afterwards. The header
/// is read first, and anything above the pixel limit is refused before a pixel is decoded.
public struct ImageDecoder: Sendable {
    /// Images larger than this are not decoded for thumbnails (decompression bombs).
    public var maximumPixels: Int

    public init(maximumPixels: Int = 100_000_000) {
        self.maximumPixels = maximumPixels
        LoaderMessages.install()
    }

    public struct Decoded {
        public let pixbuf: Pixbuf
        /// The image's own size, after orientation.
        public let imageWidth: Int
        public let imageHeight: Int
    }

    /// Decodes `file` to fit in `box` × `box` pixels, upright (EXIF orientation applied), and for
    /// animations the first frame.
    /// `mimeType`, when given, picks the loader (a decode worker cannot read the MIME database
    /// GdkPixbuf sniffs with); else GdkPixbuf recognises the format itself.
    public func decode(_ file: OpenFile, fittingIn box: Int, mimeType: String? = nil) -> Result<Decoded, ThumbnailFailure> {
        // Our own reading of the header comes first: some loaders allocate the whole image just
        // to say its size (a 64 x 16,711,728 WebP asked for 3.2 GB; bench/fuzz found it).
        // (Other formats' headers by their type: GdkPixbuf's PNM loader, refused a size in
        // "size-prepared", still allocated the whole picture, 2.3 GB for 25 bytes; bench/fuzz.)
        if let declared = mimeType.map({ ImageHeaders.declaredSize(of: file, mimeType: $0) }) ?? ImageHeaders.declaredSize(of: file) {
            let (pixels, overflow) = declared.width.multipliedReportingOverflow(by: declared.height)
            if overflow || pixels > maximumPixels {
                return .failure(.tooLarge(width: declared.width, height: declared.height, limit: maximumPixels))
            }
        }
        // An animation costs canvas × frames in GdkPixbuf's WebP loader, which decodes them all:
        // the first frame alone, at thumbnail size, is what a thumbnail shows.
        if let frame = ImageHeaders.webpFirstFrame(of: file) { return decodeFirstFrame(frame, fittingIn: box) }
        let scans = JPEGScans.count(in: file)
        if let scans {
            if scans > JPEGScans.limit {
                return .failure(.undecodable("a progressive JPEG of more than \(JPEGScans.limit) scans (made to be slow to decode)"))
            }
            // Fewer scans over a huge picture cost as much: the limit is on their product.
            if let size = ImageHeaders.decodedPixelSize(of: file, mimeType: "image/jpeg"),
               JPEGScans.work(scans: scans, width: size.width, height: size.height) > JPEGScans.workLimit {
                let megapixels = (size.width * size.height + 500_000) / 1_000_000
                return .failure(.undecodable("a progressive JPEG of \(scans) scans over \(megapixels) megapixels (made to be slow to decode)"))
            }
        }
        // GdkPixbuf's BMP loader grows its buffer to the info header's size before it checks it:
        // 4 GB for a 108-byte file (bench/fuzz). It reads only these five sizes.
        let head = file.read(at: 0, count: 18)
        if head.count == 18, head.starts(with: Array("BM".utf8)),
           case let size = head[14...17].reversed().reduce(0, { $0 << 8 | Int($1) }), ![12, 40, 64, 108, 124].contains(size) {
            return .failure(.undecodable("a BMP whose header size (\(size) bytes) is none a BMP has"))
        }
        // GdkPixbuf decodes what there is of a cut-off file, grey below the cut, mostly without
        // an error: such a file is damaged, not a photo to send (said before any decoding).
        if let reason = CutOffFiles.reason(file) { return .failure(.undecodable(reason)) }
        let width: Int, height: Int, scaled: OpaquePointer
        let isXPM = mimeType == "image/x-xpixmap" || file.read(at: 0, count: 9) == Array("/* XPM */".utf8)
        if let eighth = loadEighth(file, fittingIn: box) {
            (scaled, width, height) = eighth
        } else if scans != nil, let fromDC = loadDCScans(file, fittingIn: box) {
            (scaled, width, height) = fromDC
        } else {
            if JPEGProfileChunks.breakGdkPixbuf(file) {
                return .failure(.undecodable("its colour profile comes in pieces that would end GdkPixbuf's JPEG loader"))
            }
            switch isXPM ? loadXPM(file, fittingIn: box) : load(file, fittingIn: box, mimeType: mimeType) {
            case .success(let loaded): (scaled, width, height) = loaded
            case .failure(let failure): return .failure(failure)
            }
        }
        var pixbuf = Pixbuf(owning: scaled)
        // The JPEG and TIFF loaders put the EXIF orientation in the "orientation" option (read it
        // before turning: the turned copy carries no options).
        let orientation = pixbuf.option("orientation") ?? "1"
        if orientation != "1", let upright = gdk_pixbuf_apply_embedded_orientation(pixbuf.pointer) {
            pixbuf = Pixbuf(owning: upright)
        }
        let turned = ["5", "6", "7", "8"].contains(orientation)
        return .success(Decoded(pixbuf: pixbuf, imageWidth: turned ? height : width, imageHeight: turned ? width : height))
    }

    /// A progressive JPEG's picture from its DC scans alone (CJPEGDC), when GdkPixbuf would decode
    /// it at 1/8 scale too: that is the same picture, and the AC scans it does not decode are most
    /// of the file. 13 of the 40 real photos of bench/make-real-photos are progressive; GdkPixbuf
    /// took 1,040 ms to decode them, this way 541 ms.
    /// Nil when it does not apply (or the file breaks): the ordinary decode then says why.
    func loadDCScans(_ file: OpenFile, fittingIn box: Int) -> (OpaquePointer, Int, Int)? {
        guard let size = ImageHeaders.decodedPixelSize(of: file, mimeType: "image/jpeg"), size.width > 0, size.height > 0 else { return nil }
        let (targetWidth, targetHeight) = ThumbnailFlavor.fit(width: size.width, height: size.height, in: box)
        final class Reading {
            let file: OpenFile
            var offset: Int64 = 0
            init(_ file: OpenFile) { self.file = file }
        }
        let reading = Reading(file)
        let read: photopick_jpeg_read_func = { context, buffer, size in
            let reading = Unmanaged<Reading>.fromOpaque(context!).takeUnretainedValue()
            let bytes = reading.file.read(at: reading.offset, count: Int(size))
            guard let buffer, !bytes.isEmpty else { return 0 }  // the end (an empty array may have no address)
            bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: $0.count) }
            reading.offset += Int64(bytes.count)
            return bytes.count
        }
        var picture = photopick_jpeg_dc_picture()
        let decoded = withExtendedLifetime(reading) {
            photopick_jpeg_decode_dc(read, Unmanaged.passUnretained(reading).toOpaque(), Int32(targetWidth), Int32(targetHeight),
                                     Int64(maximumPixels), &picture)
        }
        guard decoded == 1 else { return nil }
        return thumbnail(of: picture, from: file, width: targetWidth, height: targetHeight)
    }

    /// A JPEG's picture at 1/8 scale from our own entropy decoder (CJPEGEighth.c), when GdkPixbuf
    /// would decode it at 1/8 scale too: libjpeg's picture, pixel for pixel. A baseline file takes
    /// about two thirds of libjpeg's time (each block's AC coefficients skipped several at a
    /// time), a progressive one a fraction (its DC scans alone).
    /// Nil when it does not apply (not a JPEG, or one it does not take) or the file is cut or
    /// damaged: the other ways then decode it or say why.
    func loadEighth(_ file: OpenFile, fittingIn box: Int) -> (OpaquePointer, Int, Int)? {
        // (The decoder takes the file in memory: the cut-off check has just read all of it, so
        // this is one copy from the page cache. Larger files than a camera makes go to GdkPixbuf.)
        guard file.size > 4, file.size <= Self.largestFileInMemory, file.read(at: 0, count: 2) == [0xFF, 0xD8],
              let size = ImageHeaders.decodedPixelSize(of: file, mimeType: "image/jpeg"), size.width > 0, size.height > 0 else { return nil }
        let (targetWidth, targetHeight) = ThumbnailFlavor.fit(width: size.width, height: size.height, in: box)
        // (A photo too small for 1/8 is not read twice: the 2,000 small JPEGs of bench/side-by-side
        // went 5 % slower when it was.)
        guard (size.width + 7) / 8 >= targetWidth, (size.height + 7) / 8 >= targetHeight else { return nil }
        let bytes = file.read(at: 0, count: Int(file.size))
        var picture = photopick_jpeg_dc_picture()
        let decoded = bytes.withUnsafeBufferPointer {
            photopick_jpeg_decode_eighth($0.baseAddress, $0.count, Int32(targetWidth), Int32(targetHeight), Int64(maximumPixels), &picture)
        }
        guard decoded == 1 else { return nil }
        return thumbnail(of: picture, from: file, width: targetWidth, height: targetHeight)
    }

    /// The largest JPEG `loadEighth` takes into memory (the decode workers' estimate counts it).
    static let largestFileInMemory: Int64 = 64 << 20

    /// A 1/8-scale picture from CJPEGDC, brought to the thumbnail's size and given the file's
    /// EXIF orientation, as GdkPixbuf's loader would. Frees the picture's pixels when it fails.
    private func thumbnail(of picture: photopick_jpeg_dc_picture, from file: OpenFile, width targetWidth: Int, height targetHeight: Int) -> (OpaquePointer, Int, Int)? {
        guard let pixels = picture.pixels else { return nil }
        let destroy: GdkPixbufDestroyNotify = { pixels, _ in free(pixels) }
        guard let whole = gdk_pixbuf_new_from_data(pixels, GDK_COLORSPACE_RGB, 0, 8, picture.width, picture.height,
                                                   picture.rowstride, destroy, nil) else {
            free(pixels)
            return nil
        }
        defer { g_object_unref(UnsafeMutableRawPointer(whole)) }
        // (As GdkPixbuf's loader brings a picture decoded at a larger scale to the size asked for.)
        guard let scaled = gdk_pixbuf_scale_simple(whole, Int32(targetWidth), Int32(targetHeight), GDK_INTERP_BILINEAR) else { return nil }
        // (Where GdkPixbuf's JPEG loader puts it, for `decode` to turn the picture upright.)
        if let orientation = ExifThumbnail.orientation(in: file) { _ = gdk_pixbuf_set_option(scaled, "orientation", String(orientation)) }
        return (scaled, Int(picture.image_width), Int(picture.image_height))
    }

    /// The file's picture, scaled to fit `box` as it is decoded, read through its descriptor
    /// (a decode worker opens nothing by name): the bytes go to a GdkPixbufLoader, which says the
    /// image's size before it decodes a pixel; the size to decode at is set then, and a size above
    /// the pixel limit stops the reading. Returns the picture (a new reference) and the size.
    func load(_ file: OpenFile, fittingIn box: Int, mimeType: String? = nil) -> Result<(OpaquePointer, Int, Int), ThumbnailFailure> {
        let chosen = mimeType.flatMap { type in LoaderMessages.quietly { gdk_pixbuf_loader_new_with_mime_type(type, nil) } }
        guard let loader = chosen ?? gdk_pixbuf_loader_new() else { return .failure(.temporary("no image loader")) }
        defer { g_object_unref(UnsafeMutableRawPointer(loader)) }
        final class Prepared {
            let box: Int, limit: Int
            var width = 0, height = 0
            var tooLarge = false
            init(box: Int, limit: Int) { self.box = box; self.limit = limit }
        }
        let prepared = Prepared(box: box, limit: maximumPixels)
        let context = Unmanaged.passRetained(prepared).toOpaque()
        let callback: @convention(c) (UnsafeMutablePointer<GdkPixbufLoader>?, Int32, Int32, UnsafeMutableRawPointer?) -> Void = { loader, width, height, data in
            let prepared = Unmanaged<Prepared>.fromOpaque(data!).takeUnretainedValue()
            prepared.width = Int(width)
            prepared.height = Int(height)
            guard width > 0, height > 0, Int(width) * Int(height) <= prepared.limit else {
                prepared.tooLarge = true
                return
            }
            let (targetWidth, targetHeight) = ThumbnailFlavor.fit(width: Int(width), height: Int(height), in: prepared.box)
            gdk_pixbuf_loader_set_size(loader, Int32(targetWidth), Int32(targetHeight))
        }
        g_signal_connect_data(UnsafeMutableRawPointer(loader), "size-prepared", unsafeBitCast(callback, to: GCallback.self), context,
                              { data, _ in Unmanaged<AnyObject>.fromOpaque(data!).release() }, GConnectFlags(rawValue: 0))
        var error: UnsafeMutablePointer<GError>?
        var offset: Int64 = 0
        var failed = false
        let chunk = 256 << 10
        LoaderMessages.quietly {
            while offset < file.size, !prepared.tooLarge {
                let bytes = file.read(at: offset, count: chunk)
                if bytes.isEmpty { break }
                let written = bytes.withUnsafeBufferPointer { gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize($0.count), &error) }
                // (A failed write has closed the loader already: closing it again would be a GLib critical.)
                if written == 0 { failed = true; return }
                offset += Int64(bytes.count)
            }
            // (Stopped for its size: the loader says the image is incomplete; that is not the reason.)
            if prepared.tooLarge { _ = gdk_pixbuf_loader_close(loader, nil) } else if gdk_pixbuf_loader_close(loader, &error) == 0 { failed = true }
        }
        if prepared.tooLarge {
            if let error { g_error_free(error) }
            return .failure(.tooLarge(width: prepared.width, height: prepared.height, limit: maximumPixels))
        }
        if prepared.width == 0 {
            if let error { g_error_free(error) }
            return .failure(.undecodable("not an image format this system can read"))
        }
        guard !failed, let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader) else {
            return .failure(.undecodable(PixbufError(taking: error).message))
        }
        if let error { g_error_free(error) }
        g_object_ref(UnsafeMutableRawPointer(pixbuf))
        return .success((pixbuf, prepared.width, prepared.height))
    }
}

extension ImageDecoder {
    /// The most bytes of XPM text read (a 9999 × 9999 picture at two characters a pixel, with room).
    static let xpmTextLimit: Int64 = 256 << 20

    /// An XPM, through GdkPixbuf's own XPM reader given its strings in memory
    /// (`gdk_pixbuf_new_from_xpm_data`): its loader for files keeps what it is given in a
    /// temporary file and opens it again by name, which a decode worker cannot do (XPMs were
    /// decoded in the window, outside the memory budget). The strings are the file's C string
    /// literals, comments skipped; the array ends with NULL, where GdkPixbuf's reader stops.
    func loadXPM(_ file: OpenFile, fittingIn box: Int) -> Result<(OpaquePointer, Int, Int), ThumbnailFailure> {
        guard file.size <= Self.xpmTextLimit else { return .failure(.undecodable("an XPM of more than 256 MB of text")) }
        let text = file.read(at: 0, count: Int(file.size))
        var strings: [UnsafeMutablePointer<CChar>?] = []
        defer { strings.forEach { free($0) } }
        var index = 0
        var current: [CChar]?
        while index < text.count {
            let byte = text[index]
            if var literal = current {
                if byte == UInt8(ascii: "\\"), index + 1 < text.count {
                    literal.append(CChar(bitPattern: text[index + 1]))
                    index += 2
                    current = literal
                    continue
                }
                if byte == UInt8(ascii: "\"") {
                    strings.append(strdup(literal + [0]))
                    current = nil
                } else {
                    literal.append(CChar(bitPattern: byte))
                    current = literal
                }
            } else if byte == UInt8(ascii: "/"), index + 1 < text.count, text[index + 1] == UInt8(ascii: "*") {
                // A comment, to its end.
                var end = index + 2
                while end + 1 < text.count, !(text[end] == UInt8(ascii: "*") && text[end + 1] == UInt8(ascii: "/")) { end += 1 }
                index = end + 2
                continue
            } else if byte == UInt8(ascii: "\"") {
                current = []
            }
            index += 1
        }
        guard let first = strings.first.flatMap({ $0 }) else { return .failure(.undecodable("an XPM without its values")) }
        let values = String(cString: first).split(separator: " ").compactMap { Int($0) }
        guard values.count >= 4, values[0] > 0, values[1] > 0 else { return .failure(.undecodable("an XPM without its width and height")) }
        let (pixels, overflow) = values[0].multipliedReportingOverflow(by: values[1])
        if overflow || pixels > maximumPixels { return .failure(.tooLarge(width: values[0], height: values[1], limit: maximumPixels)) }
        strings.append(nil)
        let decoded: OpaquePointer? = strings.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { array in
                LoaderMessages.quietly { gdk_pixbuf_new_from_xpm_data(array) }
            }
        }
        guard let decoded else { return .failure(.undecodable("the XPM is damaged")) }
        defer { g_object_unref(UnsafeMutableRawPointer(decoded)) }
        let width = Int(gdk_pixbuf_get_width(decoded)), height = Int(gdk_pixbuf_get_height(decoded))
        let (targetWidth, targetHeight) = ThumbnailFlavor.fit(width: width, height: height, in: box)
        guard let scaled = gdk_pixbuf_scale_simple(decoded, Int32(targetWidth), Int32(targetHeight), GDK_INTERP_BILINEAR) else {
            return .failure(.temporary("out of memory for a \(targetWidth)×\(targetHeight) thumbnail"))
        }
        return .success((scaled, width, height))
    }

    /// An animated WebP's first frame, decoded at the scale that fits its canvas in `box` and put
    /// where it sits on a transparent canvas of that size (a frame may cover part of it).
    func decodeFirstFrame(_ frame: ImageHeaders.WebPFirstFrame, fittingIn box: Int) -> Result<Decoded, ThumbnailFailure> {
        guard frame.holdsTogether else { return .failure(.undecodable("an animated WebP whose first frame does not fit its canvas")) }
        let (canvasWidth, canvasHeight) = ThumbnailFlavor.fit(width: frame.canvasWidth, height: frame.canvasHeight, in: box)
        let scale = Double(canvasWidth) / Double(frame.canvasWidth)
        let frameWidth = max(1, Int((Double(frame.width) * scale).rounded())), frameHeight = max(1, Int((Double(frame.height) * scale).rounded()))
        // (Named, not sniffed: a decode worker cannot read the MIME database.)
        guard let loader = LoaderMessages.quietly({ gdk_pixbuf_loader_new_with_mime_type("image/webp", nil) }) ?? gdk_pixbuf_loader_new() else {
            return .failure(.undecodable("no WebP loader"))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(loader)) }
        gdk_pixbuf_loader_set_size(loader, Int32(frameWidth), Int32(frameHeight))
        var error: UnsafeMutablePointer<GError>?
        let written = LoaderMessages.quietly {
            frame.still.withUnsafeBufferPointer { gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize($0.count), &error) }
        }
        // (A failed write has closed the loader already.)
        guard written != 0, LoaderMessages.quietly({ gdk_pixbuf_loader_close(loader, &error) }) != 0,
              let decoded = gdk_pixbuf_loader_get_pixbuf(loader) else {
            return .failure(.undecodable(error.map { PixbufError(taking: $0).message } ?? "the WebP animation's first frame is damaged"))
        }
        g_object_ref(UnsafeMutableRawPointer(decoded))
        let picture = Pixbuf(owning: decoded)
        let whole = (width: frame.canvasWidth, height: frame.canvasHeight)
        if frame.x == 0, frame.y == 0, frame.width == whole.width, frame.height == whole.height {
            return .success(Decoded(pixbuf: picture, imageWidth: whole.width, imageHeight: whole.height))
        }
        guard let canvas = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 1, 8, Int32(canvasWidth), Int32(canvasHeight)) else {
            return .failure(.temporary("out of memory for a \(canvasWidth)×\(canvasHeight) thumbnail"))
        }
        gdk_pixbuf_fill(canvas, 0)
        let x = Int((Double(frame.x) * scale).rounded()), y = Int((Double(frame.y) * scale).rounded())
        let width = min(Int(gdk_pixbuf_get_width(picture.pointer)), canvasWidth - x)
        let height = min(Int(gdk_pixbuf_get_height(picture.pointer)), canvasHeight - y)
        if width > 0, height > 0 {
            gdk_pixbuf_composite(picture.pointer, canvas, Int32(x), Int32(y), Int32(width), Int32(height), Double(x), Double(y), 1, 1,
                                 GDK_INTERP_NEAREST, 255)
        }
        return .success(Decoded(pixbuf: Pixbuf(owning: canvas), imageWidth: whole.width, imageHeight: whole.height))
    }

    /// Decodes an embedded preview to fit in `box` and turns it upright with the photo's orientation.
    public func decode(_ preview: EmbeddedPreview, fittingIn box: Int) -> Pixbuf? {
        // A preview is the file's bytes too: the same limit on scans as for the photo.
        if let scans = JPEGScans.count(in: preview.data), scans > JPEGScans.limit { return nil }
        // A JPEG by its frame header (ExifThumbnail reads only those): named, not sniffed, so that
        // it decodes in a worker too, which cannot read the MIME database GdkPixbuf sniffs with.
        guard let loader = LoaderMessages.quietly({ gdk_pixbuf_loader_new_with_type("jpeg", nil) }) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(loader)) }
        // The size is known from the metadata: set it before decoding, as for full images.
        let (width, height) = ThumbnailFlavor.fit(width: preview.width, height: preview.height, in: box)
        gdk_pixbuf_loader_set_size(loader, Int32(width), Int32(height))
        let written = preview.data.withUnsafeBufferPointer { gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize($0.count), nil) }
        // A failed write has closed the loader already: closing again would be a GLib critical.
        guard written != 0, gdk_pixbuf_loader_close(loader, nil) != 0,
              let decoded = gdk_pixbuf_loader_get_pixbuf(loader) else { return nil }
        g_object_ref(UnsafeMutableRawPointer(decoded))
        var pixbuf = Pixbuf(owning: decoded)
        if preview.orientation != 1 {
            // Let GdkPixbuf do the turning, as for full images: hand it the photo's orientation.
            _ = gdk_pixbuf_set_option(pixbuf.pointer, "orientation", String(preview.orientation))
            if let upright = gdk_pixbuf_apply_embedded_orientation(pixbuf.pointer) { pixbuf = Pixbuf(owning: upright) }
        }
        return pixbuf
    }
}

/// GdkPixbuf's loaders warn on the terminal about each damaged file they meet (the WebP loader
/// even without a domain, and with GObject criticals from its own cleanup). A broken photo is an
/// ordinary event for a picker: while a loader runs on this thread, its messages are counted
/// instead of printed; everywhere else they reach the terminal as usual.
public enum LoaderMessages {
    private static let count = Atomic<Int>(0)
    /// Loader messages kept off the terminal so far.
    public static var suppressed: Int { count.load(ordering: .relaxed) }

    /// Set on a thread while it runs a loader.
    private static let decodingKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static let installed: Bool = {
        let levels = GLogLevelFlags(rawValue: G_LOG_LEVEL_WARNING.rawValue | G_LOG_LEVEL_CRITICAL.rawValue)
        let handler: GLogFunc = { domain, level, message, _ in
            if pthread_getspecific(LoaderMessages.decodingKey) != nil {
                LoaderMessages.count.add(1, ordering: .relaxed)
            } else {
                g_log_default_handler(domain, level, message, nil)
            }
        }
        for domain in ["GdkPixbuf", "GLib-GObject"] { g_log_set_handler(domain, levels, handler, nil) }
        g_log_set_handler(nil, levels, handler, nil)  // the WebP loader logs without a domain
        return true
    }()

    static func install() { _ = installed }

    /// Runs a loader with its messages counted, not printed.
    static func quietly<R>(_ body: () -> R) -> R {
        pthread_setspecific(decodingKey, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(decodingKey, nil) }
        return body()
    }
}

/// Why a file has no thumbnail.
extension ThumbnailFailure {
    /// Why an original could not be opened.
    init(_ error: OpenFile.OpenError) {
        switch error {
        case .vanished: self = .vanished
        case .failed(let reason): self = .unreadable(reason)
        // (Not recorded as the file's failure: the server may answer next time.)
        case .unreachable(let reason): self = .temporary(reason)
        }
    }
}

public enum ThumbnailFailure: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(String)
    case undecodable(String)
    case tooLarge(width: Int, height: Int, limit: Int)
    /// A failure recorded earlier for this version of the file.
    case knownFailure
    case vanished
    case thumbnailerFailed(String)
    /// Something of the moment went wrong (a thumbnailer that timed out or could not start, no
    /// room for a temporary file): not recorded, tried again next time.
    case temporary(String)
    /// Every request for it was cancelled; never delivered.
    case cancelled

    public var description: String {
        switch self {
        case .unreadable(let reason): reason
        case .undecodable(let reason): "cannot decode: \(reason)"
        case .tooLarge(let width, let height, let limit):
            "image too large for a thumbnail (\(width)×\(height), more than \(limit / 1_000_000) megapixels)"
        case .knownFailure: "could not be thumbnailed before (file unchanged since)"
        case .vanished: "no such file (or it was removed)"
        case .thumbnailerFailed(let reason): reason
        case .temporary(let reason): reason
        case .cancelled: "cancelled"
        }
    }

    /// Whether this version of the file will fail again: worth a failure record.
    var isPermanent: Bool {
        switch self {
        case .undecodable, .tooLarge, .thumbnailerFailed: true
        case .unreadable, .knownFailure, .vanished, .temporary, .cancelled: false
        }
    }
}
