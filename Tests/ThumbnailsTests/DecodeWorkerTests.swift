// SPDX-License-Identifier: GPL-3.0-or-later
import CGdkPixbuf
import Foundation
import Glibc
import PhotoLibrary
import TestSupport
import XCTest
@testable import Thumbnails

/// Decoding in `photopick decode-worker` processes: the same pictures as in process, and a
/// worker that crashes, runs past its deadline or out of its memory costs its file only, with a
/// reason; the next file is decoded by a new worker (issue 20).
final class DecodeWorkerTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = TestSupport.temporaryDirectory("decode-worker")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    private func pool(budget: Int = 512 << 20, cpuSeconds: Double = 20, wallSeconds: Double = 60) -> DecodeWorkerPool {
        DecodeWorkerPool(executable: TestSupport.photopick, maximumWorkers: 2, memoryBudget: budget, cpuSeconds: cpuSeconds, wallSeconds: wallSeconds)
    }

    private func make(_ name: String, _ arguments: [String]) throws -> OpenFile {
        let path = folder.appendingPathComponent(name).path
        let made = try TestSupport.run("/usr/bin/convert", arguments + [path])
        XCTAssertEqual(made.status, 0, made.error)
        return try OpenFile(path: FilePath(path))
    }

    /// A PNG of `width` × `height` grey pixels in a few kilobytes (rows of zeros compress well),
    /// slow to decode in full.
    private func largePNG(_ name: String, width: Int, height: Int) throws -> OpenFile {
        let path = folder.appendingPathComponent(name)
        let script = """
            import struct, sys, zlib
            w, h = int(sys.argv[2]), int(sys.argv[3])
            def chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
            raw = zlib.compressobj(9)
            row = b"\\0" + b"\\x80" * (w * 3)
            body = b"".join(raw.compress(row) for _ in range(h)) + raw.flush()
            open(sys.argv[1], "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", body) + chunk(b"IEND", b""))
            """
        let made = try TestSupport.run("/usr/bin/python3", ["-c", script, path.path, String(width), String(height)])
        XCTAssertEqual(made.status, 0, made.error)
        return try OpenFile(path: FilePath(path.path))
    }

    private func pixels(_ pixbuf: Pixbuf) -> [UInt8] {
        let length = Int(gdk_pixbuf_get_byte_length(pixbuf.pointer))
        return Array(UnsafeBufferPointer(start: gdk_pixbuf_read_pixels(pixbuf.pointer), count: length))
    }

    func testAWorkerDecodesTheSamePicturesAsThisProcess() throws {
        let workers = pool()
        let files = [
            ("photo.jpg", "image/jpeg", try make("photo.jpg", ["-size", "1200x800", "gradient:red-blue", "-quality", "90"])),
            ("alpha.png", "image/png", try make("alpha.png", ["-size", "300x200", "xc:none", "-fill", "#3a7", "-draw", "circle 150,100 150,20"])),
            ("still.webp", "image/webp", try make("still.webp", ["-size", "640x480", "plasma:fractal", "-seed", "3"])),
        ]
        for (name, mimeType, file) in files {
            guard case .success(let local) = ImageDecoder().decode(file, fittingIn: 256),
                  case .success(let isolated) = workers.decode(file, mimeType: mimeType, fittingIn: 256, maximumPixels: 100_000_000) else {
                return XCTFail(name)
            }
            XCTAssertEqual([isolated.pixbuf.width, isolated.pixbuf.height, isolated.imageWidth, isolated.imageHeight],
                           [local.pixbuf.width, local.pixbuf.height, local.imageWidth, local.imageHeight], name)
            XCTAssertEqual(isolated.pixbuf.hasAlpha, local.pixbuf.hasAlpha, name)
            XCTAssertEqual(pixels(isolated.pixbuf), pixels(local.pixbuf), "\(name): the same pixels")
        }
        XCTAssertLessThanOrEqual(workers.statistics.started, 2, "workers are kept for the next file")
        // A file no decoder reads: a reason, and the worker stays.
        let text = folder.appendingPathComponent("text.png")
        try Data("not a picture at all".utf8).write(to: text)
        guard case .failure(.undecodable) = workers.decode(try OpenFile(path: FilePath(text.path)), mimeType: "image/png", fittingIn: 256,
                                                            maximumPixels: 100_000_000) else { return XCTFail("a text file decoded") }
        XCTAssertEqual(workers.statistics.replaced, 0)
    }

    /// XPM's loader keeps its input in a temporary file, which a worker cannot make: an XPM is
    /// decoded in process, so it is shown (a worker failed every one), and nothing else is.
    /// The loader modules a worker has mapped (`libpixbufloader-tiff.so`…).
    private func loaders(of pid: pid_t) -> Set<String> {
        // (Read to its end: the file's size says 0, and a read of that size stops at its first page.)
        guard let handle = try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps")) else { return [] }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return [] }
        let maps = String(decoding: data, as: UTF8.self)
        return Set(maps.split(separator: "\n").compactMap { line in
            line.split(separator: "/").last.map(String.init).flatMap { $0.hasPrefix("libpixbufloader-") ? $0 : nil }
        })
    }

    func testPhotosAreDecodedByWorkersWithoutTheRareFormatsLoadersAndARareFormatStartsItsOwn() throws {
        let workers = pool()
        let everyday = [
            ("photo.jpg", "image/jpeg", try make("photo.jpg", ["-size", "800x600", "gradient:red-blue"])),
            ("anim.gif", "image/gif", try make("anim.gif", ["-size", "64x64", "xc:red", "xc:blue", "-loop", "0"])),
        ]
        let rare = [
            ("scan.tiff", "image/tiff", try make("scan.tiff", ["-size", "320x240", "plasma:fractal", "-seed", "5"])),
            ("phone.heic", "image/heif", try make("phone.heic", ["-size", "320x240", "gradient:green-yellow"])),
        ]
        for (name, mimeType, file) in everyday + rare {
            guard case .success(let local) = ImageDecoder().decode(file, fittingIn: 128),
                  case .success(let isolated) = workers.decode(file, mimeType: mimeType, fittingIn: 128, maximumPixels: 100_000_000) else {
                return XCTFail("\(name) did not decode in both")
            }
            XCTAssertEqual(pixels(isolated.pixbuf), pixels(local.pixbuf), "\(name): the same pixels")
            if mimeType == "image/gif" {
                // (Asked while it is busy, from another thread: which loaders the worker has.)
                XCTAssertEqual(workers.running[.every], 0, "JPEG and GIF start no worker with every loader")
            }
        }
        XCTAssertEqual(workers.running[.every], 1, "the TIFF and the HEIF share one worker with every loader")
        // Watched while a decode runs: the everyday worker maps GIF's loader, never TIFF's or HEIF's.
        _ = try largePNG("big.png", width: 6000, height: 6000)
        let bigPath = folder.appendingPathComponent("big.png").path
        let watcher = Thread {
            guard let big = try? OpenFile(path: FilePath(bigPath)) else { return }
            _ = workers.decode(big, mimeType: "image/png", fittingIn: 128, maximumPixels: 100_000_000)
        }
        watcher.start()
        var mapped: Set<String> = []
        let deadline = Date().addingTimeInterval(20)
        while mapped.isEmpty, Date() < deadline {
            for pid in workers.busyWorkerIDs { mapped = loaders(of: pid) }
            usleep(10_000)
        }
        XCTAssertTrue(mapped.contains("libpixbufloader-gif.so"), "\(mapped)")
        XCTAssertFalse(mapped.contains("libpixbufloader-tiff.so") || mapped.contains("libpixbufloader-heif.so"), "\(mapped)")
        while !watcher.isFinished { usleep(10_000) }
    }

    /// An XPM is decoded in a worker too (its file loader needs a temporary file a worker cannot
    /// make: GdkPixbuf's XPM reader is given its strings instead), to the same pixels as here,
    /// and within the budget: the window's memory does not grow with it (issue 37: six
    /// 9999 × 9999 XPMs took the window to 1.34 GB).
    func testAnXPMIsDecodedInAWorker() throws {
        let workers = pool()
        let icon = try make("icon.xpm", ["-size", "32x24", "plasma:fractal", "-seed", "4", "-colors", "40"])
        let thumbnailer = Thumbnailer(cache: ThumbnailCache(root: FilePath(folder.appendingPathComponent("cache").path)), thumbnailers: [],
                                      workers: workers)
        guard case .success(let thumbnail) = thumbnailer.thumbnail(for: FilePath(folder.appendingPathComponent("icon.xpm").path), flavor: .normal),
              let pixbuf = thumbnail.pixbuf else { return XCTFail("the XPM was not shown") }
        XCTAssertEqual([pixbuf.width, pixbuf.height], [32, 24])
        XCTAssertEqual(workers.statistics.started, 1, "a worker decoded it")
        // The same pixels as GdkPixbuf's loader for files gives in this process.
        var error: UnsafeMutablePointer<GError>?
        let local = try XCTUnwrap(gdk_pixbuf_new_from_file(folder.appendingPathComponent("icon.xpm").path, &error))
        defer { g_object_unref(UnsafeMutableRawPointer(local)) }
        XCTAssertEqual(pixels(pixbuf), pixels(Pixbuf(owning: g_object_ref(UnsafeMutableRawPointer(local)).map(OpaquePointer.init)!)))
        // A large one: decoded in the worker, its need read from its header, the window's
        // resident memory unchanged.
        let large = try make("large.xpm", ["-size", "4000x3000", "xc:red"])
        XCTAssertEqual(DecodeWorkerPool.estimatedBytes(of: large, mimeType: "image/x-xpixmap", box: 128, unknown: 1),
                       4000 * 3000 * 4 + 128 * 128 * 4)
        let before = residentBytes()
        guard case .success(let decoded) = workers.decode(large, mimeType: "image/x-xpixmap", fittingIn: 128, maximumPixels: 100_000_000) else {
            return XCTFail("the large XPM")
        }
        XCTAssertEqual([decoded.pixbuf.width, decoded.pixbuf.height, decoded.imageWidth], [128, 96, 4000])
        XCTAssertLessThan(residentBytes() - before, 20 << 20, "the 48 MB of its pixels are the worker's")
    }

    /// This process's resident memory, from /proc.
    private func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = status.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    /// The grid's first paint, a JPEG's EXIF thumbnail, is decoded in a worker too, to the same pixels.
    func testEmbeddedPreviewsDecodeInAWorkerToTheSamePixels() throws {
        let workers = pool()
        let generated = GeneratedLibrary.shared
        let photos = generated.files.filter { $0["exif_thumbnail"] as? Bool == true && $0["corrupt"] == nil }.prefix(8)
        XCTAssertEqual(photos.count, 8)
        for entry in photos {
            let file = try OpenFile(path: generated.path(of: entry))
            let preview = try XCTUnwrap(ExifThumbnail.read(in: file))
            let local = try XCTUnwrap(ImageDecoder().decode(preview, fittingIn: 128))
            let isolated = try XCTUnwrap(workers.decodeEmbeddedPreview(file, fittingIn: 128, maximumPixels: 100_000_000))
            XCTAssertEqual([isolated.width, isolated.height], [local.width, local.height])
            XCTAssertEqual(pixels(isolated), pixels(local))
        }
        // A JPEG without one: nothing, and the worker stays.
        let plain = try make("plain.jpg", ["-size", "64x48", "xc:navy", "-strip"])
        XCTAssertNil(workers.decodeEmbeddedPreview(plain, fittingIn: 128, maximumPixels: 100_000_000))
        XCTAssertEqual(workers.statistics.replaced, 0)
    }

    /// The worker is shut in: it cannot open a file it was not handed, nor make a socket; and
    /// it still decodes what it is handed (the formats' modules were loaded before).
    func testTheWorkerCanOpenNothingAndMakeNoSocket() throws {
        let workers = pool()
        let check = try XCTUnwrap(workers.checkSandbox())
        XCTAssertTrue(check.hasPrefix("open /etc/passwd: Permission denied; socket: Permission denied; "), check)
        XCTAssertTrue(check.hasSuffix("; sandbox: on"), check)
        for (name, type, arguments) in [("shut-in.png", "image/png", ["-size", "64x48", "xc:navy"]),
                                        ("shut-in.webp", "image/webp", ["-size", "64x48", "xc:olive"]),
                                        ("shut-in.gif", "image/gif", ["-size", "64x48", "xc:maroon"])] {
            let file = try make(name, arguments)
            guard case .success(let decoded) = workers.decode(file, mimeType: type, fittingIn: 64, maximumPixels: 100_000_000) else {
                return XCTFail("\(name) in the sandbox")
            }
            XCTAssertEqual([decoded.pixbuf.width, decoded.pixbuf.height], [64, 48], name)
        }
        XCTAssertEqual(workers.statistics.started, 1, "one worker did all of it")
    }

    /// A decode that crashes its worker is tried once more with the whole budget (a decoder held
    /// to its share may crash for want of memory: issue 37); crashing again, its file is blamed,
    /// and the next file decodes in a new worker.
    func testACrashedWorkerCostsItsFileOnly() throws {
        let workers = pool()
        let slow = try largePNG("slow.png", width: 9000, height: 9000)
        // The worker is made to crash in the middle of a decode, as a decoder a file took over would.
        let crasher = killing(workers, times: 2, with: SIGSEGV)
        let result = workers.decode(slow, mimeType: "image/png", fittingIn: 256, maximumPixels: 100_000_000)
        while crasher.isExecuting { usleep(10_000) }
        guard case .failure(.undecodable(let reason)) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(reason, "the PNG decoder crashed on this file (Segmentation fault)")
        XCTAssertEqual(workers.statistics.replaced, 2)
        XCTAssertEqual(workers.widened, 1)
        let next = try make("next.jpg", ["-size", "400x300", "xc:orange"])
        let nextResult = workers.decode(next, mimeType: "image/jpeg", fittingIn: 128, maximumPixels: 100_000_000)
        guard case .success(let decoded) = nextResult else { return XCTFail("the next file, in a new worker: \(nextResult)") }
        XCTAssertEqual(decoded.pixbuf.width, 128)
    }

    /// A thread that kills the busy worker with `signal`, `times` times (each time the next
    /// worker to take the decode), as the OOM killer or a person would.
    private func killing(_ workers: DecodeWorkerPool, times: Int, with signal: Int32) -> Thread {
        let thread = Thread {
            var killed: Set<pid_t> = []
            for _ in 0..<1000 where killed.count < times {
                if let pid = workers.busyWorkerIDs.first(where: { !killed.contains($0) }) {
                    usleep(50_000)  // (inside the decode)
                    kill(pid, signal)
                    killed.insert(pid)
                }
                usleep(5_000)
            }
        }
        thread.start()
        return thread
    }

    /// The OOM killer, earlyoom or a person's kill ends a worker on an honest file: the file is
    /// decoded by a new worker, not marked damaged; only a second such end on it blames it
    /// (issue 37: eight honest panoramas became "Damaged file").
    func testAWorkerKilledFromOutsideCostsItsFileNothing() throws {
        let slow = try largePNG("slow.png", width: 9000, height: 9000)
        for signal in [SIGKILL, SIGTERM] {
            let workers = pool()
            let killer = killing(workers, times: 1, with: signal)
            let result = workers.decode(slow, mimeType: "image/png", fittingIn: 256, maximumPixels: 100_000_000)
            guard case .success(let decoded) = result else { return XCTFail("\(signal): \(result)") }
            XCTAssertEqual(decoded.pixbuf.width, 256)
            XCTAssertEqual(workers.statistics.replaced, 1, "the killed worker was replaced")
            while !killer.isFinished { usleep(10_000) }
        }
        let workers = pool()
        let killer = killing(workers, times: 2, with: SIGKILL)
        let twice = workers.decode(slow, mimeType: "image/png", fittingIn: 256, maximumPixels: 100_000_000)
        guard case .failure(.undecodable(let reason)) = twice else { return XCTFail("killed twice: \(twice)") }
        XCTAssertEqual(reason, "the PNG decoder was stopped on this file twice (killed twice)")
        while !killer.isFinished { usleep(10_000) }
    }

    /// A record an earlier build made of a decoder ended from outside ("the PNG decoder stopped
    /// on this file") is not believed: the photo is decoded again, not "Damaged file" for good;
    /// a crash's record still stands.
    func testARecordOfADecoderEndedFromOutsideIsNotBelieved() throws {
        _ = try make("honest.png", ["-size", "64x48", "xc:teal"])
        let path = FilePath(folder.appendingPathComponent("honest.png").path)
        var info = stat()
        XCTAssertEqual(stat(path.displayString, &info), 0)
        let original = try ThumbnailCache.Original(path: path, modificationTime: Int64(info.st_mtim.tv_sec), size: Int64(info.st_size), mimeType: "image/png")
        let workers = pool()
        for (index, (reason, believed)) in [("cannot decode: the PNG decoder stopped on this file", false),
                                            ("cannot decode: the PNG decoder crashed on this file (Terminated)", false),
                                            ("cannot decode: the PNG decoder crashed on this file (Segmentation fault)", true)].enumerated() {
            // (A cache of its own each: no thumbnail made for the one before.)
            let cache = ThumbnailCache(root: FilePath(folder.appendingPathComponent("cache-\(index)").path))
            try cache.storeFailure(for: original, reason: reason)
            XCTAssertEqual(cache.hasFailure(for: original), believed, reason)
            XCTAssertEqual(cache.failureReason(for: original) != nil, believed, reason)
            let made = Thumbnailer(cache: cache, memory: MemoryCache(), thumbnailers: [], workers: workers).thumbnail(for: path, flavor: .normal)
            if believed {
                guard case .failure = made else { return XCTFail("a crash's record stands: \(made)") }
            } else {
                guard case .success(let thumbnail) = made, thumbnail.pixbuf != nil else { return XCTFail("\(reason): \(made)") }
            }
        }
    }

    func testAWorkerPastItsDeadlinesIsStoppedAndReplaced() throws {
        // Out of processor time: a full decode of 81 megapixels takes 0.7 s of it here.
        let busy = pool(cpuSeconds: 0.2)
        let slow = try largePNG("slow.png", width: 9000, height: 9000)
        guard case .failure(.undecodable(let reason)) = busy.decode(slow, mimeType: "image/png", fittingIn: 256, maximumPixels: 100_000_000) else {
            return XCTFail("a decode past its processor time")
        }
        XCTAssertEqual(reason, "the PNG decoder used more than 0.2 s of processor time on this file")
        // Waiting on nothing (stopped): the wall deadline.
        let waiting = pool(wallSeconds: 1)
        let stopper = Thread {
            for _ in 0..<200 {
                if let pid = waiting.busyWorkerIDs.first { kill(pid, SIGSTOP); return }
                usleep(10_000)
            }
        }
        stopper.start()
        guard case .failure(.undecodable(let late)) = waiting.decode(slow, mimeType: "image/png", fittingIn: 256, maximumPixels: 100_000_000) else {
            return XCTFail("a decode past its time")
        }
        XCTAssertEqual(late, "the PNG decoder took longer than 1 s on this file")
        let next = try make("next.png", ["-size", "64x64", "xc:teal"])
        guard case .success = waiting.decode(next, mimeType: "image/png", fittingIn: 64, maximumPixels: 100_000_000) else {
            return XCTFail("the next file")
        }
    }

    /// Each decode is held to its share of the budget by its worker's address space (issue 37:
    /// each worker could take the whole budget, so four took four times it, whatever the
    /// estimates said). Photos of every common format fit their shares; given shares 40 MB below
    /// their estimates (as a wrong estimate would), a decode fails within its share and is tried
    /// once more with the whole budget, alone: the file is not blamed for a share too small.
    func testEachDecodeIsHeldToItsShareAndTriedAgainWithTheWholeBudget() throws {
        let files = [
            ("photo.jpg", "image/jpeg", ["-size", "3000x2000", "gradient:red-blue", "-quality", "90"]),
            ("progressive.jpg", "image/jpeg", ["-size", "3000x2000", "gradient:red-blue", "-quality", "90", "-interlace", "Plane"]),
            ("photo.png", "image/png", ["-size", "3000x2000", "gradient:red-blue"]),
            ("photo.tif", "image/tiff", ["-size", "3000x2000", "gradient:red-blue", "-compress", "zip"]),
            ("photo.gif", "image/gif", ["-size", "2000x1500", "gradient:red-blue"]),
            ("photo.webp", "image/webp", ["-size", "3000x2000", "gradient:red-blue"]),
        ]
        let usual = pool()
        var expected: [[UInt8]] = []
        for (name, type, arguments) in files {
            let file = try make(name, arguments)
            guard case .success(let decoded) = usual.decode(file, mimeType: type, fittingIn: 256, maximumPixels: 100_000_000) else {
                return XCTFail(name)
            }
            expected.append(pixels(decoded.pixbuf))
            XCTAssertEqual(usual.widened, 0, "\(name) fits its share")
        }
        let tight = DecodeWorkerPool(executable: TestSupport.photopick, maximumWorkers: 2, memoryBudget: 512 << 20, headroom: -(40 << 20))
        let png = try OpenFile(path: FilePath(folder.appendingPathComponent("photo.png").path))
        guard case .success(let decoded) = tight.decode(png, mimeType: "image/png", fittingIn: 256, maximumPixels: 100_000_000) else {
            return XCTFail("decoded once given the whole budget")
        }
        XCTAssertEqual(tight.widened, 1, "the decode did not fit its share, and was tried again")
        XCTAssertEqual(pixels(decoded.pixbuf), expected[2])
    }

    /// A video's thumbnailer (another project's program) runs confined: it writes nothing but
    /// its output, is held to a share of the budget (a failure within it is tried once more with
    /// the whole budget), and what it wrote is read by a worker (issue 37: it ran with every
    /// right of the person's, and no bound on its memory).
    func testAVideosThumbnailerIsConfinedAndHeldToItsShare() throws {
        let video = folder.appendingPathComponent("clip.mp4")
        let made = try TestSupport.run("/usr/bin/ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i", "color=c=teal:s=64x48:d=1",
                                                          "-pix_fmt", "yuv420p", video.path])
        XCTAssertEqual(made.status, 0, made.error)
        _ = try make("picture.png", ["-size", "64x48", "xc:teal"])
        let outside = folder.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        // The thumbnailer: tries to write beside the person's files, takes MEGABYTES, then
        // writes its picture.
        let script = folder.appendingPathComponent("thumbnailer.sh")
        try """
            echo escaped > "\(outside.path)/escaped" 2>/dev/null
            /bin/dd if=/dev/zero of=/dev/null bs="${MEGABYTES}M" count=1 2>/dev/null || exit 1
            cp "\(folder.appendingPathComponent("picture.png").path)" "$2"
            """.write(to: script, atomically: true, encoding: .utf8)
        func thumbnail(megabytes: Int) throws -> Result<Thumbnail, ThumbnailFailure> {
            let definition = folder.appendingPathComponent("test-\(megabytes).thumbnailer")
            try "[Thumbnailer Entry]\nExec=/usr/bin/env MEGABYTES=\(megabytes) /bin/sh \(script.path) %i %o %s\nMimeType=video/mp4;\n"
                .write(to: definition, atomically: true, encoding: .utf8)
            let thumbnailer = Thumbnailer(cache: ThumbnailCache(root: FilePath(folder.appendingPathComponent("cache-\(megabytes)").path)),
                                          memory: MemoryCache(), thumbnailers: [try XCTUnwrap(ExternalThumbnailer.parse(FilePath(definition.path)))],
                                          workers: DecodeWorkerPool(executable: TestSupport.photopick, maximumWorkers: 1, memoryBudget: 1 << 30))
            return thumbnailer.thumbnail(for: FilePath(video.path), flavor: .normal)
        }
        // Within its share (512 MB of 1 GB).
        let first = try thumbnail(megabytes: 100)
        guard case .success(let small) = first, let pixbuf = small.pixbuf else { return XCTFail("a thumbnailer within its share: \(first)") }
        let teal = pixbuf.pixel(x: 10, y: 10)
        XCTAssertTrue(teal.red < 20 && abs(Int(teal.green) - 128) < 20 && abs(Int(teal.blue) - 128) < 20, "\(teal)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: outside.appendingPathComponent("escaped").path), "it wrote beside the person's files")
        // Over its share, within the budget: failed, then tried again with the whole budget.
        guard case .success = try thumbnail(megabytes: 700) else { return XCTFail("tried again with the whole budget") }
        // Over the whole budget: it fails (it would succeed unbounded on this machine).
        guard case .failure(.thumbnailerFailed) = try thumbnail(megabytes: 1400) else { return XCTFail("held to the budget") }
    }

    func testMemoryIsBoundedByOneBudget() throws {
        let workers = pool(budget: 96 << 20)
        // Over the budget by its header (81 megapixels, about 309 MB): refused before any decode.
        let large = try largePNG("large.png", width: 9000, height: 9000)
        guard case .failure(.undecodable(let reason)) = workers.decode(large, mimeType: "image/png", fittingIn: 256, maximumPixels: 100_000_000) else {
            return XCTFail("a decode over the budget")
        }
        XCTAssertTrue(reason.contains("more than the 96 MB allowed"), reason)
        XCTAssertEqual(workers.statistics.started, 0, "no worker was needed to say so")
        // A TIFF's size is read from its header too (36 megapixels, 137 MB): refused before any
        // decode (issue 37: four 100-megapixel TIFFs were charged 48 MB each and held 1.26 GB).
        let tiff = try make("large.tif", ["-size", "6000x6000", "xc:red", "-compress", "zip"])
        let result = workers.decode(tiff, mimeType: "image/tiff", fittingIn: 256, maximumPixels: 100_000_000)
        guard case .failure(.undecodable(let bounded)) = result else { return XCTFail("a TIFF of 36 megapixels in 96 MB: \(result)") }
        XCTAssertTrue(bounded.contains("more than the 96 MB allowed"), bounded)
        XCTAssertEqual(workers.statistics.started, 0, "no worker was needed to say so")
        // Every format's header is read for its need; a size no header says (an SVG, drawn at the
        // size asked) is charged the worker's whole bound, so it runs alone.
        for (name, type, arguments, need) in [
            ("photo.bmp", "image/bmp", ["-size", "300x200", "xc:red"], 300 * 200 * 4 + 64 * 64 * 4),
            ("photo.heic", "image/heif", ["-size", "320x240", "xc:red"], 320 * 240 * 4 + 320 * 240 * 3 / 2 + 64 * 64 * 4),
            ("photo.avif", "image/avif", ["-size", "320x240", "xc:red"], 320 * 240 * 4 + 320 * 240 * 3 / 2 + 64 * 64 * 4),
            ("photo.tiff", "image/tiff", ["-size", "300x200", "-endian", "MSB", "xc:red"], 300 * 200 * 12 + 64 * 64 * 4),
            ("photo.gif", "image/gif", ["-size", "300x200", "xc:red"], 300 * 200 * 8 + 64 * 64 * 4),
            ("photo.ppm", "image/x-portable-pixmap", ["-size", "300x200", "xc:red"], 300 * 200 * 4 + 64 * 64 * 4),
            ("drawing.svg", "image/svg+xml", [], 96 << 20),
        ] as [(String, String, [String], Int)] {
            let file: OpenFile
            if arguments.isEmpty {
                let path = folder.appendingPathComponent(name)
                try Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200"/>"#.utf8).write(to: path)
                file = try OpenFile(path: FilePath(path.path))
            } else {
                file = try make(name, arguments)
            }
            XCTAssertEqual(DecodeWorkerPool.estimatedBytes(of: file, mimeType: type, box: 64, unknown: 96 << 20), need, name)
        }
        // A JPEG decoded at 1/8 by our own decoder, which holds the whole file beside its picture.
        let jpeg = try make("photo.jpg", ["-size", "2048x1360", "plasma:fractal", "-quality", "95"])
        XCTAssertEqual(DecodeWorkerPool.estimatedBytes(of: jpeg, mimeType: "image/jpeg", box: 64, unknown: 96 << 20),
                       2048 * 1360 / 64 * 3 + 64 * 64 * 4 + Int(jpeg.size))
        let next = try make("next.png", ["-size", "64x64", "xc:teal"])
        guard case .success = workers.decode(next, mimeType: "image/png", fittingIn: 64, maximumPixels: 100_000_000) else {
            return XCTFail("the next file")
        }
    }
}

/// The messages' own rules, as a hostile worker or window could bend them.
final class DecodeMessagesTests: XCTestCase {
    func testRequestsParseAsTheyAreWrittenAndNothingElse() {
        let request = DecodeMessages.Request(box: 256, cpuSeconds: 21, maximumPixels: 100_000_000, mimeType: "image/svg+xml")
        XCTAssertEqual(DecodeMessages.Request(request.bytes), request)
        // A MIME type of 64 letters and no end within its field (found by bench/fuzz): refused,
        // since what would be written back is not what was read.
        var unended = request.bytes
        for index in 36..<100 { unended[index] = UInt8(ascii: "a") }
        XCTAssertNil(DecodeMessages.Request(unended))
        var control = request.bytes
        control[38] = 0x1b
        XCTAssertNil(DecodeMessages.Request(control), "a control character in the type")
        var box = request.bytes
        box[8...11] = [0, 0, 0, 0]
        XCTAssertNil(DecodeMessages.Request(box), "a box of no size")
        var allowance = request.bytes
        allowance[28...35] = [0, 0, 0, 0, 0, 0, 0, 0]
        XCTAssertNil(DecodeMessages.Request(allowance), "no memory to decode in")
        let shared = DecodeMessages.Request(box: 256, cpuSeconds: 21, maximumPixels: 100_000_000, memoryAllowance: 70 << 20, mimeType: "image/png")
        XCTAssertEqual(DecodeMessages.Request(shared.bytes)?.memoryAllowance, 70 << 20)
    }

    func testARepliesPixelsMustFitTheFileThatCameWithThem() {
        var reply = DecodeMessages.Reply(outcome: .decoded)
        reply.width = 100
        reply.height = 50
        reply.rowstride = 300
        XCTAssertTrue(reply.pixelsFit(fileSize: 300 * 50))
        XCTAssertFalse(reply.pixelsFit(fileSize: 300 * 49), "a row short")
        reply.rowstride = 299
        XCTAssertFalse(reply.pixelsFit(fileSize: 1 << 20), "rows narrower than their pixels")
        reply.rowstride = 300
        reply.width = 5000
        XCTAssertFalse(reply.pixelsFit(fileSize: 1 << 30), "wider than any flavour")
    }
}
