import Foundation
import TestSupport
import XCTest

/// Which album the picker opens on: a script's picker opens on Recents (or its --album), as
/// phones' pickers do; the app launched from the menu reopens the album of last time.
final class OpeningAlbumTests: XCTestCase {
    private var display: VirtualDisplay!
    private var library: URL!
    private var dataHome: URL!
    private var cacheHome: URL!

    override func setUpWithError() throws {
        for tool in ["/usr/bin/Xvfb", "/usr/bin/xdotool"] where !FileManager.default.isExecutableFile(atPath: tool) {
            XCTFail("\(tool) is missing: run scripts/bootstrap")
            throw XCTSkip("no \(tool)")
        }
        display = try VirtualDisplay()
        library = TestSupport.packageRoot.appendingPathComponent("data/demo-library")
        dataHome = TestSupport.temporaryDirectory("album-data")
        cacheHome = TestSupport.temporaryDirectory("album-cache")
        // Yesterday the person looked at Favorites.
        let state = dataHome.appendingPathComponent("state/photopick")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try "[picker]\nalbum=Favorites\n".write(to: state.appendingPathComponent("state.ini"), atomically: true, encoding: .utf8)
    }

    private func list(_ album: String) throws -> [String] {
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--album", album, "--library", library.path],
                                         environment: ["XDG_DATA_HOME": dataHome.path])
        XCTAssertEqual(result.status, 0, result.error)
        return String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Opens the picker with `arguments`, picks the first photo and confirms.
    private func firstPick(_ arguments: [String]) throws -> [String] {
        let picker = try RunningPicker(display: display, arguments: ["--library", library.path] + arguments,
                                       dataHome: dataHome, cacheHome: cacheHome)
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

    func testTheAppFromTheMenuReopensTheRememberedAlbum() throws {
        let favorites = try list("Favorites")
        XCTAssertEqual(try firstPick(["--desktop"]), [favorites[0]])
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
