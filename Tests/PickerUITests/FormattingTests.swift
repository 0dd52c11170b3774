// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import Foundation
import GTKSupport
import PhotoLibrary
import TestSupport
import XCTest
@testable import PickerUI
@testable import PickerModel
@testable import PhotopickApp

/// Text the cells show, and the remembered window state, for any value a file can hold.
final class FormattingTests: XCTestCase {
    /// The app's "still picked from last time" names what came back: two videos and a photo were
    /// "3 photos" (issue 40, point 15).
    func testPicksOfLastTimeAreCountedByKind() {
        let names = { (list: [String]) in list.map { Array($0.utf8) } }
        XCTAssertEqual(PickerWindow.stillPicked(names: names(["a.jpg", "b.png"]), count: 2), "2 photos are still picked from last time")
        XCTAssertEqual(PickerWindow.stillPicked(names: names(["a.mp4", "b.mkv"]), count: 2), "2 videos are still picked from last time")
        XCTAssertEqual(PickerWindow.stillPicked(names: names(["a.mp4", "b.webm", "c.jpg"]), count: 3), "3 items are still picked from last time")
        XCTAssertEqual(PickerWindow.stillPicked(names: names(["a.mov"]), count: 1), "1 video is still picked from last time")
    }

    /// Where Pango may break a line in `text`: the characters a new line may start with.
    private func lineStarts(_ text: String) -> [Int] {
        let context = pango_font_map_create_context(pango_cairo_font_map_get_default())!
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        let layout = pango_layout_new(context)!
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        pango_layout_set_text(layout, text, -1)
        var count: Int32 = 0
        guard let attributes = pango_layout_get_log_attrs_readonly(layout, &count) else { return [] }
        return (1..<Int(count) - 1).filter { attributes[$0].is_line_break != 0 }
    }

    /// Korean wraps between words, never inside one (the tooltips broke "복사하여" mid-word).
    func testKoreanTooltipsBreakOnlyBetweenWords() {
        let korean = "선택한 사진을 복사하여 다른 앱에 붙여넣기"
        let characters = Array(korean)
        XCTAssertTrue(lineStarts(korean).contains { $0 > 0 && characters[$0 - 1] != " " }, "Pango alone breaks inside words")
        let kept = keepingKoreanWordsWhole(korean)
        let keptCharacters = Array(kept.unicodeScalars)
        let starts = lineStarts(kept)
        XCTAssertEqual(starts.count, 5, "a break after each of the five spaces")
        for start in starts { XCTAssertEqual(keptCharacters[start - 1], " ", "a line starts after a space only") }
        XCTAssertEqual(kept.unicodeScalars.filter { $0 != "\u{2060}" }.map(String.init).joined(), korean, "nothing else changes")
        // Mixed words keep whole too; text without Hangul is left alone.
        XCTAssertEqual(lineStarts(keepingKoreanWordsWhole("Photopick 닫기: 고른 항목은")).count, 3)
        XCTAssertEqual(keepingKoreanWordsWhole("Copy the picked photos"), "Copy the picked photos")
        XCTAssertEqual(keepingKoreanWordsWhole("Добавить фото"), "Добавить фото")
    }

    func testDurationsFormatAsMinutesAndHours() {
        XCTAssertEqual(formatDuration(0), "0:00")
        XCTAssertEqual(formatDuration(7.4), "0:07")
        XCTAssertEqual(formatDuration(59.6), "1:00")
        XCTAssertEqual(formatDuration(3723), "1:02:03")
        XCTAssertEqual(formatDuration(30 * 86_400), "720:00:00")
    }

    func testAnyDoubleFormatsWithoutTrapping() {
        for value in [Double.nan, -Double.nan, .infinity, -.infinity, -1, -0.4, 1.8446744073709552e19, 9.3e18, .greatestFiniteMagnitude,
                      -.greatestFiniteMagnitude, .leastNonzeroMagnitude] {
            let text = formatDuration(value)
            XCTAssertFalse(text.contains("-"), "\(value): \(text)")
            XCTAssertLessThanOrEqual(text.count, 12, "\(value): \(text)")
        }
        XCTAssertEqual(formatDuration(.nan), "")
        XCTAssertEqual(formatDuration(.infinity), "")
        XCTAssertEqual(formatDuration(-5), "")
        XCTAssertEqual(formatDuration(-0.2), "0:00", "rounding noise around zero is zero")
    }

    func testSpokenDatesOfAnyInstant() {
        XCTAssertEqual(CaptureDate(millisecondsSinceEpoch: 1_710_236_460_000, utcOffsetMinutes: 0, source: .embedded).spokenDate,
                       "12 March 2024")
        for milliseconds in [Int64.min, Int64.max, -1] {
            XCTAssertFalse(CaptureDate(millisecondsSinceEpoch: milliseconds, utcOffsetMinutes: nil, source: .embedded).spokenDate.isEmpty)
        }
    }

    /// The cell's and the preview's date of a camera date without a zone is its own day in every
    /// zone (it showed 6 May in Seoul for 23:56 on 5 May).
    func testAWallClockDateShowsItsOwnDayInEveryZone() throws {
        defer { setenv("TZ", "UTC", 1); tzset() }
        for zone in ["Asia/Seoul", "America/Los_Angeles", "Pacific/Kiritimati", "UTC"] {
            setenv("TZ", zone, 1)
            tzset()
            XCTAssertEqual(try XCTUnwrap(CaptureDate.parse("2016:05:05 23:56:03")).spokenDate, "5 May 2016", zone)
        }
    }

    // MARK: The state file

    private func loadState(_ lines: [String]) throws -> PickerState {
        let home = TestSupport.temporaryDirectory("state")
        let file = home.appendingPathComponent("photopick/state.ini")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try (["[picker]"] + lines).joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let previous = getenv("XDG_STATE_HOME").map { String(cString: $0) }
        setenv("XDG_STATE_HOME", home.path, 1)
        defer { if let previous { setenv("XDG_STATE_HOME", previous, 1) } else { unsetenv("XDG_STATE_HOME") } }
        return PickerState.load()
    }

    func testWindowSizesOutOfRangeAreIgnored() throws {
        for bad in ["3000000000", "-500", "-1", "0", "359", "16385", "99999999999999999999", "wide", "", "960.5"] {
            let state = try loadState(["window-width=\(bad)", "window-height=\(bad)"])
            XCTAssertNil(state.windowWidth, bad)
            XCTAssertNil(state.windowHeight, bad)
        }
        let good = try loadState(["window-width=1280", "window-height=360"])
        XCTAssertEqual(good.windowWidth, 1280)
        XCTAssertEqual(good.windowHeight, 360)
    }

    func testTheCellSizeIsClampedAndTheAlbumKept() throws {
        let large = try loadState(["cell-size=3000000000", "album=Videos"])
        XCTAssertEqual(large.cellSize, Picker.cellSizes.last)
        XCTAssertEqual(large.album, "Videos")
        XCTAssertEqual(try loadState(["cell-size=-3"]).cellSize, Picker.cellSizes.first)
        XCTAssertEqual(try loadState(["cell-size=160"]).cellSize, 160)
        XCTAssertNil(try loadState(["cell-size=big"]).cellSize)
    }
}
