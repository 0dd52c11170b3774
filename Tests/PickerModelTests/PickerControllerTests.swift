// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
@_spi(Testing) import PhotoLibrary
import TestSupport
import XCTest
@testable import PickerModel
import Thumbnails

/// The picker's controller, driven without a display: work done on other threads comes back
/// through a queue this test runs, as the GLib main loop does in the app.
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class PickerControllerTests: XCTestCase, @unchecked Sendable {
    /// Stands in for the GTK thread's main loop.
    final class MainQueue: @unchecked Sendable {
        private let lock = NSLock()
        private var work: [@MainActor @Sendable () -> Void] = []

        func post(_ closure: @escaping @MainActor @Sendable () -> Void) {
            lock.lock()
            work.append(closure)
            lock.unlock()
        }

        /// Runs posted work until `condition` holds; false on timeout.
        @discardableResult @MainActor
        func run(until condition: () -> Bool, timeout: TimeInterval = 20) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while !condition() {
                guard Date() < deadline else { return false }
                lock.lock()
                let next = work
                work = []
                lock.unlock()
                if next.isEmpty { usleep(5_000) }
                next.forEach { $0() }
            }
            return true
        }
    }

    private var library: URL!
    private var queue: MainQueue!
    /// The controllers' events the test listens to, until it ends.
    private var observations: [Subscription] = []

    /// Hears `controller`'s events for the rest of the test.
    private func listen(_ controller: PickerController, _ handler: @escaping (PickerEvent) -> Void) {
        observations.append(controller.observe(handler))
    }

    nonisolated override func setUpWithError() throws {
        try MainActor.assumeIsolated {
            library = TestSupport.temporaryDirectory("controller-library").appendingPathComponent("Pictures")
            try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("data/demo-library"), to: library)
            queue = MainQueue()
        }
    }

    /// A controller over the test library, with a new index unless `index` names one to reuse.
    private func makeController(maximum: Int? = nil, index: URL? = nil) throws -> PickerController {
        let index = index ?? TestSupport.temporaryDirectory("controller-index").appendingPathComponent("index.sqlite")
        let photos = try PhotoLibrary(roots: [FilePath(library.path)], location: IndexLocation(databasePath: index.path))
        return PickerController(library: photos, maximum: maximum, post: { [queue] in queue!.post($0) })
    }

    /// Scans and waits until the model shows everything the index holds.
    private func scanned(_ controller: PickerController) throws -> PickerController {
        var finished = false
        listen(controller) { if case .scanFinished = $0 { finished = true } }
        try controller.reloadAlbums()
        controller.startScan()
        XCTAssertTrue(queue.run(until: { finished && controller.model.count == (try? controller.library.fetchAssets(in: .smart(.recents)).count) }))
        return controller
    }

    /// The window starts the scan before it opens an album: an empty index is a first run (the
    /// album waits for every date, with progress), an indexed one is not (the album opens at once).
    nonisolated func testAScanStartedBeforeAnAlbumOpensIsAFirstRunOnlyOnAnEmptyIndex() throws {
        try MainActor.assumeIsolated {
            let index = TestSupport.temporaryDirectory("early-scan-index").appendingPathComponent("index.sqlite")
            for run in ["first", "second"] {
                let controller = try makeController(index: index)
                defer { controller.close() }
                var finished = false, progressShown = 0, opened = 0
                listen(controller) { if case .scanFinished = $0 { finished = true } }
                listen(controller) { if case .scanProgress = $0 { progressShown += 1 } }
                listen(controller) { if case .albumOpened = $0 { opened += 1 } }
                controller.startScan()
                try controller.reloadAlbums()
                let openedAtOnce = controller.model.count
                XCTAssertTrue(queue.run(until: { finished }), "\(run) run")
                let expected = try controller.library.fetchAssets(in: .smart(.recents)).count
                XCTAssertGreaterThan(expected, 0)
                XCTAssertTrue(queue.run(until: { controller.model.count == expected }), "\(run) run: the album shows the library")
                if run == "first" {
                    XCTAssertGreaterThan(progressShown, 0, "a first run shows its progress")
                    XCTAssertEqual(opened, 2, "the album opens again once every date is known")
                } else {
                    XCTAssertEqual(progressShown, 0, "an indexed library shows no first-run progress")
                    XCTAssertEqual(openedAtOnce, expected, "the album opened with the indexed photos")
                    XCTAssertEqual(opened, 1, "and did not open again")
                }
            }
        }
    }

    nonisolated func testPicksStayWhenTheAlbumChanges() throws {
        try MainActor.assumeIsolated {
            let controller = try scanned(try makeController())
            let first = try XCTUnwrap(controller.model.assetID(at: 0)), second = try XCTUnwrap(controller.model.assetID(at: 1))
            XCTAssertEqual(controller.selection.toggle(first), .picked(number: 1))
            XCTAssertEqual(controller.selection.toggle(second), .picked(number: 2))
            var opened = 0
            listen(controller) { if case .albumOpened = $0 { opened += 1 } }
            controller.open(.smart(.favorites))
            XCTAssertEqual(opened, 1)
            XCTAssertEqual(controller.currentAlbum, .smart(.favorites))
            XCTAssertEqual(controller.model.count, try controller.library.fetchAssets(in: .smart(.favorites)).count)
            XCTAssertEqual(controller.selection.picked, [first, second], "picks belong to the library, not to an album")
            XCTAssertEqual(controller.albumKey, "Favorites")
        }
    }

    /// Picks handed over while Recently Picked is open reach it at once, at their places: the
    /// last picked first, one picked again moved up, the rest as they were.
    nonisolated func testPicksHandedOverReachAnOpenRecentlyPicked() throws {
        try MainActor.assumeIsolated {
            let controller = try scanned(try makeController())
            let ids = (0..<4).compactMap { controller.model.assetID(at: $0) }
            XCTAssertEqual(ids.count, 4)
            try controller.library.recordPicks([ids[0], ids[1]])
            try controller.reloadAlbums()
            controller.open(.recentlyPicked)
            XCTAssertEqual(controller.model.fetchResult?.allIDs, [ids[1], ids[0]])
            controller.recordPicks([ids[2], ids[0]])
            XCTAssertTrue(queue.run(until: { controller.model.fetchResult?.allIDs.count == 3 }), "the new pick never showed")
            XCTAssertTrue(queue.run(until: { controller.model.fetchResult?.allIDs == [ids[0], ids[2], ids[1]] }),
                          "\(controller.model.fetchResult?.allIDs ?? [])")
            XCTAssertEqual(controller.currentAlbum, .recentlyPicked)
        }
    }

    /// What a cell's picture says of its file is the controller's rule of picking: a damaged
    /// file is refused with why, until a picture of it comes; a failure of the moment (a busy
    /// thumbnailer, a cancelled request) refuses nothing.
    nonisolated func testAFileWhosePictureFailedForItsOwnReasonCannotBePickedUntilOneComes() throws {
        try MainActor.assumeIsolated {
            let controller = try scanned(try makeController())
            let id = try XCTUnwrap(controller.model.assetID(at: 0)), other = try XCTUnwrap(controller.model.assetID(at: 1))
            let asset = try XCTUnwrap(controller.asset(id)), otherAsset = try XCTUnwrap(controller.asset(other))
            XCTAssertEqual(controller.pictureCame(for: asset, failure: .undecodable("bad Huffman table")), .damaged)
            XCTAssertEqual(controller.selection.toggle(id), .refused(FileProblem.damaged.explanation))
            XCTAssertEqual(controller.fileProblem(of: id), .damaged)
            XCTAssertNil(controller.pictureCame(for: otherAsset, failure: .temporary("no room for a temporary file")))
            XCTAssertNil(controller.pictureCame(for: otherAsset, failure: .cancelled))
            XCTAssertEqual(controller.selection.toggle(other), .picked(number: 1))
            // Copied in again since: its picture came, and it can be picked.
            controller.pictureCame(for: asset, failure: nil)
            XCTAssertNil(controller.fileProblem(of: id))
            XCTAssertEqual(controller.selection.toggle(id), .picked(number: 2))
        }
    }

    /// A picker on screen shows a first run's scanned library after its next frame (read on a
    /// worker meanwhile): a photo that arrives before that frame comes is in the album, in its place.
    nonisolated func testAPhotoArrivingWhileTheScannedLibraryWaitsForTheFrameIsShownInPlace() throws {
        try MainActor.assumeIsolated {
            let controller = try makeController()
            defer { controller.close() }
            var waiting: [@MainActor () -> Void] = []
            controller.showsAfterTheNextFrame = { waiting.append($0) }
            var finished = false
            listen(controller) { if case .scanFinished = $0 { finished = true } }
            controller.startScan()
            try controller.reloadAlbums()
            XCTAssertTrue(queue.run(until: { finished && !waiting.isEmpty }), "the scanned library waits for the frame")
            XCTAssertEqual(controller.model.count, 0, "nothing is shown before the frame")
            let arrived = library.appendingPathComponent("Phone/arrived.jpg")
            try FileManager.default.copyItem(at: library.appendingPathComponent("Phone/PXL_20240612_081500123.jpg"), to: arrived)
            finished = false
            controller.startScan()
            XCTAssertTrue(queue.run(until: { finished }))
            XCTAssertEqual(controller.model.count, 0, "the change waits with the library")
            waiting.forEach { $0() }
            let expected = try controller.library.fetchAssets(in: .smart(.recents)).allIDs
            XCTAssertTrue(try controller.library.paths(in: .smart(.recents)).contains(FilePath(arrived.path)))
            XCTAssertTrue(queue.run(until: {
                (0..<controller.model.count).compactMap { controller.model.assetID(at: $0) } == expected
            }), "the album as the index has it, in its order: \(controller.model.count) of \(expected.count)")
        }
    }

    nonisolated func testAFileAddedDuringTheScanReachesTheModelInPlace() throws {
        try MainActor.assumeIsolated {
            let controller = try makeController()
            try controller.reloadAlbums()
            var finished = false
            listen(controller) { if case .scanFinished = $0 { finished = true } }
            controller.startScan()
            // Another program writes a photo while the first scan runs.
            let source = library.appendingPathComponent("Phone/PXL_20240612_081500123.jpg")
            let arrived = library.appendingPathComponent("Phone/arrived.jpg")
            try FileManager.default.copyItem(at: source, to: arrived)
            XCTAssertTrue(queue.run(until: { finished }))
            // Whatever the scan missed comes with the watcher's change; here, a second scan.
            finished = false
            controller.startScan()
            XCTAssertTrue(queue.run(until: { finished }))
            let expected = try controller.library.paths(in: .smart(.recents))
            XCTAssertTrue(queue.run(until: {
                (0..<controller.model.count).compactMap { controller.model.assetID(at: $0) } == ((try? controller.library.fetchAssets(in: .smart(.recents)).allIDs) ?? [])
            }), "the model holds the album as the index has it, in its order")
            XCTAssertTrue(expected.contains(FilePath(arrived.path)))
            XCTAssertEqual(controller.model.count, expected.count)
        }
    }

    /// The rows read ahead of the cells (a scroll step) are the album's, in its order, and an id
    /// the index no longer holds is passed over.
    nonisolated func testRowsReadAheadAreTheAlbumsRows() throws {
        try MainActor.assumeIsolated {
            let controller = try scanned(try makeController())
            defer { controller.close() }
            let ids = try controller.library.fetchAssets(in: .smart(.recents)).allIDs
            XCTAssertGreaterThan(ids.count, 3)
            let expected = try controller.library.assets(ids: ids).map(\.path)
            controller.readRows(at: 0..<(controller.model.count + 10))
            XCTAssertEqual((0..<controller.model.count).compactMap { controller.path(at: $0) }, expected)
            XCTAssertNoThrow(try controller.library.readAhead(ids: [Int64.max, ids[0]]))
        }
    }

    /// A later run first looks only at folders whose time moved (cheap, while the window comes up),
    /// then checks every file: a photo rewritten in place while the picker was closed is found then.
    nonisolated func testALaterRunFindsAPhotoRewrittenInPlaceWhileClosed() throws {
        try MainActor.assumeIsolated {
            let index = TestSupport.temporaryDirectory("controller-reused-index").appendingPathComponent("index.sqlite")
            let first = try scanned(try makeController(index: index))
            first.close()
            let target = library.appendingPathComponent("Phone/PXL_20240612_081500123.jpg")
            let rows = try first.library.assets(ids: first.library.fetchAssets(in: .smart(.recents)).allIDs)
            let before = try XCTUnwrap(rows.first { $0.path == FilePath(target.path) })
            let other = try XCTUnwrap(rows.first { $0.path.displayString.hasSuffix(".jpg") && $0.captureDate != before.captureDate })
            // Folder times a minute old, recorded by a scan that lists them (the first scan found
            // them too new to trust, as just copied).
            let old = Date().addingTimeInterval(-60)
            for folder in [library!, library.appendingPathComponent("Phone")] {
                try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: folder.path)
            }
            let settle = try makeController(index: index)
            var settled = false
            listen(settle) { if case .scanFinished = $0 { settled = true } }
            try settle.reloadAlbums()
            settle.startScan(fullCheckDelay: 0)
            XCTAssertTrue(queue.run(until: { settled }))
            settle.close()
            // Another program saves over a photo while the picker is closed (same name: its
            // folder's time does not move).
            let handle = try FileHandle(forWritingTo: target)
            try handle.truncate(atOffset: 0)
            handle.write(try Data(contentsOf: URL(fileURLWithPath: other.path.displayString)))
            try handle.close()

            let controller = try makeController(index: index)
            try controller.reloadAlbums()
            var scans = 0
            listen(controller) { if case .scanFinished = $0 { scans += 1 } }
            controller.startScan(fullCheckDelay: 0.5)
            XCTAssertTrue(queue.run(until: { scans >= 1 }))
            XCTAssertEqual(try controller.library.asset(id: before.id)?.captureDate, before.captureDate,
                           "the quick look at folders does not see a file rewritten in place")
            XCTAssertTrue(queue.run(until: { scans >= 2 }), "every file is checked a moment later")
            XCTAssertEqual(try controller.library.asset(id: before.id)?.captureDate, other.captureDate, "and that finds it")
            controller.close()
        }
    }

    nonisolated func testADeletedPickLeavesTheSelectionWhenTheChangeArrives() throws {
        try MainActor.assumeIsolated {
            let controller = try scanned(try makeController())
            let id = try XCTUnwrap(controller.model.assetID(at: 0))
            let path = try XCTUnwrap(try controller.library.asset(id: id)).path
            controller.selection.toggle(id)
            XCTAssertEqual(unlink(path.displayString), 0)
            var finished = false
            listen(controller) { if case .scanFinished = $0 { finished = true } }
            controller.startScan()
            XCTAssertTrue(queue.run(until: { finished && controller.model.position(of: id) == nil }))
            XCTAssertEqual(controller.selection.picked, [])
        }
    }

    nonisolated func testATypeFilterReopensTheAlbumWithOnlyThoseTypes() throws {
        try MainActor.assumeIsolated {
            let controller = try scanned(try makeController())
            let everything = controller.model.count
            controller.filter = AssetFilter(mimeTypes: ["image/png"])
            let shown = (0..<controller.model.count).compactMap { controller.model.assetID(at: $0) }
            XCTAssertGreaterThan(shown.count, 0)
            XCTAssertLessThan(shown.count, everything)
            for id in shown { XCTAssertEqual(try controller.library.asset(id: id)?.mimeType, "image/png") }
            controller.filter = .all
            XCTAssertEqual(controller.model.count, everything)
        }
    }

    /// Photos arriving above what the person looks at: the view is told where its top asset went
    /// (to keep it in place) and how many arrived above; at the very top nothing is counted.
    /// Scrolled down, photos that arrive above are held out of the model (nothing in view
    /// reflows) and counted; at the top they come in first. A photo removed above still leaves,
    /// and the view learns where its top asset went.
    nonisolated func testAChangeAboveTheVisibleRangeKeepsTheFirstVisibleAssetInPlace() throws {
        try MainActor.assumeIsolated {
            let controller = try scanned(try makeController())
            XCTAssertGreaterThan(controller.model.count, 30)
            let count = controller.model.count
            let looking = try XCTUnwrap(controller.model.assetID(at: 20))
            controller.anchorAsset = { looking }
            var moves: [[Int]] = [], announced: [Int] = []
            listen(controller) { if case .anchorMoved(let from, let to) = $0 { moves.append([from, to]) } }
            listen(controller) { if case .newerAbove(let count) = $0 { announced.append(count) } }
            var change = LibraryChange()
            let arrivals = try SyntheticLibrary.addNewest(controller.library, root: FilePath(library.path), count: 5)
            change.inserted = arrivals
            controller.apply(change)
            XCTAssertTrue(queue.run(until: { !announced.isEmpty }))
            queue.run(until: { false }, timeout: 0.3)
            XCTAssertEqual(announced, [5])
            XCTAssertEqual(controller.newerAbove, 5)
            XCTAssertEqual(controller.model.count, count, "held above the view")
            XCTAssertEqual(controller.model.assetID(at: 20), looking, "nothing moved")
            XCTAssertEqual(moves, [])

            // A photo above the view leaves: it goes, and the view keeps its top asset in place.
            let above = try XCTUnwrap(controller.model.assetID(at: 3))
            try controller.library.writeDirectly { db in try db.execute("DELETE FROM assets WHERE id = \(above)") }
            var removal = LibraryChange()
            removal.removed = [above]
            controller.apply(removal)
            XCTAssertTrue(queue.run(until: { !moves.isEmpty }))
            XCTAssertEqual(moves, [[20, 19]], "the view learns where its top asset went")
            XCTAssertEqual(controller.model.assetID(at: 19), looking)
            XCTAssertEqual(controller.newerAbove, 5, "the held photos are still waiting")

            // Back at the top (no anchor): the held photos come in first.
            controller.anchorAsset = { nil }
            controller.sawNewest()
            XCTAssertEqual(controller.newerAbove, 0)
            XCTAssertEqual(announced.last, 0)
            XCTAssertTrue(queue.run(until: { controller.model.count == count + 4 }))
            XCTAssertEqual(Set((0..<5).compactMap { controller.model.assetID(at: $0) }), arrivals)

            // At the very top, arrivals are simply first: nothing to keep or count.
            change.inserted = try SyntheticLibrary.addNewest(controller.library, root: FilePath(library.path), count: 2)
            controller.apply(change)
            XCTAssertTrue(queue.run(until: { controller.model.count == count + 6 }))
            queue.run(until: { false }, timeout: 0.2)
            XCTAssertEqual(moves.count, 1)
            XCTAssertEqual(controller.newerAbove, 0)
        }
    }

    nonisolated func testTheWatchLimitReachesTheViewOnce() throws {
        try MainActor.assumeIsolated {
            let controller = try scanned(try makeController())
            var problems: [String] = []
            listen(controller) { if case .problem(let problem) = $0 { problems.append(problem) } }
            controller.startWatching(maximumWatches: 1)
            defer { controller.close() }
            XCTAssertTrue(queue.run(until: { !problems.isEmpty }, timeout: 10), "the limit is told")
            queue.run(until: { false }, timeout: 0.5)
            XCTAssertEqual(problems.count, 1, "once: \(problems)")
            XCTAssertTrue(problems.first?.contains("limit of watched folders") == true, problems.first ?? "")
        }
    }

    nonisolated func testAProblemReachesTheViewInWords() throws {
        try MainActor.assumeIsolated {
            // The data folder is a file: the index is kept in memory, and the person is told.
            let blocked = TestSupport.temporaryDirectory("controller-blocked").appendingPathComponent("not-a-folder")
            try Data("x".utf8).write(to: blocked)
            let photos = try PhotoLibrary(roots: [FilePath(library.path)],
                                          location: IndexLocation(databasePath: blocked.appendingPathComponent("index.sqlite").path))
            let controller = PickerController(library: photos, post: { [queue] in queue!.post($0) })
            var problems: [String] = []
            listen(controller) { if case .problem(let problem) = $0 { problems.append(problem) } }
            controller.reportNotices()
            XCTAssertEqual(problems.count, 1, "one notice, said once")
            XCTAssertTrue(problems.first?.contains("memory") == true, problems.first ?? "")
        }
    }

    nonisolated func testNothingReachesTheViewAfterItCloses() throws {
        try MainActor.assumeIsolated {
            let controller = try makeController()
            var heard = 0
            listen(controller) { event in
                switch event {
                case .scanFinished, .contentChanged: heard += 1
                default: break
                }
            }
            try controller.reloadAlbums()
            controller.startScan()
            let closing = Date()
            controller.close()
            XCTAssertFalse(controller.isScanning, "closing stops the scan")
            XCTAssertLessThan(Date().timeIntervalSince(closing), 2, "without waiting for it to finish")
            queue.run(until: { false }, timeout: 0.3)
            XCTAssertEqual(heard, 0)
        }
    }

    /// The picker closes while the scan waits on a metadata worker that sent one byte of its
    /// reply and stopped (a worker a file took over, or one stopped by a debugger): closing
    /// does not wait on it (issue 37: `LibraryService.leave` joined the scan for ever).
    nonisolated func testClosingDoesNotWaitOnAMetadataWorkerStalledMidReply() throws {
        try MainActor.assumeIsolated {
            let folder = TestSupport.temporaryDirectory("stalled-metadata")
            defer { try? FileManager.default.removeItem(at: folder) }
            let index = folder.appendingPathComponent("index.sqlite")
            let photos = try PhotoLibrary(roots: [FilePath(library.path)], location: IndexLocation(databasePath: index.path))
            // (A deadline of 3 s per file: the test's stand-ins are ended by the pool itself.)
            let workers = MetadataWorkers(executable: try TestSupport.standInWorker("one-byte", in: folder), maximumWorkers: 1,
                                          wallSecondsPerFile: 3)
            photos.metadataWorkers = workers
            let controller = PickerController(library: photos, post: { [queue] in queue!.post($0) })
            try controller.reloadAlbums()
            controller.startScan()
            // Until the stand-in has answered its byte and stalls (it is running, the scan waits).
            let deadline = Date().addingTimeInterval(20)
            while workers.busyWorkers.isEmpty, Date() < deadline { queue.run(until: { false }, timeout: 0.05) }
            XCTAssertFalse(workers.busyWorkers.isEmpty, "the scan reached the worker")
            usleep(300_000)
            let closing = Date()
            controller.close()
            XCTAssertLessThan(Date().timeIntervalSince(closing), 1, "closing let the stalled scan go")
            // The scan stops at its next file, once the worker's deadline has ended it.
            let gone = Date().addingTimeInterval(15)
            while !workers.busyWorkers.isEmpty, Date() < gone { usleep(100_000) }
            XCTAssertTrue(workers.busyWorkers.isEmpty, "the stalled worker was ended by its deadline")
            for worker in workers.busyWorkers { kill(worker.pid, SIGKILL) }
        }
    }
}
