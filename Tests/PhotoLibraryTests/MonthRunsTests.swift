// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
@_spi(Testing) @testable import PhotoLibrary
import TestSupport
import XCTest

/// An album's months as runs of its order (Ctrl+Up, Ctrl+Down, a timeline): each photo in the
/// month its date shows, by the index's own rules for zones (issue 41).
final class MonthRunsTests: XCTestCase {
    func testEachPhotoIsInTheMonthItsDateShows() throws {
        let (library, root) = try SyntheticLibrary.make("month-runs", count: 0)
        // (milliseconds, offset minutes, date source): UTC instants.
        let rows: [(Int64, Int?, Int)] = [
            (1_709_253_000_000, nil, 1),   // 2024-03-01 00:30, a camera's clock without a zone: March
            (1_709_249_400_000, 60, 1),    // 2024-02-29 23:30 UTC taken at +01:00: 1 March there
            (1_708_430_400_000, nil, 0),   // 2024-02-20 12:00, a file time
            (1_707_523_200_000, -480, 1),  // 2024-02-10 00:00 UTC taken at -08:00: 9 February there
            (-500, nil, 1),                // 1969-12-31 23:59:59.5: December 1969, not 1970
        ]
        try library.writeDirectly { db in
            let rootID = try db.integer("SELECT id FROM roots") ?? 1
            try db.execute("INSERT INTO folders(root_id, path, relative) VALUES (\(rootID), CAST('\(root.displayString)/m' AS BLOB), CAST('m' AS BLOB))")
            let folder = db.lastInsertedRowID
            for (index, row) in rows.enumerated() {
                try db.execute("""
                    INSERT INTO assets(folder_id, name, path, size, mtime_ns, inode, kind, mime, width, height, orientation,
                                       captured_at, capture_offset, date_source, traits, album_bits, stem)
                    VALUES (\(folder), CAST('p\(index).jpg' AS BLOB), CAST('\(root.displayString)/m/p\(index).jpg' AS BLOB), 1, 0, \(index), 1,
                            'image/jpeg', 10, 10, 1, \(row.0), \(row.1.map(String.init) ?? "NULL"), \(row.2), 1, 1, CAST('p\(index)' AS BLOB))
                    """)
            }
        }
        let runs = try library.monthRuns(of: library.fetchAssets(in: .smart(.recents)))
        // (The synthetic library holds one photo of its own, of January 2015.)
        XCTAssertEqual(runs.map { "\($0.year)-\($0.month) \($0.start)+\($0.count)" }, ["2024-3 0+2", "2024-2 2+2", "2015-1 4+1", "1969-12 5+1"])
    }

    /// The month worked out in Swift is the one SQLite's strftime gives (the rules the index's
    /// own dates are read by), for dates from 1900 to 2100, in a zone with summer time, at the
    /// edges of months and at random.
    func testTheMonthIsTheOneSQLiteGives() throws {
        let zone = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", "America/New_York", 1)
        tzset()
        defer {
            if let zone { setenv("TZ", zone, 1) } else { unsetenv("TZ") }
            tzset()
        }
        let (library, _) = try SyntheticLibrary.make("month-of-date", count: 0)
        var generator = SystemRandomNumberGenerator()
        var dates: [Int64] = (0..<3000).map { _ in Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &generator) }
        // Each month's first second and the one before, in UTC and in New York (summer and not).
        for year in [1969, 1970, 2000, 2024, 2038] {
            for month in 1...12 {
                var fields = tm()
                fields.tm_year = Int32(year - 1900)
                fields.tm_mon = Int32(month - 1)
                fields.tm_mday = 1
                let utc = Int64(timegm(&fields)) * 1000
                fields.tm_isdst = -1
                let local = Int64(mktime(&fields)) * 1000
                dates += [utc, utc - 1, utc - 1000, local, local - 1, local + 999]
            }
        }
        var months = MonthOfDate()
        try library.writeDirectly { db in
            for (index, milliseconds) in dates.sorted(by: >).enumerated() {
                let offset: Int? = index % 3 == 0 ? nil : (index % 3 == 1 ? Int.random(in: -960...960) : 14 * 60 + 30)
                for embedded in [true, false] {
                    let seconds = "((\(milliseconds) - ((\(milliseconds) % 1000) + 1000) % 1000) / 1000)"
                    let sql: String
                    if let offset {
                        sql = "SELECT strftime('%Y%m', \(seconds) + \(offset) * 60, 'unixepoch')"
                    } else if embedded {
                        sql = "SELECT strftime('%Y%m', \(seconds), 'unixepoch')"
                    } else {
                        sql = "SELECT strftime('%Y%m', \(seconds), 'unixepoch', 'localtime')"
                    }
                    let key = months.key(milliseconds: milliseconds, offsetMinutes: offset, embedded: embedded)
                    // (SQLite reads a local time outside 1970-2037 in a year like it, whose summer
                    // time may begin on another day: libc's answer, ours, is the right one there.)
                    if offset == nil, !embedded, !(0..<2_145_916_800_000).contains(milliseconds) { continue }
                    let expected = try XCTUnwrap(db.integer(sql))
                    XCTAssertEqual(Int64(key), expected, "\(milliseconds) ms, offset \(offset.map(String.init) ?? "none"), embedded \(embedded)")
                }
            }
        }
    }
}
