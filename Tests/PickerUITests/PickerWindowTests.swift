// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// The real window, driven by keyboard under Xvfb as a person would drive it.
final class PickerWindowTests: WindowTestCase {
    func testPickThreeUnpickTheSecondAndConfirm() throws {
        let order = try recents()
        let picker = try openPicker()
        // Focus starts on the first photo.
        try picker.keys("space", "Right", "space", "Right", "space", "Left", "space", "ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[0], order[2]])
    }

    /// Shift with a click or the arrows picks the range from the last pick, in the grid's order
    /// from it; the arrows widen and narrow it (issue 41).
    func testShiftPicksTheRangeFromTheLastPick() throws {
        let order = try recents()
        var picker = try openPicker()
        try picker.click(x: 75, y: 115)  // the first photo
        try display.xdotool(["keydown", "shift"])
        try picker.click(x: 480, y: 115)  // the fourth
        try display.xdotool(["keyup", "shift"])
        usleep(300_000)
        try picker.keys("ctrl+Return")
        var result = picker.finish()
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.lines, Array(order[0...3]))

        // Up the grid from the fourth: the nearest first; Shift+Left a third time widens, then
        // Shift+Right narrows again.
        picker = try openPicker()
        try picker.keys("Right", "Right", "Right", "space", "shift+Left", "shift+Left", "shift+Left", "shift+Right")
        usleep(300_000)
        try picker.keys("ctrl+Return")
        result = picker.finish()
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.lines, [order[3], order[2], order[1]])
    }

    /// Ctrl+A picks the album in its order up to the maximum (what did not fit is said);
    /// Ctrl+Shift+A unpicks everything (issue 41).
    func testControlAPicksTheAlbumAndControlShiftAUnpicksIt() throws {
        let order = try recents()
        var picker = try openPicker()
        try picker.keys("Right", "space", "ctrl+a")
        usleep(300_000)
        try picker.keys("ctrl+Return")
        var result = picker.finish()
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.lines, [order[1]] + order.enumerated().filter { $0.offset != 1 }.map(\.element), "the pick before first, then the album's order")

        picker = try openPicker(["--max", "3"])
        try picker.keys("ctrl+a")
        usleep(300_000)
        try picker.keys("ctrl+Return")
        result = picker.finish()
        XCTAssertEqual(result.lines, Array(order[0...2]))

        picker = try openPicker()
        try picker.keys("ctrl+a", "ctrl+shift+a", "Right", "space")
        usleep(300_000)
        try picker.keys("ctrl+Return")
        result = picker.finish()
        XCTAssertEqual(result.lines, [order[1]], "nothing was left picked but the one picked after")
    }

    func testTheMaximumRefusesFurtherPicks() throws {
        let order = try recents()
        let picker = try openPicker(["--max", "2"])
        try picker.keys("space", "Right", "space", "Right", "space", "ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[0], order[1]])
    }

    /// Escape cancels from anywhere, a toast up included: the toast overlay's own Escape only
    /// dismissed the toast, and the picker stayed open (issue 19, defect 3).
    func testEscapeCancelsWhileTheMaximumsToastShows() throws {
        let picker = try openPicker(["--max", "2"])
        try picker.keys("space", "Right", "space", "Right", "space")  // the third is refused: the toast shows
        usleep(300_000)
        try picker.keys("Escape")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 1, "the first Escape cancels")
        XCTAssertEqual(lines, [])
    }

    func testThePreviewPicksAndMovesToNeighboursThenReturnsToTheGrid() throws {
        let order = try recents()
        let picker = try openPicker()
        // Alt+Enter opens the focused photo large; Space picks it; Right goes to the next; Escape returns.
        try picker.keys("alt+Return", "space", "Right", "Right", "space", "Escape", "Right", "space", "ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[0], order[2], order[1]], "back in the grid the focus was on the first photo")
    }

    /// A click anywhere on a cell of the top row picks it, its top edge too: the hidden bars over
    /// the grid (Ctrl+L's location bar, the type-ahead find) take no room and no clicks.
    func testClicksOnTheTopEdgeOfTheFirstRowPick() throws {
        let order = try recents()
        let picker = try openPicker()
        try picker.click(x: 75, y: 62)
        try picker.click(x: 480, y: 62)
        usleep(300_000)
        try picker.keys("ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[0], order[3]])
    }

    func testClickingAPhotoPicksItAndClickingItInTheStripUnpicksIt() throws {
        let order = try recents()
        let picker = try openPicker()
        // The first row's cells, about 134 px apart: the first and the third photo.
        try picker.click(x: 75, y: 115)
        try picker.click(x: 345, y: 115)
        usleep(400_000)  // the strip slides in
        try picker.click(x: 42, y: 680)  // the first item of the strip
        usleep(400_000)
        try picker.keys("ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[2]])
    }

    func testAPickedFileDeletedWhileOpenLeavesTheSelection() throws {
        let order = try recents()
        let picker = try openPicker()
        try picker.keys("space", "Right", "space")
        // The first pick is deleted by another program: it leaves, and the second becomes 1.
        XCTAssertEqual(unlink(order[0]), 0)
        usleep(1_500_000)
        try picker.keys("ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[1]])
    }

    func testDraggingInTheStripReordersTheOutput() throws {
        let order = try recents()
        let picker = try openPicker()
        try picker.keys("space", "Right", "space", "Right", "space")
        usleep(400_000)
        try picker.drag(from: (170, 680), to: (42, 680))  // the third picked onto the first
        try picker.keys("ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[2], order[0], order[1]])
    }

    func testPicksSurviveSwitchingAlbums() throws {
        let order = try recents()
        let favorites = try list("Favorites")
        let picker = try openPicker()
        try picker.keys("space")                 // the newest photo, in Recents
        try picker.click(x: 480, y: 26)          // the album switcher
        usleep(500_000)
        try picker.display.xdotool(["type", "Favorites"])  // its search; Enter opens the first match
        try picker.keys("Return")
        usleep(500_000)
        try picker.click(x: 75, y: 115)          // the newest favourite
        try picker.keys("ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[0], favorites[0]])
    }

    func testEscapeCancelsWithStatusOneAndNoOutput() throws {
        let picker = try openPicker()
        try picker.keys("space", "Escape")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 1)
        XCTAssertEqual(lines, [])
    }

    func testAFileAddedWhileOpenAppearsFirstInRecents() throws {
        _ = try recents()
        let picker = try openPicker(["--no-camera"])
        // A new photo, newer than everything: written aside, then moved in.
        let source = library.appendingPathComponent("Camera/2024").appendingPathComponent(
            try FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Camera/2024").path).sorted()[0])
        let incoming = library.appendingPathComponent(".incoming.jpg")
        try FileManager.default.copyItem(at: source, to: incoming)
        XCTAssertEqual(try TestSupport.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=2030:01:01 10:00:00",
                                                                  incoming.path]).status, 0)
        let arrived = library.appendingPathComponent("Camera/new-arrival.jpg")
        XCTAssertEqual(rename(incoming.path, arrived.path), 0)
        usleep(1_500_000)  // the watcher's quiet period and rescan
        try picker.keys("Home", "space", "ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [arrived.path])
    }

    /// What a script's picker handed over is in Recently Picked next time, the last picked
    /// first (kept though the picker ends at its answer).
    func testWhatWasPickedIsRecentlyPickedNextTime() throws {
        let order = try recents()
        XCTAssertEqual(try list("Recently Picked"), [])
        let picker = try openPicker(["--multiple"])
        try picker.keys("Right", "Right", "space", "Left", "Left", "space", "ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[2], order[0]])
        XCTAssertEqual(try list("Recently Picked"), [order[0], order[2]], "the last picked first")
    }

    func testADoubleClickPreviewsAPickedPhotoWithoutMovingItInTheOrder() throws {
        let order = try recents()
        let picker = try openPicker()
        try picker.keys("space", "Right", "space", "Right", "space")
        // A double click on the first pick: the first press unpicks, the second picks again,
        // and the photo keeps number 1.
        try display.xdotool(["mousemove", "75", "115", "click", "--repeat", "2", "--delay", "60", "1"])
        usleep(500_000)
        try picker.keys("Escape", "ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, Array(order.prefix(3)))
    }
}
