// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// Resizing the window on a library of thousands of files: GtkGridView then holds rows it has
/// not measured, which the 40-file demo library never has. Before the fix, going from the default
/// size to 800x450 aborted in gtkgridview.c (row_height >= 0) and lost the picks.
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class ResizeTests: XCTestCase, @unchecked Sendable {
    private var display: VirtualDisplay!
    private var library: URL!
    private var dataHome: URL!
    private var cacheHome: URL!

    /// 4,000 photos: 100 folders holding copies of the demo library's photos and videos.
    private static let bigLibrary: URL = {
        let root = TestSupport.temporaryDirectory("resize-library").appendingPathComponent("Pictures")
        let demo = TestSupport.packageRoot.appendingPathComponent("data/demo-library")
        let files = FileManager.default.enumerator(at: demo, includingPropertiesForKeys: nil)!
            .compactMap { $0 as? URL }.filter { !$0.hasDirectoryPath && ["jpg", "png", "mp4"].contains($0.pathExtension.lowercased()) }
        for folder in 0..<100 {
            let target = root.appendingPathComponent(String(format: "Trip %03d", folder))
            try! FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            for (index, file) in files.enumerated() {
                try! FileManager.default.copyItem(at: file, to: target.appendingPathComponent("\(index)-\(file.lastPathComponent)"))
            }
        }
        return root
    }()

    nonisolated override func setUpWithError() throws {
        try MainActor.assumeIsolated {
            for tool in ["/usr/bin/Xvfb", "/usr/bin/xdotool"] where !FileManager.default.isExecutableFile(atPath: tool) {
                XCTFail("\(tool) is missing: run scripts/bootstrap")
                throw XCTSkip("no \(tool)")
            }
            display = try VirtualDisplay()
            library = Self.bigLibrary
            dataHome = TestSupport.temporaryDirectory("resize-data")
            cacheHome = TestSupport.temporaryDirectory("resize-cache")
            // Indexed before the window opens, so the grid holds every file from the first frame.
            let indexed = try TestSupport.run(TestSupport.photopick, ["index", "--library", library.path],
                                              environment: ["XDG_DATA_HOME": dataHome.path])
            XCTAssertEqual(indexed.status, 0, indexed.error)
        }
    }

    nonisolated func testResizingThroughManySizesNeitherCrashesNorWarns() throws {
        try MainActor.assumeIsolated {
            let sizes = [(800, 450), (600, 400), (420, 380), (360, 360), (300, 900), (1090, 300), (200, 150),
                         (1090, 790), (361, 361), (500, 790), (700, 200), (960, 720), (380, 700), (1000, 500)]
            var window = try WindowProcess(display: display, arguments: ["--library", library.path], dataHome: dataHome, cacheHome: cacheHome)
            defer { window.stop() }
            try window.keys("space", "Right", "space")  // picks that a crash would lose
            for (width, height) in sizes {
                try display.xdotool(["windowsize", window.windowID, String(width), String(height)])
                usleep(350_000)
                // Scrolling makes the grid lay out rows it had not measured at the new width.
                try window.keys("Page_Down")
                XCTAssertTrue(window.isRunning, "the picker exited at \(width)x\(height): \(window.problems)")
                guard window.isRunning else { return }
            }
            try window.keys("ctrl+Return")
            let (status, lines) = window.finish()
            XCTAssertEqual(status, 0, window.problems)
            XCTAssertEqual(lines.count, 2, "both picks survived the resizing")
            XCTAssertEqual(window.problems, "", "GTK criticals or warnings while resizing")

            // Reopening at the remembered (small) size works too.
            window = try WindowProcess(display: display, arguments: ["--library", library.path], dataHome: dataHome, cacheHome: cacheHome)
            usleep(500_000)
            XCTAssertTrue(window.isRunning, window.problems)
            try window.keys("Escape")
            XCTAssertEqual(window.finish().status, 1)
            XCTAssertEqual(window.problems, "")
        }
    }
}
