// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import Foundation
@testable import PhotoLibrary
import TestSupport
import Thumbnails
import XCTest
@testable import PickerUI

/// The album switcher in this process, on a virtual display: sections, search, the open album's
/// mark, where it reopens, and which covers it asks for.
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class AlbumSwitcherTests: XCTestCase, @unchecked Sendable {
    /// The display is started before any test runs: one started inside a test stops with it.
    nonisolated override class func setUp() {
        MainActor.assumeIsolated {
            super.setUp()
            _ = InProcessGTK.start()
        }
    }

    private func pump(seconds: Double) { InProcessGTK.pump(seconds: seconds) }

    /// A 960×720 window with the switcher as its title, over 2,000 synthetic photos in 200
    /// folders, plus a nested folder with a long name. The loader is paused: every cover request
    /// stays queued, so the queue shows what the switcher asked for and has not cancelled.
    private struct Setup {
        let switcher: AlbumSwitcher
        let window: UnsafeMutablePointer<GtkWidget>
        let loader: ThumbnailLoader
        let albums: [AlbumSummary]
        func close() {
            gtk_window_destroy(window.cast())
            loader.shutdown()
        }
    }

    private static let longName = "Trips/2019/Zanzibar, the long way round with the whole family and the dog"

    private func openSwitcher(current: (([AlbumSummary]) -> Album)? = nil) throws -> Setup {
        try InProcessGTK.require()
        let (library, _) = try SyntheticLibrary.make("switcher", count: 2_000)
        var albums = try library.albums().filter { $0.count > 0 }
        // Folders come after smart albums whatever the order given: put one among the smart ones.
        albums.insert(AlbumSummary(album: .folder(id: 90_001), name: Self.longName, count: 3, folderPath: nil, burstGroups: nil), at: 1)
        let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("switcher-cache").path))
        let loader = ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, thumbnailers: []), startPaused: true)
        let switcher = AlbumSwitcher()
        switcher.covers = ({ album in
            (try? library.fetchAssets(in: album)).flatMap { $0.count > 0 ? try? library.asset(id: $0.id(at: 0))?.path : nil }.map { [$0] } ?? []
        }, loader)
        let window = gtk_window_new()!
        gtk_window_set_default_size(window.cast(), 960, 720)
        let header = gtk_header_bar_new()!
        gtk_header_bar_set_title_widget(header.opaque, switcher.widget)
        gtk_window_set_titlebar(window.cast(), header)
        gtk_window_set_child(window.cast(), gtk_label_new("content"))
        switcher.show(albums, current: current?(albums) ?? .smart(.recents))
        gtk_window_present(window.cast())
        pump(seconds: 0.5)
        return Setup(switcher: switcher, window: window, loader: loader, albums: albums)
    }

    private func open(_ switcher: AlbumSwitcher) {
        switcher.popup()
        pump(seconds: 0.5)
    }

    /// Rows the search leaves on screen (GTK unmaps the rows its filter hides).
    private func shownRows(_ switcher: AlbumSwitcher) -> [AlbumSwitcherRow] {
        switcher.rows.filter { gtk_widget_get_mapped($0.widget) != 0 }
    }

    private func headings(_ switcher: AlbumSwitcher) -> [String: String] {
        var result: [String: String] = [:]
        for row in shownRows(switcher) {
            if let header = gtk_list_box_row_get_header(row.widget.cast()) {
                result[row.summary.name] = String(cString: gtk_label_get_text(OpaquePointer(header)))
            }
        }
        return result
    }

    private func search(_ switcher: AlbumSwitcher, _ text: String) {
        gtk_editable_set_text(OpaquePointer(switcher.search), text)
        pump(seconds: 0.4)  // the entry reports changes after a short delay
    }

    private func isInView(_ row: AlbumSwitcherRow, _ switcher: AlbumSwitcher) throws -> Bool {
        let adjustment = try XCTUnwrap(gtk_scrolled_window_get_vadjustment(switcher.scroller.opaque))
        let bounds = try XCTUnwrap(switcher.bounds(of: row))
        let top = gtk_adjustment_get_value(adjustment), bottom = top + gtk_adjustment_get_page_size(adjustment)
        return Double(bounds.origin.y) >= top && Double(bounds.origin.y + bounds.size.height) <= bottom
    }

    nonisolated func testSmartAlbumsThenFoldersUnderHeadingsAndTheSearchFilters() throws {
        try MainActor.assumeIsolated {
            let setup = try openSwitcher()
            defer { setup.close() }
            let switcher = setup.switcher
            open(switcher)
            let smartCount = setup.albums.filter { if case .smart = $0.album { true } else { false } }.count
            XCTAssertEqual(switcher.rows.count, setup.albums.count)
            XCTAssertEqual(switcher.rows.map(\.section), Array(repeating: .albums, count: smartCount) + Array(repeating: .folders, count: setup.albums.count - smartCount))
            XCTAssertEqual(switcher.rows.first?.summary.name, "Recents")
            XCTAssertEqual(headings(switcher), ["Recents": "Albums", switcher.rows[smartCount].summary.name: "Folders"])
            XCTAssertGreaterThan(smartCount, 1)

            // Case-insensitive, anywhere in the name: one folder, under its heading.
            search(switcher, "OLDER-123")
            XCTAssertEqual(shownRows(switcher).map(\.summary.name), ["folder-123"])
            XCTAssertEqual(headings(switcher), ["folder-123": "Folders"])
            search(switcher, "the long WAY")
            XCTAssertEqual(shownRows(switcher).map(\.summary.name), [Self.longName])
            search(switcher, "rec")
            XCTAssertEqual(shownRows(switcher).map(\.summary.name), ["Recents"])
            XCTAssertEqual(headings(switcher), ["Recents": "Albums"])
            search(switcher, "no album is called this")
            XCTAssertEqual(shownRows(switcher).count, 0)
        }
    }

    nonisolated func testAFolderShowsItsOwnNameInFullAndItsParentsAsSubtitle() throws {
        try MainActor.assumeIsolated {
            let setup = try openSwitcher()
            defer { setup.close() }
            open(setup.switcher)
            let row = try XCTUnwrap(setup.switcher.rows.first { $0.summary.name == Self.longName })
            XCTAssertEqual(String(cString: gtk_label_get_text(row.title.opaque)), "Zanzibar, the long way round with the whole family and the dog")
            XCTAssertEqual(String(cString: gtk_label_get_text(row.subtitle.opaque)), "Trips/2019")
            XCTAssertNotEqual(gtk_widget_get_mapped(row.subtitle), 0)
            // Wrapped, never shortened.
            XCTAssertEqual(gtk_label_get_ellipsize(row.title.opaque), PANGO_ELLIPSIZE_NONE)
            XCTAssertEqual(pango_layout_is_ellipsized(gtk_label_get_layout(row.title.opaque)), 0)
            XCTAssertGreaterThan(pango_layout_get_line_count(gtk_label_get_layout(row.title.opaque)), 1, "the long name wraps")
            // A smart album has no subtitle.
            XCTAssertEqual(gtk_widget_get_visible(setup.switcher.rows[0].subtitle), 0)
        }
    }

    nonisolated func testTheOpenAlbumIsMarkedAndTheListReopensAtItWithTheSearchCleared() throws {
        try MainActor.assumeIsolated {
            let setup = try openSwitcher(current: { albums in albums.first { $0.name == "folder-180" }!.album })
            defer { setup.close() }
            let switcher = setup.switcher
            open(switcher)
            let current = try XCTUnwrap(switcher.rows.first { $0.summary.name == "folder-180" })
            XCTAssertEqual(switcher.rows.filter(\.isCurrent).map(\.summary.name), ["folder-180"])
            XCTAssertEqual(gtk_widget_get_opacity(current.check), 1)
            XCTAssertEqual(switcher.rows.filter { gtk_widget_get_opacity($0.check) > 0 }.count, 1)
            // For screen readers: selected, and described as the current album; the others not.
            XCTAssertNotEqual(photopick_accessible_state_is(current.widget, GTK_ACCESSIBLE_STATE_SELECTED, 1), 0)
            XCTAssertNotEqual(photopick_accessible_property_is(current.widget, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, "current album"), 0)
            XCTAssertNotEqual(photopick_accessible_state_is(switcher.rows[0].widget, GTK_ACCESSIBLE_STATE_SELECTED, 0), 0)
            XCTAssertEqual(gtk_test_accessible_has_property(OpaquePointer(switcher.rows[0].widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION), 0)
            XCTAssertTrue(try isInView(current, switcher), "opens scrolled to the open album")
            // Up to 70% of the window's height, and scrolling.
            let height = Double(gtk_widget_get_height(switcher.popover))
            XCTAssertLessThanOrEqual(height, 0.71 * 720)
            XCTAssertGreaterThan(height, 0.5 * 720)

            // Scrolled elsewhere and searching when closed: the next opening starts afresh.
            search(switcher, "folder-00")
            switcher.popdown()
            pump(seconds: 0.3)
            open(switcher)
            XCTAssertEqual(String(cString: gtk_editable_get_text(OpaquePointer(switcher.search))), "")
            XCTAssertEqual(shownRows(switcher).count, switcher.rows.count)
            XCTAssertTrue(try isInView(current, switcher))
        }
    }

    nonisolated func testCoversAreAskedForOnlyForRowsOnScreenAndCancelledWhenTheyLeave() throws {
        try MainActor.assumeIsolated {
            let setup = try openSwitcher()
            defer { setup.close() }
            let switcher = setup.switcher
            XCTAssertEqual(switcher.rows.count, 0, "no rows before the popover opens")
            XCTAssertEqual(setup.loader.queuedCount, 0, "no covers before the popover opens")
            open(switcher)
            let rowsShown = switcher.rows.filter { row in (try? isInView(row, switcher)) == true }.count
            XCTAssertGreaterThan(rowsShown, 4)
            // The rows on screen and half a screen around, out of 200 folders.
            // (Recents' newest photo is also a folder's: one job for both.)
            XCTAssertGreaterThanOrEqual(setup.loader.queuedCount, rowsShown - 2)
            XCTAssertLessThan(setup.loader.queuedCount, 3 * rowsShown)
            let adjustment = try XCTUnwrap(gtk_scrolled_window_get_vadjustment(switcher.scroller.opaque))
            gtk_adjustment_set_value(adjustment, gtk_adjustment_get_upper(adjustment))
            pump(seconds: 0.3)
            // (The made-up folder of the long name sorts last, and has no photos to be a cover.)
            XCTAssertTrue(switcher.rows.last { $0.summary.folderPath != nil }?.request != nil, "the last rows ask for covers")
            XCTAssertNil(switcher.rows[0].request, "the first rows' requests were cancelled")
            XCTAssertLessThan(setup.loader.queuedCount, 3 * rowsShown)
            switcher.popdown()
            pump(seconds: 0.3)
            XCTAssertEqual(setup.loader.queuedCount, 0, "closing cancels every request")
        }
    }

    /// Whole words and the starts of words rank before a match inside a word: "mate" and Enter
    /// open the MATE folder, not Animated (issue 19, defect 12); the list shows that order.
    nonisolated func testTheSearchRanksWholeWordsAndPrefixesFirst() throws {
        try MainActor.assumeIsolated {
            let setup = try openSwitcher()
            defer { setup.close() }
            let switcher = setup.switcher
            var albums = setup.albums
            albums.insert(AlbumSummary(album: .smart(.animated), name: "Animated", count: 4, folderPath: nil, burstGroups: nil), at: 1)
            albums.append(AlbumSummary(album: .folder(id: 90_002), name: "Backgrounds/MATE", count: 5, folderPath: nil, burstGroups: nil))
            albums.append(AlbumSummary(album: .folder(id: 90_003), name: "Backgrounds/mateys", count: 2, folderPath: nil, burstGroups: nil))
            switcher.show(albums, current: .smart(.recents))
            var chosen: [Album] = []
            switcher.onChoose = { chosen.append($0) }
            open(switcher)
            search(switcher, "mate")
            // The list box's own order, as a person sees it.
            var shown: [String] = []
            var index: Int32 = 0
            while let listRow = gtk_list_box_get_row_at_index(switcher.list.opaque, index) {
                if gtk_widget_get_mapped(listRow.cast()) != 0, let row = switcher.row(for: UnsafeMutableRawPointer(listRow)) { shown.append(row.summary.name) }
                index += 1
            }
            XCTAssertEqual(shown, ["Backgrounds/MATE", "Backgrounds/mateys", "Animated"])
            switcher.chooseFirstMatch()
            pump(seconds: 0.3)
            XCTAssertEqual(chosen, [.folder(id: 90_002)])
        }
    }

    nonisolated func testEnterChoosesTheFirstMatchClosesThenAsksForTheFocus() throws {
        try MainActor.assumeIsolated {
            let setup = try openSwitcher()
            defer { setup.close() }
            let switcher = setup.switcher
            final class Events { var list: [String] = [] }
            let events = Events(), albums = setup.albums
            switcher.onChoose = { album in events.list.append("choose \(albums.first { $0.album == album }?.name ?? "?")") }
            switcher.onFocusContent = { [weak switcher] in events.list.append("focus, open: \(switcher?.isOpen == true)") }
            open(switcher)
            let focus = try XCTUnwrap(gtk_root_get_focus(OpaquePointer(setup.window)))
            XCTAssertTrue(focus == switcher.search || gtk_widget_is_ancestor(focus, switcher.search) != 0, "the search entry has the focus")
            // Enter right after typing acts on what was typed, not on the delayed search.
            gtk_editable_set_text(OpaquePointer(switcher.search), "folder-04")
            switcher.chooseFirstMatch()
            pump(seconds: 0.3)
            XCTAssertEqual(events.list, ["choose folder-040", "focus, open: false"])
            XCTAssertEqual(switcher.current, setup.albums.first { $0.name == "folder-040" }?.album)
            XCTAssertEqual(switcher.rows.filter(\.isCurrent).map(\.summary.name), ["folder-040"])
        }
    }
}

/// The real window with 300 more folders than the demo library, driven with xdotool.
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class AlbumSwitcherWindowTests: XCTestCase, @unchecked Sendable {
    private var display: VirtualDisplay?
    private var library: URL!
    private var dataHome: URL!
    private var cacheHome: URL!
    /// A folder among the 300 with a unique, long name, holding one photo.
    private var target: URL!

    nonisolated override func setUpWithError() throws {
        try MainActor.assumeIsolated {
            for tool in ["/usr/bin/Xvfb", "/usr/bin/xdotool"] where !FileManager.default.isExecutableFile(atPath: tool) {
                XCTFail("\(tool) is missing: run scripts/bootstrap")
                throw XCTSkip("no \(tool)")
            }
            library = TestSupport.temporaryDirectory("switcher-window-library").appendingPathComponent("Pictures")
            try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("data/demo-library"), to: library)
            let photo = try FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Camera/2024").path)
                .sorted().map { library.appendingPathComponent("Camera/2024/\($0)") }.first { $0.pathExtension == "JPG" }!
            let places = ["Lisbon", "Kyoto", "Reykjavik", "Oaxaca", "Marrakesh", "Cape Town"]
            for index in 0..<300 {
                let folder = library.appendingPathComponent("Trips/\(2000 + index / 15)/\(places[index % places.count]) day \(index)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent("photo.jpg"))
            }
            target = library.appendingPathComponent("Trips/2019/Zanzibar, the long way round with the whole family")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: photo, to: target.appendingPathComponent("beach.jpg"))
            dataHome = TestSupport.temporaryDirectory("switcher-window-data")
            cacheHome = TestSupport.temporaryDirectory("switcher-window-cache")
            // Indexed before the window opens, so every folder is listed at once.
            let indexed = try TestSupport.run(TestSupport.photopick, ["index", "--library", library.path], environment: ["XDG_DATA_HOME": dataHome.path])
            XCTAssertEqual(indexed.status, 0, indexed.error)
            display = try VirtualDisplay()
        }
    }

    nonisolated override func tearDown() {
        MainActor.assumeIsolated {
            display = nil  // stops the server (RunningPicker, a local, is gone by now)
            super.tearDown()
        }
    }

    private func open() throws -> RunningPicker {
        try RunningPicker(display: display!, arguments: ["--library", library.path], dataHome: dataHome, cacheHome: cacheHome)
    }

    /// Opens the switcher (the header's title) and types into its search.
    private func search(_ picker: RunningPicker, _ text: String) throws {
        try picker.click(x: 480, y: 26)
        try picker.display.waitForPopover(showing: true)
        usleep(200_000)
        try picker.display.xdotool(["type", "--delay", "30", text])
        usleep(400_000)
        // (The search is filtered a moment after the typing, longer on a loaded machine: a
        // click before then went to another row, one run in six.)
        try picker.display.waitUntilStill()
    }

    private func assertPickedFromTarget(_ result: (status: Int32, lines: [String]), file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, 0, file: file, line: line)
        XCTAssertEqual(result.lines, [target.appendingPathComponent("beach.jpg").path], file: file, line: line)
    }

    nonisolated func testTypingPartOfAFolderNameAndEnterOpensItWithTheFocusOnItsFirstPhoto() throws {
        try MainActor.assumeIsolated {
            let picker = try open()
            try search(picker, "LONG way")
            try picker.keys("Return")
            usleep(500_000)
            // Space picks the focused photo: the focus left the switcher for the new album's first photo.
            try picker.keys("space", "ctrl+Return")
            assertPickedFromTarget(picker.finish())
        }
    }

    nonisolated func testDownMovesIntoTheListAndEnterOpensTheRow() throws {
        try MainActor.assumeIsolated {
            let picker = try open()
            try search(picker, "zanzibar")
            try picker.keys("Down", "Return")
            usleep(500_000)
            try picker.keys("space", "ctrl+Return")
            assertPickedFromTarget(picker.finish())
        }
    }

    nonisolated func testTypingWhileInTheListGoesOnWithTheSearch() throws {
        try MainActor.assumeIsolated {
            let picker = try open()
            try search(picker, "")
            try picker.keys("Down")  // the first row, Recents
            // A space here must not activate the row: the typing moved the focus to the entry.
            try picker.display.xdotool(["type", "--delay", "30", "long way"])
            usleep(400_000)
            try picker.keys("Return")
            usleep(500_000)
            try picker.keys("space", "ctrl+Return")
            assertPickedFromTarget(picker.finish())
        }
    }

    nonisolated func testClickingARowMovesTheFocusToTheFirstPhoto() throws {
        try MainActor.assumeIsolated {
            let picker = try open()
            try search(picker, "long way")
            try picker.click(x: 480, y: 185)  // the one row left, under the "Folders" heading
            usleep(500_000)
            try picker.keys("space", "ctrl+Return")
            assertPickedFromTarget(picker.finish())
        }
    }

    /// The folders are a tree: End reaches the last folder of the library's (Videos, after
    /// Trips and its 300 folders, closed); Right opens a folder and goes into it (issue 40, point 22).
    nonisolated func testEndReachesTheLastFolderAndRightGoesDownTheTree() throws {
        try MainActor.assumeIsolated {
            var picker = try open()
            try search(picker, "")
            try picker.keys("End", "Return")
            usleep(500_000)
            try picker.keys("space", "ctrl+Return")
            var result = picker.finish()
            XCTAssertEqual(result.status, 0)
            XCTAssertEqual(result.lines, [library.appendingPathComponent("Videos/VID_20240421_110000.mp4").path])

            picker = try open()
            try search(picker, "")
            // Up from Videos is Trips: opened, into 2000, opened, into its first folder.
            try picker.keys("End", "Up", "Right", "Right", "Right", "Right", "Return")
            usleep(500_000)
            try picker.keys("space", "ctrl+Return")
            result = picker.finish()
            XCTAssertEqual(result.status, 0)
            XCTAssertEqual(result.lines.count, 1)
            XCTAssertTrue(result.lines.first?.hasPrefix(library.appendingPathComponent("Trips/2000/").path) == true, "\(result.lines)")
        }
    }

    nonisolated func testEscapeClosesThePopoverAndDoesNotCancelThePicker() throws {
        try MainActor.assumeIsolated {
            let picker = try open()
            try search(picker, "zanz")
            try picker.keys("Escape")          // from the search entry
            try picker.display.waitForPopover(showing: false)
            usleep(300_000)
            XCTAssertTrue(picker.process.isRunning, "Escape in the popover does not cancel the picker")
            try picker.click(x: 480, y: 26)
            try picker.display.waitForPopover(showing: true)
            usleep(200_000)
            try picker.keys("Down", "Escape")  // from a row of the list
            try picker.display.waitForPopover(showing: false)
            usleep(300_000)
            XCTAssertTrue(picker.process.isRunning)
            // The popover is closed: a click reaches the grid (an open popover would take it to close).
            try picker.click(x: 210, y: 115)
            try picker.keys("ctrl+Return")
            let (status, lines) = picker.finish()
            XCTAssertEqual(status, 0)
            XCTAssertEqual(lines.count, 1)
        }
    }
}

/// An album's cover is its newest photo that makes a thumbnail: the Animated album's cover was
/// blank because its newest file was damaged (issue 19, defect 16).
@MainActor
final class AlbumCoverTests: XCTestCase, @unchecked Sendable {
    nonisolated override class func setUp() {
        MainActor.assumeIsolated {
            super.setUp()
            _ = InProcessGTK.start()
        }
    }

    nonisolated func testADamagedNewestFileGivesWayToTheNextForTheCover() throws {
        try MainActor.assumeIsolated {
            try InProcessGTK.require()
            let folder = TestSupport.temporaryDirectory("cover")
            let good = folder.appendingPathComponent("good.png"), broken = folder.appendingPathComponent("broken.png")
            XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "64x48", "xc:orange", good.path]).status, 0)
            try Data(try Data(contentsOf: good).prefix(40)).write(to: broken)
            let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("cover-cache").path))
            let loader = ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, thumbnailers: []))
            defer { loader.shutdown() }
            let row = AlbumSwitcherRow(AlbumSummary(album: .smart(.animated), name: "Animated", count: 2, folderPath: nil, burstGroups: nil))
            var asked: [String] = []
            row.loadCover(lookingUp: { _ in
                asked.append("looked up")
                return [FilePath(broken.path), FilePath(good.path)]
            }, loader: loader)
            let deadline = Date().addingTimeInterval(10)
            while !row.hasCover && Date() < deadline { InProcessGTK.pump(seconds: 0.05) }
            XCTAssertTrue(row.hasCover, "the next newest, good.png, is the cover")
            XCTAssertEqual(asked, ["looked up"], "one lookup per binding")
        }
    }
}

/// The switcher's folders as a tree (issue 40, point 22), in this process on a virtual display.
@MainActor
final class AlbumSwitcherTreeTests: XCTestCase, @unchecked Sendable {
    nonisolated override class func setUp() {
        MainActor.assumeIsolated {
            super.setUp()
            _ = InProcessGTK.start()
        }
    }

    @MainActor private struct Setup {
        let switcher: AlbumSwitcher
        let window: UnsafeMutablePointer<GtkWidget>
        let albums: [AlbumSummary]
        func close() { gtk_window_destroy(window.cast()) }
        func row(_ title: String, itself: Bool = false) -> AlbumSwitcherRow? {
            switcher.rows.first { $0.entry.title == title && $0.entry.isFolderItself == itself }
        }
        /// The rows shown, as "title" indented by depth, "=" for a folder's own photos.
        var shown: [String] {
            switcher.rows.filter { gtk_widget_get_mapped($0.widget) != 0 && $0.section == .folders }.map { row in
                String(repeating: " ", count: Int(gtk_widget_get_margin_start(gtk_widget_get_first_child(row.widget)!)) / AlbumSwitcherRow.indent)
                    + (row.entry.isFolderItself ? "=" : "") + String(cString: gtk_label_get_text(row.title.opaque))
            }
        }
    }

    private func openSwitcher(current: String? = nil) throws -> Setup {
        try InProcessGTK.require()
        var photos = ["Trips/2019/Zanzibar/a.jpg", "Trips/2019/Lisbon/b.jpg", "Trips/2020/c.jpg", "Trips/2020/Kyoto/d.jpg",
                      "Camera/NIKON Z 6/2019/e.jpg", "Phone/f.jpg"]
        // Enough folders at the top to scroll: End must reach the last.
        for index in 0..<40 { photos.append("Day \(index)/g.jpg") }
        let (library, _) = try SyntheticLibrary.folders("switcher-tree", photos: photos)
        let albums = try library.albumsWithFolderTrees()
        let switcher = AlbumSwitcher()
        let window = gtk_window_new()!
        gtk_window_set_default_size(window.cast(), 960, 720)
        let header = gtk_header_bar_new()!
        gtk_header_bar_set_title_widget(header.opaque, switcher.widget)
        gtk_window_set_titlebar(window.cast(), header)
        gtk_window_set_child(window.cast(), gtk_label_new("content"))
        let open = current.flatMap { name in albums.first { $0.name == name && { if case .folder = $0.album { true } else { false } }($0) }?.album }
        switcher.show(albums, current: open ?? .smart(.recents))
        gtk_window_present(window.cast())
        InProcessGTK.pump(seconds: 0.5)
        switcher.popup()
        InProcessGTK.pump(seconds: 0.5)
        return Setup(switcher: switcher, window: window, albums: albums)
    }

    nonisolated func testTheLibraryFolderIsOpenAndItsFoldersOpenAndCloseByClickAndKeys() throws {
        try MainActor.assumeIsolated {
            let setup = try openSwitcher()
            defer { setup.close() }
            let switcher = setup.switcher
            // Camera holds nothing but NIKON Z 6, which holds nothing but 2019: one row, "2019"
            // over "Camera/NIKON Z 6". Numbers in their order.
            XCTAssertEqual(Array(setup.shown.prefix(5)), ["Pictures", " 2019", " Day 0", " Day 1", " Day 2"])
            XCTAssertEqual(setup.shown.count, 1 + 1 + 40 + 2, "Pictures, then Camera's one folder, Day 0-39, Phone and Trips, closed")
            XCTAssertEqual(String(cString: gtk_label_get_text(try XCTUnwrap(setup.row("Camera/NIKON Z 6/2019")).subtitle.opaque)), "Camera/NIKON Z 6")
            let trips = try XCTUnwrap(setup.row("Trips"))
            XCTAssertEqual(String(cString: gtk_label_get_text(trips.count.opaque)), "4", "a tree counts everything below it")
            XCTAssertFalse(setup.shown.contains("  2019"))

            // A click on the arrow opens Trips without choosing it.
            var chosen: [Album] = []
            switcher.onChoose = { chosen.append($0) }
            gtk_widget_activate(trips.expander)
            InProcessGTK.pump(seconds: 0.3)
            XCTAssertTrue(switcher.isOpen)
            XCTAssertEqual(chosen, [])
            XCTAssertEqual(Array(setup.shown.drop { $0 != " Trips" }), [" Trips", "  2019", "  2020"])

            // Right on 2020 opens it (its own photo first), Right again goes in, Left goes back
            // out and then closes it.
            let year = try XCTUnwrap(setup.row("2020"))
            gtk_widget_grab_focus(year.widget)
            XCTAssertTrue(switcher.keyOnRow(year, opening: true))
            InProcessGTK.pump(seconds: 0.2)
            XCTAssertEqual(Array(setup.shown.drop { $0 != " Trips" }), [" Trips", "  2019", "  2020", "   =2020", "   Kyoto"])
            XCTAssertTrue(switcher.keyOnRow(year, opening: true))
            XCTAssertEqual(gtk_widget_has_focus(try XCTUnwrap(setup.row("2020", itself: true)).widget), 1)
            XCTAssertTrue(switcher.keyOnRow(try XCTUnwrap(setup.row("Kyoto")), opening: false))
            XCTAssertEqual(gtk_widget_has_focus(year.widget), 1, "Left on a folder goes to the folder it is in")
            XCTAssertTrue(switcher.keyOnRow(year, opening: false))
            InProcessGTK.pump(seconds: 0.2)
            XCTAssertEqual(Array(setup.shown.drop { $0 != " Trips" }), [" Trips", "  2019", "  2020"])

            // Closing a folder with the focus inside it keeps the focus in sight, on the folder.
            gtk_widget_grab_focus(try XCTUnwrap(setup.row("2019")).widget)
            gtk_widget_activate(trips.expander)
            InProcessGTK.pump(seconds: 0.4)  // (a button clicks 250 ms after it is activated)
            XCTAssertEqual(gtk_widget_has_focus(trips.widget), 1)
            XCTAssertFalse(setup.shown.contains("  2019"))
            // The arrow and the screen reader say whether it is open.
            XCTAssertFalse(trips.isExpanded)
        }
    }

    nonisolated func testASearchListsEveryFolderFlatWithItsParents() throws {
        try MainActor.assumeIsolated {
            let setup = try openSwitcher()
            defer { setup.close() }
            gtk_editable_set_text(OpaquePointer(setup.switcher.search), "kyoto")
            InProcessGTK.pump(seconds: 0.4)
            XCTAssertEqual(setup.shown, ["Kyoto"], "found though Trips and 2020 are closed")
            let kyoto = try XCTUnwrap(setup.row("Kyoto"))
            XCTAssertEqual(String(cString: gtk_label_get_text(kyoto.subtitle.opaque)), "Trips/2020")
            gtk_editable_set_text(OpaquePointer(setup.switcher.search), "2020")
            InProcessGTK.pump(seconds: 0.4)
            // The folder with its subfolders and its own photo: told apart by their subtitles.
            let subtitles = setup.switcher.rows.filter { gtk_widget_get_mapped($0.widget) != 0 }.map { String(cString: gtk_label_get_text($0.subtitle.opaque)) }
            XCTAssertEqual(Set(subtitles), ["Trips · With its subfolders", "Trips · This folder only", "Trips/2020"])
            // Cleared, the tree is back as it was.
            gtk_editable_set_text(OpaquePointer(setup.switcher.search), "")
            InProcessGTK.pump(seconds: 0.4)
            XCTAssertEqual(setup.shown.first, "Pictures")
            XCTAssertFalse(setup.shown.contains("   Kyoto"))
        }
    }

    nonisolated func testTheOpenFolderIsShownInsideItsClosedParents() throws {
        try MainActor.assumeIsolated {
            let setup = try openSwitcher(current: "Trips/2019/Zanzibar")
            defer { setup.close() }
            XCTAssertEqual(Array(setup.shown.drop { $0 != " Trips" }.prefix(4)), [" Trips", "  2019", "   Lisbon", "   Zanzibar"])
            let row = try XCTUnwrap(setup.row("Zanzibar"))
            XCTAssertTrue(row.isCurrent)
            let adjustment = try XCTUnwrap(gtk_scrolled_window_get_vadjustment(setup.switcher.scroller.opaque))
            let bounds = try XCTUnwrap(setup.switcher.bounds(of: row))
            XCTAssertGreaterThanOrEqual(Double(bounds.origin.y), gtk_adjustment_get_value(adjustment))
            XCTAssertLessThanOrEqual(Double(bounds.origin.y + bounds.size.height), gtk_adjustment_get_value(adjustment) + gtk_adjustment_get_page_size(adjustment))
        }
    }
}

/// A month or a year typed in the album search is a place to go (issue 41).
final class DateDestinationTests: XCTestCase {
    func testMonthsAndYearsAreReadAsTheyAreTyped() {
        let cases: [(String, DateDestination?)] = [
            ("2019", DateDestination(year: 2019, month: nil)), ("march 2024", DateDestination(year: 2024, month: 3)),
            ("2024 march", DateDestination(year: 2024, month: 3)), ("mar 2024", DateDestination(year: 2024, month: 3)),
            ("2024-03", DateDestination(year: 2024, month: 3)), ("may 2024", DateDestination(year: 2024, month: 5)),
            ("ma 2024", nil), ("13 2024", nil), ("20190", nil), ("folder-123", nil), ("trips 2019", nil), ("", nil),
        ]
        for (text, expected) in cases { XCTAssertEqual(DateDestination.parse(text), expected, text) }
    }
}
