// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport

/// `photopick` on a virtual display, with standard error kept in a file so a test can read the
/// GTK messages it printed, and an environment of the test's choosing. Like RunningPicker, it
/// never outlives its test (TestProcesses).
struct WindowProcess {
    let process = Process()
    let display: VirtualDisplay
    let windowID: String
    private let output = Pipe()
    private let errorFile: URL

    init(display: VirtualDisplay, executable: String = TestSupport.photopick, arguments: [String], dataHome: URL, cacheHome: URL,
         environment extra: [String: String] = [:], title: String = "Pick Photos") throws {
        self.display = display
        errorFile = TestSupport.temporaryDirectory("window-stderr").appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        TestProcesses.wrap(process, executable, arguments)
        process.environment = display.pickerEnvironment(dataHome: dataHome, cacheHome: cacheHome, extra: extra)
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        TestProcesses.adopt(process)
        let found = try display.xdotool(["search", "--sync", "--onlyvisible", "--name", title])
        windowID = found.split(separator: "\n").first.map(String.init) ?? ""
        usleep(600_000)
        try display.xdotool(["windowfocus", "--sync", windowID])
    }

    var isRunning: Bool { process.isRunning }

    /// Clicks at a point of the window (which sits at the top left: no window manager runs).
    func click(x: Int, y: Int) throws {
        try display.click(x: x, y: y)
        usleep(150_000)
    }

    func keys(_ keys: String...) throws {
        for key in keys {
            try display.xdotool(["key", key])
            usleep(80_000)
        }
    }

    /// What GTK and GLib printed that a person should never see: criticals, warnings, errors
    /// (the missing session bus of a bare test display aside).
    var problems: String {
        let text = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { line in
            (line.contains("CRITICAL") || line.contains("WARNING") || line.contains("ERROR") || line.contains("Fatal"))
                && !line.contains("session bus")
        }.joined(separator: "\n")
    }

    func finish(timeout: TimeInterval = 20) -> (status: Int32, lines: [String]) {
        let (status, bytes) = finishWithBytes(timeout: timeout)
        return (status, String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    /// The exit status and standard output byte for byte (separators, NULs, the last newline).
    func finishWithBytes(timeout: TimeInterval = 20) -> (status: Int32, output: Data) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        stop()
        return (process.terminationStatus, output.fileHandleForReading.readDataToEndOfFile())
    }

    /// What the program printed on standard error.
    var errorText: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

    func stop() {
        TestProcesses.stop(process)
    }
}
