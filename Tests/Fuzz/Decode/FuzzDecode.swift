// SPDX-License-Identifier: GPL-3.0-or-later
import FuzzSupport
import PhotoLibrary
@testable import Thumbnails

/// Decoding at thumbnail size through GdkPixbuf's loaders, behind our checks (header size, pixel
/// limit, JPEG scan limit), as the thumbnailer does for a photo (SVG aside: that one runs in a
/// child process). The first byte picks the file's name, the rest is its content.
// SwiftPM links an executable's main to `<module>_main`.
@_cdecl("fuzz_decode_main")
public func main(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, { data, size in fuzzDecode(data, size) })
}

func fuzzDecode(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let (name, content) = nameAndContent(fuzzInput(data, size))
    guard !name.hasSuffix(".svg") else { return 0 }
    let path = FilePath(ScratchFile.write(content, named: name))
    guard let file = try? OpenFile(path: path) else { return 0 }
    // Small sizes keep each run short; 10 megapixels still lets every loader work at full size.
    // (With the type the index gives a file, as the thumbnailer decodes it.)
    let mimeType = ContentType.guess(content: file.read(at: 0, count: 4096), fileName: Array(name.utf8)).mimeType
    _ = ImageDecoder(maximumPixels: 10_000_000).decode(file, fittingIn: 128, mimeType: mimeType)
    return 0
}
