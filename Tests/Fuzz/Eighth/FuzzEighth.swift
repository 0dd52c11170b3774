// SPDX-License-Identifier: GPL-3.0-or-later
import CFuzzReference
import CJPEGDC
import FuzzSupport
import Glibc

/// Our 1/8 JPEG decoder (CJPEGEighth.c) against libjpeg, differentially: on any input it must
/// not crash, and a picture it makes of a file libjpeg decodes without a warning must be
/// libjpeg's, byte for byte. The whole input is the file (at a 1 x 1 box, so small files count).
// SwiftPM links an executable's main to `<module>_main`.
@_cdecl("fuzz_eighth_main")
public func main(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, { data, size in fuzzEighth(data, size) })
}

func fuzzEighth(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    var ours = photopick_jpeg_dc_picture()
    guard photopick_jpeg_decode_eighth(data, size, 1, 1, 4_000_000, &ours) == 1, let pixels = ours.pixels else { return 0 }
    defer { free(pixels) }
    var reference: UnsafeMutablePointer<UInt8>? = nil
    var width: Int32 = 0, height: Int32 = 0
    guard photopick_reference_eighth(data, size, &reference, &width, &height) == 1, let reference else { return 0 }
    defer { free(reference) }
    guard width == ours.width, height == ours.height, ours.rowstride == width * 3,
          memcmp(pixels, reference, Int(width) * 3 * Int(height)) == 0 else {
        fatalError("our 1/8 picture (\(ours.width) x \(ours.height)) is not libjpeg's (\(width) x \(height))")
    }
    return 0
}
