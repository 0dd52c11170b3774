// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import Foundation
import GObjectSupport
@_spi(Testing) import PhotoLibrary
import PickerModel
import TestSupport
import Thumbnails
import XCTest
@_spi(Testing) @testable import PickerUI

/// Photos that arrive above what a person looks at never push it away: the asset at the top
/// stays at the top, and the arrivals are announced with a way up. At the very top, new photos
/// simply appear first.
@MainActor
final class ScrollAnchorTests: XCTestCase, @unchecked Sendable {
    nonisolated override class func setUp() {
        MainActor.assumeIsolated {
            super.setUp()
            _ = InProcessGTK.start()
        }
    }

    private func openPicker(count: Int) throws -> (Picker, UnsafeMutablePointer<GtkWidget>, FilePath) {
        try InProcessGTK.require()
        let (library, root) = try SyntheticLibrary.make("anchor", count: count)
        let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("anchor-cache").path))
        // Paused: the synthetic rows have no files, and failed thumbnails are beside the point.
        let view = Picker.hosting(library: library, loader: ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, thumbnailers: []), startPaused: true))
        let window = gtk_window_new()!
        gtk_window_set_default_size(window.cast(), 960, 720)
        gtk_window_set_child(window.cast(), view.widget)
        try view.showAlbums()
        gtk_window_present(window.cast())
        InProcessGTK.pump(seconds: 1)
        return (view, window, root)
    }

    private func arrive(_ count: Int, in view: Picker, root: FilePath) throws {
        var change = LibraryChange()
        change.inserted = try SyntheticLibrary.addNewest(view.library, root: root, count: count)
        view.apply(change)
        InProcessGTK.pump(seconds: 0.6)
    }

    nonisolated func testArrivalsAboveKeepTheTopAssetInPlaceAndAreAnnounced() throws {
        try MainActor.assumeIsolated {
            let (view, window, root) = try openPicker(count: 5000)
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            let adjustment = try XCTUnwrap(gtk_scrolled_window_get_vadjustment(view.scroller.opaque))
            gtk_adjustment_set_value(adjustment, 20 * gtk_adjustment_get_page_size(adjustment) / 4)
            InProcessGTK.pump(seconds: 0.5)
            let before = try XCTUnwrap(view.topAssetInSight())
            XCTAssertFalse(view.newerPhotosShown, "nothing to announce yet")

            // (A grid reflows: twelve more photos above move each one five columns on, so the asset
            // stays on the top row, not necessarily in its corner.)
            try arrive(12, in: view, root: root)
            XCTAssertEqual(try XCTUnwrap(view.placeInSight(of: before.id), "still in view"), before.y, accuracy: 1,
                           "the asset at the top stays on the top row")
            XCTAssertTrue(view.newerPhotosShown)
            XCTAssertEqual(view.newerPhotosText, "12 newer photos")

            try arrive(1, in: view, root: root)
            XCTAssertEqual(try XCTUnwrap(view.placeInSight(of: before.id)), before.y, accuracy: 1)
            XCTAssertEqual(view.newerPhotosText, "13 newer photos", "arrivals add up")

            view.showNewerPhotos()
            InProcessGTK.pump(seconds: 0.6)
            XCTAssertEqual(gtk_adjustment_get_value(adjustment), 0, "the way up goes to the top")
            XCTAssertFalse(view.newerPhotosShown)
            XCTAssertEqual(view.model.assetID(at: 0).map { $0 > before.id }, true, "the newest photo is first")

            // Down again: the count starts over; back to the top by hand: nothing is waiting.
            gtk_adjustment_set_value(adjustment, 20 * gtk_adjustment_get_page_size(adjustment) / 4)
            InProcessGTK.pump(seconds: 0.5)
            try arrive(2, in: view, root: root)
            XCTAssertEqual(view.newerPhotosText, "2 newer photos")
            gtk_adjustment_set_value(adjustment, 0)
            InProcessGTK.pump(seconds: 0.6)
            XCTAssertFalse(view.newerPhotosShown, "seen: the announcement goes")
        }
    }

    /// Where every cell in view is, by asset.
    private func places(_ view: Picker) -> [Int64: (x: Double, y: Double)] {
        var result: [Int64: (x: Double, y: Double)] = [:]
        for cell in view.cells.compactMap(\.cell) where gtk_widget_get_mapped(cell.root) != 0 {
            guard let id = cell.assetID else { continue }
            var x = 0.0, y = 0.0
            guard gtk_widget_translate_coordinates(cell.root, view.scroller, 0, 0, &x, &y) != 0,
                  y + Double(gtk_widget_get_height(cell.root)) > 0, y < Double(gtk_widget_get_height(view.scroller)) else { continue }
            result[id] = (x, y)
        }
        return result
    }

    /// 200 arrivals (not a whole number of rows) while scrolled down: nothing in view moves, not
    /// even sideways; they come in once the person goes up.
    nonisolated func testArrivalsWhileScrolledDownMoveNothingInView() throws {
        try MainActor.assumeIsolated {
            let (view, window, root) = try openPicker(count: 3000)
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            let adjustment = try XCTUnwrap(gtk_scrolled_window_get_vadjustment(view.scroller.opaque))
            gtk_adjustment_set_value(adjustment, 10 * gtk_adjustment_get_page_size(adjustment))
            InProcessGTK.pump(seconds: 0.5)
            let before = places(view)
            let count = view.model.count
            XCTAssertGreaterThan(before.count, 20)

            try arrive(200, in: view, root: root)
            let after = places(view)
            XCTAssertEqual(Set(after.keys), Set(before.keys), "the same photos are in view")
            for (id, place) in before {
                let now = try XCTUnwrap(after[id])
                XCTAssertEqual(now.x, place.x, accuracy: 1, "asset \(id) stays in its column")
                XCTAssertEqual(now.y, place.y, accuracy: 1, "asset \(id) stays on its row")
            }
            XCTAssertEqual(view.newerPhotosText, "200 newer photos")
            XCTAssertEqual(view.model.count, count, "held above until the person goes up")
            // While the banner waits, the first screen of them is being drawn (they came in grey
            // for 2-4 s: issue 40, point 18).
            let warming = view.photoGrid.warmingArrivals.map(\.id)
            XCTAssertGreaterThan(warming.count, 20, "a screen of them")
            XCTAssertLessThan(warming.count, 200, "not all of them")

            view.showNewerPhotos()
            InProcessGTK.pump(seconds: 0.8)
            XCTAssertEqual(view.model.count, count + 200)
            XCTAssertEqual(warming, (0..<warming.count).compactMap { view.model.assetID(at: $0 + (view.model.showsCamera ? 1 : 0)) },
                           "the newest arrivals, in the grid's order: the first screen after going up")
            XCTAssertTrue(view.photoGrid.warmingArrivals.isEmpty, "none held: none warmed")
            XCTAssertEqual(gtk_adjustment_get_value(adjustment), 0)
            XCTAssertEqual(view.model.assetID(at: 0).map { try? view.library.asset(id: $0)?.path.lastComponentName }??.hasPrefix("NEW_"), true,
                           "the arrivals are first")
            XCTAssertFalse(view.newerPhotosShown)
        }
    }

    nonisolated func testAtTheTopNewPhotosAppearFirst() throws {
        try MainActor.assumeIsolated {
            let (view, window, root) = try openPicker(count: 2000)
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            let adjustment = try XCTUnwrap(gtk_scrolled_window_get_vadjustment(view.scroller.opaque))
            XCTAssertEqual(gtk_adjustment_get_value(adjustment), 0)
            try arrive(3, in: view, root: root)
            XCTAssertEqual(gtk_adjustment_get_value(adjustment), 0, "still at the top")
            let top = try XCTUnwrap(view.topAssetInSight())
            XCTAssertEqual(top.id, view.model.assetID(at: 0), "a photo just taken is the first thing seen")
            XCTAssertEqual(view.model.assetID(at: 0).map { try? view.library.asset(id: $0)?.path.lastComponentName }??.hasPrefix("NEW_"), true)
            XCTAssertFalse(view.newerPhotosShown, "nothing is announced: it is in view")
        }
    }

    // MARK: A photo that moves under the keyboard focus

    /// Gives `id` the date of the photo at `position`, a millisecond newer (so it sorts just
    /// before it), as a first run that reads a photo's date late does; and tells the view.
    private func redate(_ id: Int64, toJustBefore position: Int, in view: Picker) throws {
        let other = try XCTUnwrap(view.model.assetID(at: position))
        try view.library.writeDirectly { db in
            let date = try XCTUnwrap(try db.integer("SELECT captured_at FROM assets WHERE id = \(other)"))
            try db.execute("UPDATE assets SET captured_at = \(date + 1) WHERE id = \(id)")
        }
        var change = LibraryChange()
        change.updated = [id]
        view.apply(change)
        InProcessGTK.pump(seconds: 0.6)
    }

    private func focusedAsset(_ view: Picker) -> Int64? {
        view.focusedPosition.flatMap { view.model.assetID(at: $0) }
    }

    /// A photo re-dated while it has the keyboard focus (a first run reads its date late) moves,
    /// and the focus goes with it while it stays in sight: a Space picks the photo the person
    /// chose. GtkGridView kept the focus on the position, where a neighbour had moved in.
    nonisolated func testTheKeyboardFocusGoesWithAPhotoThatMovesInSight() throws {
        try MainActor.assumeIsolated {
            let (view, window, _) = try openPicker(count: 3000)
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            let adjustment = try XCTUnwrap(gtk_scrolled_window_get_vadjustment(view.scroller.opaque))
            let first = view.model.showsCamera ? 1 : 0
            let id = try XCTUnwrap(view.model.assetID(at: first + 7))
            view.focusAsset(id)
            InProcessGTK.pump(seconds: 0.3)
            XCTAssertEqual(focusedAsset(view), id)

            try redate(id, toJustBefore: first, in: view)
            XCTAssertEqual(view.model.position(of: id), first, "now the newest")
            XCTAssertEqual(focusedAsset(view), id, "the focus went with it")
            XCTAssertTrue(view.gridKey(UInt32(GDK_KEY_space), 0))
            XCTAssertEqual(view.selection.picked, [id], "Space picks it")

            // Scrolled down, the photo at the top held in place: a photo in sight moves a row down.
            gtk_adjustment_set_value(adjustment, 10 * gtk_adjustment_get_page_size(adjustment))
            InProcessGTK.pump(seconds: 0.5)
            let top = try XCTUnwrap(view.topAssetInSight())
            let topPosition = try XCTUnwrap(view.model.position(of: top.id))
            let columns = Int(gtk_grid_view_get_max_columns(view.photoGrid.grid.opaque))
            let moving = try XCTUnwrap(view.model.assetID(at: topPosition + 1))
            view.focusAsset(moving)
            InProcessGTK.pump(seconds: 0.3)
            XCTAssertEqual(focusedAsset(view), moving)
            let value = gtk_adjustment_get_value(adjustment)
            try redate(moving, toJustBefore: topPosition + 2 + min(columns, 4), in: view)
            XCTAssertEqual(view.model.position(of: moving), topPosition + 1 + min(columns, 4))
            XCTAssertEqual(focusedAsset(view), moving, "the focus went with it")
            XCTAssertNotNil(view.placeInSight(of: moving))
            XCTAssertEqual(gtk_adjustment_get_value(adjustment), value, accuracy: 1, "the view did not move")

            // Re-dated out of sight (the oldest photo now): the focus stays on a photo in sight,
            // and the view stays where it is.
            try redate(moving, toJustBefore: view.model.count - 1, in: view)
            let focused = try XCTUnwrap(focusedAsset(view), "a photo keeps the focus")
            XCTAssertNotEqual(focused, moving)
            XCTAssertNotNil(view.placeInSight(of: focused), "in sight")
            XCTAssertEqual(gtk_adjustment_get_value(adjustment), value, accuracy: 1, "the view did not move")
        }
    }

    /// The photo with the keyboard focus is deleted: from the moment the change is in, the focus
    /// is in the window (GTK 4.8 left it on the photo's widget, out of the window, until the
    /// next layout: a key pressed then went nowhere, Escape included), and once laid out it is
    /// on the photo now at that place.
    nonisolated func testAKeyRightAfterTheFocusedPhotoIsDeletedReachesThePicker() throws {
        try MainActor.assumeIsolated {
            let (view, window, _) = try openPicker(count: 500)
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            let first = view.model.showsCamera ? 1 : 0
            let id = try XCTUnwrap(view.model.assetID(at: first + 7))
            let next = try XCTUnwrap(view.model.assetID(at: first + 8))
            view.focusAsset(id)
            InProcessGTK.pump(seconds: 0.3)
            XCTAssertEqual(focusedAsset(view), id)

            var focusInWindow: Bool?
            let observation = view.controller.observe { event in
                guard case .contentChanged = event, focusInWindow == nil else { return }
                let focus = gtk_root_get_focus(OpaquePointer(window))
                focusInWindow = focus.map { gtk_widget_get_root($0) != nil }
            }
            defer { observation.cancel() }
            try view.library.writeDirectly { db in try db.execute("DELETE FROM assets WHERE id = \(id)") }
            var change = LibraryChange()
            change.removed = [id]
            view.apply(change)
            InProcessGTK.pump(seconds: 0.6)
            XCTAssertEqual(focusInWindow, true, "as the change went in, the focus was in the window")
            XCTAssertEqual(view.focusedPosition, first + 7, "the focus is at the photo's place")
            XCTAssertEqual(focusedAsset(view), next)
        }
    }

    /// Another album put in the grid under a focused photo (not through the switcher, which
    /// focuses the first photo): the focus stays in the window, and is on a photo once laid out.
    nonisolated func testTheFocusStaysInTheWindowWhenTheAlbumIsReplacedUnderIt() throws {
        try MainActor.assumeIsolated {
            let (view, window, _) = try openPicker(count: 500)
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            let first = view.model.showsCamera ? 1 : 0
            view.focusAsset(try XCTUnwrap(view.model.assetID(at: first + 7)))
            InProcessGTK.pump(seconds: 0.3)
            var focusInWindow: Bool?
            let observation = view.controller.observe { event in
                guard case .albumOpened = event, focusInWindow == nil else { return }
                focusInWindow = gtk_root_get_focus(OpaquePointer(window)).map { gtk_widget_get_root($0) != nil }
            }
            defer { observation.cancel() }
            let other = try XCTUnwrap(view.controller.albums.first { $0.album != view.controller.currentAlbum && $0.count > 20 })
            view.controller.open(other.album)
            InProcessGTK.pump(seconds: 0.6)
            XCTAssertEqual(focusInWindow, true, "as the album went in, the focus was in the window")
            XCTAssertNotNil(focusedAsset(view), "a photo has the focus")
        }
    }
}
