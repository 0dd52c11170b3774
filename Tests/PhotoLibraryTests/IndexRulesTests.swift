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

    // MARK: HEIF

    private func write(_ bytes: [UInt8], _ name: String) throws {
        try HostileFiles.write(bytes, to: library, name: name)
    }

    /// An editor's HEIC: the camera's EXIF pixel size copied into a smaller picture. ImageMagick
    /// writes a grid whose tile (the first `ispe`) is larger than the picture.
    func testAHEIFsSizeComesFromItsPrimaryImageNotFromEXIF() throws {
        let path = try image("edited.jpg")
        let heic = library.appendingPathComponent("edited.heic").path
        try run(convert, [path, heic])
        try FileManager.default.removeItem(atPath: path)
        try run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-ExifIFD:ExifImageWidth=4000", "-ExifIFD:ExifImageHeight=3000",
                                      "-DateTimeOriginal=2021:03:04 05:06:07", "-OffsetTimeOriginal=+01:00", heic])
        let asset = try XCTUnwrap(try listed()["edited.heic"])
        XCTAssertEqual(asset["mime_type"] as? String, "image/heif")
        XCTAssertEqual(asset["width"] as? Int, 64, "\(asset)")
        XCTAssertEqual(asset["height"] as? Int, 48, "\(asset)")
        assertDate(asset, "2021-03-04T05:06:07+01:00", "metadata")
    }

    func testAHEIFsCropAndRotationGiveTheDisplayedSize() throws {
        try write(HostileFiles.heif(width: 4032, height: 3024), "plain.heic")
        try write(HostileFiles.heif(width: 4032, height: 3024, quarterTurns: 1), "turned.heic")
        try write(HostileFiles.heif(width: 4032, height: 3024, quarterTurns: 2), "upside-down.heic")
        try write(HostileFiles.heif(width: 4032, height: 3024, crop: (4000, 3000)), "cropped.heic")
        try write(HostileFiles.heif(width: 4032, height: 3024, crop: (4000, 3000), quarterTurns: 3, clapDenominator: 2), "cropped-turned.heic")
        // The camera's EXIF says "turn 90°" too: decoders apply irot and ignore EXIF, so no second turn.
        try write(HostileFiles.heif(width: 4032, height: 3024, quarterTurns: 1,
                                    exif: [.init(tiff: HostileFiles.exifTIFF(dateTimeOriginal: "2022:02:03 04:05:06", orientation: 6))]), "phone.heic")
        XCTAssertEqual(try errors(), "")
        let assets = try listed()
        let sizes = assets.mapValues { [$0["width"] as? Int, $0["height"] as? Int] }
        XCTAssertEqual(sizes, ["plain.heic": [4032, 3024], "turned.heic": [3024, 4032], "upside-down.heic": [4032, 3024],
                               "cropped.heic": [4000, 3000], "cropped-turned.heic": [3000, 4000], "phone.heic": [3024, 4032]])
        XCTAssertEqual(assets["phone.heic"]?["orientation"] as? Int, 1)
        assertDate(assets["phone.heic"], "2022-02-03T04:05:06", "metadata")
    }

    /// The date is read from every EXIF item, not only the first: here the first describes the
    /// primary image without a date, and the dated one is the second (or is stored in idat).
    func testEveryEXIFItemOfAHEIFIsRead() throws {
        let undated = HostileFiles.HEIFExif(tiff: HostileFiles.exifTIFF(make: "Apple"))
        let dated = HostileFiles.HEIFExif(tiff: HostileFiles.exifTIFF(dateTimeOriginal: "2020:01:02 03:04:05"))
        let future = HostileFiles.HEIFExif(tiff: HostileFiles.exifTIFF(dateTimeOriginal: "2099:01:01 00:00:00"))
        try write(HostileFiles.heif(width: 800, height: 600, exif: [undated, dated]), "second.heic")
        try write(HostileFiles.heif(width: 800, height: 600, exif: [undated, dated], exifInIdat: true), "idat.heic")
        try write(HostileFiles.heif(width: 800, height: 600, exif: [future, dated]), "future-first.heic")
        // The primary image's EXIF comes before the thumbnail's, whatever their order in the file.
        let thumbnails = HostileFiles.HEIFExif(tiff: HostileFiles.exifTIFF(dateTimeOriginal: "2010:10:10 10:10:10"), describesPrimary: false)
        try write(HostileFiles.heif(width: 800, height: 600, exif: [thumbnails, dated]), "primary-first.heic")
        try write(HostileFiles.heif(width: 800, height: 600, exif: [future]), "only-future.heic")
        let assets = try listed()
        for name in ["second.heic", "idat.heic", "future-first.heic", "primary-first.heic"] {
            assertDate(assets[name], "2020-01-02T03:04:05", "metadata")
        }
        XCTAssertEqual(assets["second.heic"]?["camera"] as? String, "Apple", "\(assets["second.heic"] ?? [:])")
        assertFileDate(assets["only-future.heic"])
    }

    /// HEIF boxes whose numbers no real file holds: each file is still indexed (or, with no size
    /// anywhere, reported), without trapping, hanging or reading outside the file.
    func testHostileHEIFBoxes() throws {
        /// Replaces the bytes `skip` bytes after the first `type` in `meta`'s content.
        func patch(_ type: String, skip: Int, with bytes: [UInt8]) -> (inout [UInt8]) -> Void {
            { content in
                let pattern = Array(type.utf8)
                guard let at = (0..<(content.count - 4)).first(where: { Array(content[$0..<($0 + 4)]) == pattern }) else {
                    return XCTFail("no \(type)")
                }
                content.replaceSubrange((at + 4 + skip)..<(at + 4 + skip + bytes.count), with: bytes)
            }
        }
        let dated = HostileFiles.HEIFExif(tiff: HostileFiles.exifTIFF(dateTimeOriginal: "2020:01:02 03:04:05"))
        let max32: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
        // The date is read only where the EXIF item is whole: a count of 65535 items with one there still finds it.
        let cases: [(name: String, bytes: [UInt8], size: [Int?])] = [
            ("zero.heic", HostileFiles.heif(width: 0, height: 0), [nil, nil]),
            ("huge.heic", HostileFiles.heif(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF), [nil, nil]),
            ("clap-zero-denominator.heic", HostileFiles.heif(width: 640, height: 480, crop: (600, 400), clapDenominator: 0), [640, 480]),
            ("clap-larger.heic", HostileFiles.heif(width: 640, height: 480, crop: (6400, 400)), [640, 480]),
            ("clap-huge.heic", HostileFiles.heif(width: 640, height: 480, crop: (600, 400), patchMeta: patch("clap", skip: 0, with: max32 + [0, 0, 0, 1])), [640, 480]),
            ("exif-beyond-the-file.heic", HostileFiles.heif(width: 640, height: 480, exif: [dated],
                                                            patchMeta: patch("iloc", skip: 14, with: [0x7F, 0xFF, 0xFF, 0xF0])), [640, 480]),
            ("exif-length-huge.heic", HostileFiles.heif(width: 640, height: 480, exif: [dated], patchMeta: patch("iloc", skip: 18, with: max32)), [640, 480]),
            ("exif-offset-huge.heic", HostileFiles.heif(width: 640, height: 480, exif: [HostileFiles.HEIFExif(tiff: [0xFF, 0xFF, 0xFF, 0xF0])]), [640, 480]),
            ("iloc-count-huge.heic", HostileFiles.heif(width: 640, height: 480, exif: [dated], patchMeta: patch("iloc", skip: 6, with: [0xFF, 0xFF])), [640, 480]),
            ("iloc-field-sizes.heic", HostileFiles.heif(width: 640, height: 480, exif: [dated], patchMeta: patch("iloc", skip: 4, with: [0xFF, 0xFF])), [640, 480]),
            ("ipma-count-huge.heic", HostileFiles.heif(width: 640, height: 480, patchMeta: patch("ipma", skip: 4, with: max32)), [640, 480]),
            ("ipma-index-out-of-range.heic", HostileFiles.heif(width: 640, height: 480, patchMeta: patch("ipma", skip: 15, with: [0x7F])), [nil, nil]),
            ("pitm-missing-item.heic", HostileFiles.heif(width: 640, height: 480, patchMeta: patch("pitm", skip: 4, with: [0x12, 0x34])), [nil, nil]),
            ("iinf-box-overflowing.heic", HostileFiles.heif(width: 640, height: 480, patchMeta: patch("iinf", skip: -8, with: max32)), [nil, nil]),
            ("ispe-64-bit-size.heic", HostileFiles.heif(width: 640, height: 480, patchMeta: patch("ipco", skip: -8, with: [0, 0, 0, 1])), [nil, nil]),
        ]
        for (name, bytes, _) in cases { try write(bytes, name) }
        let started = Date()
        for (name, _, size) in cases {
            let outcome = MetadataReader.read(path: FilePath(library.appendingPathComponent(name).path),
                                              version: FileVersion(size: 0, modificationTimeNanoseconds: 0, inode: 0))
            switch outcome {
            case .media(let media):
                XCTAssertEqual([media.width, media.height], size, name)
                XCTAssertEqual(media.captureDate.source == .embedded, name == "iloc-count-huge.heic", name)
            case .failed(let reason):
                XCTAssertEqual(size, [nil, nil], "\(name): \(reason)")
                XCTAssertTrue(reason.hasPrefix("cannot read the image header"), "\(name): \(reason)")
            default:
                XCTFail("\(name): \(outcome)")
            }
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }
}
