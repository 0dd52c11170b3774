import CGtk
import Foundation
import GObjectSupport
import PhotoLibrary
import PickerModel
import TestSupport
import Thumbnails
import XCTest
@testable import PickerUI

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
            let view = PickerView(library: library, loader: ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache)))
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
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline {
                InProcessGTK.pump(seconds: 0.02)
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

    /// Videos without a thumbnailer show a film icon, and the person is told once what to install.
    nonisolated func testAMissingVideoThumbnailerIsSaidOnce() throws {
        try MainActor.assumeIsolated {
            try InProcessGTK.require()
            let generated = GeneratedLibrary.shared
            let library = try PhotoLibrary(roots: [generated.rootPath], location: IndexLocation(
                databasePath: TestSupport.temporaryDirectory("no-thumbnailer-index").appendingPathComponent("index.sqlite").path))
            try library.scan()
            let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("no-thumbnailer-cache").path))
            let view = PickerView(library: library, loader: ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, thumbnailers: [])))
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
