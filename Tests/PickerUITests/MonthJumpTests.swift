// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// Ctrl+Down and Ctrl+Up go a month on and back (issue 41): in a library of 60,000 photos one
/// undivided grid was not enough to reach a date.
final class MonthJumpTests: WindowTestCase {
    override var copiesDemoLibrary: Bool { false }

    /// Six photos without dates inside (their file times: the test's zone is UTC) in three
    /// months, newest first: march-b, march-a, feb-c, feb-b, feb-a, dec. Indexed.
    private func months() throws -> URL {
        let folder = TestSupport.temporaryDirectory("months").appendingPathComponent("Pictures")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let days = [("march-b", "2024-03-20"), ("march-a", "2024-03-02"), ("feb-c", "2024-02-25"), ("feb-b", "2024-02-14"),
                    ("feb-a", "2024-02-01"), ("dec", "2023-12-24")]
        let formatter = ISO8601DateFormatter()
        for (index, (name, day)) in days.enumerated() {
            let path = folder.appendingPathComponent(name + ".png").path
            let made = try TestSupport.run("/usr/bin/convert", ["-size", "64x48", "xc:rgb(\(40 * index),90,160)", path])
            XCTAssertEqual(made.status, 0, made.error)
            try FileManager.default.setAttributes([.modificationDate: formatter.date(from: day + "T12:00:00Z")!], ofItemAtPath: path)
        }
        let indexed = try TestSupport.run(TestSupport.photopick, ["index", "--library", folder.path], environment: ["XDG_DATA_HOME": dataHome.path])
        XCTAssertEqual(indexed.status, 0, indexed.error)
        return folder
    }

    private func names(_ lines: [String]) -> [String] { lines.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent } }

    func testControlDownAndUpGoByMonth() throws {
        let folder = try months()
        let picker = try RunningPicker(display: display, arguments: ["--library", folder.path, "--no-camera"], dataHome: dataHome, cacheHome: cacheHome)
        // From the newest (March): on to February's first, on to December, back to February's
        // first, back again to March's first, and Ctrl+Up there stays (no month before).
        try picker.keys("ctrl+Down", "space", "Right", "ctrl+Down", "space", "ctrl+Up", "ctrl+Up", "space", "ctrl+Up", "Right", "space")
        usleep(300_000)
        try picker.keys("ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(names(lines), ["feb-c", "dec", "march-b", "march-a"])
    }

    /// `--date` opens the album on its newest photo of that day, month or year, or before it.
    func testDateOpensTheAlbumThere() throws {
        let folder = try months()
        for (date, expected) in [("2024-02", "feb-c"), ("2024-02-14", "feb-b"), ("2024-01", "dec"), ("2023", "dec"), ("2025", "march-b")] {
            let picker = try RunningPicker(display: display, arguments: ["--library", folder.path, "--no-camera", "--date=" + date],
                                           dataHome: dataHome, cacheHome: cacheHome)
            try picker.keys("space", "ctrl+Return")
            let (status, lines) = picker.finish()
            XCTAssertEqual(status, 0, date)
            XCTAssertEqual(names(lines), [expected], date)
        }
        // Not a date: said, before any window.
        let wrong = try TestSupport.run(TestSupport.photopick, ["--library", folder.path, "--date=2024-02-30"],
                                        environment: ["XDG_DATA_HOME": dataHome.path, "DISPLAY": ""])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.error.contains("--date=2024-02-30 is not a date: write YYYY, YYYY-MM or YYYY-MM-DD"), wrong.error)
    }

    /// A month or a year typed in the album search goes there in the open album.
    func testAMonthTypedInTheAlbumSearchGoesThere() throws {
        let folder = try months()
        for (typed, expected) in [("February 2024", "feb-c"), ("2023", "dec")] {
            let picker = try RunningPicker(display: display, arguments: ["--library", folder.path, "--no-camera"], dataHome: dataHome, cacheHome: cacheHome)
            try picker.keys("ctrl+o")
            try display.waitForPopover(showing: true)
            usleep(200_000)
            try display.xdotool(["type", "--delay", "30", typed])
            usleep(500_000)
            try picker.keys("Return")
            usleep(500_000)
            try picker.keys("space", "ctrl+Return")
            let (status, lines) = picker.finish()
            XCTAssertEqual(status, 0, typed)
            XCTAssertEqual(names(lines), [expected], typed)
        }
    }
}
