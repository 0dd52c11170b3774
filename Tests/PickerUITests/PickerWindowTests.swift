import Foundation
import TestSupport
import XCTest

/// The real window, driven by keyboard under Xvfb as a person would drive it.
final class PickerWindowTests: XCTestCase {
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
        // A copy of the demo library, so a test may add files to it.
        library = TestSupport.temporaryDirectory("window-library").appendingPathComponent("Pictures")
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("data/demo-library"), to: library)
        dataHome = TestSupport.temporaryDirectory("window-data")
        cacheHome = TestSupport.temporaryDirectory("window-cache")
    }

    override func tearDown() {
        display = nil  // stops the server: XCTest keeps case objects, so deinit alone came too late
        super.tearDown()
    }

    /// Recents as `photopick ls` prints it: the grid's order after the camera slot.
    private func recents() throws -> [String] {
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--library", library.path],
                                         environment: ["XDG_DATA_HOME": dataHome.path])
        XCTAssertEqual(result.status, 0, result.error)
        return String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private func open(_ extra: [String] = []) throws -> RunningPicker {
        try RunningPicker(display: display, arguments: ["--library", library.path] + extra, dataHome: dataHome, cacheHome: cacheHome)
    }

    func testPickThreeUnpickTheSecondAndConfirm() throws {
        let order = try recents()
        let picker = try open()
        // Focus starts on the first photo, after the camera.
        try picker.keys("space", "Right", "space", "Right", "space", "Left", "space", "ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[0], order[2]])
    }

    func testTheMaximumRefusesFurtherPicks() throws {
        let order = try recents()
        let picker = try open(["--max", "2"])
        try picker.keys("space", "Right", "space", "Right", "space", "ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[0], order[1]])
    }

    func testThePreviewPicksAndMovesToNeighboursThenReturnsToTheGrid() throws {
        let order = try recents()
        let picker = try open()
        // P opens the focused photo large; Space picks it; Right goes to the next; Escape returns.
        try picker.keys("p", "space", "Right", "Right", "space", "Escape", "Right", "space", "ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[0], order[2], order[1]], "back in the grid the focus was on the first photo")
    }

    func testClickingAPhotoPicksItAndClickingItInTheStripUnpicksIt() throws {
        let order = try recents()
        let picker = try open()
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
        let picker = try open()
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
        let picker = try open()
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
        let favorites = String(decoding: try TestSupport.run(TestSupport.photopick, ["ls", "--cached", "--album", "Favorites", "--library", library.path],
                                                              environment: ["XDG_DATA_HOME": dataHome.path]).output, as: UTF8.self)
            .split(separator: "\n").map(String.init)
        let picker = try open()
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
        let picker = try open()
        try picker.keys("space", "Escape")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 1)
        XCTAssertEqual(lines, [])
    }

    func testAFileAddedWhileOpenAppearsFirstInRecents() throws {
        _ = try recents()
        let picker = try open(["--no-camera"])
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
}
