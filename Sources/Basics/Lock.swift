// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// A plain mutex for state shared between the GTK thread and workers (SQLite connections are not
/// Sendable values, so `Synchronization.Mutex`'s sending rules do not fit them).
public final class Lock: @unchecked Sendable {
    // Heap-allocated: a pthread mutex must not move, and Swift does not promise a stable address
    // for an inline stored property passed with `&`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    /// A recursive lock may be taken again by the thread that holds it.
    public init(recursive: Bool = false) {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        if recursive { pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE)) }
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }
    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Runs `body` holding the lock when it is free now; nil, without waiting, when it is held.
    public func withLockIfFree<R>(_ body: () throws -> R) rethrows -> R? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// Seconds on a monotonic clock, for rates and intervals.
public func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// CPU seconds the calling thread has run: unlike the wall clock, it does not count the time the
/// thread waited while other processes had the cores (benchmarks on a shared machine).
public func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Wall and CPU seconds spent in some code, summed over calls (see `measure`).
public struct TimeSpent: Sendable {
    public var wall = 0.0
    public var cpu = 0.0
    public init() {}

    /// Runs `body`, adding its wall and thread CPU time.
    public mutating func measure<R>(_ body: () throws -> R) rethrows -> R {
        let wallStart = monotonicSeconds(), cpuStart = threadCPUSeconds()
        defer {
            wall += monotonicSeconds() - wallStart
            cpu += threadCPUSeconds() - cpuStart
        }
        return try body()
    }
}
