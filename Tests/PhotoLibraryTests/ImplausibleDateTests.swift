// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// Capture dates a camera's clock got wrong: 2099, or before 1900. They are not believed, and the
/// file's modification time is used instead, so such a photo does not sit above today's photos
/// in Recents for ever. A clock a few hours fast (a time zone ahead) is still believed.
final class ImplausibleDateTests: XCTestCase {
    private var library: URL!

    override func setUpWithError() throws {
        for tool in ["/usr/bin/convert", "/usr/bin/exiftool", "/usr/bin/touch"] where !FileManager.default.isExecutableFile(atPath: tool) {
            XCTFail("\(tool) is missing: run scripts/bootstrap")
            throw XCTSkip("no \(tool)")
        }
        library = TestSupport.temporaryDirectory("dates")
    }

    /// A JPEG with `dateTimeOriginal` (EXIF text) and the given modification time (touch -d).
    private func photo(_ name: String, dateTimeOriginal: String, modified: String) throws {
        let path = library.appendingPathComponent(name).path
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "8x8", "xc:blue", path]).status, 0)
        let tagged = try TestSupport.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=\(dateTimeOriginal)",
                                                                "-XMP-exif:DateTimeOriginal=\(dateTimeOriginal)", path])
        XCTAssertEqual(tagged.status, 0, tagged.error)
        XCTAssertEqual(try TestSupport.run("/usr/bin/touch", ["-d", modified, path]).status, 0)
    }

    private func video(_ name: String, createdAt: Int64, modified: String) throws {
        let url = try HostileFiles.write(HostileFiles.mp4(duration: 5000, timescale: 1000, createdAt: createdAt), to: library, name: name)
        XCTAssertEqual(try TestSupport.run("/usr/bin/touch", ["-d", modified, url.path]).status, 0)
    }

    /// `ls --json` in Recents order: (file name, captured_at, date_source).
    private func recents() throws -> [(name: String, capturedAt: String, source: String)] {
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--json", "--library", library.path],
                                         environment: ["XDG_DATA_HOME": TestSupport.temporaryDirectory("dates-data").path])
        XCTAssertEqual(result.status, 0, result.error)
        let objects = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.output) as? [[String: Any]])
        return objects.map { (URL(fileURLWithPath: $0["path"] as! String).lastPathComponent,
                              $0["captured_at"] as? String ?? "", $0["date_source"] as? String ?? "") }
    }

    func testDatesFromABrokenClockFallBackToTheFileTime() throws {
        try photo("clock-2099.jpg", dateTimeOriginal: "2099:09:29 10:10:10", modified: "2021-06-01 12:00:00 UTC")
        try photo("clock-1850.jpg", dateTimeOriginal: "1850:01:01 00:00:00", modified: "2019-06-01 12:00:00 UTC")
        try photo("today.jpg", dateTimeOriginal: "2024:03:12 09:41:00", modified: "2024-03-13 08:00:00 UTC")
        try video("camcorder-2099.mp4", createdAt: 4_093_948_800, modified: "2020-06-01 12:00:00 UTC")  // in 2099

        let listed = try recents()
        XCTAssertEqual(listed.map(\.name), ["today.jpg", "clock-2099.jpg", "camcorder-2099.mp4", "clock-1850.jpg"])
        XCTAssertEqual(listed.map(\.source), ["metadata", "file", "file", "file"])
        guard listed.count == 4 else { return }
        XCTAssertEqual(listed[1].capturedAt, "2021-06-01T12:00:00+00:00")
        XCTAssertEqual(listed[2].capturedAt, "2020-06-01T12:00:00+00:00")
        XCTAssertEqual(listed[3].capturedAt, "2019-06-01T12:00:00+00:00")
    }

    func testAClockAFewHoursAheadIsStillBelieved() throws {
        // Local wall-clock time of a camera east of here, up to a day ahead of now, is kept.
        let soon = Date().addingTimeInterval(6 * 3600)
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy:MM:dd HH:mm:ss"
        try photo("ahead.jpg", dateTimeOriginal: formatter.string(from: soon), modified: "2021-06-01 12:00:00 UTC")
        let tomorrowAndABit = Date().addingTimeInterval(30 * 3600)
        try photo("too-far.jpg", dateTimeOriginal: formatter.string(from: tomorrowAndABit), modified: "2021-06-01 12:00:00 UTC")
        let listed = try recents()
        XCTAssertEqual(listed.map(\.name), ["ahead.jpg", "too-far.jpg"])
        XCTAssertEqual(listed.map(\.source), ["metadata", "file"])
    }

    /// A first index made while the machine's clock is a year behind (a dead clock battery, a
    /// first boot before the network time) cannot believe this year's dates; once the clock is
    /// right, the next scan reads those files again and dates them by their EXIF, in place
    /// (issue 37: they kept their file dates for good). A camera set to 2099 stays refused.
    func testDatesRefusedWhileTheClockWasBehindAreReadAgainOnceItIsRight() throws {
        let faketime = "/usr/bin/faketime"
        guard FileManager.default.isExecutableFile(atPath: faketime) else {
            XCTFail("\(faketime) is missing: run scripts/bootstrap")
            return
        }
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy:MM:dd HH:mm:ss"
        let taken = Date().addingTimeInterval(-30 * 86_400)
        try photo("this-year.jpg", dateTimeOriginal: formatter.string(from: taken), modified: "2021-06-01 12:00:00 UTC")
        try photo("clock-2099.jpg", dateTimeOriginal: "2099:09:29 10:10:10", modified: "2020-06-01 12:00:00 UTC")
        let data = TestSupport.temporaryDirectory("dates-data")
        defer { try? FileManager.default.removeItem(at: data) }
        // (NO_FAKE_STAT: the file times stay as they are; only the clock is behind.)
        let behind = try TestSupport.run(faketime, ["-f", "-365d", TestSupport.photopick, "index", "--library", library.path],
                                         environment: ["XDG_DATA_HOME": data.path, "NO_FAKE_STAT": "1"])
        XCTAssertEqual(behind.status, 0, behind.error)
        let list = { () throws -> [(name: String, capturedAt: String, source: String, id: Int)] in
            let result = try TestSupport.run(TestSupport.photopick, ["ls", "--json", "--cached", "--library", self.library.path],
                                             environment: ["XDG_DATA_HOME": data.path])
            XCTAssertEqual(result.status, 0, result.error)
            let objects = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.output) as? [[String: Any]])
            return objects.map { (URL(fileURLWithPath: $0["path"] as! String).lastPathComponent, $0["captured_at"] as? String ?? "",
                                  $0["date_source"] as? String ?? "", $0["id"] as? Int ?? 0) }
        }
        let before = try list()
        XCTAssertEqual(before.first { $0.name == "this-year.jpg" }?.source, "file", "a year behind, its date is ahead of the clock")

        let right = try TestSupport.run(TestSupport.photopick, ["index", "--library", library.path], environment: ["XDG_DATA_HOME": data.path])
        XCTAssertEqual(right.status, 0, right.error)
        let after = try list()
        let thisYear = try XCTUnwrap(after.first { $0.name == "this-year.jpg" })
        XCTAssertEqual(thisYear.source, "metadata", "read again once the clock is right")
        XCTAssertTrue(thisYear.capturedAt.hasPrefix(ISO8601DateFormatter.string(from: taken, timeZone: TimeZone(identifier: "UTC")!,
                                                                                formatOptions: [.withFullDate])), thisYear.capturedAt)
        XCTAssertEqual(thisYear.id, before.first { $0.name == "this-year.jpg" }?.id, "in place: the same id")
        XCTAssertEqual(after.first { $0.name == "clock-2099.jpg" }?.source, "file")

        let again = try TestSupport.run(TestSupport.photopick, ["index", "--library", library.path], environment: ["XDG_DATA_HOME": data.path])
        let summary = String(decoding: again.output, as: UTF8.self)
        XCTAssertTrue(summary.contains(" 0 read"), "nothing more to read (2099 waits for its year): \(summary)")
    }

    func testTheIndexerFallsBackWhateverAReaderLetThrough() {
        let modified: Int64 = 1_622_548_800_000_000_000  // 2021-06-01 12:00 UTC, in nanoseconds
        var media = MediaFile(kind: .photo, mimeType: "image/jpeg",
                              captureDate: CaptureDate(millisecondsSinceEpoch: 4_093_948_800_000, utcOffsetMinutes: 60, source: .embedded))
        media = media.plausible(modificationTimeNanoseconds: modified)
        XCTAssertEqual(media.captureDate, CaptureDate(millisecondsSinceEpoch: 1_622_548_800_000, utcOffsetMinutes: nil, source: .fileModificationTime))
        let believed = CaptureDate(millisecondsSinceEpoch: 1_710_236_460_000, utcOffsetMinutes: 60, source: .embedded)
        media.captureDate = believed
        XCTAssertEqual(media.plausible(modificationTimeNanoseconds: modified).captureDate, believed)
    }
}
