// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import Foundation
import GObjectSupport
import PhotoLibrary
import PickerModel
import TestSupport
import Thumbnails
import XCTest
@testable import PhotopickApp

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

    /// The app from the menu lists its own keys: Copy, Close and Quit, and Escape only going
    /// back; a script's picker lists Cancel (issue 19, defect 10: it described the script's).
    func testTheAppFromTheMenuListsItsOwnShortcuts() throws {
        MainActor.assumeIsolated {
            let app = Dictionary(uniqueKeysWithValues: PickerActions.commands(desktop: true).map { ($0.name, $0) })
            XCTAssertEqual(app["confirm"]?.title, "Copy the picked photos")
            XCTAssertEqual(app["cancel"]?.title, "Go back from the preview or the camera")
            XCTAssertEqual(app["close"]?.accelerators, ["<Control>w"])
            XCTAssertEqual(app["quit"]?.accelerators, ["<Control>q"])
            let script = Dictionary(uniqueKeysWithValues: PickerActions.commands(desktop: false).map { ($0.name, $0) })
            XCTAssertEqual(script["confirm"]?.title, "Add the picked photos")
            XCTAssertNil(script["quit"])
            XCTAssertNil(script["close"])
        }
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

/// The shortcuts window lists what the window can do: taking a photo only when there is a camera
/// to take it with (`--no-camera` has none).
@MainActor
final class ShortcutsWindowTests: XCTestCase, @unchecked Sendable {
    private var windows: [UnsafeMutablePointer<GtkWidget>] = []

    nonisolated override func tearDown() {
        MainActor.assumeIsolated {
            windows.forEach { gtk_window_destroy($0.cast()) }
            windows = []
            super.tearDown()
        }
    }

    /// The titles the shortcuts window of a picker window shows.
    private func shortcutTitles(camera: Bool) throws -> [String] {
        try InProcessGTK.require()
        // Not registered: the accelerators and actions need only the object.
        let application = gtk_application_new("io.github.photopick.ShortcutsTest", G_APPLICATION_NON_UNIQUE)!
        defer { g_object_unref(UnsafeMutableRawPointer(application)) }
        let window = gtk_application_window_new(application)!
        windows.append(window)
        // (The actions only run the picker's when activated: a stand-in widget is enough here.)
        let picker = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_window_set_child(window.cast(), picker)
        PickerActions.install(window: window, application: application, picker: picker, desktop: false, camera: camera, location: true, close: {})
        // Made when first asked for, as Ctrl+? does.
        XCTAssertNil(PickerActions.madeShortcutsWindow(of: window), "not made before it is asked for")
        XCTAssertTrue(gtk_widget_activate_action_variant(window, "win.show-help-overlay", nil) != 0)
        let overlay = try XCTUnwrap(PickerActions.madeShortcutsWindow(of: window))
        var titles: [String] = []
        func walk(_ widget: UnsafeMutablePointer<GtkWidget>) {
            let type = UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GTypeInstance.self).pointee.g_class?.pointee.g_type
            if let type, let name = g_type_name(type), String(cString: name) == "GtkShortcutsShortcut" {
                var value = GValue()
                g_value_init(&value, GType(16 << 2))  // G_TYPE_STRING
                g_object_get_property(UnsafeMutablePointer<GObject>(OpaquePointer(widget)), "title", &value)
                titles.append(g_value_get_string(&value).map { String(cString: $0) } ?? "")
                g_value_unset(&value)
            }
            var child = gtk_widget_get_first_child(widget)
            while let current = child {
                walk(current)
                child = gtk_widget_get_next_sibling(current)
            }
        }
        walk(UnsafeMutableRawPointer(overlay).assumingMemoryBound(to: GtkWidget.self))
        return titles
    }

    nonisolated func testTakingAPhotoIsListedOnlyWithACamera() throws {
        try MainActor.assumeIsolated {
            let without = try shortcutTitles(camera: false)
            XCTAssertTrue(without.contains("Choose an album"), "\(without)")
            XCTAssertTrue(without.contains("Pick or unpick the focused photo"))
            XCTAssertFalse(without.contains("Take a photo with the camera"), "no camera: Ctrl+T is not offered")
            let with = try shortcutTitles(camera: true)
            XCTAssertTrue(with.contains("Take a photo with the camera"))
            XCTAssertEqual(Set(with).subtracting(without), ["Take a photo with the camera"], "the rest is the same")
        }
    }
}
