// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// Which album the picker opens on: a script's picker opens on Recents (or its --album), as
/// phones' pickers do; the app launched from the menu reopens the album of last time.
final class OpeningAlbumTests: WindowTestCase {
    override var copiesDemoLibrary: Bool { false }

    override func setUpWithError() throws {
        try super.setUpWithError()
        // Yesterday the person looked at Favorites.
        let state = dataHome.appendingPathComponent("state/photopick")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try "[picker]\nalbum=Favorites\n".write(to: state.appendingPathComponent("state.ini"), atomically: true, encoding: .utf8)
    }

    /// Opens the picker with `arguments`, picks the first photo and confirms.
    private func firstPick(_ arguments: [String]) throws -> [String] {
        let picker = try openPicker(arguments)
        try picker.keys("space", "ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        return lines
    }

    func testAScriptOpensOnRecentsDespiteTheRememberedAlbum() throws {
        let recents = try list("Recents"), favorites = try list("Favorites")
        XCTAssertNotEqual(recents[0], favorites[0], "the two albums start differently")
        XCTAssertEqual(try firstPick([]), [recents[0]])
    }

    /// The app copies its picks to the clipboard instead of printing them: read them there.
    func testTheAppFromTheMenuReopensTheRememberedAlbum() throws {
        let favorites = try list("Favorites")
        let app = try WindowProcess(display: display, arguments: ["--library", library.path, "--desktop"], dataHome: dataHome, cacheHome: cacheHome,
                                    title: "Photopick")
        defer { app.stop() }
        try app.keys("space", "ctrl+Return")
        usleep(400_000)
        let copied = try TestSupport.run("/usr/bin/xclip", ["-o", "-selection", "clipboard", "-t", "UTF8_STRING"], environment: ["DISPLAY": display.name], timeout: 10)
        XCTAssertEqual(String(decoding: copied.output, as: UTF8.self), favorites[0])
    }

    func testAScriptChoosesTheAlbumWithAnOption() throws {
        let videos = try list("Videos")
        XCTAssertEqual(try firstPick(["--album", "Videos"]), [videos[0]])
        let unknown = try TestSupport.run(TestSupport.photopick, ["--library", library.path, "--album", "No Such Album"],
                                          environment: ["XDG_DATA_HOME": dataHome.path, "DISPLAY": display.name])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.error.contains("no album named"), unknown.error)
    }
}
