// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// `ls` and `albums` look only at folders whose entries changed (their time moved), so an unchanged
/// library costs a `stat` per folder; what was added, removed or renamed anywhere is still seen.
final class FolderTimeScanTests: XCTestCase {
    private var library: URL!
    private var dataHome: URL!
    private var nested: URL!

    override func setUpWithError() throws {
        library = TestSupport.temporaryDirectory("folder-times")
        dataHome = TestSupport.temporaryDirectory("folder-times-data")
        nested = library.appendingPathComponent("2024/Trip/Day 2")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        // A few photos of the generated library, at three depths.
        let photos = GeneratedLibrary.shared.paths {
            $0["kind"] as? String == "photo" && ($0["path"] as? String)?.hasSuffix(".jpg") == true
        }.sorted().prefix(6)
        XCTAssertEqual(photos.count, 6)
        for (index, photo) in photos.enumerated() {
            let folder = [library!, library.appendingPathComponent("2024"), nested!][index % 3]
            try FileManager.default.copyItem(atPath: photo.displayString, toPath: folder.appendingPathComponent("photo\(index).jpg").path)
        }
        ageFolders()
    }

    /// Folder times a minute old: times from the last two seconds are not trusted (a change in the
    /// same clock tick would not move them), and this test is about the trusted case.
    private func ageFolders() {
        let old = Date().addingTimeInterval(-60)
        for folder in [library!, library.appendingPathComponent("2024"), library.appendingPathComponent("2024/Trip"), nested!] {
            try? FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: folder.path)
        }
    }

    private func listed() throws -> Set<String> {
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--library", library.path],
                                         environment: ["XDG_DATA_HOME": dataHome.path])
        XCTAssertEqual(result.status, 0, result.error)
        return Set(String(decoding: result.output, as: UTF8.self).split(separator: "\n").map {
            String($0.dropFirst(library.path.count + 1))
        })
    }

    func testLsSeesAFileAddedRemovedAndRenamedInANestedFolder() throws {
        XCTAssertEqual(try listed().count, 6)
        let fileManager = FileManager.default
        try fileManager.copyItem(at: nested.appendingPathComponent("photo2.jpg"), to: nested.appendingPathComponent("added.jpg"))
        try fileManager.removeItem(at: nested.appendingPathComponent("photo5.jpg"))
        try fileManager.moveItem(at: library.appendingPathComponent("2024/photo1.jpg"), to: library.appendingPathComponent("2024/renamed.jpg"))
        XCTAssertEqual(try listed(), ["photo0.jpg", "photo3.jpg", "2024/renamed.jpg", "2024/photo4.jpg",
                                      "2024/Trip/Day 2/photo2.jpg", "2024/Trip/Day 2/added.jpg"])
    }

    func testLsSeesAFolderAddedOrRenamedDeepDown() throws {
        XCTAssertEqual(try listed().count, 6)
        let deeper = nested.appendingPathComponent("Evening")
        try FileManager.default.createDirectory(at: deeper, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: nested.appendingPathComponent("photo2.jpg"), to: deeper.appendingPathComponent("late.jpg"))
        try FileManager.default.moveItem(at: library.appendingPathComponent("2024/Trip"), to: library.appendingPathComponent("2024/Holiday"))
        XCTAssertEqual(try listed(), ["photo0.jpg", "photo3.jpg", "2024/photo1.jpg", "2024/photo4.jpg",
                                      "2024/Holiday/Day 2/photo2.jpg", "2024/Holiday/Day 2/photo5.jpg",
                                      "2024/Holiday/Day 2/Evening/late.jpg"])
    }

    /// The cost claim, observed: a second look at an unchanged library lists no folder and
    /// reads no file; an `.everyFile` scan still checks every file.
    func testAnUnchangedLibraryIsPassedByItsFolderTimes() throws {
        let photos = try PhotoLibrary(roots: [FilePath(library.path)],
                                      location: IndexLocation(databasePath: dataHome.appendingPathComponent("index.sqlite").path))
        try photos.scan(.changedFolders)
        var quick = ScanProgress()
        try photos.scan(.changedFolders, progress: { quick = $0 })
        XCTAssertEqual(quick.foldersSeen, 4)
        XCTAssertEqual(quick.foldersUnchanged, 4, "every folder passed by its time")
        XCTAssertEqual(quick.filesSeen, 0, "no folder listed, no file looked at")
        var full = ScanProgress()
        try photos.scan(.everyFile, progress: { full = $0 })
        XCTAssertEqual(full.filesUnchanged, 6)
        XCTAssertEqual(full.foldersUnchanged, 0)
    }

    /// What `.changedFolders` does not see (a file rewritten in place, same name): `photopick
    /// index` does.
    func testAFileRewrittenInPlaceIsSeenByIndex() throws {
        func dates() throws -> [String: String] {
            let json = try TestSupport.run(TestSupport.photopick, ["ls", "--json", "--cached", "--library", library.path],
                                           environment: ["XDG_DATA_HOME": dataHome.path])
            let objects = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.output) as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: objects.map { (URL(fileURLWithPath: $0["path"] as! String).lastPathComponent, $0["captured_at"] as! String) })
        }
        XCTAssertEqual(try listed().count, 6)
        let before = try dates()
        XCTAssertNotEqual(before["photo0.jpg"], before["photo2.jpg"])
        // photo2 gets photo0's bytes under its own name, written through (not renamed over it,
        // which would move the folder's time).
        let target = nested.appendingPathComponent("photo2.jpg")
        let handle = try FileHandle(forWritingTo: target)
        try handle.truncate(atOffset: 0)
        handle.write(try Data(contentsOf: library.appendingPathComponent("photo0.jpg")))
        try handle.close()
        ageFolders()
        let index = try TestSupport.run(TestSupport.photopick, ["index", "--library", library.path],
                                        environment: ["XDG_DATA_HOME": dataHome.path])
        XCTAssertEqual(index.status, 0, index.error)
        XCTAssertEqual(try dates()["photo2.jpg"], before["photo0.jpg"], "index read the rewritten file")
    }
}
