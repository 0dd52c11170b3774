// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// One app per user for menu launches, on a session bus of the test's own: a second launch
/// presents the running window and exits; a script's picker still runs in its own process and
/// gives its own answer; and the desktop can start the app by D-Bus activation.
final class SingleInstanceTests: WindowTestCase {
    override var copiesDemoLibrary: Bool { false }

    /// Top-level windows of that title (xdotool matches without regard to case: a tooltip is
    /// named "photopick", after the program; it is no window).
    private func windowCount(_ title: String) throws -> Int {
        try display.xdotool(["search", "--onlyvisible", "--name", title]).split(separator: "\n").filter { window in
            let type = try? TestSupport.run("/usr/bin/xprop", ["-id", String(window), "_NET_WM_WINDOW_TYPE"], environment: ["DISPLAY": display.name], timeout: 10)
            return type.map { String(decoding: $0.output, as: UTF8.self).contains("_NET_WM_WINDOW_TYPE_NORMAL") } ?? false
        }.count
    }

    func testASecondLaunchPresentsTheRunningAppAndAScriptKeepsItsOwnProcess() throws {
        let bus = try PrivateSessionBus(environment: display.pickerEnvironment(dataHome: dataHome, cacheHome: cacheHome))
        defer { bus.stop() }
        let onBus = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let app = try WindowProcess(display: display, arguments: ["--desktop", "--library", library.path, "--no-camera"],
                                    dataHome: dataHome, cacheHome: cacheHome, environment: onBus, title: "Photopick")
        defer { app.stop() }
        // The second launch, as the menu would start it.
        let started = Date()
        let second = try TestSupport.run(TestSupport.photopick, ["--desktop", "--library", library.path, "--no-camera"],
                                         environment: display.pickerEnvironment(dataHome: dataHome, cacheHome: cacheHome, extra: onBus), timeout: 30)
        XCTAssertEqual(second.status, 0, second.error)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "it hands over and exits, without indexing or a window")
        usleep(500_000)
        XCTAssertEqual(try windowCount("^Photopick$"), 1, "still one window")
        XCTAssertTrue(app.isRunning)

        // A script's picker meanwhile: its own window and its own answer.
        let recents = try list()
        let script = try WindowProcess(display: display, arguments: ["--file-selection", "--library", library.path, "--no-camera", "--title", "Script Picker"],
                                       dataHome: dataHome, cacheHome: cacheHome, environment: onBus, title: "Script Picker")
        try script.keys("Return")
        let (status, lines) = script.finish()
        XCTAssertEqual(status, 0, script.errorText)
        XCTAssertEqual(lines, [recents[0]])
        XCTAssertTrue(app.isRunning, "the app is untouched by the script's picker")
    }

    /// The desktop starts the app through its bus name (the desktop file is DBusActivatable):
    /// the installed D-Bus service file starts the installed binary, which opens its window.
    func testTheDesktopStartsTheAppByDBusActivation() throws {
        for tool in ["/usr/bin/meson", "/usr/bin/gdbus"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return XCTFail("\(tool) is missing: run scripts/bootstrap")
        }
        let work = TestSupport.temporaryDirectory("activation")
        let prefix = work.appendingPathComponent("prefix")
        for arguments in [["setup", work.appendingPathComponent("build").path, TestSupport.packageRoot.path, "--prefix", prefix.path, "-Dprebuilt=\(TestSupport.photopick)"],
                          ["install", "-C", work.appendingPathComponent("build").path]] {
            let result = try TestSupport.run("/usr/bin/meson", arguments, timeout: 120)
            XCTAssertEqual(result.status, 0, result.error)
        }
        // The activated app finds its library as a person's would: Pictures in its home.
        let home = work.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: library, to: home.appendingPathComponent("Pictures"))
        var environment = display.pickerEnvironment(dataHome: dataHome, cacheHome: cacheHome)
        environment["HOME"] = home.path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent(".config").path
        let bus = try PrivateSessionBus(serviceFolder: prefix.appendingPathComponent("share/dbus-1/services"), environment: environment)
        defer { bus.stop() }
        let call = try TestSupport.run("/usr/bin/gdbus", ["call", "--session", "--dest", "io.github.photopick.Photopick",
                                                           "--object-path", "/io/github/photopick/Photopick",
                                                           "--method", "org.freedesktop.Application.Activate", "{}"],
                                       environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], timeout: 30)
        XCTAssertEqual(call.status, 0, call.error)
        let found = try display.xdotool(["search", "--sync", "--onlyvisible", "--name", "Photopick"])
        XCTAssertFalse(found.isEmpty, "the activated app shows its window")
    }
}
