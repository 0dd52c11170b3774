// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// Real programs' questions, in their own languages (bash, sh, Perl, Python, Node, Lua), behave
/// the same with Photopick standing in for zenity (a link named `zenity` first on the PATH) as
/// with Debian's zenity 3.44: the same output byte for byte and the same status, each driven as a
/// person would drive it. Tests/RealScripts holds our re-creations of each program's zenity line
/// and of what it does with the answer (SOURCES.md names the programs); issue 40.
final class RealScriptTests: WindowTestCase {
    override var requiredTools: [String] { ["/usr/bin/zenity", "/usr/bin/convert", "/usr/bin/perl", "/usr/bin/lua5.4", "/usr/bin/file"] }
    override var copiesDemoLibrary: Bool { false }

    private var home: URL!
    private var pictures: URL!
    private var downloads: URL!
    private var standIn: URL!
    private let scripts = TestSupport.packageRoot.appendingPathComponent("Tests/RealScripts")

    /// Pictures: layer-2.tif (newest), layer-1.tif, sunset.jpg, beach.png. Downloads: files no
    /// photo picker shows (an installer, a disc image, a project, a PDF, a song).
    override func setUpWithError() throws {
        try super.setUpWithError()
        home = TestSupport.temporaryDirectory("real-scripts-home")
        pictures = home.appendingPathComponent("Pictures")
        downloads = home.appendingPathComponent("Downloads")
        for folder in [pictures!, downloads!] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        for (index, name) in ["layer-2.tif", "layer-1.tif", "sunset.jpg", "beach.png"].enumerated() {
            let path = pictures.appendingPathComponent(name).path
            let made = try TestSupport.run("/usr/bin/convert", ["-size", "96x64", "xc:rgb(\(50 * index),120,200)", path])
            XCTAssertEqual(made.status, 0, made.error)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000 - Double(index) * 86_400)], ofItemAtPath: path)
        }
        for (name, text) in [("setup.exe", "MZ"), ("disc.iso", "CD001"), ("project.pto", "# hugin project"), ("report.pdf", "%PDF-1.4"),
                             ("song.mp3", "ID3")] {
            try Data(text.utf8).write(to: downloads.appendingPathComponent(name))
        }
        standIn = TestSupport.temporaryDirectory("real-scripts-stand-in")
        try FileManager.default.createSymbolicLink(atPath: standIn.appendingPathComponent("zenity").path, withDestinationPath: TestSupport.photopick)
    }

    /// Runs a script with zenity, or with Photopick standing in for it, presses `keys` in the
    /// window it opens (a key name, or text to type after "type:"), and returns what it printed.
    private func run(_ command: [String], files: URL?, keys: [String], photopick: Bool) throws -> (status: Int32, output: String, errors: String) {
        let process = TestProcesses.process(command[0], Array(command.dropFirst()))
        let systemPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        var extra = ["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
                     "PATH": photopick ? standIn.path + ":" + systemPath : systemPath,
                     "ICON": pictures.appendingPathComponent("beach.png").path]
        if let files { extra["FILES"] = files.path }
        process.environment = display.pickerEnvironment(dataHome: dataHome, cacheHome: cacheHome, extra: extra)
        process.currentDirectoryURL = scripts
        let output = Pipe()
        let errors = TestSupport.temporaryDirectory("real-scripts-stderr").appendingPathComponent("stderr.txt")
        FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        TestProcesses.adopt(process)
        // (The script's own children, zenity or Photopick, outlive it: they go first.)
        defer {
            for child in Self.descendants(of: process.processIdentifier) { kill(child, SIGKILL) }
            TestProcesses.stop(process)
        }
        let window = try display.xdotool(["search", "--sync", "--onlyvisible", "--name", "."]).split(separator: "\n").last.map(String.init) ?? ""
        // (The picker's first run reads the folder: keys wait until the window holds still, at
        // least half a second; a fixed 1.5 s was 39 s of each CI run.)
        usleep(500_000)
        try display.waitUntilStill()
        try display.xdotool(["windowfocus", "--sync", window])
        for key in keys {
            if key.hasPrefix("type:") {
                try display.xdotool(["type", "--delay", "40", String(key.dropFirst(5))])
            } else {
                try display.xdotool(["key", key])
            }
            usleep(300_000)
        }
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        let text = String(decoding: output.fileHandleForReading.availableDataWithoutBlocking(), as: UTF8.self)
        return (process.isRunning ? -1 : process.terminationStatus, text, (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }

    /// The same script with zenity and with Photopick, each driven with its own keys: the same
    /// output and status, and the output expected.
    private func assertSame(_ command: [String], files: URL? = nil, zenityKeys: [String], photopickKeys: [String]? = nil, expected: String,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let zenity = try run(command, files: files, keys: zenityKeys, photopick: false)
        XCTAssertEqual(zenity.output, expected, "zenity: \(zenity.errors)", file: file, line: line)
        let photopick = try run(command, files: files, keys: photopickKeys ?? zenityKeys, photopick: true)
        XCTAssertEqual(photopick.output, zenity.output, "\(command.last!) with Photopick: \(photopick.errors)", file: file, line: line)
        XCTAssertEqual(photopick.status, zenity.status, "\(command.last!): \(photopick.errors)", file: file, line: line)
    }

    /// Every process below `pid`, from /proc.
    private static func descendants(of pid: Int32) -> [Int32] {
        var parents: [Int32: Int32] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // "PID (NAME) STATE PPID …": the name may hold spaces and parentheses.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) { parents[child] = parent }
        }
        var found: [Int32] = [], frontier = [pid]
        while let next = frontier.popLast() {
            let children = parents.filter { $0.value == next }.map(\.key)
            found += children
            frontier += children
        }
        return found
    }

    private func script(_ name: String) -> String { scripts.appendingPathComponent(name).path }
    private func typed(_ path: URL) -> [String] { ["ctrl+l", "type:" + path.path, "Return"] }

    // MARK: Photos: the picker answers

    /// A wallpaper (bash; an image filter, no folder): the picker opens on Recents, whose newest
    /// photo the filter admits is the sunset; Enter chooses it.
    func testAWallpaperIsPickedInThePicker() throws {
        let sunset = pictures.appendingPathComponent("sunset.jpg")
        try assertSame(["/bin/bash", script("set-wallpaper.sh")], zenityKeys: typed(sunset), photopickKeys: ["Return"],
                       expected: "image found\nset \(sunset.path)\n")
    }

    /// TIFF layers (Perl, through the shell; the title speaks of TIFF files, no filter): the
    /// picker opens the folder, the newest layer has the focus.
    func testTIFFLayersArePickedInThePicker() throws {
        let layer = pictures.appendingPathComponent("layer-2.tif")
        try assertSame(["/usr/bin/perl", script("tiff-to-svg.pl")], files: pictures, zenityKeys: ["ctrl+l", "type:layer-2.tif", "Return"],
                       photopickKeys: ["Return"], expected: "1 layers: \(layer.path)\n")
    }

    // MARK: Anything else: GTK's chooser answers, driven with the same keys as zenity's

    func testAnInstallerWithANamelessFilterGivenFirst() throws {
        try assertSame(["/bin/bash", script("open-installer.sh")], zenityKeys: typed(downloads.appendingPathComponent("setup.exe")),
                       expected: "wine setup.exe\n")
    }

    func testADiscImageByItsTitleAlone() throws {
        let disc = downloads.appendingPathComponent("disc.iso")
        try assertSame(["/bin/sh", script("extract-iso.sh")], zenityKeys: typed(disc), expected: "osi.\n\(disc.path)\n")
    }

    func testAProjectFileInAFolderOfDocuments() throws {
        let project = downloads.appendingPathComponent("project.pto")
        try assertSame(["/usr/bin/perl", script("query-project.pl")], files: downloads, zenityKeys: ["ctrl+l", "type:project.pto", "Return"],
                       expected: "ptoinfo \(project.path)\n")
    }

    /// Any file (Python; no title, no filter, zenity by its absolute path from `which`).
    func testAnyFileFromPython() throws {
        let report = downloads.appendingPathComponent("report.pdf")
        try assertSame(["/usr/bin/python3", script("attach-any.py")], zenityKeys: typed(report), expected: "['\(report.path)']\n")
    }

    /// Documents (Python; a filter with two "|", a literal "~/").
    func testADocumentWithTwoFilters() throws {
        let report = downloads.appendingPathComponent("report.pdf")
        try assertSame(["/usr/bin/python3", script("open-document.py")], zenityKeys: typed(report), expected: "\(report.path)\n")
    }

    /// Any file (Node, through the shell; --text and --timeout 0, which a file selection takes).
    func testAnyFileFromNodeWithTextAndNoTimeout() throws {
        let node = ["/usr/bin/node", "/usr/bin/nodejs"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let node else { throw XCTSkip("Node is not installed: run scripts/bootstrap") }
        let report = downloads.appendingPathComponent("report.pdf")
        try assertSame([node, script("ask-file.js")], zenityKeys: typed(report), expected: "return value = <\(report.path)>\n")
    }

    /// Media to play (Lua; a window icon, a stray word after --filename's folder, a real newline
    /// as the separator, a filter with songs in it).
    func testMediaToPlayWithAStrayWordAndANewlineSeparator() throws {
        let song = downloads.appendingPathComponent("song.mp3")
        try assertSame(["/usr/bin/lua5.4", script("open-media.lua")], files: downloads, zenityKeys: ["ctrl+l", "type:song.mp3", "Return"],
                       expected: "loadfile \(song.path) append-play\n")
    }

    /// Files to add (Lua; an empty --filename=, images among other filters and "All Files").
    func testFilesToAddWithAnEmptyFilename() throws {
        let sunset = pictures.appendingPathComponent("sunset.jpg")
        try assertSame(["/usr/bin/lua5.4", script("add-files.lua")], zenityKeys: typed(sunset), expected: "loadfile \(sunset.path) replace\n")
    }

    /// An image viewer's open dialog (bash; `--separator='\n'` as two characters, which zenity
    /// reads as a newline; archives and PDFs among the filters).
    func testAnImageViewersOpenDialogReadsTheEscapedSeparator() throws {
        let sunset = pictures.appendingPathComponent("sunset.jpg")
        try assertSame(["/bin/bash", script("view-images.sh")], zenityKeys: typed(sunset), expected: "@push \(sunset.path)\n")
    }

    /// A folder (bash; --text, --width and --height, which a file selection takes). Cancelled:
    /// GTK 3's folder chooser opens on Recent, where a typed folder cannot be chosen, so the
    /// choice is left to ZenityComparisonTests (with --filename); here both take the options and
    /// answer a cancel alike.
    func testAFolderQuestionsOptionsAndItsCancel() throws {
        try assertSame(["/bin/bash", script("choose-folder.sh")], zenityKeys: ["Escape"], expected: "No has elegido ningún directorio\n")
    }

    /// Saving (bash; --confirm-overwrite, a proposed name): Enter saves under it.
    func testSavingUnderTheProposedName() throws {
        try assertSame(["/bin/bash", script("export-image.sh")], files: downloads, zenityKeys: ["Return"],
                       expected: "@file copy \(downloads.path) export.png\n")
    }
}

private extension FileHandle {
    /// What the pipe holds now, without waiting for its writer to close it (a script's
    /// children may keep it open).
    func availableDataWithoutBlocking() -> Data {
        var data = Data()
        let fd = fileDescriptor
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = Glibc.read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            data.append(contentsOf: buffer[..<count])
        }
        return data
    }
}
