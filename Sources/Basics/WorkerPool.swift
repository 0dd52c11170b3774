// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib
import Glibc

/// Threads that run submitted work, oldest first, and a shutdown that waits for them. Every
/// thread Photopick starts comes from one of these (the index's scans and change positions, the
/// watcher, the thumbnail workers), so each kind of work has one owner that can stop it: after
/// `shutdown()` returns, none of the pool's work runs or will run; or from `detached`, for the
/// few that must not be waited for.
///
/// Work that may take long checks `isStopping` (a scan between files, a thumbnail between steps)
/// so that shutting down does not wait for it to finish.
public final class WorkerPool: @unchecked Sendable {
    // Sendable: work runs on another thread, so it never inherits the isolation of where it was written.
    public typealias Work = @Sendable () -> Void

    /// What the threads share. Each thread holds it until it exits, so the lock and its state
    /// outlive every thread that waits on them, even when the pool itself is released on one.
    private final class Queue: @unchecked Sendable {
        let lock = ConditionLock()
        var work: [Work] = []
        /// Index of the oldest waiting work in `work` (taken from the front without moving the rest).
        var head = 0
        /// Work submitted with a delay: (monotonic time it is due, work), moved to `work` when due.
        var delayed: [(due: Double, work: Work)] = []
        var stopping = false
        /// Threads that have not yet come back from their last work (see `shutdown(waitingAtMost:)`).
        var alive = 0
        /// Threads waiting for work now, and threads not started yet (a pool started on demand).
        var idle = 0
        var unstarted = 0
        var started = 0

        func locked<R>(_ body: () -> R) -> R { lock.withLock(body) }

        /// The next work, or nil when the pool stops.
        func next() -> Work? {
            lock.lock()
            defer { lock.unlock() }
            while true {
                if stopping { return nil }
                moveDueWork()
                if head < work.count { break }
                idle += 1
                if let due = delayed.map(\.due).min() { lock.wait(until: due) } else { lock.wait() }
                idle -= 1
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
    /// `onDemand`: each thread starts when work finds none waiting, up to `threads`. For pools
    /// that a window's start leaves idle (the scan's, the index's): a warm window drew its first
    /// frame beside nine threads that had nothing to do yet, each with its stack and its share of
    /// the start's time (issue 42).
    public init(name: String, threads count: Int, background: Bool = false, onDemand: Bool = false) {
        self.name = name
        self.background = background
        if onDemand {
            queue.unstarted = max(1, count)
        } else {
            for _ in 0..<max(1, count) { startThread() }
        }
    }

    private let background: Bool

    private func startThread() {
        // (Counted before it runs: a thread started as the pool stops exits at once.)
        queue.locked { queue.alive += 1 }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(ThreadContext(queue: queue, name: name, background: background))
        let created = pthread_create(&thread, nil, { raw in
            let context = Unmanaged<ThreadContext>.fromOpaque(raw!).takeRetainedValue()
            photopick_name_thread(context.name)
            if context.background { photopick_lower_thread_priority() }
            while let work = context.queue.next() { work() }
            context.queue.locked {
                context.queue.alive -= 1
                context.queue.lock.broadcast()
            }
            return nil
        }, context.toOpaque())
        if created == 0 {
            threadsLock.withLock { threads.append(thread) }
        } else {
            queue.locked { queue.alive -= 1 }
            context.release()
        }
    }

    /// Called with the queue locked, after work was added: whether a thread should start for it
    /// (more work waits than threads wait for work, or, for work that is due later, no thread
    /// has started to watch the clock), while the pool has threads left to start. The caller
    /// starts it once the lock is let go.
    private func claimThreadForNewWork(delayed: Bool = false) -> Bool {
        guard queue.unstarted > 0 else { return false }
        let wanted = delayed ? queue.started == 0 : queue.work.count - queue.head > queue.idle
        guard wanted else { return false }
        queue.unstarted -= 1
        queue.started += 1
        return true
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
        let (submitted, starts) = queue.locked { () -> (Bool, Bool) in
            guard !queue.stopping else { return (false, false) }
            queue.work.append(work)
            queue.lock.signal()
            return (true, claimThreadForNewWork())
        }
        if starts { startThread() }
        return submitted
    }

    /// Queues `work` to start after `seconds` (work that should not compete with what the person
    /// waits for, like reading the rest of an album once the first screen is shown).
    @discardableResult
    public func submit(after seconds: Double, _ work: @escaping Work) -> Bool {
        let (submitted, starts) = queue.locked { () -> (Bool, Bool) in
            guard !queue.stopping else { return (false, false) }
            queue.delayed.append((monotonicSeconds() + seconds, work))
            queue.lock.broadcast()
            return (true, claimThreadForNewWork(delayed: true))
        }
        if starts { startThread() }
        return submitted
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
            queue.lock.broadcast()
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
            queue.lock.broadcast()
            while queue.alive > 0 {
                guard monotonicSeconds() < deadline, !isOwnThread else { return false }
                queue.lock.wait(until: deadline)
            }
            return true
        }
        shutdown(waitsForRunningWork: returned)
        return returned
    }
}

extension WorkerPool {
    /// Runs `work` on a thread of its own named `name`, which nobody joins: for work that may
    /// never return (a question to a server that stopped answering, which no cancellation
    /// reaches) or that no owner waits for (starting worker processes ahead of need). The thread
    /// ends when the work returns, or with the process. Returns false, without running `work`,
    /// when the system gives no thread.
    @discardableResult
    public static func detached(name: String, _ work: @escaping Work) -> Bool {
        final class Context {
            let name: String
            let work: Work
            init(name: String, work: @escaping Work) {
                self.name = name
                self.work = work
            }
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Context(name: name, work: work)).toOpaque()
        let created = pthread_create(&thread, nil, { raw in
            let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
            photopick_name_thread(context.name)
            context.work()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<Context>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
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
    public func shutdown(waitsForRunningWork: Bool = true) { made?.shutdown(waitsForRunningWork: waitsForRunningWork) }

    /// The same, waiting at most `seconds` for the running work (WorkerPool.shutdown(waitingAtMost:)).
    public func shutdown(waitingAtMost seconds: Double) { made?.shutdown(waitingAtMost: seconds) }
}
