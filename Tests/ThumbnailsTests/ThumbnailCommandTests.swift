// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PhotoLibrary
import TestSupport
import XCTest
@testable import Thumbnails

/// `photopick thumbnail` as scripts use it.
final class ThumbnailCommandTests: XCTestCase {
    private var cacheHome: URL!
    private var folder: URL!

    override func setUpWithError() throws {
        cacheHome = TestSupport.temporaryDirectory("command-cache")
        folder = TestSupport.temporaryDirectory("command-originals")
        for (name, color) in [("a.png", "red"), ("b.jpg", "blue")] {
            XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "400x300", "xc:\(color)", folder.appendingPathComponent(name).path]).status, 0)
        }
    }

    private func photopick(_ arguments: [String]) throws -> (status: Int32, output: Data, error: String) {
        try TestSupport.run(TestSupport.photopick, arguments, environment: ["XDG_CACHE_HOME": cacheHome.path])
    }

    /// The command ended well and printed each file's 128 px thumbnail's path, in the files' order.
    private func assertPrintsNormalThumbnails(_ result: (status: Int32, output: Data, error: String), of files: [String],
                                              file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(result.status, 0, result.error, file: file, line: line)
        let lines = String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, try files.map { try ThumbnailCache(root: FilePath(cacheHome.appendingPathComponent("thumbnails").path))
            .path(forFile: FilePath($0), flavor: .normal).displayString }, file: file, line: line)
        for printed in lines {
            guard case .success(let pixbuf) = Pixbuf.load(printed) else { return XCTFail(printed, file: file, line: line) }
            XCTAssertEqual(pixbuf.width, 128, file: file, line: line)
        }
    }

    func testPrintsEachThumbnailPathInOrder() throws {
        let files = ["b.jpg", "a.png"].map { folder.appendingPathComponent($0).path }
        let result = try photopick(["thumbnail", "--size", "normal"] + files)
        try assertPrintsNormalThumbnails(result, of: files)
    }

    /// Photos on another machine, named by their URIs: their thumbnails are made and printed in
    /// order, as local ones are (the command waited for ever: the loader downloads only for cells
    /// in sight, and a command has none unless it says which).
    func testPhotosOnAnotherMachineGetTheirThumbnails() throws {
        let server = try SFTPServer()
        defer { server.close() }
        let files = ["b.jpg", "a.png"].map { server.uri(folder.appendingPathComponent($0).path) }
        let result = try TestSupport.run(TestSupport.photopick, ["thumbnail", "--size", "normal"] + files,
                                         environment: server.environment.merging(["XDG_CACHE_HOME": cacheHome.path]) { $1 }, timeout: 60)
        try assertPrintsNormalThumbnails(result, of: files)
    }

    /// `--` ends the options: a file named "-x.jpg" after it is a file, and `--` is not one.
    func testADoubleDashEndsTheOptions() throws {
        try FileManager.default.copyItem(at: folder.appendingPathComponent("b.jpg"), to: folder.appendingPathComponent("-x.jpg"))
        let result = try TestSupport.run("/usr/bin/env", ["--chdir=\(folder.path)", TestSupport.photopick, "thumbnail", "--", "-x.jpg"],
                                         environment: ["XDG_CACHE_HOME": cacheHome.path])
        XCTAssertEqual(result.status, 0, result.error)
        XCTAssertEqual(result.error, "")
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self).split(separator: "\n").count, 1)
    }

    func testFailuresAreOneLineEachAndStatusOne() throws {
        let result = try photopick(["thumbnail", folder.appendingPathComponent("a.png").path, "/no/such/photo.jpg"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self).split(separator: "\n").count, 1)
        XCTAssertEqual(result.error, "photopick: /no/such/photo.jpg: no such file (or it was removed)\n")
        let bad = try photopick(["thumbnail", "--size", "huge", "x.png"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.error.split(separator: "\n").count, 1)
    }

    /// A folder, a named pipe and a broken link are said as what they are (a pipe is never
    /// opened: that would block); a link to a photo gets the photo's thumbnail.
    func testWhatIsNotAPhotoIsSaidAsWhatItIs() throws {
        let directory = folder.appendingPathComponent("a folder.jpg")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fifo = folder.appendingPathComponent("pipe.jpg")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let link = folder.appendingPathComponent("link.jpg")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "b.jpg")
        let broken = folder.appendingPathComponent("broken.jpg")
        try FileManager.default.createSymbolicLink(atPath: broken.path, withDestinationPath: "gone.jpg")
        let started = Date()
        let result = try TestSupport.run(TestSupport.photopick, ["thumbnail", directory.path, fifo.path, link.path, broken.path],
                                         environment: ["XDG_CACHE_HOME": cacheHome.path], timeout: 30)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "the pipe was not opened")
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.error.split(separator: "\n").map(String.init), [
            "photopick: \(directory.path): a folder, not a photo or video",
            "photopick: \(fifo.path): a named pipe, not a photo or video",
            "photopick: \(broken.path): a symbolic link to a file that does not exist (No such file or directory)",
        ])
        let printed = String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(printed.count, 1, "the link's thumbnail")
        guard case .success(let pixbuf) = Pixbuf.load(try XCTUnwrap(printed.first)) else { return XCTFail("no thumbnail for the link") }
        XCTAssertEqual(pixbuf.width, 256)
    }

    /// A `thumbnail` killed between writing and renaming left its temporary PNGs: the next run
    /// that writes into that folder removes those more than ten minutes old, and keeps a fresh
    /// one (another run may be writing it now).
    func testTemporaryFilesOfAKilledRunAreRemovedByTheNextRun() throws {
        let thumbnails = cacheHome.appendingPathComponent("thumbnails/normal")
        try FileManager.default.createDirectory(at: thumbnails, withIntermediateDirectories: true)
        let abandoned = thumbnails.appendingPathComponent("0123456789abcdef0123456789abcdef.png.photopick-Ab12Cd")
        let fresh = thumbnails.appendingPathComponent("fedcba9876543210fedcba9876543210.png.photopick-Xy34Zw")
        let unrelated = thumbnails.appendingPathComponent("notes.photopick-old")
        for file in [abandoned, fresh, unrelated] { try Data("half a PNG".utf8).write(to: file) }
        for file in [abandoned, unrelated] {
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: file.path)
        }
        let result = try photopick(["thumbnail", "--size", "normal", folder.appendingPathComponent("a.png").path])
        XCTAssertEqual(result.status, 0, result.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: abandoned.path), "an abandoned temporary is removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: fresh.path), "a fresh one may still be written: kept")
        XCTAssertTrue(FileManager.default.fileExists(atPath: unrelated.path), "only our own temporaries are touched")
    }

    /// `thumbnail` killed outright (SIGKILL) at twenty moments while it writes hundreds of
    /// thumbnails: every thumbnail left in the cache is whole (it decodes to its last row and
    /// carries its keys), because each is written to a temporary file and renamed into place.
    func testKillingTheWriterAtAnyMomentLeavesOnlyWholeThumbnails() throws {
        let generated = GeneratedLibrary.shared
        let photos = generated.files.filter { $0["kind"] as? String == "photo" }.map { generated.path(of: $0).displayString }
        XCTAssertGreaterThan(photos.count, 100)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20 {
            try TestSupport.photopickKilled(["thumbnail", "--size", round % 2 == 0 ? "normal" : "large", "--"] + photos,
                                            environment: ["XDG_CACHE_HOME": cacheHome.path], after: Double.random(in: 0.03...0.6, using: &generator))
        }
        // Every PNG in the cache decodes completely (PIL's load reads to the last row) and has
        // its keys; only temporaries may be partial.
        let check = try TestSupport.run("/usr/bin/python3", ["-c", """
            import os, sys
            from PIL import Image
            whole = broken = temporaries = 0
            for folder, _, files in os.walk(sys.argv[1]):
                for name in files:
                    path = os.path.join(folder, name)
                    if not name.endswith(".png"):
                        temporaries += 1
                        continue
                    try:
                        with Image.open(path) as image:
                            image.load()
                            assert image.info.get("Thumb::URI", "").startswith("file://"), "no Thumb::URI"
                        whole += 1
                    except Exception as error:
                        broken += 1
                        print("broken:", path, error)
            print("whole", whole, "temporaries", temporaries)
            sys.exit(1 if broken else 0)
            """, cacheHome.appendingPathComponent("thumbnails").path])
        let report = String(decoding: check.output, as: UTF8.self)
        XCTAssertEqual(check.status, 0, report + check.error)
        XCTAssertFalse(report.contains("whole 0 "), "the runs wrote thumbnails before they were killed: \(report)")
    }

    func testADamagedFileGivesOneLineAndNoLoaderNoise() throws {
        let generated = GeneratedLibrary.shared
        let damaged = generated.files.filter { ["truncated_webp", "truncated_gif", "png_bad_crc"].contains($0["corrupt"] as? String ?? "") }
            .map { generated.path(of: $0).displayString }
        XCTAssertEqual(damaged.count, 3)
        let result = try photopick(["thumbnail"] + damaged)
        for line in result.error.split(separator: "\n") {
            XCTAssertTrue(line.hasPrefix("photopick: "), "only our own lines, got: \(line)")
        }
        XCTAssertFalse(result.error.contains("CRITICAL") || result.error.contains("WARNING"), result.error)
    }

    func testAnUnreadableOriginalLeavesTheCacheUntouched() throws {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw XCTSkip("needs root and setpriv to run as another user")
        }
        let locked = folder.appendingPathComponent("locked.png")
        try FileManager.default.copyItem(at: folder.appendingPathComponent("a.png"), to: locked)
        chmod(locked.path, 0)
        var directory = folder!
        while directory.path.hasPrefix(TestSupport.temporaryBase.path) {
            chmod(directory.path, 0o755)
            directory = directory.deletingLastPathComponent()
        }
        chmod(cacheHome.path, 0o777)
        let result = try TestSupport.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                              TestSupport.photopick, "thumbnail", locked.path],
                                         environment: ["XDG_CACHE_HOME": cacheHome.path, "HOME": cacheHome.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.error.contains("Permission denied"), result.error)
        let written = (try? FileManager.default.subpathsOfDirectory(atPath: cacheHome.appendingPathComponent("thumbnails").path)) ?? []
        XCTAssertEqual(written.filter { $0.hasSuffix(".png") }, [], "no thumbnail and no failure record")
    }
}
