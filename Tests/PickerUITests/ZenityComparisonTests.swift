// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// A script line written for `zenity --file-selection` works the same with `photopick` in its
/// place: each case runs the same line through Debian's zenity and through Photopick on the same
/// files, on the same virtual display, makes the same choice in each (the keys differ only where
/// a grid of photos is not a list of names), and compares the output byte for byte and the exit
/// status.
final class ZenityComparisonTests: WindowTestCase {
    override var requiredTools: [String] { ["/usr/bin/zenity", "/usr/bin/convert"] }
    override var copiesDemoLibrary: Bool { false }

    private var folder: URL!

    /// a.jpg (newest), b.jpg, c.jpg, d.png (oldest): the grid's order is the list's name order.
    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = TestSupport.temporaryDirectory("zenity-files").appendingPathComponent("Shared photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, name) in ["a.jpg", "b.jpg", "c.jpg", "d.png"].enumerated() {
            let path = folder.appendingPathComponent(name).path
            let made = try TestSupport.run("/usr/bin/convert", ["-size", "64x48", "xc:rgb(\(40 * index),90,160)", path])
            XCTAssertEqual(made.status, 0, made.error)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000 - Double(index) * 86_400)], ofItemAtPath: path)
        }
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Runs `arguments` through a program, presses `keys` in its window, and returns what it printed.
    private func run(_ executable: String, _ arguments: [String], keys: [String]) throws -> (status: Int32, output: Data, errors: String) {
        var arguments = arguments + ["--title", "Choose a Photo"]
        if executable == TestSupport.photopick { arguments = ["--library", folder.path, "--no-camera"] + arguments }
        let home = TestSupport.temporaryDirectory("zenity-home")
        let window = try WindowProcess(display: display, executable: executable, arguments: arguments, dataHome: dataHome, cacheHome: cacheHome,
                                       environment: ["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path],
                                       title: "Choose a Photo")
        usleep(500_000)
        for key in keys {
            try window.keys(key)
            usleep(200_000)
        }
        let (status, output) = window.finishWithBytes()
        return (status, output, window.errorText)
    }

    /// The same line through both, each driven with its own keys: the same bytes and status.
    private func assertSame(_ arguments: [String], zenityKeys: [String], photopickKeys: [String], expected: String, status: Int32,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let zenity = try run("/usr/bin/zenity", arguments, keys: zenityKeys)
        let photopick = try run(TestSupport.photopick, arguments, keys: photopickKeys)
        XCTAssertEqual(String(decoding: zenity.output, as: UTF8.self), expected, "zenity: \(zenity.errors)", file: file, line: line)
        XCTAssertEqual(zenity.status, status, "zenity", file: file, line: line)
        XCTAssertEqual(photopick.output, zenity.output, "photopick printed \(String(decoding: photopick.output, as: UTF8.self).debugDescription): \(photopick.errors)",
                       file: file, line: line)
        XCTAssertEqual(photopick.status, zenity.status, "photopick's status: \(photopick.errors)", file: file, line: line)
    }

    func testConfirmingTwoFiles() throws {
        // zenity: a.jpg is selected, Shift+Down adds b.jpg, Enter is OK. Photopick: a.jpg has
        // the focus; Space, Right, Space pick it and the next; Ctrl+Enter confirms.
        try assertSame(["--file-selection", "--multiple", "--filename=\(path("a.jpg"))"],
                       zenityKeys: ["shift+Down", "Return"], photopickKeys: ["space", "Right", "space", "ctrl+Return"],
                       expected: "\(path("a.jpg"))|\(path("b.jpg"))\n", status: 0)
    }

    func testWithoutMultipleOneFileIsChosen() throws {
        // The next file, then Enter: in both, Enter chooses it (and only it).
        try assertSame(["--file-selection", "--filename=\(path("a.jpg"))"],
                       zenityKeys: ["Down", "Return"], photopickKeys: ["Right", "Return"],
                       expected: "\(path("b.jpg"))\n", status: 0)
    }

    /// With --multiple, Enter confirms, as in zenity and GTK's chooser: the picks (it unpicked
    /// the focused photo and the window stayed: issue 19, defect 18), or the focused photo when
    /// nothing is picked.
    func testEnterConfirmsWithMultiple() throws {
        try assertSame(["--file-selection", "--multiple", "--filename=\(path("a.jpg"))"],
                       zenityKeys: ["shift+Down", "Return"], photopickKeys: ["space", "Right", "space", "Return"],
                       expected: "\(path("a.jpg"))|\(path("b.jpg"))\n", status: 0)
        try assertSame(["--file-selection", "--multiple", "--filename=\(path("a.jpg"))"],
                       zenityKeys: ["Down", "Return"], photopickKeys: ["Right", "Return"],
                       expected: "\(path("b.jpg"))\n", status: 0)
    }

    /// What a photo picker is not for goes to GTK's own chooser, with zenity's output: a file to
    /// save, a folder, a filter of documents (issue 19, defect 22: they were refused, and a script
    /// that swapped zenity for photopick broke).
    func testSaveFolderAndDocumentLinesAnswerAsZenitys() throws {
        try assertSame(["--file-selection", "--save", "--filename=\(path("new name.txt"))"],
                       zenityKeys: ["Return"], photopickKeys: ["Return"], expected: "\(path("new name.txt"))\n", status: 0)
        try assertSame(["--file-selection", "--directory", "--filename=\(folder.path)/"],
                       zenityKeys: ["Return"], photopickKeys: ["Return"], expected: "\(folder.path)\n", status: 0)
        try assertSame(["--file-selection", "--file-filter=Documents | *.pdf", "--filename=\(folder.path)/"],
                       zenityKeys: ["Escape"], photopickKeys: ["Escape"], expected: "", status: 1)
    }

    func testCancellingPrintsNothingAndExitsOne() throws {
        try assertSame(["--file-selection", "--multiple", "--filename=\(path("a.jpg"))"],
                       zenityKeys: ["Escape"], photopickKeys: ["space", "Escape"], expected: "", status: 1)
    }

    func testASeparatorGoesBetweenThePaths() throws {
        try assertSame(["--file-selection", "--multiple", "--separator= ; ", "--filename=\(path("b.jpg"))"],
                       zenityKeys: ["shift+Down", "Return"], photopickKeys: ["space", "Right", "space", "ctrl+Return"],
                       expected: "\(path("b.jpg")) ; \(path("c.jpg"))\n", status: 0)
    }

    func testAFileFilter() throws {
        try assertSame(["--file-selection", "--file-filter=PNG images | *.png", "--filename=\(path("d.png"))"],
                       zenityKeys: ["Return"], photopickKeys: ["Return"], expected: "\(path("d.png"))\n", status: 0)
        // In Photopick the filter hides the JPEGs: the first photo of the folder is the PNG.
        let filtered = try run(TestSupport.photopick, ["--file-selection", "--file-filter=PNG images | *.png", "--filename=\(folder.path)/"], keys: ["Return"])
        XCTAssertEqual(String(decoding: filtered.output, as: UTF8.self), "\(path("d.png"))\n", filtered.errors)
        XCTAssertEqual(filtered.status, 0)
    }

    /// zenity 3.44's file selection never fires --timeout (measured): Photopick is held to
    /// zenity's documented status, 5, with nothing printed.
    func testATimeoutExitsFiveWithNothingPrinted() throws {
        let started = Date()
        let timedOut = try run(TestSupport.photopick, ["--file-selection", "--multiple", "--timeout=2", "--filename=\(path("a.jpg"))"], keys: ["space"])
        XCTAssertEqual(timedOut.status, 5, timedOut.errors)
        XCTAssertEqual(timedOut.output, Data())
        XCTAssertLessThan(Date().timeIntervalSince(started), 15)
    }
}
