// SPDX-License-Identifier: GPL-3.0-or-later
import CGLib
import Foundation
import PhotoLibrary
import TestSupport
import XCTest
@testable import Thumbnails

/// The worker pool: order, cancellation, delivery on the main loop, no decode on the main thread.
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class ThumbnailLoaderTests: XCTestCase, @unchecked Sendable {
    nonisolated(unsafe) private static var images: [FilePath] = []

    nonisolated override class func setUp() {
        MainActor.assumeIsolated {
            super.setUp()
            let folder = TestSupport.temporaryDirectory("loader-images")
            for index in 0..<24 {
                let url = folder.appendingPathComponent("image-\(index).png")
                _ = try? TestSupport.run("/usr/bin/convert", ["-size", "300x200", "xc:rgb(\(index * 10),80,120)", url.path])
                images.append(FilePath(url.path))
            }
        }
    }

    private func loader(workers: Int = 2, paused: Bool = false) -> ThumbnailLoader {
        let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("loader-cache").appendingPathComponent("thumbnails").path))
        return ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, memory: MemoryCache(), thumbnailers: []),
                               workers: workers, startPaused: paused)
    }

    /// Runs the main loop until `done` or the timeout.
    private func runMainLoop(until done: () -> Bool, timeout: TimeInterval = 20) {
        let deadline = Date().addingTimeInterval(timeout)
        while !done() && Date() < deadline {
            _ = g_main_context_iteration(nil, 0)
            usleep(1000)
        }
    }

    nonisolated func testResultsArriveOnTheMainThreadAndNothingIsDecodedThere() {
        MainActor.assumeIsolated {
            let loader = loader()
            defer { loader.shutdown() }
            var delivered = 0
            var onMainThread = true
            for path in Self.images {
                loader.request(path, flavor: .normal) { result in
                    if case .failure = result { XCTFail("\(path)") }
                    onMainThread = onMainThread && photopick_is_main_thread() != 0
                    delivered += 1
                }
            }
            runMainLoop { delivered == Self.images.count }
            XCTAssertEqual(delivered, Self.images.count)
            XCTAssertTrue(onMainThread)
            XCTAssertEqual(loader.thumbnailer.decodes, Self.images.count)
            XCTAssertEqual(loader.thumbnailer.mainThreadDecodes, 0)
        }
    }

    nonisolated func testVisibleRequestsRunNewestFirstAndPrefetchOnlyWhenNoneWait() {
        MainActor.assumeIsolated {
            let loader = loader(workers: 1, paused: true)
            defer { loader.shutdown() }
            var order: [String] = []
            func name(_ path: FilePath) -> String { String(decoding: path.lastComponent, as: UTF8.self) }
            loader.request(Self.images[0], flavor: .normal, priority: .prefetch) { _ in order.append("prefetch-0") }
            for index in 1...3 {
                loader.request(Self.images[index], flavor: .normal) { _ in order.append("visible-\(index)") }
            }
            loader.request(Self.images[4], flavor: .normal, priority: .prefetch) { _ in order.append("prefetch-4") }
            loader.resume()
            runMainLoop { order.count == 5 }
            XCTAssertEqual(order, ["visible-3", "visible-2", "visible-1", "prefetch-0", "prefetch-4"])
        }
    }

    /// The cells in sight go first, top left first, before cells bound around them later.
    nonisolated func testJobsPutFirstRunFirstInTheOrderGiven() {
        MainActor.assumeIsolated {
            let loader = loader(workers: 1, paused: true)
            defer { loader.shutdown() }
            var order: [Int] = []
            for index in 0..<6 {
                loader.request(Self.images[index], flavor: .normal, priority: index == 5 ? .prefetch : .visible) { _ in order.append(index) }
            }
            loader.putFirst([Self.images[1], Self.images[5], Self.images[2], Self.images[20]], flavor: .normal)
            loader.resume()
            runMainLoop { order.count == 6 }
            XCTAssertEqual(order, [1, 5, 2, 4, 3, 0])
        }
    }

    /// Cells GtkGridView binds after the view named the cells in sight (its 30 rows around the
    /// view) wait behind them: they were taken first, newest first, and a first run on real photos
    /// made the rows below the screen before the screen (issue 19).
    nonisolated func testCellsBoundAfterTheViewNamedTheCellsInSightWaitBehindThem() {
        MainActor.assumeIsolated {
            let loader = loader(workers: 1, paused: true)
            defer { loader.shutdown() }
            var order: [Int] = []
            for index in 0..<4 { loader.request(Self.images[index], flavor: .normal) { _ in order.append(index) } }
            loader.putFirst([Self.images[0], Self.images[1], Self.images[6]], flavor: .normal)
            // Bound afterwards: two below the screen, and the third cell in sight.
            for index in [4, 5, 6] { loader.request(Self.images[index], flavor: .normal) { _ in order.append(index) } }
            loader.resume()
            runMainLoop { order.count == 7 }
            XCTAssertEqual(order, [0, 1, 6, 5, 4, 3, 2])
        }
    }

    /// Nothing below the screen is made until every cell in sight is: with two workers, the
    /// second does not start a cell below while the first makes the screen's last.
    nonisolated func testNothingBelowTheScreenFinishesBeforeTheScreen() {
        MainActor.assumeIsolated {
            for _ in 0..<3 {
                let loader = loader(workers: 2, paused: true)
                defer { loader.shutdown() }
                var order: [Int] = []
                for index in 0..<12 { loader.request(Self.images[index], flavor: .large) { _ in order.append(index) } }
                loader.putFirst((0..<5).map { Self.images[$0] }, flavor: .large)
                loader.resume()
                runMainLoop { order.count == 12 }
                XCTAssertEqual(Set(order.prefix(5)), Set(0..<5), "\(order)")
            }
        }
    }

    /// Every cell in sight gets its embedded preview before any of them is decoded.
    nonisolated func testEveryCellInSightIsPaintedFromItsPreviewBeforeAnyDecode() throws {
        try MainActor.assumeIsolated {
            let generated = GeneratedLibrary.shared
            let photos = generated.files.filter { $0["kind"] as? String == "photo" && $0["exif_thumbnail"] as? Bool == true && $0["corrupt"] == nil }
                .prefix(4).map { generated.path(of: $0) }
            XCTAssertEqual(photos.count, 4)
            let loader = loader(workers: 1, paused: true)
            defer { loader.shutdown() }
            var events: [String] = []
            for (index, path) in photos.enumerated() {
                loader.request(path, flavor: .normal, cellPixels: 20) { result in
                    if case .success(let thumbnail) = result { events.append("\(thumbnail.isPreliminary ? "preview" : "final") \(index)") }
                }
            }
            loader.putFirst(photos, flavor: .normal)
            loader.resume()
            runMainLoop { events.count == 8 }
            XCTAssertEqual(events, ["preview 0", "preview 1", "preview 2", "preview 3", "final 0", "final 1", "final 2", "final 3"])
        }
    }

    /// A cell bound after its job painted the embedded preview gets that preview at once, not
    /// grey until the decode: a first run asks for its first screen before the cells bind, and
    /// at b4277ad's parent 7 cells of a real-photo first screen stayed grey that way (issue 22).
    nonisolated func testACellBoundAfterItsJobPaintedThePreviewShowsItBeforeTheDecode() throws {
        try MainActor.assumeIsolated {
            let generated = GeneratedLibrary.shared
            let file = try XCTUnwrap(generated.files.first {
                $0["kind"] as? String == "photo" && $0["exif_thumbnail"] as? Bool == true && $0["corrupt"] == nil
            })
            let photo = generated.path(of: file)
            // The one worker makes a slow video's thumbnail first, so the photo's decode waits
            // behind it once its preview is painted: the second request joins the job then.
            let folder = TestSupport.temporaryDirectory("joined-preview")
            let definition = folder.appendingPathComponent("slow.thumbnailer")
            try "[Thumbnailer Entry]\nExec=sh -c 'sleep 3' thumbnailer %o\nMimeType=video/mp4;\n".write(to: definition, atomically: true, encoding: .utf8)
            let video = folder.appendingPathComponent("clip.mp4")
            XCTAssertEqual(try TestSupport.run("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "testsrc=size=64x64:rate=5:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", video.path]).status, 0)
            let cache = ThumbnailCache(root: FilePath(folder.appendingPathComponent("thumbnails").path))
            let loader = ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, memory: MemoryCache(),
                                                                  thumbnailers: [try XCTUnwrap(ExternalThumbnailer.parse(FilePath(definition.path)))]),
                                         workers: 1, startPaused: true)
            defer { loader.shutdown(waitsForRunningWork: false) }
            var first: [Thumbnail.Source] = []
            loader.request(FilePath(video.path), flavor: .normal) { _ in }
            loader.request(photo, flavor: .normal, cellPixels: 20) { result in
                if case .success(let thumbnail) = result { first.append(thumbnail.source) }
            }
            loader.putFirst([FilePath(video.path), photo], flavor: .normal)
            loader.resume()
            runMainLoop { !first.isEmpty }
            XCTAssertEqual(first, [.embedded], "the preview paints first")

            var joined: [Thumbnail.Source] = []
            loader.request(photo, flavor: .normal, cellPixels: 20) { result in
                if case .success(let thumbnail) = result { joined.append(thumbnail.source) }
            }
            runMainLoop(until: { !joined.isEmpty }, timeout: 1.5)
            XCTAssertEqual(joined, [.embedded], "the cell bound later shows the preview while the decode waits")
            XCTAssertEqual(first, [.embedded], "the decode is still waiting behind the video")
            runMainLoop { joined.count == 2 && first.count == 2 }
            XCTAssertEqual(joined, [.embedded, .decoded])
            XCTAssertEqual(first, [.embedded, .decoded])
            XCTAssertEqual(loader.thumbnailer.decodes, 2, "the video and the photo: one decode serves both cells")
        }
    }

    nonisolated func testACancelledRequestNeverReportsAResult() {
        MainActor.assumeIsolated {
            let loader = loader(workers: 2, paused: true)
            defer { loader.shutdown() }
            var reported = Set<Int>()
            var requests: [ThumbnailRequest] = []
            for (index, path) in Self.images.enumerated() {
                requests.append(loader.request(path, flavor: .large) { _ in reported.insert(index) })
            }
            // Cancel every other one while queued: they leave the queue.
            for index in stride(from: 0, to: requests.count, by: 2) { requests[index].cancel() }
            XCTAssertEqual(loader.queuedCount, Self.images.count / 2)
            loader.resume()
            runMainLoop { reported.count == Self.images.count / 2 }
            usleep(200_000)
            runMainLoop(until: { false }, timeout: 0.3)
            XCTAssertEqual(reported, Set(stride(from: 1, to: Self.images.count, by: 2)))
            XCTAssertEqual(loader.thumbnailer.decodes, Self.images.count / 2, "cancelled work is not done")
        }
    }

    nonisolated func testAResultThatArrivesAfterCancellationIsDiscarded() {
        MainActor.assumeIsolated {
            let loader = loader(workers: 1)
            defer { loader.shutdown() }
            var reported = false
            let request = loader.request(Self.images[5], flavor: .xLarge) { _ in reported = true }
            // Let the worker finish and post the result, but do not run the main loop yet.
            let deadline = Date().addingTimeInterval(10)
            while loader.thumbnailer.decodes == 0 && Date() < deadline { usleep(1000) }
            usleep(100_000)
            request.cancel()  // the cell was recycled meanwhile
            runMainLoop(until: { false }, timeout: 0.3)
            XCTAssertFalse(reported)
        }
    }

    nonisolated func testTheSameThumbnailAskedTwiceIsMadeOnce() {
        MainActor.assumeIsolated {
            let loader = loader(workers: 1, paused: true)
            defer { loader.shutdown() }
            var answers = 0
            loader.request(Self.images[6], flavor: .normal) { _ in answers += 1 }
            loader.request(Self.images[6], flavor: .normal, priority: .prefetch) { _ in answers += 1 }
            loader.resume()
            runMainLoop { answers == 2 }
            XCTAssertEqual(answers, 2)
            XCTAssertEqual(loader.thumbnailer.decodes, 1)
        }
    }

    nonisolated func testPrefetchWarmsAheadInTheScrollDirectionAndCancelsWhatFellBehind() {
        MainActor.assumeIsolated {
            let loader = loader(workers: 1, paused: true)
            defer { loader.shutdown() }
            let prefetcher = Prefetcher(loader: loader, flavor: .normal)
            let count = Self.images.count
            prefetcher.update(visible: 0..<4, count: count) { Self.images[$0] }
            XCTAssertEqual(prefetcher.warmedRange, 4..<8, "one screen ahead")
            XCTAssertEqual(loader.queuedCount, 4)
            // A small move (under a third of a screen) changes nothing.
            prefetcher.update(visible: 1..<5, count: count) { Self.images[$0] }
            XCTAssertEqual(prefetcher.warmedRange, 4..<8)
            // Scrolling down two screens: the old window is cancelled, the new one is ahead.
            prefetcher.update(visible: 8..<12, count: count) { Self.images[$0] }
            XCTAssertEqual(prefetcher.warmedRange, 7..<16)
            XCTAssertEqual(loader.queuedCount, 5, "7 and 12..<16: what fell behind left the queue")
            // Scrolling back up warms above.
            prefetcher.update(visible: 4..<8, count: count) { Self.images[$0] }
            XCTAssertEqual(prefetcher.warmedRange, 0..<9)
            prefetcher.reset()
            XCTAssertEqual(loader.queuedCount, 0)
        }
    }

    nonisolated func testRequestingAgainAfterCancellingARunningJobGetsARealAnswer() throws {
        try MainActor.assumeIsolated {
            let big = TestSupport.temporaryDirectory("big").appendingPathComponent("big.jpg")
            XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "3000x2000", "plasma:", big.path]).status, 0)
            let loader = loader(workers: 1)
            defer { loader.shutdown() }
            let first = loader.request(FilePath(big.path), flavor: .large) { _ in XCTFail("cancelled") }
            while loader.queuedCount > 0 { usleep(500) }
            first.cancel()
            var answer: Result<Thumbnail, ThumbnailFailure>?
            loader.request(FilePath(big.path), flavor: .large) { answer = $0 }
            runMainLoop { answer != nil }
            guard case .success(let thumbnail)? = answer else { return XCTFail("\(String(describing: answer))") }
            XCTAssertNotNil(thumbnail.pixbuf)
        }
    }

    nonisolated func testShutdownKillsARunningThumbnailer() throws {
        try MainActor.assumeIsolated {
            let definition = TestSupport.temporaryDirectory("thumbnailers").appendingPathComponent("slow.thumbnailer")
            try "[Thumbnailer Entry]\nExec=sh -c 'sleep 30' thumbnailer %o\nMimeType=video/mp4;\n".write(to: definition, atomically: true, encoding: .utf8)
            let video = TestSupport.temporaryDirectory("slow-video").appendingPathComponent("clip.mp4")
            XCTAssertEqual(try TestSupport.run("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "testsrc=size=64x64:rate=5:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", video.path]).status, 0)
            let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("slow-cache").path))
            let loader = ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, memory: MemoryCache(),
                                                                  thumbnailers: [try XCTUnwrap(ExternalThumbnailer.parse(FilePath(definition.path)))]),
                                         workers: 1)
            loader.request(FilePath(video.path), flavor: .normal) { _ in }
            while loader.queuedCount > 0 { usleep(500) }
            usleep(200_000)
            let started = Date()
            loader.shutdown()
            XCTAssertLessThan(Date().timeIntervalSince(started), 3, "the window closes without waiting for the thumbnailer")
        }
    }
}
