// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// Photos dragged out of the picker into another app arrive as files: a picked photo brings
/// every pick in pick order, an unpicked one only itself, from the grid or the strip. The other
/// app is a small GTK 4 window with a file-list drop target (Python, GObject introspection).
final class DragOutTests: WindowTestCase {
    override var requiredTools: [String] { ["/usr/bin/python3"] }
    override var copiesDemoLibrary: Bool { false }

    /// (Also the drop target of RemoteFetchTests.)
    static let dropApp = #"""
    import gi
    gi.require_version("Gtk", "4.0")
    gi.require_version("Gdk", "4.0")
    from gi.repository import Gtk, Gdk

    def on_drop(target, value, x, y):
        for f in value.get_files():
            print(f.get_path(), flush=True)
        print("--", flush=True)
        return True

    def on_activate(app):
        window = Gtk.ApplicationWindow(application=app, title="Drop Here")
        window.set_default_size(380, 300)
        label = Gtk.Label(label="Drop photos here")
        target = Gtk.DropTarget.new(Gdk.FileList, Gdk.DragAction.COPY)
        target.connect("drop", on_drop)
        label.add_controller(target)
        window.set_child(label)
        window.present()

    app = Gtk.Application(flags=0)
    app.connect("activate", on_activate)
    app.run(None)
    """#

    func testDraggedPhotosArriveAsFilesInPickOrder() throws {
        let recents = try list()
        let target = try openDropTarget()
        defer { target.stop() }
        let picker = try WindowProcess(display: display, arguments: ["--library", library.path, "--no-camera", "--width", "700", "--height", "600"],
                                       dataHome: dataHome, cacheHome: cacheHome)
        defer { picker.stop() }
        // The second photo, then the first.
        try picker.keys("Right", "space", "Left", "space")
        usleep(400_000)
        let drop = (x: 900, y: 150)
        try display.drag(from: (75, 115), to: drop)            // a picked photo of the grid
        try display.drag(from: (345, 115), to: drop)           // the third, not picked
        try display.drag(from: (42, 560), to: drop)            // the first item of the strip
        try display.xdotool(["windowfocus", "--sync", picker.windowID])
        try picker.keys("ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0, picker.errorText)
        XCTAssertEqual(lines, [recents[1], recents[0]], "a drag picks nothing and keeps the order")
        let received = String(decoding: target.finishWithBytes(timeout: 0).output, as: UTF8.self)
        XCTAssertEqual(received, ([recents[1], recents[0], "--", recents[2], "--", recents[1], recents[0], "--"]).map { $0 + "\n" }.joined(),
                       target.errorText)
    }
}

extension DragOutTests {
    /// The pointer carries the photo, and with several picks a badge of their count (the accent
    /// blue badge, white figures); a photo alone carries no badge. It was a generic document
    /// (issue 40, point 20).
    func testTheDragShowsThePhotoAndHowMany() throws {
        let picker = try WindowProcess(display: display, arguments: ["--library", library.path, "--no-camera", "--width", "700", "--height", "600"],
                                       dataHome: dataHome, cacheHome: cacheHome)
        defer { picker.stop() }
        usleep(400_000)
        /// What the pointer carries from `start` (the first cell), held over the bare (black)
        /// screen right of the window.
        func carried(from start: (x: Int, y: Int) = (x: 75, y: 115)) throws -> [(red: Int, green: Int, blue: Int)] {
            let held = (x: 900, y: 400)
            try display.xdotool(["mousemove", String(start.x), String(start.y), "mousedown", "1"])
            usleep(200_000)
            for step in 1...8 {
                try display.xdotool(["mousemove", String(start.x + (held.x - start.x) * step / 8), String(start.y + (held.y - start.y) * step / 8)])
                usleep(50_000)
            }
            usleep(400_000)
            let seen = try pixels(around: held, side: 180)
            try display.xdotool(["key", "Escape"])
            try display.xdotool(["mouseup", "1"])
            usleep(400_000)
            try display.xdotool(["windowfocus", "--sync", picker.windowID])
            return seen
        }
        let isBadge = { (pixel: (red: Int, green: Int, blue: Int)) in abs(pixel.red - 54) < 12 && abs(pixel.green - 133) < 12 && abs(pixel.blue - 227) < 12 }
        let isBlack = { (pixel: (red: Int, green: Int, blue: Int)) in pixel.red + pixel.green + pixel.blue < 30 }
        // The first photo alone, then with the second picked too: the same photo, and a badge.
        let alone = try carried()
        try picker.keys("Right", "space", "Left", "space")
        usleep(400_000)
        let both = try carried()
        XCTAssertGreaterThan(alone.filter { !isBlack($0) }.count, 3000, "the photo goes with the pointer, larger than an icon")
        XCTAssertGreaterThan(both.filter(isBadge).count, alone.filter(isBadge).count + 250, "the count's badge goes with two picks")
        // From the strip too (its first item, bottom left of the 600-point window).
        let fromStrip = try carried(from: (x: 40, y: 565))
        XCTAssertGreaterThan(fromStrip.filter { !isBlack($0) }.count, 3000, "the strip's photo goes with the pointer")
        XCTAssertGreaterThan(fromStrip.filter(isBadge).count, alone.filter(isBadge).count + 250, "with the count of the picks")
        try picker.keys("ctrl+Return")
        XCTAssertEqual(picker.finish().status, 0, "the drags picked nothing and left the window working")
    }
}

extension WindowTestCase {
    /// A GTK app with a file drop target (DragOutTests.dropApp) right of a 700-point picker, its
    /// drop zone at (900, 150): it prints the files of each drop, a line each, then "--".
    func openDropTarget() throws -> WindowProcess {
        let script = TestSupport.temporaryDirectory("drop-app").appendingPathComponent("drop.py")
        addTeardownBlock { try? FileManager.default.removeItem(at: script.deletingLastPathComponent()) }
        try DragOutTests.dropApp.write(to: script, atomically: true, encoding: .utf8)
        let target = try WindowProcess(display: display, executable: "/usr/bin/python3", arguments: [script.path],
                                       dataHome: dataHome, cacheHome: cacheHome, title: "Drop Here")
        try display.xdotool(["windowmove", target.windowID, "710", "0"])
        return target
    }
}
