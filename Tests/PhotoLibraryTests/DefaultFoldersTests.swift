// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// The library of the default folders (Pictures, Videos and those added from the picker), as the
/// script commands see it without `--library`: one index whichever of them are there, so a disk
/// not plugged in, a folder added or one taken out never reads again what did not change
/// (issue 37, item 10: a missing Videos folder started another index, read from nothing).
final class DefaultFoldersTests: XCTestCase {
    private var home: URL!

    override func setUpWithError() throws {
        home = TestSupport.temporaryDirectory("default-folders")
        let config = home.appendingPathComponent(".config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "XDG_PICTURES_DIR=\"$HOME/Pictures\"\nXDG_VIDEOS_DIR=\"$HOME/Videos\"\n"
            .write(to: config.appendingPathComponent("user-dirs.dirs"), atomically: true, encoding: .utf8)
        try photos(["Pictures/a.jpg", "Pictures/b.jpg", "Pictures/Trip/c.jpg", "Videos/clip.jpg"])
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: home)
        super.tearDown()
    }

    private func photos(_ names: [String]) throws {
        let demo = TestSupport.packageRoot.appendingPathComponent("data/demo-library/Phone/PXL_20240612_081500123.jpg")
        for name in names {
            let target = home.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: demo, to: target)
        }
    }

    private var environment: [String: String] {
        ["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
         "XDG_DATA_HOME": home.appendingPathComponent(".local/share").path, "XDG_CACHE_HOME": home.appendingPathComponent(".cache").path,
         "XDG_STATE_HOME": home.appendingPathComponent(".local/state").path]
    }

    private func photopick(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let result = try TestSupport.run(TestSupport.photopick, arguments, environment: environment, timeout: 60)
        return (result.status, String(decoding: result.output, as: UTF8.self), result.error)
    }

    /// "…: 2 read, 3 unchanged, …" of `photopick index`: how many files were read again.
    private func filesRead(_ output: String) -> Int? {
        guard let range = output.range(of: #"(\d+) read"#, options: .regularExpression) else { return nil }
        return Int(output[range].split(separator: " ")[0])
    }

    private func listed() throws -> [String] {
        let list = try photopick(["ls"])
        XCTAssertEqual(list.status, 0, list.error)
        return list.output.split(separator: "\n").map { String($0.dropFirst(home.path.count + 1)) }.sorted()
    }

    private func indexFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent(".local/share/photopick").path)
            .filter { $0.hasPrefix("index-") && $0.hasSuffix(".sqlite") }
    }

    func testAFolderMissingAtLaunchKeepsItsPhotosOfflineAndNothingIsReadAgain() throws {
        let first = try photopick(["index"])
        XCTAssertEqual(first.status, 0, first.error)
        XCTAssertEqual(filesRead(first.output), 4, first.output)
        let index = try indexFiles()

        let videos = home.appendingPathComponent("Videos"), unplugged = home.appendingPathComponent("unplugged")
        try FileManager.default.moveItem(at: videos, to: unplugged)
        let away = try photopick(["index"])
        XCTAssertEqual(away.status, 0, away.error)
        XCTAssertEqual(filesRead(away.output), 0, "nothing is read again: \(away.output)")
        XCTAssertTrue(away.error.contains("Videos is not there (on a disk that is not connected?)"), away.error)
        XCTAssertEqual(try indexFiles(), index, "the same index")
        XCTAssertEqual(try listed(), ["Pictures/Trip/c.jpg", "Pictures/a.jpg", "Pictures/b.jpg", "Videos/clip.jpg"],
                       "its photo is still listed, as it was last read")

        try FileManager.default.moveItem(at: unplugged, to: videos)
        let back = try photopick(["index"])
        XCTAssertEqual(filesRead(back.output), 0, "back as it was: nothing to read: \(back.output)")
        XCTAssertFalse(back.error.contains("not there"), back.error)
    }

    /// A folder that never held a photo here (no Videos folder at all) is not said to be away.
    func testADefaultFolderThatNeverExistedIsNotSaidToBeAway() throws {
        try FileManager.default.removeItem(at: home.appendingPathComponent("Videos"))
        let result = try photopick(["index"])
        XCTAssertEqual(result.status, 0, result.error)
        XCTAssertEqual(filesRead(result.output), 3, result.output)
        XCTAssertFalse(result.error.contains("not there"), result.error)
    }

    /// A folder added from the picker is read alone; one no longer among the default folders
    /// (Videos moved elsewhere in user-dirs.dirs) leaves the library.
    func testAFolderAddedIsReadAloneAndOneTakenOutLeaves() throws {
        XCTAssertEqual(try photopick(["index"]).status, 0)
        try photos(["Scans/s1.jpg", "Scans/s2.jpg"])
        let list = home.appendingPathComponent(".config/photopick/folders")
        try FileManager.default.createDirectory(at: list.deletingLastPathComponent(), withIntermediateDirectories: true)
        try (home.appendingPathComponent("Scans").path + "\n").write(to: list, atomically: true, encoding: .utf8)
        let added = try photopick(["index"])
        XCTAssertEqual(added.status, 0, added.error)
        XCTAssertEqual(filesRead(added.output), 2, "only the folder added is read: \(added.output)")
        XCTAssertEqual(try listed().count, 6)

        try "XDG_PICTURES_DIR=\"$HOME/Pictures\"\nXDG_VIDEOS_DIR=\"$HOME/Films\"\n"
            .write(to: home.appendingPathComponent(".config/user-dirs.dirs"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try listed(), ["Pictures/Trip/c.jpg", "Pictures/a.jpg", "Pictures/b.jpg", "Scans/s1.jpg", "Scans/s2.jpg"])
        let albums = try photopick(["albums", "--json"])
        XCTAssertEqual(albums.status, 0, albums.error)
        XCTAssertFalse(albums.output.contains(home.appendingPathComponent("Videos").path), "no album of the old Videos folder: \(albums.output)")
        XCTAssertTrue(albums.output.contains(home.appendingPathComponent("Scans").path), albums.output)
    }

    /// A media folder removed in Library Folders… is a "-" line of the list: every command leaves
    /// it out, and the lines an earlier version wrote still read as they did.
    func testAMediaFolderRemovedFromTheListIsLeftOut() throws {
        try photos(["Scans/s1.jpg"])
        let list = home.appendingPathComponent(".config/photopick/folders")
        try FileManager.default.createDirectory(at: list.deletingLastPathComponent(), withIntermediateDirectories: true)
        try (home.appendingPathComponent("Scans").path + "\n-" + home.appendingPathComponent("Videos").path + "\n")
            .write(to: list, atomically: true, encoding: .utf8)
        XCTAssertEqual(try listed(), ["Pictures/Trip/c.jpg", "Pictures/a.jpg", "Pictures/b.jpg", "Scans/s1.jpg"])
    }

    /// The index an earlier version made of the folders present is taken over, not read again.
    func testTheIndexOfAnEarlierVersionIsTakenOver() throws {
        let earlier = try photopick(["index", "--library", home.appendingPathComponent("Pictures").path,
                                     "--library", home.appendingPathComponent("Videos").path])
        XCTAssertEqual(filesRead(earlier.output), 4, earlier.output)
        XCTAssertEqual(try indexFiles().count, 1)
        let now = try photopick(["index"])
        XCTAssertEqual(now.status, 0, now.error)
        XCTAssertEqual(filesRead(now.output), 0, "taken over: \(now.output)")
        XCTAssertEqual(try indexFiles(), ["index-default.sqlite"])
    }
}
