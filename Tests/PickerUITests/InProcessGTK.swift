// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import Foundation
import XCTest

/// GTK inside the test process, for the in-process widget tests. GTK stays connected to the first
/// display it opens, so every test class of the run shares one virtual display (stopped at exit).
/// Call `start()` from a class `setUp`: a display started inside a test stops when the test ends.
enum InProcessGTK {
    nonisolated(unsafe) private static var display: VirtualDisplay?
    nonisolated(unsafe) private static var started: Bool?

    /// Starts the display and GTK once; whether GTK runs.
    /// The bus address that stops GIO from autolaunching one.
    static let noBus = "disabled:"

    static func start() -> Bool {
        if let started { return started }
        if gdk_display_get_default() == nil, let server = try? VirtualDisplay() {
            display = server
            setenv("DISPLAY", server.name, 1)
            setenv("GSK_RENDERER", "cairo", 1)
            unsetenv("WAYLAND_DISPLAY")
        }
        // No session bus for GTK in this process: without an address GIO autolaunches a
        // dbus-launch through X, which outlives the test run. (libadwaita then keeps to its own
        // defaults; the pickers the window tests start get their environment without this, see
        // `VirtualDisplay.pickerEnvironment`.)
        if getenv("DBUS_SESSION_BUS_ADDRESS") == nil { setenv("DBUS_SESSION_BUS_ADDRESS", InProcessGTK.noBus, 1) }
        let running = gtk_init_check() != 0
        // (As the program does: its window is an AdwApplication's.)
        if running { adw_init() }
        // (As the program does: the widget's shell and its implementation are linked in, and the
        // tests make their pickers through photopick_picker_new, Picker.hosting.)
        if running { photopick_shell_attach_linked() }
        started = running
        return running
    }

    /// Fails the test when GTK could not start: Xvfb comes with the bootstrap, so no display is a
    /// broken setup, not a reason to skip.
    static func require(file: StaticString = #filePath, line: UInt = #line) throws {
        guard start() else {
            XCTFail("GTK could not start on a virtual display (is Xvfb installed? run scripts/bootstrap)", file: file, line: line)
            throw XCTSkip("no display")
        }
    }

    /// Runs the GLib main loop for a while (layout, frames, posted results).
    static func pump(seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            while g_main_context_iteration(nil, 0) != 0 {}
            usleep(2000)
        }
    }
}
