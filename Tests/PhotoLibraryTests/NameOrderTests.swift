// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
@testable import PhotoLibrary

/// A folder's names are kept in byte order (they need not be UTF-8), compared with memcmp: the
/// order must be the one Swift's own comparison of the bytes gives, for every kind of name.
final class NameOrderTests: XCTestCase {
    func testByteOrderIsTheOrderOfTheBytesThemselves() {
        let names: [[UInt8]] = [
            Array("IMG_0001.jpg".utf8), Array("IMG_0001.JPG".utf8), Array("IMG_0001".utf8), Array("IMG_00010.jpg".utf8),
            Array("été.jpg".utf8), Array("Zoo.png".utf8), Array(" spaces .jpg".utf8), Array("-dash.jpg".utf8),
            [0xff, 0xfe, 0x2e, 0x6a], [0x80], [0x7f], [0x41], [0x41, 0x00, 0x42], [0x41, 0x00], [],
        ]
        for left in names {
            for right in names {
                XCTAssertEqual(left.precedesInByteOrder(right), left.lexicographicallyPrecedes(right), "\(left) before \(right)")
            }
        }
        XCTAssertEqual(names.sorted { $0.precedesInByteOrder($1) }, names.sorted { $0.lexicographicallyPrecedes($1) })
        XCTAssertTrue(FilePath("/a/IMG_1.jpg") < FilePath("/a/IMG_1.jpgx"), "a prefix sorts first")
        XCTAssertTrue(FilePath("/a/z.jpg") < FilePath(bytes: Array("/a/".utf8) + [0xc3, 0xa9]), "bytes above 0x7f sort after ASCII")
    }
}
