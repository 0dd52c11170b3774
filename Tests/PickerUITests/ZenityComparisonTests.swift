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
    /// (`title` nil: the line gives none, and the window is found by `windowTitle`. Photopick is
    /// given the folder as its library unless `library` is false: then it runs as a line written
    /// for zenity would run it.)
    private func run(_ executable: String, _ arguments: [String], keys: [String], title: String? = "Choose a Photo",
                     windowTitle: String? = nil, library: Bool = true) throws -> (status: Int32, output: Data, errors: String) {
        var arguments = arguments + (title.map { ["--title", $0] } ?? [])
        if executable == TestSupport.photopick && library { arguments = ["--library", folder.path, "--no-camera"] + arguments }
        let home = TestSupport.temporaryDirectory("zenity-home")
        let window = try WindowProcess(display: display, executable: executable, arguments: arguments, dataHome: dataHome, cacheHome: cacheHome,
                                       environment: ["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path],
                                       title: windowTitle ?? title ?? "zenity")
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

    /// Filters that admit other files than photos (a program, then "All files"): GTK's chooser,
    /// where the program can be reached. It opened the photo picker, "Nothing Matches '*.exe'"
    /// (issue 40, point 3). In both, Ctrl+L, the name and Enter choose it.
    func testFiltersOfOtherFilesAnswerAsZenitys() throws {
        let tools = folder.deletingLastPathComponent().appendingPathComponent("Tools")
        try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
        try Data("MZ".utf8).write(to: tools.appendingPathComponent("setup.exe"))
        try Data("notes".utf8).write(to: tools.appendingPathComponent("notes.txt"))
        let typeName = ["ctrl+l", "s", "e", "t", "u", "p", "period", "e", "x", "e", "Return"]
        try assertSame(["--file-selection", "--file-filter=Programs | *.exe", "--file-filter=All files | *", "--filename=\(tools.path)/"],
                       zenityKeys: typeName, photopickKeys: typeName, expected: tools.appendingPathComponent("setup.exe").path + "\n", status: 0)
    }

    /// No filter: a line written for zenity may ask for any file. Run as `zenity` (a link named so,
    /// standing in for it), a title that says nothing of photos gets GTK's chooser, where a program
    /// can be chosen; one that speaks of wallpapers gets the picker (issue 40, point 3).
    func testWithoutAFilterTheTitleDecides() throws {
        let tools = folder.deletingLastPathComponent().appendingPathComponent("Tools")
        try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
        try Data("#!/bin/sh\n".utf8).write(to: tools.appendingPathComponent("run-me"))
        let links = TestSupport.temporaryDirectory("zenity-link")
        let zenityLink = links.appendingPathComponent("zenity")
        try FileManager.default.createSymbolicLink(atPath: zenityLink.path, withDestinationPath: TestSupport.photopick)
        let typeName = ["ctrl+l", "r", "u", "n", "minus", "m", "e", "Return"]
        let binary = try run(zenityLink.path, ["--file-selection", "--filename=\(tools.path)/", "--verbose"], keys: typeName, title: "Choose the binary",
                             library: false)
        // (The picker takes a typed path too: --verbose says which answered.)
        XCTAssertTrue(binary.errors.contains("GTK's file chooser answers: no filter, and nothing speaks of photos"), binary.errors)
        XCTAssertEqual(String(decoding: binary.output, as: UTF8.self), tools.appendingPathComponent("run-me").path + "\n", binary.errors)
        XCTAssertEqual(binary.status, 0, binary.errors)

        // The picker: the folder's newest photo has the focus, Enter chooses it.
        let wallpaper = try run(zenityLink.path, ["--file-selection", "--filename=\(folder.path)/", "--verbose"], keys: ["Return"],
                                title: "Choose a wallpaper", library: false)
        XCTAssertTrue(wallpaper.errors.contains("the picker answers: the title speaks of photos"), wallpaper.errors)
        XCTAssertEqual(String(decoding: wallpaper.output, as: UTF8.self), path("a.jpg") + "\n", wallpaper.errors)
        XCTAssertEqual(wallpaper.status, 0, wallpaper.errors)
    }

    /// GTK's chooser without --title is titled by what it asks, not "Pick Photos" (issue 40,
    /// point 5), and says nothing on standard error a person should read (point 4).
    func testTheChoosersTitleSaysWhatItAsks() throws {
        for (arguments, title) in [(["--save"], "Save File"), (["--directory"], "Choose a Folder"),
                                   (["--file-filter=Documents | *.pdf"], "Choose a File"), (["--file-filter=Documents | *.pdf", "--multiple"], "Choose Files")] {
            let result = try run(TestSupport.photopick, ["--file-selection", "--filename=\(folder.path)/"] + arguments, keys: ["Escape"], title: nil,
                                 windowTitle: title)
            XCTAssertEqual(result.status, 1, "\(arguments): \(result.errors)")
            XCTAssertFalse(result.errors.contains("GtkDialog mapped without a transient parent"), "\(arguments): \(result.errors)")
        }
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
