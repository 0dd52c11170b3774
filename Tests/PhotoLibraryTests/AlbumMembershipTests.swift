import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// The index against a make-library library: every album holds exactly the files the manifest's
/// rules say, in newest-first order, and broken files are listed once, with a reason.
final class AlbumMembershipTests: XCTestCase {
    nonisolated(unsafe) static var library: PhotoLibrary!
    nonisolated(unsafe) static var firstScan = ScanProgress()
    var generated: GeneratedLibrary { .shared }

    override class func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
        tzset()
        let database = TestSupport.temporaryDirectory("index").appendingPathComponent("index.sqlite").path
        library = try! PhotoLibrary(roots: [GeneratedLibrary.shared.rootPath], location: IndexLocation(databasePath: database))
        try! library.scan(progress: { firstScan = $0 })
    }

    private var okFiles: [[String: Any]] {
        let asRoot = generated.summary["running_as_root"] as? Bool ?? (geteuid() == 0)
        return generated.files.filter { file in
            let kind = file["kind"] as! String
            if !asRoot && (kind == "unreadable" || kind == "in_unreadable_dir") { return false }
            return GeneratedLibrary.okKinds.contains(kind)
        }
    }

    private func albumSet(_ album: SmartAlbum) throws -> Set<FilePath> {
        Set(try Self.library.paths(in: .smart(album))).subtracting(generated.corruptPaths)
    }

    private func expected(_ predicate: ([String: Any]) -> Bool) -> Set<FilePath> {
        Set(okFiles.filter(predicate).map(generated.path(of:)))
    }

    func testRecentsHoldsEveryAssetButTheVideoHalfOfLivePhotos() throws {
        let recents = try albumSet(.recents)
        let expected = expected { $0["kind"] as? String != "live_video" }
        XCTAssertEqual(recents.subtracting(expected).map(\.displayString).sorted(), [], "in Recents but should not be")
        XCTAssertEqual(expected.subtracting(recents).map(\.displayString).sorted(), [], "missing from Recents")
        // The manifest's count leaves out the chmod-000 files, which root reads like any other.
        let readableLocked = okFiles.filter { ["unreadable", "in_unreadable_dir"].contains($0["kind"] as! String) }.count
        let timeline = (generated.summary["albums"] as! [String: Any])["timeline_items"] as! Int
        XCTAssertEqual(recents.count, timeline + readableLocked)
    }

    func testRecentsIsNewestFirstByCaptureDate() throws {
        let result = try Self.library.fetchAssets(in: .smart(.recents))
        let dates = try Self.library.assets(ids: result.allIDs).map(\.captureDate.millisecondsSinceEpoch)
        XCTAssertEqual(dates, dates.sorted(by: >))
        // A photo's capture date is its EXIF DateTimeOriginal, not the file time.
        let byPath = Dictionary(uniqueKeysWithValues: try Self.library.assets(ids: result.allIDs).map { ($0.path, $0) })
        var checked = 0
        for file in okFiles where file["dto"] != nil && file["kind"] as? String == "photo" {
            let dto = file["dto"] as! String  // "YYYY:MM:DD HH:MM:SS", the clock of a +00:00 camera
            let asset = try XCTUnwrap(byPath[generated.path(of: file)])
            XCTAssertEqual(asset.captureDate.source, .embedded)
            // "2019:06:01 12:00:00" -> "2019-06-01T12:00:00"
            let dayPart = String(dto.prefix(10)).replacingOccurrences(of: ":", with: "-")
            let expectedISO = dayPart + "T" + String(dto.dropFirst(11))
            XCTAssertEqual(String(asset.captureDate.iso8601.prefix(19)), expectedISO)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 100)
    }

    func testSmartAlbumsHoldExactlyTheManifestSets() throws {
        func kind(_ name: String) -> ([String: Any]) -> Bool { { $0["kind"] as? String == name } }
        XCTAssertEqual(try albumSet(.favorites), expected { $0["rating"] as? Int == 5 })
        XCTAssertEqual(try albumSet(.videos), expected(kind("video")))
        XCTAssertEqual(try albumSet(.screenshots), expected(kind("screenshot")))
        XCTAssertEqual(try albumSet(.selfies), expected { ($0["lens"] as? String)?.lowercased().contains("front") == true })
        XCTAssertEqual(try albumSet(.panoramas), expected { file in
            guard let display = file["display"] as? [Int] else { return false }
            return Double(display[0]) / Double(display[1]) > 2.5
        })
        XCTAssertEqual(try albumSet(.bursts), expected(kind("burst")))
        XCTAssertEqual(try albumSet(.livePhotos), expected(kind("live_photo")))
        XCTAssertEqual(try albumSet(.animated), expected(kind("animated")))
        let albums = generated.summary["albums"] as! [String: Any]
        XCTAssertEqual(try albumSet(.livePhotos).count, albums["live_photos"] as? Int)
        XCTAssertGreaterThan(try albumSet(.videos).count, 0, "make-library wrote no videos: is ffmpeg installed?")
    }

    func testBurstsAreGroupedBySecond() throws {
        let bursts = try XCTUnwrap(try Self.library.albums().first { $0.album == .smart(.bursts) })
        XCTAssertEqual(bursts.burstGroups, (generated.summary["albums"] as! [String: Any])["burst_groups"] as? Int)
    }

    func testAlbumListCountsMatchTheAlbumsRows() throws {
        // The counts are kept by triggers; the rows are what a query returns.
        for summary in try Self.library.albums() {
            let result = try Self.library.fetchAssets(in: summary.album)
            XCTAssertEqual(summary.count, result.allIDs.count, summary.name)
            XCTAssertEqual(result.count, result.allIDs.count, summary.name)
        }
    }

    func testFolderAlbumsHoldTheirFolderMinusLiveVideoHalves() throws {
        var expectedCounts: [String: Int] = [:]
        for file in okFiles where file["kind"] as? String != "live_video" {
            let path = generated.path(of: file)
            let folder = String(decoding: path.parent.relative(to: generated.rootPath) ?? [], as: UTF8.self)
            expectedCounts[folder.isEmpty ? generated.root.lastPathComponent : folder, default: 0] += 1
        }
        // Corrupt files may show in their folder (as broken) or only in the error list.
        let corrupt = generated.corruptPaths
        var actual: [String: Int] = [:]
        for album in try Self.library.albums() {
            guard case .folder = album.album else { continue }
            let paths = try Self.library.paths(in: album.album)
            actual[album.name] = paths.filter { !corrupt.contains($0) }.count
        }
        actual = actual.filter { $0.value > 0 }
        XCTAssertEqual(actual, expectedCounts)
    }

    func testHiddenLinkedAndNonMediaFilesAreNeverAssets() throws {
        let recents = Set(try Self.library.paths(in: .smart(.recents)))
        for file in generated.files where ["hidden", "symlink_target", "nonmedia", "filler"].contains(file["kind"] as! String) {
            XCTAssertFalse(recents.contains(generated.path(of: file)), file["path"] as! String)
        }
        let recentsPaths = recents.map(\.displayString)
        XCTAssertFalse(recentsPaths.contains { $0.contains("/Linked Album/") || $0.contains("/link-to-photo") || $0.contains("loop-") })
    }

    func testBrokenFilesAreListedOnceWithAReason() throws {
        let problems = try Self.library.problems()
        let recents = Set(try Self.library.paths(in: .smart(.recents)))
        let problemPaths = Set(problems.map(\.path))
        for path in generated.corruptPaths {
            XCTAssertNotEqual(recents.contains(path), problemPaths.contains(path), "\(path) must be in exactly one place")
        }
        XCTAssertTrue(problems.allSatisfy { !$0.reason.isEmpty })
        let zeroByte = try XCTUnwrap(problems.first { $0.path.displayString.hasSuffix("corrupt/zero-byte.jpg") })
        XCTAssertEqual(zeroByte.reason, "empty file")
        XCTAssertTrue(problemPaths.isSubset(of: generated.corruptPaths), "only corrupt files have problems: \(problemPaths.subtracting(generated.corruptPaths))")
    }

    func testNonUTF8AndNewlineNamesKeepTheirExactBytes() throws {
        let recents = Set(try Self.library.paths(in: .smart(.recents)))
        let latin1 = generated.rootPath.appending(Array("Edge cases/names/".utf8) + [0x6C, 0x61, 0x74, 0x69, 0x6E, 0x31, 0x2D, 0xE9, 0x74, 0xE9, 0x2E, 0x6A, 0x70, 0x67])
        XCTAssertTrue(recents.contains(latin1))
        XCTAssertTrue(recents.contains(generated.rootPath.appending("Edge cases/names/line\nbreak.jpg")))
        XCTAssertTrue(recents.contains(generated.rootPath.appending("Edge cases/names/no_extension_jpeg")))
    }

    func testUnchangedRescanOpensNoFile() throws {
        var progress = ScanProgress()
        let change = try Self.library.scan(progress: { progress = $0 })
        XCTAssertEqual(progress.filesRead, 0)
        XCTAssertEqual(progress.filesUnchanged, Self.firstScan.filesRead)
        XCTAssertTrue(change.touched.isEmpty)
    }

    func testTypeFiltersNarrowAnAlbum() throws {
        let videos = try Self.library.fetchAssets(in: .smart(.recents), types: ["video/*"])
        XCTAssertEqual(Set(try Self.library.assets(ids: videos.allIDs).map(\.path)), Set(try Self.library.paths(in: .smart(.videos))))
        XCTAssertEqual(videos.count, videos.allIDs.count)
        let pngs = try Self.library.fetchAssets(in: .smart(.recents), types: ["image/png", "image/it's-quoted"])
        let assets = try Self.library.assets(ids: pngs.allIDs)
        XCTAssertFalse(assets.isEmpty)
        XCTAssertTrue(assets.allSatisfy { $0.mimeType == "image/png" })
        XCTAssertEqual(pngs.types, ["image/png", "image/it's-quoted"])
    }

    func testOpeningAnAlbumReadsOnlyTheFirstPage() throws {
        let result = try Self.library.fetchAssets(in: .smart(.recents))
        XCTAssertGreaterThan(result.count, FetchResult.firstPage)
        XCTAssertEqual(result.loadedCount, FetchResult.firstPage)
        _ = result.id(at: result.count - 1)
        XCTAssertEqual(result.loadedCount, result.count)
    }
}
