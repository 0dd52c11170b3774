// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import Foundation
import GObjectSupport
import PhotoLibrary
import PickerModel
import TestSupport
@testable import Thumbnails
import XCTest
@_spi(Testing) @testable import PickerUI

/// A first run as a person sees it: no index, no thumbnails, a library whose dates are shuffled
/// against the order the scan finds files in. The screen must settle once, on the newest photos,
/// and never show a cell change under the person's eyes.
// XCTest calls the test methods on the main thread; they enter the main actor there.
@MainActor
final class FirstRunTests: XCTestCase, @unchecked Sendable {
    nonisolated override class func setUp() {
        MainActor.assumeIsolated {
            super.setUp()
            _ = InProcessGTK.start()
        }
    }

    nonisolated func testTheFirstScreenSettlesOnTheNewestPhotosAndNoCellChangesAfterward() throws {
        try MainActor.assumeIsolated {
            try InProcessGTK.require()
            // Folders by camera and year: the scan meets 2019 after 2024 and before 2021.
            let generated = try GeneratedLibrary(count: 3000)
            func freshIndex(_ name: String) throws -> PhotoLibrary {
                try PhotoLibrary(roots: [generated.rootPath], location: IndexLocation(
                    databasePath: TestSupport.temporaryDirectory(name).appendingPathComponent("index.sqlite").path))
            }
            // What Recents must hold, from an index built apart, all at once.
            let reference = try freshIndex("first-run-reference")
            try reference.scan()
            let newest = try reference.fetchAssets(in: .smart(.recents))
            let expectedPaths = try reference.assets(ids: newest.ids(in: 0..<min(newest.count, 200))).map(\.path)

            let library = try freshIndex("first-run-index")
            XCTAssertTrue(library.isEmpty, "a first run")
            let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("first-run-cache").path))
            let view = Picker.hosting(library: library, loader: ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache)))
            let window = gtk_window_new()!
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            gtk_window_set_default_size(window.cast(), 960, 720)
            gtk_window_set_child(window.cast(), view.widget)
            try view.showAlbums()
            gtk_window_present(window.cast())
            view.startScan()

            // Watch every cell until the scan is over and a second has passed: the asset each
            // position showed a picture for first, and any later different one.
            var firstShown: [Int: Int64] = [:]
            var changes: [String] = []
            let adjustment = try XCTUnwrap(gtk_scrolled_window_get_vadjustment(view.scroller.opaque))
            var quietSince: Date?
            // What the empty grid says while the album waits for the dates (issue 40, point 14:
            // "as they are found" while nothing came for 12 s).
            var waitingWords: [String] = []
            var waitedFrom: Date?, waited = 0.0
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline {
                InProcessGTK.pump(seconds: 0.02)
                if view.controller.scannedLibraryIsComing {
                    waitedFrom = waitedFrom ?? Date()
                    waited = Date().timeIntervalSince(waitedFrom!)
                    if let words = view.emptyStateShown?.description, waitingWords.last != words { waitingWords.append(words) }
                }
                XCTAssertEqual(gtk_adjustment_get_value(adjustment), 0, "nothing scrolled the grid")
                for cell in view.cells.compactMap(\.cell) where cell.showsPicture {
                    guard let position = cell.position, let id = cell.assetID else { continue }
                    if let before = firstShown[position] {
                        if before != id { changes.append("position \(position): asset \(before), then \(id)") }
                    } else {
                        firstShown[position] = id
                    }
                }
                if view.controller.isScanning { quietSince = nil } else if quietSince == nil { quietSince = Date() }
                if let quietSince, Date().timeIntervalSince(quietSince) > 1 { break }
            }
            XCTAssertFalse(view.controller.isScanning, "the scan finished")
            XCTAssertFalse(waitingWords.contains { $0.contains("as they are found") }, "\(waitingWords)")
            // (The scan reports every 0.2 s: a wait of a second has said how far it is. A quick
            // one may end first.)
            if waited > 1 {
                XCTAssertTrue(waitingWords.contains { $0.range(of: #"once the date of each is known: [0-9,]+ of [0-9,]+ files read"#, options: .regularExpression) != nil },
                              "how far the dating is, after \(waited) s: \(waitingWords)")
            }
            XCTAssertEqual(changes, [], "no cell that showed a picture showed another asset later")

            // The settled first screen: every visible cell shows its picture, and the assets are
            // the newest of the library, in order.
            let visible = view.cells.compactMap(\.cell).filter { cell in
                guard let position = cell.position else { return false }
                return Double(position / 7) * 130 < gtk_adjustment_get_page_size(adjustment) - 130
            }
            XCTAssertGreaterThan(visible.count, 12)
            let shown = visible.sorted { $0.position! < $1.position! }
            XCTAssertTrue(shown.allSatisfy(\.showsPicture), "every cell of the first screen shows its picture")
            let shownPaths = try library.assets(ids: shown.compactMap(\.assetID)).map(\.path)
            XCTAssertEqual(shownPaths, Array(expectedPaths.prefix(shownPaths.count)), "the newest assets, in order")
            XCTAssertEqual(shown.compactMap(\.position), Array(0..<shown.count))
            // And they are what the generator says the library's Recents are made of.
            let recents = generated.paths { ($0["albums"] as? [String])?.contains("Recents") == true }
            for path in shownPaths { XCTAssertTrue(recents.contains(path), "\(path) is in Recents by the manifest") }
        }
    }

    /// A first run's first screen is worked out before the grid is laid out, from the window's
    /// size, and may take a row more than the grid then shows. Once the grid names the cells in
    /// sight, the screen waits for those only: 300 real photos over SFTP, a photo without an
    /// embedded preview in that extra row kept the grid hidden until its 2 s deadline.
    nonisolated func testTheFirstScreenWaitsOnlyForTheCellsTheGridShows() throws {
        try MainActor.assumeIsolated {
            try InProcessGTK.require()
            // 48 photos an hour apart, newest first by name; the 31st newest is a video whose
            // thumbnailer never ends.
            let folder = TestSupport.temporaryDirectory("first-screen-rows")
            defer { try? FileManager.default.removeItem(at: folder) }
            let photos = folder.appendingPathComponent("photos")
            try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
            let made = try TestSupport.run("/usr/bin/python3", ["-c", """
                import os, subprocess, sys
                from PIL import Image
                folder = sys.argv[1]
                for index in range(48):
                    name = f"{folder}/IMG_{47 - index:02}." + ("mp4" if index == 30 else "jpg")
                    if index == 30:
                        subprocess.run(["/usr/bin/ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                        "testsrc=size=64x64:rate=5:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", name], check=True)
                    else:
                        Image.new("RGB", (320, 240), (5 * index, 80, 120)).save(name, quality=90)
                    stamp = 1_700_000_000 - 3600 * index
                    os.utime(name, (stamp, stamp))
                """, photos.path])
            XCTAssertEqual(made.status, 0, made.error)
            let definition = folder.appendingPathComponent("endless.thumbnailer")
            try "[Thumbnailer Entry]\nExec=sh -c 'sleep 60' thumbnailer %o\nMimeType=video/mp4;\n".write(to: definition, atomically: true, encoding: .utf8)
            let library = try PhotoLibrary(roots: [FilePath(photos.path)], location: IndexLocation(
                databasePath: folder.appendingPathComponent("index.sqlite").path))
            try library.scan()
            let cache = ThumbnailCache(root: FilePath(folder.appendingPathComponent("thumbnails").path))
            let thumbnailer = Thumbnailer(cache: cache, thumbnailers: [try XCTUnwrap(ExternalThumbnailer.parse(FilePath(definition.path)))])
            let view = Picker.hosting(library: library, loader: ThumbnailLoader(thumbnailer: thumbnailer))
            let window = gtk_window_new()!
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown(waitsForRunningWork: false) }
            gtk_window_set_default_size(window.cast(), 960, 520)
            gtk_window_set_child(window.cast(), view.widget)
            try view.showAlbums()
            let newest = (0..<48).compactMap { view.controller.path(at: $0) }
            XCTAssertEqual(newest.count, 48)
            let video = try XCTUnwrap(newest.dropFirst(30).first)
            XCTAssertEqual(video.lastComponentName, "IMG_17.mp4", "the video is the 31st newest")

            // As a first run does: the dates are known before the grid is laid out, and the size
            // the window will have includes its header bar (the grid's page is 520 points high:
            // 4 rows of 7 in sight, the 4th in part; the window's 570 make 5).
            view.photoGrid.expectedSize = (960, 570)
            view.photoGrid.makeThumbnailsEarly(for: newest)
            XCTAssertEqual(view.photoGrid.firstScreenGate?.waitingFor.contains(video), true, "the early screen takes the row below the grid's screen")
            let started = Date()
            gtk_window_present(window.cast())
            while view.firstScreenIsHeld && Date().timeIntervalSince(started) < 5 { InProcessGTK.pump(seconds: 0.02) }
            let shownAfter = Date().timeIntervalSince(started)
            let inSight = try XCTUnwrap(view.photoGrid.inSight)
            XCTAssertFalse(inSight.contains(30), "the video's row is off the screen: \(inSight)")
            XCTAssertLessThan(shownAfter, 1.5, "the grid showed once the cells in sight were made, not at its 2 s deadline")
            XCTAssertTrue(view.cells.compactMap(\.cell).filter { ($0.position ?? .max) < inSight.upperBound }.allSatisfy(\.showsPicture),
                          "every cell in sight shows its picture")
        }
    }

    /// Videos without a thumbnailer show a film icon, and the person is told once what to install.
    nonisolated func testAMissingVideoThumbnailerIsSaidOnce() throws {
        try MainActor.assumeIsolated {
            try InProcessGTK.require()
            let generated = GeneratedLibrary.shared
            let library = try PhotoLibrary(roots: [generated.rootPath], location: IndexLocation(
                databasePath: TestSupport.temporaryDirectory("no-thumbnailer-index").appendingPathComponent("index.sqlite").path))
            try library.scan()
            let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("no-thumbnailer-cache").path))
            let view = Picker.hosting(library: library, loader: ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, thumbnailers: [])))
            let window = gtk_window_new()!
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            gtk_window_set_default_size(window.cast(), 960, 720)
            gtk_window_set_child(window.cast(), view.widget)
            try view.showAlbums(selecting: .smart(.videos))
            gtk_window_present(window.cast())
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline && view.cells.compactMap(\.cell).filter(\.showsPicture).count < 1 && view.reported.isEmpty {
                InProcessGTK.pump(seconds: 0.05)
            }
            InProcessGTK.pump(seconds: 1)
            XCTAssertGreaterThan(view.model.count, 5, "videos are listed")
            XCTAssertEqual(view.reported.filter { $0.contains("ffmpegthumbnailer") }.count, 1, "said once: \(view.reported)")
        }
    }
}
