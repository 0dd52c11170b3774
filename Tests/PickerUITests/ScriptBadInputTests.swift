// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// Bad input to the window's command line: one clear line on standard error and the documented
/// status (2, or zenity's 255 with --file-selection), at once: never a crash, a hang, a window,
/// or a status a script would take for a cancel (1).
final class ScriptBadInputTests: XCTestCase {
    private var library: URL!
    private var dataHome: URL!

    override func setUpWithError() throws {
        library = TestSupport.temporaryDirectory("bad-input").appendingPathComponent("Pictures")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        dataHome = TestSupport.temporaryDirectory("bad-input-data")
    }

    /// Runs the picker with no display reachable (a window would be a failure of its own).
    private func run(_ arguments: [String], display: String = ":99999") throws -> (status: Int32, output: Data, error: String) {
        let started = Date()
        let result = try TestSupport.run(TestSupport.photopick, ["--library", library.path] + arguments,
                                         environment: ["DISPLAY": display, "WAYLAND_DISPLAY": "", "XDG_DATA_HOME": dataHome.path,
                                                       "XDG_STATE_HOME": dataHome.path, "XDG_CONFIG_HOME": dataHome.path],
                                         timeout: 20)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "\(arguments): an answer at once, not a hang")
        return result
    }

    private func assertRefused(_ arguments: [String], says fragment: String, alsoAsZenity: Bool = true,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        for zenity in alsoAsZenity ? [false, true] : [false] {
            let full = zenity ? ["--file-selection"] + arguments : arguments
            let result = try run(full)
            XCTAssertEqual(result.status, zenity ? 255 : 2, "\(full): \(result.error)", file: file, line: line)
            let lines = result.error.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(full): one line: \(result.error)", file: file, line: line)
            XCTAssertTrue(result.error.hasPrefix("photopick: ") && result.error.contains(fragment), "\(full): \(result.error)", file: file, line: line)
            XCTAssertEqual(result.output, Data(), "\(full): nothing on standard output", file: file, line: line)
        }
    }

    func testEachBadOptionIsOneLineAndTheDocumentedStatus() throws {
        try assertRefused(["--frobnicate"], says: "Unknown option --frobnicate")
        try assertRefused(["--max=0"], says: "--max must be 1 or more")
        try assertRefused(["--max=-4"], says: "--max must be 1 or more")
        try assertRefused(["--max=many"], says: "--max")
        try assertRefused(["--separator="], says: "--separator must not be empty")
        try assertRefused(["--file-filter=Photos |"], says: "expected “NAME | PATTERN…”")
        try assertRefused(["--file-filter= | *.jpg"], says: "expected “NAME | PATTERN…”")
        try assertRefused(["--file-filter="], says: "--file-filter")
        try assertRefused(["--timeout=soon"], says: "--timeout")
        try assertRefused(["--timeout=-1"], says: "--timeout must be 0 (none) or more seconds")
        try assertRefused(["--width=0"], says: "--width must be between 1 and 16384")
        try assertRefused(["--attach=window"], says: "--attach “window”: not a window id")
        try assertRefused(["--mime-type=jpeg"], says: "--mime-type “jpeg”: not a MIME type")
        try assertRefused(["--json", "-0"], says: "cannot be used together")
        try assertRefused(["--copy-to=/nowhere/folder"], says: "--copy-to /nowhere/folder: No such file or directory")
        try assertRefused(["--album=No Such Album"], says: "no album named “No Such Album”")
        // (zenity ignores a word that is not an option: so does --file-selection, below.)
        try assertRefused(["stray-argument"], says: "unexpected argument “stray-argument”", alsoAsZenity: false)
    }

    /// What zenity takes, --file-selection takes: a word that is not an option (mpv's open-dialog
    /// script passes the playing file's name after --filename's folder), `--timeout 0` (no
    /// timeout), an empty `--filename=` (issue 40: real programs pass each).
    func testWhatZenityTakesIsNotRefused() throws {
        // (A folder of its own: /tmp, full of other tests' files, took 11 s to read under CI.)
        let folder = TestSupport.temporaryDirectory("stray-word-folder")
        for extra in [["--filename", folder.path + "/", "clip.mkv"], ["--timeout", "0"], ["--filename="], ["--filename=~/"]] {
            let result = try run(["--file-selection"] + extra)
            XCTAssertEqual(result.status, 255, "\(extra): \(result.error)")
            XCTAssertTrue(result.error.contains("photopick: cannot open a display"), "\(extra) gets as far as the display: \(result.error)")
        }
    }

    /// zenity's save and folder modes (and filters of no photo type) are GTK's chooser's: without
    /// a display they fail as the picker does, never as a refused option.
    func testZenitysSaveAndFolderModesNeedADisplayLikeThePicker() throws {
        for extra in [["--save"], ["--directory"], ["--save", "--confirm-overwrite"], ["--file-filter=Documents | *.pdf *.odt"]] {
            let result = try run(["--file-selection"] + extra, display: "")
            XCTAssertEqual(result.status, 255, "\(extra): \(result.error)")
            XCTAssertTrue(result.error.contains("photopick: cannot open a display"), "\(extra): \(result.error)")
        }
    }

    func testNoDisplayIsAnErrorNotACancel() throws {
        for (arguments, status) in [([String](), Int32(2)), (["--file-selection"], Int32(255))] {
            let result = try run(arguments, display: "")
            XCTAssertEqual(result.status, status, result.error)
            XCTAssertTrue(result.error.contains("photopick: cannot open a display"), result.error)
            XCTAssertEqual(result.output, Data())
        }
    }

    /// --version prints the release the metainfo announces.
    func testVersionIsTheMetainfosRelease() throws {
        let result = try run(["--version"])
        XCTAssertEqual(result.status, 0)
        let metainfo = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("data/io.github.photopick.Photopick.metainfo.xml"), encoding: .utf8)
        let release = try XCTUnwrap(metainfo.range(of: #"<release version="[^"]+""#, options: .regularExpression).map { metainfo[$0] })
        let version = release.dropFirst(#"<release version=""#.count).dropLast()
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self), "photopick \(version)\n")
    }

    /// The top-level help lists the window's options, zenity's among them.
    func testTheTopLevelHelpListsTheWindowsOptions() throws {
        let help = String(decoding: try TestSupport.run(TestSupport.photopick, ["--help"]).output, as: UTF8.self)
        for option in ["--file-selection", "--multiple", "--separator", "--file-filter", "--copy-to", "--json", "--max", "--timeout", "albums", "ls"] {
            XCTAssertTrue(help.contains(option), option)
        }
    }
}
