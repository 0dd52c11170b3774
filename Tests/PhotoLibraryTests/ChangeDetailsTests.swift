// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
import XCTest
@testable import PhotoLibrary

/// Positions reported for an open album when the library changes.
final class ChangeDetailsTests: XCTestCase {
    private func result(_ ids: [Int64]) -> FetchResult {
        FetchResult(album: .smart(.recents), count: ids.count, firstIDs: ids, cursor: nil)
    }

    private func details(_ before: [Int64], _ after: [Int64], inserted: Set<Int64> = [], removed: Set<Int64> = [],
                         updated: Set<Int64> = []) -> FetchResultChangeDetails {
        var change = LibraryChange()
        change.inserted = inserted
        change.removed = removed
        change.updated = updated
        return FetchResultChangeDetails(before: result(before), after: result(after), change: change)
    }

    /// Applying the splices to the old ids must give the new ids.
    private func apply(_ details: FetchResultChangeDetails) -> [Int64] {
        var ids = details.before.allIDs
        let after = details.after.allIDs
        for splice in details.splices {
            ids.replaceSubrange(splice.position..<(splice.position + splice.removed),
                                with: after[splice.position..<(splice.position + splice.added)])
        }
        return ids
    }

    func testInsertionAtTheTop() {
        let change = details([5, 4, 3], [9, 5, 4, 3], inserted: [9])
        XCTAssertEqual(change.insertedIndexes, [0])
        XCTAssertEqual(change.removedIndexes, [])
        XCTAssertEqual(change.splices, [.init(position: 0, removed: 0, added: 1)])
        XCTAssertEqual(apply(change), [9, 5, 4, 3])
    }

    func testRemovalsAreReportedFromTheEndSoPositionsStayValid() {
        let change = details([6, 5, 4, 3, 2, 1], [6, 4, 1], removed: [5, 3, 2])
        XCTAssertEqual(change.removedIndexes, [1, 3, 4])
        XCTAssertEqual(change.splices, [.init(position: 3, removed: 2, added: 0), .init(position: 1, removed: 1, added: 0)])
        XCTAssertEqual(apply(change), [6, 4, 1])
    }

    func testAnUpdateInPlaceIsAChange() {
        let change = details([3, 2, 1], [3, 2, 1], updated: [2])
        XCTAssertEqual(change.changedIndexes, [1])
        XCTAssertEqual(change.removedIndexes, [])
        XCTAssertEqual(change.splices, [.init(position: 1, removed: 1, added: 1)])
    }

    func testAnUpdateThatMovesIsARemovalAndAnInsertion() {
        // 1's capture date became the newest.
        let change = details([4, 3, 2, 1], [1, 4, 3, 2], updated: [1])
        XCTAssertEqual(change.removedIndexes, [3])
        XCTAssertEqual(change.insertedIndexes, [0])
        XCTAssertEqual(change.changedIndexes, [])
        XCTAssertEqual(apply(change), [1, 4, 3, 2])
    }

    func testTwoUpdatedNeighboursSwapping() {
        let change = details([1, 2, 3, 4], [2, 1, 3, 4], updated: [1, 2])
        XCTAssertEqual(apply(change), [2, 1, 3, 4])
        XCTAssertEqual(change.removedIndexes.count, 1, "one move is enough")
        XCTAssertEqual(change.changedIndexes.count, 1, "the one that kept its place was updated: changed in place")
    }

    func testAnUpdateThatKeepsItsIndexOnlyByCoincidenceStillMoves() {
        // 9 moves from the top to the bottom while 5 is updated in place at index 1 both times,
        // but its neighbours changed: splices must still rebuild the list exactly.
        let change = details([9, 5, 4, 3], [4, 5, 3, 9], updated: [9, 5])
        XCTAssertEqual(apply(change), [4, 5, 3, 9])
    }

    func testLeavingAndEnteringTheAlbumThroughAnUpdate() {
        // An asset rated 5 enters Favorites; another loses its rating and leaves.
        let change = details([7, 5, 3], [8, 7, 3], updated: [8, 5])
        XCTAssertEqual(change.insertedIndexes, [0])
        XCTAssertEqual(change.removedIndexes, [1])
        XCTAssertEqual(apply(change), [8, 7, 3])
    }

    func testOneItemMovingAcrossAManyItemsIsOneMoveEvenWhenEveryIdIsCompared() {
        // The fallback compares every id: still only the one that moved is reported.
        let before = Array(Int64(1)...Int64(1000)), after = Array(Int64(2)...Int64(1000)) + [1]
        let change = details(before, after, updated: Set(before))
        XCTAssertEqual(change.removedIndexes, [0])
        XCTAssertEqual(change.insertedIndexes, [999])
        XCTAssertEqual(apply(change), after)
    }

    func testLongestIncreasingRun() {
        XCTAssertEqual(FetchResultChangeDetails.longestIncreasingRun([3, 1, 2, 5, 4, 6]).count, 4)
        XCTAssertEqual(FetchResultChangeDetails.longestIncreasingRun([]), [])
        XCTAssertEqual(FetchResultChangeDetails.longestIncreasingRun([5, 4, 3]).count, 1)
    }

    func testMergingChanges() {
        var first = LibraryChange()
        first.inserted = [1]
        var second = LibraryChange()
        second.updated = [1, 2]
        second.removed = [3]
        first.merge(second)
        XCTAssertEqual(first.inserted, [1])
        XCTAssertEqual(first.updated, [2])
        XCTAssertEqual(first.removed, [3])
    }
}
