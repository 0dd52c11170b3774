// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib
import Glibc

/// Threads that run submitted work, oldest first, and a shutdown that waits for them. Every
/// thread Photopick starts comes from one of these (the index's scans and change positions, the
/// watcher, the thumbnail workers), so each kind of work has one owner that can stop it: after
/// `shutdown()` returns, none of the pool's work runs or will run.
///
/// Work that may take long checks `isStopping` (a scan between files, a thumbnail between steps)
/// so that shutting down does not wait for it to finish.
public final class WorkerPool: @unchecked Sendable {
    // Sendable: work runs on another thread, so it never inherits the isolation of where it was written.
    public typealias Work = @Sendable () -> Void

    /// What the threads share. Each thread holds it until it exits, so the mutex and condition
    /// outlive every thread that waits on them, even when the pool itself is released on one.
    private final class Queue: @unchecked Sendable {
        // Heap-allocated: pthread objects must not move.
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        var work: [Work] = []
        /// Index of the oldest waiting work in `work` (taken from the front without moving the rest).
        var head = 0
        /// Work submitted with a delay: (monotonic time it is due, work), moved to `work` when due.
        var delayed: [(due: Double, work: Work)] = []
        var stopping = false
        /// Threads that have not yet come back from their last work (see `shutdown(waitingAtMost:)`).
        var alive = 0

        init() {
            pthread_mutex_init(mutex, nil)
            // Timed waits on the monotonic clock: a change of the wall clock does not move them.
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

        func locked<R>(_ body: () -> R) -> R {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return body()
        }

        /// The next work, or nil when the pool stops.
        func next() -> Work? {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            while true {
                if stopping { return nil }
                moveDueWork()
                if head < work.count { break }
                if let due = delayed.map(\.due).min() {
                    var deadline = timespec(tv_sec: Int(due), tv_nsec: Int((due - due.rounded(.down)) * 1e9))
                    pthread_cond_timedwait(condition, mutex, &deadline)
                } else {
                    pthread_cond_wait(condition, mutex)
                }
            }
            let next = work[head]
            // The slot lets go of the work now (not at the next compaction), so what the work
            // captured is released when it returns.
            work[head] = {}
            head += 1
            if head == work.count || head > 256 && head * 2 > work.count {
                work.removeFirst(head)
                head = 0
            }
            return next
        }

        private func moveDueWork() {
            guard !delayed.isEmpty else { return }
            let now = monotonicSeconds()
            for entry in delayed where entry.due <= now { work.append(entry.work) }
            delayed.removeAll { $0.due <= now }
        }
    }

    public let name: String
    private let queue = Queue()
    private let threadsLock = Lock()
    private var threads: [pthread_t] = []

    /// Starts `threads` threads named `name` (as `top -H` and debuggers show them). `background`
    /// threads run at a lower CPU priority: they take the cores only when nothing else wants them
    /// (indexing behind the window gives way to the thumbnails the person is waiting for).
    public init(name: String, threads count: Int, background: Bool = false) {
        self.name = name
        for _ in 0..<max(1, count) {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(ThreadContext(queue: queue, name: name, background: background))
            let created = pthread_create(&thread, nil, { raw in
                let context = Unmanaged<ThreadContext>.fromOpaque(raw!).takeRetainedValue()
                photopick_name_thread(context.name)
                if context.background { photopick_lower_thread_priority() }
                while let work = context.queue.next() { work() }
                context.queue.locked {
                    context.queue.alive -= 1
                    pthread_cond_broadcast(context.queue.condition)
                }
                return nil
            }, context.toOpaque())
            if created == 0 {
                threads.append(thread)
                queue.locked { queue.alive += 1 }
            } else {
                context.release()
            }
        }
    }

    private final class ThreadContext {
        let queue: Queue
        let name: String
        let background: Bool
        init(queue: Queue, name: String, background: Bool) {
            self.queue = queue
            self.name = name
            self.background = background
        }
    }

    /// Threads that started (fewer than asked only when the system refused one).
    public var threadCount: Int { threadsLock.withLock { threads.count } }

    /// One thread per core: for work that computes (thumbnails).
    public static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    deinit { shutdown() }

    /// Queues `work`. Returns false, and drops it, once the pool is stopping.
    @discardableResult
    public func submit(_ work: @escaping Work) -> Bool {
        queue.locked {
            guard !queue.stopping else { return false }
            queue.work.append(work)
            pthread_cond_signal(queue.condition)
            return true
        }
    }

    /// Queues `work` to start after `seconds` (work that should not compete with what the person
    /// waits for, like reading the rest of an album once the first screen is shown).
    @discardableResult
    public func submit(after seconds: Double, _ work: @escaping Work) -> Bool {
        queue.locked {
            guard !queue.stopping else { return false }
            queue.delayed.append((monotonicSeconds() + seconds, work))
            pthread_cond_broadcast(queue.condition)
            return true
        }
    }

    /// Whether `shutdown()` was called: long work checks it to end early.
    public var isStopping: Bool { queue.locked { queue.stopping } }

    /// How many submitted works wait to start.
    public var waitingCount: Int { queue.locked { queue.work.count - queue.head } }

    /// Drops the waiting work and waits for the running work to return. Called from one of the
    /// pool's own threads (its last owner let go there), it does not wait for that thread, which
    /// exits when its work returns. Without `waitsForRunningWork` (a process about to exit, which
    /// must not wait for a decode it no longer needs), no thread is waited for: each exits when
    /// its work returns, or ends with the process.
    public func shutdown(waitsForRunningWork: Bool = true) {
        let dropped = queue.locked { () -> [Work] in
            queue.stopping = true
            defer { queue.work = []; queue.head = 0; queue.delayed = [] }
            pthread_cond_broadcast(queue.condition)
            return queue.work + queue.delayed.map(\.work)
        }
        // Released outside the lock: what they capture may submit work as it goes.
        _ = dropped
        let threads = threadsLock.withLock { () -> [pthread_t] in
            defer { self.threads.removeAll() }
            return self.threads
        }
        let current = pthread_self()
        for thread in threads {
            if !waitsForRunningWork || pthread_equal(thread, current) != 0 {
                pthread_detach(thread)
            } else {
                pthread_join(thread, nil)
            }
        }
    }
}

extension WorkerPool {
    /// Drops the waiting work and waits up to `seconds` for the running work to return; what
    /// is still running then (a read from a server that stopped answering, which no
    /// cancellation reaches) is let go: its thread exits when it returns, or ends with the
    /// process. For the GTK thread, which must never wait on the network: a picker closing, a
    /// script's window going away. Returns whether every thread came back.
    @discardableResult
    public func shutdown(waitingAtMost seconds: Double) -> Bool {
        let deadline = monotonicSeconds() + seconds
        // (Called from one of its own threads, it cannot wait for that one.)
        let isOwnThread = threadsLock.withLock { threads.contains { pthread_equal($0, pthread_self()) != 0 } }
        let returned = queue.locked { () -> Bool in
            queue.stopping = true
            pthread_cond_broadcast(queue.condition)
            while queue.alive > 0 {
                let now = monotonicSeconds()
                guard now < deadline, !isOwnThread else { return false }
                var until = timespec(tv_sec: Int(deadline), tv_nsec: Int((deadline - deadline.rounded(.down)) * 1e9))
                pthread_cond_timedwait(queue.condition, queue.mutex, &until)
            }
            return true
        }
        shutdown(waitsForRunningWork: returned)
        return returned
    }
}

/// A WorkerPool started at its first use, for work many owners never have (a picker's copies
/// of remote picks, its looks at remote folders): a picker of local folders starts no threads
/// for it. The owner's thread only (the GTK thread's owners).
public final class WorkerPoolOnDemand {
    private let name: String
    private let threads: Int
    private var made: WorkerPool?

    public init(name: String, threads: Int) {
        self.name = name
        self.threads = threads
    }

    /// The pool, started now if it was not.
    public var pool: WorkerPool {
        if let made { return made }
        let pool = WorkerPool(name: name, threads: threads)
        made = pool
        return pool
    }

    /// Shuts the pool down if it was ever started (WorkerPool.shutdown).
    public func shutdown() { made?.shutdown() }

    /// The same, waiting at most `seconds` for the running work (WorkerPool.shutdown(waitingAtMost:)).
    public func shutdown(waitingAtMost seconds: Double) { made?.shutdown(waitingAtMost: seconds) }
}
