// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// A server that goes away while the picker is open (a NAS switched off, the network down) and
/// comes back: its photos stay listed, marked offline, and come back as they were.
final class RemoteOfflineTests: RemoteWindowTestCase {
    /// The cells of a server that stops answering are dimmed and the window says why, once; a
    /// pick meanwhile fails to copy; back, the cells are as before and the failed copy is made
    /// without the person asking again.
    func testPhotosOfAServerThatGoesAwayAreMarkedOfflineAndComeBack() throws {
        let (server, photos) = try start()
        defer { server.close() }
        let picker = try openPicker(server, photos)
        defer { picker.stop() }
        let before = try brightness(around: firstCell)
        try server.stop()
        XCTAssertTrue(wait(seconds: 30) { picker.errorText.contains("cannot be reached") }, picker.errorText)
        usleep(500_000)
        let offline = try brightness(around: firstCell)
        XCTAssertGreaterThan(abs(offline - before), 30, "the cell is dimmed: \(before), then \(offline)")
        try picker.keys("space")
        XCTAssertTrue(wait { picker.errorText.contains(" failed ") }, "a pick's copy fails while its server is away: \(picker.errorText)")
        try server.start()
        XCTAssertTrue(wait(seconds: 30) { picker.errorText.contains(" fetched ") },
                      "the failed copy is made once the server answers: \(picker.errorText)")
        usleep(500_000)
        let back = try brightness(around: firstCell)
        XCTAssertLessThan(abs(back - before), 8, "the cell is as before: \(before), then \(back)")
        XCTAssertEqual(picker.errorText.components(separatedBy: "cannot be reached").count - 1, 1, "said once: \(picker.errorText)")
        try picker.keys("ctrl+Return")
        let (status, lines) = picker.finish(timeout: 30)
        XCTAssertEqual(status, 0, picker.errorText)
        XCTAssertEqual(lines.first.flatMap { FileManager.default.contents(atPath: $0) },
                       FileManager.default.contents(atPath: photos.appendingPathComponent("IMG_2.JPG").path))
    }

    /// A server that wants a password: the window asks for it (GtkMountOperation's dialog), its
    /// photos come in once it is given, the note that the folder could not be reached goes, and a
    /// pick of one is fetched. A script is told in one line instead.
    func testTheWindowAsksForAServersPasswordAndThenShowsItsPhotos() throws {
        let server = try SFTPServer(password: "s3cret")
        defer { server.close() }
        let photos = TestSupport.temporaryDirectory("remote-password").appendingPathComponent("photos")
        defer { try? FileManager.default.removeItem(at: photos.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let made = try TestSupport.run("/usr/bin/python3", ["-c", """
            import sys
            from PIL import Image
            Image.new("RGB", (320, 240), (200, 90, 60)).save(sys.argv[1] + "/IMG_0001.JPG", quality=90)
            """, photos.path])
        XCTAssertEqual(made.status, 0, made.error)
        let library = server.uri(photos.path)
        let script = try TestSupport.run(TestSupport.photopick, ["ls", "--library", library],
                                         environment: server.environment.merging(["XDG_DATA_HOME": dataHome.path]) { $1 })
        XCTAssertNotEqual(script.status, 0)
        XCTAssertTrue(script.error.contains("cannot be reached"), script.error)

        let picker = try WindowProcess(display: display, arguments: ["--library", library], dataHome: dataHome, cacheHome: cacheHome,
                                       environment: server.environment.merging(["PHOTOPICK_TRACE_FETCH": "1"]) { $1 })
        defer { picker.stop() }
        // The dialog: the window's second, over it (no window manager gives it the keyboard).
        var windows: [String] = []
        XCTAssertTrue(wait {
            windows = ((try? self.display.xdotool(["search", "--onlyvisible", "--class", "photopick"])) ?? "").split(separator: "\n").map(String.init)
            return windows.count >= 2
        }, "the password dialog opens")
        // Before the password, the window says the folder cannot be reached (a dark toast at the bottom).
        let toast = (x: 480, y: 667)
        let darkPixels = { ((try? self.pixels(around: toast)) ?? []).filter { max($0.red, $0.green, $0.blue) < 120 }.count }
        XCTAssertTrue(wait { darkPixels() > 1200 }, "the note that it cannot be reached: \(darkPixels()) dark pixels")
        try display.xdotool(["windowfocus", "--sync", windows.last!])
        usleep(300_000)
        try display.xdotool(["type", "--delay", "20", "s3cret"])
        try picker.keys("Return")
        usleep(500_000)
        try display.xdotool(["windowfocus", "--sync", windows.first!])
        // The photo comes in (its orange fills the first cell): picked and confirmed, it is fetched.
        XCTAssertTrue(wait(seconds: 30) {
            ((try? self.pixels(around: self.firstCell)) ?? []).filter { $0.red > 150 && $0.green < 130 && $0.blue < 100 }.count > 1000
        }, "the server's photo shows once the password is given: \(picker.errorText)")
        XCTAssertTrue(wait { darkPixels() < 100 }, "the note that it could not be reached is gone: \(darkPixels()) dark pixels")
        try picker.keys("space", "ctrl+Return")
        let (status, lines) = picker.finish(timeout: 30)
        XCTAssertEqual(status, 0, picker.errorText)
        XCTAssertEqual(lines.first.flatMap { FileManager.default.contents(atPath: $0) },
                       FileManager.default.contents(atPath: photos.appendingPathComponent("IMG_0001.JPG").path))
    }
}
