// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
import XCTest
@testable import PhotoLibrary

final class CaptureDateTests: XCTestCase {
    override func setUp() {
        setenv("TZ", "UTC", 1)
        tzset()
    }

    func testExifDateWithOffsetAndSubseconds() throws {
        let date = try XCTUnwrap(CaptureDate.parse("2021:03:04 05:06:07", subseconds: "25", offset: "+02:00"))
        XCTAssertEqual(date.millisecondsSinceEpoch, 1_614_827_167_250)
        XCTAssertEqual(date.utcOffsetMinutes, 120)
        XCTAssertEqual(date.iso8601, "2021-03-04T05:06:07.250+02:00")
    }

    func testDateWithoutOffsetIsLocalWallClock() throws {
        let date = try XCTUnwrap(CaptureDate.parse("2019:06:01 12:00:00"))
        XCTAssertNil(date.utcOffsetMinutes)
        XCTAssertEqual(date.iso8601, "2019-06-01T12:00:00")
    }

    func testUnsetAndImpossibleDatesAreRejected() {
        XCTAssertNil(CaptureDate.parse("0000:00:00 00:00:00"))
        XCTAssertNil(CaptureDate.parse("    :  :     :  :  "))
        XCTAssertNil(CaptureDate.parse("2019:13:45 25:61:99"))
        XCTAssertNil(CaptureDate.parse("2019:02:31 10:00:00"))
        XCTAssertNil(CaptureDate.parse("2019:02"))
    }

    func testXMPISODates() throws {
        let date = try XCTUnwrap(CaptureDate.parse("2020-05-06T07:08:09.5-05:30"))
        XCTAssertEqual(date.utcOffsetMinutes, -330)
        XCTAssertEqual(date.iso8601, "2020-05-06T07:08:09.500-05:30")
    }

    func testFileTimesCarryTheLocalOffset() {
        let date = CaptureDate(millisecondsSinceEpoch: 0, utcOffsetMinutes: nil, source: .fileModificationTime)
        XCTAssertEqual(date.iso8601, "1970-01-01T00:00:00+00:00")
    }
}
