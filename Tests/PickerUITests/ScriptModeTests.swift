// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// What Photopick's window offers scripts beyond zenity: -0, --json, --uri, --copy-to, --filename
/// deep in a folder or outside the library, --attach and the window's size; each checked as the
/// script would see it, on a folder of files made here.
final class ScriptModeTests: WindowTestCase {
    override var requiredTools: [String] { ["/usr/bin/convert", "/usr/bin/zenity", "/usr/bin/xprop"] }
    override var copiesDemoLibrary: Bool { false }

    private var folder: URL!
    /// Newest first, as the grid shows them.
    private var names: [String] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = TestSupport.temporaryDirectory("script-files").appendingPathComponent("Photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        names = ["new photo.jpg", "ünïcode.jpg", "third.jpg"] + (4...60).map { String(format: "older-%02d.jpg", $0) }
        try makePhotos(names, in: folder)
    }

    /// JPEGs with no metadata, dated by their file times one day apart, newest first.
    private func makePhotos(_ names: [String], in folder: URL) throws {
        let first = folder.appendingPathComponent("first.jpg").path
        let made = try TestSupport.run("/usr/bin/convert", ["-size", "48x32", "xc:rgb(30,120,200)", first])
        XCTAssertEqual(made.status, 0, made.error)
        for (index, name) in names.enumerated() {
            let path = folder.appendingPathComponent(name).path
            try FileManager.default.copyItem(atPath: first, toPath: path)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000 - Double(index) * 86_400)], ofItemAtPath: path)
        }
        try FileManager.default.removeItem(atPath: first)
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private func pick(_ arguments: [String], keys: [String], library: URL? = nil) throws -> (status: Int32, output: Data, errors: String) {
        let window = try WindowProcess(display: display, arguments: ["--library", (library ?? folder).path, "--no-camera"] + arguments,
                                       dataHome: dataHome, cacheHome: cacheHome)
        usleep(400_000)
        for key in keys { try window.keys(key) }
        let (status, output) = window.finishWithBytes()
        return (status, output, window.errorText)
    }

    func testNullTerminatedPathsInPickOrder() throws {
        let result = try pick(["-0"], keys: ["Right", "space", "Left", "space", "ctrl+Return"])
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertEqual(result.output, Data((path(names[1]) + "\0" + path(names[0]) + "\0").utf8))
    }

    func testJSONDescribesThePicksInPickOrder() throws {
        let result = try pick(["--json"], keys: ["Right", "Right", "space", "Left", "Left", "space", "ctrl+Return"])
        XCTAssertEqual(result.status, 0, result.errors)
        let objects = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.output) as? [[String: Any]])
        XCTAssertEqual(objects.map { $0["path"] as? String }, [path(names[2]), path(names[0])])
        XCTAssertEqual(objects.first?["mime_type"] as? String, "image/jpeg")
        XCTAssertEqual(objects.first?["width"] as? Int, 48)
        XCTAssertNotNil(objects.first?["captured_at"] as? String)
    }

    func testURIsArePercentEncoded() throws {
        let result = try pick(["--uri"], keys: ["space", "Right", "space", "ctrl+Return"])
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self).split(separator: "\n"),
                       [URL(fileURLWithPath: path(names[0])).absoluteString, URL(fileURLWithPath: path(names[1])).absoluteString].map { Substring($0) })
        XCTAssertTrue(String(decoding: result.output, as: UTF8.self).hasPrefix("file:///"))
        XCTAssertTrue(String(decoding: result.output, as: UTF8.self).contains("new%20photo.jpg"))
    }

    /// The copies are printed, never replace a file, keep the original's time; the originals
    /// are untouched.
    func testCopyToCopiesWithoutReplacingAndPrintsTheCopies() throws {
        let destination = TestSupport.temporaryDirectory("copy-to")
        let taken = destination.appendingPathComponent("new photo.jpg")
        try Data("already here".utf8).write(to: taken)
        let before = try Data(contentsOf: URL(fileURLWithPath: path(names[0])))
        let beforeTime = try FileManager.default.attributesOfItem(atPath: path(names[0]))[.modificationDate] as? Date
        let result = try pick(["--copy-to", destination.path], keys: ["space", "Right", "space", "ctrl+Return"])
        XCTAssertEqual(result.status, 0, result.errors)
        let printed = String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(printed, [destination.appendingPathComponent("new photo_2.jpg").path, destination.appendingPathComponent(names[1]).path])
        XCTAssertEqual(try Data(contentsOf: taken), Data("already here".utf8), "a file of that name is never replaced")
        for (copy, name) in zip(printed, names) {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: copy)), before, "\(copy) is a copy of \(name)")
            XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: copy)[.modificationDate] as? Date,
                           try FileManager.default.attributesOfItem(atPath: path(name))[.modificationDate] as? Date, "the original's time")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path(names[0]))), before)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path(names[0]))[.modificationDate] as? Date, beforeTime)
        let left = try FileManager.default.contentsOfDirectory(atPath: destination.path).sorted()
        XCTAssertEqual(left, [names[0], "new photo_2.jpg", names[1]].sorted(), "no temporary file is left")
    }

    /// A pick whose file is deleted while the window is open leaves the picks with a word, not
    /// silently (issue 19, defect 11).
    func testAPickDeletedWhileOpenIsSaid() throws {
        let window = try WindowProcess(display: display, arguments: ["--library", folder.path, "--no-camera"], dataHome: dataHome, cacheHome: cacheHome)
        usleep(400_000)
        // (A first run: the photos show once they are dated, and keys before then went elsewhere;
        // Ctrl+Return was then lost one run in five in debug builds, b722393 included.)
        try display.waitUntilStill()
        try window.keys("space", "Right", "space")
        XCTAssertEqual(unlink(path(names[0])), 0)
        var said = false
        for _ in 0..<50 where !said {
            usleep(100_000)
            said = window.errorText.contains("1 picked photo was deleted or moved, so it is no longer picked")
        }
        XCTAssertTrue(said, window.errorText)
        // (Once the toast that says it has come in, as a person would: a key pressed while it
        // slides in was lost once under a loaded CI.)
        try display.waitUntilStill()
        try window.keys("ctrl+Return")
        let (status, output) = window.finishWithBytes()
        XCTAssertEqual(status, 0, window.errorText)
        XCTAssertEqual(String(decoding: output, as: UTF8.self), path(names[1]) + "\n")
    }

    /// A library folder deleted and made again while the window is open is noticed: its photos
    /// show again (it stayed "No … Folder" for good: issue 19, defect 14).
    func testALibraryFolderThatComesBackIsNoticed() throws {
        let window = try WindowProcess(display: display, arguments: ["--library", folder.path, "--no-camera"], dataHome: dataHome, cacheHome: cacheHome)
        usleep(400_000)
        try FileManager.default.removeItem(at: folder)
        usleep(3_000_000)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try makePhotos(["back again.jpg"], in: folder)
        usleep(6_000_000)  // looked for every 2 s, then read again
        // (The focus left the grid with its photos: a click picks the one that came back.)
        try window.click(x: 75, y: 115)
        try window.keys("ctrl+Return")
        let (status, output) = window.finishWithBytes()
        XCTAssertEqual(status, 0, window.errorText)
        XCTAssertEqual(String(decoding: output, as: UTF8.self), path("back again.jpg") + "\n")
    }

    /// A pick deleted just before confirming is not printed (the watcher may not have seen it
    /// yet: each path is checked at the moment of printing); the others are.
    func testAPickDeletedJustBeforeConfirmingIsNotPrinted() throws {
        let window = try WindowProcess(display: display, arguments: ["--library", folder.path, "--no-camera"], dataHome: dataHome, cacheHome: cacheHome)
        usleep(400_000)
        try window.keys("space", "Right", "space")
        XCTAssertEqual(unlink(path(names[1])), 0)
        try window.keys("ctrl+Return")
        let (status, output) = window.finishWithBytes()
        XCTAssertEqual(status, 0, window.errorText)
        XCTAssertEqual(String(decoding: output, as: UTF8.self), path(names[0]) + "\n")
    }

    /// --filename naming a file far down the folder: it has the focus, so Enter chooses it.
    func testAFileNamedByFilenameHasTheFocusEvenFarDown() throws {
        let target = names[47]
        let result = try pick(["--file-selection", "--filename=\(path(target))"], keys: ["Return"])
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self), path(target) + "\n")
    }

    /// A folder outside the library (zenity opens any folder): its album opens, for this run.
    func testAFolderOutsideTheLibraryOpensAsItsAlbum() throws {
        let elsewhere = TestSupport.temporaryDirectory("elsewhere").appendingPathComponent("Downloads")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try makePhotos(["downloaded.jpg", "older download.jpg"], in: elsewhere)
        let result = try pick(["--file-selection", "--filename=\(elsewhere.path)/"], keys: ["Return"])
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self), elsewhere.appendingPathComponent("downloaded.jpg").path + "\n")
    }

    /// A name that does not exist yet opens its nearest existing folder, as zenity does (it
    /// exited 255 before any window, which a script takes for a cancel: issue 19, defects 4, 17).
    func testAFilenameThatDoesNotExistYetOpensItsNearestFolder() throws {
        let trip = folder.appendingPathComponent("Trip")
        try FileManager.default.createDirectory(at: trip, withIntermediateDirectories: true)
        try makePhotos(["beach.jpg", "dunes.jpg"], in: trip)
        for (given, verbose) in [(trip.appendingPathComponent("not-yet.jpg").path, false), (trip.appendingPathComponent("Wallpapers/deeper/").path, true)] {
            let result = try pick(["--file-selection", "--filename=\(given)"] + (verbose ? ["--verbose"] : []), keys: ["Return"])
            XCTAssertEqual(result.status, 0, "\(given): \(result.errors)")
            XCTAssertEqual(String(decoding: result.output, as: UTF8.self), trip.appendingPathComponent("beach.jpg").path + "\n",
                           "\(given): Trip's album opened, its newest photo focused")
            // As zenity, silent about it; --verbose says what was opened (issue 40, point 4).
            XCTAssertEqual(result.errors.contains("opening \(trip.path)"), verbose, result.errors)
        }
    }

    /// A folder whose photos are all in its subfolders (the README's "$HOME/Pictures/Trip/", a
    /// folder a day) opens with them, in the library or outside it; a folder with no photo
    /// anywhere below it opens empty, not on the library's Recents (issue 40, point 9: both
    /// opened Recents).
    func testAFolderOfFoldersOpensWithItsSubfolders() throws {
        for trip in [folder.appendingPathComponent("Trip"), TestSupport.temporaryDirectory("elsewhere-trip").appendingPathComponent("Trip")] {
            for day in ["2024-06-02", "2024-06-01"] {
                try FileManager.default.createDirectory(at: trip.appendingPathComponent(day), withIntermediateDirectories: true)
            }
            try makePhotos(["day two.jpg"], in: trip.appendingPathComponent("2024-06-02"))
            try makePhotos(["day one.jpg"], in: trip.appendingPathComponent("2024-06-01"))
            // (The newest photo of the library is newer than both: Recents would give it.)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_600_000_000)],
                                                  ofItemAtPath: trip.appendingPathComponent("2024-06-02/day two.jpg").path)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_590_000_000)],
                                                  ofItemAtPath: trip.appendingPathComponent("2024-06-01/day one.jpg").path)
            let result = try pick(["--file-selection", "--multiple", "--filename=\(trip.path)/"], keys: ["space", "Right", "space", "ctrl+Return"])
            XCTAssertEqual(result.status, 0, result.errors)
            XCTAssertEqual(String(decoding: result.output, as: UTF8.self),
                           trip.appendingPathComponent("2024-06-02/day two.jpg").path + "|" + trip.appendingPathComponent("2024-06-01/day one.jpg").path + "\n",
                           "\(trip.path): both days, newest first")
        }
        let empty = TestSupport.temporaryDirectory("elsewhere-empty").appendingPathComponent("Nothing Here")
        try FileManager.default.createDirectory(at: empty.appendingPathComponent("Sub"), withIntermediateDirectories: true)
        let result = try pick(["--file-selection", "--filename=\(empty.path)/"], keys: ["Return", "Escape"])
        XCTAssertEqual(result.status, 1, "Enter chose nothing in the empty folder: \(result.errors)")
        XCTAssertEqual(result.output, Data())
    }

    /// A name whose nearest folder holds the whole library (or is /) opens Recents, never indexing
    /// the whole disk.
    func testAFilenameNowhereOpensRecents() throws {
        let result = try pick(["--file-selection", "--filename=/nowhere/at/all.jpg", "--verbose"], keys: ["Return"])
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self), path(names[0]) + "\n")
        XCTAssertTrue(result.errors.contains("--filename /nowhere/at/all.jpg: No such file or directory; opening Recents"), result.errors)
    }

    /// Ctrl+L takes a typed path, as zenity's chooser does: a file the filter hides, or one
    /// outside the library, is the answer (issue 19, defect 19). A folder is refused in words,
    /// Escape closes the bar, a second Escape cancels.
    func testControlLTakesATypedPath() throws {
        let elsewhere = TestSupport.temporaryDirectory("typed").appendingPathComponent("report.pdf")
        try Data("%PDF-1.4 not a photo".utf8).write(to: elsewhere)
        let filtered = try WindowProcess(display: display, arguments: ["--library", folder.path, "--no-camera", "--file-selection",
                                                                        "--file-filter=PNG images | *.png"], dataHome: dataHome, cacheHome: cacheHome)
        usleep(400_000)
        try filtered.keys("ctrl+l")
        try display.xdotool(["type", "--delay", "15", elsewhere.path])
        try filtered.keys("Return")
        let typed = filtered.finishWithBytes()
        XCTAssertEqual(typed.status, 0, filtered.errorText)
        XCTAssertEqual(String(decoding: typed.output, as: UTF8.self), elsewhere.path + "\n")

        let window = try WindowProcess(display: display, arguments: ["--library", folder.path, "--no-camera", "--file-selection"],
                                       dataHome: dataHome, cacheHome: cacheHome)
        usleep(400_000)
        try window.keys("ctrl+l")
        try display.xdotool(["type", "--delay", "15", folder.path])
        try window.keys("Return")
        usleep(400_000)
        XCTAssertTrue(window.isRunning, "a folder is no answer: the picker stays")
        try window.keys("Escape")
        usleep(300_000)
        XCTAssertTrue(window.isRunning, "the first Escape closes the bar")
        try window.keys("Escape")
        let (status, output) = window.finishWithBytes()
        XCTAssertEqual(status, 1)
        XCTAssertEqual(output, Data())
    }

    /// --attach makes the window transient for the other program's window; --width and
    /// --height size it (and are not remembered as the person's size).
    func testAttachAndSize() throws {
        let parent = try WindowProcess(display: display, executable: "/usr/bin/zenity", arguments: ["--info", "--text=parent", "--title=Parent Window"],
                                       dataHome: dataHome, cacheHome: cacheHome, environment: ["HOME": dataHome.path], title: "Parent Window")
        defer { parent.stop() }
        let window = try WindowProcess(display: display, arguments: ["--library", folder.path, "--no-camera", "--attach", parent.windowID,
                                                                     "--modal", "--width", "500", "--height", "420"],
                                       dataHome: dataHome, cacheHome: cacheHome)
        defer { window.stop() }
        let hint = try TestSupport.run("/usr/bin/xprop", ["-id", window.windowID, "WM_TRANSIENT_FOR"], environment: ["DISPLAY": display.name])
        let parentHex = "0x" + String(UInt(parent.windowID)!, radix: 16)
        XCTAssertTrue(String(decoding: hint.output, as: UTF8.self).contains(parentHex), String(decoding: hint.output, as: UTF8.self) + " " + parentHex)
        let geometry = try display.xdotool(["getwindowgeometry", window.windowID])
        XCTAssertTrue(geometry.contains("Geometry: 500x420"), geometry)
        try window.keys("Escape")
        XCTAssertEqual(window.finish().status, 1)
        let state = try String(contentsOf: dataHome.appendingPathComponent("state/photopick/state.ini"), encoding: .utf8)
        XCTAssertFalse(state.contains("500"), "a script's size is not the person's: \(state)")
    }
}
