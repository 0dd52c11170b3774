// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PhotoLibrary
import TestSupport
import XCTest
@testable import PickerModel

/// Two pickers of one library in one process (an app with two, the portal's requests): one
/// index, one scan and one watcher, whose findings reach both, and picks of their own.
@MainActor
final class LibraryServiceTests: XCTestCase, @unchecked Sendable {
    private var library: URL!
    private var index: URL!
    private var queue: PickerControllerTests.MainQueue!
    private var observations: [Subscription] = []

    nonisolated override func setUpWithError() throws {
        try MainActor.assumeIsolated {
            library = TestSupport.temporaryDirectory("service-library").appendingPathComponent("Pictures")
            try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("data/demo-library"), to: library)
            index = TestSupport.temporaryDirectory("service-index").appendingPathComponent("index.sqlite")
            queue = PickerControllerTests.MainQueue()
        }
    }

    nonisolated override func tearDownWithError() throws {
        try MainActor.assumeIsolated {
            observations = []
            try? FileManager.default.removeItem(at: library.deletingLastPathComponent())
            try? FileManager.default.removeItem(at: index.deletingLastPathComponent())
        }
    }

    private func shared() throws -> LibraryService {
        try LibraryService.shared(roots: [FilePath(library.path)], post: { [queue] in queue!.post($0) }) {
            try PhotoLibrary(roots: [FilePath(library.path)], location: IndexLocation(databasePath: index.path))
        }
    }

    private func picker(_ service: LibraryService) throws -> PickerController {
        let controller = PickerController(service: service, maximum: 2, post: { [queue] in queue!.post($0) })
        try controller.reloadAlbums()
        return controller
    }

    nonisolated func testTwoPickersShareOneIndexHearTheSameNewPhotoAndKeepTheirOwnPicks() throws {
        try MainActor.assumeIsolated {
            let service = try shared()
            XCTAssertTrue(try shared() === service, "a second picker of the same folders gets the same library")
            let first = try picker(service), second = try picker(service)
            defer { first.close(); second.close() }
            var finished = 0
            for controller in [first, second] {
                observations.append(controller.observe { if case .scanFinished = $0 { finished += 1 } })
            }
            // A first run for both: the second hears the first's scan instead of starting its own.
            first.startScan()
            second.startScan()
            XCTAssertTrue(queue.run(until: { finished == 2 && !service.isScanning }), "both heard the one scan end")
            XCTAssertEqual(finished, 2, "one scan, heard once by each")
            let count = try service.library.fetchAssets(in: .smart(.recents)).count
            XCTAssertGreaterThan(count, 3)
            XCTAssertTrue(queue.run(until: { first.model.count == count && second.model.count == count }),
                          "both grids show the whole library: \(first.model.count), \(second.model.count) of \(count)")

            let a = try XCTUnwrap(first.model.assetID(at: 0)), b = try XCTUnwrap(first.model.assetID(at: 1))
            first.selection.toggle(a)
            second.selection.toggle(b)
            second.selection.toggle(a)
            XCTAssertEqual(first.selection.picked, [a])
            XCTAssertEqual(second.selection.picked, [b, a], "each picker keeps its own picks, in its own order")

            first.startWatching()
            second.startWatching()
            XCTAssertTrue(service.waitUntilWatching(), "the folders are watched")
            let photo = library.appendingPathComponent("Phone/IMG_0042.JPG")
            try FileManager.default.copyItem(at: photo, to: library.appendingPathComponent("Arrived.jpg"))
            XCTAssertTrue(queue.run(until: { first.model.count == count + 1 && second.model.count == count + 1 }),
                          "the new photo reaches both grids: \(first.model.count), \(second.model.count) of \(count + 1)")
        }
    }

    nonisolated func testAPickerThatClosesLeavesTheOtherItsWatcherAndTheLastTakesItAway() throws {
        try MainActor.assumeIsolated {
            let service = try shared()
            let first = try picker(service), second = try picker(service)
            var finished = false
            observations.append(second.observe { if case .scanFinished = $0 { finished = true } })
            second.startScan()
            XCTAssertTrue(queue.run(until: { finished }))
            let count = try service.library.fetchAssets(in: .smart(.recents)).count
            XCTAssertTrue(queue.run(until: { first.model.count == count && second.model.count == count }))
            first.startWatching()
            XCTAssertTrue(service.waitUntilWatching(), "the folders are watched")
            first.close()
            XCTAssertFalse(first.isScanning)
            try FileManager.default.copyItem(at: library.appendingPathComponent("Phone/IMG_0042.JPG"),
                                             to: library.appendingPathComponent("Arrived.jpg"))
            XCTAssertTrue(queue.run(until: { second.model.count == count + 1 }), "the watcher the first started still serves the second")
            XCTAssertEqual(first.model.count, count, "the closed picker hears nothing")
            second.close()
            XCTAssertFalse(try shared() === service, "once the last picker closed, a new one opens the library afresh")
        }
    }
}
