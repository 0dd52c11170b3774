// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// Our own reading of a JPEG's EXIF thumbnail (IFD1), which paints a cell while the photo decodes,
/// against exiv2's on every generated photo, and on damaged structures.
final class ExifThumbnailTests: XCTestCase {
    func testItFindsWhatExiv2FindsInEveryGeneratedPhoto() throws {
        let generated = GeneratedLibrary.shared
        var withThumbnail = 0
        for file in generated.files where file["kind"] as? String == "photo" && (file["path"] as? String ?? "").lowercased().hasSuffix(".jpg") {
            let path = generated.path(of: file)
            guard let opened = try? OpenFile(path: path) else { continue }
            let ours = ExifThumbnail.read(in: opened)
            let theirs = EmbeddedPreview.smallest(in: opened, minimumSide: 1)
            if file["exif_thumbnail"] as? Bool == true, file["corrupt"] == nil {
                let found = try XCTUnwrap(ours, "\(path)")
                XCTAssertEqual(found.data, theirs?.data, "\(path): the same bytes as exiv2's preview")
                XCTAssertEqual([found.width, found.height], [theirs?.width, theirs?.height], "\(path)")
                XCTAssertEqual(found.orientation, theirs?.orientation, "\(path)")
                withThumbnail += 1
            } else if file["exif_thumbnail"] as? Bool == false {
                XCTAssertNil(ours, "\(path) has no EXIF thumbnail")
            }
        }
        XCTAssertGreaterThan(withThumbnail, 20)
    }

    func testDamagedStructuresGiveNothingAndNeverTrap() {
        // IFD1 pointing past the segment, a length running past it, an IFD loop, a thumbnail that is no JPEG.
        XCTAssertNil(ExifThumbnail.thumbnail(inTIFF: []))
        XCTAssertNil(ExifThumbnail.thumbnail(inTIFF: Array("MM\u{0}*\u{0}\u{0}\u{0}\u{8}".utf8)))
        var tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8]
        tiff += [0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0]  // IFD0: orientation 6
        tiff += [0, 0, 0, 8]                                        // next IFD: itself
        XCTAssertNil(ExifThumbnail.thumbnail(inTIFF: tiff))
        tiff.removeLast(4)
        tiff += [0, 0, 0, 26]                                       // IFD1 at 26
        tiff += [0, 2, 0x02, 0x01, 0, 4, 0, 0, 0, 1, 0x7F, 0xFF, 0xFF, 0xFF,
                 0x02, 0x02, 0, 4, 0, 0, 0, 1, 0x7F, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]
        XCTAssertNil(ExifThumbnail.thumbnail(inTIFF: tiff), "offset and length far past the segment")
        XCTAssertNil(ExifThumbnail.jpegSize([0xFF, 0xD8, 0xFF]))
        XCTAssertNil(ExifThumbnail.jpegSize([0xFF, 0xD8, 0xFF, 0xC4, 0, 0, 0, 0, 0, 0]))
    }
}
