// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// What the window tests of photos on another machine share: a throttled SFTP server (Tests/Remote/
/// sftp-server) holding three camera-sized photos, the picker on them with its fetch trace, and
/// what the display shows of a cell.
class RemoteWindowTestCase: WindowTestCase {
    override var requiredTools: [String] { ["/usr/bin/exiftool", "/usr/bin/import", "/usr/sbin/tc"] }

    /// The first cell's centre, where its ring and the ring's button are (the window opens at the
    /// top left of the display, 960 points wide: cells of 130 points).
    let firstCell = (x: 75, y: 122)

    /// A throttled server (unthrottled until the test limits it) and three 2-3 MB camera-sized
    /// photos of a brown noise (no blue in them: the ring's accent colour stands out), IMG_2 the newest.
    func start() throws -> (SFTPServer, URL) {
        let server = try SFTPServer(throttled: true)
        let photos = TestSupport.temporaryDirectory("remote-fetch").appendingPathComponent("photos")
        addTeardownBlock { try? FileManager.default.removeItem(at: photos.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let script = """
            import sys
            from PIL import Image
            for index in range(3):
                grey = Image.effect_noise((2000, 1500), 40 + 5 * index)
                Image.merge("RGB", (grey, grey.point(lambda v: v // 2), grey.point(lambda v: v // 3))).save(f"{sys.argv[1]}/IMG_{index}.JPG", quality=95)
            """
        let made = try TestSupport.run("/usr/bin/python3", ["-c", script, photos.path])
        XCTAssertEqual(made.status, 0, made.error)
        for index in 0..<3 {
            XCTAssertNil(try TestSupport.setCaptureDate("2024:05:0\(index + 1) 12:00:00", of: photos.appendingPathComponent("IMG_\(index).JPG").path))
        }
        return (server, photos)
    }

    /// The picker on the photos through the server, once their cells have downloaded them for
    /// their thumbnails (so that the link is the copy's alone when the test slows it).
    func openPicker(_ server: SFTPServer, _ photos: URL, arguments: [String] = ["--multiple"], environment: [String: String] = [:],
                    title: String = "Pick Photos") throws -> WindowProcess {
        let picker = try WindowProcess(display: display, arguments: arguments + ["--library", server.uri(photos.path)],
                                       dataHome: dataHome, cacheHome: cacheHome,
                                       environment: server.environment.merging(["PHOTOPICK_TRACE_FETCH": "1"]) { $1 }.merging(environment) { $1 },
                                       title: title)
        let files = (0..<3).map { photos.appendingPathComponent("IMG_\($0).JPG") }
        XCTAssertTrue(wait(seconds: 30) { server.hasReadWhole(files) }, "the cells downloaded their photos: \(server.bytesRead())")
        usleep(500_000)
        // (The keyboard to the picker: no window manager runs, and in CI a first space after the
        // remote setup picked nothing, once in this test's helper below and once in a test
        // that picks three.)
        try display.xdotool(["windowfocus", "--sync", picker.windowID])
        return picker
    }

    /// The fractions the store held for the first copy, in order (PHOTOPICK_TRACE_FETCH).
    func fractions(_ picker: WindowProcess) -> [Double] {
        let lines = picker.errorText.split(separator: "\n").filter { $0.hasPrefix("photopick: fetch ") }
        guard let first = lines.first?.split(separator: " ").dropFirst(2).first else { return [] }
        return lines.compactMap { line in
            let words = line.split(separator: " ")
            guard words.count == 5, words[2] == first, words[3] == "fetching" else { return nil }
            return Double(words[4])
        }
    }

    /// Picks the newest photo on a link slowed to 2 Mbit/s and waits until its copy is past
    /// `fraction`: a copy under way, for what a test then does to it.
    func pickWithACopyUnderWay(_ picker: WindowProcess, _ server: SFTPServer, past fraction: Double = 0.05) throws {
        try server.limitRate("2mbit")
        // (The keyboard to the picker again: no window manager runs, and once in CI this space
        // picked nothing after the remote setup.)
        try display.xdotool(["windowfocus", "--sync", picker.windowID])
        try picker.keys("space")
        XCTAssertTrue(wait { (self.fractions(picker).last ?? 0) > fraction }, picker.errorText)
    }

    /// The temporary files of copies under way (or left behind).
    func partialFiles() -> [String] {
        let folder = cacheHome.appendingPathComponent("photopick/fetched")
        let all = FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []
        return all.filter { ($0 as NSString).lastPathComponent.hasPrefix(".fetching-") }
    }

    /// How many pixels of the 60-point square around `point` are clearly blue: the ring's copied
    /// part (the photos are brown, the ring's track white, its disc dark).
    func bluePixels(around point: (x: Int, y: Int)) throws -> Int {
        try pixels(around: point).filter { $0.blue > $0.red + 80 }.count
    }

    /// The mean brightness (0-255) of the 60-point square around `point`.
    func brightness(around point: (x: Int, y: Int)) throws -> Double {
        let pixels = try pixels(around: point)
        return pixels.reduce(0.0) { $0 + Double($1.red + $1.green + $1.blue) / 3 } / Double(max(pixels.count, 1))
    }
}
