// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import Glibc

/// Results computed on a pool a window ahead of the one who reads them in order: `outcomes[i]`
/// waits for result `i`, and asking for it lets the pool start on the next ones. Work is handed
/// out in chunks, so the cost of a hand-off is shared by several items: waking an idle thread
/// costs tens of microseconds here, as much as dating a file (chunks of 16 spent 9 % of a first
/// scan's writer in waking readers).
final class ReadAhead<Value: Sendable>: @unchecked Sendable {
    private let count: Int
    private let pool: WorkerPool
    /// The results of a chunk, in order (a chunk of files is one request to a metadata worker).
    private let computeChunk: @Sendable (Range<Int>) -> [Value]
    static var chunkSize: Int { 64 }
    private let chunk: Int
    private let window = 1024
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var results: [Int: Value] = [:]
    /// Items handed to the pool so far.
    private var submitted = 0
    /// The result the reader waits for (nil: it is not waiting): only that one is worth a wake-up.
    private var awaited: Int?

    convenience init(count: Int, on pool: WorkerPool, compute: @escaping @Sendable (Int) -> Value) {
        self.init(count: count, on: pool, computeChunk: { range in range.map(compute) })
    }

    /// `chunk`: items per hand-off (fewer for files whose reading waits on a network, so that
    /// the pool's threads each have one in flight).
    init(count: Int, on pool: WorkerPool, chunk: Int = ReadAhead.chunkSize, computeChunk: @escaping @Sendable (Range<Int>) -> [Value]) {
        self.chunk = chunk
        self.count = count
        self.pool = pool
        self.computeChunk = computeChunk
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Starts computing the first results now, before anyone asks for them.
    func start() {
        guard submitted < count else { return }
        submit(through: min(count, window))
    }

    /// Result `index`, computed here when the pool is stopping (it would never come otherwise).
    subscript(index: Int) -> Value {
        // Topped up a chunk at a time, so each hand-off carries a whole chunk.
        if submitted < count, submitted - index < window - chunk { submit(through: min(count, index + window)) }
        pthread_mutex_lock(mutex)
        while results[index] == nil {
            if pool.isStopping {
                awaited = nil
                pthread_mutex_unlock(mutex)
                return computeChunk(index..<(index + 1))[0]
            }
            awaited = index
            var deadline = timespec()
            clock_gettime(CLOCK_REALTIME, &deadline)
            deadline.tv_nsec += 50_000_000
            if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
            pthread_cond_timedwait(condition, mutex, &deadline)
        }
        awaited = nil
        let value = results.removeValue(forKey: index)!
        pthread_mutex_unlock(mutex)
        return value
    }

    private func submit(through end: Int) {
        while submitted < end {
            let range = submitted..<min(end, submitted + chunk)
            submitted = range.upperBound
            let accepted = pool.submit { [self] in
                let values = computeChunk(range)
                pthread_mutex_lock(mutex)
                for (index, value) in zip(range, values) { results[index] = value }
                if let awaited, range.contains(awaited) { pthread_cond_signal(condition) }
                pthread_mutex_unlock(mutex)
            }
            if !accepted { return }
        }
    }
}
