// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import Foundation
import GObjectSupport
import PhotoLibrary
import TestSupport
import Thumbnails
import XCTest
@_spi(Testing) @testable import PickerUI

/// What a toast says reaches the screen as written: a file named "Tom & Jerry <1>.jpg" in a
/// message is words, not markup (libadwaita 1.2 reads a toast's title as Pango markup, and the
/// message showed nothing).
@MainActor
final class ToastTests: XCTestCase, @unchecked Sendable {
    nonisolated override class func setUp() {
        MainActor.assumeIsolated {
            super.setUp()
            _ = InProcessGTK.start()
        }
    }

    private func labels(under widget: UnsafeMutablePointer<GtkWidget>) -> [String] {
        var texts: [String] = []
        if g_type_check_instance_is_a(UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GTypeInstance.self), gtk_label_get_type()) != 0,
           let text = gtk_label_get_text(OpaquePointer(widget)) {
            texts.append(String(cString: text))
        }
        var child = gtk_widget_get_first_child(widget)
        while let current = child {
            texts += labels(under: current)
            child = gtk_widget_get_next_sibling(current)
        }
        return texts
    }

    nonisolated func testAProblemNamingAFileWithMarkupCharactersShowsAsWritten() throws {
        try MainActor.assumeIsolated {
            try InProcessGTK.require()
            let (library, _) = try SyntheticLibrary.make("toast", count: 3)
            let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("toast-cache").path))
            let view = Picker.hosting(library: library, loader: ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, thumbnailers: []), startPaused: true))
            let window = gtk_window_new()!
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            gtk_window_set_default_size(window.cast(), 800, 600)
            gtk_window_set_child(window.cast(), view.widget)
            try view.showAlbums()
            gtk_window_present(window.cast())
            let problem = "Tom & Jerry <1>.jpg was deleted"
            view.report(problem, printing: false)
            InProcessGTK.pump(seconds: 0.5)
            let shown = labels(under: view.toasts)
            XCTAssertTrue(shown.contains(problem), "\(shown)")
        }
    }
}

/// Ctrl+A in an album of more than 500 asks first (issue 41): a slip of the keys must not pick a
/// whole library, and the answer decides.
@MainActor
final class PickAllQuestionTests: XCTestCase, @unchecked Sendable {
    nonisolated override class func setUp() {
        MainActor.assumeIsolated {
            super.setUp()
            _ = InProcessGTK.start()
        }
    }

    nonisolated func testPickingAllOfALargeAlbumAsksFirst() throws {
        try MainActor.assumeIsolated {
            try InProcessGTK.require()
            let (library, _) = try SyntheticLibrary.make("pick-all", count: 600)
            let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("pick-all-cache").path))
            let view = Picker.hosting(library: library, loader: ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, thumbnailers: []), startPaused: true))
            let window = gtk_window_new()!
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            gtk_window_set_default_size(window.cast(), 800, 600)
            gtk_window_set_child(window.cast(), view.widget)
            try view.showAlbums()
            gtk_window_present(window.cast())
            InProcessGTK.pump(seconds: 0.5)
            let question = { () -> UnsafeMutablePointer<AdwMessageDialog>? in
                view.pickAllQuestion.map { $0.pointer.assumingMemoryBound(to: AdwMessageDialog.self) }
            }
            view.pickAll()
            InProcessGTK.pump(seconds: 0.3)
            let asked = try XCTUnwrap(question(), "a question before 600 are picked")
            XCTAssertEqual(String(cString: adw_message_dialog_get_heading(asked)), "Pick All 600?")
            XCTAssertEqual(view.selection.count, 0, "nothing picked while it asks")
            adw_message_dialog_response(asked, "cancel")
            InProcessGTK.pump(seconds: 0.3)
            XCTAssertEqual(view.selection.count, 0)
            XCTAssertNil(question())

            view.pickAll()
            InProcessGTK.pump(seconds: 0.3)
            adw_message_dialog_response(try XCTUnwrap(question()), "pick")
            InProcessGTK.pump(seconds: 0.3)
            XCTAssertEqual(view.selection.count, 600)
            XCTAssertEqual(view.selection.picked.first, view.model.assetID(at: 0), "in the album's order")
            XCTAssertEqual(view.selection.picked.last, view.model.assetID(at: 599))
            // The strip holds the first 200 and counts the rest: 600 items were 600 widgets.
            XCTAssertEqual(view.strip.shown.items, PickedStrip.shownAtMost)
            XCTAssertEqual(view.strip.shown.more, "+400")
            view.unpickAll()
            XCTAssertEqual(view.selection.count, 0)
        }
    }
}
