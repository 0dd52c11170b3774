// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// What a cell shows and allows, end to end: damaged files cannot be picked, and thumbnails are
/// made for the display's scale.
final class CellTests: WindowTestCase {
    func testDamagedFilesSayWhyAndCannotBePicked() throws {
        // A PNG and a GIF whose headers read (they are assets) but whose data is cut off: the
        // two newest files by file time (the copied screenshots carry no date but theirs).
        let downloads = library.appendingPathComponent("Downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let png = try Data(contentsOf: library.appendingPathComponent("Screenshots/Screenshot from 2024-03-12 09-41-00.png"))
        let gif = try Data(contentsOf: library.appendingPathComponent("GIFs/bounce.gif"))
        let cutPNG = downloads.appendingPathComponent("cut.png"), cutGIF = downloads.appendingPathComponent("cut.gif")
        try png.prefix(300).write(to: cutPNG)
        try gif.prefix(gif.count / 2).write(to: cutGIF)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(3600)], ofItemAtPath: cutPNG.path)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(3000)], ofItemAtPath: cutGIF.path)
        let order = try recents()
        XCTAssertEqual(Array(order.prefix(2)), [cutPNG.path, cutGIF.path], "the damaged files are assets, first in Recents")
        let picker = try WindowProcess(display: display, arguments: ["--library", library.path], dataHome: dataHome, cacheHome: cacheHome)
        defer { picker.stop() }
        usleep(800_000)  // their thumbnails fail
        // Space on the damaged PNG and a click on the damaged GIF are refused; the third photo
        // is picked.
        try picker.keys("space")
        try picker.click(x: 210, y: 115)
        try picker.keys("Right", "space", "ctrl+Return")  // the click moved the focus to the GIF
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines, [order[2]], "only the readable photo is printed")
    }

    /// A cut-off WebP (a browser's download stopped at 775 bytes) showed its top and Enter
    /// printed it with exit 0 (issue 40, point 10): it is damaged, Enter and Space are refused,
    /// and the next photo is the answer.
    func testACutOffWebPCannotBeChosen() throws {
        let folder = TestSupport.temporaryDirectory("cut-webp").appendingPathComponent("Downloads")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let whole = folder.appendingPathComponent("whole.webp"), cut = folder.appendingPathComponent("download.webp")
        let made = try TestSupport.run("/usr/bin/convert", ["-seed", "3", "-size", "400x300", "plasma:fractal", whole.path])
        XCTAssertEqual(made.status, 0, made.error)
        try Data(contentsOf: whole).prefix(775).write(to: cut)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: whole.path)
        let picker = try WindowProcess(display: display, arguments: ["--library", folder.path, "--no-camera", "--file-selection"],
                                       dataHome: dataHome, cacheHome: cacheHome)
        defer { picker.stop() }
        usleep(1_000_000)  // its thumbnail fails
        try picker.keys("Return")
        usleep(500_000)
        XCTAssertTrue(picker.isRunning, "Enter on the cut-off file chooses nothing")
        try picker.keys("space", "Right", "Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0, picker.errorText)
        XCTAssertEqual(lines, [whole.path])
    }

    func testThumbnailsCoverTheDevicePixelsOnAScaledDisplay() throws {
        _ = try recents()
        let thumbnails = cacheHome.appendingPathComponent("thumbnails")
        let picker = try WindowProcess(display: display, arguments: ["--library", library.path], dataHome: dataHome, cacheHome: cacheHome,
                                       environment: ["GDK_SCALE": "2"])
        defer { picker.stop() }
        usleep(1_500_000)
        try picker.keys("Escape")
        XCTAssertEqual(picker.finish().status, 1)
        // 120-point cells at scale 2 are 240 device pixels: the 256-pixel "large" flavour.
        let large = (try? FileManager.default.contentsOfDirectory(atPath: thumbnails.appendingPathComponent("large").path)) ?? []
        let normal = (try? FileManager.default.contentsOfDirectory(atPath: thumbnails.appendingPathComponent("normal").path)) ?? []
        XCTAssertGreaterThan(large.count, 10, "large thumbnails were made for the visible cells")
        // (Album covers are 40 px: the drop-down may ask for them in the normal size.)
        XCTAssertLessThan(normal.count, 12, "no 128-pixel thumbnails stretched over 240-pixel cells")
    }
}
