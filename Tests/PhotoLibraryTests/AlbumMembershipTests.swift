// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// The index against a generated library: every album holds exactly the files the manifest's
/// rules say, in newest-first order, and broken files are listed once, with a reason. The checks
/// run against the project's generator, and once more against the workspace's make-library when
/// it sits beside the checkout (two generators written apart catch each other's blind spots).
final class AlbumMembershipTests: XCTestCase {
    nonisolated(unsafe) static var project: IndexedLibrary!

    override class func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
        tzset()
        project = try! IndexedLibrary(GeneratedLibrary.shared)
    }

    private var project: IndexedLibrary { Self.project }

    func testRecentsHoldsEveryAssetButTheVideoHalfOfLivePhotos() throws { try project.checkRecents() }
    func testRecentsIsNewestFirstByCaptureDate() throws { try project.checkOrderAndCaptureDates() }
    func testSmartAlbumsHoldExactlyTheManifestSets() throws { try project.checkSmartAlbums() }
    func testEachFileIsInTheAlbumsItsManifestEntryNames() throws { try project.checkPerFileAlbums() }
    func testBurstsAreGroupedBySecond() throws { try project.checkBurstGroups() }
    func testAlbumListCountsMatchTheAlbumsRows() throws { try project.checkAlbumCounts() }
    func testFolderAlbumsHoldTheirFolderMinusLiveVideoHalves() throws { try project.checkFolderAlbums() }
    func testHiddenLinkedAndNonMediaFilesAreNeverAssets() throws { try project.checkNeverAssets() }
    func testBrokenFilesAreListedOnceWithAReason() throws { try project.checkBrokenFiles() }
    func testNonUTF8AndNewlineNamesKeepTheirExactBytes() throws { try project.checkHostileNames() }

    /// The same checks on a library from the workspace's own make-library (skipped in a fresh clone).
    func testTheWorkspaceMakeLibraryGivesTheSameAlbums() throws {
        let (tool, reason) = TestSupport.workspaceMakeLibrary
        guard let tool else {
            print("AlbumMembershipTests: second generator skipped: \(reason)")
            throw XCTSkip(reason)
        }
        let other = try IndexedLibrary(GeneratedLibrary(count: 1200, generator: tool))
        try other.checkRecents()
        try other.checkOrderAndCaptureDates()
        try other.checkSmartAlbums()
        try other.checkBurstGroups()
        try other.checkAlbumCounts()
        try other.checkFolderAlbums()
        try other.checkNeverAssets()
        try other.checkBrokenFiles()
        try other.checkHostileNames()
    }

    func testUnchangedRescanOpensNoFile() throws {
        var progress = ScanProgress()
        let change = try project.library.scan(progress: { progress = $0 })
        XCTAssertEqual(progress.filesRead, 0)
        XCTAssertEqual(progress.filesUnchanged, project.firstScan.filesRead)
        XCTAssertTrue(change.touched.isEmpty)
    }

    func testTypeFiltersNarrowAnAlbum() throws {
        let library = project.library
        let videos = try library.fetchAssets(in: .smart(.recents), filter: AssetFilter(mimeTypes: ["video/*"]))
        XCTAssertEqual(Set(try library.assets(ids: videos.allIDs).map(\.path)), Set(try library.paths(in: .smart(.videos))))
        XCTAssertEqual(videos.count, videos.allIDs.count)
        let filter = AssetFilter(mimeTypes: ["image/png", "image/it's-quoted"])
        let pngs = try library.fetchAssets(in: .smart(.recents), filter: filter)
        let assets = try library.assets(ids: pngs.allIDs)
        XCTAssertFalse(assets.isEmpty)
        XCTAssertTrue(assets.allSatisfy { $0.mimeType == "image/png" })
        XCTAssertEqual(pngs.filter, filter, "kept for the change details")
    }

    /// Ten thousand types or name patterns (a host app's widget property, a script's list) filter
    /// as one does: SQLite refused the expression ("Expression tree is too large") and the grid
    /// was empty (issue 37).
    func testTenThousandPatternsFilterAsOneDoes() throws {
        let library = project.library
        let noise = (0..<9_999).map { "application/x-noise-\($0)" }
        let pngs = try library.fetchAssets(in: .smart(.recents), filter: AssetFilter(mimeTypes: noise + ["image/png"])).allIDs
        XCTAssertEqual(Set(pngs), Set(try library.fetchAssets(in: .smart(.recents), filter: AssetFilter(mimeTypes: ["image/png"])).allIDs))
        XCTAssertFalse(pngs.isEmpty)
        let families = try library.fetchAssets(in: .smart(.recents), filter: AssetFilter(mimeTypes: noise.map { $0 + "/*" } + ["video/*"])).allIDs
        XCTAssertEqual(Set(families), Set(try library.fetchAssets(in: .smart(.recents), filter: AssetFilter(mimeTypes: ["video/*"])).allIDs))
        let names = try library.fetchAssets(in: .smart(.recents), filter: AssetFilter(namePatterns: noise.map { "*.\($0)" } + ["*.png"])).allIDs
        XCTAssertEqual(Set(names), Set(try library.fetchAssets(in: .smart(.recents), filter: AssetFilter(namePatterns: ["*.png"])).allIDs))
        XCTAssertFalse(names.isEmpty)
    }

    /// A file chooser's filter (GtkFileFilter, the portal's filters): a file matching any one of
    /// its rules is shown, and the picker's own limits still hold; a filter with no rule shows
    /// nothing, as GTK's does.
    func testAChoiceShowsWhatAnyOfItsRulesMatchWithinTheOtherLimits() throws {
        let library = project.library
        let everything = try library.assets(ids: library.fetchAssets(in: .smart(.recents)).allIDs)
        let either = AssetFilter(choice: .init(mimeTypes: ["video/*"], namePatterns: ["*.png"]))
        let kept = try library.assets(ids: library.fetchAssets(in: .smart(.recents), filter: either).allIDs)
        let expected = everything.filter { $0.mimeType?.hasPrefix("video/") == true || fnmatch("*.png", String(decoding: $0.path.lastComponent, as: UTF8.self), 0) == 0 }
        XCTAssertFalse(expected.isEmpty)
        XCTAssertEqual(Set(kept.map(\.id)), Set(expected.map(\.id)), "videos or PNGs")
        var narrowed = either
        narrowed.mimeTypes = ["video/*"]
        let videos = try library.assets(ids: library.fetchAssets(in: .smart(.recents), filter: narrowed).allIDs)
        XCTAssertEqual(Set(videos.map(\.id)), Set(expected.filter { $0.mimeType?.hasPrefix("video/") == true }.map(\.id)), "and the picker's types")
        XCTAssertEqual(try library.fetchAssets(in: .smart(.recents), filter: AssetFilter(choice: .init())).count, 0)
    }

    /// zenity's --file-filter: shell patterns on the file name, case-sensitive as GTK's chooser.
    func testNamePatternsNarrowAnAlbumAsAShellWould() throws {
        let library = project.library
        let everything = try library.assets(ids: library.fetchAssets(in: .smart(.recents)).allIDs)
        for patterns in [["*.png"], ["*.jpg", "*.png"], ["*.JPG"], ["[a-m]*"], ["?????.jpg"], ["it's*"]] {
            let kept = try library.assets(ids: library.fetchAssets(in: .smart(.recents), filter: AssetFilter(namePatterns: patterns)).allIDs)
            let expected = everything.filter { asset in
                patterns.contains { fnmatch($0, String(decoding: asset.path.lastComponent, as: UTF8.self), 0) == 0 }
            }
            XCTAssertEqual(Set(kept.map(\.id)), Set(expected.map(\.id)), "\(patterns)")
        }
        XCTAssertFalse(try library.fetchAssets(in: .smart(.recents), filter: AssetFilter(namePatterns: ["*.png"])).allIDs.isEmpty)
        // Both lists: an asset must match one pattern of each.
        let both = try library.assets(ids: library.fetchAssets(in: .smart(.recents), filter: AssetFilter(mimeTypes: ["image/*"], namePatterns: ["*.png"])).allIDs)
        XCTAssertFalse(both.isEmpty)
        XCTAssertTrue(both.allSatisfy { $0.mimeType?.hasPrefix("image/") == true && $0.path.displayString.hasSuffix(".png") })
    }

    func testOpeningAnAlbumReadsOnlyTheFirstPage() throws {
        let result = try project.library.fetchAssets(in: .smart(.recents))
        XCTAssertGreaterThan(result.count, FetchResult.firstPage)
        XCTAssertEqual(result.loadedCount, FetchResult.firstPage)
        _ = result.id(at: result.count - 1)
        XCTAssertEqual(result.loadedCount, result.count)
    }
}

/// A generated library indexed once, and the assertions that compare the index with its manifest.
final class IndexedLibrary: @unchecked Sendable {
    let generated: GeneratedLibrary
    let library: PhotoLibrary
    private(set) var firstScan = ScanProgress()

    init(_ generated: GeneratedLibrary) throws {
        self.generated = generated
        let database = TestSupport.temporaryDirectory("index").appendingPathComponent("index.sqlite").path
        library = try PhotoLibrary(roots: [generated.rootPath], location: IndexLocation(databasePath: database))
        try library.scan(progress: { self.firstScan = $0 })
    }

    /// Which generator a failure came from.
    private var source: String { "(library from \(generated.generator))" }

    private var okFiles: [[String: Any]] {
        let asRoot = generated.summary["running_as_root"] as? Bool ?? (geteuid() == 0)
        return generated.files.filter { file in
            let kind = file["kind"] as! String
            if !asRoot && (kind == "unreadable" || kind == "in_unreadable_dir") { return false }
            return GeneratedLibrary.okKinds.contains(kind)
        }
    }

    private func albumSet(_ album: SmartAlbum) throws -> Set<FilePath> {
        Set(try library.paths(in: .smart(album))).subtracting(generated.corruptPaths)
    }

    private func expected(_ predicate: ([String: Any]) -> Bool) -> Set<FilePath> {
        Set(okFiles.filter(predicate).map(generated.path(of:)))
    }

    private func assertSame(_ actual: Set<FilePath>, _ expected: Set<FilePath>, _ album: String,
                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(actual.subtracting(expected).map(\.displayString).sorted(), [], "in \(album) but should not be \(source)", file: file, line: line)
        XCTAssertEqual(expected.subtracting(actual).map(\.displayString).sorted(), [], "missing from \(album) \(source)", file: file, line: line)
    }

    func checkRecents() throws {
        let recents = try albumSet(.recents)
        assertSame(recents, expected { $0["kind"] as? String != "live_video" }, "Recents")
        // The manifest's count leaves out the chmod-000 files, which root reads like any other.
        let readableLocked = okFiles.filter { ["unreadable", "in_unreadable_dir"].contains($0["kind"] as! String) }.count
        let timeline = (generated.summary["albums"] as! [String: Any])["timeline_items"] as! Int
        XCTAssertEqual(recents.count, timeline + readableLocked, source)
    }

    func checkOrderAndCaptureDates() throws {
        let result = try library.fetchAssets(in: .smart(.recents))
        let assets = try library.assets(ids: result.allIDs)
        let dates = assets.map(\.captureDate.millisecondsSinceEpoch)
        XCTAssertEqual(dates, dates.sorted(by: >), source)
        // A photo's capture date is its EXIF DateTimeOriginal, not the file time.
        let byPath = Dictionary(uniqueKeysWithValues: assets.map { ($0.path, $0) })
        var checked = 0
        for file in okFiles where file["dto"] != nil && file["kind"] as? String == "photo" {
            let dto = file["dto"] as! String  // "YYYY:MM:DD HH:MM:SS", the camera's clock
            let asset = try XCTUnwrap(byPath[generated.path(of: file)])
            XCTAssertEqual(asset.captureDate.source, .embedded)
            // "2019:06:01 12:00:00" -> "2019-06-01T12:00:00"
            let dayPart = String(dto.prefix(10)).replacingOccurrences(of: ":", with: "-")
            let expectedISO = dayPart + "T" + String(dto.dropFirst(11))
            XCTAssertEqual(String(asset.captureDate.iso8601.prefix(19)), expectedISO, source)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 100, source)
    }

    func checkSmartAlbums() throws {
        func kind(_ name: String) -> ([String: Any]) -> Bool { { $0["kind"] as? String == name } }
        // README: "Favorites (rated 4 or 5 stars in EXIF or XMP …)"; "rating" is the effective one.
        assertSame(try albumSet(.favorites), expected { ($0["rating"] as? Int ?? 0) >= 4 }, "Favorites")
        assertSame(try albumSet(.videos), expected(kind("video")), "Videos")
        assertSame(try albumSet(.screenshots), expected(kind("screenshot")), "Screenshots")
        assertSame(try albumSet(.selfies), expected { ($0["lens"] as? String)?.lowercased().contains("front") == true }, "Selfies")
        assertSame(try albumSet(.panoramas), expected { file in
            guard let display = file["display"] as? [Int] else { return false }
            return Double(display[0]) / Double(display[1]) > 2.5
        }, "Panoramas")
        assertSame(try albumSet(.bursts), expected(kind("burst")), "Bursts")
        assertSame(try albumSet(.livePhotos), expected(kind("live_photo")), "Live Photos")
        assertSame(try albumSet(.animated), expected(kind("animated")), "Animated")
        let albums = generated.summary["albums"] as! [String: Any]
        XCTAssertEqual(try albumSet(.livePhotos).count, albums["live_photos"] as? Int, source)
        XCTAssertGreaterThan(try albumSet(.videos).count, 0, "no videos were written: is ffmpeg installed? \(source)")
        XCTAssertGreaterThan(try albumSet(.favorites).count, 0, source)
        XCTAssertGreaterThan(try albumSet(.panoramas).count, 0, source)
    }

    /// Manifests that name each file's albums (the project's generator does) are checked album by album.
    func checkPerFileAlbums() throws {
        guard okFiles.contains(where: { $0["albums"] != nil }) else {
            throw XCTSkip("\(generated.generator) writes no per-file album lists")
        }
        for album in SmartAlbum.allCases {
            assertSame(try albumSet(album), expected { ($0["albums"] as? [String])?.contains(album.name) == true }, album.name)
        }
    }

    func checkBurstGroups() throws {
        let bursts = try XCTUnwrap(try library.albums().first { $0.album == .smart(.bursts) })
        XCTAssertEqual(bursts.burstGroups, (generated.summary["albums"] as! [String: Any])["burst_groups"] as? Int, source)
    }

    func checkAlbumCounts() throws {
        // The counts are kept by triggers; the rows are what a query returns.
        for summary in try library.albums() {
            let result = try library.fetchAssets(in: summary.album)
            XCTAssertEqual(summary.count, result.allIDs.count, "\(summary.name) \(source)")
            XCTAssertEqual(result.count, result.allIDs.count, "\(summary.name) \(source)")
        }
    }

    func checkFolderAlbums() throws {
        var expectedCounts: [String: Int] = [:]
        for file in okFiles where file["kind"] as? String != "live_video" {
            let path = generated.path(of: file)
            let folder = String(decoding: path.parent.relative(to: generated.rootPath) ?? [], as: UTF8.self)
            expectedCounts[folder.isEmpty ? generated.root.lastPathComponent : folder, default: 0] += 1
        }
        // Corrupt files may show in their folder (as broken) or only in the error list.
        let corrupt = generated.corruptPaths
        var actual: [String: Int] = [:]
        for album in try library.albums() {
            guard case .folder = album.album else { continue }
            let paths = try library.paths(in: album.album)
            actual[album.name] = paths.filter { !corrupt.contains($0) }.count
        }
        actual = actual.filter { $0.value > 0 }
        XCTAssertEqual(actual, expectedCounts, source)
    }

    func checkNeverAssets() throws {
        let recents = Set(try library.paths(in: .smart(.recents)))
        var checked = 0
        for file in generated.files where ["hidden", "symlink_target", "nonmedia", "filler"].contains(file["kind"] as! String) {
            XCTAssertFalse(recents.contains(generated.path(of: file)), "\(file["path"] as! String) \(source)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 0, source)
        let recentsPaths = recents.map(\.displayString)
        XCTAssertFalse(recentsPaths.contains { $0.contains("/Linked Album/") || $0.contains("/link-to-photo") || $0.contains("loop-") }, source)
    }

    func checkBrokenFiles() throws {
        let problems = try library.problems()
        let recents = Set(try library.paths(in: .smart(.recents)))
        let problemPaths = Set(problems.map(\.path))
        for path in generated.corruptPaths {
            XCTAssertNotEqual(recents.contains(path), problemPaths.contains(path), "\(path) must be in exactly one place \(source)")
        }
        XCTAssertTrue(problems.allSatisfy { !$0.reason.isEmpty }, source)
        let zeroByte = try XCTUnwrap(problems.first { $0.path.displayString.hasSuffix("corrupt/zero-byte.jpg") })
        XCTAssertEqual(zeroByte.reason, "empty file", source)
        XCTAssertTrue(problemPaths.isSubset(of: generated.corruptPaths),
                      "only corrupt files have problems: \(problemPaths.subtracting(generated.corruptPaths)) \(source)")
    }

    func checkHostileNames() throws {
        let recents = Set(try library.paths(in: .smart(.recents)))
        let latin1 = generated.rootPath.appending(Array("Edge cases/names/".utf8) + [0x6C, 0x61, 0x74, 0x69, 0x6E, 0x31, 0x2D, 0xE9, 0x74, 0xE9, 0x2E, 0x6A, 0x70, 0x67])
        XCTAssertTrue(recents.contains(latin1), source)
        XCTAssertTrue(recents.contains(generated.rootPath.appending("Edge cases/names/line\nbreak.jpg")), source)
        XCTAssertTrue(recents.contains(generated.rootPath.appending("Edge cases/names/no_extension_jpeg")), source)
    }
}
