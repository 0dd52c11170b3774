// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PhotoLibrary
import TestSupport
import XCTest
@testable import PickerModel

/// The fetch store and the folder of fetched copies, without a server: GIO reads a `file://`
/// location through the same stream calls as an `sftp://` one (the server's side, with its
/// progress on a slow link, a cancel and a failure mid-copy, is RemoteFetchTests').
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class FetchStoreTests: XCTestCase, @unchecked Sendable {
    private var folder: URL!
    private var queue: PickerControllerTests.MainQueue!

    nonisolated override func setUp() {
        MainActor.assumeIsolated {
            folder = TestSupport.temporaryDirectory("fetch-store")
            queue = PickerControllerTests.MainQueue()
        }
    }

    nonisolated override func tearDown() {
        MainActor.assumeIsolated { try? FileManager.default.removeItem(at: folder) }
    }

    private var copies: FetchedCopies { FetchedCopies(folder: FilePath(folder.appendingPathComponent("fetched").path)) }

    private func makeStore() -> FetchStore {
        FetchStore(copies: copies, post: { [queue] in queue!.post($0) })
    }

    private func photo(_ name: String, bytes: Int, in subfolder: String = "photos") throws -> (path: String, location: FilePath) {
        let directory = folder.appendingPathComponent(subfolder)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(name).path
        var generator = SystemRandomNumberGenerator()
        try Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: path))
        return (path, FilePath(URL(fileURLWithPath: path).absoluteString))
    }

    /// A copy goes from 0 to fetched, never back, and is the file byte for byte under its own
    /// name, with its time; nothing temporary stays.
    nonisolated func testAFetchEndsInACompleteCopyWithTheFilesTime() throws {
        try MainActor.assumeIsolated {
            let source = try photo("IMG_0001.JPG", bytes: 3_000_000)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: source.path)
            let store = makeStore()
            defer { store.close() }
            var heard: [FetchStore.State?] = []
            let subscription = store.observe(7) { heard.append($0) }
            defer { subscription.cancel() }
            store.fetch(7, from: source.location, size: 3_000_000)
            XCTAssertEqual(store.state(of: 7), .waiting, "in line at once, until a copier takes it")
            let before = store.progress(of: [7])
            XCTAssertEqual(before.copied, 0)
            XCTAssertEqual(before.total, 3_000_000, "the index's size counts until the server says")
            XCTAssertNil(before.secondsLeft, "no time left is said before anything came")
            XCTAssertTrue(queue.run(until: { store.copy(of: 7) != nil }))
            XCTAssertTrue(heard.contains(.fetching(0)), "its turn came: the ring begins")
            let copy = try XCTUnwrap(store.copy(of: 7))
            XCTAssertEqual(URL(fileURLWithPath: copy.displayString).lastPathComponent, "IMG_0001.JPG")
            XCTAssertEqual(FileManager.default.contents(atPath: copy.displayString), FileManager.default.contents(atPath: source.path))
            let attributes = try FileManager.default.attributesOfItem(atPath: copy.displayString)
            XCTAssertEqual((attributes[.modificationDate] as? Date)?.timeIntervalSince1970, 1_700_000_000)
            let fractions = heard.compactMap { state -> Double? in if case .fetching(let fraction)? = state { fraction } else { nil } }
            XCTAssertEqual(fractions, fractions.sorted(), "the ring only fills")
            XCTAssertEqual(heard.first, .waiting)
            XCTAssertEqual(heard.last, .fetched(copy))
            XCTAssertEqual(temporaries(), [])
        }
    }

    /// The same file fetched again is the same copy, not copied again; once the file changed
    /// (another size), it is copied again.
    nonisolated func testACopyIsUsedAgainWhileTheFileIsUnchanged() throws {
        try MainActor.assumeIsolated {
            let source = try photo("IMG_0002.JPG", bytes: 200_000)
            var store = makeStore()
            store.fetch(1, from: source.location)
            XCTAssertTrue(queue.run(until: { store.copy(of: 1) != nil }))
            let copy = try XCTUnwrap(store.copy(of: 1))
            let inode = try FileManager.default.attributesOfItem(atPath: copy.displayString)[.systemFileNumber] as? Int
            store.close()

            store = makeStore()
            store.fetch(1, from: source.location)
            XCTAssertTrue(queue.run(until: { store.copy(of: 1) != nil }))
            XCTAssertEqual(store.copy(of: 1), copy)
            XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: copy.displayString)[.systemFileNumber] as? Int, inode,
                           "the copy was used as it was")
            store.close()

            try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: source.path))
            store = makeStore()
            defer { store.close() }
            store.fetch(1, from: source.location)
            XCTAssertTrue(queue.run(until: { store.copy(of: 1) != nil }))
            XCTAssertEqual(FileManager.default.contents(atPath: copy.displayString), Data(repeating: 7, count: 1000), "the changed file was copied again")
        }
    }

    /// Two photos of one name in two folders get two copies.
    nonisolated func testPhotosOfOneNameInTwoFoldersStayApart() throws {
        try MainActor.assumeIsolated {
            let first = try photo("IMG_0001.JPG", bytes: 1000, in: "a")
            let second = try photo("IMG_0001.JPG", bytes: 2000, in: "b")
            let store = makeStore()
            defer { store.close() }
            store.fetch(1, from: first.location)
            store.fetch(2, from: second.location)
            XCTAssertTrue(queue.run(until: { store.copy(of: 1) != nil && store.copy(of: 2) != nil }))
            XCTAssertNotEqual(store.copy(of: 1), store.copy(of: 2))
            XCTAssertEqual(store.copy(of: 2).flatMap { FileManager.default.contents(atPath: $0.displayString) },
                           FileManager.default.contents(atPath: second.path))
        }
    }

    /// A file that cannot be read fails with the reason and no copy; tried again once it is
    /// there, it is fetched. Cancelling forgets the asset at once.
    nonisolated func testAFailureSaysWhyAndRetryingFetches() throws {
        try MainActor.assumeIsolated {
            let missing = FilePath(folder.appendingPathComponent("photos/IMG_0009.JPG").absoluteString)
            let store = makeStore()
            defer { store.close() }
            store.fetch(9, from: missing)
            XCTAssertTrue(queue.run(until: { if case .failed? = store.state(of: 9) { true } else { false } }))
            guard case .failed(let reason)? = store.state(of: 9) else { return XCTFail() }
            // A sentence for the person; GIO's words go to the log (issue 40, point 17).
            XCTAssertEqual(reason, "it is no longer on the other computer")
            XCTAssertEqual(store.counts(of: [9]).failed, 1)
            _ = try photo("IMG_0009.JPG", bytes: 5000)
            store.retry(9)
            XCTAssertTrue(queue.run(until: { store.copy(of: 9) != nil }))
            store.cancel(9)
            XCTAssertNil(store.state(of: 9))
        }
    }

    /// Trimming removes copies unused for longer than the age, then the least recently used
    /// beyond the size, never those kept (the picks of the moment); a temporary file of a copy
    /// whose process ended mid-copy goes at once (issue 37: a picker ended while a server hung
    /// left its partial copy for a day), one still being written stays.
    nonisolated func testTrimmingRemovesOldCopiesThenTheLeastRecentlyUsed() throws {
        try MainActor.assumeIsolated {
            let store = makeStore()
            var made: [String: FilePath] = [:]
            for (index, name) in ["old", "older-kept", "recent", "newest"].enumerated() {
                let source = try photo("\(name).jpg", bytes: 100_000)
                store.fetch(Int64(index), from: source.location)
                XCTAssertTrue(queue.run(until: { store.copy(of: Int64(index)) != nil }))
                made[name] = store.copy(of: Int64(index))
            }
            store.close()
            let now = Date()
            let used: [String: TimeInterval] = ["old": 40 * 86_400, "older-kept": 50 * 86_400, "recent": 2 * 86_400, "newest": 60]
            for (name, age) in used {
                try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-age)], ofItemAtPath: made[name]!.parent.displayString)
            }
            let stale = made["newest"]!.parent.appending(".fetching-ABC123").displayString
            FileManager.default.createFile(atPath: stale, contents: Data(count: 10))
            // (Written a minute ago by a process that has ended: no one holds its lock.)
            try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-60)], ofItemAtPath: stale)
            let writing = made["older-kept"]!.parent.appending(".fetching-DEF456").displayString
            FileManager.default.createFile(atPath: writing, contents: Data(count: 10))
            let held = open(writing, O_RDWR | O_CLOEXEC)
            XCTAssertEqual(flock(held, LOCK_EX), 0)
            defer { close(held) }

            copies.trim(maximumAge: 30 * 86_400, maximumBytes: 150_000, keeping: [made["older-kept"]!])
            let left = Set(made.filter { FileManager.default.fileExists(atPath: $0.value.displayString) }.keys)
            XCTAssertEqual(left, ["older-kept", "newest"], "the old one went by age, the recent one by size (the kept one does not count)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: stale), "no process writes it")
            XCTAssertTrue(FileManager.default.fileExists(atPath: writing), "a copy under way stays")
            XCTAssertFalse(FileManager.default.fileExists(atPath: made["old"]!.parent.displayString), "its folder went too")
        }
    }

    /// An offline folder is said by its name and host: "“photos” on nas", not the whole URI.
    nonisolated func testTheHostOfALocationIsSaidWithoutItsUserAndPort() {
        MainActor.assumeIsolated {
            XCTAssertEqual(PickerController.host(of: FilePath("sftp://me@nas:2222/photos")), "nas")
            XCTAssertEqual(PickerController.host(of: FilePath("smb://nas.local/share/Photos")), "nas.local")
            XCTAssertEqual(PickerController.host(of: FilePath("sftp://me@[::1]:22/photos")), "[::1]")
            XCTAssertEqual(PickerController.host(of: FilePath("mtp://Pixel_7")), "Pixel_7")
        }
    }

    private func temporaries() -> [String] {
        let all = FileManager.default.enumerator(atPath: folder.appendingPathComponent("fetched").path)?.allObjects as? [String] ?? []
        return all.filter { ($0 as NSString).lastPathComponent.hasPrefix(".fetching-") }
    }
}
