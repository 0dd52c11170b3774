// SPDX-License-Identifier: GPL-3.0-or-later
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
    private var dataHome: URL!

    override func setUpWithError() throws {
        for tool in [convert, "/usr/bin/exiftool"] where !FileManager.default.isExecutableFile(atPath: tool) {
            XCTFail("\(tool) is missing: run scripts/bootstrap")
        }
        library = TestSupport.temporaryDirectory("index-rules")
        dataHome = TestSupport.temporaryDirectory("index-rules-data")
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
                                         environment: ["XDG_DATA_HOME": dataHome.path])
        XCTAssertEqual(result.status, 0, result.error)
        let objects = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.output) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: objects.map { (URL(fileURLWithPath: $0["path"] as! String).lastPathComponent, $0) })
    }

    /// `photopick ls --errors` over the library.
    private func errors() throws -> String {
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--errors", "--library", library.path],
                                         environment: ["XDG_DATA_HOME": dataHome.path])
        XCTAssertEqual(result.status, 0, result.error)
        return String(decoding: result.output, as: UTF8.self)
    }

    private func assertDate(_ object: [String: Any]?, _ capturedAt: String, _ source: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(object?["captured_at"] as? String, capturedAt, "\(object ?? [:])", file: file, line: line)
        XCTAssertEqual(object?["date_source"] as? String, source, "\(object ?? [:])", file: file, line: line)
    }

    private func assertFileDate(_ object: [String: Any]?, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(object?["date_source"] as? String, "file", "\(object ?? [:])", file: file, line: line)
        XCTAssertFalse((object?["captured_at"] as? String ?? "").hasPrefix("2099"), file: file, line: line)
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

    // MARK: Formats GdkPixbuf's loaders read

    /// The formats of the loaders the bootstrap installs (the SVG loader comes with librsvg).
    private static let loaderFormats = ["pgm", "ppm", "pbm", "ico", "tga", "xpm", "xbm"]

    private func writeLoaderFormats(in folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for format in Self.loaderFormats {
            try run(convert, ["-size", "20x10", "xc:red", folder.appendingPathComponent("small.\(format)").path])
        }
        let svgs = ["plain.svg": #"<svg xmlns="http://www.w3.org/2000/svg" width="30" height="40"><rect width="3" height="4"/></svg>"#,
                    "px.svg": "<?xml version=\"1.0\"?>\n<!-- a drawing -->\n<svg xmlns=\"http://www.w3.org/2000/svg\" stroke-width=\"3\"\n width='12.4px' height=\"33\"></svg>",
                    "centimetres.svg": #"<svg xmlns="http://www.w3.org/2000/svg" width="10cm" height="4cm"></svg>"#,
                    "viewbox.svg": #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 50 50"></svg>"#]
        for (name, text) in svgs { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
    }

    func testImagesTheLoadersReadAreAssetsWithTheirSize() throws {
        try writeLoaderFormats(in: library.appendingPathComponent("formats"))
        XCTAssertEqual(try errors(), "")
        let assets = try listed()
        XCTAssertEqual(Set(assets.keys), Set(Self.loaderFormats.map { "small.\($0)" } + ["plain.svg", "px.svg", "centimetres.svg", "viewbox.svg"]))
        for format in Self.loaderFormats {
            let asset = assets["small.\(format)"]
            XCTAssertEqual(asset?["kind"] as? String, "photo", format)
            XCTAssertEqual(asset?["width"] as? Int, 20, "\(asset ?? [:])")
            XCTAssertEqual(asset?["height"] as? Int, 10, "\(asset ?? [:])")
            XCTAssertEqual(asset?["albums"] as? [String], ["Recents"], "\(asset ?? [:])")
            XCTAssertEqual(asset?["date_source"] as? String, "file")
        }
        XCTAssertEqual(assets["small.ico"]?["mime_type"] as? String, "image/vnd.microsoft.icon")
        XCTAssertEqual(assets["small.tga"]?["mime_type"] as? String, "image/x-tga")
        XCTAssertEqual(assets["small.xbm"]?["mime_type"] as? String, "image/x-xbitmap", "C source, recognised by the XBM loader's signature")
        XCTAssertEqual(assets["plain.svg"]?["mime_type"] as? String, "image/svg+xml")
        XCTAssertEqual([assets["plain.svg"]?["width"] as? Int, assets["plain.svg"]?["height"] as? Int], [30, 40])
        XCTAssertEqual([assets["px.svg"]?["width"] as? Int, assets["px.svg"]?["height"] as? Int], [12, 33])
        for name in ["centimetres.svg", "viewbox.svg"] {
            XCTAssertTrue(assets[name]?["width"] is NSNull, "\(assets[name] ?? [:])")
            XCTAssertTrue(assets[name]?["height"] is NSNull, "\(assets[name] ?? [:])")
            XCTAssertEqual(assets[name]?["albums"] as? [String], ["Recents"])
        }
        // And in their folder's album.
        let folder = try TestSupport.run(TestSupport.photopick, ["ls", "--cached", "--album", "formats", "--library", library.path],
                                         environment: ["XDG_DATA_HOME": dataHome.path])
        XCTAssertEqual(folder.status, 0, folder.error)
        XCTAssertEqual(Set(String(decoding: folder.output, as: UTF8.self).split(separator: "\n").map { URL(fileURLWithPath: String($0)).lastPathComponent }),
                       Set(assets.keys))
    }

    /// The installed loaders decide: with a loaders.cache (GDK_PIXBUF_MODULE_FILE, which GdkPixbuf
    /// itself honours) that has no TGA loader, a TGA file is an error, saying why.
    func testTheInstalledLoadersDecide() throws {
        let cache = try XCTUnwrap(PixbufLoaders.cachePath, "no loaders.cache found")
        let text = try String(contentsOfFile: cache, encoding: .utf8)
        for type in ["image/svg+xml", "image/vnd.microsoft.icon", "image/x-portable-graymap", "image/x-portable-pixmap",
                     "image/x-tga", "image/x-xpixmap"] {
            XCTAssertTrue(PixbufLoaders.installedTypes.contains(type), "\(type) is not in \(PixbufLoaders.installedTypes.sorted())")
        }
        XCTAssertFalse(PixbufLoaders.installedTypes.contains("audio/x-riff"), "only image types")
        // The cache file is current: the loaders on disk list the same types.
        let query = (cache as NSString).deletingLastPathComponent + "/../gdk-pixbuf-query-loaders"
        if FileManager.default.isExecutableFile(atPath: query) {
            let result = try TestSupport.run(query, [])
            XCTAssertEqual(result.status, 0, result.error)
            XCTAssertEqual(PixbufLoaders.imageTypes(inCache: String(decoding: result.output, as: UTF8.self)), PixbufLoaders.installedTypes)
        }

        // The header check and the loaders agree: each file's type, as the index takes it, is one
        // whose loader recognises the file's first bytes by GdkPixbuf's own signatures.
        try writeLoaderFormats(in: library)
        for name in try FileManager.default.contentsOfDirectory(atPath: library.path) {
            let url = library.appendingPathComponent(name)
            let head = Array(try Data(contentsOf: url).prefix(MetadataReader.sniffLength))
            guard case .media(let media) = MetadataReader.read(path: FilePath(url.path), version: FileVersion(size: 0, modificationTimeNanoseconds: 0, inode: 0)) else {
                XCTFail("\(name) is not media"); continue
            }
            XCTAssertTrue(PixbufLoaders.recognises(head, as: media.mimeType), "\(name): \(media.mimeType)")
        }
        // Signatures are read with their C escapes: TGA's " \001\001" is a space and two 1 bytes.
        let tga = try XCTUnwrap(PixbufLoaders.installed.first { $0.mimeTypes.contains("image/x-tga") })
        XCTAssertTrue(tga.signatures.contains(PixbufLoaders.Signature(pattern: [0x20, 1, 1], mask: Array("x  ".utf8), relevance: 100)), "\(tga)")
        XCTAssertFalse(PixbufLoaders.recognises(Array("hello".utf8), as: "image/x-xbitmap"))

        let withoutTGA = text.components(separatedBy: "\n\n").filter { !$0.contains("libpixbufloader-tga.so") }.joined(separator: "\n\n")
        XCTAssertNotEqual(withoutTGA, text)
        let modified = TestSupport.temporaryDirectory("loaders").appendingPathComponent("loaders.cache")
        try Data(withoutTGA.utf8).write(to: modified)
        let data = TestSupport.temporaryDirectory("index-rules-data").path
        let errors = try TestSupport.run(TestSupport.photopick, ["ls", "--errors", "--library", library.path],
                                         environment: ["XDG_DATA_HOME": data, "GDK_PIXBUF_MODULE_FILE": modified.path])
        XCTAssertEqual(errors.status, 0, errors.error)
        let lines = String(decoding: errors.output, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "\(lines)")
        XCTAssertTrue(lines.first?.hasPrefix(library.path + "/small.tga: cannot read the image header") == true, "\(lines)")
        XCTAssertNotNil(try listed()["small.tga"], "with the installed loaders it is an asset")
    }

    /// Headers of the loader-only formats that lie: the file is indexed without a size, or
    /// reported as damaged, never trusted.
    func testHostileLoaderFormatHeaders() throws {
        let cases: [(name: String, text: [UInt8], outcome: String)] = [
            ("huge.pgm", Array("P5\n99999999999 5\n255\n".utf8), "unknown"),
            ("billion.ppm", Array("P6 1000000000 1000000000 255 ".utf8), "unknown"),
            ("comment.pgm", Array("P5\n# only a comment".utf8), "damaged"),
            ("commented.pgm", Array("P5\n# made by hand\n7 # wide\n3\n255\n".utf8) + [UInt8](repeating: 0, count: 21), "7x3"),
            ("huge.xpm", Array("/* XPM */\nstatic char *x[] = {\n\"4000000 5 1 1\",\n\"  c red\"};\n".utf8), "unknown"),
            ("no-values.xpm", Array("/* XPM */\nstatic char *x[] = {\n\"\"};\n".utf8), "damaged"),
            // 255 entries claimed, one there (0 × 0 means 256 × 256): the entries past the end are not read.
            ("many.ico", [0, 0, 1, 0, 0xFF, 0, 0, 0, 0, 0, 1, 0, 32, 0, 0x10, 0, 0, 0, 0x16, 0, 0, 0], "256x256"),
            ("empty.ico", [0, 0, 1, 0, 0, 0] + [UInt8](repeating: 0, count: 16), "damaged"),
            ("zero.svg", Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="0" height="1e400"/>"#.utf8), "unknown"),
            ("huge.svg", Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="99999999999999" height="5"/>"#.utf8), "unknown"),
            ("huge.xbm", Array("#define x_width 99999999999\n#define x_height 5\nstatic char x_bits[] = {};\n".utf8), "unknown"),
            ("comment.xbm", Array("/* nothing but a comment */\n".utf8), "damaged"),
            // Formats exiv2 and the other readers know stay errors with exiv2's reason, loaders or not.
            ("fake.heic", Array("\0\0\0\u{18}ftypheic\0\0\0\0mif1heic".utf8) + [UInt8](repeating: 0, count: 256), "unreadable"),
            ("short.gif", Array("GIF89".utf8), "unreadable"),
            ("signature-only.png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "unreadable"),
        ]
        for (name, bytes, expected) in cases {
            let url = try HostileFiles.write(bytes, to: library, name: name)
            let outcome = MetadataReader.read(path: FilePath(url.path), version: FileVersion(size: 0, modificationTimeNanoseconds: 0, inode: 0))
            switch outcome {
            case .media(let media):
                XCTAssertEqual(media.width.map { "\($0)x\(media.height ?? 0)" } ?? "unknown", expected, name)
            case .failed(let reason):
                XCTAssertTrue(["damaged", "unreadable"].contains(expected), "\(name): \(reason)")
                XCTAssertTrue(reason.hasPrefix(expected == "damaged" ? "damaged " : "cannot read the image header: "), "\(name): \(reason)")
            default:
                XCTFail("\(name): \(outcome)")
            }
        }
    }

    // MARK: Indexes written before

    /// An index written before these rules holds an SVG as an error, a HEIC with the tile's size
    /// and an IPTC-dated JPEG with its file time; the files are unchanged, so only the schema's
    /// upgrade makes the next scan read them again.
    func testAnOlderIndexIsReadAgainForTheNewRules() throws {
        try Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="30" height="40"></svg>"#.utf8).write(to: library.appendingPathComponent("drawing.svg"))
        try write(HostileFiles.heif(width: 800, height: 600, quarterTurns: 1), "phone.heic")
        try image("iptc.jpg", tags: ["-IPTC:DateCreated=2019:05:06", "-IPTC:TimeCreated=07:08:09+02:00"])
        try image("dated.jpg", tags: ["-DateTimeOriginal=2020:01:02 03:04:05", "-OffsetTimeOriginal=+01:00"])
        let before = try listed()
        XCTAssertEqual(before.count, 4)
        let database = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: dataHome.appendingPathComponent("photopick").path)
            .first { $0.hasSuffix(".sqlite") })
        // What the version-1 readers stored.
        let downgrade = try TestSupport.run("/usr/bin/sqlite3", [dataHome.appendingPathComponent("photopick/" + database).path, """
            UPDATE assets SET error = 'cannot read the image header: unknown image type', album_bits = 0 WHERE name = CAST('drawing.svg' AS BLOB);
            UPDATE assets SET width = 160, height = 120 WHERE name = CAST('phone.heic' AS BLOB);
            UPDATE assets SET date_source = 0, captured_at = 0 WHERE name = CAST('iptc.jpg' AS BLOB);
            UPDATE assets SET make = 'kept' WHERE name = CAST('dated.jpg' AS BLOB);
            DROP INDEX assets_folder_stem;
            ALTER TABLE folders DROP COLUMN listed_mtime_ns;
            DROP INDEX assets_partial;
            ALTER TABLE assets DROP COLUMN partial;
            DROP INDEX assets_refused_date;
            ALTER TABLE assets DROP COLUMN refused_date_ms;
            DROP TABLE picks;
            DROP INDEX assets_burst_keys;
            PRAGMA user_version = 1;
            """])
        XCTAssertEqual(downgrade.status, 0, downgrade.error)

        let after = try listed()
        XCTAssertEqual(Set(after.keys), Set(before.keys))
        for (name, object) in after { XCTAssertEqual(object["id"] as? Int, before[name]?["id"] as? Int, "\(name) keeps its id") }
        XCTAssertEqual(after["drawing.svg"]?["width"] as? Int, 30)
        XCTAssertEqual([after["phone.heic"]?["width"] as? Int, after["phone.heic"]?["height"] as? Int], [600, 800])
        assertDate(after["iptc.jpg"], "2019-05-06T07:08:09+02:00", "metadata")
        XCTAssertEqual(after["dated.jpg"]?["camera"] as? String, "kept", "a row the new rules read the same is not read again")
    }
}
