// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// What the end-to-end window tests share: a virtual display that stops when the test ends, a
/// data and a cache folder of the test's own, a library (a copy of the demo library by default),
/// and albums as `photopick ls` prints them (which also builds the index before the window opens).
class WindowTestCase: XCTestCase {
    var display: VirtualDisplay!
    var library: URL!
    var dataHome: URL!
    var cacheHome: URL!

    /// Programs the test needs besides Xvfb and xdotool.
    var requiredTools: [String] { [] }
    /// A copy of the demo library that the test may change; false: the demo library itself,
    /// which nothing may write to.
    var copiesDemoLibrary: Bool { true }

    override func setUpWithError() throws {
        for tool in ["/usr/bin/Xvfb", "/usr/bin/xdotool"] + requiredTools where !FileManager.default.isExecutableFile(atPath: tool) {
            XCTFail("\(tool) is missing: run scripts/bootstrap")
            throw XCTSkip("no \(tool)")
        }
        display = try VirtualDisplay()
        let name = String(describing: type(of: self))
        let demo = TestSupport.packageRoot.appendingPathComponent("data/demo-library")
        if copiesDemoLibrary {
            library = TestSupport.temporaryDirectory("\(name)-library").appendingPathComponent("Pictures")
            try FileManager.default.copyItem(at: demo, to: library)
        } else {
            library = demo
        }
        dataHome = TestSupport.temporaryDirectory("\(name)-data")
        cacheHome = TestSupport.temporaryDirectory("\(name)-cache")
    }

    override func tearDown() {
        display = nil  // stops the server now, not when XCTest lets go of the test case
        super.tearDown()
    }

    /// An album's paths in order, as `photopick ls` prints them.
    func list(_ album: String = "Recents") throws -> [String] {
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--album", album, "--library", library.path],
                                         environment: ["XDG_DATA_HOME": dataHome.path])
        XCTAssertEqual(result.status, 0, result.error)
        return String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Whether `condition` holds within `seconds` (asked every 0.1 s).
    func wait(seconds: TimeInterval = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(100_000)
        }
        return condition()
    }

    /// Recents as `photopick ls` prints it: the grid's order.
    func recents() throws -> [String] { try list() }

    /// The pixels of the display's square of `side` points around `point`, 0-255 each
    /// (TrueColor: a grey square would be written as one channel).
    func pixels(around point: (x: Int, y: Int), side: Int = 60) throws -> [(red: Int, green: Int, blue: Int)] {
        let shot = try TestSupport.run("/usr/bin/import", ["-window", "root", "-crop", "\(side)x\(side)+\(point.x - side / 2)+\(point.y - side / 2)",
                                                            "-depth", "8", "-type", "TrueColor", "txt:-"],
                                       environment: ["DISPLAY": display.name])
        XCTAssertEqual(shot.status, 0, shot.error)
        let pattern = try NSRegularExpression(pattern: #"\((\d+),(\d+),(\d+)"#)
        return String(decoding: shot.output, as: UTF8.self).split(separator: "\n").compactMap { line in
            let text = String(line)
            guard let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
            let value = { (index: Int) in Int(text[Range(match.range(at: index), in: text)!]) ?? 0 }
            return (value(1), value(2), value(3))
        }
    }

    /// The picker on this test's library, with `extra` arguments.
    func openPicker(_ extra: [String] = []) throws -> RunningPicker {
        try RunningPicker(display: display, arguments: ["--library", library.path] + extra, dataHome: dataHome, cacheHome: cacheHome)
    }
}
