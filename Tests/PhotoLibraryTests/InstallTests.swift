// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
import PhotoLibrary

/// `meson setup` and `meson install` into a temporary prefix, as a distribution package would:
/// each file lands where the desktop looks for it, and the installed program runs.
final class InstallTests: XCTestCase {
    func testMesonInstallsEveryFileWhereTheDesktopLooks() throws {
        for tool in ["/usr/bin/meson", "/usr/bin/ninja"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return XCTFail("\(tool) is missing: run scripts/bootstrap")
        }
        let work = TestSupport.temporaryDirectory("meson")
        let build = work.appendingPathComponent("build"), prefix = work.appendingPathComponent("prefix")
        // The binary this test run built (SwiftPM's lock is held while tests run: meson cannot
        // start another SwiftPM build here); `meson setup` without -Dprebuilt builds it.
        let setup = try TestSupport.run("/usr/bin/meson", ["setup", build.path, TestSupport.packageRoot.path, "--prefix", prefix.path,
                                                           "-Dprebuilt=\(TestSupport.photopick)"], timeout: 120)
        XCTAssertEqual(setup.status, 0, String(decoding: setup.output, as: UTF8.self) + setup.error)
        let install = try TestSupport.run("/usr/bin/meson", ["install", "-C", build.path], timeout: 120)
        XCTAssertEqual(install.status, 0, String(decoding: install.output, as: UTF8.self) + install.error)

        let appID = "io.github.photopick.Photopick"
        let share = prefix.appendingPathComponent("share")
        let expected = [
            "bin/photopick",
            "libexec/photopick-worker",
            "share/applications/\(appID).desktop",
            "share/metainfo/\(appID).metainfo.xml",
            "share/icons/hicolor/scalable/apps/\(appID).svg",
            "share/icons/hicolor/symbolic/apps/\(appID)-symbolic.svg",
            "share/man/man1/photopick.1",
            "share/dbus-1/services/\(appID).service",
            // The portal backend (`photopick portal`).
            "share/xdg-desktop-portal/portals/photopick.portal",
            "share/dbus-1/services/org.freedesktop.impl.portal.desktop.photopick.service",
            "lib/systemd/user/photopick-portal.service",
            "share/glib-2.0/schemas/\(appID).gschema.xml",
            // gnome.post_install compiles the prefix's schemas.
            "share/glib-2.0/schemas/gschemas.compiled",
        ]
        for file in expected {
            XCTAssertTrue(FileManager.default.fileExists(atPath: prefix.appendingPathComponent(file).path), "\(file) is installed")
        }
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("bin/photopick").path))
        // The installed photopick finds its worker program in the prefix's libexec.
        let worker = try TestSupport.run(prefix.appendingPathComponent("libexec/photopick-worker").path, [])
        XCTAssertEqual(worker.status, 2)
        XCTAssertEqual(worker.error, "photopick-worker: a child of photopick, not a program to run by hand\n")
        XCTAssertEqual(WorkerProcess.workerExecutable(besidePhotopick: prefix.appendingPathComponent("bin/photopick").path),
                       prefix.appendingPathComponent("libexec/photopick-worker").path)
        // gnome.post_install: the icon cache and the desktop database of the prefix.
        XCTAssertTrue(FileManager.default.fileExists(atPath: share.appendingPathComponent("icons/hicolor/icon-theme.cache").path))

        // D-Bus activation starts the installed binary.
        let service = try String(contentsOf: share.appendingPathComponent("dbus-1/services/\(appID).service"), encoding: .utf8)
        XCTAssertTrue(service.contains("Name=\(appID)\n"), service)
        XCTAssertTrue(service.contains("Exec=\(prefix.appendingPathComponent("bin/photopick").path) --desktop --gapplication-service"), service)
        let portal = try String(contentsOf: share.appendingPathComponent("dbus-1/services/org.freedesktop.impl.portal.desktop.photopick.service"), encoding: .utf8)
        XCTAssertTrue(portal.contains("Exec=\(prefix.appendingPathComponent("bin/photopick").path) portal serve\n"), portal)

        // GIO finds the app, its icon name and the command it runs, through XDG_DATA_DIRS.
        let environment = ["XDG_DATA_DIRS": share.path, "PATH": prefix.appendingPathComponent("bin").path + ":/usr/bin:/bin"]
        let gio = try TestSupport.run("/usr/bin/python3", ["-c", """
            import gi
            gi.require_version("Gio", "2.0")
            from gi.repository import Gio
            app = Gio.DesktopAppInfo.new("\(appID).desktop")
            print(app.get_executable(), app.get_commandline(), app.get_icon().to_string(), sep="\\n")
            """], environment: environment)
        XCTAssertEqual(gio.status, 0, gio.error)
        XCTAssertEqual(String(decoding: gio.output, as: UTF8.self).split(separator: "\n"), ["photopick", "photopick --desktop", Substring(appID)])
        // man finds the page in the prefix.
        let man = try TestSupport.run("/usr/bin/man", ["-M", share.appendingPathComponent("man").path, "-w", "photopick"])
        XCTAssertEqual(String(decoding: man.output, as: UTF8.self), share.appendingPathComponent("man/man1/photopick.1").path + "\n", man.error)

        // The installed program runs: its version, and a command on the demo library.
        let version = try TestSupport.run(prefix.appendingPathComponent("bin/photopick").path, ["--version"])
        XCTAssertEqual(version.output, try TestSupport.run(TestSupport.photopick, ["--version"]).output)
        XCTAssertTrue(String(decoding: version.output, as: UTF8.self).hasPrefix("photopick "))
        let data = TestSupport.temporaryDirectory("meson-data")
        let albums = try TestSupport.run(prefix.appendingPathComponent("bin/photopick").path,
                                         ["albums", "--library", TestSupport.packageRoot.appendingPathComponent("data/demo-library").path],
                                         environment: ["XDG_DATA_HOME": data.path])
        XCTAssertEqual(albums.status, 0, albums.error)
        XCTAssertTrue(String(decoding: albums.output, as: UTF8.self).contains("Recents"))
    }
}
