// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
@testable import PhotoLibrary
import TestSupport
import XCTest
@testable import PickerModel

/// The album switcher's folder tree, from what the index lists: a real library's folders
/// (issue 40, point 22: 528 folders were one flat list).
final class AlbumTreeTests: XCTestCase {
    private func library(_ paths: [String]) throws -> (PhotoLibrary, URL) {
        try SyntheticLibrary.folders("album-tree", photos: paths)
    }

    private func describe(_ rows: [AlbumTreeRow]) -> [String] {
        rows.map { row in
            let kind = switch row.summary.album { case .tree: "+"; case .folder: row.isFolderItself ? "=" : "-"; case .smart, .recentlyPicked: "*" }
            return String(repeating: "  ", count: row.depth) + kind + row.title + " \(row.summary.count)"
        }
    }

    func testFoldersNestUnderTheirParentsWithCountsOfEverythingBelow() throws {
        let (library, _) = try library([
            "top.jpg",
            "Trips/2019/Zanzibar/a.jpg", "Trips/2019/Zanzibar/b.jpg", "Trips/2019/Lisbon/c.jpg",
            "Trips/2020/d.jpg", "Trips/2020/Kyoto/e.jpg",
            "Trips/10/f.jpg", "Trips/9/g.jpg",
            "Camera/NIKON Z 6/2019/h.jpg", "Camera/NIKON Z 6/2019/i.jpg", "Camera/NIKON Z 6/2019/j.jpg",
        ])
        let albums = try library.albumsWithFolderTrees()
        XCTAssertEqual(describe(AlbumTree.rows(albums)), [
            "+Pictures 11",
            "  =Pictures 1",
            // Folders that hold nothing but one folder are one row with both names.
            "  -Camera/NIKON Z 6/2019 3",
            "  +Trips 7",
            // Numbers in their order, as Files sorts names.
            "    -9 1",
            "    -10 1",
            "    +2019 3",
            "      -Lisbon 1",
            "      -Zanzibar 2",
            "    +2020 2",
            "      =2020 1",
            "      -Kyoto 1",
        ])
        // Every folder album is still there (the picker remembers and opens them), each once.
        let folders = albums.filter { if case .folder = $0.album { true } else { false } }
        XCTAssertEqual(Set(AlbumTree.rows(albums).filter { if case .folder = $0.summary.album { true } else { false } }.map(\.summary)), Set(folders))
        // A tree's count is what it opens.
        for row in AlbumTree.rows(albums) {
            XCTAssertEqual(try library.fetchAssets(in: row.summary.album).count, row.summary.count, row.title)
        }
        // The row under which each sits.
        let rows = AlbumTree.rows(albums)
        let kyoto = try XCTUnwrap(rows.first { $0.title == "Kyoto" })
        XCTAssertEqual(rows.first { $0.summary.album == kyoto.parent }?.title, "2020")
    }

    func testAFolderOfPhotosOnlyIsALeafAndFoldersWithoutPathsAreTopRows() throws {
        let (library, _) = try library(["a.jpg", "b.jpg"])
        let albums = try library.albumsWithFolderTrees()
        XCTAssertEqual(describe(AlbumTree.rows(albums)), ["-Pictures 2"])
        let made = AlbumSummary(album: .folder(id: 9_999), name: "Also/here", count: 1, folderPath: nil, burstGroups: nil)
        XCTAssertEqual(describe(AlbumTree.rows(albums + [made])), ["-Also/here 1", "-Pictures 2"])
    }
}
