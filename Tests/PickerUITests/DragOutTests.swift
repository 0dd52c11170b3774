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
