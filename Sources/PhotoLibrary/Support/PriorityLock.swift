// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import Glibc

/// A lock that a waiting urgent user takes before any waiting ordinary one. A plain mutex lets
/// whoever runs take it again: the index's readers, back to back, kept the thumbnail a person
/// waits for behind them.
final class PriorityLock: @unchecked Sendable {
    private let lock = ConditionLock()
    private var held = false
    private var urgentWaiting = 0
    private var waiting = 0

    func withLock<R>(urgent: Bool, _ body: () throws -> R) rethrows -> R {
        lock.withLock {
            waiting += 1
            if urgent {
                urgentWaiting += 1
                while held { lock.wait() }
                urgentWaiting -= 1
            } else {
                while held || urgentWaiting > 0 { lock.wait() }
            }
            waiting -= 1
            held = true
        }
        defer {
            lock.withLock {
                held = false
                if waiting > 0 { lock.broadcast() }
            }
        }
        return try body()
    }
}
