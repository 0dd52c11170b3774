// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// Files added, deleted and modified under a watched root arrive as exact positions.
final class LibraryWatcherTests: XCTestCase {
    private var root: URL!
    private var library: PhotoLibrary!
    private var png: Data!
    private let received = Received()

    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var changes: [LibraryChange] = []
        private(set) var notices: [String] = []
        func add(_ change: LibraryChange) { lock.lock(); changes.append(change); lock.unlock() }
        func notice(_ text: String) { lock.lock(); notices.append(text); lock.unlock() }
        func take() -> [LibraryChange] { lock.lock(); defer { changes = []; lock.unlock() }; return changes }
    }

    override func setUpWithError() throws {
        root = TestSupport.temporaryDirectory("watched").appendingPathComponent("Pictures")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("a"), withIntermediateDirectories: true)
        let source = TestSupport.temporaryDirectory("png").appendingPathComponent("x.png")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "8x8", "xc:red", source.path]).status, 0)
        png = try Data(contentsOf: source)
        for index in 1...5 { try place("a/p\(index).png", time: index) }
        let database = TestSupport.temporaryDirectory("watch-index").appendingPathComponent("index.sqlite").path
        library = try PhotoLibrary(roots: [FilePath(root.path)], location: IndexLocation(databasePath: database))
        try library.scan()
    }

    /// Writes a file under a hidden name, sets its time (the capture date: no EXIF) and renames it
    /// into place, so the watcher sees one finished file.
    private func place(_ relative: String, time: Int, data: Data? = nil) throws {
        let target = root.appendingPathComponent(relative)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".incoming")
        try (data ?? png).write(to: temporary)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: Double(1_600_000_000 + time * 1000))],
                                              ofItemAtPath: temporary.path)
        XCTAssertEqual(rename(temporary.path, target.path), 0)
    }

    /// Everything the watcher delivers until it has been quiet for a moment.
    private func nextChange(timeout: TimeInterval = 10) -> LibraryChange {
        var merged = LibraryChange()
        let deadline = Date().addingTimeInterval(timeout)
        var lastArrival: Date?
        while Date() < deadline {
            for change in received.take() { merged.merge(change); lastArrival = Date() }
            if let lastArrival, Date().timeIntervalSince(lastArrival) > 0.6 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return merged
    }

    private func names(_ result: FetchResult) throws -> [String] {
        try library.assets(ids: result.allIDs).map { String(decoding: $0.path.lastComponent, as: UTF8.self) }
    }

    func testAddDeleteModifyAndNewFolderArriveAsExactPositions() throws {
        let watcher = LibraryWatcher(library: library, quietPeriod: 0.2, onChange: { [received] in received.add($0) })
        try watcher.start()
        defer { watcher.stop() }
        XCTAssertTrue(watcher.waitUntilWatching(timeout: 10), "the folders are walked and watched")
        var recents = try library.fetchAssets(in: .smart(.recents))
        XCTAssertEqual(try names(recents), ["p5.png", "p4.png", "p3.png", "p2.png", "p1.png"])

        // A new photo, newest of all: one insertion at the top.
        try place("a/p6.png", time: 6)
        var details = try XCTUnwrap(try library.changeDetails(for: recents, after: nextChange()))
        XCTAssertEqual(details.insertedIndexes, [0])
        XCTAssertEqual(details.removedIndexes, [])
        XCTAssertEqual(details.splices, [.init(position: 0, removed: 0, added: 1)])
        recents = details.after
        XCTAssertEqual(try names(recents), ["p6.png", "p5.png", "p4.png", "p3.png", "p2.png", "p1.png"])

        // A deleted one: one removal at its old position.
        XCTAssertEqual(unlink(root.appendingPathComponent("a/p3.png").path), 0)
        details = try XCTUnwrap(try library.changeDetails(for: recents, after: nextChange()))
        XCTAssertEqual(details.removedIndexes, [3])
        XCTAssertEqual(details.insertedIndexes, [])
        recents = details.after

        // A modified one (new content, same capture time): changed in place.
        var bigger = png!
        bigger.append(Data(repeating: 0, count: 16))
        try place("a/p2.png", time: 2, data: bigger)
        details = try XCTUnwrap(try library.changeDetails(for: recents, after: nextChange()))
        XCTAssertEqual(details.changedIndexes, [3])
        XCTAssertEqual(details.insertedIndexes, [])
        XCTAssertEqual(details.removedIndexes, [])
        recents = details.after

        // A modified one whose capture time moves it: removed there, inserted here.
        try place("a/p1.png", time: 7)
        details = try XCTUnwrap(try library.changeDetails(for: recents, after: nextChange()))
        XCTAssertEqual(details.removedIndexes, [4])
        XCTAssertEqual(details.insertedIndexes, [0])
        recents = details.after
        XCTAssertEqual(try names(recents), ["p1.png", "p6.png", "p5.png", "p4.png", "p2.png"])

        // A new folder with a photo in it: watched from then on, and a new album.
        try FileManager.default.createDirectory(at: root.appendingPathComponent("b"), withIntermediateDirectories: false)
        try place("b/q1.png", time: 8)
        let change = nextChange()
        XCTAssertTrue(change.foldersChanged)
        details = try XCTUnwrap(try library.changeDetails(for: recents, after: change))
        XCTAssertEqual(details.insertedIndexes, [0])
        recents = details.after
        XCTAssertTrue(try library.albums().contains { $0.name == "b" && $0.count == 1 })
        try place("b/q2.png", time: 9)
        details = try XCTUnwrap(try library.changeDetails(for: recents, after: nextChange()))
        XCTAssertEqual(details.insertedIndexes, [0], "the new folder is watched")
    }

    func testFoldersBeyondTheWatchLimitArePolled() throws {
        try FileManager.default.createDirectory(at: root.appendingPathComponent("a/deeper"), withIntermediateDirectories: false)
        try library.scan()
        let watcher = LibraryWatcher(library: library, quietPeriod: 0.2, pollInterval: 0.5, maximumWatches: 1,
                                     onChange: { [received] in received.add($0) }, onNotice: { [received] in received.notice($0.detail) })
        try watcher.start()
        defer { watcher.stop() }
        XCTAssertTrue(watcher.waitUntilWatching(timeout: 10), "the folders are walked and watched")
        XCTAssertEqual(watcher.unwatchedFolders.count, 2)
        XCTAssertTrue(received.notices.first?.contains("watch limit") == true, "\(received.notices)")
        let recents = try library.fetchAssets(in: .smart(.recents))
        try place("a/deeper/late.png", time: 10)
        let details = try XCTUnwrap(try library.changeDetails(for: recents, after: nextChange()))
        XCTAssertEqual(details.insertedIndexes, [0])
    }
}
