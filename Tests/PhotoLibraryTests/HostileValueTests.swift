// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// Numbers from files that no real file holds: a movie of 2^64 seconds, a timescale of zero,
/// infinite and NaN durations, an image two billion pixels wide, and an index written by an
/// older version that stored such values. None is believed (it becomes unknown), the file is
/// still indexed, and nothing traps when the values are read back or printed.
final class HostileValueTests: XCTestCase {
    private func read(_ bytes: [UInt8], name: String) throws -> MediaFile {
        let url = try HostileFiles.write(bytes, to: TestSupport.temporaryDirectory("hostile-values"), name: name)
        let outcome = MetadataReader.read(path: FilePath(url.path), version: FileVersion(size: 0, modificationTimeNanoseconds: 0, inode: 0))
        guard case .media(let media) = outcome else {
            XCTFail("\(name) should still be indexed, got \(outcome)")
            throw XCTSkip("not media")
        }
        return media
    }

    // MARK: Readers

    func testAnMP4ClaimingNearly2To64SecondsHasNoDuration() throws {
        let media = try read(HostileFiles.mp4(duration: UInt64.max - 1, timescale: 1), name: "huge.mp4")
        XCTAssertEqual(media.kind, .video)
        XCTAssertNil(media.duration)
        XCTAssertEqual(media.width, 640, "the rest of the header is still used")
        XCTAssertEqual(media.captureDate.source, .embedded)
    }

    func testAnMP4DurationBeyondThirtyDaysIsNotBelieved() throws {
        XCTAssertNil(try read(HostileFiles.mp4(duration: 31 * 86_400, timescale: 1), name: "month.mp4").duration)
        XCTAssertEqual(try read(HostileFiles.mp4(duration: 7200, timescale: 1), name: "two-hours.mp4").duration, 7200)
    }

    func testAnMP4WithTimescaleZeroHasNoDuration() throws {
        let media = try read(HostileFiles.mp4(duration: 5000, timescale: 0), name: "zero.mp4")
        XCTAssertEqual(media.kind, .video)
        XCTAssertNil(media.duration)
    }

    func testAWebMWithAnInfiniteNaNOrHugeDurationHasNoDuration() throws {
        for (name, bytes) in [("inf.webm", HostileFiles.webm(duration: .infinity)),
                              ("minus-inf.webm", HostileFiles.webm(duration: -.infinity)),
                              ("nan.webm", HostileFiles.webm(duration: .nan)),
                              ("float32-inf.webm", HostileFiles.webm(duration32: .infinity)),
                              ("huge.webm", HostileFiles.webm(duration: 1e300)),
                              ("largest.webm", HostileFiles.webm(duration: .greatestFiniteMagnitude)),
                              ("huge-scale.webm", HostileFiles.webm(duration: 1e10, timecodeScale: UInt64.max))] {
            let media = try read(bytes, name: name)
            XCTAssertEqual(media.kind, .video, name)
            XCTAssertNil(media.duration, name)
            XCTAssertEqual(media.width, 640, name)
        }
        XCTAssertEqual(try read(HostileFiles.webm(duration: 2500), name: "sane.webm").duration, 2.5)
    }

    func testAnImageWithAbsurdDimensionsHasNoSize() throws {
        for (width, height) in [(UInt32(0x7FFF_FFFF), UInt32(0x7FFF_FFFF)), (0xFFFF_FFFF, 0xFFFF_FFFF), (0x7FFF_FFFF, 16)] {
            let media = try read(HostileFiles.png(width: width, height: height), name: "absurd.png")
            XCTAssertEqual(media.kind, .photo)
            XCTAssertNil(media.width, "\(width)x\(height)")
            XCTAssertNil(media.height, "\(width)x\(height)")
        }
        let fine = try read(HostileFiles.png(width: 20_000, height: 300), name: "wide.png")
        XCTAssertEqual(fine.width, 20_000)
        XCTAssertEqual(fine.height, 300)
    }

    // MARK: The index and `ls --json`

    /// `photopick ls --json` over the folder, objects by file name.
    private func listJSON(_ library: URL, dataHome: URL, cached: Bool = false) throws -> [String: [String: Any]] {
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--json", "--library", library.path] + (cached ? ["--cached"] : []),
                                         environment: ["XDG_DATA_HOME": dataHome.path])
        XCTAssertEqual(result.status, 0, result.error)
        XCTAssertEqual(result.error, "")
        let objects = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.output) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: objects.map { (URL(fileURLWithPath: $0["path"] as! String).lastPathComponent, $0) })
    }

    func testTheIndexAndLsJSONShowHostileValuesAsUnknown() throws {
        let library = TestSupport.temporaryDirectory("hostile-library")
        try HostileFiles.writeLibrary(in: library)
        let index = try PhotoLibrary(roots: [FilePath(library.path)], location: .inMemory)
        try index.scan()
        let assets = try index.assets(ids: try index.fetchAssets(in: .smart(.recents)).allIDs)
        XCTAssertEqual(assets.count, 7, "every file is kept")
        for asset in assets {
            let name = String(decoding: asset.path.lastComponent, as: UTF8.self)
            XCTAssertEqual(asset.duration, name == "sane.mp4" ? 7 : nil, name)
            if name == "absurd.png" { XCTAssertNil(asset.width); XCTAssertNil(asset.height) }
        }

        let listed = try listJSON(library, dataHome: TestSupport.temporaryDirectory("hostile-data"))
        XCTAssertEqual(Set(listed.keys), ["huge-duration.mp4", "timescale-zero.mp4", "infinite.webm", "nan.webm", "huge.webm",
                                          "absurd.png", "sane.mp4"])
        for (name, object) in listed {
            if name == "sane.mp4" {
                XCTAssertEqual(object["duration"] as? Double, 7)
            } else {
                XCTAssertTrue(object["duration"] is NSNull, "\(name): \(object["duration"] ?? "missing")")
            }
        }
        XCTAssertTrue(listed["absurd.png"]?["width"] is NSNull)
        XCTAssertEqual(listed["huge.webm"]?["kind"] as? String, "video")
    }

    /// An index written by an older Photopick holds what its readers believed: a duration of
    /// 1.8e19 seconds, a negative width, orientation 99, a rating of 1000 and an offset of
    /// Int64.max minutes. Reading it back must not trap, and must not pass the values on.
    func testAnOldIndexHoldingHostileValuesReadsBackSanely() throws {
        let library = TestSupport.temporaryDirectory("old-index-library")
        try HostileFiles.write(HostileFiles.mp4(duration: 7000, timescale: 1000), to: library, name: "clip.mp4")
        let dataHome = TestSupport.temporaryDirectory("old-index-data")
        XCTAssertEqual(try listJSON(library, dataHome: dataHome)["clip.mp4"]?["duration"] as? Double, 7)
        let databases = try FileManager.default.contentsOfDirectory(atPath: dataHome.appendingPathComponent("photopick").path)
            .filter { $0.hasSuffix(".sqlite") }
        XCTAssertEqual(databases.count, 1, "\(databases)")
        let database = dataHome.appendingPathComponent("photopick").appendingPathComponent(databases[0]).path
        let update = try TestSupport.run("/usr/bin/sqlite3", [database, """
            UPDATE assets SET duration = 1.8446744073709552e19, width = -5, height = 3000000000000, orientation = 99,
                rating = 1000, capture_offset = 9223372036854775807 WHERE kind = 2
            """])
        XCTAssertEqual(update.status, 0, update.error)

        let listed = try XCTUnwrap(try listJSON(library, dataHome: dataHome, cached: true)["clip.mp4"])
        XCTAssertTrue(listed["duration"] is NSNull, "\(listed)")
        XCTAssertTrue(listed["width"] is NSNull, "\(listed)")
        XCTAssertTrue(listed["height"] is NSNull, "\(listed)")
        XCTAssertEqual(listed["orientation"] as? Int, 1)
        XCTAssertTrue(listed["rating"] is NSNull, "\(listed)")
        XCTAssertEqual(listed["captured_at"] as? String, "2020-01-01T00:00:00", "an offset out of range is dropped")

        // The same through the library, as the window reads it.
        let index = try PhotoLibrary(roots: [FilePath(library.path)],
                                     location: IndexLocation(databasePath: dataHome.appendingPathComponent("photopick/index.sqlite").path))
        let asset = try XCTUnwrap(try index.assets(ids: try index.fetchAssets(in: .smart(.recents)).allIDs).first)
        XCTAssertNil(asset.duration)
        XCTAssertNil(asset.width)
        XCTAssertEqual(asset.orientation, 1)
        XCTAssertNil(asset.captureDate.utcOffsetMinutes)
    }

    func testCaptureDatesAtTheEndsOfInt64FormatWithoutTrapping() {
        for milliseconds in [Int64.min, Int64.min + 1, -1, Int64.max] {
            for offset in [nil, 0, 840] as [Int?] {
                let date = CaptureDate(millisecondsSinceEpoch: milliseconds, utcOffsetMinutes: offset, source: .embedded)
                XCTAssertFalse(date.iso8601.isEmpty)
            }
        }
    }
}

extension HostileValueTests {
    /// The indexer's own check, behind the readers': whatever a reader lets through is made
    /// unknown before it is stored.
    func testWhatTheIndexStoresIsInRange() {
        var media = MediaFile(kind: .video, mimeType: "video/mp4", width: -5, height: 480, orientation: 99,
                              captureDate: CaptureDate(millisecondsSinceEpoch: 0, utcOffsetMinutes: Int.max, source: .embedded),
                              duration: .infinity, frameCount: -1, rating: 1000)
        media = media.plausible(modificationTimeNanoseconds: 0)
        XCTAssertNil(media.width)
        XCTAssertNil(media.height, "one side alone is no use")
        XCTAssertEqual(media.orientation, 1)
        XCTAssertNil(media.captureDate.utcOffsetMinutes)
        XCTAssertNil(media.duration)
        XCTAssertNil(media.frameCount)
        XCTAssertNil(media.rating)
        let sane = MediaFile(kind: .video, mimeType: "video/mp4", width: 1920, height: 1080, orientation: 6,
                             captureDate: CaptureDate(millisecondsSinceEpoch: 0, utcOffsetMinutes: -330, source: .embedded),
                             duration: 12.5, frameCount: 2, rating: 5)
        XCTAssertEqual(sane.plausible(modificationTimeNanoseconds: 0), sane)
    }
}

extension HostileValueTests {
    /// The schema version is a number in the index file's header too: no Photopick writes a
    /// negative one, so such a file is kept aside as damaged and the index rebuilt.
    func testAnIndexWithANegativeSchemaVersionIsKeptAsideAndRebuilt() throws {
        let library = TestSupport.temporaryDirectory("schema-library")
        try HostileFiles.write(HostileFiles.mp4(duration: 7000, timescale: 1000), to: library, name: "clip.mp4")
        let location = IndexLocation(databasePath: TestSupport.temporaryDirectory("schema-index").appendingPathComponent("index.sqlite").path)
        let file: String
        do {
            let index = try PhotoLibrary(roots: [FilePath(library.path)], location: location)
            try index.scan()
            file = try XCTUnwrap(index.location.databasePath)
        }
        let update = try TestSupport.run("/usr/bin/sqlite3", [file, "PRAGMA user_version = -1"])
        XCTAssertEqual(update.status, 0, update.error)

        let index = try PhotoLibrary(roots: [FilePath(library.path)], location: location)
        XCTAssertTrue(index.notices.contains { $0.kind == .rebuilt && $0.message.contains("schema version -1") }, "\(index.notices)")
        let folder = (file as NSString).deletingLastPathComponent
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".corrupt-") }.isEmpty,
                       "the file is kept for inspection")
        try index.scan()
        XCTAssertEqual(try index.fetchAssets(in: .smart(.recents)).count, 1)
    }
}
