// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
@testable import PickerModel

/// What a bound cell subscribes with: each handler hears its own key until it cancels or lets go.
@MainActor
final class SubscriptionsTests: XCTestCase {
    nonisolated func testEveryHandlerOfAKeyHearsUntilItCancelsAndTheOthersStay() {
        MainActor.assumeIsolated {
            let subscribers = KeyedSubscribers<Int64, Int>()
            var heard: [String] = []
            let a = subscribers.subscribe(1) { heard.append("a\($0)") }
            var b: Subscription? = subscribers.subscribe(1) { heard.append("b\($0)") }
            let c = subscribers.subscribe(1) { heard.append("c\($0)") }
            let other = subscribers.subscribe(2) { heard.append("other\($0)") }
            subscribers.publish(1, 7)
            XCTAssertEqual(heard.sorted(), ["a7", "b7", "c7"], "only key 1's handlers")
            XCTAssertEqual(subscribers.count, 4)
            a.cancel()
            heard = []
            subscribers.publish(1, 8)
            XCTAssertEqual(heard.sorted(), ["b8", "c8"], "the first cancelled, the others still hear")
            b = nil  // let go: the same as cancelled
            heard = []
            subscribers.publish(1, 9)
            XCTAssertEqual(heard, ["c9"])
            c.cancel()
            XCTAssertFalse(subscribers.isSubscribed(1))
            XCTAssertTrue(subscribers.isSubscribed(2))
            subscribers.publish(1, 10)
            XCTAssertEqual(heard, ["c9"], "nobody left for key 1")
            XCTAssertEqual(subscribers.count, 1)
            other.cancel()
            XCTAssertEqual(subscribers.count, 0)
            _ = b
        }
    }
}
