// SPDX-License-Identifier: LGPL-2.1-or-later
import CGdkPixbuf
import CGLib

/// A GdkPixbuf this Swift object owns one reference to. Pixbufs are immutable once made here, so
/// they may cross threads; the window turns them into textures on the GTK thread.
public final class Pixbuf: @unchecked Sendable {
    public let pointer: OpaquePointer

    /// Takes ownership of a reference the caller holds (a `…_new…` result).
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }

    public var width: Int { Int(gdk_pixbuf_get_width(pointer)) }
    public var height: Int { Int(gdk_pixbuf_get_height(pointer)) }
    public var hasAlpha: Bool { gdk_pixbuf_get_has_alpha(pointer) != 0 }
    /// Bytes of pixel data: what the memory cache counts.
    public var byteCount: Int { Int(gdk_pixbuf_get_byte_length(pointer)) }

    /// A loader option such as "tEXt::Thumb::URI" or "orientation".
    public func option(_ key: String) -> String? {
        gdk_pixbuf_get_option(pointer, key).map { String(cString: $0) }
    }

    /// The colour of one pixel as (red, green, blue): for tests that check orientation.
    public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let channels = Int(gdk_pixbuf_get_n_channels(pointer)), stride = Int(gdk_pixbuf_get_rowstride(pointer))
        let pixels = gdk_pixbuf_read_pixels(pointer)!
        let offset = y * stride + x * channels
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2])
    }

    /// Loads an image file whole (thumbnail PNGs, a thumbnailer's output).
    static func load(_ path: FilePathLike) -> Result<Pixbuf, PixbufError> {
        var error: UnsafeMutablePointer<GError>?
        guard let pixbuf = path.withCString({ gdk_pixbuf_new_from_file($0, &error) }) else {
            return .failure(PixbufError(taking: error))
        }
        return .success(Pixbuf(owning: pixbuf))
    }

    /// Decodes a thumbnail PNG read through its descriptor, with GdkPixbuf's PNG loader named.
    /// Why not `load`: `gdk_pixbuf_new_from_file` first guesses the type of every file through
    /// GIO's MIME database, which maps its 150 kB cache into the window at the first thumbnail
    /// of a warm start, to learn what a thumbnail's header has said already. (This loader gives
    /// the options of the text chunks before the pixels only: `load` reads those after them.)
    static func loadPNG(_ file: OpenFile) -> Result<Pixbuf, PixbufError> {
        guard let loader = LoaderMessages.quietly({ gdk_pixbuf_loader_new_with_type("png", nil) }) else {
            return .failure(PixbufError(message: "no PNG loader"))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(loader)) }
        var error: UnsafeMutablePointer<GError>?
        var offset: Int64 = 0
        let done: Bool = LoaderMessages.quietly {
            while offset < file.size {
                let bytes = file.read(at: offset, count: 64 << 10)
                if bytes.isEmpty { break }
                // (A failed write has closed the loader already: closing it again would be a GLib critical.)
                guard bytes.withUnsafeBufferPointer({ gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize($0.count), &error) }) != 0 else {
                    return false
                }
                offset += Int64(bytes.count)
            }
            return gdk_pixbuf_loader_close(loader, &error) != 0
        }
        guard done, let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader) else {
            return .failure(error == nil ? PixbufError(message: "incomplete PNG") : PixbufError(taking: error))
        }
        g_object_ref(UnsafeMutableRawPointer(pixbuf))
        return .success(Pixbuf(owning: pixbuf))
    }

    /// The pixbuf scaled to fit in `size` × `size`, or itself when it already fits.
    func fitting(in size: Int) -> Pixbuf {
        guard width > size || height > size else { return self }
        let (targetWidth, targetHeight) = ThumbnailFlavor.fit(width: width, height: height, in: size)
        guard let scaled = gdk_pixbuf_scale_simple(pointer, Int32(targetWidth), Int32(targetHeight), GDK_INTERP_BILINEAR) else {
            return self
        }
        return Pixbuf(owning: scaled)
    }

    /// The largest centred square, scaled to `side` pixels: for small uniform tiles.
    public func centredSquare(side: Int) -> Pixbuf? {
        let edge = min(width, height)
        guard edge > 0, let square = gdk_pixbuf_new_subpixbuf(pointer, Int32((width - edge) / 2), Int32((height - edge) / 2),
                                                             Int32(edge), Int32(edge)) else { return nil }
        let cropped = Pixbuf(owning: square)
        guard let scaled = gdk_pixbuf_scale_simple(cropped.pointer, Int32(side), Int32(side), GDK_INTERP_BILINEAR) else { return nil }
        return Pixbuf(owning: scaled)
    }

    /// With an alpha channel: the thumbnail spec asks for RGBA PNGs.
    func withAlpha() -> Pixbuf {
        guard !hasAlpha, let converted = gdk_pixbuf_add_alpha(pointer, 0, 0, 0, 0) else { return self }
        return Pixbuf(owning: converted)
    }

    /// Writes a PNG with tEXt chunks (`tEXt::KEY` options). zlib level 1: measured here, a
    /// 256 px thumbnail of a photo encodes in 3.6 ms instead of 23 ms at the default level 6, for
    /// files about a fifth larger; encoding was most of a cold thumbnail's time.
    func savePNG(to path: FilePathLike, text: [(String, String)]) -> PixbufError? {
        let keys = text.map { strdup("tEXt::" + $0.0) } + [strdup("compression"), nil]
        let values = text.map { strdup($0.1) } + [strdup("1"), nil]
        defer { (keys + values).forEach { free($0) } }
        var error: UnsafeMutablePointer<GError>?
        let saved = keys.withUnsafeBufferPointer { keyBuffer in
            values.withUnsafeBufferPointer { valueBuffer in
                path.withCString { file in
                    gdk_pixbuf_savev(pointer, file, "png",
                                     UnsafeMutablePointer(mutating: keyBuffer.baseAddress),
                                     UnsafeMutablePointer(mutating: valueBuffer.baseAddress), &error)
                }
            }
        }
        return saved != 0 ? nil : PixbufError(taking: error)
    }
}

/// A message from GdkPixbuf or GLib.
public struct PixbufError: Error, CustomStringConvertible, Sendable {
    public let message: String

    init(message: String) { self.message = message }

    init(taking error: UnsafeMutablePointer<GError>?) {
        message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
        var error = error
        g_clear_error(&error)
    }

    public var description: String { message }
}

/// Anything that can hand out a NUL-terminated path.
protocol FilePathLike {
    func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R
}

import PhotoLibrary
extension FilePath: FilePathLike {}
extension String: FilePathLike {}
