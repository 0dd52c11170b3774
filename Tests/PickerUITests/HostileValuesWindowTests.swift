// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// The real window over hostile values: videos whose headers claim absurd durations, a state
/// file with window sizes out of range, an index written by an older version with a duration of
/// 1.8e19 seconds. The window must open, stay open, say nothing on standard error, and cancel
/// with status 1 on Escape.
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class HostileValuesWindowTests: XCTestCase, @unchecked Sendable {
    private var display: VirtualDisplay!
    private var library: URL!
    private var dataHome: URL!
    private var cacheHome: URL!
    private var stateHome: URL!

    nonisolated override func setUpWithError() throws {
        try MainActor.assumeIsolated {
            for tool in ["/usr/bin/Xvfb", "/usr/bin/xdotool", "/usr/bin/sqlite3"] where !FileManager.default.isExecutableFile(atPath: tool) {
                XCTFail("\(tool) is missing: run scripts/bootstrap")
                throw XCTSkip("no \(tool)")
            }
            display = try VirtualDisplay()
            library = TestSupport.temporaryDirectory("hostile-window-library")
            dataHome = TestSupport.temporaryDirectory("hostile-window-data")
            cacheHome = TestSupport.temporaryDirectory("hostile-window-cache")
            stateHome = TestSupport.temporaryDirectory("hostile-window-state")
        }
    }

    nonisolated override func tearDown() {
        MainActor.assumeIsolated {
            display = nil  // stops Xvfb
            super.tearDown()
        }
    }

    private var stateFile: URL { stateHome.appendingPathComponent("photopick/state.ini") }

    private func writeState(_ lines: [String]) throws {
        try FileManager.default.createDirectory(at: stateFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try (["[picker]"] + lines).joined(separator: "\n").appending("\n").write(to: stateFile, atomically: true, encoding: .utf8)
    }

    private var environment: [String: String] {
        ["DISPLAY": display.name, "GSK_RENDERER": "cairo", "XDG_DATA_HOME": dataHome.path, "XDG_CACHE_HOME": cacheHome.path,
         "XDG_STATE_HOME": stateHome.path, "TZ": "UTC"]
    }

    /// Opens the window on the library, lets it fill, presses Escape and returns the exit status,
    /// the standard error and the window's size while it was open. The process is killed if the
    /// test fails midway.
    private func openAndCancel(file: StaticString = #filePath, line: UInt = #line) throws
        -> (status: Int32, errors: String, size: (width: Int, height: Int)?) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.photopick)
        process.arguments = ["--library", library.path]
        var environment = ProcessInfo.processInfo.environment.merging(self.environment) { $1 }
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        final class Collected: @unchecked Sendable { var errors = Data() }
        let collected = Collected()
        let readDone = DispatchSemaphore(value: 0)
        try process.run()
        addTeardownBlock {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        DispatchQueue.global().async {
            collected.errors = errors.fileHandleForReading.readDataToEndOfFile()
            readDone.signal()
        }
        // Wait for the window while the process lives (a trap ends it before the window shows).
        var window = ""
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, window.isEmpty, Date() < deadline {
            window = try display.xdotool(["search", "--name", "Pick Photos"]).split(separator: "\n").first.map(String.init) ?? ""
            if window.isEmpty { usleep(200_000) }
        }
        var size: (width: Int, height: Int)?
        if !window.isEmpty {
            usleep(600_000)
            try display.xdotool(["windowfocus", "--sync", window])
            usleep(2_000_000)  // the scan, the cells binding, the thumbnails failing
            XCTAssertTrue(process.isRunning, "the window closed by itself", file: file, line: line)
            let geometry = try display.xdotool(["getwindowgeometry", window])
            if let match = geometry.range(of: #"\d+x\d+"#, options: .regularExpression) {
                let numbers = geometry[match].split(separator: "x").compactMap { Int($0) }
                if numbers.count == 2 { size = (numbers[0], numbers[1]) }
            }
            try display.xdotool(["key", "Escape"])
        } else {
            XCTFail("no window appeared", file: file, line: line)
        }
        let finished = Date().addingTimeInterval(20)
        while process.isRunning && Date() < finished { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        readDone.wait()
        return (process.terminationStatus, String(decoding: collected.errors, as: UTF8.self), size)
    }

    private func assertQuietCancel(_ run: (status: Int32, errors: String, size: (width: Int, height: Int)?),
                                   file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(run.status, 1, "Escape cancels (132 is a trap); stderr: \(run.errors)", file: file, line: line)
        // GTK's accessibility bridge warns when the machine has no session bus (as here): that one
        // line is about the machine, not the values.
        let complaints = run.errors.components(separatedBy: "\n").filter {
            ($0.contains("CRITICAL") || $0.contains("WARNING")) && !$0.contains("Unable to acquire session bus")
        }
        XCTAssertEqual(complaints, [], file: file, line: line)
    }

    /// The size the window saved when it closed.
    private func savedSize() throws -> (width: Int?, height: Int?) {
        let text = try String(contentsOf: stateFile, encoding: .utf8)
        func value(_ key: String) -> Int? {
            text.split(separator: "\n").first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) }
        }
        return (value("window-width"), value("window-height"))
    }

    /// A named pipe as state.ini kept the window from ever appearing (issue 20, finding 3): it
    /// opens, says the file is ignored, and cancels.
    nonisolated func testANamedPipeAsTheStateFileIsSaidAndIgnored() throws {
        try MainActor.assumeIsolated {
            let source = TestSupport.packageRoot.appendingPathComponent("data/demo-library/Phone/PXL_20240612_081500123.jpg")
            try FileManager.default.copyItem(at: source, to: library.appendingPathComponent("photo.jpg"))
            try FileManager.default.createDirectory(at: stateFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            XCTAssertEqual(mkfifo(stateFile.path, 0o600), 0)
            let run = try openAndCancel()
            XCTAssertEqual(run.status, 1, run.errors)
            XCTAssertTrue(run.errors.contains("state.ini is not a regular file (a named pipe): it is ignored"), run.errors)
        }
    }

    nonisolated func testHostileVideosOpenAndCancel() throws {
        try MainActor.assumeIsolated {
            try HostileFiles.writeLibrary(in: library)
            let run = try openAndCancel()
            assertQuietCancel(run)
            XCTAssertEqual(run.size?.width, 960)
        }
    }

    nonisolated func testAWindowWidthOfThreeBillionOpensAndCancels() throws {
        try MainActor.assumeIsolated {
            try HostileFiles.writeLibrary(in: library)
            // The smallest cells, so every hostile video has a cell on screen.
            try writeState(["window-width=3000000000", "window-height=720", "cell-size=-3", "album=Videos"])
            let run = try openAndCancel()
            assertQuietCancel(run)
            XCTAssertEqual(run.size?.width, 960, "the default width instead")
            XCTAssertEqual(run.size?.height, 720, "a good height is kept")
            let saved = try savedSize()
            XCTAssertEqual(saved.width, 960)
            XCTAssertEqual(saved.height, 720)
            XCTAssertTrue(try String(contentsOf: stateFile, encoding: .utf8).contains("album=Videos"), "the album is kept")
        }
    }

    nonisolated func testANegativeWindowSizeOpensAndCancels() throws {
        try MainActor.assumeIsolated {
            try HostileFiles.writeLibrary(in: library)
            try writeState(["window-width=-500", "window-height=-1", "cell-size=99999999999"])
            let run = try openAndCancel()
            assertQuietCancel(run)
            XCTAssertEqual(run.size?.width, 960)
            XCTAssertEqual(run.size?.height, 720)
        }
    }

    nonisolated func testAnOldIndexHoldingAHugeDurationOpensAndCancels() throws {
        try MainActor.assumeIsolated {
            try HostileFiles.write(HostileFiles.mp4(duration: 7000, timescale: 1000), to: library, name: "clip.mp4")
            let indexed = try TestSupport.run(TestSupport.photopick, ["index", "--library", library.path], environment: ["XDG_DATA_HOME": dataHome.path])
            XCTAssertEqual(indexed.status, 0, indexed.error)
            let folder = dataHome.appendingPathComponent("photopick")
            let database = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".sqlite") })
            // What an older version stored for a header claiming 2^64 units at timescale 1.
            let update = try TestSupport.run("/usr/bin/sqlite3", [folder.appendingPathComponent(database).path,
                                                                  "UPDATE assets SET duration = 1.8446744073709552e19 WHERE kind = 2"])
            XCTAssertEqual(update.status, 0, update.error)
            assertQuietCancel(try openAndCancel())
        }
    }
}
