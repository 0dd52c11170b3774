// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import Foundation
import GObjectSupport
import PhotoLibrary
import PickerModel
import TestSupport
import Thumbnails
import XCTest
@_spi(Testing) @testable import PickerUI

/// The window in Russian and in Korean, as a person with that desktop language sees it: the
/// buttons, the album's name, a date with the month in the language's words, counts that follow
/// its plural rule and its digit grouping; and the installed program finds its catalogues.
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class LocalizedWindowTests: XCTestCase, @unchecked Sendable {
    private struct Language {
        let code: String
        let locale: String
        let cancel: String
        let add: String
        let recents: String
        /// The date a person of this language writes for a photo taken that day.
        let date: (_ year: Int, _ month: Int, _ day: Int) -> String
    }

    private static let russianMonths = ["января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа",
                                        "сентября", "октября", "ноября", "декабря"]
    private let languages = [
        Language(code: "ru", locale: "ru_RU.UTF-8", cancel: "Отмена", add: "Добавить", recents: "Недавние",
                 date: { year, month, day in "\(day) \(LocalizedWindowTests.russianMonths[month - 1]) \(year)" }),
        Language(code: "ko", locale: "ko_KR.UTF-8", cancel: "취소", add: "추가", recents: "최근 항목",
                 date: { year, month, day in "\(year)년 \(month)월 \(day)일" }),
    ]

    private var folders: [URL] = []
    private var window: UnsafeMutablePointer<GtkWidget>?

    nonisolated override func setUpWithError() throws {
        try MainActor.assumeIsolated {
            for tool in ["/usr/bin/msgfmt", "/usr/bin/locale"] where !FileManager.default.isExecutableFile(atPath: tool) {
                XCTFail("\(tool) is missing: run scripts/bootstrap")
                throw XCTSkip("no \(tool)")
            }
            // The C library's own data for the languages (month names, digit grouping).
            let available = String(decoding: try TestSupport.run("/usr/bin/locale", ["-a"]).output, as: UTF8.self).lowercased()
            for language in languages where !available.contains(language.locale.lowercased().replacingOccurrences(of: "-", with: "")) {
                XCTFail("the \(language.locale) locale is not generated: run scripts/bootstrap")
                throw XCTSkip("no \(language.locale)")
            }
        }
    }

    nonisolated override func tearDown() {
        MainActor.assumeIsolated {
            if let window { gtk_window_destroy(window.cast()) }
            window = nil
            folders.forEach { try? FileManager.default.removeItem(at: $0) }
            super.tearDown()
        }
    }

    /// A window on the demo library (read only: the index and thumbnails go to the test's folders).
    private func openPicker() throws -> (view: Picker, library: PhotoLibrary) {
        let index = TestSupport.temporaryDirectory("localized-index")
        let thumbnails = TestSupport.temporaryDirectory("localized-thumbnails")
        folders += [index, thumbnails]
        let library = try PhotoLibrary(roots: [FilePath(TestSupport.packageRoot.appendingPathComponent("data/demo-library").path)],
                                       location: IndexLocation(databasePath: index.appendingPathComponent("index.sqlite").path))
        try library.scan()
        let view = Picker.hosting(library: library, loader: ThumbnailLoader(thumbnailer: Thumbnailer(cache: ThumbnailCache(root: FilePath(thumbnails.path)), thumbnailers: [])),
                              camera: nil)
        let window = gtk_window_new()!
        gtk_window_set_default_size(window.cast(), 960, 720)
        // (The header's widgets as a host packs them: photopick_picker_get_header_widgets.)
        let header = gtk_header_bar_new()!, parts = view.headerWidgets
        gtk_header_bar_set_title_widget(header.opaque, parts.title)
        gtk_header_bar_pack_start(header.opaque, parts.start)
        gtk_header_bar_pack_end(header.opaque, parts.end)
        gtk_window_set_titlebar(window.cast(), header)
        gtk_window_set_child(window.cast(), view.widget)
        try view.showAlbums()
        gtk_window_present(window.cast())
        InProcessGTK.pump(seconds: 0.3)
        self.window = window
        return (view, library)
    }

    private func label(_ button: UnsafeMutablePointer<GtkWidget>) -> String {
        gtk_button_get_label(button.cast()).map { String(cString: $0) } ?? ""
    }

    nonisolated func testTheWindowSpeaksRussianAndKorean() throws {
        try MainActor.assumeIsolated {
            try InProcessGTK.require()
            let catalogues = TestSupport.temporaryDirectory("localized-catalogues")
            folders.append(catalogues)
            for language in languages { try Catalogue(language: language.code).compile(into: catalogues) }
            Localization.bind(localeDirectory: catalogues.path)
            let saved = String(cString: setlocale(LC_ALL, nil))
            defer {
                setlocale(LC_ALL, saved)
                unsetenv("LANGUAGE")
            }
            for language in languages {
                // As a session in that language starts a program.
                setenv("LANGUAGE", language.code, 1)
                XCTAssertNotNil(setlocale(LC_ALL, language.locale))
                let (view, library) = try openPicker()
                XCTAssertEqual(label(view.cancelButton), language.cancel)
                XCTAssertEqual(label(view.confirmButton), language.add)
                XCTAssertEqual(view.switcher.buttonText, language.recents, "the album's name")

                // A pick: the count joins the button's words.
                view.toggle(at: 0)
                XCTAssertEqual(label(view.confirmButton), "\(language.add) 1")

                // The date of the photo in the preview, in the language's words and order.
                let id = try XCTUnwrap(view.model.assetID(at: 0))
                let parts = try XCTUnwrap(library.asset(id: id)).captureDate.iso8601.prefix(10).split(separator: "-").compactMap { Int($0) }
                view.openPreview(at: 0)
                let caption = view.preview.captionText
                XCTAssertTrue(caption.contains(language.date(parts[0], parts[1], parts[2])), "\(language.code): “\(caption)”")
                // The file's name, first: IMG_1234 can be found, and two shots of a moment told apart (issue 19, defect 8).
                let name = String(decoding: try XCTUnwrap(library.asset(id: id)).path.lastComponent, as: UTF8.self)
                XCTAssertTrue(caption.hasPrefix(name + ", "), "\(language.code): “\(caption)”")
                let cell = try XCTUnwrap(view.cells.compactMap(\.cell).first { $0.assetID == id })
                XCTAssertTrue(cell.accessibleText.hasPrefix(name + ", "), "the tooltip and the screen reader: “\(cell.accessibleText)”")
                view.closePreview()

                // Counts take the language's plural forms (Russian: 21 / 2 / 5 take three).
                let catalogue = try Catalogue(language: language.code)
                let forms = try XCTUnwrap(catalogue.entries.first { $0.message == "{count} newer photo" }).translations
                for (count, form) in zip([21, 2, 5], language.code == "ru" ? [0, 1, 2] : [0, 0, 0]) {
                    view.announceNewer(count)
                    XCTAssertEqual(view.newerPhotosText, forms[form].replacingOccurrences(of: "{count}", with: String(count)))
                }
                // Digits grouped as the language groups them.
                let grouped = Localization.number(60_000)
                if language.code == "ru" {
                    XCTAssertTrue(["60 000", "60\u{A0}000", "60\u{202F}000"].contains(grouped), grouped)
                } else {
                    XCTAssertEqual(grouped, "60,000")
                }
                // A narrow window (360 px): the album's name reads whole, the title over it gives
                // way ("Недавн…" at first: issue 19, defect 16).
                view.title = i18n("Pick Photos")
                gtk_window_set_default_size(window!.cast(), 360, 600)
                InProcessGTK.pump(seconds: 0.4)
                XCTAssertLessThan(gtk_widget_get_width(window!), 500, "narrow (its minimum: the header's words)")
                XCTAssertFalse(view.switcher.albumNameIsShortened, "\(language.code): “\(view.switcher.buttonText)” whole at 360 px")
                gtk_window_destroy(window!.cast())
                window = nil
                InProcessGTK.pump(seconds: 0.1)
            }
        }
        // Back in the test run's own language.
        MainActor.assumeIsolated {
            XCTAssertEqual(i18n("Cancel"), "Cancel")
        }
    }

    /// `meson install`, then the installed program in a Russian session: its window title, its
    /// --help and its errors are Russian, so it found the catalogue installed beside it.
    nonisolated func testTheInstalledProgramFindsItsCatalogues() throws {
        try MainActor.assumeIsolated {
            for tool in ["/usr/bin/meson", "/usr/bin/ninja", "/usr/bin/Xvfb", "/usr/bin/xdotool"] where !FileManager.default.isExecutableFile(atPath: tool) {
                XCTFail("\(tool) is missing: run scripts/bootstrap")
                return
            }
            let work = TestSupport.temporaryDirectory("localized-install")
            folders.append(work)
            let build = work.appendingPathComponent("build"), prefix = work.appendingPathComponent("prefix")
            let setup = try TestSupport.run("/usr/bin/meson", ["setup", build.path, TestSupport.packageRoot.path, "--prefix", prefix.path,
                                                               "-Dprebuilt=\(TestSupport.photopick)"], timeout: 120)
            XCTAssertEqual(setup.status, 0, setup.error)
            let install = try TestSupport.run("/usr/bin/meson", ["install", "-C", build.path], timeout: 120)
            XCTAssertEqual(install.status, 0, String(decoding: install.output, as: UTF8.self) + install.error)
            for language in languages {
                let catalogue = prefix.appendingPathComponent("share/locale/\(language.code)/LC_MESSAGES/photopick.mo")
                XCTAssertTrue(FileManager.default.fileExists(atPath: catalogue.path), "\(language.code) catalogue installed")
            }
            // The app menu's name and comment are translated too.
            let desktop = try String(contentsOf: prefix.appendingPathComponent("share/applications/io.github.photopick.Photopick.desktop"), encoding: .utf8)
            let russian = try Catalogue(language: "ru")
            let comment = try XCTUnwrap(russian.translation(of: "Browse your photos and videos and pick some"))
            XCTAssertTrue(desktop.contains("Comment[ru]=\(comment)\n"), desktop)
            XCTAssertTrue(desktop.contains("Comment=Browse your photos and videos and pick some\n"), desktop)

            // The command line too: --help (GLib's, through the domain) and an error.
            let installed = prefix.appendingPathComponent("bin/photopick").path
            let russianSession = ["LANG": "ru_RU.UTF-8", "LANGUAGE": "ru", "LC_ALL": ""]
            let help = try TestSupport.run(installed, ["--help"], environment: russianSession)
            let helpText = String(decoding: help.output, as: UTF8.self)
            for message in ["Usage:", "Allow at most N picks", "List albums with their counts"] {
                let translated = try XCTUnwrap(russian.translation(of: message))
                XCTAssertTrue(helpText.contains(translated), "--help says “\(translated)”:\n\(helpText)")
            }
            let bad = try TestSupport.run(installed, ["ls", "--limit=-1"], environment: russianSession)
            XCTAssertEqual(bad.status, 2)
            XCTAssertEqual(bad.error, "photopick: " + (try XCTUnwrap(russian.translation(of: "--limit must be 0 or more"))) + "\n")

            let title = try XCTUnwrap(russian.translation(of: "Pick Photos"))
            XCTAssertNotEqual(title, "Pick Photos")
            let display = try VirtualDisplay()
            let data = TestSupport.temporaryDirectory("localized-data"), cache = TestSupport.temporaryDirectory("localized-cache")
            folders += [data, cache]
            let app = try WindowProcess(display: display, executable: prefix.appendingPathComponent("bin/photopick").path,
                                        arguments: ["--no-camera", "--library", TestSupport.packageRoot.appendingPathComponent("data/demo-library").path],
                                        dataHome: data, cacheHome: cache,
                                        environment: russianSession, title: title)
            XCTAssertFalse(app.windowID.isEmpty, "a window titled “\(title)”")
            try app.keys("Escape")
            XCTAssertEqual(app.finish().status, 1, "cancelled")
        }
    }
}
