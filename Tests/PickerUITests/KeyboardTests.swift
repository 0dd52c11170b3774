import Foundation
import TestSupport
import XCTest

/// The keyboard from everywhere in the window: Escape cancels and Ctrl+Enter confirms whichever
/// widget has the focus, and Tab moves between regions instead of through every photo.
final class KeyboardTests: XCTestCase {
    private var display: VirtualDisplay!
    private var library: URL!
    private var dataHome: URL!
    private var cacheHome: URL!

    override func setUpWithError() throws {
        for tool in ["/usr/bin/Xvfb", "/usr/bin/xdotool"] where !FileManager.default.isExecutableFile(atPath: tool) {
            XCTFail("\(tool) is missing: run scripts/bootstrap")
            throw XCTSkip("no \(tool)")
        }
        display = try VirtualDisplay()
        library = TestSupport.packageRoot.appendingPathComponent("data/demo-library")
        dataHome = TestSupport.temporaryDirectory("keys-data")
        cacheHome = TestSupport.temporaryDirectory("keys-cache")
    }

    private func recents() throws -> [String] {
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--library", library.path],
                                         environment: ["XDG_DATA_HOME": dataHome.path])
        XCTAssertEqual(result.status, 0, result.error)
        return String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private func open() throws -> RunningPicker {
        try RunningPicker(display: display, arguments: ["--library", library.path], dataHome: dataHome, cacheHome: cacheHome)
    }

    func testEscapeCancelsWhenTheHeaderHasTheFocus() throws {
        _ = try recents()
        let picker = try open()
        // Shift+Tab leaves the grid for the header bar (its last control); Escape still cancels.
        try picker.keys("space", "shift+Tab", "Escape")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 1, "Escape cancels from the header")
        XCTAssertEqual(lines, [])
    }

    func testControlEnterConfirmsWhenTheHeaderHasTheFocus() throws {
        let order = try recents()
        let picker = try open()
        try picker.keys("space", "shift+Tab", "shift+Tab", "ctrl+Return")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 0, "Ctrl+Enter confirms from the header")
        XCTAssertEqual(lines, [order[0]])
    }

    func testTabLeavesTheGridForTheStripInsteadOfTheNextPhoto() throws {
        let order = try recents()
        let picker = try open()
        // Two picks; Tab goes to the strip's first item, and Space there unpicks it. Were Tab to
        // walk the photos, Space would pick the third photo instead.
        try picker.keys("space", "Right", "space", "Tab", "space", "ctrl+Return")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[1]])
    }

    func testTabFromTheHeaderComesBackToTheSamePhoto() throws {
        let order = try recents()
        let picker = try open()
        // Right twice, out to the header and back in: the focus is on the third photo again.
        try picker.keys("Right", "Right", "shift+Tab", "Tab", "space", "ctrl+Return")
        let (status, lines) = picker.finish(timeout: 5)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[2]])
    }

    func testAfterChoosingAnAlbumTheFocusIsOnItsFirstPhoto() throws {
        _ = try recents()
        let screenshots = String(decoding: try TestSupport.run(TestSupport.photopick, ["ls", "--cached", "--album", "Screenshots", "--library", library.path],
                                                                environment: ["XDG_DATA_HOME": dataHome.path]).output, as: UTF8.self)
            .split(separator: "\n").map(String.init)
        XCTAssertGreaterThan(screenshots.count, 2)
        let picker = try open()
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
