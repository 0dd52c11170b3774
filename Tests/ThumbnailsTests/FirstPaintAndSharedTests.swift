import CGLib
import Foundation
import PhotoLibrary
import TestSupport
import XCTest
@testable import Thumbnails

/// The embedded EXIF preview as a first paint, shared thumbnail repositories, and the other
/// still formats through GdkPixbuf's loaders.
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class FirstPaintAndSharedTests: XCTestCase, @unchecked Sendable {
    private func freshThumbnailer() -> Thumbnailer {
        Thumbnailer(cache: ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("fp-cache").appendingPathComponent("thumbnails").path)),
                    memory: MemoryCache(), thumbnailers: [])
    }

    nonisolated func testAnEmbeddedPreviewPaintsFirstUprightThenTheDecodeReplacesIt() throws {
        try MainActor.assumeIsolated {
            let generated = GeneratedLibrary.shared
            let file = try XCTUnwrap(generated.files.first {
                $0["kind"] as? String == "photo" && $0["exif_thumbnail"] as? Bool == true && $0["orientation"] as? Int == 6
            })
            let loader = ThumbnailLoader(thumbnailer: freshThumbnailer(), workers: 1)
            defer { loader.shutdown() }
            var answers: [Thumbnail] = []
            loader.request(generated.path(of: file), flavor: .large, cellPixels: 100) { result in
                if case .success(let thumbnail) = result { answers.append(thumbnail) }
            }
            let deadline = Date().addingTimeInterval(10)
            while answers.count < 2 && Date() < deadline { _ = g_main_context_iteration(nil, 0); usleep(1000) }
            XCTAssertEqual(answers.map(\.source), [.embedded, .decoded])
            let preview = try XCTUnwrap(answers.first?.pixbuf)
            XCTAssertLessThan(preview.width, preview.height, "orientation 6: a portrait photo")
            let topLeft = preview.pixel(x: 1, y: 1)
            XCTAssertTrue(topLeft.red > 170 && topLeft.green < 100, "upright: red at the top left, got \(topLeft)")

            // Without a cell size, or once the thumbnail is cached, there is a single answer.
            var again: [Thumbnail] = []
            loader.request(generated.path(of: file), flavor: .large, cellPixels: 100) { result in
                if case .success(let thumbnail) = result { again.append(thumbnail) }
            }
            while again.isEmpty && Date() < deadline { _ = g_main_context_iteration(nil, 0); usleep(1000) }
            usleep(50_000)
            _ = g_main_context_iteration(nil, 0)
            XCTAssertEqual(again.map(\.source), [.memory])
        }
    }

    nonisolated func testAPreviewSmallerThanTheCellIsNotUsed() throws {
        try MainActor.assumeIsolated {
            let generated = GeneratedLibrary.shared
            let file = try XCTUnwrap(generated.files.first { $0["kind"] as? String == "photo" && $0["exif_thumbnail"] as? Bool == true })
            var firstPaints = 0
            _ = freshThumbnailer().thumbnail(for: generated.path(of: file), flavor: .large, firstPaintSide: 200, firstPaint: { _ in firstPaints += 1 })
            XCTAssertEqual(firstPaints, 0, "a 160×120 EXIF thumbnail is too small for a 200 px cell")
        }
    }

    nonisolated func testASharedRepositoryBesideTheOriginalIsUsed() throws {
        try MainActor.assumeIsolated {
            let folder = TestSupport.temporaryDirectory("shared")
            let original = folder.appendingPathComponent("holiday.jpg")
            XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "300x200", "xc:green", original.path]).status, 0)
            let shared = folder.appendingPathComponent(".sh_thumbnails/normal")
            try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
            let thumbnail = shared.appendingPathComponent(ThumbnailCache.fileName(forURI: "holiday.jpg")).path
            let mtime = Int((try FileManager.default.attributesOfItem(atPath: original.path)[.modificationDate] as! Date).timeIntervalSince1970)
            XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "128x85", "xc:yellow",
                "-set", "Thumb::URI", "holiday.jpg", "-set", "Thumb::MTime", String(mtime), "png:" + thumbnail]).status, 0)
            let thumbnailer = freshThumbnailer()
            guard case .success(let found) = thumbnailer.thumbnail(for: FilePath(original.path), flavor: .normal),
                  let pixbuf = found.pixbuf else { return XCTFail() }
            XCTAssertEqual(found.source, .disk)
            XCTAssertEqual(thumbnailer.decodes, 0)
            let color = pixbuf.pixel(x: 5, y: 5)
            XCTAssertTrue(color.red > 200 && color.green > 200 && color.blue < 60, "the shared (yellow) thumbnail, got \(color)")
        }
    }

    nonisolated func testWebPAndTIFFThroughGdkPixbufLoaders() throws {
        MainActor.assumeIsolated {
            let generated = GeneratedLibrary.shared
            let thumbnailer = freshThumbnailer()
            for suffix in [".webp", ".tif", ".gif"] {
                let files = generated.files.filter { ($0["path"] as? String)?.hasSuffix(suffix) == true && $0["kind"] as? String != "corrupt" }
                XCTAssertFalse(files.isEmpty, suffix)
                for file in files.prefix(3) {
                    guard case .success(let thumbnail) = thumbnailer.thumbnail(for: generated.path(of: file), flavor: .normal) else {
                        XCTFail("\(file["path"]!)")
                        continue
                    }
                    XCTAssertNotNil(thumbnail.pixbuf)
                }
            }
        }
    }
}
