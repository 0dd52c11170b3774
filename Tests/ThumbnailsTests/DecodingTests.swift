import CGdkPixbuf
import Foundation
import PhotoLibrary
import TestSupport
import XCTest
@testable import Thumbnails

/// Decoding: orientation, formats, videos, and the hostile files of the generated library.
final class DecodingTests: XCTestCase {
    private func thumbnailer(thumbnailers: [ExternalThumbnailer]? = []) -> Thumbnailer {
        Thumbnailer(cache: ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("cache").appendingPathComponent("thumbnails").path)),
                    memory: MemoryCache(), thumbnailers: thumbnailers)
    }

    private func isClose(_ a: (red: UInt8, green: UInt8, blue: UInt8), _ b: (red: UInt8, green: UInt8, blue: UInt8)) -> Bool {
        abs(Int(a.red) - Int(b.red)) < 60 && abs(Int(a.green) - Int(b.green)) < 60 && abs(Int(a.blue) - Int(b.blue)) < 60
    }

    /// A 60×30 picture with four coloured quadrants, stored with each EXIF orientation; our
    /// thumbnail must show the corners ImageMagick's -auto-orient shows.
    func testEveryOrientationMatchesImageMagickAutoOrient() throws {
        let folder = TestSupport.temporaryDirectory("orientation")
        let source = folder.appendingPathComponent("quadrants.jpg")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", [
            "-size", "30x15", "xc:red", "-size", "30x15", "xc:yellow", "+append",
            "(", "-size", "30x15", "xc:blue", "-size", "30x15", "xc:lime", "+append", ")", "-append",
            "-quality", "95", source.path]).status, 0)
        for orientation in 1...8 {
            let file = folder.appendingPathComponent("o\(orientation).jpg")
            try? FileManager.default.removeItem(at: file)
            try FileManager.default.copyItem(at: source, to: file)
            XCTAssertEqual(try TestSupport.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-Orientation#=\(orientation)", file.path]).status, 0)
            let reference = folder.appendingPathComponent("o\(orientation)-reference.png")
            XCTAssertEqual(try TestSupport.run("/usr/bin/convert", [file.path, "-auto-orient", reference.path]).status, 0)
            guard case .success(let expected) = Pixbuf.load(reference.path),
                  case .success(let thumbnail) = thumbnailer().thumbnail(for: FilePath(file.path), flavor: .normal),
                  let pixbuf = thumbnail.pixbuf else { return XCTFail("orientation \(orientation)") }
            XCTAssertEqual(pixbuf.width, expected.width, "orientation \(orientation)")
            XCTAssertEqual(pixbuf.height, expected.height, "orientation \(orientation)")
            for (x, y) in [(2, 2), (pixbuf.width - 3, 2), (2, pixbuf.height - 3), (pixbuf.width - 3, pixbuf.height - 3)] {
                XCTAssertTrue(isClose(pixbuf.pixel(x: x, y: y), expected.pixel(x: x, y: y)),
                              "orientation \(orientation) at \(x),\(y): \(pixbuf.pixel(x: x, y: y)) vs \(expected.pixel(x: x, y: y))")
            }
        }
    }

    func testMakeLibraryPhotosShowRedTopLeftAndYellowTopRight() throws {
        let generated = GeneratedLibrary.shared
        var checked = Set<Int>()
        let decoder = thumbnailer()
        for file in generated.files where file["kind"] as? String == "photo" {
            guard let orientation = file["orientation"] as? Int, !checked.contains(orientation) else { continue }
            guard case .success(let thumbnail) = decoder.thumbnail(for: generated.path(of: file), flavor: .normal),
                  let pixbuf = thumbnail.pixbuf else { XCTFail("\(file["path"]!)"); continue }
            let topLeft = pixbuf.pixel(x: 1, y: 1), topRight = pixbuf.pixel(x: pixbuf.width - 2, y: 1)
            XCTAssertTrue(topLeft.red > 180 && topLeft.green < 90, "orientation \(orientation): top-left \(topLeft)")
            XCTAssertTrue(topRight.red > 180 && topRight.green > 170 && topRight.blue < 90, "orientation \(orientation): top-right \(topRight)")
            let display = file["display"] as! [Int]
            XCTAssertEqual(pixbuf.width > pixbuf.height, display[0] > display[1], "orientation \(orientation)")
            checked.insert(orientation)
        }
        XCTAssertEqual(checked, Set(1...8))
    }

    func testHostileFilesFailOnceWithAReasonAndAreNotDecodedAgain() throws {
        let generated = GeneratedLibrary.shared
        let thumbnailer = thumbnailer()
        var reasons: [String: ThumbnailFailure] = [:]
        for file in generated.files where file["kind"] as? String == "corrupt" {
            let path = generated.path(of: file)
            if case .failure(let failure) = thumbnailer.thumbnail(for: path, flavor: .large) { reasons[file["corrupt"] as! String] = failure }
        }
        XCTAssertEqual(reasons["png_huge_dimensions"], .tooLarge(width: 100_000, height: 100_000, limit: 100_000_000))
        for kind in ["zero_bytes", "random_bytes", "text_as_png", "html_as_jpeg"] {
            XCTAssertNotNil(reasons[kind], "\(kind) must fail")
        }
        let decodes = thumbnailer.decodes
        // Asked again (a new memory cache, the same disk cache): the failure records answer.
        let again = Thumbnailer(cache: thumbnailer.cache, memory: MemoryCache(), thumbnailers: [])
        for file in generated.files where file["kind"] as? String == "corrupt" {
            let before = again.decodes
            let result = again.thumbnail(for: generated.path(of: file), flavor: .large)
            XCTAssertEqual(again.decodes, before, "\(file["path"]!) was decoded again: \(result)")
            if case .failure(let failure) = result, failure != .knownFailure, failure.isPermanent {
                XCTFail("\(file["path"]!) decoded again: \(failure)")
            }
        }
        XCTAssertEqual(again.decodes, 0, "no retry storm")
        XCTAssertGreaterThan(decodes, 0)
    }

    func testAnimatedGIFGivesItsFirstFrame() throws {
        let file = TestSupport.temporaryDirectory("gif").appendingPathComponent("anim.gif")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-delay", "10", "-size", "40x40", "xc:red", "xc:blue", file.path]).status, 0)
        guard case .success(let thumbnail) = thumbnailer().thumbnail(for: FilePath(file.path), flavor: .normal),
              let pixbuf = thumbnail.pixbuf else { return XCTFail() }
        XCTAssertTrue(isClose(pixbuf.pixel(x: 20, y: 20), (255, 0, 0)))
    }

    func testVideosUseTheInstalledThumbnailerOrShowAPlaceholder() throws {
        let file = TestSupport.temporaryDirectory("video").appendingPathComponent("clip.mp4")
        XCTAssertEqual(try TestSupport.run("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i",
            "testsrc=size=320x180:rate=10:duration=2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-preset", "ultrafast", file.path]).status, 0)
        let installed = ExternalThumbnailer.installed()
        XCTAssertTrue(installed.contains { $0.mimeTypes.contains("video/mp4") }, "ffmpegthumbnailer is installed by scripts/bootstrap")
        guard case .success(let thumbnail) = thumbnailer(thumbnailers: installed).thumbnail(for: FilePath(file.path), flavor: .large),
              let pixbuf = thumbnail.pixbuf else { return XCTFail("no video thumbnail") }
        XCTAssertEqual(pixbuf.width, 256)
        XCTAssertEqual(pixbuf.height, 144)
        guard case .success(let placeholder) = thumbnailer(thumbnailers: []).thumbnail(for: FilePath(file.path), flavor: .large) else {
            return XCTFail()
        }
        XCTAssertTrue(placeholder.isPlaceholder)
    }

    func testAThumbnailerThatHangsIsKilled() throws {
        let definition = TestSupport.temporaryDirectory("thumbnailers").appendingPathComponent("sleepy.thumbnailer")
        try "[Thumbnailer Entry]\nExec=sh -c 'sleep 30' thumbnailer %o\nMimeType=video/mp4;\n".write(to: definition, atomically: true, encoding: .utf8)
        let sleepy = try XCTUnwrap(ExternalThumbnailer.parse(FilePath(definition.path)))
        let file = TestSupport.temporaryDirectory("video").appendingPathComponent("clip.mp4")
        XCTAssertEqual(try TestSupport.run("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i",
            "testsrc=size=64x64:rate=5:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", file.path]).status, 0)
        let thumbnailer = Thumbnailer(cache: ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("c").path)), memory: MemoryCache(),
                                      thumbnailers: [sleepy], thumbnailerTimeout: 0.5)
        let started = Date()
        guard case .failure(let failure) = thumbnailer.thumbnail(for: FilePath(file.path), flavor: .normal) else { return XCTFail() }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertEqual(failure, .temporary("sh took longer than 0.5 s"), "a timeout is not recorded as a failure")
        XCTAssertFalse(thumbnailer.cache.hasFailure(for: try ThumbnailCache.Original(path: FilePath(file.path), modificationTime: 0, size: 0, mimeType: nil)))
    }
}
