// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
@testable import PickerModel

// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class SelectionStoreTests: XCTestCase, @unchecked Sendable {
    nonisolated func testPickingNumbersInOrderAndUnpickingRenumbersTheRest() {
        MainActor.assumeIsolated {
            let store = SelectionStore()
            XCTAssertEqual(store.toggle(10), .picked(number: 1))
            XCTAssertEqual(store.toggle(20), .picked(number: 2))
            XCTAssertEqual(store.toggle(30), .picked(number: 3))
            XCTAssertEqual(store.toggle(20), .unpicked)
            XCTAssertEqual(store.picked, [10, 30])
            XCTAssertEqual(store.number(of: 30), 2)
            XCTAssertNil(store.number(of: 20))
        }
    }

    /// Many at once (a range, the album): appended in their order, the picked skipped, the
    /// refused and those past the maximum counted, one change heard; all unpicked in one.
    nonisolated func testManyArePickedInOrderUpToTheMaximumInOneChange() {
        MainActor.assumeIsolated {
            let store = SelectionStore(maximum: 5)
            store.toggle(20)
            store.refuse(40, because: "damaged")
            var changes = 0
            let subscription = store.observe { _ in changes += 1 }
            defer { subscription.cancel() }
            let outcome = store.add([10, 20, 30, 40, 50, 60, 70, 80])
            XCTAssertEqual(outcome, SelectionStore.ManyOutcome(picked: [10, 30, 50, 60], overMaximum: 2, refused: 1))
            XCTAssertEqual(store.picked, [20, 10, 30, 50, 60])
            XCTAssertEqual(store.number(of: 60), 5)
            XCTAssertEqual(changes, 1)
            XCTAssertEqual(store.removeAll(), [20, 10, 30, 50, 60])
            XCTAssertEqual(store.picked, [])
            XCTAssertNil(store.number(of: 10))
            XCTAssertEqual(changes, 2)
            XCTAssertEqual(store.add([]).picked, [])
            XCTAssertEqual(changes, 2, "nothing picked, nothing heard")
        }
    }

    nonisolated func testTheMaximumRefusesVisiblyAndChangesNothing() {
        MainActor.assumeIsolated {
            let store = SelectionStore(maximum: 2)
            store.toggle(1)
            store.toggle(2)
            XCTAssertTrue(store.isFull)
            XCTAssertEqual(store.toggle(3), .refusedAtMaximum)
            XCTAssertEqual(store.picked, [1, 2])
            XCTAssertEqual(store.toggle(1), .unpicked, "unpicking is always allowed")
            XCTAssertEqual(store.toggle(3), .picked(number: 2))
        }
    }

    /// A file that cannot be shown (damaged, unreadable) cannot be picked, with its reason; one
    /// picked before its picture failed can still be unpicked, and it can be picked once allowed.
    nonisolated func testARefusedAssetIsNotPickedAndSaysWhy() {
        MainActor.assumeIsolated {
            let store = SelectionStore()
            store.toggle(1)
            store.refuse(1, because: "This file is damaged and cannot be shown")
            store.refuse(2, because: "This file cannot be read")
            XCTAssertEqual(store.toggle(2), .refused("This file cannot be read"))
            XCTAssertEqual(store.picked, [1])
            XCTAssertEqual(store.toggle(1), .unpicked, "a pick made before stays until it is unpicked")
            XCTAssertEqual(store.toggle(1), .refused("This file is damaged and cannot be shown"))
            store.allow(2)
            XCTAssertEqual(store.toggle(2), .picked(number: 1))
        }
    }

    /// One pick at most (zenity without --multiple): the next pick replaces it, and both cells hear.
    nonisolated func testASingleChoicePickerReplacesThePickInsteadOfRefusing() {
        MainActor.assumeIsolated {
            let store = SelectionStore(maximum: 1)
            var heard: [Int64: [Int?]] = [:]
            let observations = [Int64(1), 2].map { id in store.observe(id) { heard[id, default: []].append($0.number) } }
            XCTAssertEqual(store.toggle(1), .picked(number: 1))
            XCTAssertEqual(store.toggle(2), .picked(number: 1))
            XCTAssertEqual(store.picked, [2])
            XCTAssertNil(store.number(of: 1))
            XCTAssertEqual(heard[1], [1, nil])
            XCTAssertEqual(heard[2], [1])
            XCTAssertEqual(store.toggle(2), .unpicked)
            XCTAssertEqual(store.picked, [])
            withExtendedLifetime(observations) {}
        }
    }

    nonisolated func testOnlyTheAffectedCellsHearOfAChange() {
        MainActor.assumeIsolated {
            let store = SelectionStore()
            var heard: [Int64: [Int?]] = [:]
            var observations: [Subscription] = []
            for id in Int64(1)...Int64(50) {  // fifty bound cells
                observations.append(store.observe(id) { heard[id, default: []].append($0.number) })
            }
            store.toggle(5)
            store.toggle(7)
            store.toggle(9)
            heard.removeAll()
            store.toggle(5)  // unpick number 1 of 3
            XCTAssertEqual(heard, [5: [nil], 7: [1], 9: [2]])
            XCTAssertEqual(store.assetObserverCount, 50)
            observations.removeAll()
            XCTAssertEqual(store.assetObserverCount, 0, "unbinding unsubscribes")
        }
    }

    nonisolated func testDeletedFilesLeaveTheSelectionAndNumbersCloseUp() {
        MainActor.assumeIsolated {
            let store = SelectionStore()
            for id in Int64(1)...Int64(5) { store.toggle(id) }
            store.remove([2, 4])
            XCTAssertEqual(store.picked, [1, 3, 5])
            XCTAssertEqual([1, 3, 5].map { store.number(of: $0) }, [1, 2, 3])
        }
    }

    nonisolated func testReorderingFromTheStrip() {
        MainActor.assumeIsolated {
            let store = SelectionStore()
            for id in Int64(1)...Int64(4) { store.toggle(id) }
            var affected: Set<Int64> = []
            let observation = store.observe { affected = $0.affected }
            store.move(from: 3, to: 1)
            XCTAssertEqual(store.picked, [1, 4, 2, 3])
            XCTAssertEqual(affected, [4, 2, 3])
            XCTAssertEqual(store.number(of: 4), 2)
            observation.cancel()
        }
    }

    nonisolated func testLoweringTheMaximumDropsTheLatestPicks() {
        MainActor.assumeIsolated {
            let store = SelectionStore()
            for id in Int64(1)...Int64(4) { store.toggle(id) }
            store.maximum = 2
            XCTAssertEqual(store.picked, [1, 2])
        }
    }
}
