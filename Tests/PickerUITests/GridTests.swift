// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import Foundation
import GObjectSupport
import PhotoLibrary
import PickerModel
import TestSupport
import Thumbnails
import XCTest
@_spi(Testing) @testable import PickerUI

/// The grid in this process, on a virtual display: how many item objects live, and what a
/// selection change touches.
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class GridTests: XCTestCase, @unchecked Sendable {
    /// The display is started before any test runs: one started inside a test stops with it.
    nonisolated override class func setUp() {
        MainActor.assumeIsolated {
            super.setUp()
            _ = InProcessGTK.start()
        }
    }


    private func pump(seconds: Double) { InProcessGTK.pump(seconds: seconds) }

    /// A window with the picker over a synthetic library of `count` assets.
    /// (The synthetic rows have no files: a running loader would fail their thumbnails, and
    /// files that cannot be shown cannot be picked. `pausedLoader` keeps every request queued.)
    private func openPicker(count: Int, width: Int32 = 960, pausedLoader: Bool = false) throws -> (Picker, UnsafeMutablePointer<GtkWidget>) {
        try InProcessGTK.require()
        let (library, _) = try SyntheticLibrary.make("grid", count: count)
        let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("grid-cache").path))
        let view = Picker.hosting(library: library, loader: ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, thumbnailers: []), startPaused: pausedLoader))
        view.metrics = PickerMetrics()  // (what the assertions count)
        let window = gtk_window_new()!
        gtk_window_set_default_size(window.cast(), width, 720)
        gtk_window_set_child(window.cast(), view.widget)
        try view.showAlbums()
        gtk_window_present(window.cast())
        pump(seconds: 1)
        return (view, window)
    }

    /// GtkGridView binds 30 rows of cells around the view; those more than a screen away wait
    /// for the view to come near before they ask for their thumbnails (issue 42: a warm start
    /// read 289 thumbnails for 35 in sight), and every cell in sight has asked, wherever the
    /// view goes.
    nonisolated func testOnlyTheCellsNearTheViewAskForTheirThumbnails() throws {
        try MainActor.assumeIsolated {
            let (view, window) = try openPicker(count: 5_000, pausedLoader: true)
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            let adjustment = try XCTUnwrap(gtk_scrolled_window_get_vadjustment(view.scroller.opaque))
            for step in 0..<4 {
                let bound = view.cells.compactMap(\.cell).filter { $0.assetID != nil }
                let top = gtk_adjustment_get_value(adjustment), page = gtk_adjustment_get_page_size(adjustment)
                var inSight = 0
                // (GtkGridView keeps the widgets of rows it no longer shows, unmapped.)
                for cell in bound where gtk_widget_get_mapped(cell.root) != 0 {
                    var x = 0.0, y = 0.0
                    guard gtk_widget_translate_coordinates(cell.root, view.scroller, 0, 0, &x, &y) != 0 else { continue }
                    let height = Double(gtk_widget_get_height(cell.root))
                    if y + height > 0 && y < page {
                        inSight += 1
                        XCTAssertFalse(cell.deferred, "a cell in sight asked for its thumbnail, at \(top) (step \(step))")
                    }
                }
                XCTAssertGreaterThanOrEqual(inSight, 30, "a screen of cells in sight")
                if step == 0 {
                    let asked = bound.filter { !$0.deferred }.count
                    XCTAssertGreaterThan(bound.count, 150, "GtkGridView binds rows well beyond the view")
                    XCTAssertLessThanOrEqual(asked, 3 * inSight + 3 * 7, "those that asked as the album opened: about two screens")
                }
                // Down a screen and a half, then on.
                gtk_adjustment_set_value(adjustment, top + 1.5 * page)
                pump(seconds: 0.5)
            }
        }
    }

    /// A zoom step that needs larger thumbnails keeps each cell's picture, scaled, until its new
    /// one comes: the grid went blank for the decodes' time (issue 19).
    nonisolated func testAZoomStepKeepsThePicturesUntilTheLargerOnesCome() throws {
        try MainActor.assumeIsolated {
            try InProcessGTK.require()
            let index = TestSupport.temporaryDirectory("zoom-index"), thumbnails = TestSupport.temporaryDirectory("zoom-thumbnails")
            defer { try? FileManager.default.removeItem(at: index); try? FileManager.default.removeItem(at: thumbnails) }
            let library = try PhotoLibrary(roots: [FilePath(TestSupport.packageRoot.appendingPathComponent("data/demo-library").path)],
                                           location: IndexLocation(databasePath: index.appendingPathComponent("index.sqlite").path))
            try library.scan()
            let view = Picker.hosting(library: library, loader: ThumbnailLoader(thumbnailer: Thumbnailer(cache: ThumbnailCache(root: FilePath(thumbnails.path)), thumbnailers: [])))
            view.metrics = PickerMetrics()  // (what the assertions count)
            let window = gtk_window_new()!
            defer { gtk_window_destroy(window.cast()) }
            gtk_window_set_default_size(window.cast(), 960, 720)
            gtk_window_set_child(window.cast(), view.widget)
            try view.showAlbums()
            gtk_window_present(window.cast())
            let photos = { view.cells.compactMap(\.cell).filter { $0.assetID != nil && gtk_widget_get_mapped($0.root) != 0 } }
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline && (photos().isEmpty || view.metrics!.cellsWaiting > 0) { pump(seconds: 0.1) }
            let shown = photos().filter(\.showsPicture)
            XCTAssertGreaterThan(shown.count, 5)
            let before = view.photoGrid.flavor
            view.zoom(by: 1)
            XCTAssertNotEqual(view.photoGrid.flavor, before, "a step to larger thumbnails")
            XCTAssertEqual(shown.filter { !$0.showsPicture }.count, 0, "no cell went blank")
        }
    }

    /// The header says what the picker is for, over the album switcher (issue 19, defect 7:
    /// `--title` reached only the window manager's title).
    nonisolated func testTheTitleShowsOverTheAlbumSwitcher() throws {
        try MainActor.assumeIsolated {
            let (view, window) = try openPicker(count: 10, pausedLoader: true)
            defer { gtk_window_destroy(window.cast()) }
            let label = view.switcher.titleLabel
            XCTAssertEqual(gtk_widget_get_visible(label), 0, "no title: the album's name alone")
            view.title = "Attach photos"
            XCTAssertEqual(String(cString: gtk_label_get_text(label.opaque)), "Attach photos")
            XCTAssertEqual(gtk_widget_get_visible(label), 1)
            XCTAssertNotEqual(gtk_widget_is_ancestor(label, view.albumSwitcher), 0, "part of the switcher's button: a click there opens the list")
            XCTAssertEqual(view.switcher.buttonText, "Recents", "the album's name under it")
            XCTAssertNotEqual(gtk_widget_has_css_class(view.albumSwitcher, "album-switcher-compact"), 0)
        }
    }

    /// A filter that hides every photo says so, by its name, instead of "No Photos Yet" (issue
    /// 19, defect 20).
    nonisolated func testAFilterThatHidesEverythingSaysSo() throws {
        try MainActor.assumeIsolated {
            let (view, window) = try openPicker(count: 20, pausedLoader: true)
            defer { gtk_window_destroy(window.cast()) }
            XCTAssertNil(view.emptyStateShown)
            view.filterName = "Raw photos"
            view.filter = AssetFilter(namePatterns: ["*.cr2"])
            pump(seconds: 0.3)
            view.updateEmptyState()
            XCTAssertEqual(view.emptyStateShown?.title, "Nothing Matches “Raw photos”")
            XCTAssertEqual(view.emptyStateShown?.description.hasPrefix("Every photo and video in Recents is hidden by this filter"), true)
            XCTAssertNotEqual(gtk_widget_get_visible(view.emptyState), 0)
        }
    }

    nonisolated func testScrollingTenScreensOfSixtyThousandKeepsFewItemsAlive() throws {
        try MainActor.assumeIsolated {
            let (view, window) = try openPicker(count: 60_000)
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            XCTAssertEqual(view.model.count, 60_000)
            let adjustment = try XCTUnwrap(gtk_scrolled_window_get_vadjustment(view.scroller.opaque))
            let bindsBefore = view.metrics!.binds
            for _ in 0..<10 {
                gtk_adjustment_set_value(adjustment, gtk_adjustment_get_value(adjustment) + gtk_adjustment_get_page_size(adjustment))
                pump(seconds: 0.15)
            }
            XCTAssertGreaterThan(gtk_adjustment_get_value(adjustment), 5 * gtk_adjustment_get_page_size(adjustment), "it scrolled")
            XCTAssertGreaterThan(view.metrics!.binds - bindsBefore, 100, "cells were bound as the grid scrolled")
            XCTAssertLessThan(AssetItem.aliveCount, 1000, "item objects exist only while GTK holds them")
        }
    }

    nonisolated func testUnbindingCancelsThumbnailRequests() throws {
        try MainActor.assumeIsolated {
            // A paused loader keeps every request queued: what remains is what bound cells still want.
            try InProcessGTK.require()
            let (library, _) = try SyntheticLibrary.make("cancel", count: 20_000)
            let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("cancel-cache").path))
            let loader = ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, thumbnailers: []), startPaused: true)
            defer { loader.shutdown() }
            let view = Picker.hosting(library: library, loader: loader)
            view.metrics = PickerMetrics()  // (what the assertions count)
            let window = gtk_window_new()!
            defer { gtk_window_destroy(window.cast()) }
            gtk_window_set_default_size(window.cast(), 960, 720)
            gtk_window_set_child(window.cast(), view.widget)
            let bindsBefore = view.metrics!.binds
            try view.showAlbums()
            gtk_window_present(window.cast())
            pump(seconds: 0.8)
            let adjustment = try XCTUnwrap(gtk_scrolled_window_get_vadjustment(view.scroller.opaque))
            for _ in 0..<10 {
                gtk_adjustment_set_value(adjustment, gtk_adjustment_get_value(adjustment) + gtk_adjustment_get_page_size(adjustment))
                pump(seconds: 0.1)
            }
            let binds = view.metrics!.binds - bindsBefore
            let boundNow = view.cells.compactMap(\.cell).filter { $0.assetID != nil }.count
            XCTAssertGreaterThan(binds - boundNow, 200, "many cells were unbound while scrolling")
            // What stays queued is what bound cells (at most 30 rows × columns) and the prefetch
            // window (a screen ahead) want; every unbound cell's request left the queue.
            XCTAssertLessThanOrEqual(loader.queuedCount, boundNow + 100, "requests of unbound cells left the queue")
        }
    }

    /// The window's first frame is made with the first screen's cells only; the rest of the
    /// album comes in after it, a row of cells a frame (all at once, GtkGridView made and bound
    /// 200 cells in one frame: the host's window froze for 180-200 ms), or after the timeout
    /// when no frame comes.
    nonisolated func testTheFirstFrameHasTheFirstScreensCellsAndTheWholeAlbumFollows() throws {
        try MainActor.assumeIsolated {
            try InProcessGTK.require()
            let (library, _) = try SyntheticLibrary.make("first-frame", count: 5_000)
            let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("first-frame-cache").path))
            for shown in [true, false] {
                let view = Picker.hosting(library: library, loader: ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, thumbnailers: []), startPaused: true))
                view.metrics = PickerMetrics()  // (what the assertions count)
                let window = gtk_window_new()!
                defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
                gtk_window_set_default_size(window.cast(), 960, 720)
                gtk_window_set_child(window.cast(), view.widget)
                view.holdCellsBeyondFirstScreen(width: 960, height: 720, timeout: shown ? 5_000 : 200)
                try view.showAlbums()
                let gridModel = try XCTUnwrap(gtk_grid_view_get_model(view.grid.opaque))
                // 7 columns of 120-point cells, 5 rows in 720 points and 2 to spare, the camera's place.
                XCTAssertEqual(g_list_model_get_n_items(gridModel), 7 * 7 + 1, "only the first screen before a frame")
                let made = view.cells.compactMap(\.cell).count
                XCTAssertGreaterThan(made, 0)
                XCTAssertLessThanOrEqual(made, 7 * 7 + 1, "cells for the first screen only, not 30 rows")
                // The cells made in each frame.
                final class Frames { var made: [Int] = [] }
                let frames = Frames()
                let tick = gtk_widget_add_tick_callback(view.grid, { _, _, data in
                    let frames = Unmanaged<Frames>.fromOpaque(data!).takeUnretainedValue()
                    MainActor.assumeIsolated { frames.made.append(0) }
                    return 1
                }, Unmanaged.passUnretained(frames).toOpaque(), nil)
                var lastCount = view.cells.compactMap(\.cell).count
                var perFrame: [Int] = []
                if shown { gtk_window_present(window.cast()) }
                let end = monotonicSeconds() + (shown ? 1.5 : 0.5)
                var seenFrames = 0
                while monotonicSeconds() < end {
                    g_main_context_iteration(nil, 0)
                    if frames.made.count > seenFrames {
                        seenFrames = frames.made.count
                        let count = view.cells.compactMap(\.cell).count
                        perFrame.append(count - lastCount)
                        lastCount = count
                    }
                    usleep(1_000)
                }
                gtk_widget_remove_tick_callback(view.grid, tick)
                if shown {
                    XCTAssertLessThanOrEqual(perFrame.dropFirst(2).max() ?? 0, 2 * 7, "at most a row or two of cells a frame: \(perFrame)")
                }
                XCTAssertEqual(g_list_model_get_n_items(gridModel), 5_000, shown ? "the whole album after the first frame" : "the whole album after the timeout")
                if shown {
                    XCTAssertGreaterThan(view.cells.compactMap(\.cell).count, 100, "30 rows of cells, as GtkGridView keeps")
                    let adjustment = try XCTUnwrap(gtk_scrolled_window_get_vadjustment(view.scroller.opaque))
                    XCTAssertGreaterThan(gtk_adjustment_get_upper(adjustment), 600 * 120, "the grid scrolls over the whole album")
                    XCTAssertEqual(view.model.assetID(at: 0), view.cells.compactMap(\.cell).first { $0.position == 0 }?.assetID,
                                   "the first cell still shows the newest photo")
                }
            }
        }
    }

    nonisolated func testAPickUpdatesOneBadgeAndEmitsNoItemsChanged() throws {
        try MainActor.assumeIsolated {
            let (view, window) = try openPicker(count: 5_000, pausedLoader: true)
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            final class Counter { var emissions = 0 }
            let counter = Counter()
            Signal.connect(view.model.object.raw, "items-changed", itemsChanged: { _, _, _ in counter.emissions += 1 })
            let before = view.metrics!.badgeUpdates
            view.toggle(at: 3)
            XCTAssertEqual(view.metrics!.badgeUpdates - before, 1, "only the picked cell")
            view.toggle(at: 5)
            view.toggle(at: 7)
            let beforeUnpick = view.metrics!.badgeUpdates
            view.toggle(at: 3)  // unpick number 1: the other two renumber
            XCTAssertEqual(view.metrics!.badgeUpdates - beforeUnpick, 3)
            XCTAssertEqual(counter.emissions, 0, "a selection change never touches the model")
            XCTAssertEqual(view.selection.picked, [view.model.assetID(at: 5)!, view.model.assetID(at: 7)!])
        }
    }

    /// The picker is a tree of widgets of its own types, as GTK's inspector and a stylesheet see
    /// it (issue 38, point 14): each photo a `PhotopickGridCell` (CSS node `photopick-cell`) that
    /// lays out its picture and badges itself, with no box or overlay between; the grid, the
    /// strip, the preview, the capture view and the album switcher each a widget of its own. A
    /// part's state lives exactly as long as its widget: when the window goes, every cell goes.
    nonisolated func testThePickerIsATreeOfItsOwnWidgetsWhoseStateGoesWithThem() throws {
        try MainActor.assumeIsolated {
            var (view, window) = try openPicker(count: 2_000, pausedLoader: true) as (Picker?, UnsafeMutablePointer<GtkWidget>)
            let cells = view!.cells, loader = view!.loader
            var types: [String: Int] = [:]
            var overlaysInCells = 0
            func typeName(_ widget: UnsafeMutablePointer<GtkWidget>) -> String {
                let type = widget.raw.assumingMemoryBound(to: GTypeInstance.self).pointee.g_class!.pointee.g_type
                return String(cString: g_type_name(type))
            }
            func walk(_ widget: UnsafeMutablePointer<GtkWidget>, inCell: Bool) {
                let name = typeName(widget)
                types[name, default: 0] += 1
                if inCell && name == "GtkOverlay" { overlaysInCells += 1 }
                var child = gtk_widget_get_first_child(widget)
                while let current = child {
                    walk(current, inCell: inCell || name == "PhotopickGridCell")
                    child = gtk_widget_get_next_sibling(current)
                }
            }
            walk(view!.widget, inCell: false)
            walk(view!.albumSwitcher, inCell: false)
            let mapped = view!.cells.compactMap(\.cell).filter { gtk_widget_get_mapped($0.root) != 0 }
            XCTAssertGreaterThan(mapped.count, 20)
            XCTAssertGreaterThanOrEqual(types["PhotopickGridCell"] ?? 0, mapped.count, "every cell is a PhotopickGridCell: \(types)")
            XCTAssertEqual(String(cString: gtk_widget_get_css_name(mapped[0].root)), "photopick-cell")
            XCTAssertEqual(overlaysInCells, 0, "a cell lays out its own badges")
            XCTAssertEqual(Set(mapped.compactMap { gtk_widget_get_parent($0.root).map(typeName) }), ["GtkListItemWidget"], "the cell is the list item's child")
            for part in ["PhotopickGrid", "PhotopickPickedStrip", "PhotopickPreview", "PhotopickCaptureView", "PhotopickAlbumSwitcher"] {
                XCTAssertEqual(types[part], 1, "\(part) in the tree: \(types)")
            }
            XCTAssertEqual(GridCell.of(mapped[0].root) === mapped[0], true, "the widget holds its cell")
            // The picker is the PhotopickPicker a host makes (photopick_picker_new), whose Swift
            // side owns that tree and goes with it.
            XCTAssertEqual(typeName(view!.widget), "PhotopickPicker")
            XCTAssertTrue(Picker.of(view!.widget) === view, "the widget holds its picker")
            XCTAssertTrue(gtk_widget_is_ancestor(view!.grid, view!.widget) != 0, "the grid is in the picker's widget")
            weak let picker = view
            // (The cells found are held no longer than this.)
            _ = consume mapped
            view = nil
            gtk_window_destroy(window.cast())
            pump(seconds: 0.5)
            loader.shutdown()
            XCTAssertEqual(cells.compactMap(\.cell).count, 0, "no cell outlives its widget")
            XCTAssertNil(picker, "the picker goes with its widget")
        }
    }

    nonisolated func testCellsStaySquareAndFillTheWidthInNarrowAndWideWindows() throws {
        try MainActor.assumeIsolated {
            for width: Int32 in [380, 500, 960] {
                let (view, window) = try openPicker(count: 2_000, width: width)
                defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
                let cells = view.cells.compactMap(\.cell).filter { gtk_widget_get_mapped($0.root) != 0 }
                XCTAssertGreaterThan(cells.count, 3, "cells are shown at \(width) px")
                for cell in cells {
                    XCTAssertEqual(gtk_widget_get_width(cell.root), gtk_widget_get_height(cell.root), "square at \(width) px")
                }
                // Columns share the width: no more than a few pixels of each row are left empty.
                let columns = Int32(gtk_widget_get_width(view.grid)) / (gtk_widget_get_width(cells[0].root) + 4)
                let used = columns * (gtk_widget_get_width(cells[0].root) + 4)
                XCTAssertLessThan(gtk_widget_get_width(view.grid) - used, 16 + columns, "the row is filled at \(width) px")
            }
        }
    }

    nonisolated func testAPickedPhotoShowsARoundNumberOfAtLeast24Points() throws {
        try MainActor.assumeIsolated {
            let (view, window) = try openPicker(count: 2_000, pausedLoader: true)
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            for position in 0..<12 { view.toggle(at: position) }  // numbers 1 to 12: one and two digits
            pump(seconds: 0.3)
            let picked = view.cells.compactMap(\.cell).filter { cell in cell.assetID.map { view.selection.number(of: $0) != nil } == true }
            XCTAssertEqual(picked.count, 12)
            for cell in picked {
                let number = view.selection.number(of: cell.assetID!)!
                let width = gtk_widget_get_width(cell.badge), height = gtk_widget_get_height(cell.badge)
                XCTAssertGreaterThanOrEqual(height, 24, "badge \(number) is readable")
                if number < 10 { XCTAssertEqual(width, height, "badge \(number) is a circle, not an oval") }
                XCTAssertGreaterThanOrEqual(width, height)
            }
        }
    }
}
