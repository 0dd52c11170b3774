// SPDX-License-Identifier: GPL-3.0-or-later
import FuzzSupport
@testable import PhotoLibrary
@testable import Thumbnails

/// Every reader of ours that walks a file's bytes without a library: image headers (PNG, GIF,
/// WebP, JPEG, PNM, ICO, TGA, XPM, XBM, SVG), the frame counters, ISO base media and Matroska
/// headers, HEIF boxes, the quick EXIF date, the content sniffer, the JPEG scan counter and the
/// thumbnail cache's PNG header and text keys. Each one sees every input, whatever its type.
// SwiftPM links an executable's main to `<module>_main`.
@_cdecl("fuzz_headers_main")
public func main(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, { data, size in fuzzHeaders(data, size) })
}

func fuzzHeaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(fuzzInput(data, size))
    let path = bytes.withUnsafeBytes { ScratchFile.write($0, named: "input") }
    guard let file = try? OpenFile(path: FilePath(path)) else { return 0 }
    _ = ContentType.guess(content: Array(bytes.prefix(MetadataReader.sniffLength)))
    for mimeType in ["image/png", "image/gif", "image/webp", "image/jpeg"] {
        _ = ImageHeaders.pixelSize(of: file, mimeType: mimeType)
        _ = ImageHeaders.frameCount(of: file, mimeType: mimeType)
    }
    for mimeType in ["image/x-portable-anymap", "image/vnd.microsoft.icon", "image/x-tga", "image/x-xpixmap",
                     "image/x-xbitmap", "image/svg+xml"] {
        _ = ImageHeaders.loaderHeader(of: file, mimeType: mimeType)
    }
    _ = VideoHeaders.read(file, mimeType: "video/mp4")
    _ = HEIFBoxes.read(file)
    _ = QuickDate.answer(file, head: Array(bytes.prefix(QuickDate.headLength)))
    _ = ExifThumbnail.read(in: file)
    _ = JPEGScans.count(in: bytes)
    _ = JPEGScans.count(in: file)
    _ = ThumbnailHeader.parse(Array(bytes.prefix(ThumbnailHeader.bytesRead)))
    return 0
}
