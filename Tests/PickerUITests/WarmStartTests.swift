// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// A warm start's first screen is read while GTK starts (issue 42): the photopick program keeps
/// the photos its window showed first (FirstScreenHint), and the next start on that library
/// reads their thumbnails into memory before its album opens, so that its first frame is
/// drawn with every one of them, on a busy machine too (its album's own read waited at most
/// 0.1 s, and a frame of grey cells followed 0.2 s later by the photos was the settled screen).
final class WarmStartTests: WindowTestCase {
    func testTheNextStartHasItsFirstScreensThumbnailsBeforeItsAlbumOpens() throws {
        // The index first, as a library the picker has seen is: the first window opens on it.
        let index = try TestSupport.run(TestSupport.photopick, ["index", "--library", library.path],
                                        environment: ["XDG_DATA_HOME": dataHome.path, "XDG_CACHE_HOME": cacheHome.path])
        XCTAssertEqual(index.status, 0, index.error)
        let hints = cacheHome.appendingPathComponent("photopick/first-screen")
        let trace = ["PHOTOPICK_TRACE_STARTUP": "1"]

        let first = try RunningPicker(display: display, arguments: ["--library", library.path], dataHome: dataHome,
                                      cacheHome: cacheHome, environment: trace)
        XCTAssertTrue(wait { ((try? FileManager.default.contentsOfDirectory(atPath: hints.path)) ?? []).count == 1 },
                      "the first screen is kept once the window has drawn it")
        // Its thumbnails made and stored, as a person's first look leaves them (videos go through
        // a thumbnailer: seconds on a busy machine).
        let kept = try String(contentsOf: try XCTUnwrap(FileManager.default.contentsOfDirectory(at: hints, includingPropertiesForKeys: nil).first),
                              encoding: .utf8).split(separator: "\n")
        let flavor = cacheHome.appendingPathComponent("thumbnails").appendingPathComponent(String(kept[2]))
        _ = wait(seconds: 30) { ((try? FileManager.default.contentsOfDirectory(atPath: flavor.path)) ?? []).count >= kept.count - 3 }
        try first.keys("Escape")
        XCTAssertEqual(first.finish().status, 1, "cancelled")
        let firstTrace = first.errorText
        let count = try XCTUnwrap(Self.inMemory(in: firstTrace), firstTrace).total
        XCTAssertGreaterThanOrEqual(count, 20, "a screen of photos: \(firstTrace)")

        let second = try RunningPicker(display: display, arguments: ["--library", library.path], dataHome: dataHome,
                                       cacheHome: cacheHome, environment: trace)
        usleep(500_000)
        try second.keys("Escape")
        XCTAssertEqual(second.finish().status, 1, "cancelled")
        let secondTrace = second.errorText
        XCTAssertTrue(secondTrace.contains("reading the last first screen's \(count) thumbnails"), secondTrace)
        let found = try XCTUnwrap(Self.inMemory(in: secondTrace), secondTrace)
        XCTAssertEqual(found.found, found.total, "every thumbnail of the first screen in memory as the album opens: \(secondTrace)")
        XCTAssertEqual(found.total, count)
    }

    /// The window's end seals the index (its process keeps the library to the end, so the
    /// connection's close never did), whether Cancel or SIGTERM ends it: the next start opens
    /// it without checking every page (59 ms of a warm start at 60,000 photos). SIGTERM still
    /// ends the process as a signal does, for the scripts that look at its status.
    func testTheWindowSealsItsIndexWhenItEndsSoTheNextStartDoesNotCheckIt() throws {
        let trace = ["PHOTOPICK_TRACE_STARTUP": "1"]
        func start() throws -> WindowProcess {
            let picker = try WindowProcess(display: display, arguments: ["--library", library.path, "--no-camera"], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: trace)
            // (Its first scan done: a window closed while it writes leaves the index unsealed.)
            usleep(1_500_000)
            return picker
        }
        func opening(_ trace: String) -> String? { trace.split(separator: "\n").first { $0.contains("library opened") }.map(String.init) }

        let first = try start()
        try first.keys("Escape")
        XCTAssertEqual(first.finish().status, 1, "cancelled")

        let second = try start()
        XCTAssertEqual(opening(second.errorText)?.hasSuffix("library opened"), true, "sealed by the first window's end: \(second.errorText)")
        kill(second.process.processIdentifier, SIGTERM)
        _ = second.finish()
        XCTAssertEqual(second.process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(second.process.terminationStatus, SIGTERM)

        let third = try start()
        try third.keys("Escape")
        XCTAssertEqual(third.finish().status, 1, "cancelled")
        XCTAssertEqual(opening(third.errorText)?.hasSuffix("library opened"), true, "sealed as SIGTERM ended the second: \(third.errorText)")
    }

    /// The watcher's walk of the folders and the scan start once the window has drawn its first
    /// frame: on a folder of 60,000 photos the walk's reading took a core from GTK and the X
    /// server while the window was presented. (A photo added afterwards still shows up:
    /// PickerWindowTests.testAFileAddedWhileOpenAppearsFirstInRecents.)
    func testTheWatcherStartsAfterTheWindowsFirstFrame() throws {
        let picker = try WindowProcess(display: display, arguments: ["--library", library.path, "--no-camera"], dataHome: dataHome,
                                       cacheHome: cacheHome, environment: ["PHOTOPICK_TRACE_STARTUP": "1"])
        defer { picker.stop() }
        XCTAssertTrue(wait { picker.errorText.contains("embedded picker: watching") }, picker.errorText)
        let lines = picker.errorText.split(separator: "\n")
        let drawn = try XCTUnwrap(lines.firstIndex { $0.hasSuffix("frame 0 drawn") }, picker.errorText)
        let watching = try XCTUnwrap(lines.firstIndex { $0.hasSuffix("embedded picker: watching") })
        XCTAssertLessThan(drawn, watching, picker.errorText)
    }

    /// exiv2 is loaded where metadata is read (the index's workers), not with the window: its
    /// loading cost every start 1.5 ms and 1.6 MB. The window's index still holds every date.
    /// Nor is libv4lconvert, without a camera (88 kB of every start when it was linked).
    func testAWarmWindowLoadsNeitherExiv2NorTheCamerasConverter() throws {
        let index = try TestSupport.run(TestSupport.photopick, ["index", "--library", library.path],
                                        environment: ["XDG_DATA_HOME": dataHome.path, "XDG_CACHE_HOME": cacheHome.path])
        XCTAssertEqual(index.status, 0, index.error)
        let picker = try WindowProcess(display: display, arguments: ["--library", library.path, "--no-camera"], dataHome: dataHome,
                                       cacheHome: cacheHome, environment: ["PHOTOPICK_TRACE_STARTUP": "1"])
        defer { picker.stop() }
        XCTAssertTrue(wait { picker.errorText.contains("embedded picker: watching") }, picker.errorText)
        // (A /proc file says it is empty: read to its end, not by its size.)
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/\(picker.process.processIdentifier)/maps"))
        defer { try? handle.close() }
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(maps.contains("libgtk-4"), "the window's own maps")
        XCTAssertFalse(maps.contains("libexiv2"), "exiv2 is not loaded")
        XCTAssertFalse(maps.contains("libgexiv2"), "gexiv2 is not loaded")
        XCTAssertFalse(maps.contains("libv4lconvert"), "the camera's converter is not loaded")
    }

    /// "first screen: 12 of 49 thumbnails in memory already" in a start's trace.
    private static func inMemory(in trace: String) -> (found: Int, total: Int)? {
        for line in trace.split(separator: "\n") {
            guard let range = line.range(of: "first screen: ") else { continue }
            let words = line[range.upperBound...].split(separator: " ")
            if words.count > 2, words[1] == "of", let found = Int(words[0]), let total = Int(words[2]) { return (found, total) }
        }
        return nil
    }
}
