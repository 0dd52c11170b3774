// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// A first run on a library on another machine (a real SFTP server on loopback, on a link the
/// test slows down): the grid opens on its final first screen before every file is read, and the
/// rest arrives below it.
final class RemoteFirstRunTests: RemoteWindowTestCase {
    override var requiredTools: [String] { ["/usr/bin/import", "/usr/sbin/tc"] }

    static let photoCount = 400
    /// The newest photos' colours, newest first (the others are grey): the first row of the grid.
    static let newestColours: [(red: Int, green: Int, blue: Int)] = [
        (220, 40, 40), (40, 200, 40), (40, 60, 220), (230, 210, 40), (210, 40, 210), (40, 210, 210),
    ]

    /// The newest photos fill the first screen as soon as they are read (files are read newest
    /// first, and a photo is not taken after its file was written): the grid shows them while
    /// most files are still unread, and what it shows then is what it shows once all are read.
    func testTheFirstScreenShowsBeforeEveryFileIsReadAndStaysAsItIs() throws {
        let server = try SFTPServer(throttled: true)
        defer { server.close() }
        let photos = try makePhotos()
        try server.limitRate("4mbit")
        let picker = try WindowProcess(display: display, arguments: ["--multiple", "--library", server.uri(photos.path)],
                                       dataHome: dataHome, cacheHome: cacheHome,
                                       environment: server.environment.merging(["PHOTOPICK_TRACE_STARTUP": "1"]) { $1 })
        defer { picker.stop() }
        XCTAssertTrue(wait(seconds: 60) { picker.errorText.contains("showing the scanned library") }, picker.errorText)
        let readWhenShown = photosRead(server, photos)
        XCTAssertLessThan(readWhenShown, Self.photoCount * 3 / 4, "the grid opened while most files were still unread")
        XCTAssertGreaterThanOrEqual(readWhenShown, 240, "a first screen's worth of the newest photos was read first")
        var shown = try firstRow()
        XCTAssertTrue(wait(seconds: 30) { shown = (try? self.firstRow()) ?? shown; return self.isNewestInOrder(shown) },
                      "the first row shows the newest photos: \(shown)")

        XCTAssertTrue(wait(seconds: 90) { self.photosRead(server, photos) == Self.photoCount }, "every file was read in the end")
        // (Rows are handed to the grid every half second.)
        usleep(1_500_000)
        let after = try firstRow()
        assertNewestInOrder(after, "the first row, once every file was read")
        XCTAssertEqual(picker.problems, "")
        _ = picker.finish(timeout: 0)

        let listed = try TestSupport.run(TestSupport.photopick, ["ls", "--library", server.uri(photos.path)],
                                         environment: server.environment.merging(["XDG_DATA_HOME": dataHome.path,
                                                                                  "XDG_CACHE_HOME": cacheHome.path]) { $1 })
        XCTAssertEqual(listed.status, 0, listed.error)
        let paths = String(decoding: listed.output, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(paths.count, Self.photoCount, "every photo is in the index")
        XCTAssertEqual(paths.first.map(String.init), server.uri(photos.appendingPathComponent(Self.name(Self.photoCount - 1)).path),
                       "the newest first")
    }

    static func name(_ index: Int) -> String { String(format: "IMG_%04d.JPG", index) }

    /// How many of the photos the server has read (and closed) so far.
    private func photosRead(_ server: SFTPServer, _ photos: URL) -> Int {
        server.bytesRead().keys.filter { $0.hasPrefix(photos.path + "/") }.count
    }

    /// The mean colour of the middle of each of the first row's first six cells.
    private func firstRow() throws -> [(red: Int, green: Int, blue: Int)] {
        try (0..<Self.newestColours.count).map { column in
            let pixels = try pixels(around: (x: firstCell.x + 130 * column, y: firstCell.y))
            let count = max(pixels.count, 1)
            return (pixels.map(\.red).reduce(0, +) / count, pixels.map(\.green).reduce(0, +) / count,
                    pixels.map(\.blue).reduce(0, +) / count)
        }
    }

    private func isNewestInOrder(_ row: [(red: Int, green: Int, blue: Int)]) -> Bool {
        zip(row, Self.newestColours).allSatisfy { seen, expected in
            abs(seen.red - expected.red) + abs(seen.green - expected.green) + abs(seen.blue - expected.blue) < 60
        }
    }

    private func assertNewestInOrder(_ row: [(red: Int, green: Int, blue: Int)], _ what: String,
                                     file: StaticString = #filePath, line: UInt = #line) {
        for (column, (seen, expected)) in zip(row, Self.newestColours).enumerated() {
            let distance = abs(seen.red - expected.red) + abs(seen.green - expected.green) + abs(seen.blue - expected.blue)
            XCTAssertLessThan(distance, 60, "\(what): cell \(column + 1) shows \(seen), the photo \(column + 1) from the newest is \(expected)",
                              file: file, line: line)
        }
    }

    /// `photoCount` camera-like photos (160x120, 8-10 KB of noise), one an hour from 2024-01-01,
    /// each file written a minute after its photo was taken; the newest six in the colours above.
    private func makePhotos() throws -> URL {
        let photos = TestSupport.temporaryDirectory("remote-first-run").appendingPathComponent("photos")
        addTeardownBlock { try? FileManager.default.removeItem(at: photos.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let colours = Self.newestColours.map { "(\($0.red), \($0.green), \($0.blue))" }.joined(separator: ", ")
        let script = """
            import calendar, os, struct, sys
            from PIL import Image
            folder, count, colours = sys.argv[1], int(sys.argv[2]), [\(colours)]
            def exif(date):
                # A TIFF header, IFD0 pointing to an EXIF IFD holding only DateTimeOriginal.
                text = date.encode() + b"\\0"
                tiff = b"II*\\0" + struct.pack("<I", 8)
                tiff += struct.pack("<HHHIII", 1, 0x8769, 4, 1, 26, 0)
                tiff += struct.pack("<HHHIII", 1, 0x9003, 2, len(text), 44, 0)
                return b"Exif\\0\\0" + tiff + text
            start = calendar.timegm((2024, 1, 1, 0, 0, 0))
            for index in range(count):
                newest = count - 1 - index
                base = colours[newest] if newest < len(colours) else (128, 128, 128)
                noise = Image.effect_noise((160, 120), 12)
                photo = Image.merge("RGB", [noise.point(lambda v, b=b: max(0, min(255, v - 128 + b))) for b in base])
                taken = start + index * 3600
                path = os.path.join(folder, "IMG_%04d.JPG" % index)
                photo.save(path, quality=92, exif=exif("%04d:%02d:%02d %02d:%02d:%02d" % tuple(__import__("time").gmtime(taken)[:6])))
                os.utime(path, (taken + 60, taken + 60))
            """
        let made = try TestSupport.run("/usr/bin/python3", ["-c", script, photos.path, String(Self.photoCount)])
        XCTAssertEqual(made.status, 0, made.error)
        return photos
    }
}
