// SPDX-License-Identifier: GPL-3.0-or-later
import Camera
import CGtk
import Foundation
import GObjectSupport
import PhotoLibrary
import PickerModel
import TestSupport
import Thumbnails
import XCTest
@_spi(Testing) @testable import PickerUI

/// Wherever the keyboard's focus goes in the picker, a person sees it (issue 41): the window is
/// drawn with the focus on each control and again without it, and the two must differ round that
/// control (a ring, a highlight, the timeline opening). Every part: the camera cell, a photo, the
/// timeline, the strip, the header, the preview, the capture view and the album list.
@MainActor
final class FocusVisibleTests: XCTestCase, @unchecked Sendable {
    nonisolated override class func setUp() {
        MainActor.assumeIsolated {
            super.setUp()
            _ = InProcessGTK.start()
        }
    }

    /// A frame of `native` (a window or a popover), as GTK draws it: RGBA rows.
    private struct Frame {
        let width: Int, height: Int
        let pixels: [UInt8]

        /// Whether the pixel at (x, y) differs from `other`'s (by more than a rounding).
        func differs(from other: Frame, x: Int, y: Int) -> Bool {
            guard x >= 0, y >= 0, x < width, y < height else { return false }
            let at = (y * width + x) * 4
            return (0..<4).contains { abs(Int(pixels[at + $0]) - Int(other.pixels[at + $0])) > 24 }
        }

        /// How much of each side of `rect` changed: along each side (its corners left out), the
        /// share of places where a pixel differs within `band` px of the edge, inside or out.
        /// A ring round a widget changes every side (a round button's, half of each); a corner
        /// mark or a badge changes none, or one.
        func sidesChanged(from other: Frame, round rect: graphene_rect_t, band: Int = 4) -> [Double] {
            guard width == other.width, height == other.height else { return [] }
            let left = Int(rect.origin.x), top = Int(rect.origin.y)
            let right = Int(rect.origin.x + rect.size.width), bottom = Int(rect.origin.y + rect.size.height)
            let corner = 8
            func share(_ along: StrideTo<Int>, _ changed: (Int) -> Bool) -> Double {
                let places = Array(along)
                return places.isEmpty ? 0 : Double(places.filter(changed).count) / Double(places.count)
            }
            let across = -band...band
            let horizontal = stride(from: left + corner, to: right - corner, by: 1)
            let vertical = stride(from: top + corner, to: bottom - corner, by: 1)
            return [
                share(horizontal) { x in across.contains { differs(from: other, x: x, y: top + $0) } },
                share(horizontal) { x in across.contains { differs(from: other, x: x, y: bottom - 1 + $0) } },
                share(vertical) { y in across.contains { differs(from: other, x: left + $0, y: y) } },
                share(vertical) { y in across.contains { differs(from: other, x: right - 1 + $0, y: y) } },
            ]
        }
    }

    private func draw(_ native: UnsafeMutablePointer<GtkWidget>) -> Frame? {
        for _ in 0..<20 {
            InProcessGTK.pump(seconds: 0.15)
            if let frame = drawNow(native) { return frame }
        }
        return nil
    }

    private func drawNow(_ native: UnsafeMutablePointer<GtkWidget>) -> Frame? {
        let width = Int(gtk_widget_get_width(native)), height = Int(gtk_widget_get_height(native))
        guard width > 0, height > 0, let paintable = gtk_widget_paintable_new(native),
              let renderer = gtk_native_get_renderer(OpaquePointer(native)), let snapshot = gtk_snapshot_new() else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(paintable)) }
        gdk_paintable_snapshot(paintable, snapshot, Double(width), Double(height))
        // (Nothing while GTK has a layout to do: the paintable draws the widget as it is made.)
        guard let node = gtk_snapshot_free_to_node(snapshot) else { return nil }
        defer { gsk_render_node_unref(node) }
        var viewport = graphene_rect_t(origin: graphene_point_t(x: 0, y: 0), size: graphene_size_t(width: Float(width), height: Float(height)))
        guard let texture = gsk_renderer_render_texture(renderer, node, &viewport) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
        let textureWidth = Int(gdk_texture_get_width(texture)), textureHeight = Int(gdk_texture_get_height(texture))
        var pixels = [UInt8](repeating: 0, count: textureWidth * textureHeight * 4)
        gdk_texture_download(texture, &pixels, gsize(textureWidth * 4))
        return Frame(width: textureWidth, height: textureHeight, pixels: pixels)
    }

    /// Puts the focus where `focusing` puts it, and checks that it shows: the frame with the
    /// focus shown differs round the focused widget from the frame without it (the focus taken
    /// away, or in the album list, which closes without it, moved to `away`).
    private func checkFocusShows(_ what: String, in window: UnsafeMutablePointer<GtkWidget>, away: UnsafeMutablePointer<GtkWidget>? = nil,
                                 file: StaticString = #filePath, line: UInt = #line, _ focusing: () -> Void) {
        focusing()
        InProcessGTK.pump(seconds: 0.2)
        guard let focus = gtk_window_get_focus(window.cast()) else {
            XCTFail("\(what): nothing took the focus", file: file, line: line)
            return
        }
        let native = UnsafeMutableRawPointer(gtk_widget_get_native(focus)!).assumingMemoryBound(to: GtkWidget.self)
        var bounds = graphene_rect_t()
        guard gtk_widget_compute_bounds(focus, native, &bounds) != 0 else {
            XCTFail("\(what): the focused widget is not on screen", file: file, line: line)
            return
        }
        gtk_window_set_focus_visible(window.cast(), 1)
        let shown = draw(native)
        if let away { gtk_widget_grab_focus(away) } else { gtk_window_set_focus(window.cast(), nil) }
        let unshown = draw(native)
        guard let shown, let unshown else {
            XCTFail("\(what): the window could not be drawn (\(shown == nil ? "with" : "without") the focus shown)", file: file, line: line)
            return
        }
        // A ring, or more (the timeline opens): two sides or more change along half their length
        // at least. (The album search's ring shows at its top and bottom only: its sides are the
        // popover's clip.)
        let sides = shown.sidesChanged(from: unshown, round: bounds)
        XCTAssertGreaterThanOrEqual(sides.filter { $0 >= 0.5 }.count, 2,
                                    "\(what): the focus does not show round it (of each side, \(sides.map { Int($0 * 100) }) % changes)",
                                    file: file, line: line)
    }

    nonisolated func testTheFocusShowsOnEveryControl() throws {
        try MainActor.assumeIsolated {
            try InProcessGTK.require()
            let root = TestSupport.temporaryDirectory("focus-window").appendingPathComponent("Pictures")
            try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("data/demo-library"), to: root)
            let library = try PhotoLibrary(roots: [FilePath(root.path)],
                                           location: IndexLocation(databasePath: TestSupport.temporaryDirectory("focus-index").appendingPathComponent("index.sqlite").path))
            try library.scan()
            let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("focus-cache").path))
            let devices = FakeDevices([FakeDevices.webcam])
            let store = CameraStore(post: { MainLoopDispatcher.shared.post($0) }, listCameras: { devices.cameras }, makeSource: { _, _ in FakeCamera() })
            let view = Picker.hosting(library: library, loader: ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, thumbnailers: [])),
                                      camera: store, showsCameraAtStart: true)
            shell.set_show_header(OpaquePointer(view.widget), 1)
            let window = gtk_window_new()!
            defer {
                gtk_window_destroy(window.cast())
                view.loader.shutdown()
            }
            // (Small: the demo library is then long enough for the timeline.)
            gtk_window_set_default_size(window.cast(), 560, 480)
            gtk_window_set_child(window.cast(), view.widget)
            try view.showAlbums()
            gtk_window_present(window.cast())
            store.start(watchingDevices: false)
            let deadline = monotonicSeconds() + 10
            while monotonicSeconds() < deadline, gtk_widget_get_mapped(view.timeline.range) == 0 || view.cells.count < 4 {
                InProcessGTK.pump(seconds: 0.1)
            }
            XCTAssertNotEqual(gtk_widget_get_mapped(view.timeline.range), 0, "the timeline shows")
            let cells = view.cells.compactMap(\.cell)
            let camera = try XCTUnwrap(cells.first { $0.isCamera }, "the camera cell")
            let photo = try XCTUnwrap(cells.first { !$0.isCamera && $0.position == 2 }, "a photo's cell")
            for position in [1, 2] { view.toggle(at: position) }
            InProcessGTK.pump(seconds: 0.5)

            // The grid, its timeline, the strip, the header.
            checkFocusShows("the camera cell", in: window) { gtk_widget_grab_focus(gtk_widget_get_parent(camera.root)) }
            checkFocusShows("a photo", in: window) { gtk_widget_grab_focus(gtk_widget_get_parent(photo.root)) }
            checkFocusShows("the timeline", in: window) { _ = view.focusTimeline() }
            checkFocusShows("a pick in the strip", in: window) { view.strip.focus() }
            checkFocusShows("Cancel", in: window) { gtk_widget_grab_focus(view.cancelButton) }
            checkFocusShows("the album switcher", in: window) { gtk_widget_grab_focus(view.albumSwitcher) }
            checkFocusShows("Add", in: window) { gtk_widget_grab_focus(view.confirmButton) }

            // The preview: Back and the pick button.
            view.openPreview(at: 2)
            InProcessGTK.pump(seconds: 0.3)
            checkFocusShows("the preview's Back", in: window) { gtk_widget_grab_focus(view.previewBackButton) }
            checkFocusShows("the preview's pick button", in: window) { gtk_widget_grab_focus(view.previewPickButton) }
            view.closePreview()

            // The capture view: the shutter and Back.
            view.toggle(at: 0)
            InProcessGTK.pump(seconds: 0.3)
            XCTAssertTrue(view.captureView.isVisible)
            checkFocusShows("the shutter", in: window) { gtk_widget_grab_focus(view.captureView.shutter) }
            checkFocusShows("the capture view's Back", in: window) { gtk_widget_grab_focus(view.captureView.backButton) }
            view.closeCapture()

            // The album list (a popover of its own): its search and a row.
            view.albumSwitcherPopup()
            InProcessGTK.pump(seconds: 0.5)
            let row = try XCTUnwrap(view.switcher.shownRows.dropFirst().first, "an album in the list")
            checkFocusShows("the album search", in: window, away: row.widget) { gtk_widget_grab_focus(view.switcher.search) }
            checkFocusShows("an album in the list", in: window, away: view.switcher.search) { gtk_widget_grab_focus(row.widget) }
            view.switcher.popdown()
        }
    }
}
