// SPDX-License-Identifier: LGPL-2.1-or-later
import CGdkPixbuf
import Glibc
import PhotoLibrary

/// The decode workers' arithmetic, apart from their processes: what a decode will need, the
/// pixels that came back made into a picture of this process, and the words of a failure.
extension DecodeWorkerPool {
    // MARK: Pixels

    /// The pixels at `address` (`size` bytes) copied into a picture of our own.
    static func picture(_ reply: DecodeMessages.Reply, from address: UnsafeRawPointer, size: Int) -> ImageDecoder.Decoded? {
        guard reply.pixelsFit(fileSize: size) else { return nil }
        let mapped = address
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, reply.hasAlpha ? 1 : 0, 8, Int32(reply.width), Int32(reply.height)) else { return nil }
        let channels = reply.hasAlpha ? 4 : 3
        let rowstride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        guard let target = gdk_pixbuf_get_pixels(pixbuf) else { return nil }
        for row in 0..<reply.height {
            memcpy(target + row * rowstride, mapped + row * reply.rowstride, reply.width * channels)
        }
        return ImageDecoder.Decoded(pixbuf: Pixbuf(owning: pixbuf), imageWidth: reply.imageWidth, imageHeight: reply.imageHeight)
    }

    // MARK: Estimates

    /// Bytes a decode of `file` holds at its peak: a JPEG is decoded at 1/2, 1/4 or 1/8 of its
    /// size when that still covers `box` (libjpeg's DCT scaling), three bytes a pixel, at 1/8 with
    /// the whole file in memory; a HEIF or
    /// AVIF at full size, four bytes a pixel and its YUV planes beside (libheif, dav1d); anything
    /// else at full size, four bytes a pixel; each plus the scaled copy. A size no header says
    /// (an SVG, a format without a reader here, a header that does not read) is charged at
    /// `unknown`: the pool charges it the worker's whole bound, so the budget holds whatever it is.
    static func estimatedBytes(of file: OpenFile, mimeType: String, box: Int, unknown: Int) -> Int {
        guard let size = ImageHeaders.declaredSize(of: file) ?? ImageHeaders.decodedPixelSize(of: file, mimeType: mimeType) else {
            return unknown
        }
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        if overflow || pixels > Int.max / 8 { return Int.max }
        if mimeType == "image/jpeg" {
            var scale = 1
            while scale < 8, min(size.width, size.height) / (scale * 2) >= box { scale *= 2 }
            // (A progressive JPEG's coefficients are held whole, at the stored size. At 1/8 our
            // own decoder holds the whole file, ImageDecoder.loadEighth.)
            let coefficients = ImageHeaders.jpegCoefficientBytes(file) ?? 0
            let copy = scale == 8 && file.size <= ImageDecoder.largestFileInMemory ? Int(file.size) : 0
            return coefficients == Int.max ? Int.max : pixels / (scale * scale) * 3 + box * box * 4 + coefficients + copy
        }
        if HEIFFormats.contains(mimeType) { return pixels * 4 + pixels * 3 / 2 + box * box * 4 }
        // Measured (issue 37): GdkPixbuf's TIFF loader holds libtiff's RGBA raster, its own copy
        // and a strip buffer (540 MB for 48 megapixels); its GIF loader a frame and the composite.
        if mimeType == "image/tiff" { return pixels * 12 + box * box * 4 }
        if mimeType == "image/gif" { return pixels * 8 + box * box * 4 }
        return pixels * 4 + box * box * 4
    }

    /// What a decoder takes beyond the estimate whatever the file: libjpeg's tables and work
    /// buffers, a loader's own, a thread's stack. Measured on 40 real photos and PNG, TIFF, GIF
    /// and WebP of 12 and 48 megapixels: at most 46 MB beyond the estimate (issue 37).
    public static let decoderHeadroom = 64 << 20

    private static let HEIFFormats: Set<String> = ["image/heif", "image/heic", "image/heif-sequence", "image/heic-sequence", "image/avif"]

    /// A worker's processor time so far (user and system), from /proc.
    static func processorSeconds(of pid: pid_t) -> Double? { WorkerProcess.processorSeconds(of: pid) }

    static func seconds(_ value: Double) -> String { WorkerProcess.seconds(value) }

    /// Whole milliseconds from now until `deadline` (monotonic seconds), at least 0.
    static func milliseconds(until deadline: Double) -> Int32 { Int32(clamping: max(0, Int(((deadline - monotonicSeconds()) * 1000).rounded(.up)))) }

    /// "WebP", "TIFF": how the decoder of a type is called in a message.
    static func formatName(_ mimeType: String) -> String {
        let names = ["image/webp": "WebP", "image/tiff": "TIFF", "image/gif": "GIF", "image/png": "PNG", "image/jpeg": "JPEG",
                     "image/heif": "HEIF", "image/heic": "HEIF", "image/avif": "AVIF", "image/bmp": "BMP", "image/x-icon": "ICO",
                     "image/vnd.microsoft.icon": "ICO", "image/x-tga": "TGA", "image/x-portable-pixmap": "PNM", "image/jxl": "JPEG XL"]
        return names[mimeType] ?? ContentType.description(of: mimeType)
    }
}
