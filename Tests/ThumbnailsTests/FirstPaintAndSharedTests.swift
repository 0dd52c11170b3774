// SPDX-License-Identifier: GPL-3.0-or-later
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

    /// An EXIF thumbnail half the cell or more paints it (soft for a moment, never grey); a
    /// smaller one would be a blur, and waits for the decode.
    nonisolated func testAPreviewLessThanHalfTheCellIsNotUsed() throws {
        try MainActor.assumeIsolated {
            let generated = GeneratedLibrary.shared
            let file = try XCTUnwrap(generated.files.first { $0["kind"] as? String == "photo" && $0["exif_thumbnail"] as? Bool == true })
            let path = generated.path(of: file)
            let preview = try XCTUnwrap(ExifThumbnail.read(in: OpenFile(path: path)))
            let side = min(preview.width, preview.height)
            var firstPaints = 0
            _ = freshThumbnailer().thumbnail(for: path, flavor: .large, firstPaintSide: side * 2, firstPaint: { _ in firstPaints += 1 })
            XCTAssertEqual(firstPaints, 1, "a \(preview.width)×\(preview.height) EXIF thumbnail paints a \(side * 2) px cell first")
            firstPaints = 0
            _ = freshThumbnailer().thumbnail(for: path, flavor: .large, firstPaintSide: side * 2 + 1, firstPaint: { _ in firstPaints += 1 })
            XCTAssertEqual(firstPaints, 0, "it is too small for a \(side * 2 + 1) px cell")
        }
    }

    /// A green photo, holiday.jpg, and a yellow PNG of `size` in the shared repository beside it
    /// whose keys name that photo as it is now.
    private func plantSharedThumbnail(size: String) throws -> (original: URL, thumbnail: String) {
        let folder = TestSupport.temporaryDirectory("shared")
        let original = folder.appendingPathComponent("holiday.jpg")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "300x200", "xc:green", original.path]).status, 0)
        let shared = folder.appendingPathComponent(".sh_thumbnails/normal")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let thumbnail = shared.appendingPathComponent(ThumbnailCache.fileName(forURI: "holiday.jpg")).path
        let mtime = Int((try FileManager.default.attributesOfItem(atPath: original.path)[.modificationDate] as! Date).timeIntervalSince1970)
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", size, "xc:yellow",
            "-set", "Thumb::URI", "holiday.jpg", "-set", "Thumb::MTime", String(mtime), "png:" + thumbnail]).status, 0)
        return (original, thumbnail)
    }

    nonisolated func testASharedRepositoryBesideTheOriginalIsUsed() throws {
        try MainActor.assumeIsolated {
            let (original, _) = try plantSharedThumbnail(size: "128x85")
            let thumbnailer = freshThumbnailer()
            guard case .success(let found) = thumbnailer.thumbnail(for: FilePath(original.path), flavor: .normal),
                  let pixbuf = found.pixbuf else { return XCTFail() }
            XCTAssertEqual(found.source, .disk)
            XCTAssertEqual(thumbnailer.decodes, 0)
            let color = pixbuf.pixel(x: 5, y: 5)
            XCTAssertTrue(color.red > 200 && color.green > 200 && color.blue < 60, "the shared (yellow) thumbnail, got \(color)")
        }
    }

    /// A shared repository is planted by whoever made the folder: a PNG larger than any flavour
    /// is no thumbnail (it could claim 40000 × 40000 pixels in a few hundred kilobytes), and it is
    /// refused from its header, whatever its keys say; the photo is decoded instead.
    nonisolated func testASharedThumbnailLargerThanAnyFlavourIsRefusedFromItsHeader() throws {
        try MainActor.assumeIsolated {
            let (original, thumbnail) = try plantSharedThumbnail(size: "2000x1333")
            let header = try XCTUnwrap(ThumbnailHeader.read(OpenFile(path: FilePath(thumbnail))))
            XCTAssertEqual([header.width, header.height], [2000, 1333])
            let thumbnailer = freshThumbnailer()
            guard case .success(let found) = thumbnailer.thumbnail(for: FilePath(original.path), flavor: .normal),
                  let pixbuf = found.pixbuf else { return XCTFail() }
            XCTAssertEqual(found.source, .decoded)
            XCTAssertEqual(thumbnailer.decodes, 1)
            let color = pixbuf.pixel(x: 5, y: 5)
            XCTAssertTrue(color.green > 100 && color.red < 60, "made from the (green) photo, got \(color)")
        }
    }

    /// The keys GdkPixbuf writes (ours and GNOME's thumbnails) come before the pixels, so a stale
    /// or foreign thumbnail is told from its first kilobytes.
    nonisolated func testTheKeysOfAStoredThumbnailAreReadWithoutDecodingIt() throws {
        try MainActor.assumeIsolated {
            let folder = TestSupport.temporaryDirectory("header-keys")
            let original = folder.appendingPathComponent("beach.jpg")
            XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "300x200", "xc:blue", original.path]).status, 0)
            let thumbnailer = freshThumbnailer()
            guard case .success = thumbnailer.thumbnail(for: FilePath(original.path), flavor: .large) else { return XCTFail() }
            let stored = try thumbnailer.cache.path(forFile: FilePath(original.path), flavor: .large)
            let header = try XCTUnwrap(ThumbnailHeader.read(OpenFile(path: stored)))
            XCTAssertEqual([header.width, header.height], [256, 171])
            XCTAssertEqual(header.text["Thumb::URI"], try ThumbnailCache.uri(for: FilePath(original.path)))
            XCTAssertNotNil(header.text["Thumb::MTime"].flatMap { Int64($0) })
            XCTAssertEqual(header.text["Thumb::Size"], String(try FileManager.default.attributesOfItem(atPath: original.path)[.size] as! Int))
            // Not a PNG, or a PNG cut inside its header: no header.
            XCTAssertNil(ThumbnailHeader.parse(Array("GIF89a, not a PNG at all, and long enough to be read".utf8)))
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: stored.displayString)))
            XCTAssertNil(ThumbnailHeader.parse(Array(bytes.prefix(20))))
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
