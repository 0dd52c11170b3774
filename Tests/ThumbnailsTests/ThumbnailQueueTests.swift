// SPDX-License-Identifier: GPL-3.0-or-later
import PhotoLibrary
import XCTest
@testable import Thumbnails

/// The order thumbnails are made in, on its own (no threads, no decoding): what a person sees
/// of it is the screen filling first, and photos on another machine not flooding the link.
final class ThumbnailQueueTests: XCTestCase {
    private typealias Queue = ThumbnailQueue

    private func key(_ name: String) -> Queue.JobKey { Queue.JobKey(path: FilePath("/photos/\(name).jpg"), flavor: .large) }

    @discardableResult
    private func ask(_ queue: Queue, _ name: String, priority: ThumbnailLoader.Priority = .visible, cell: Int? = nil, remote: Bool = false) -> Queue.Job {
        queue.job(for: key(name), priority: priority, cellPixels: cell, size: nil) { remote }.job
    }

    private func next(_ queue: Queue) -> String? {
        guard let (job, previewOnly) = queue.nextWork() else { return nil }
        return (previewOnly ? "preview " : "") + String(decoding: job.key.path.lastComponent.dropLast(4), as: UTF8.self)
    }

    func testTheCellsInSightComeFirstInTheViewsOrderPreviewsBeforeDecodes() {
        let queue = Queue(paused: false)
        // Bound in GtkGridView's order: rows around the view, each a visible cell, the newest last.
        for name in ["above", "a", "b", "c", "below"] { ask(queue, name, cell: 100) }
        ask(queue, "later", priority: .prefetch)
        XCTAssertEqual(queue.putFirst(["a", "b", "c"].map { key($0).path }, flavor: .large), 0)
        XCTAssertEqual([next(queue), next(queue), next(queue)], ["preview a", "preview b", "preview c"])
        XCTAssertEqual([next(queue), next(queue), next(queue)], ["a", "b", "c"])
        // The screen is being made: nothing below it starts, and the turn is held.
        XCTAssertNil(next(queue))
        for name in ["a", "b"] { XCTAssertEqual(queue.delivered(queue.jobs[key(name)]!), 0) }
        XCTAssertEqual(queue.delivered(queue.jobs[key("c")]!), 1, "the screen's last result gives the held turn back")
        XCTAssertEqual([next(queue), next(queue), next(queue)], ["below", "above", "later"], "then the newest bound, prefetching last")
        XCTAssertNil(next(queue))
    }

    func testTwoPhotosOnAnotherMachineAreDownloadedAtOnceOnlyInSightAndNeverPrefetched() {
        let queue = Queue(paused: false)
        for name in ["r1", "r2", "r3"] { ask(queue, name, remote: true) }
        ask(queue, "off-screen", cell: 100, remote: true)
        ask(queue, "prefetched", priority: .prefetch, remote: true)
        _ = queue.putFirst(["r1", "r2", "r3"].map { key($0).path }, flavor: .large)
        XCTAssertEqual([next(queue), next(queue)], ["r1", "r2"])
        // Both transfers busy: the remote cell bound off the screen gets its embedded preview
        // (a few kilobytes), and then the turn is held for a transfer to end.
        XCTAssertEqual(next(queue), "preview off-screen")
        XCTAssertNil(next(queue))
        XCTAssertEqual(queue.delivered(queue.jobs[key("r1")]!), 1)
        XCTAssertEqual(next(queue), "r3")
        for name in ["r2", "r3"] { _ = queue.delivered(queue.jobs[key(name)]!) }
        XCTAssertNil(next(queue), "nothing off the screen is downloaded, and prefetching never is")
        XCTAssertEqual(queue.waitingCount, 2)
    }

    func testASmallFileOnAnotherMachineIsNoDownloadAndACancelledJobLeaves() {
        let queue = Queue(paused: false)
        let small = queue.job(for: key("sticker"), priority: .visible, cellPixels: nil, size: 12_000) { true }.job
        XCTAssertFalse(small.isRemote, "read whole for what a preview costs")
        let big = ask(queue, "big", remote: true)
        let request = ThumbnailRequest { _ in }
        big.requests.append(request)
        queue.drop(request, from: big)
        XCTAssertNil(queue.jobs[key("big")])
        XCTAssertEqual(next(queue), "sticker")
        XCTAssertNil(next(queue))
    }
}
