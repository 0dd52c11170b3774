// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import Foundation
import Glibc
import PhotoLibrary
import TestSupport
import XCTest
@_spi(Testing) @testable import PickerUI
@testable import Thumbnails

/// A decode worker that crashes while the window shows the grid (issue 20): the window stays
/// up, the cell of the file it was on says it cannot be shown and why, and the photos around it
/// are decoded by a new worker.
@MainActor
final class DecodeWorkerWindowTests: XCTestCase {
    nonisolated func testAWorkerCrashingOnAFileCostsThatCellOnly() throws {
        try MainActor.assumeIsolated {
            try InProcessGTK.require()
            let folder = TestSupport.temporaryDirectory("crashing-worker")
            defer { try? FileManager.default.removeItem(at: folder) }
            let root = folder.appendingPathComponent("Pictures")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            for (index, colour) in ["navy", "olive", "maroon", "teal"].enumerated() {
                let made = try TestSupport.run("/usr/bin/convert", ["-size", "640x480", "plasma:\(colour)-white", "-seed", String(index),
                                                                    root.appendingPathComponent("photo-\(index).jpg").path])
                XCTAssertEqual(made.status, 0, made.error)
            }
            // 9000 × 9000 grey pixels in a few kilobytes: a second or more to decode, so the
            // worker is caught at it.
            let script = """
                import struct, sys, zlib
                w = h = 9000
                def chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
                raw = zlib.compressobj(9)
                row = b"\\0" + b"\\x80" * (w * 3)
                body = b"".join(raw.compress(row) for _ in range(h)) + raw.flush()
                open(sys.argv[1], "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", body) + chunk(b"IEND", b""))
                """
            let slow = root.appendingPathComponent("large.png")
            let made = try TestSupport.run("/usr/bin/python3", ["-c", script, slow.path])
            XCTAssertEqual(made.status, 0, made.error)

            let library = try PhotoLibrary(roots: [FilePath(root.path)],
                                           location: IndexLocation(databasePath: folder.appendingPathComponent("index.sqlite").path))
            try library.scan()
            let workers = DecodeWorkerPool(executable: TestSupport.photopick, maximumWorkers: 2)
            let thumbnailer = Thumbnailer(cache: ThumbnailCache(root: FilePath(folder.appendingPathComponent("thumbnails").path)),
                                          thumbnailers: [], workers: workers)
            let view = Picker.hosting(library: library, loader: ThumbnailLoader(thumbnailer: thumbnailer))
            let window = gtk_window_new()!
            defer { gtk_window_destroy(window.cast()) }
            gtk_window_set_default_size(window.cast(), 960, 720)
            gtk_window_set_child(window.cast(), view.widget)
            try view.showAlbums()
            gtk_window_present(window.cast())

            // The worker busy for more than 0.3 s of processor time is on the large PNG (the
            // photos take milliseconds): it is crashed from outside, as a decoder's bug would,
            // and so is the worker that tries it again with the whole budget (a crash within a
            // decode's share may be for want of memory).
            final class Crash: @unchecked Sendable { var sent = 0; var done = false }
            let crash = Crash()
            let crasher = Thread {
                var seen: [pid_t: Double] = [:]
                while !crash.done, crash.sent < 2 {
                    for pid in workers.busyWorkerIDs {
                        guard let cpu = DecodeWorkerPool.processorSeconds(of: pid) else { continue }
                        let start = seen[pid] ?? cpu
                        seen[pid] = start
                        if cpu - start > 0.3, seen[pid] != -1 {
                            kill(pid, SIGSEGV)
                            seen[pid] = -1
                            crash.sent += 1
                        }
                    }
                    usleep(10_000)
                }
            }
            crasher.start()
            defer { crash.done = true }

            let id = try XCTUnwrap(library.assets(ids: library.fetchAssets(in: .smart(.recents)).allIDs).first { $0.path.displayString == slow.path }?.id)
            @MainActor func cells() -> [GridCell] { view.cells.compactMap(\.cell).filter { $0.assetID != nil } }
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline, !(cells().count == 5 && cells().allSatisfy { $0.showsPicture || $0.problemDetail != nil }) {
                InProcessGTK.pump(seconds: 0.1)
            }
            XCTAssertEqual(crash.sent, 2, "the workers were caught decoding the large PNG")
            let broken = try XCTUnwrap(cells().first { $0.assetID == id })
            XCTAssertEqual(broken.problemDetail, "cannot decode: the PNG decoder crashed on this file (Segmentation fault)")
            XCTAssert(broken.accessibleText.contains("damaged file"), broken.accessibleText)
            XCTAssertEqual(cells().filter { $0.assetID != id && $0.showsPicture }.count, 4, "every photo around it is shown")
            XCTAssertEqual(workers.statistics.replaced, 2)
            XCTAssertEqual(workers.widened, 1)
            // Never tried again while the file is unchanged: its failure is on record.
            let before = workers.statistics
            guard case .failure(.knownFailure) = thumbnailer.thumbnail(for: FilePath(slow.path), flavor: .normal) else {
                return XCTFail("the failure was recorded")
            }
            XCTAssert(workers.statistics == before, "no worker asked again")
        }
    }
}
