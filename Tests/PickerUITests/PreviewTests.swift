// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import Foundation
import PhotoLibrary
import PickerModel
import TestSupport
import Thumbnails
import XCTest
@_spi(Testing) @testable import PickerUI

/// The large preview in the real window, driven with the mouse and keyboard under Xvfb: the
/// header swaps Cancel and Add for Back and the pick toggle, and keys still work over a video.
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class PreviewWindowTests: XCTestCase, @unchecked Sendable {
    private var display: VirtualDisplay!
    private var library: URL!
    private var dataHome: URL!
    private var cacheHome: URL!

    // Header positions in the 960-pixel-wide window (no window manager: it sits at the top left).
    private let cancelRightPart = (x: 75, y: 26)  // Cancel spans 11-87; Back (11-45) does not reach here
    private let back = (x: 28, y: 26)
    private let addOrPickToggle = (x: 920, y: 26)  // Add, and the pick toggle in its place

    nonisolated override func setUpWithError() throws {
        try MainActor.assumeIsolated {
            for tool in ["/usr/bin/Xvfb", "/usr/bin/xdotool"] where !FileManager.default.isExecutableFile(atPath: tool) {
                XCTFail("\(tool) is missing: run scripts/bootstrap")
                throw XCTSkip("no \(tool)")
            }
            display = try VirtualDisplay()
            library = TestSupport.temporaryDirectory("preview-library").appendingPathComponent("Pictures")
            try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("data/demo-library"), to: library)
            dataHome = TestSupport.temporaryDirectory("preview-data")
            cacheHome = TestSupport.temporaryDirectory("preview-cache")
        }
    }

    nonisolated override func tearDown() {
        MainActor.assumeIsolated {
            display = nil  // stops the server
            for url in [library.deletingLastPathComponent(), dataHome, cacheHome].compactMap({ $0 }) {
                try? FileManager.default.removeItem(at: url)
            }
            super.tearDown()
        }
    }

    /// Recents as `photopick ls` prints it (this also builds the index before the window opens).
    private func recents() throws -> [String] {
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--library", library.path],
                                         environment: ["XDG_DATA_HOME": dataHome.path])
        XCTAssertEqual(result.status, 0, result.error)
        return String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private func open() throws -> RunningPicker {
        try RunningPicker(display: display, arguments: ["--library", library.path], dataHome: dataHome, cacheHome: cacheHome)
    }

    nonisolated func testWhileThePreviewShowsCancelIsGoneAndBackBringsAddBack() throws {
        try MainActor.assumeIsolated {
            let order = try recents()
            let picker = try open()
            try picker.keys("alt+Return")
            usleep(300_000)
            try picker.click(x: addOrPickToggle.x, y: addOrPickToggle.y)  // the pick toggle: picks the photo
            try picker.click(x: cancelRightPart.x, y: cancelRightPart.y)  // where Cancel was
            usleep(500_000)
            XCTAssertTrue(picker.process.isRunning, "Cancel is hidden while the preview shows: the click cancelled nothing")
            try picker.click(x: back.x, y: back.y)
            usleep(300_000)
            try picker.click(x: addOrPickToggle.x, y: addOrPickToggle.y)  // Add again, back in the grid
            let (status, lines) = picker.finish()
            XCTAssertEqual(status, 0)
            XCTAssertEqual(lines, [order[0]])
        }
    }

    nonisolated func testBackReturnsToTheGrid() throws {
        try MainActor.assumeIsolated {
            _ = try recents()
            let picker = try open()
            try picker.keys("alt+Return", "Right")
            usleep(300_000)
            try picker.click(x: back.x, y: back.y)
            // In the grid, Escape cancels (in the preview it would only close the preview).
            try picker.keys("Escape")
            let (status, lines) = picker.finish(timeout: 5)
            XCTAssertEqual(status, 1, "Escape reached the grid: Back had closed the preview")
            XCTAssertEqual(lines, [])
        }
    }

    nonisolated func testKeysKeepWorkingOverAPlayingVideosControls() throws {
        try MainActor.assumeIsolated {
            let order = try recents()
            let video = try XCTUnwrap(order.firstIndex { $0.hasSuffix(".mp4") })
            XCTAssertLessThan(video + 1, order.count)
            let picker = try open()
            try picker.keys("alt+Return")
            for _ in 0..<video { try picker.keys("Right") }
            usleep(1_000_000)
            // The controls show on pointer motion; a click on their play button gives them the focus
            // (nothing is picked yet, so no strip has moved them up; the click pauses the video).
            try picker.display.xdotool(["mousemove", "400", "500"])
            usleep(200_000)
            try picker.display.xdotool(["mousemove", "420", "520"])
            usleep(300_000)
            try picker.click(x: 31, y: 689)
            try picker.keys("Tab")  // on to the seek bar, where arrows would seek
            // Space picks the video, Right goes to the next asset (not along the seek bar), Space
            // picks that, Ctrl+Enter confirms.
            try picker.keys("space", "Right", "space", "ctrl+Return")
            let (status, lines) = picker.finish()
            XCTAssertEqual(status, 0)
            XCTAssertEqual(lines, [order[video], order[video + 1]])
        }
    }
}

/// The preview in this process: a video's stream plays muted and is closed when the preview
/// closes or moves on; a video that cannot play says why.
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class PreviewPlaybackTests: XCTestCase, @unchecked Sendable {
    /// The display is started before any test runs: one started inside a test stops with it.
    nonisolated override class func setUp() {
        MainActor.assumeIsolated {
            super.setUp()
            _ = InProcessGTK.start()
        }
    }


    private var window: UnsafeMutablePointer<GtkWidget>?
    private var view: Picker?
    private var folders: [URL] = []

    nonisolated override func tearDown() {
        MainActor.assumeIsolated {
            if let window { gtk_window_destroy(window.cast()) }
            pump(seconds: 0.1)
            view?.loader.shutdown()
            for folder in folders { try? FileManager.default.removeItem(at: folder) }
            super.tearDown()
        }
    }

    private func pump(seconds: Double, until done: () -> Bool = { false }) {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && !done() {
            while g_main_context_iteration(nil, 0) != 0 {}
            usleep(2000)
        }
    }

    /// A window with the picker over a photo and the demo video; returns the video's position
    /// and the photo's.
    private func openPicker() throws -> (view: Picker, video: Int, photo: Int, videoPath: String) {
        try InProcessGTK.require()
        let root = TestSupport.temporaryDirectory("preview-media")
        let index = TestSupport.temporaryDirectory("preview-index")
        let cacheRoot = TestSupport.temporaryDirectory("preview-thumbnails")
        folders += [root, index, cacheRoot]
        let demo = TestSupport.packageRoot.appendingPathComponent("data/demo-library")
        let videoURL = root.appendingPathComponent("VID_20240421_110000.mp4")
        try FileManager.default.copyItem(at: demo.appendingPathComponent("Videos/VID_20240421_110000.mp4"), to: videoURL)
        try FileManager.default.copyItem(at: demo.appendingPathComponent("Phone/PXL_20240614_120000789.jpg"),
                                        to: root.appendingPathComponent("PXL_20240614_120000789.jpg"))
        let library = try PhotoLibrary(roots: [FilePath(root.path)],
                                       location: IndexLocation(databasePath: index.appendingPathComponent("index.sqlite").path))
        try library.scan()
        let cache = ThumbnailCache(root: FilePath(cacheRoot.path))
        let view = Picker.hosting(library: library, loader: ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, thumbnailers: [])),
                              camera: nil)
        let window = gtk_window_new()!
        gtk_window_set_default_size(window.cast(), 960, 720)
        // A header as a host packs it (photopick_picker_get_header_widgets): all five buttons,
        // their visibility left to the picker.
        let header = gtk_header_bar_new()!, parts = view.headerWidgets
        gtk_header_bar_set_title_widget(header.opaque, parts.title)
        gtk_header_bar_pack_start(header.opaque, parts.start)
        gtk_header_bar_pack_end(header.opaque, parts.end)
        gtk_window_set_titlebar(window.cast(), header)
        gtk_window_set_child(window.cast(), view.widget)
        try view.showAlbums()
        gtk_window_present(window.cast())
        pump(seconds: 0.5)
        self.window = window
        self.view = view
        XCTAssertEqual(view.model.count, 2)
        let kinds: [MediaKind?] = (0..<view.model.count).map { position in
            view.model.assetID(at: position).flatMap { try? library.asset(id: $0) }?.kind
        }
        let video = try XCTUnwrap(kinds.firstIndex(of: .video))
        return (view, video, 1 - video, videoURL.path)
    }

    /// Whether this process has `path` open (GStreamer's file source holds a descriptor).
    private func isOpen(_ path: String) -> Bool {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }
    }

    private func visible(_ widget: UnsafeMutablePointer<GtkWidget>) -> Bool { gtk_widget_get_visible(widget) != 0 }

    nonisolated func testAVideoPlaysMutedAndIsClosedWhenThePreviewMovesOnOrCloses() throws {
        try MainActor.assumeIsolated {
            let (view, video, photo, path) = try openPicker()
            let preview = view.preview
            XCTAssertFalse(visible(view.previewBackButton), "the preview's header buttons wait for the preview")
            XCTAssertFalse(visible(view.previewPickButton))

            view.openPreview(at: video)
            let stream = try XCTUnwrap(preview.stream, "a video gets a media stream")
            pump(seconds: 10) { gtk_media_stream_get_timestamp(stream) > 200_000 || gtk_media_stream_get_error(stream) != nil }
            XCTAssertNil(gtk_media_stream_get_error(stream).map { String(cString: $0.pointee.message) }, "GStreamer plays the demo video")
            XCTAssertNil(preview.problemText)
            XCTAssertNotEqual(gtk_media_stream_get_playing(stream), 0, "it plays at once")
            XCTAssertNotEqual(gtk_media_stream_get_muted(stream), 0, "muted by default")
            XCTAssertGreaterThan(gtk_media_stream_get_timestamp(stream), 200_000, "playback advances (µs)")
            XCTAssertTrue(isOpen(path), "the player reads the file")
            XCTAssertEqual([view.albumSwitcher, view.cancelButton, view.confirmButton].map(visible), [false, false, false],
                           "Cancel, Add and the album switcher are gone while the preview shows")
            XCTAssertEqual([view.previewBackButton, view.previewPickButton].map(visible), [true, true])

            // Moving on to the photo stops the video and closes its file.
            view.openPreview(at: photo)
            XCTAssertNil(preview.stream)
            pump(seconds: 3) { !isOpen(path) }
            XCTAssertFalse(isOpen(path), "the video file is released when the preview moves on")

            // Back on the video, then closing the preview: released again, and the header restored.
            view.openPreview(at: video)
            let again = try XCTUnwrap(preview.stream)
            pump(seconds: 10) { gtk_media_stream_get_timestamp(again) > 0 || gtk_media_stream_get_error(again) != nil }
            XCTAssertTrue(isOpen(path))
            view.closePreview()
            XCTAssertNil(preview.stream)
            pump(seconds: 3) { !isOpen(path) }
            XCTAssertFalse(isOpen(path), "the video file is released when the preview closes")
            XCTAssertEqual([view.albumSwitcher, view.cancelButton, view.confirmButton].map(visible), [true, true, true])
            XCTAssertEqual([view.previewBackButton, view.previewPickButton].map(visible), [false, false])
        }
    }

    nonisolated func testTheHeadersPickToggleFollowsTheSelection() throws {
        try MainActor.assumeIsolated {
            let (view, _, photo, _) = try openPicker()
            let button = view.previewPickButton
            let id = try XCTUnwrap(view.model.assetID(at: photo))
            view.openPreview(at: photo)
            XCTAssertEqual(String(cString: gtk_button_get_label(button.cast())), "Pick")
            XCTAssertEqual(gtk_toggle_button_get_active(button.cast()), 0)
            _ = gtk_widget_activate(button)  // a click (GtkButton emits "clicked" after a short press)
            pump(seconds: 1) { !view.selection.picked.isEmpty }
            XCTAssertEqual(view.selection.picked, [id])
            XCTAssertEqual(String(cString: gtk_button_get_label(button.cast())), "Picked 1")
            XCTAssertNotEqual(gtk_toggle_button_get_active(button.cast()), 0)
            XCTAssertNotEqual(gtk_widget_has_css_class(button, "suggested-action"), 0)
            _ = gtk_widget_activate(button)
            pump(seconds: 1) { view.selection.picked.isEmpty }
            XCTAssertEqual(view.selection.picked, [])
            XCTAssertEqual(String(cString: gtk_button_get_label(button.cast())), "Pick")
            XCTAssertEqual(gtk_toggle_button_get_active(button.cast()), 0)
        }
    }

    nonisolated func testABrokenVideoShowsItsThumbnailAndWhy() throws {
        try MainActor.assumeIsolated {
            let (view, video, _, path) = try openPicker()
            // Damaged after indexing: the index still lists it as a video.
            let junk = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
            try junk.write(to: URL(fileURLWithPath: path))
            view.openPreview(at: video)
            pump(seconds: 10) { view.preview.problemText != nil }
            let problem = try XCTUnwrap(view.preview.problemText, "a line says why the video does not play")
            XCTAssertTrue(problem.hasPrefix("This video cannot be played: "), problem)
            XCTAssertNil(view.preview.stream, "the failed player is closed")
            pump(seconds: 3) { !isOpen(path) }
            XCTAssertFalse(isOpen(path))
        }
    }
}
