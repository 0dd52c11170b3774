// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// With its GSettings schema installed (as meson installs it), the picker keeps its state there,
/// not in the key file a run from a checkout uses; an unset key keeps the default.
final class SettingsTests: WindowTestCase {
    override var copiesDemoLibrary: Bool { false }

    func testWithTheSchemaInstalledTheStateGoesToGSettings() throws {
        let schemas = TestSupport.temporaryDirectory("schemas")
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("data/io.github.photopick.Photopick.gschema.xml"),
                                         to: schemas.appendingPathComponent("io.github.photopick.Photopick.gschema.xml"))
        let compiled = try TestSupport.run("/usr/bin/glib-compile-schemas", ["--strict", schemas.path])
        XCTAssertEqual(compiled.status, 0, compiled.error)
        let config = TestSupport.temporaryDirectory("settings-config")
        // GLib's key-file backend: what the dconf backend would store, in a file of this test.
        let environment = ["GSETTINGS_SCHEMA_DIR": schemas.path, "GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": config.path]
        func gsettings(_ key: String) throws -> String {
            let result = try TestSupport.run("/usr/bin/gsettings", ["get", "io.github.photopick.Photopick", key], environment: environment)
            XCTAssertEqual(result.status, 0, result.error)
            return String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        XCTAssertEqual(try gsettings("cell-size"), "120", "the default before any run")

        let app = try WindowProcess(display: display, arguments: ["--desktop", "--library", library.path, "--no-camera", "--album", "Favorites"],
                                    dataHome: dataHome, cacheHome: cacheHome, environment: environment, title: "Photopick")
        try app.keys("ctrl+plus", "ctrl+q")  // (Escape does not close the app from the menu)
        XCTAssertEqual(app.finish().status, 1)
        XCTAssertEqual(try gsettings("cell-size"), "160", "one step larger")
        XCTAssertEqual(try gsettings("album"), "'Favorites'")
        XCTAssertEqual(try gsettings("window-width"), "960")
        XCTAssertEqual(try gsettings("window-maximized"), "false")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataHome.appendingPathComponent("state/photopick/state.ini").path),
                       "no key file beside the settings")

        // The next run starts from the settings: one step smaller is back at the default.
        let again = try WindowProcess(display: display, arguments: ["--library", library.path, "--no-camera"],
                                      dataHome: dataHome, cacheHome: cacheHome, environment: environment)
        try again.keys("ctrl+minus", "Escape")
        XCTAssertEqual(again.finish().status, 1)
        XCTAssertEqual(try gsettings("cell-size"), "120")
        XCTAssertEqual(try gsettings("album"), "'Favorites'", "a script's picker leaves the app's album alone")
    }
}
