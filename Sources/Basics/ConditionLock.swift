// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// A mutex with its condition variable, for state that threads wait on (a queue, a budget, a
/// result): the state is its owner's, read and changed inside `withLock` (or between `lock()`
/// and `unlock()`), and `wait` is called there. Timed waits are on the monotonic clock, so a
/// change of the wall clock (NTP, a suspend) neither cuts them short nor stretches them.
public final class ConditionLock: @unchecked Sendable {
    // Heap-allocated: pthread objects must not move.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// For a wait whose ways out leave the lock at different points; `withLock` where it fits.
    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Holding the lock: lets it go until signalled, then takes it again. Callers check their
    /// state again after it (a wait may also end for no reason).
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Holding the lock: as `wait()`, or until `deadline` (`monotonicSeconds()`) passes.
    public func wait(until deadline: Double) {
        let whole = deadline.rounded(.down)
        var until = timespec(tv_sec: Int(whole), tv_nsec: Int((deadline - whole) * 1e9))
        pthread_cond_timedwait(condition, mutex, &until)
    }

    /// Holding the lock: as `wait()`, at most `seconds`.
    public func wait(seconds: Double) { wait(until: monotonicSeconds() + seconds) }

    /// Wakes one waiter.
    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter.
    public func broadcast() { pthread_cond_broadcast(condition) }
}
