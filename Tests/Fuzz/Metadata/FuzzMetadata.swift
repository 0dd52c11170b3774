// SPDX-License-Identifier: GPL-3.0-or-later
import FuzzSupport
@testable import PhotoLibrary

/// What the indexer does with a file: the quick date pass, then the full read (sniffing, our
/// header readers, exiv2 through gexiv2 and our EXIF, XMP and video glue), and the embedded
/// preview the grid paints first. The input's first byte picks the file's name (see
/// `fuzzFileNames`), the rest is its content.
// SwiftPM links an executable's main to `<module>_main`.
@_cdecl("fuzz_metadata_main")
public func main(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, { data, size in fuzzMetadata(data, size) })
}

func fuzzMetadata(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let (name, content) = nameAndContent(fuzzInput(data, size))
    let path = FilePath(ScratchFile.write(content, named: name))
    let version = FileVersion(size: Int64(content.count), modificationTimeNanoseconds: 1_600_000_000_000_000_000, inode: 1)
    _ = MetadataReader.readDate(path: path, version: version)
    _ = MetadataReader.read(path: path, version: version)
    if let file = try? OpenFile(path: path) { _ = EmbeddedPreview.smallest(in: file, minimumSide: 64) }
    return 0
}
