// SPDX-License-Identifier: GPL-3.0-or-later
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

    /// An animated WebP's thumbnail is its first frame, where it sits on the canvas, decoded
    /// alone: GdkPixbuf decoded every frame at the canvas size (issue 20, findings 1 and 2). The
    /// frames are made by Pillow, the reference is Pillow's own first frame.
    func testAnAnimatedWebPShowsItsFirstFrameDecodedAlone() throws {
        let folder = TestSupport.temporaryDirectory("animated-webp")
        let script = #"""
        import sys
        from PIL import Image, ImageDraw
        out = sys.argv[1]
        def frames(mode, background):
            result = []
            for i in range(4):
                image = Image.new(mode, (320, 200), background)
                draw = ImageDraw.Draw(image)
                draw.rectangle((0, 0, 79, 49), fill=(200, 30, 30) + ((255,) if mode == "RGBA" else ()))
                draw.rectangle((100 + i * 40, 100, 180 + i * 40, 180), fill=(30, 160, 60) + ((255,) if mode == "RGBA" else ()))
                result.append(image)
            return result
        for name, mode, background, lossless in [("lossless", "RGBA", (0, 0, 0, 0), True), ("lossy-alpha", "RGBA", (0, 0, 0, 0), False),
                                                 ("lossy", "RGB", (20, 60, 200), False)]:
            images = frames(mode, background)
            images[0].save(f"{out}/{name}.webp", save_all=True, append_images=images[1:], duration=100, loop=0, lossless=lossless, quality=90)
            images[0].convert("RGBA").save(f"{out}/{name}-first.png")
        """#
        let made = try TestSupport.run("/usr/bin/python3", ["-c", script, folder.path])
        XCTAssertEqual(made.status, 0, made.error)
        for name in ["lossless", "lossy-alpha", "lossy"] {
            let path = FilePath(folder.appendingPathComponent("\(name).webp").path)
            let file = try OpenFile(path: path)
            let frame = try XCTUnwrap(ImageHeaders.webpFirstFrame(of: file), name)
            XCTAssertEqual([frame.canvasWidth, frame.canvasHeight, frame.x, frame.y], [320, 200, 0, 0], name)
            guard case .success(let thumbnail) = thumbnailer().thumbnail(for: path, flavor: .large), let pixbuf = thumbnail.pixbuf,
                  case .success(let expected) = Pixbuf.load(folder.appendingPathComponent("\(name)-first.png").path) else {
                return XCTFail(name)
            }
            XCTAssertEqual([pixbuf.width, pixbuf.height], [256, 160], name)
            // The red corner and the first frame's green square (later frames move it right).
            for (x, y) in [(10, 10), (40, 20), (110, 110), (150, 150), (250, 150)] {
                let scaled = expected.pixel(x: x * 320 / 256, y: y * 200 / 160)
                XCTAssertTrue(isClose(pixbuf.pixel(x: x, y: y), scaled), "\(name) at \(x),\(y): \(pixbuf.pixel(x: x, y: y)) vs \(scaled)")
            }
        }
        // A frame on part of a large canvas: put where it sits, the rest transparent.
        let sparse = folder.appendingPathComponent("sparse.webp")
        let corpus = TestSupport.packageRoot.appendingPathComponent("Tests/Corpus/make-hostile-corpus").path
        let written = try TestSupport.run("/usr/bin/python3", ["-c", """
            import importlib.machinery, importlib.util, sys
            loader = importlib.machinery.SourceFileLoader("corpus", sys.argv[1])
            module = importlib.util.module_from_spec(importlib.util.spec_from_loader("corpus", loader)); loader.exec_module(module)
            open(sys.argv[2], "wb").write(module.animated_webp(10000, 10000, 500))
            """, corpus, sparse.path])
        XCTAssertEqual(written.status, 0, written.error)
        guard case .success(let thumbnail) = thumbnailer().thumbnail(for: FilePath(sparse.path), flavor: .large), let pixbuf = thumbnail.pixbuf else {
            return XCTFail("the 10000 x 10000 animation of 500 frames")
        }
        XCTAssertEqual([pixbuf.width, pixbuf.height], [256, 256])
        XCTAssertTrue(pixbuf.hasAlpha)
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

    /// An ordinary progressive JPEG of 640 × 480 (ImageMagick's -interlace Plane: about ten
    /// scans), its file and bytes.
    private func progressiveJPEG(in folder: URL) throws -> (file: URL, bytes: [UInt8]) {
        let file = folder.appendingPathComponent("progressive.jpg")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "640x480", "gradient:orange-purple", "-interlace", "Plane",
                                                                "-quality", "85", file.path]).status, 0)
        return (file, try [UInt8](Data(contentsOf: file)))
    }

    /// A progressive JPEG is decoded scan by scan over the whole image: one with hundreds of
    /// scans (a few bytes each, repeated) keeps a core busy for a minute at 8000 × 8000. Such a
    /// file is refused from its markers before any decoding; an ordinary progressive JPEG (about
    /// ten scans) is decoded as before.
    func testAProgressiveJPEGWithHundredsOfScansIsRefusedBeforeDecoding() throws {
        let folder = TestSupport.temporaryDirectory("scans")
        let (ordinary, bytes) = try progressiveJPEG(in: folder)
        let scans = JPEGScans.count(in: bytes)
        XCTAssertNotNil(scans, "ImageMagick's -interlace Plane writes a progressive JPEG")
        XCTAssertTrue((2...20).contains(scans ?? 0), "an encoder's handful of scans: \(String(describing: scans))")
        guard case .success = thumbnailer().thumbnail(for: FilePath(ordinary.path), flavor: .large) else {
            return XCTFail("an ordinary progressive JPEG is decoded")
        }

        // The last scan (from its start-of-scan marker to the end-of-image marker) 300 times over.
        let lastScan = try XCTUnwrap((0..<(bytes.count - 1)).last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let end = bytes.count - 2
        XCTAssertEqual(Array(bytes[end...]), [0xFF, 0xD9])
        let hostile = Array(bytes[..<end]) + Array(repeating: Array(bytes[lastScan..<end]), count: 300).flatMap { $0 } + [0xFF, 0xD9]
        let bomb = folder.appendingPathComponent("scans.jpg")
        try Data(hostile).write(to: bomb)
        XCTAssertEqual(JPEGScans.count(in: hostile, upTo: 10_000), (scans ?? 0) + 300, "every scan counted, none inside scan data")
        let file = try OpenFile(path: FilePath(bomb.path))
        XCTAssertEqual(JPEGScans.count(in: file), JPEGScans.limit + 1, "counting stops past the limit")
        let thumbnailer = thumbnailer()
        guard case .failure(.undecodable(let reason)) = thumbnailer.thumbnail(for: FilePath(bomb.path), flavor: .large) else {
            return XCTFail("refused")
        }
        XCTAssertTrue(reason.contains("scans"), reason)
        // Junk before the first marker, and a stuffed zero, which libjpeg skips, do not hide
        // the scans (the walk gave up there, and the file went to GdkPixbuf unchecked).
        let junk = folder.appendingPathComponent("scans-after-junk.jpg")
        try Data(Array(hostile[..<2]) + Array(repeating: 0x20, count: 12) + [0xFF, 0x00] + Array(hostile[2...])).write(to: junk)
        XCTAssertEqual(JPEGScans.count(in: try OpenFile(path: FilePath(junk.path))), JPEGScans.limit + 1)
        guard case .failure(.undecodable) = thumbnailer.thumbnail(for: FilePath(junk.path), flavor: .large) else {
            return XCTFail("refused after junk too")
        }
        // Baseline JPEGs are not walked at all.
        let baseline = folder.appendingPathComponent("baseline.jpg")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "64x48", "xc:red", baseline.path]).status, 0)
        XCTAssertNil(JPEGScans.count(in: try OpenFile(path: FilePath(baseline.path))))
    }

    /// Fewer scans over a huge picture: 199 scans over 10000 × 10000 in 224 KB kept a worker for
    /// 8.4 s each, and ten of them starved every real photo (issue 37). The limit is on the
    /// work (scans × blocks): refused from its markers; the same scans over 640 × 480 decode.
    func testAProgressiveJPEGOfTooMuchWorkIsRefusedBeforeDecoding() throws {
        let folder = TestSupport.temporaryDirectory("scan-work")
        let bytes = try progressiveJPEG(in: folder).bytes
        let scans = try XCTUnwrap(JPEGScans.count(in: bytes))
        let lastScan = try XCTUnwrap((0..<(bytes.count - 1)).last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let end = bytes.count - 2
        let many = Array(bytes[..<end]) + Array(repeating: Array(bytes[lastScan..<end]), count: 199 - scans).flatMap { $0 } + [0xFF, 0xD9]
        XCTAssertEqual(JPEGScans.count(in: many), 199)
        // At its own size: 4,800 blocks × 199 scans, decoded.
        let small = folder.appendingPathComponent("small.jpg")
        try Data(many).write(to: small)
        guard case .success = thumbnailer().thumbnail(for: FilePath(small.path), flavor: .large) else {
            return XCTFail("199 scans over 640 x 480 are little work")
        }
        // The same scans with a frame header saying 10000 x 10000.
        var huge = many
        let frame = try XCTUnwrap((0..<(huge.count - 1)).first { huge[$0] == 0xFF && huge[$0 + 1] == 0xC2 })
        huge[frame + 5...frame + 8] = [0x27, 0x10, 0x27, 0x10]
        let bomb = folder.appendingPathComponent("huge.jpg")
        try Data(huge).write(to: bomb)
        let started = monotonicSeconds()
        guard case .failure(.undecodable(let reason)) = thumbnailer().thumbnail(for: FilePath(bomb.path), flavor: .large) else {
            return XCTFail("199 scans over 100 megapixels were decoded")
        }
        XCTAssertEqual(reason, "a progressive JPEG of 199 scans over 100 megapixels (made to be slow to decode)")
        XCTAssertLessThan(monotonicSeconds() - started, 1, "refused from its markers")
        // An encoder's ten scans at the 100-megapixel limit are within the limit.
        XCTAssertLessThan(JPEGScans.work(scans: 10, width: 10000, height: 10000), JPEGScans.workLimit)
    }

    /// An SVG is drawn in a decode worker (charged the whole budget), its text with the
    /// person's fonts as in this process; a filter that keeps librsvg busy for minutes is
    /// stopped at the worker's deadline, and the next SVG is drawn (issue 37: SVGs were drawn
    /// in a child with no walls and no bound on its memory).
    func testAnSVGIsDrawnInAWorkerWithItsTextAndStoppedAtItsDeadline() throws {
        let folder = TestSupport.temporaryDirectory("svg")
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = folder.appendingPathComponent("plain.svg"), heavy = folder.appendingPathComponent("heavy.svg")
        let text = folder.appendingPathComponent("text.svg")
        try #"<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200"><rect width="300" height="200" fill="rgb(208,16,16)"/></svg>"#
            .write(to: plain, atomically: true, encoding: .utf8)
        try ##"<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="#fff"/><text x="20" y="120" font-family="sans-serif" font-size="90" fill="#000">Text</text></svg>"##
            .write(to: text, atomically: true, encoding: .utf8)
        try """
            <svg xmlns="http://www.w3.org/2000/svg" width="4000" height="3000">
              <filter id="f" x="0" y="0" width="1" height="1"><feTurbulence baseFrequency="0.01" numOctaves="100000"/></filter>
              <rect width="4000" height="3000" filter="url(#f)"/>
            </svg>
            """.write(to: heavy, atomically: true, encoding: .utf8)
        let workers = DecodeWorkerPool(executable: TestSupport.photopick, maximumWorkers: 1, cpuSeconds: 2, wallSeconds: 10)
        let thumbnailer = Thumbnailer(cache: ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("svg-cache").path)),
                                      memory: MemoryCache(), thumbnailers: [], workers: workers)
        guard case .success(let rendered) = thumbnailer.thumbnail(for: FilePath(plain.path), flavor: .normal),
              let pixbuf = rendered.pixbuf else { return XCTFail("an ordinary SVG is drawn") }
        XCTAssertEqual([pixbuf.width, pixbuf.height], [128, 85])
        XCTAssertTrue(isClose(pixbuf.pixel(x: 10, y: 10), (208, 16, 16)), "\(pixbuf.pixel(x: 10, y: 10))")

        // Its text, drawn in the worker as here.
        let dark = { (pixbuf: Pixbuf) in
            (0..<pixbuf.height).reduce(0) { count, y in count + (0..<pixbuf.width).filter { pixbuf.pixel(x: $0, y: y).0 < 80 }.count }
        }
        guard case .success(let drawn) = thumbnailer.thumbnail(for: FilePath(text.path), flavor: .normal), let inWorker = drawn.pixbuf,
              case .success(let here) = ImageDecoder().decode(try OpenFile(path: FilePath(text.path)), fittingIn: 128) else {
            return XCTFail("the SVG with text")
        }
        XCTAssertGreaterThan(dark(here.pixbuf), 200, "the text is drawn here")
        XCTAssertGreaterThan(dark(inWorker), dark(here.pixbuf) / 2, "and in the worker: \(dark(inWorker)) dark pixels, \(dark(here.pixbuf)) here")

        let started = monotonicSeconds()
        guard case .failure(.undecodable(let reason)) = thumbnailer.thumbnail(for: FilePath(heavy.path), flavor: .normal) else {
            return XCTFail("the heavy SVG ends at the deadline")
        }
        XCTAssertTrue(reason.contains("more than 2 s of processor time") || reason.contains("longer than 10 s"), reason)
        XCTAssertLessThan(monotonicSeconds() - started, 12)
        guard case .success = thumbnailer.thumbnail(for: FilePath(plain.path), flavor: .large) else { return XCTFail("the next SVG") }
    }

    /// GdkPixbuf's WebP loader allocates the whole canvas while only reading the size: this
    /// 31-byte file declaring 64 x 16,711,728 pixels cost a 3.2 GB allocation (bench/fuzz). Our
    /// header reader refuses it first, with the size it declares.
    func testAWebPDeclaringAHugeCanvasIsRefusedBeforeAnyLoaderSeesIt() throws {
        let url = TestSupport.packageRoot.appendingPathComponent("Tests/Corpus/files/fuzz-webp-huge-canvas.webp")
        let file = try OpenFile(path: FilePath(url.path))
        guard case .failure(.tooLarge(let width, let height, _)) = ImageDecoder().decode(file, fittingIn: 256) else {
            return XCTFail("refused as too large")
        }
        XCTAssertEqual([width, height], [64, 16_711_728])
    }

    /// GdkPixbuf's JPEG loader, told in "size-prepared" that the size is refused, still made a
    /// picture of the whole frame: these files declaring 65,500 x 65,500 pixels asked for 12.9 GB
    /// (bench/fuzz), two of them with junk bytes before their frame header, which libjpeg skips
    /// (one right after the start of image, so without the 0xFF 0xD8 0xFF signature).
    /// Our header reader refuses them first, with the size they declare.
    func testAJPEGDeclaringAHugeFrameIsRefusedBeforeAnyLoaderSeesIt() throws {
        for name in ["fuzz-jpeg-huge-frame.jpg", "fuzz-jpeg-huge-frame-after-junk.jpg", "fuzz-jpeg-huge-frame-junk-after-start.jpg"] {
            let url = TestSupport.packageRoot.appendingPathComponent("Tests/Corpus/files/" + name)
            let file = try OpenFile(path: FilePath(url.path))
            guard case .failure(.tooLarge(let width, let height, _)) = ImageDecoder().decode(file, fittingIn: 256) else {
                return XCTFail("\(name) refused as too large")
            }
            XCTAssertEqual([width, height], [65_500, 65_500], name)
            XCTAssertEqual(ImageHeaders.declaredSize(of: file).map { [$0.width, $0.height] }, [65_500, 65_500],
                           "\(name): read from the header, before GdkPixbuf's loader sees the file")
        }
    }

    /// Debian 12's GdkPixbuf frees a JPEG's colour profile at any APP2 segment it does not take
    /// and then copies the profile's next chunk to a null pointer: a profile in two chunks with
    /// another program's APP2 segment between them ended the decoding process (bench/fuzz). Such
    /// a file is refused before GdkPixbuf sees it; the same chunks in order are decoded. (Each
    /// file's fate in GdkPixbuf was checked with bench/fuzz's decode target under ASan.)
    func testAColourProfileInPiecesThatWouldEndGdkPixbufIsRefused() throws {
        let folder = TestSupport.temporaryDirectory("profile-chunks")
        let base = folder.appendingPathComponent("base.jpg")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "64x48", "xc:orange", base.path]).status, 0)
        let bytes = try [UInt8](Data(contentsOf: base))
        func app2(_ payload: [UInt8]) -> [UInt8] { [0xFF, 0xE2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload }
        func chunk(_ sequence: UInt8, of count: UInt8) -> [UInt8] { app2(Array("ICC_PROFILE".utf8) + [0, sequence, count] + Array(repeating: 0x78, count: 40)) }
        let flashPix = app2(Array("FPXR".utf8) + [0, 0] + Array(repeating: 0x79, count: 20))
        let cases: [(String, [UInt8], Bool)] = [
            ("between.jpg", chunk(1, of: 2) + flashPix + chunk(2, of: 2), true),
            ("single-then-two.jpg", chunk(1, of: 1) + chunk(1, of: 1) + chunk(1, of: 2), true),
            // (0xFF 0x00 is no marker: libjpeg skips it and the bytes after it to the next 0xFF.)
            ("stuffed-zero.jpg", chunk(1, of: 2) + [0xFF, 0x00, 0x00, 0x30] + flashPix + chunk(2, of: 2), true),
            ("in-order.jpg", chunk(1, of: 2) + chunk(2, of: 2) + flashPix, false),
            ("flashpix-first.jpg", flashPix + chunk(2, of: 2) + chunk(1, of: 2), false),
        ]
        for (name, segments, breaks) in cases {
            let url = folder.appendingPathComponent(name)
            try Data(Array(bytes[..<2]) + segments + Array(bytes[2...])).write(to: url)
            let file = try OpenFile(path: FilePath(url.path))
            XCTAssertEqual(JPEGProfileChunks.breakGdkPixbuf(file), breaks, name)
            switch ImageDecoder().decode(file, fittingIn: 256) {
            case .failure(.undecodable(let reason)) where breaks: XCTAssertTrue(reason.contains("colour profile"), reason)
            case .success(let decoded) where !breaks: XCTAssertEqual([decoded.imageWidth, decoded.imageHeight], [64, 48], name)
            case let other: XCTFail("\(name): \(other)")
            }
        }
    }

    /// A 24-byte PGM header declaring 75,610 x 10,000 pixels: GdkPixbuf's PNM loader, refused
    /// that size in "size-prepared", still allocated the whole picture, 2.3 GB (bench/fuzz). The
    /// header is read by the file's type before any loader sees it, in a worker and in process.
    func testAPNMDeclaringAHugePictureIsRefusedBeforeAnyLoaderSeesIt() throws {
        let url = TestSupport.packageRoot.appendingPathComponent("Tests/Corpus/files/fuzz-pnm-huge.pnm")
        guard case .failure(.tooLarge(let width, let height, _)) = ImageDecoder().decode(try OpenFile(path: FilePath(url.path)), fittingIn: 256,
                                                                                          mimeType: "image/x-portable-graymap") else {
            return XCTFail("refused as too large")
        }
        XCTAssertEqual([width, height], [75_610, 10_000])
        guard case .failure(.tooLarge) = thumbnailer().thumbnail(for: FilePath(url.path), flavor: .large) else {
            return XCTFail("the thumbnailer refuses it too")
        }
        // A side above 2^20, which the index takes for no size at all, is still a declared size.
        let wide = TestSupport.packageRoot.appendingPathComponent("Tests/Corpus/files/fuzz-pnm-wide.pnm")
        let file = try OpenFile(path: FilePath(wide.path))
        XCTAssertEqual(ImageHeaders.declaredSize(of: file, mimeType: "image/x-portable-pixmap").map { [$0.width, $0.height] }, [10_000_000, 100])
        guard case .failure(.tooLarge) = ImageDecoder().decode(file, fittingIn: 256, mimeType: "image/x-portable-pixmap") else {
            return XCTFail("refused as too large")
        }
        // Its width read as the loader reads it: a NUL ends the number.
        let nul = try OpenFile(path: FilePath(TestSupport.packageRoot.appendingPathComponent("Tests/Corpus/files/fuzz-pnm-nul-in-width.pnm").path))
        XCTAssertEqual(ImageHeaders.declaredSize(of: nul, mimeType: "image/x-portable-pixmap").map { [$0.width, $0.height] }, [1, 1_000_000_000])
    }

    /// GdkPixbuf's BMP loader grows its buffer to the size the info header gives itself before it
    /// checks that size: 4 GB for a 108-byte file (bench/fuzz). Only the five sizes it reads pass;
    /// an ordinary BMP decodes.
    func testABMPWhoseHeaderSizeIsNoneABMPHasIsRefused() throws {
        let url = TestSupport.packageRoot.appendingPathComponent("Tests/Corpus/files/fuzz-bmp-header-size.bmp")
        guard case .failure(.undecodable(let reason)) = ImageDecoder().decode(try OpenFile(path: FilePath(url.path)), fittingIn: 256,
                                                                              mimeType: "image/bmp") else {
            return XCTFail("refused")
        }
        XCTAssertTrue(reason.contains("header size"), reason)
        let folder = TestSupport.temporaryDirectory("bmp")
        for format in ["BMP2", "BMP3", "BMP"] {
            let plain = folder.appendingPathComponent("\(format).bmp")
            XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "64x48", "xc:teal", "\(format):\(plain.path)"]).status, 0)
            guard case .success(let decoded) = ImageDecoder().decode(try OpenFile(path: FilePath(plain.path)), fittingIn: 256, mimeType: "image/bmp") else {
                return XCTFail("\(format) decodes")
            }
            XCTAssertEqual([decoded.imageWidth, decoded.imageHeight], [64, 48], format)
        }
    }

    /// An animated WebP's first frame said to be 2,293,824 x 560 on a canvas of 64 x 48 (its
    /// bitstream is 64 x 48): GdkPixbuf's loader, asked for the frame's size, allocated 3.9 GB
    /// (bench/fuzz). A frame off its canvas, or not its bitstream's size, is refused.
    func testAnAnimatedWebPWhoseFirstFrameDoesNotFitItsCanvasIsRefused() throws {
        let url = TestSupport.packageRoot.appendingPathComponent("Tests/Corpus/files/fuzz-webp-frame-off-canvas.webp")
        let file = try OpenFile(path: FilePath(url.path))
        let frame = try XCTUnwrap(ImageHeaders.webpFirstFrame(of: file))
        XCTAssertEqual([frame.canvasWidth, frame.canvasHeight, frame.width, frame.height], [64, 48, 2_293_824, 560])
        XCTAssertFalse(frame.holdsTogether)
        guard case .failure(.undecodable(let reason)) = ImageDecoder().decode(file, fittingIn: 256) else { return XCTFail("refused") }
        XCTAssertTrue(reason.contains("does not fit its canvas"), reason)
    }

    /// Every format's cut-off file is damaged, said so, before any decoding: a 775-byte WebP (a
    /// stopped download) showed its top and was printed as a pick (issue 40, point 10). Cut at
    /// 60 % and at 775 bytes; the whole file and one with bytes after its end are fine.
    func testACutOffFileOfEveryFormatIsDamaged() throws {
        let folder = TestSupport.temporaryDirectory("cut-formats")
        let decoder = thumbnailer()
        let formats = [("webp", "WebP"), ("png", "PNG"), ("gif", "GIF"), ("heic", "HEIF"), ("avif", "AVIF"), ("tiff", "TIFF"), ("jpg", "JPEG")]
        for (suffix, name) in formats {
            let whole = folder.appendingPathComponent("whole.\(suffix)")
            let made = try TestSupport.run("/usr/bin/convert", ["-seed", "7", "-size", "240x180", "plasma:fractal", whole.path])
            XCTAssertEqual(made.status, 0, "\(suffix): \(made.error)")
            let bytes = try Data(contentsOf: whole)
            for (label, length) in [("60 %", bytes.count * 6 / 10), ("775 bytes", 775)] {
                let cut = folder.appendingPathComponent("cut-\(length).\(suffix)")
                try bytes.prefix(length).write(to: cut)
                guard case .failure(let failure) = decoder.thumbnail(for: FilePath(cut.path), flavor: .normal) else {
                    XCTFail("\(name) cut at \(label) is damaged"); continue
                }
                XCTAssertTrue(failure.description.contains("the \(name) file is cut off"), "\(name) at \(label): \(failure.description)")
            }
            let padded = folder.appendingPathComponent("padded.\(suffix)")
            try (bytes + Data(repeating: 0, count: 64)).write(to: padded)
            for file in [whole, padded] {
                guard case .success = decoder.thumbnail(for: FilePath(file.path), flavor: .normal) else {
                    XCTFail("\(file.lastPathComponent) is whole"); continue
                }
            }
        }
    }

    /// A JPEG cut off in its image data (a download that stopped) decodes grey below the cut
    /// without an error from GdkPixbuf: it is damaged, said so, and cannot be picked (issue 19,
    /// defect 5). Data after the end marker (a phone's motion video) is no damage.
    func testACutOffJPEGIsDamagedAndDataAfterItsEndIsNot() throws {
        let folder = TestSupport.temporaryDirectory("cut-jpeg")
        let whole = folder.appendingPathComponent("whole.jpg")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "400x300", "plasma:fractal", "-quality", "90", whole.path]).status, 0)
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "400x300", "plasma:fractal", "-interlace", "JPEG",
                                                                folder.appendingPathComponent("progressive.jpg").path]).status, 0)
        let bytes = try Data(contentsOf: whole)
        try bytes.prefix(bytes.count / 2).write(to: folder.appendingPathComponent("cut.jpg"))
        let progressive = try Data(contentsOf: folder.appendingPathComponent("progressive.jpg"))
        try progressive.prefix(progressive.count * 2 / 3).write(to: folder.appendingPathComponent("cut-progressive.jpg"))
        try (bytes + Data(repeating: 0x42, count: 50_000)).write(to: folder.appendingPathComponent("motion.jpg"))
        let decoder = thumbnailer()
        for name in ["cut.jpg", "cut-progressive.jpg"] {
            guard case .failure(let failure) = decoder.thumbnail(for: FilePath(folder.appendingPathComponent(name).path), flavor: .normal) else {
                XCTFail("\(name) is damaged"); continue
            }
            XCTAssertEqual(failure.description, "cannot decode: the JPEG file is cut off (no end of image)", name)
        }
        for name in ["whole.jpg", "progressive.jpg", "motion.jpg"] {
            guard case .success = decoder.thumbnail(for: FilePath(folder.appendingPathComponent(name).path), flavor: .normal) else {
                XCTFail("\(name) is whole"); continue
            }
        }
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

    /// Every container GStreamer plays here gets a frame: .mkv and .wmv cells said "Damaged file",
    /// as their bytes sniff as "Matroska stream" and ASF, not video, and the image decoder was
    /// asked instead of the video thumbnailer (issue 40, point 2). The index and the thumbnailer
    /// read a file's type through one table (ContentType.guess(content:fileName:)).
    func testEveryVideoContainerGetsAFrame() throws {
        let folder = TestSupport.temporaryDirectory("containers")
        let source = ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=1"]
        let made: [(String, [String])] = [
            ("clip.mkv", ["-c:v", "libx264"]), ("clip.webm", ["-c:v", "libvpx"]), ("clip.mp4", []), ("clip.mov", []),
            ("clip.avi", ["-c:v", "mpeg4"]), ("clip.wmv", ["-c:v", "wmv2"]), ("clip.flv", ["-c:v", "flv"]),
            ("clip.ts", ["-c:v", "mpeg2video", "-f", "mpegts"]), ("clip.3gp", ["-c:v", "h263", "-s", "176x144"]),
            ("clip.ogv", ["-c:v", "libtheora"]), ("download", ["-c:v", "libx264", "-f", "matroska"]),
        ]
        let thumbnailer = thumbnailer(thumbnailers: ExternalThumbnailer.installed())
        for (name, codec) in made {
            let file = folder.appendingPathComponent(name)
            let result = try TestSupport.run("/usr/bin/ffmpeg", source + codec + [file.path])
            XCTAssertEqual(result.status, 0, "\(name): \(result.error)")
            guard case .success(let thumbnail) = thumbnailer.thumbnail(for: FilePath(file.path), flavor: .normal) else {
                XCTFail("\(name): no frame")
                continue
            }
            XCTAssertFalse(thumbnail.isPlaceholder, "\(name): a frame, not the film icon")
            XCTAssertGreaterThan(thumbnail.pixbuf?.width ?? 0, 64, name)
        }
    }

    /// A Matroska video an earlier build recorded as a failure (its image decoder was asked) gets
    /// its frame: the records of the old decoding rules are not believed.
    func testAFailureRecordedUnderEarlierRulesIsTriedAgain() throws {
        let folder = TestSupport.temporaryDirectory("old-failure")
        let file = folder.appendingPathComponent("clip.mkv")
        let made = try TestSupport.run("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=1",
                                                           "-c:v", "libx264", file.path])
        XCTAssertEqual(made.status, 0, made.error)
        let root = FilePath(folder.appendingPathComponent("thumbnails").path)
        let info = try FileManager.default.attributesOfItem(atPath: file.path)
        let original = try ThumbnailCache.Original(path: FilePath(file.path), modificationTime: Int64((info[.modificationDate] as! Date).timeIntervalSince1970),
                                                   size: Int64(info[.size] as! UInt64), mimeType: "video/x-matroska")
        let earlier = ThumbnailCache(root: root, version: photopickVersion)
        try earlier.storeFailure(for: original, reason: "not an image")
        XCTAssertTrue(earlier.hasFailure(for: original))
        let thumbnailer = Thumbnailer(cache: ThumbnailCache(root: root), memory: MemoryCache(), thumbnailers: ExternalThumbnailer.installed())
        guard case .success(let thumbnail) = thumbnailer.thumbnail(for: FilePath(file.path), flavor: .normal) else { return XCTFail("still a failure") }
        XCTAssertFalse(thumbnail.isPlaceholder)
    }

    /// A video's frame is the frame: no film sprockets down its sides, which the grid's square
    /// crop kept on portrait videos only (issue 40, point 19).
    func testAPortraitVideosFrameHasNoSprockets() throws {
        let file = TestSupport.temporaryDirectory("portrait").appendingPathComponent("portrait.mp4")
        let made = try TestSupport.run("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=0x2080f0:size=180x320:rate=10:duration=1",
                                                           "-c:v", "libx264", "-pix_fmt", "yuv420p", file.path])
        XCTAssertEqual(made.status, 0, made.error)
        guard case .success(let thumbnail) = thumbnailer(thumbnailers: ExternalThumbnailer.installed()).thumbnail(for: FilePath(file.path), flavor: .normal),
              let pixbuf = thumbnail.pixbuf else { return XCTFail("no frame") }
        for x in [0, 2, 5, pixbuf.width - 3] {
            for y in stride(from: 2, to: pixbuf.height - 2, by: 7) {
                XCTAssertTrue(isClose(pixbuf.pixel(x: x, y: y), (0x20, 0x80, 0xF0)), "(\(x), \(y)) is the frame's blue: \(pixbuf.pixel(x: x, y: y))")
            }
        }
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
    /// The largest difference of any channel of any pixel between two pictures of one size.
    private func largestDifference(_ a: Pixbuf, _ b: Pixbuf) -> Int {
        var largest = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                largest = max(largest, abs(Int(p.red) - Int(q.red)), abs(Int(p.green) - Int(q.green)), abs(Int(p.blue) - Int(q.blue)))
            }
        }
        return largest
    }

    /// A progressive JPEG large enough to be decoded at 1/8 scale is decoded from its DC scans
    /// alone: the thumbnail is GdkPixbuf's whole decode's, pixel for pixel with full-size chroma
    /// (within a few levels with half-size chroma, which libjpeg scales with a 2x2 inverse DCT
    /// that takes AC coefficients too), upright, in colour and in grey. The rest (baseline, too small for 1/8,
    /// CMYK, cut inside its DC scans) is left to GdkPixbuf.
    func testAProgressiveJPEGIsThumbnailedFromItsDCScansAsFromTheWholeFile() throws {
        let folder = TestSupport.temporaryDirectory("dc-scans")
        func make(_ name: String, _ arguments: [String]) throws -> URL {
            let file = folder.appendingPathComponent(name)
            XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-seed", "7", "-size", "512x340", "plasma:fractal", "-resize", "2048x1360!"] + arguments + [file.path]).status, 0)
            return file
        }
        let colour = try make("colour.jpg", ["-interlace", "Plane", "-quality", "90", "-sampling-factor", "1x1"])
        let halfChroma = try make("half-chroma.jpg", ["-interlace", "Plane", "-quality", "90", "-sampling-factor", "2x2"])
        let grey = try make("grey.jpg", ["-colorspace", "Gray", "-interlace", "Plane", "-quality", "90"])
        let turned = try make("turned.jpg", ["-interlace", "Plane", "-quality", "90", "-sampling-factor", "1x1"])
        XCTAssertEqual(try TestSupport.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-Orientation#=6", turned.path]).status, 0)
        let decoder = ImageDecoder()
        for file in [colour, halfChroma, grey, turned] {
            let open = try OpenFile(path: FilePath(file.path))
            let fromDC = try XCTUnwrap(decoder.loadDCScans(open, fittingIn: 256), "\(file.lastPathComponent) is decoded from its DC scans")
            XCTAssertEqual([fromDC.1, fromDC.2], [2048, 1360])
            guard case .success(let whole) = decoder.load(open, fittingIn: 256) else { return XCTFail("GdkPixbuf decodes \(file.lastPathComponent)") }
            let dc = Pixbuf(owning: fromDC.0), reference = Pixbuf(owning: whole.0)
            XCTAssertEqual([dc.width, dc.height], [256, 170])
            XCTAssertEqual([dc.width, dc.height], [reference.width, reference.height])
            XCTAssertLessThanOrEqual(largestDifference(dc, reference), file == halfChroma ? 6 : 0,
                                     "\(file.lastPathComponent): the same picture as GdkPixbuf's")
        }
        guard case .success(let upright) = decoder.decode(try OpenFile(path: FilePath(turned.path)), fittingIn: 256) else { return XCTFail("decoded") }
        XCTAssertEqual([upright.pixbuf.width, upright.pixbuf.height, upright.imageWidth, upright.imageHeight], [170, 256, 1360, 2048],
                       "turned as its EXIF orientation says")

        let baseline = try make("baseline.jpg", ["-quality", "90"])
        let small = folder.appendingPathComponent("small.jpg")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", [colour.path, "-resize", "1024x680", "-interlace", "Plane", small.path]).status, 0)
        let cmyk = folder.appendingPathComponent("cmyk.jpg")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", [colour.path, "-colorspace", "CMYK", "-interlace", "Plane", cmyk.path]).status, 0)
        // Cut in its first scan, the DC of the colour file's first components.
        let bytes = try [UInt8](Data(contentsOf: colour))
        let firstScan = try XCTUnwrap((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let cut = folder.appendingPathComponent("cut.jpg")
        try Data(bytes[..<(firstScan + 400)]).write(to: cut)
        for file in [baseline, small, cmyk, cut] {
            XCTAssertNil(decoder.loadDCScans(try OpenFile(path: FilePath(file.path)), fittingIn: 256), file.lastPathComponent)
        }
        guard case .success(let fromCMYK) = decoder.decode(try OpenFile(path: FilePath(cmyk.path)), fittingIn: 256) else {
            return XCTFail("a CMYK progressive JPEG is decoded by GdkPixbuf")
        }
        XCTAssertEqual([fromCMYK.pixbuf.width, fromCMYK.pixbuf.height], [256, 170])
    }

    /// A JPEG large enough to be decoded at 1/8 scale is decoded by our own entropy decoder
    /// (CJPEGEighth.c): the thumbnail is GdkPixbuf's, pixel for pixel, baseline at every common
    /// sampling, in grey, with restart markers (as ffmpeg writes slices), upright, and progressive
    /// (from its DC scans, and with chroma at half size both ways its chroma's AC scans). What it
    /// does not take (too small for 1/8, CMYK, cut, a marker inside the data, restart markers out
    /// of order) is left to the other ways, which still decode what they can.
    func testAJPEGIsThumbnailedByOurDecoderAsByGdkPixbuf() throws {
        let folder = TestSupport.temporaryDirectory("baseline-dc")
        let source = folder.appendingPathComponent("source.png")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-seed", "7", "-size", "512x340", "plasma:fractal", "-resize", "2048x1360!", source.path]).status, 0)
        func make(_ name: String, _ arguments: [String]) throws -> URL {
            let file = folder.appendingPathComponent(name)
            XCTAssertEqual(try TestSupport.run("/usr/bin/convert", [source.path] + arguments + [file.path]).status, 0)
            return file
        }
        func ffmpeg(_ name: String, _ pixelFormat: String) throws -> URL {
            let file = folder.appendingPathComponent(name)
            XCTAssertEqual(try TestSupport.run("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-i", source.path, "-pix_fmt", pixelFormat, "-slices", "4", "-q:v", "3", file.path]).status, 0)
            return file
        }
        let full = try make("444.jpg", ["-quality", "90", "-sampling-factor", "1x1"])
        let wide = try make("422.jpg", ["-quality", "90", "-sampling-factor", "2x1"])
        let half = try make("420.jpg", ["-quality", "95", "-sampling-factor", "2x2"])
        let tall = try make("440.jpg", ["-quality", "90", "-sampling-factor", "1x2"])
        let grey = try make("grey.jpg", ["-colorspace", "Gray", "-quality", "90"])
        let restarts = try ffmpeg("restarts-420.jpg", "yuvj420p")
        let restarts422 = try ffmpeg("restarts-422.jpg", "yuvj422p")
        let progressive = try make("progressive-444.jpg", ["-interlace", "Plane", "-quality", "90", "-sampling-factor", "1x1"])
        let progressive422 = try make("progressive-422.jpg", ["-interlace", "Plane", "-quality", "90", "-sampling-factor", "2x1"])
        let progressive420 = try make("progressive-420.jpg", ["-interlace", "Plane", "-quality", "90", "-sampling-factor", "2x2"])
        let progressiveGrey = try make("progressive-grey.jpg", ["-interlace", "Plane", "-colorspace", "Gray", "-quality", "90"])
        let turned = try make("turned.jpg", ["-quality", "90"])
        XCTAssertEqual(try TestSupport.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-Orientation#=6", turned.path]).status, 0)
        // Progressive with restart intervals (every MCU row; every 7 blocks), and a scan script
        // of DC scans one component at a time, a DC refinement of two, and refinements of
        // 4:2:0 chroma's AC (jpegtran: ImageMagick writes neither).
        func jpegtran(_ name: String, _ arguments: [String]) throws -> URL {
            let file = folder.appendingPathComponent(name)
            let result = try TestSupport.run("/usr/bin/jpegtran", arguments + ["-outfile", file.path, half.path])
            XCTAssertEqual(result.status, 0, result.error)
            return file
        }
        let script = folder.appendingPathComponent("scans.txt")
        try Data("""
            0: 0-0, 0, 1 ;
            1: 0-0, 0, 1 ;
            2: 0-0, 0, 1 ;
            0: 1-63, 0, 2 ;
            1: 1-63, 0, 1 ;
            2: 1-63, 0, 1 ;
            0: 1-63, 2, 1 ;
            0: 0-0, 1, 0 ;
            1,2: 0-0, 1, 0 ;
            1: 1-63, 1, 0 ;
            2: 1-63, 1, 0 ;
            0: 1-63, 1, 0 ;

            """.utf8).write(to: script)
        // A progressive file of DC scans alone (libjpeg, left to itself, would smooth its blocks;
        // GdkPixbuf turns that off).
        let onlyDC = folder.appendingPathComponent("dc-scans-only.txt")
        try Data("0,1,2: 0-0, 0, 0 ;\n".utf8).write(to: onlyDC)
        let dcOnly = try jpegtran("progressive-dc-only.jpg", ["-scans", onlyDC.path])
        let progressiveRestarts = try jpegtran("progressive-restarts.jpg", ["-progressive", "-restart", "1"])
        let scripted = try jpegtran("progressive-scripted.jpg", ["-scans", script.path, "-restart", "7b"])
        let bytes = try [UInt8](Data(contentsOf: restarts))
        XCTAssertTrue(bytes.indices.dropLast().contains { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDD }, "ffmpeg's file has a restart interval")
        let decoder = ImageDecoder()
        for file in [full, wide, half, tall, grey, restarts, restarts422, progressive, progressive422, progressive420, progressiveGrey,
                     progressiveRestarts, scripted, dcOnly, turned] {
            let open = try OpenFile(path: FilePath(file.path))
            let ours = try XCTUnwrap(decoder.loadEighth(open, fittingIn: 256), "\(file.lastPathComponent) is decoded by our decoder")
            XCTAssertEqual([ours.1, ours.2], [2048, 1360])
            guard case .success(let whole) = decoder.load(open, fittingIn: 256) else { return XCTFail("GdkPixbuf decodes \(file.lastPathComponent)") }
            let picture = Pixbuf(owning: ours.0), reference = Pixbuf(owning: whole.0)
            XCTAssertEqual([picture.width, picture.height], [256, 170])
            XCTAssertEqual([picture.width, picture.height], [reference.width, reference.height])
            XCTAssertEqual(largestDifference(picture, reference), 0, "\(file.lastPathComponent): GdkPixbuf's picture")
        }
        guard case .success(let upright) = decoder.decode(try OpenFile(path: FilePath(turned.path)), fittingIn: 256) else { return XCTFail("decoded") }
        XCTAssertEqual([upright.pixbuf.width, upright.pixbuf.height, upright.imageWidth, upright.imageHeight], [170, 256, 1360, 2048],
                       "turned as its EXIF orientation says")

        let small = try make("small.jpg", ["-resize", "1024x680"])
        let cmyk = try make("cmyk.jpg", ["-colorspace", "CMYK"])
        let scan = try XCTUnwrap((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let cut = folder.appendingPathComponent("cut.jpg")
        try Data(bytes[..<(scan + 4000)]).write(to: cut)
        // An end-of-image marker in the middle of the data, and the first two restart markers
        // swapped: libjpeg warns and makes do; ours gives up.
        var marked = bytes
        marked[scan + 3000] = 0xFF
        marked[scan + 3001] = 0xD9
        let early = folder.appendingPathComponent("early-end.jpg")
        try Data(marked).write(to: early)
        var swapped = bytes
        let restartMarkers = (scan..<(bytes.count - 1)).filter { bytes[$0] == 0xFF && (0xD0...0xD7).contains(bytes[$0 + 1]) }
        XCTAssertGreaterThan(restartMarkers.count, 2)
        swapped[restartMarkers[0] + 1] = 0xD1
        swapped[restartMarkers[1] + 1] = 0xD0
        let disordered = folder.appendingPathComponent("disordered.jpg")
        try Data(swapped).write(to: disordered)
        for file in [small, cmyk, cut, early, disordered] {
            XCTAssertNil(decoder.loadEighth(try OpenFile(path: FilePath(file.path)), fittingIn: 256), file.lastPathComponent)
        }
        guard case .success(let fromCMYK) = decoder.decode(try OpenFile(path: FilePath(cmyk.path)), fittingIn: 256) else {
            return XCTFail("a CMYK baseline JPEG is decoded by GdkPixbuf")
        }
        XCTAssertEqual([fromCMYK.pixbuf.width, fromCMYK.pixbuf.height], [256, 170])
        guard case .success(let fromDisordered) = decoder.decode(try OpenFile(path: FilePath(disordered.path)), fittingIn: 256) else {
            return XCTFail("GdkPixbuf makes do with restart markers out of order")
        }
        XCTAssertEqual([fromDisordered.pixbuf.width, fromDisordered.pixbuf.height], [256, 170])
    }

    /// A block whose coefficients no picture has (here 4:2:0 chroma dequantised far above 4,096)
    /// is left to GdkPixbuf: libjpeg-turbo's SSE2 2x2 inverse DCT, which GdkPixbuf uses at 1/8,
    /// saturates in 16 bits where the C arithmetic our decoder follows wraps (a differential fuzz
    /// of CJPEGEighth.c against libjpeg found such a file).
    func testChromaCoefficientsNoPictureHasAreLeftToGdkPixbuf() throws {
        let folder = TestSupport.temporaryDirectory("eighth-extreme")
        let file = folder.appendingPathComponent("extreme.jpg")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-seed", "3", "-size", "64x48", "plasma:fractal", "-quality", "100",
                                                                "-sampling-factor", "2x2", file.path]).status, 0)
        var bytes = try [UInt8](Data(contentsOf: file))
        // Every quantisation step of the chroma table (1) to 255, the coefficients unchanged.
        var at = 2, patched = 0
        while at + 4 < bytes.count, bytes[at] == 0xFF, bytes[at + 1] != 0xDA {
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if bytes[at + 1] == 0xDB {
                var table = at + 4
                while table < at + 2 + length {
                    let wide = bytes[table] >> 4 != 0
                    if bytes[table] & 15 == 1, !wide { for step in 1...64 { bytes[table + step] = 255 }; patched += 1 }
                    table += 1 + 64 * (wide ? 2 : 1)
                }
            }
            at += 2 + length
        }
        XCTAssertEqual(patched, 1, "the chroma table found")
        try Data(bytes).write(to: file)
        let decoder = ImageDecoder(), open = try OpenFile(path: FilePath(file.path))
        XCTAssertNil(decoder.loadEighth(open, fittingIn: 8))
        guard case .success(let decoded) = decoder.decode(open, fittingIn: 8) else { return XCTFail("GdkPixbuf decodes it") }
        XCTAssertEqual([decoded.pixbuf.width, decoded.pixbuf.height], [8, 6])
        // (The same file with its table as it was is ours.)
        let plain = folder.appendingPathComponent("plain.jpg")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-seed", "3", "-size", "64x48", "plasma:fractal", "-quality", "100",
                                                                "-sampling-factor", "2x2", plain.path]).status, 0)
        XCTAssertNotNil(decoder.loadEighth(try OpenFile(path: FilePath(plain.path)), fittingIn: 8))
    }
}
