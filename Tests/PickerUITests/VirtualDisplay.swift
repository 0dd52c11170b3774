// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// An Xvfb server for driving the real window as a person would, with xdotool. It ends with the
/// test that made it (or, made outside a test, with the test process), and dies with the process
/// even when that crashes: see `TestProcesses`.
final class VirtualDisplay {
    let name: String
    private let server: Process

    init() throws {
        // -displayfd: Xvfb picks a free display itself and writes its number once it accepts
        // connections, so no guessing and no polling for the socket.
        let ready = Pipe()
        server = TestProcesses.process("/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "1100x800x24", "-nolisten", "tcp"])
        server.standardOutput = ready
        server.standardError = FileHandle.nullDevice
        try server.run()
        guard let number = Self.readLine(ready.fileHandleForReading, timeout: 10).flatMap(Int.init) else {
            TestProcesses.stop(server)
            throw NSError(domain: "VirtualDisplay", code: 1, userInfo: [NSLocalizedDescriptionKey: "Xvfb did not start"])
        }
        name = ":\(number)"
        // A server killed outright leaves its lock file and socket behind: remove them then.
        TestProcesses.adopt(server) { killedHard in
            guard killedHard else { return }
            unlink("/tmp/.X\(number)-lock")
            unlink("/tmp/.X11-unix/X\(number)")
        }
    }

    deinit {
        TestProcesses.stop(server)
    }

    /// The first line a child writes to a pipe, waiting at most `timeout` seconds.
    private static func readLine(_ handle: FileHandle, timeout: TimeInterval) -> String? {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var poller = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let polled = poll(&poller, 1, 100)
            if polled < 0 && errno == EINTR { continue }
            guard polled >= 0 else { return nil }
            guard poller.revents != 0 else { continue }
            var byte: UInt8 = 0
            guard read(handle.fileDescriptor, &byte, 1) == 1 else { return nil }  // end of file: it exited
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }

    /// The environment `photopick` runs in on this display: its own data, cache and state
    /// folders (a remembered thumbnail size or album from another run must not move the cells),
    /// the cairo renderer, UTC, and settings in memory (GTK's file chooser saves them through
    /// dconf, which needs a session bus).
    func pickerEnvironment(dataHome: URL, cacheHome: URL, extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = name
        environment["GSK_RENDERER"] = "cairo"
        environment["XDG_DATA_HOME"] = dataHome.path
        environment["XDG_CACHE_HOME"] = cacheHome.path
        environment["XDG_STATE_HOME"] = dataHome.appendingPathComponent("state").path
        environment["TZ"] = "UTC"
        environment["GSETTINGS_BACKEND"] = "memory"
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        // The in-process tests' "no bus" is theirs: a picker needs one (GtkApplication).
        if environment["DBUS_SESSION_BUS_ADDRESS"] == InProcessGTK.noBus { environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS") }
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    /// Whether a popover (or menu) is showing: GTK draws one on X11 as a mapped override-redirect
    /// window, taller than a tooltip.
    func popoverIsShowing() throws -> Bool {
        let windows = try xdotool(["search", "--onlyvisible", "--class", ""]).split(separator: "\n")
        for window in windows {
            let info = try TestSupport.run("/usr/bin/xwininfo", ["-id", String(window)], environment: ["DISPLAY": name], timeout: 10)
            let text = String(decoding: info.output, as: UTF8.self)
            guard text.contains("Override Redirect State: yes"), text.contains("Map State: IsViewable"),
                  let line = text.split(separator: "\n").first(where: { $0.contains("Height:") }),
                  let height = Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "")
            else { continue }
            if height > 100 { return true }
        }
        return false
    }

    /// Waits until a popover shows (or is gone): a loaded machine may take a second, and a key
    /// pressed before then goes to the wrong place. Fails the test after `timeout`.
    func waitForPopover(showing: Bool, timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try popoverIsShowing() == showing { return }
            usleep(100_000)
        }
        XCTFail(showing ? "no popover showed" : "the popover stayed open", file: file, line: line)
    }

    /// Waits until nothing on the screen changes for a fifth of a second (a search's list
    /// filtered, a popover laid out), as a person looks before clicking: a loaded machine may
    /// take a second to filter, and a click before then lands on another row. At most `timeout`.
    func waitUntilStill(timeout: TimeInterval = 5) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var last: Data?
        while Date() < deadline {
            let shot = try TestSupport.run("/usr/bin/import", ["-window", "root", "rgb:-"], environment: ["DISPLAY": name], timeout: 10).output
            if let last, last == shot { return }
            last = shot
            usleep(200_000)
        }
    }

    /// Clicks at a point as a hand does: the pointer arrives there (a motion event even when it
    /// was already there: after a popover closes under a resting pointer, GTK learns where the
    /// pointer is from motion), then presses.
    func click(x: Int, y: Int) throws {
        try xdotool(["mousemove", String(x + 3), String(y + 3), "sleep", "0.05", "mousemove", String(x), String(y), "sleep", "0.05", "click", "1"])
    }

    /// Runs xdotool on this display.
    @discardableResult
    func xdotool(_ arguments: [String]) throws -> String {
        let result = try TestSupport.run("/usr/bin/xdotool", arguments, environment: ["DISPLAY": name], timeout: 30)
        return String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// `photopick` running on a virtual display, its output collected. Like the display, it never
/// outlives the test that started it.
final class RunningPicker {
    let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    let display: VirtualDisplay

    init(display: VirtualDisplay, arguments: [String], dataHome: URL, cacheHome: URL, environment: [String: String] = [:]) throws {
        self.display = display
        TestProcesses.wrap(process, TestSupport.photopick, arguments)
        process.environment = display.pickerEnvironment(dataHome: dataHome, cacheHome: cacheHome, extra: environment)
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        TestProcesses.adopt(process)
        // Wait for the window, then give it the keyboard (no window manager runs here).
        let window = try display.xdotool(["search", "--sync", "--name", "Pick Photos"]).split(separator: "\n").first.map(String.init) ?? ""
        usleep(600_000)
        try display.xdotool(["windowfocus", "--sync", window])
    }

    /// Clicks at a point of the window (which sits at the top left: no window manager runs).
    func click(x: Int, y: Int) throws {
        try display.click(x: x, y: y)
        usleep(150_000)
    }

    /// Drags with the mouse from one point to another, in small steps as a hand would.
    func drag(from start: (x: Int, y: Int), to end: (x: Int, y: Int)) throws {
        try display.drag(from: start, to: end)
    }

    func keys(_ keys: String...) throws {
        for key in keys {
            try display.xdotool(["key", key])
            usleep(80_000)
        }
    }

    /// Waits for the process to end: (status, lines of standard output).
    func finish(timeout: TimeInterval = 20) -> (status: Int32, lines: [String]) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        TestProcesses.stop(process)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, text.split(separator: "\n").map(String.init))
    }

    /// What it wrote to standard error (once it has ended: `finish()`).
    var errorText: String { String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }

    deinit {
        TestProcesses.stop(process)
    }
}

/// The servers and pickers the window tests start, which must never outlive the tests:
/// - each runs under `setpriv --pdeathsig KILL`, so the kernel kills it when the test process dies,
///   even by a crash or SIGKILL (the signal follows the thread that started it: the tests start
///   them on the main thread, which lives as long as the process);
/// - one started during a test is stopped when that test finishes (an observer of the test run),
///   since XCTest keeps every test case object, and so its properties, until the process exits;
/// - one started outside a test (a class's setUp) and anything left is stopped by an atexit handler.
enum TestProcesses {
    private final class Entry {
        let process: Process
        let cleanup: (_ killedHard: Bool) -> Void
        /// Started during a test (stopped when it finishes) or outside one (stopped at exit).
        var duringTest: Bool?
        init(_ process: Process, _ cleanup: @escaping (Bool) -> Void) { self.process = process; self.cleanup = cleanup }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var entries: [ObjectIdentifier: Entry] = [:]

    private static let installed: Void = {
        XCTestObservationCenter.shared.addTestObserver(Observer())
        atexit { TestProcesses.stopAll() }
    }()

    /// A process that runs `executable` under a parent-death signal.
    static func process(_ executable: String, _ arguments: [String]) -> Process {
        let process = Process()
        wrap(process, executable, arguments)
        return process
    }

    static func wrap(_ process: Process, _ executable: String, _ arguments: [String]) {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--pdeathsig", "KILL", "--", executable] + arguments
    }

    /// Tracks a started process until it is stopped.
    static func adopt(_ process: Process, cleanup: @escaping (_ killedHard: Bool) -> Void = { _ in }) {
        _ = installed
        lock.withLock { entries[ObjectIdentifier(process)] = Entry(process, cleanup) }
    }

    /// Ends a process: SIGTERM, then SIGKILL if it is still there after `grace` seconds. Idempotent.
    static func stop(_ process: Process, grace: TimeInterval = 3) {
        let entry = lock.withLock { entries.removeValue(forKey: ObjectIdentifier(process)) }
        guard process.processIdentifier > 0 else { return }
        var killedHard = false
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(grace)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killedHard = true
                process.waitUntilExit()
            }
        }
        entry?.cleanup(killedHard)
    }

    private static func stopAll() {
        let all = lock.withLock { Array(entries.values) }
        for entry in all { stop(entry.process, grace: 1) }
    }

    /// Processes started outside a test are known as such when the next test starts; those started
    /// in a test are stopped when it finishes.
    private final class Observer: NSObject, XCTestObservation {
        func testCaseWillStart(_ testCase: XCTestCase) {
            TestProcesses.lock.withLock { for entry in TestProcesses.entries.values where entry.duringTest == nil { entry.duringTest = false } }
        }

        func testCaseDidFinish(_ testCase: XCTestCase) {
            let ending = TestProcesses.lock.withLock { TestProcesses.entries.values.filter { $0.duringTest != false } }
            for entry in ending { TestProcesses.stop(entry.process) }
        }
    }
}

extension VirtualDisplay {
    /// Drags with the mouse from one point to another, in small steps as a hand would.
    func drag(from start: (x: Int, y: Int), to end: (x: Int, y: Int)) throws {
        try xdotool(["mousemove", String(start.x), String(start.y), "mousedown", "1"])
        usleep(200_000)
        for step in 1...8 {
            let x = start.x + (end.x - start.x) * step / 8, y = start.y + (end.y - start.y) * step / 8
            try xdotool(["mousemove", String(x), String(y)])
            usleep(50_000)
        }
        usleep(200_000)
        try xdotool(["mouseup", "1"])
        usleep(400_000)
    }
}
