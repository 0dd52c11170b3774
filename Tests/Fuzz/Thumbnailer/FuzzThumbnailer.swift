// SPDX-License-Identifier: GPL-3.0-or-later
import FuzzSupport
import PhotoLibrary
@testable import Thumbnails

/// A `.thumbnailer` key file, as found in any data folder on XDG_DATA_DIRS: GLib's key file
/// parser, our reading of its keys and GLib's splitting of its Exec line.
// SwiftPM links an executable's main to `<module>_main`.
@_cdecl("fuzz_thumbnailer_main")
public func main(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, { data, size in fuzzThumbnailer(data, size) })
}

func fuzzThumbnailer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = ScratchFile.write(fuzzInput(data, size), named: "input.thumbnailer")
    _ = ExternalThumbnailer.parse(FilePath(path))
    return 0
}
