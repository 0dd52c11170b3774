// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import Glibc

/// A lock that a waiting urgent user takes before any waiting ordinary one. A plain mutex lets
/// whoever runs take it again: the index's readers, back to back, kept the thumbnail a person
/// waits for behind them.
final class PriorityLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var held = false
    private var urgentWaiting = 0
    private var waiting = 0

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }
    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func withLock<R>(urgent: Bool, _ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        waiting += 1
        if urgent {
            urgentWaiting += 1
            while held { pthread_cond_wait(condition, mutex) }
            urgentWaiting -= 1
        } else {
            while held || urgentWaiting > 0 { pthread_cond_wait(condition, mutex) }
        }
        waiting -= 1
        held = true
        pthread_mutex_unlock(mutex)
        defer {
            pthread_mutex_lock(mutex)
            held = false
            if waiting > 0 { pthread_cond_broadcast(condition) }
            pthread_mutex_unlock(mutex)
        }
        return try body()
    }
}
