import Foundation
import TestSupport
import XCTest

/// An Xvfb server for driving the real window as a person would, with xdotool.
final class VirtualDisplay {
    let name: String
    private let server: Process

    init() throws {
        var number = 90 + Int(getpid() % 50)
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") { number += 1 }
        name = ":\(number)"
        server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        server.arguments = [name, "-screen", "0", "1100x800x24", "-nolisten", "tcp"]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") && Date() < deadline { usleep(20_000) }
    }

    deinit {
        server.terminate()
        server.waitUntilExit()
    }

    /// Runs xdotool on this display.
    @discardableResult
    func xdotool(_ arguments: [String]) throws -> String {
        let result = try TestSupport.run("/usr/bin/xdotool", arguments, environment: ["DISPLAY": name], timeout: 30)
        return String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// `photopick` running on a virtual display, its output collected.
final class RunningPicker {
    let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    let display: VirtualDisplay

    init(display: VirtualDisplay, arguments: [String], dataHome: URL, cacheHome: URL) throws {
        self.display = display
        process.executableURL = URL(fileURLWithPath: TestSupport.photopick)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display.name
        environment["GSK_RENDERER"] = "cairo"
        environment["XDG_DATA_HOME"] = dataHome.path
        environment["XDG_CACHE_HOME"] = cacheHome.path
        // A remembered thumbnail size or album from another run must not move the cells.
        environment["XDG_STATE_HOME"] = dataHome.appendingPathComponent("state").path
        environment["TZ"] = "UTC"
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        process.environment = environment
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Wait for the window, then give it the keyboard (no window manager runs here).
        let window = try display.xdotool(["search", "--sync", "--name", "Pick Photos"]).split(separator: "\n").first.map(String.init) ?? ""
        usleep(600_000)
        try display.xdotool(["windowfocus", "--sync", window])
    }

    /// Clicks at a point of the window (which sits at the top left: no window manager runs).
    func click(x: Int, y: Int) throws {
        try display.xdotool(["mousemove", String(x), String(y), "click", "1"])
        usleep(150_000)
    }

    /// Drags with the mouse from one point to another, in small steps as a hand would.
    func drag(from start: (x: Int, y: Int), to end: (x: Int, y: Int)) throws {
        try display.xdotool(["mousemove", String(start.x), String(start.y), "mousedown", "1"])
        usleep(200_000)
        for step in 1...8 {
            let x = start.x + (end.x - start.x) * step / 8, y = start.y + (end.y - start.y) * step / 8
            try display.xdotool(["mousemove", String(x), String(y)])
            usleep(50_000)
        }
        usleep(200_000)
        try display.xdotool(["mouseup", "1"])
        usleep(400_000)
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
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, text.split(separator: "\n").map(String.init))
    }
}
