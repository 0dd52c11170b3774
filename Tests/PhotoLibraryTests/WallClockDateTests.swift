// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// A capture date without a time-zone offset is the camera's wall-clock time: the same date and
/// time in every zone the picker runs in, in the JSON, in the sort order, and in an index written
/// under another zone (issue 19, defect 2: 23:56 on 5 May 2016 showed as 6 May in Seoul).
final class WallClockDateTests: XCTestCase {
    private static let zones = ["UTC", "Asia/Seoul", "America/Los_Angeles", "Pacific/Kiritimati", "Asia/Kolkata"]
    private var library: URL!
    private var dataHomes: [URL] = []

    override func setUpWithError() throws {
        library = TestSupport.temporaryDirectory("wall-clock")
        // Taken 23:56:03 on 5 May 2016 by a camera that does not record its zone; a minute later
        // by one that does (+09:00, so 14:57 UTC); and half an hour later, again without a zone.
        try photo("late.jpg", ["-DateTimeOriginal=2016:05:05 23:56:03"])
        try photo("zoned.jpg", ["-DateTimeOriginal=2016:05:05 23:57:00", "-OffsetTimeOriginal=+09:00"])
        try photo("after-midnight.jpg", ["-DateTimeOriginal=2016:05:06 00:26:00"])
    }

    override func tearDown() {
        unsetenv("TZ")
        tzset()
        try? FileManager.default.removeItem(at: library)
        for home in dataHomes { try? FileManager.default.removeItem(at: home) }
    }

    private func photo(_ name: String, _ tags: [String]) throws {
        let path = library.appendingPathComponent(name).path
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "32x24", "xc:teal", path]).status, 0)
        let tagged = try TestSupport.run("/usr/bin/exiftool", ["-q", "-overwrite_original"] + tags + [path])
        XCTAssertEqual(tagged.status, 0, tagged.error)
    }

    private func newDataHome() -> URL {
        let home = TestSupport.temporaryDirectory("wall-clock-data")
        dataHomes.append(home)
        return home
    }

    /// `photopick ls --json` under `zone`: (file name, captured_at) in Recents' order.
    private func listed(zone: String, dataHome: URL) throws -> [(name: String, capturedAt: String)] {
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--json", "--library", library.path],
                                         environment: ["XDG_DATA_HOME": dataHome.path, "TZ": zone])
        XCTAssertEqual(result.status, 0, result.error)
        let objects = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.output) as? [[String: Any]])
        return objects.map { (URL(fileURLWithPath: $0["path"] as! String).lastPathComponent, $0["captured_at"] as? String ?? "") }
    }

    private let expected = [("after-midnight.jpg", "2016-05-06T00:26:00"), ("late.jpg", "2016-05-05T23:56:03"),
                            ("zoned.jpg", "2016-05-05T23:57:00+09:00")]

    private func assertExpected(_ listing: [(name: String, capturedAt: String)], _ what: String, line: UInt = #line) {
        XCTAssertEqual(listing.map(\.name), expected.map(\.0), what, line: line)
        XCTAssertEqual(listing.map(\.capturedAt), expected.map(\.1), what, line: line)
    }

    func testTheSameDateAndOrderInEveryZone() throws {
        for zone in Self.zones {
            assertExpected(try listed(zone: zone, dataHome: newDataHome()), "indexed and listed under \(zone)")
        }
    }

    func testAnIndexWrittenInOneZoneReadsTheSameInAnother() throws {
        let home = newDataHome()
        assertExpected(try listed(zone: "Asia/Seoul", dataHome: home), "indexed in Seoul")
        for zone in Self.zones { assertExpected(try listed(zone: zone, dataHome: home), "indexed in Seoul, listed under \(zone)") }
    }

    /// An index of schema version 3 kept the zone-less date as read in the indexing machine's zone
    /// (23:56:03 in Seoul stored as 14:56:03 UTC); the upgrade reads those rows again.
    func testAnIndexFromBeforeIsReadAgain() throws {
        let home = newDataHome()
        let before = try listed(zone: "UTC", dataHome: home)
        let database = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("photopick").path)
            .first { $0.hasSuffix(".sqlite") })
        let ids = try TestSupport.run("/usr/bin/sqlite3", [home.appendingPathComponent("photopick/" + database).path,
                                                           "SELECT id FROM assets ORDER BY id"])
        let downgrade = try TestSupport.run("/usr/bin/sqlite3", [home.appendingPathComponent("photopick/" + database).path, """
            UPDATE assets SET captured_at = captured_at - 9 * 3600 * 1000 WHERE capture_offset IS NULL AND date_source = 1;
            DROP INDEX assets_refused_date;
            ALTER TABLE assets DROP COLUMN refused_date_ms;
            DROP TABLE picks;
            DROP INDEX assets_burst_keys;
            PRAGMA user_version = 3;
            """])
        XCTAssertEqual(downgrade.status, 0, downgrade.error)
        XCTAssertEqual(before.count, 3)
        assertExpected(try listed(zone: "America/Los_Angeles", dataHome: home), "after the upgrade")
        let idsAfter = try TestSupport.run("/usr/bin/sqlite3", [home.appendingPathComponent("photopick/" + database).path,
                                                                "SELECT id FROM assets ORDER BY id"])
        XCTAssertEqual(String(decoding: idsAfter.output, as: UTF8.self), String(decoding: ids.output, as: UTF8.self), "the rows read again keep their ids")
    }

    func testParsingAndFormattingIgnoreTheMachinesZone() throws {
        var seen: Set<Int64> = []
        for zone in Self.zones {
            setenv("TZ", zone, 1)
            tzset()
            let date = try XCTUnwrap(CaptureDate.parse("2016:05:05 23:56:03"))
            XCTAssertTrue(date.isWallClock)
            XCTAssertEqual(date.iso8601, "2016-05-05T23:56:03", zone)
            seen.insert(date.millisecondsSinceEpoch)
            let zoned = try XCTUnwrap(CaptureDate.parse("2016:05:05 23:56:03", offset: "+09:00"))
            XCTAssertFalse(zoned.isWallClock)
            XCTAssertEqual(zoned.iso8601, "2016-05-05T23:56:03+09:00", zone)
        }
        XCTAssertEqual(seen.count, 1, "one sort key in every zone")
    }
}
