import Foundation
import TestSupport
import XCTest

/// The picker's commands as GActions with accelerators, and the shortcuts window that lists them,
/// driven by keyboard as a person would.
final class ActionsTests: WindowTestCase {
    override var copiesDemoLibrary: Bool { false }

    func testControlQuestionOpensTheShortcutsWindow() throws {
        let picker = try WindowProcess(display: display, arguments: ["--library", library.path, "--no-camera"], dataHome: dataHome, cacheHome: cacheHome)
        defer { picker.stop() }
        try picker.keys("ctrl+question")
        let found = try display.xdotool(["search", "--sync", "--onlyvisible", "--name", "Keyboard Shortcuts"])
        XCTAssertFalse(found.isEmpty, "the shortcuts window is shown")
        // Escape closes it, a second cancels the picker.
        try picker.keys("Escape")
        usleep(300_000)
        XCTAssertTrue(picker.isRunning)
        try picker.keys("Escape")
        XCTAssertEqual(picker.finish().status, 1)
    }

    /// Ctrl+O opens the album list wherever the focus is; its search takes the name.
    func testControlOChoosesAnAlbumByKeyboard() throws {
        let videos = try list("Videos")
        let picker = try WindowProcess(display: display, arguments: ["--library", library.path, "--no-camera"], dataHome: dataHome, cacheHome: cacheHome)
        try picker.keys("ctrl+o")
        usleep(400_000)
        try display.xdotool(["type", "--delay", "40", "Videos"])
        try picker.keys("Return")
        usleep(600_000)
        try picker.keys("space", "ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0, picker.errorText)
        XCTAssertEqual(lines, [videos[0]])
    }

    /// Ctrl+plus and Ctrl+minus change the thumbnail size, remembered for the next time.
    func testZoomAcceleratorsChangeTheThumbnailSize() throws {
        func cellSize() throws -> Int? {
            let text = try? String(contentsOf: dataHome.appendingPathComponent("state/photopick/state.ini"), encoding: .utf8)
            return text?.split(separator: "\n").first { $0.hasPrefix("cell-size=") }.flatMap { Int($0.dropFirst("cell-size=".count)) }
        }
        let first = try WindowProcess(display: display, arguments: ["--library", library.path, "--no-camera"], dataHome: dataHome, cacheHome: cacheHome)
        try first.keys("Escape")
        XCTAssertEqual(first.finish().status, 1)
        let start = try XCTUnwrap(try cellSize())
        let second = try WindowProcess(display: display, arguments: ["--library", library.path, "--no-camera"], dataHome: dataHome, cacheHome: cacheHome)
        try second.keys("ctrl+plus", "ctrl+plus", "Escape")
        XCTAssertEqual(second.finish().status, 1)
        let larger = try XCTUnwrap(try cellSize())
        XCTAssertGreaterThan(larger, start)
        let third = try WindowProcess(display: display, arguments: ["--library", library.path, "--no-camera"], dataHome: dataHome, cacheHome: cacheHome)
        try third.keys("ctrl+minus", "Escape")
        XCTAssertEqual(third.finish().status, 1)
        XCTAssertLessThan(try XCTUnwrap(try cellSize()), larger)
    }
}
