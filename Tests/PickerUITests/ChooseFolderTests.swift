// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// The empty grid offers "Choose Folder…": the chosen folder joins the library at once, and,
/// when the picker runs on the default folders, for later runs and every command too.
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class ChooseFolderTests: XCTestCase, @unchecked Sendable {
    private var display: VirtualDisplay!
    private var home: URL!
    private var dataHome: URL!
    private var cacheHome: URL!
    private let demo = TestSupport.packageRoot.appendingPathComponent("data/demo-library")

    nonisolated override func setUpWithError() throws {
        try MainActor.assumeIsolated {
            for tool in ["/usr/bin/Xvfb", "/usr/bin/xdotool"] where !FileManager.default.isExecutableFile(atPath: tool) {
                XCTFail("\(tool) is missing: run scripts/bootstrap")
                throw XCTSkip("no \(tool)")
            }
            display = try VirtualDisplay()
            home = TestSupport.temporaryDirectory("choose-home")
            dataHome = TestSupport.temporaryDirectory("choose-data")
            cacheHome = TestSupport.temporaryDirectory("choose-cache")
        }
    }

    /// A home of its own: no Pictures folder, no user-dirs.dirs, no folders added before.
    private var environment: [String: String] {
        ["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path]
    }

    private func list(_ arguments: [String]) throws -> [String] {
        let result = try TestSupport.run(TestSupport.photopick, ["ls"] + arguments,
                                         environment: environment.merging(["XDG_DATA_HOME": dataHome.path]) { $1 })
        XCTAssertEqual(result.status, 0, result.error)
        return String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Clicks Choose Folder… and answers GTK's folder chooser by typing the path (or `typing`).
    private func choose(_ folder: URL, typing: String? = nil, in picker: WindowProcess) throws {
        try picker.click(x: 480, y: 513)  // the status page's button, in a 960x720 window
        _ = try display.xdotool(["search", "--sync", "--name", "Choose a Folder"])
        usleep(500_000)
        try picker.keys("ctrl+l")
        try display.xdotool(["type", "--delay", "10", (typing ?? folder.path) + "/"])
        usleep(300_000)
        try picker.keys("Return")
        usleep(1_500_000)  // the picker reopens and indexes the folder
        // No window manager gives the new window the keyboard: give it.
        let window = try display.xdotool(["search", "--sync", "--onlyvisible", "--name", "Pick Photos"]).split(separator: "\n").last.map(String.init) ?? ""
        try display.xdotool(["windowfocus", "--sync", window])
    }

    /// An empty folder whose name has "&" and "<" in it: the empty state says its name as it
    /// is, without a markup warning (its description is markup in AdwStatusPage; issue 37).
    nonisolated func testAnEmptyFolderNamedWithMarkupSaysItsName() throws {
        try MainActor.assumeIsolated {
            let folder = home.appendingPathComponent("Tom & <Jerry>")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let picker = try WindowProcess(display: display, arguments: ["--library", folder.path], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: environment)
            usleep(1_000_000)
            // The status page's words, as drawn, are not readable here: what GTK says of them is.
            XCTAssertFalse(picker.errorText.contains("markup"), picker.errorText)
            XCTAssertEqual(picker.problems, "")
            try picker.keys("Escape")
            XCTAssertEqual(picker.finish().status, 1, picker.errorText)
        }
    }

    nonisolated func testAMissingPicturesFolderIsReplacedByTheChosenOneForGood() throws {
        try MainActor.assumeIsolated {
            let picker = try WindowProcess(display: display, arguments: [], dataHome: dataHome, cacheHome: cacheHome,
                                           environment: environment.merging(["PHOTOPICK_TRACE_STARTUP": "1"]) { $1 })
            defer { picker.stop() }
            try choose(demo, in: picker)
            // The chosen folder is a first run: its photos show once its first screen's
            // thumbnails are made (videos through a thumbnailer: seconds on a busy machine), and
            // the first photo takes the focus then.
            // (The marks of the chosen folder's scan: the missing folder's own first screen says
            // "thumbnails made" too, before the choice.)
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                let trace = picker.errorText
                let chosenScan = trace.range(of: "first scan started", options: .backwards).map { String(trace[$0.upperBound...]) } ?? ""
                if chosenScan.contains("first screen's thumbnails made") || chosenScan.contains("first screen shown before") { break }
                usleep(100_000)
            }
            // (The list's file monitor tells of the write up to 2 s later: that must not build
            // the picker again, which lost the keys pressed meanwhile.)
            usleep(2_500_000)
            try picker.keys("space", "ctrl+Return")
            let (status, lines) = picker.finish()
            XCTAssertEqual(picker.errorText.components(separatedBy: "embedded picker: building").count - 1, 2,
                           "built at the start and for the chosen folder, once each: " + picker.errorText)
            // The newest photo, asked of the command line once the window is gone: run while it
            // was open, its scan of the same index made the window read its album again, and
            // the keys pressed meanwhile were lost (CI, 2026-12-06).
            let recents = try list(["--library", demo.path])
            XCTAssertEqual(status, 0, picker.problems + picker.errorText)
            XCTAssertEqual(lines, [recents[0]], "the chosen folder's newest photo was picked")
            // Later runs, and the script commands, use it without being told.
            XCTAssertEqual(try list([]), recents)
            XCTAssertEqual(picker.problems, "")
        }
    }

    nonisolated func testAFolderChosenBesideNamedFoldersLastsForThisWindowOnly() throws {
        try MainActor.assumeIsolated {
            let empty = TestSupport.temporaryDirectory("choose-empty")
            let picker = try WindowProcess(display: display, arguments: ["--library", empty.path], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: environment)
            defer { picker.stop() }
            try choose(demo, in: picker)
            let recents = try list(["--library", empty.path, "--library", demo.path])
            try picker.keys("space", "ctrl+Return")
            let (status, lines) = picker.finish()
            XCTAssertEqual(status, 0, picker.problems)
            XCTAssertEqual(lines, [recents[0]])
            XCTAssertFalse(FileManager.default.fileExists(atPath: home.appendingPathComponent(".config/photopick/folders").path),
                           "folders named with --library are the script's choice: nothing is remembered")
        }
    }

    /// A folder on another machine typed into the chooser as its location (as Files' "Other
    /// Locations" gives it): it joins as its URI, the picker fetches a pick of it, and later runs
    /// and the script commands use it too.
    nonisolated func testAFolderOnAnotherMachineIsChosenByItsLocation() throws {
        try MainActor.assumeIsolated {
            let server = try SFTPServer()
            defer { server.close() }
            let uri = server.uri(demo.path)
            let environment = self.environment.merging(server.environment) { $1 }
            let picker = try WindowProcess(display: display, arguments: [], dataHome: dataHome, cacheHome: cacheHome, environment: environment)
            defer { picker.stop() }
            try choose(URL(string: uri)!, typing: uri, in: picker)
            usleep(2_000_000)  // (the remote folder is indexed through the server)
            let remote = try TestSupport.run(TestSupport.photopick, ["ls", "--library", uri],
                                             environment: environment.merging(["XDG_DATA_HOME": dataHome.path]) { $1 })
            let newest = try XCTUnwrap(String(decoding: remote.output, as: UTF8.self).split(separator: "\n").first.map(String.init))
            try picker.keys("space", "ctrl+Return")
            let (status, lines) = picker.finish(timeout: 30)
            XCTAssertEqual(status, 0, picker.errorText)
            XCTAssertEqual(lines.count, 1, picker.errorText)
            let name = try XCTUnwrap(newest.split(separator: "/").last.map { $0.removingPercentEncoding ?? String($0) })
            XCTAssertEqual(lines.first.map { URL(fileURLWithPath: $0).lastPathComponent }, name, "the newest remote photo, fetched")
            XCTAssertEqual(lines.first.flatMap { FileManager.default.contents(atPath: $0) },
                           FileManager.default.contents(atPath: demo.path + "/" + newest.dropFirst(uri.count + 1).removingPercentEncoding!))
            let saved = try String(contentsOf: home.appendingPathComponent(".config/photopick/folders"), encoding: .utf8)
            XCTAssertEqual(saved, uri + "\n", "remembered as its location")
            let later = try TestSupport.run(TestSupport.photopick, ["ls"], environment: environment.merging(["XDG_DATA_HOME": dataHome.path]) { $1 })
            XCTAssertEqual(later.output, remote.output, "later runs list it without being told")
        }
    }
}
