import Foundation
import TestSupport
import XCTest

/// Picking photos that live on another machine (a real SFTP server on loopback, reached through
/// gvfs, on a link the test slows down): each pick is copied here in the background with a ring
/// in its cell, the answer waits for the copies and gives local files, a copy can be cancelled
/// from its cell, and one that fails says why and can be tried again.
final class RemoteFetchTests: WindowTestCase {
    override var requiredTools: [String] { ["/usr/bin/exiftool", "/usr/bin/import", "/usr/sbin/tc"] }

    /// The first cell's centre, where its ring and the ring's button are (the window opens at the
    /// top left of the display, 960 points wide: cells of 130 points).
    private let firstCell = (x: 75, y: 122)

    /// A pick shows a ring that fills (at least three increasing fractions in the store) and the
    /// confirm, pressed while it is copied, waits and answers with a local file equal to the remote one.
    func testAPickIsFetchedWithARingAndAnsweredWithItsLocalCopy() throws {
        let (server, photos) = try start()
        defer { server.close() }
        let picker = try openPicker(server, photos)
        defer { picker.stop() }
        try server.limitRate("8mbit")
        try picker.keys("space")
        XCTAssertTrue(wait { self.fractions(picker).count >= 2 }, picker.errorText)
        let ring = try bluePixels(around: firstCell)
        XCTAssertGreaterThan(ring, 10, "the cell shows the ring filling in the accent colour")
        try picker.keys("ctrl+Return")
        let (status, lines) = picker.finish(timeout: 60)
        XCTAssertEqual(status, 0, picker.errorText)
        let fractions = self.fractions(picker)
        XCTAssertGreaterThanOrEqual(fractions.filter { $0 > 0 && $0 < 1 }.count, 3, "progress as the copy went: \(fractions)")
        XCTAssertEqual(fractions, fractions.sorted(), "the fraction only grows")
        XCTAssertEqual(lines.count, 1, picker.errorText)
        let copy = try XCTUnwrap(lines.first)
        XCTAssertTrue(copy.hasPrefix(cacheHome.appendingPathComponent("photopick/fetched").path), copy)
        XCTAssertEqual(URL(fileURLWithPath: copy).lastPathComponent, "IMG_2.JPG", "the newest photo, under its own name")
        XCTAssertEqual(FileManager.default.contents(atPath: copy), FileManager.default.contents(atPath: photos.appendingPathComponent("IMG_2.JPG").path))
        XCTAssertEqual(partialFiles(), [], "no temporary file is left")
    }

    /// The ring's button stops the copy: its partial file goes and the photo is unpicked, so the
    /// answer holds only the photo picked after it.
    func testTheCellsCancelButtonStopsTheCopyAndUnpicks() throws {
        let (server, photos) = try start()
        defer { server.close() }
        let picker = try openPicker(server, photos)
        defer { picker.stop() }
        try server.limitRate("2mbit")
        try picker.keys("space")
        XCTAssertTrue(wait { (self.fractions(picker).last ?? 0) > 0.05 }, picker.errorText)
        XCTAssertEqual(partialFiles().count, 1, "the copy is written under a temporary name")
        try picker.click(x: firstCell.x, y: firstCell.y)
        XCTAssertTrue(wait { picker.errorText.contains(" cancelled") }, picker.errorText)
        XCTAssertTrue(wait { self.partialFiles().isEmpty }, "the partial file is removed: \(partialFiles())")
        try server.limitRate("off")
        try picker.keys("Right", "space", "ctrl+Return")
        let (status, lines) = picker.finish(timeout: 60)
        XCTAssertEqual(status, 0, picker.errorText)
        XCTAssertEqual(lines.map { URL(fileURLWithPath: $0).lastPathComponent }, ["IMG_1.JPG"], "the cancelled pick was unpicked")
        XCTAssertEqual(lines.first.flatMap { FileManager.default.contents(atPath: $0) },
                       FileManager.default.contents(atPath: photos.appendingPathComponent("IMG_1.JPG").path))
    }

    /// The server going away mid-copy: the cell says the copy failed, a confirm keeps the window
    /// open (no partial or missing file is given), and the cell's retry button, once the server
    /// is back, copies it.
    func testACopyThatFailsSaysWhyAndCanBeTriedAgain() throws {
        let (server, photos) = try start()
        defer { server.close() }
        let picker = try openPicker(server, photos)
        defer { picker.stop() }
        try server.limitRate("2mbit")
        try picker.keys("space")
        XCTAssertTrue(wait { (self.fractions(picker).last ?? 0) > 0.05 }, picker.errorText)
        try server.stop()
        XCTAssertTrue(wait { picker.errorText.contains(" failed ") }, picker.errorText)
        XCTAssertTrue(wait { self.partialFiles().isEmpty }, "the partial file is removed: \(partialFiles())")
        try picker.keys("ctrl+Return")
        usleep(1_500_000)
        XCTAssertTrue(picker.isRunning, "a confirm with a failed copy keeps the window open")
        try server.start()
        try server.limitRate("off")
        try picker.click(x: firstCell.x, y: firstCell.y)  // the retry button
        XCTAssertTrue(wait(seconds: 30) { picker.errorText.contains(" fetched ") }, picker.errorText)
        try picker.keys("ctrl+Return")
        let (status, lines) = picker.finish(timeout: 30)
        XCTAssertEqual(status, 0, picker.errorText)
        XCTAssertEqual(lines.count, 1)
        XCTAssertEqual(lines.first.flatMap { FileManager.default.contents(atPath: $0) },
                       FileManager.default.contents(atPath: photos.appendingPathComponent("IMG_2.JPG").path))
    }

    // MARK: Helpers

    /// A throttled server (unthrottled until the test limits it) and three 2-3 MB camera-sized
    /// photos of a brown noise (no blue in them: the ring's accent colour stands out), IMG_2 the newest.
    private func start() throws -> (SFTPServer, URL) {
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
    private func openPicker(_ server: SFTPServer, _ photos: URL) throws -> WindowProcess {
        let picker = try WindowProcess(display: display, arguments: ["--multiple", "--library", server.uri(photos.path)],
                                       dataHome: dataHome, cacheHome: cacheHome,
                                       environment: server.environment.merging(["PHOTOPICK_TRACE_FETCH": "1"]) { $1 })
        let sizes = try (0..<3).map { index -> (String, Int) in
            let path = photos.appendingPathComponent("IMG_\(index).JPG").path
            return (path, try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0)
        }
        XCTAssertTrue(wait(seconds: 30) {
            let read = server.bytesRead()
            return sizes.allSatisfy { (read[$0.0] ?? 0) >= $0.1 }
        }, "the cells downloaded their photos: \(server.bytesRead())")
        usleep(500_000)
        return picker
    }

    /// The fractions the store held for the first copy, in order (PHOTOPICK_TRACE_FETCH).
    private func fractions(_ picker: WindowProcess) -> [Double] {
        let lines = picker.errorText.split(separator: "\n").filter { $0.hasPrefix("photopick: fetch ") }
        guard let first = lines.first?.split(separator: " ").dropFirst(2).first else { return [] }
        return lines.compactMap { line in
            let words = line.split(separator: " ")
            guard words.count == 5, words[2] == first, words[3] == "fetching" else { return nil }
            return Double(words[4])
        }
    }

    /// The temporary files of copies under way (or left behind).
    private func partialFiles() -> [String] {
        let folder = cacheHome.appendingPathComponent("photopick/fetched")
        let all = FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []
        return all.filter { ($0 as NSString).lastPathComponent.hasPrefix(".fetching-") }
    }

    /// How many pixels of the 60-point square around `point` are clearly blue: the ring's copied
    /// part (the photos are brown, the ring's track white, its disc dark).
    private func bluePixels(around point: (x: Int, y: Int)) throws -> Int {
        let shot = try TestSupport.run("/usr/bin/import", ["-window", "root", "-crop", "60x60+\(point.x - 30)+\(point.y - 30)", "txt:-"],
                                       environment: ["DISPLAY": display.name])
        XCTAssertEqual(shot.status, 0, shot.error)
        let pattern = try NSRegularExpression(pattern: #"\((\d+),(\d+),(\d+)"#)
        return String(decoding: shot.output, as: UTF8.self).split(separator: "\n").filter { line in
            let text = String(line)
            guard let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return false }
            let value = { (index: Int) in Int(text[Range(match.range(at: index), in: text)!]) ?? 0 }
            return value(3) > value(1) + 80
        }.count
    }

    private func wait(seconds: TimeInterval = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(100_000)
        }
        return condition()
    }
}
