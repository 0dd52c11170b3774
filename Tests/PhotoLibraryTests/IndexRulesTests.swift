import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// Where real files keep what the index shows, checked as a script sees it (`photopick ls --json`):
/// capture dates in IFD0, IPTC and every EXIF item of a HEIF file; a HEIF's size from its boxes;
/// the image formats GdkPixbuf's loaders read.
final class IndexRulesTests: XCTestCase {
    // Debian's ImageMagick; /usr/local/bin may hold a stand-in of the same name.
    private let convert = "/usr/bin/convert"
    private var library: URL!

    override func setUpWithError() throws {
        for tool in [convert, "/usr/bin/exiftool"] where !FileManager.default.isExecutableFile(atPath: tool) {
            XCTFail("\(tool) is missing: run scripts/bootstrap")
        }
        library = TestSupport.temporaryDirectory("index-rules")
    }

    private func run(_ tool: String, _ arguments: [String]) throws {
        let result = try TestSupport.run(tool, arguments)
        XCTAssertEqual(result.status, 0, "\(tool) \(arguments): \(result.error)")
    }

    /// An image written by ImageMagick, then tagged by exiftool.
    @discardableResult
    private func image(_ name: String, size: String = "64x48", tags: [String] = []) throws -> String {
        let path = library.appendingPathComponent(name).path
        try run(convert, ["-size", size, "xc:red", path])
        if !tags.isEmpty { try run("/usr/bin/exiftool", ["-q", "-overwrite_original"] + tags + [path]) }
        return path
    }

    /// `photopick ls --json` over the library (TZ=UTC), objects by file name.
    private func listed() throws -> [String: [String: Any]] {
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--json", "--library", library.path],
                                         environment: ["XDG_DATA_HOME": TestSupport.temporaryDirectory("index-rules-data").path])
        XCTAssertEqual(result.status, 0, result.error)
        let objects = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.output) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: objects.map { (URL(fileURLWithPath: $0["path"] as! String).lastPathComponent, $0) })
    }

    /// `photopick ls --errors` over the library.
    private func errors() throws -> String {
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--errors", "--library", library.path],
                                         environment: ["XDG_DATA_HOME": TestSupport.temporaryDirectory("index-rules-data").path])
        XCTAssertEqual(result.status, 0, result.error)
        return String(decoding: result.output, as: UTF8.self)
    }

    private func assertDate(_ object: [String: Any]?, _ capturedAt: String, _ source: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(object?["captured_at"] as? String, capturedAt, "\(object ?? [:])", file: file, line: line)
        XCTAssertEqual(object?["date_source"] as? String, source, "\(object ?? [:])", file: file, line: line)
    }

    private func assertFileDate(_ object: [String: Any]?, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(object?["date_source"] as? String, "file", "\(object ?? [:])", file: file, line: line)
        XCTAssertFalse((object?["captured_at"] as? String ?? "").hasPrefix("20" + "99"), file: file, line: line)
    }

    // MARK: Capture dates

    func testDateTimeOriginalInIFD0IsACaptureDate() throws {
        try image("ifd0.tif", tags: ["-IFD0:DateTimeOriginal=2018:01:02 03:04:05"])
        try image("ifd0.jpg", tags: ["-IFD0:DateTimeOriginal=2018:01:02 03:04:05", "-OffsetTimeOriginal=-05:00"])
        // Implausible in IFD0 (a clock saying 2099): the file's time, as for the Exif IFD.
        try image("ifd0-future.tif", tags: ["-IFD0:DateTimeOriginal=2099:01:01 00:00:00"])
        // The Exif IFD's date is still preferred.
        try image("both.tif", tags: ["-IFD0:DateTimeOriginal=2018:01:02 03:04:05", "-ExifIFD:DateTimeOriginal=2017:07:08 09:10:11"])
        let assets = try listed()
        assertDate(assets["ifd0.tif"], "2018-01-02T03:04:05", "metadata")
        assertDate(assets["ifd0.jpg"], "2018-01-02T03:04:05-05:00", "metadata")
        assertFileDate(assets["ifd0-future.tif"])
        assertDate(assets["both.tif"], "2017-07-08T09:10:11", "metadata")
    }

    func testIPTCDateAndTimeWhenThereIsNoEXIFDate() throws {
        try image("iptc.jpg", tags: ["-IPTC:DateCreated=2019:05:06", "-IPTC:TimeCreated=07:08:09+02:00"])
        try image("iptc-day.jpg", tags: ["-IPTC:DateCreated=2019:05:06"])
        try image("iptc-and-exif.jpg", tags: ["-IPTC:DateCreated=2019:05:06", "-IPTC:TimeCreated=07:08:09+02:00",
                                              "-DateTimeOriginal=2020:01:02 03:04:05"])
        // An EXIF date from the future is not believed; IPTC's is then the one.
        try image("iptc-and-future-exif.jpg", tags: ["-IPTC:DateCreated=2019:05:06", "-IPTC:TimeCreated=07:08:09Z",
                                                     "-DateTimeOriginal=2099:01:01 00:00:00"])
        try image("iptc-old.jpg", tags: ["-IPTC:DateCreated=1850:01:01", "-IPTC:TimeCreated=12:00:00"])
        let assets = try listed()
        assertDate(assets["iptc.jpg"], "2019-05-06T07:08:09+02:00", "metadata")
        assertDate(assets["iptc-day.jpg"], "2019-05-06T00:00:00", "metadata")
        assertDate(assets["iptc-and-exif.jpg"], "2020-01-02T03:04:05", "metadata")
        assertDate(assets["iptc-and-future-exif.jpg"], "2019-05-06T07:08:09+00:00", "metadata")
        assertFileDate(assets["iptc-old.jpg"])
    }
}
