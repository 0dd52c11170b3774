// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// Header readers against crafted files: sizes that overflow, empty boxes, endless fill bytes.
/// Each must give an answer (media or a reason) without trapping or hanging.
final class HostileHeaderTests: XCTestCase {
    private func write(_ bytes: [UInt8], name: String) throws -> FilePath {
        let url = TestSupport.temporaryDirectory("hostile").appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return FilePath(url.path)
    }

    private func read(_ path: FilePath) -> ReadOutcome {
        MetadataReader.read(path: path, version: FileVersion(size: 0, modificationTimeNanoseconds: 0, inode: 0))
    }

    private func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + payload.count)
        return withUnsafeBytes(of: size.bigEndian) { Array($0) } + Array(type.utf8) + payload
    }

    /// An Exif segment whose length (6) cannot hold its own "Exif\0\0" header: the quick date
    /// pass took a backwards range of it and trapped, ending `photopick index` (bench/fuzz found
    /// it). It is left to the full read, which indexes the photo.
    func testAnExifSegmentShorterThanItsHeaderIsLeftToTheFullRead() throws {
        let url = TestSupport.packageRoot.appendingPathComponent("Tests/Corpus/files/fuzz-short-exif-segment.jpg")
        let file = try OpenFile(path: FilePath(url.path))
        XCTAssertNil(QuickDate.answer(file, head: file.read(at: 0, count: QuickDate.headLength)))
        let version = FileVersion(size: file.size, modificationTimeNanoseconds: 1_600_000_000_000_000_000, inode: 0)
        guard case .media(let media) = MetadataReader.readDate(path: FilePath(url.path), version: version) else {
            return XCTFail("indexed as a photo")
        }
        XCTAssertFalse(media.isPartial, "read in full")
    }

    func testABoxClaimingAnEnormousSizeIsNotFollowed() throws {
        let ftyp = box("ftyp", Array("isom\0\0\0\0isommp41".utf8))
        // A 64-bit size near Int64.max after the first box: offset + size would overflow.
        let huge = [0, 0, 0, 1] + Array("free".utf8) + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0]
        let path = try write(ftyp + huge + [UInt8](repeating: 0, count: 64), name: "huge-box.mp4")
        XCTAssertEqual(read(path), .failed("damaged or truncated video: no movie header"))
    }

    func testEmptyMovieAndTrackHeadersAreSkipped() throws {
        let ftyp = box("ftyp", Array("isom\0\0\0\0isommp41".utf8))
        let moov = box("moov", box("trak", box("tkhd", [])) + box("mvhd", []))
        let path = try write(ftyp + moov, name: "empty-boxes.mp4")
        XCTAssertEqual(read(path), .failed("damaged or truncated video: no movie header"))
    }

    func testAJPEGOfFillBytesEnds() throws {
        let path = try write([0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 200_000), name: "fill.jpg")
        let started = Date()
        if case .media = read(path) { XCTFail("no size, no media") }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testAGIFWhoseBlocksRunPastTheEnd() throws {
        var gif = Array("GIF89a".utf8) + [16, 0, 16, 0, 0x80, 0, 0] + [UInt8](repeating: 0, count: 6)
        gif += [0x21, 0xF9, 0xFF]  // an extension whose sub-block claims 255 bytes that are not there
        let path = try write(gif, name: "short.gif")
        guard case .media(let media) = read(path) else { return XCTFail("a GIF header is enough to index it") }
        XCTAssertEqual(media.width, 16)
        XCTAssertEqual(media.frameCount, 0)
    }

    func testFileTimesFarInTheFutureOrPastDoNotStopAScan() throws {
        let root = TestSupport.temporaryDirectory("times")
        let source = TestSupport.temporaryDirectory("png").appendingPathComponent("x.png")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "4x4", "xc:red", source.path]).status, 0)
        for (name, year) in [("future.png", 2400), ("past.png", 1600)] {
            let target = root.appendingPathComponent(name)
            try FileManager.default.copyItem(at: source, to: target)
            XCTAssertEqual(try TestSupport.run("/usr/bin/touch", ["-d", "\(year)-01-01", target.path]).status, 0)
        }
        let library = try PhotoLibrary(roots: [FilePath(root.path)], location: .inMemory)
        try library.scan()
        XCTAssertEqual(try library.paths(in: .smart(.recents)).map { String(decoding: $0.lastComponent, as: UTF8.self) },
                       ["future.png", "past.png"])
    }

    func testAssetIDsAreNeverReused() throws {
        let root = TestSupport.temporaryDirectory("ids")
        let source = TestSupport.temporaryDirectory("png").appendingPathComponent("x.png")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "4x4", "xc:red", source.path]).status, 0)
        try FileManager.default.copyItem(at: source, to: root.appendingPathComponent("a.png"))
        let library = try PhotoLibrary(roots: [FilePath(root.path)],
                                       location: IndexLocation(databasePath: TestSupport.temporaryDirectory("ids-index").appendingPathComponent("index.sqlite").path))
        try library.scan()
        let first = try library.fetchAssets(in: .smart(.recents)).allIDs
        try FileManager.default.removeItem(at: root.appendingPathComponent("a.png"))
        try library.scan()
        try FileManager.default.copyItem(at: source, to: root.appendingPathComponent("b.png"))
        let change = try library.scan()
        let second = try library.fetchAssets(in: .smart(.recents)).allIDs
        XCTAssertEqual(second.count, 1)
        XCTAssertGreaterThan(second[0], first[0])
        XCTAssertEqual(change.inserted, [second[0]])
    }
}
