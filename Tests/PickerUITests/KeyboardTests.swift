// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// The keyboard from everywhere in the window: Escape cancels and Ctrl+Enter confirms whichever
/// widget has the focus, and Tab moves between regions instead of through every photo.
final class KeyboardTests: WindowTestCase {
    override var copiesDemoLibrary: Bool { false }

    func testEscapeCancelsWhenTheHeaderHasTheFocus() throws {
        _ = try recents()
        let picker = try openPicker()
        // Shift+Tab leaves the grid for the header bar (its last control); Escape still cancels.
        try picker.keys("space", "shift+Tab", "Escape")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 1, "Escape cancels from the header")
        XCTAssertEqual(lines, [])
    }

    func testControlEnterConfirmsWhenTheHeaderHasTheFocus() throws {
        let order = try recents()
        let picker = try openPicker()
        try picker.keys("space", "shift+Tab", "shift+Tab", "ctrl+Return")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 0, "Ctrl+Enter confirms from the header")
        XCTAssertEqual(lines, [order[0]])
    }

    func testTabLeavesTheGridForTheStripInsteadOfTheNextPhoto() throws {
        let order = try recents()
        let picker = try openPicker()
        // Two picks; Tab goes to the strip's first item, and Space there unpicks it. Were Tab to
        // walk the photos, Space would pick the third photo instead.
        try picker.keys("space", "Right", "space", "Tab", "space", "ctrl+Return")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[1]])
    }

    func testWithNothingPickedTabReachesCancel() throws {
        _ = try recents()
        let picker = try openPicker()
        // The header from its start: Cancel first (it was reachable only with Shift+Tab).
        try picker.keys("Tab", "space")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 1, "Space on Cancel cancels")
        XCTAssertEqual(lines, [])
    }

    func testTheStripIsOneTabStopWithArrowsInside() throws {
        let order = try recents()
        let picker = try openPicker()
        // Three picks; into the strip, Right to the second, Space unpicks it and the focus goes on
        // to its neighbour (the third), which Space unpicks too.
        try picker.keys("space", "Right", "space", "Right", "space", "Tab", "Right", "space")
        usleep(400_000)
        try picker.keys("space")
        usleep(400_000)
        try picker.keys("ctrl+Return")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[0]])
    }

    /// Alt+arrows on a pick in the strip move it in the order, as a drag does (issue 41).
    func testAltArrowsReorderThePicksInTheStrip() throws {
        let order = try recents()
        let picker = try openPicker()
        // Three picks; into the strip (on the first), Alt+Right twice takes it to the end; then
        // Alt+Right once more rings and changes nothing.
        try picker.keys("space", "Right", "space", "Right", "space", "Tab", "alt+Right", "alt+Right", "alt+Right")
        usleep(400_000)
        try picker.keys("ctrl+Return")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[1], order[2], order[0]])
    }

    func testTabLeavesTheStripAtOnce() throws {
        _ = try recents()
        let picker = try openPicker()
        // Three picks are one Tab stop: the second Tab is on Cancel, not on the second pick.
        try picker.keys("space", "Right", "space", "Right", "space", "Tab", "Tab", "space")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 1, "Space on Cancel cancels")
        XCTAssertEqual(lines, [])
    }

    func testTabFromTheHeaderComesBackToTheSamePhoto() throws {
        let order = try recents()
        let picker = try openPicker()
        // Right twice, out to the header and back in: the focus is on the third photo again.
        try picker.keys("Right", "Right", "shift+Tab", "Tab", "space", "ctrl+Return")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[2]])
    }

    func testAfterChoosingAnAlbumTheFocusIsOnItsFirstPhoto() throws {
        _ = try recents()
        let screenshots = try list("Screenshots")
        XCTAssertGreaterThan(screenshots.count, 2)
        let picker = try openPicker()
        // The focus moved along Recents; the new album starts at its first photo, whatever the
        // grid remembered, and the keys work there (no trap in the switcher).
        try picker.keys("Right", "Right", "Right")
        try picker.click(x: 480, y: 26)  // the album switcher
        usleep(500_000)
        try display.xdotool(["type", "--delay", "30", "Screenshots"])
        usleep(300_000)
        try picker.keys("Return")
        usleep(500_000)
        try picker.keys("space", "Right", "space", "ctrl+Return")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, Array(screenshots.prefix(2)))
    }
}

/// Typing a file name on the grid finds it, as in GTK's file chooser.
final class TypeAheadTests: WindowTestCase {
    override var copiesDemoLibrary: Bool { false }

    private func named(_ name: String, in order: [String]) throws -> String {
        try XCTUnwrap(order.first { ($0 as NSString).lastPathComponent == name }, "\(name) is in the demo library")
    }

    func testTypingANameFocusesItsPhoto() throws {
        let order = try recents()
        let picker = try openPicker()
        func type(_ text: String) throws {
            _ = try display.xdotool(["type", "--delay", "40", text])
            usleep(700_000)
        }
        // A name's start, letter case aside (P starts a Pixel phone's names: it does not preview).
        // Enter picks what was found (Space, while a find is under way, is part of the name).
        try type("pxl_20240613")
        try picker.keys("Return")
        // Part of a name: no name starts with it.
        try type("burst002")
        try picker.keys("Return")
        // Backspace takes a letter back: "img_2405" becomes "img_2402".
        try type("img_2405")
        try picker.keys("BackSpace")
        try type("2")
        try picker.keys("Return")
        // Nothing holds it: the focus stays where it was (Right then goes on from there).
        try type("zzzq")
        try picker.keys("Right", "space", "ctrl+Return")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 0)
        let afterFound = try XCTUnwrap(order.firstIndex(of: try named("IMG_24021.JPG", in: order)))
        XCTAssertEqual(lines, [try named("PXL_20240613_191000456.jpg", in: order),
                               try named("IMG_20240615_143000_BURST002.jpg", in: order),
                               try named("IMG_24021.JPG", in: order),
                               order[afterFound + 1]])
    }

    /// A name typed with the focus on the album button (after its list closed with Escape) is
    /// found, spaces and all; it opened the album list at the first space (issue 40, point 11).
    func testANameWithASpaceIsFoundFromTheHeader() throws {
        let order = try recents()
        let picker = try openPicker()
        try picker.keys("ctrl+o")
        try display.waitForPopover(showing: true)
        try picker.keys("Escape")
        try display.waitForPopover(showing: false)
        _ = try display.xdotool(["type", "--delay", "40", "Screenshot from 2024-05"])
        usleep(700_000)
        XCTAssertFalse(try display.popoverIsShowing(), "the album list stays closed")
        try picker.keys("Return", "ctrl+Return")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [try named("Screenshot from 2024-05-02 15-20-11.png", in: order)])
    }

    /// Ctrl+L, a path's start and Tab complete it, as GTK's location entry does: a folder whole
    /// (with its slash), then as far as two names agree; Enter gives the typed path. Tab moved
    /// the focus to the first photo and Enter printed a photo nobody chose (issue 40, point 7).
    func testTabCompletesATypedPath() throws {
        let base = TestSupport.temporaryDirectory("typed-paths")
        let documents = base.appendingPathComponent("Documents")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        for name in ["report-2023.pdf", "report-2024.pdf"] { try Data("%PDF".utf8).write(to: documents.appendingPathComponent(name)) }
        let picker = try openPicker(["--file-selection"])
        try picker.keys("ctrl+l")
        usleep(300_000)
        _ = try display.xdotool(["type", "--delay", "30", base.path + "/Doc"])
        try picker.keys("Tab")
        _ = try display.xdotool(["type", "--delay", "30", "rep"])
        try picker.keys("Tab")
        _ = try display.xdotool(["type", "--delay", "30", "4.pdf"])
        try picker.keys("Return")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [documents.appendingPathComponent("report-2024.pdf").path])
    }

    func testSlashInAScriptsPickerOpensTheLocationBar() throws {
        let order = try recents()
        let picker = try openPicker(["--file-selection"])
        usleep(300_000)
        let wanted = order[5]
        _ = try display.xdotool(["type", "--delay", "30", wanted])
        usleep(300_000)
        try picker.keys("Return")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [wanted], "the typed path is the answer")
    }
}
