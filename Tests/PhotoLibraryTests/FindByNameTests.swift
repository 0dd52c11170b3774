// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// Type-ahead find's answer: where the photo a person names is in the album they look at.
final class FindByNameTests: XCTestCase {
    private func indexedDemo(database: Bool) throws -> PhotoLibrary {
        let demo = FilePath(TestSupport.packageRoot.appendingPathComponent("data/demo-library").path)
        let location = database
            ? IndexLocation(databasePath: TestSupport.temporaryDirectory("find-index").appendingPathComponent("index.sqlite").path)
            : .inMemory
        let library = try PhotoLibrary(roots: [demo], location: location)
        _ = try library.scan()
        return library
    }

    private func name(at position: Int?, in result: FetchResult, _ library: PhotoLibrary) throws -> String? {
        guard let position else { return nil }
        return try (library.asset(id: result.id(at: position))?.path.lastComponent).map { String(decoding: $0, as: UTF8.self) }
    }

    func testANameIsFoundByItsStartThenByAnyPart() throws {
        for database in [false, true] {
            let library = try indexedDemo(database: database)
            let recents = try library.fetchAssets(in: .smart(.recents))
            // The first in the album's order (newest first) among the names that start so.
            XCTAssertEqual(try name(at: library.position(ofName: "img_2024", in: recents), in: recents, library),
                           "IMG_20240615_143000_BURST004.jpg")
            XCTAssertEqual(try name(at: library.position(ofName: "PXL_20240613", in: recents), in: recents, library),
                           "PXL_20240613_191000456.jpg", "letter case aside")
            // A name's start wins over an earlier photo whose name only holds the text.
            XCTAssertEqual(try name(at: library.position(ofName: "dsc_2402", in: recents), in: recents, library), "DSC_24022.JPG")
            XCTAssertEqual(try name(at: library.position(ofName: "burst002", in: recents), in: recents, library),
                           "IMG_20240615_143000_BURST002.jpg", "no name starts so: one that holds it")
            XCTAssertNil(try library.position(ofName: "zzq", in: recents))
            // One or two letters find a name's start only: "p" was found in ".jpg" at the top of
            // the album, which looked like a jump to nowhere (issue 40, point 8).
            XCTAssertEqual(try name(at: library.position(ofName: "p", in: recents), in: recents, library).map { $0.lowercased().hasPrefix("p") }, true)
            XCTAssertNil(try library.position(ofName: "pg", in: recents), "no name starts with “pg”; two letters are not looked for inside names")
            XCTAssertEqual(try name(at: library.position(ofName: ".jp", in: recents), in: recents, library).map { $0.lowercased().contains(".jp") }, true,
                           "three letters are")
            XCTAssertNil(try library.position(ofName: "", in: recents))
            // Only the album's own photos, and its filter's.
            let videos = try library.fetchAssets(in: .smart(.recents), filter: AssetFilter(mimeTypes: ["video/*"]))
            XCTAssertNil(try library.position(ofName: "img_2024", in: videos))
            XCTAssertEqual(try name(at: library.position(ofName: "vid_", in: videos), in: videos, library), "VID_20240421_110000.mp4")
        }
    }

    /// Folders in the album list are in a file manager's order of names: case aside, numbers by
    /// value ("Trip 2" before "Trip 10"), digits beyond a number's range and other scripts' digits
    /// one by one; the sort that lowers each name once orders them as the comparison does.
    func testFoldersSortByNameAsAFileManagerSortsThem() {
        let names = ["Trip 10", "trip 2", "Trip 2b", "Trip 02", "Äpfel", "apfel", "B", "a", "Zoo",
                     "99999999999999999999999 big", "99999999999999999999998 big", "x²", "x3", "x", "", "Trip 9", "10", "9"]
        let sorted = String.sortedByName(names) { $0 }
        for (index, name) in sorted.enumerated() {
            for later in sorted[(index + 1)...] {
                XCTAssertFalse(later.localizedStandardLess(name), "“\(later)” sorts before “\(name)”: \(sorted)")
            }
        }
        XCTAssertLessThan(sorted.firstIndex(of: "trip 2")!, sorted.firstIndex(of: "Trip 10")!)
        XCTAssertLessThan(sorted.firstIndex(of: "Trip 9")!, sorted.firstIndex(of: "Trip 10")!)
        XCTAssertLessThan(sorted.firstIndex(of: "9")!, sorted.firstIndex(of: "10")!)
        XCTAssertLessThan(sorted.firstIndex(of: "a")!, sorted.firstIndex(of: "B")!)
        XCTAssertEqual(sorted.first, "")
    }
}
