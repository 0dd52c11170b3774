// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import Foundation
import GObjectSupport
@testable import PhotoLibrary
import TestSupport
import XCTest
@testable import PhotopickApp
@testable import PickerUI

/// Library Folders… of the app from the menu (issue 40, point 21): folders added and removed at
/// any time, written to the list every command reads, and a picker of the default folders that
/// follows the list at once. In this process, with a home of its own.
@MainActor
final class LibraryFoldersWindowTests: XCTestCase, @unchecked Sendable {
    private var home: URL!
    private var saved: [String: String?] = [:]

    nonisolated override class func setUp() {
        MainActor.assumeIsolated {
            super.setUp()
            _ = InProcessGTK.start()
        }
    }

    nonisolated override func setUpWithError() throws {
        try MainActor.assumeIsolated {
            try InProcessGTK.require()
            home = TestSupport.temporaryDirectory("library-folders-home")
            let config = home.appendingPathComponent(".config")
            try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
            try "XDG_PICTURES_DIR=\"$HOME/Pictures\"\nXDG_VIDEOS_DIR=\"$HOME/Videos\"\n"
                .write(to: config.appendingPathComponent("user-dirs.dirs"), atomically: true, encoding: .utf8)
            let demo = TestSupport.packageRoot.appendingPathComponent("data/demo-library/Phone/PXL_20240612_081500123.jpg")
            for name in ["Pictures/a.jpg", "Pictures/b.jpg", "Videos/c.jpg", "Scans & Letters/d.jpg", "Scans & Letters/e.jpg"] {
                let target = home.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: demo, to: target)
            }
            // (Read at each use: the app's code sees this home until tearDown puts the test run's back.)
            for (key, value) in ["HOME": home.path, "XDG_CONFIG_HOME": config.path,
                                 "XDG_DATA_HOME": home.appendingPathComponent(".local/share").path,
                                 "XDG_CACHE_HOME": home.appendingPathComponent(".cache").path,
                                 "XDG_STATE_HOME": home.appendingPathComponent(".local/state").path] {
                saved[key] = ProcessInfo.processInfo.environment[key]
                setenv(key, value, 1)
            }
        }
    }

    nonisolated override func tearDown() {
        MainActor.assumeIsolated {
            for (key, value) in saved {
                if let value { setenv(key, value, 1) } else { unsetenv(key) }
            }
            saved = [:]
            InProcessGTK.pump(seconds: 0.2)
            super.tearDown()
        }
    }

    private var listFile: String { (try? String(contentsOf: home.appendingPathComponent(".config/photopick/folders"), encoding: .utf8)) ?? "" }

    private func titles(_ window: LibraryFoldersWindow) -> [String] {
        window.rows.map { String(cString: adw_preferences_row_get_title($0.row.cast())) }
    }

    private func type(_ text: String, in window: LibraryFoldersWindow) {
        gtk_editable_set_text(OpaquePointer(window.entry), text)
        window.addTyped()
        let deadline = Date().addingTimeInterval(10)
        repeat { InProcessGTK.pump(seconds: 0.05) } while window.isChecking && Date() < deadline
    }

    nonisolated func testFoldersAreAddedAndRemovedInTheListEveryCommandReads() throws {
        try MainActor.assumeIsolated {
        let window = LibraryFoldersWindow(parent: nil)
        defer { gtk_window_destroy(window.window.cast()) }
        gtk_window_present(window.window.cast())
        InProcessGTK.pump(seconds: 0.3)
        XCTAssertEqual(titles(window), ["Pictures", "Videos"])
        XCTAssertEqual(String(cString: adw_action_row_get_subtitle(window.rows[0].row.cast())), "~/Pictures")

        // A media folder removed is kept as removed: the list says so, and the library leaves it.
        window.remove(FilePath(home.appendingPathComponent("Videos").path))
        XCTAssertEqual(titles(window), ["Pictures"])
        XCTAssertEqual(listFile, "-\(home.path)/Videos\n")
        XCTAssertEqual(LibraryFolders.defaults, [FilePath(home.appendingPathComponent("Pictures").path)])
        XCTAssertEqual(window.lastMessage, "“Videos” is no longer in the library")
        // The last folder cannot be removed: a library needs one.
        XCTAssertEqual(gtk_widget_get_sensitive(window.rows[0].remove), 0)

        // Typed: a path with "~", whose name is not markup.
        type("~/Scans & Letters", in: window)
        XCTAssertEqual(titles(window), ["Pictures", "Scans & Letters"])
        XCTAssertEqual(window.lastMessage, "“Scans & Letters” is in the library now")
        XCTAssertEqual(gtk_editable_get_text(OpaquePointer(window.entry)).map { String(cString: $0) }, "", "the entry is cleared for the next")
        XCTAssertEqual(gtk_widget_get_sensitive(window.rows[0].remove), 1)
        // Videos again, by its path: no longer removed, and in its place among the media folders.
        type(home.appendingPathComponent("Videos").path, in: window)
        XCTAssertEqual(titles(window), ["Pictures", "Videos", "Scans & Letters"])
        XCTAssertEqual(listFile, "\(home.path)/Scans & Letters\n")
        type("~/Videos", in: window)
        XCTAssertEqual(window.lastMessage, "“\(home.path)/Videos” is in the library already")

        // What cannot be added says why, and keeps what was typed.
        type("~/Nowhere", in: window)
        XCTAssertEqual(window.lastMessage, "There is no folder “~/Nowhere”")
        XCTAssertEqual(gtk_editable_get_text(OpaquePointer(window.entry)).map { String(cString: $0) }, "~/Nowhere")
        type("Pictures", in: window)
        XCTAssertTrue(window.lastMessage?.hasPrefix("Type a folder's whole path") == true, window.lastMessage ?? "")
        // (No gvfs in this process: a server address cannot be reached, and is not added.)
        type("sftp://127.0.0.1:9/photos", in: window)
        XCTAssertEqual(window.lastMessage, "“sftp://127.0.0.1:9/photos” cannot be reached: the server did not answer or refused")
        XCTAssertEqual(titles(window), ["Pictures", "Videos", "Scans & Letters"])

        window.remove(FilePath(home.appendingPathComponent("Scans & Letters").path))
        XCTAssertEqual(listFile, "")
        XCTAssertEqual(titles(window), ["Pictures", "Videos"])
        }
    }

    /// The picker of the default folders follows the list: a folder added elsewhere (the window,
    /// another process) shows its photos, one removed takes its photos away, the picks of the
    /// rest staying.
    nonisolated func testAPickerOfTheDefaultFoldersFollowsTheList() throws {
        try MainActor.assumeIsolated {
        let widget = photopick_picker_new()!
        let window = gtk_window_new()!
        defer { gtk_window_destroy(window.cast()) }
        gtk_window_set_default_size(window.cast(), 960, 720)
        gtk_window_set_child(window.cast(), widget)
        gtk_window_present(window.cast())
        let picker = try XCTUnwrap(Picker.of(widget))
        @MainActor func waitFor(_ count: Int, _ what: String) {
            let deadline = Date().addingTimeInterval(20)
            var shown: Int? { picker.controller?.model.fetchResult?.count }
            while Date() < deadline, shown != count || picker.controller?.isScanning == true {
                InProcessGTK.pump(seconds: 0.05)
            }
            let found = shown
            XCTAssertEqual(found, count, what)
        }
        waitFor(3, "Pictures and Videos")
        try LibraryFolders.add(FilePath(home.appendingPathComponent("Scans & Letters").path))
        waitFor(5, "the folder added shows")
        try LibraryFolders.remove(FilePath(home.appendingPathComponent("Pictures").path))
        waitFor(3, "the folder removed goes")
        let roots = Set(picker.controller.roots.map(\.displayString))
        XCTAssertEqual(roots, [home.appendingPathComponent("Videos").path, home.appendingPathComponent("Scans & Letters").path])
        }
    }
}
