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
