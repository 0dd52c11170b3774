// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
@_spi(Testing) @testable import PhotoLibrary
import TestSupport
import XCTest

/// The Recently Picked album (issue 41): what this person picked before, the newest pick first,
/// kept in the index until cleared.
final class RecentlyPickedTests: XCTestCase {
    func testPicksAreListedNewestPickFirstUntilCleared() throws {
        let (library, _) = try SyntheticLibrary.make("recently-picked", count: 50)
        let recents = try library.fetchAssets(in: .smart(.recents)).allIDs
        XCTAssertFalse(try library.albums().contains { $0.album == .recentlyPicked }, "nothing picked yet: not listed")

        // A confirm of three, in pick order; then another that picks one of them again.
        let first = [recents[10], recents[3], recents[40]]
        try library.recordPicks(first)
        XCTAssertEqual(try library.fetchAssets(in: .recentlyPicked).allIDs, first.reversed(), "the last picked first")
        try library.recordPicks([recents[7], recents[10]])
        XCTAssertEqual(try library.fetchAssets(in: .recentlyPicked).allIDs, [recents[10], recents[7], recents[40], recents[3]],
                       "picked again: first again, once")
        let listed = try XCTUnwrap(try library.albums().first { $0.album == .recentlyPicked })
        XCTAssertEqual(listed.count, 4)
        XCTAssertEqual(listed.name, "Recently Picked")
        XCTAssertEqual(try library.album(named: "Recently Picked"), .recentlyPicked)
        XCTAssertEqual(try library.album(named: "recently-picked"), .recentlyPicked)
        XCTAssertEqual(try library.albums().prefix(3).map(\.album), [.smart(.recents), .smart(.favorites), .recentlyPicked],
                       "after Favorites")

        // Not in date order: no months, no date to go to.
        let album = try library.fetchAssets(in: .recentlyPicked)
        XCTAssertEqual(try library.monthRuns(of: album), [])
        XCTAssertNil(try library.position(before: Int64.max, in: album))

        // A file gone since is left out.
        try library.writeDirectly { db in try db.execute("DELETE FROM assets WHERE id = \(recents[7])") }
        XCTAssertEqual(try library.fetchAssets(in: .recentlyPicked).allIDs, [recents[10], recents[40], recents[3]])

        try library.clearPicks()
        XCTAssertEqual(try library.fetchAssets(in: .recentlyPicked).count, 0)
        XCTAssertFalse(try library.albums().contains { $0.album == .recentlyPicked }, "cleared: not listed")
    }

    /// Only the newest picks are kept.
    func testTheOldestPicksGoBeyondTheLimit() throws {
        let (library, _) = try SyntheticLibrary.make("recently-picked-limit", count: PhotoLibrary.recentlyPickedKept + 20)
        let ids = try library.fetchAssets(in: .smart(.recents)).allIDs
        try library.recordPicks(ids)
        let kept = try library.fetchAssets(in: .recentlyPicked).allIDs
        XCTAssertEqual(kept.count, PhotoLibrary.recentlyPickedKept)
        XCTAssertEqual(kept.first, ids.last, "the last picked is kept, first")
        XCTAssertFalse(kept.contains(ids[0]), "the first picked went")
    }
}
