import Glibc
import PhotoLibrary

/// A bounded pool of worker threads making thumbnails for the grid, as PHCachingImageManager does
/// for iOS pickers. Requests for visible cells come first, the newest first among them; prefetch
/// work runs only when no visible request waits. A request returns a handle: cancelling it (the
/// cell was unbound, the album switched) drops it from the queue, and a result that arrives late
/// is discarded instead of painted into a recycled cell. Results are delivered on the GLib main
/// loop; nothing is decoded, read or encoded on it.
public final class ThumbnailLoader: @unchecked Sendable {
    public enum Priority: Sendable {
        case visible
        case prefetch
    }

    /// Runs on the main loop's thread, the GTK thread: on the main actor.
    public typealias Completion = @MainActor (Result<Thumbnail, ThumbnailFailure>) -> Void

    public let thumbnailer: Thumbnailer
    private let dispatcher: MainLoopDispatcher
    // Heap-allocated: pthread objects must not move.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Visible jobs, newest last (taken from the end).
    private var visible: [Job] = []
    /// Prefetch jobs, oldest first.
    private var prefetch: [Job] = []
    private var jobs: [JobKey: Job] = [:]
    private var paused: Bool
    private var stopping = false
    private var threads: [pthread_t] = []

    struct JobKey: Hashable {
        let path: FilePath
        let flavor: ThumbnailFlavor
    }

    final class Job {
        let key: JobKey
        /// The cell's pixel size, for a first paint from an embedded preview.
        var cellPixels: Int?
        var priority: Priority
        var requests: [ThumbnailRequest] = []
        var started = false
        init(key: JobKey, priority: Priority) {
            self.key = key
            self.priority = priority
        }
    }

    /// - Parameters:
    ///   - workers: threads decoding at once; one per core by default.
    ///   - startPaused: queue requests without running them until `resume()` (tests of ordering).
    public init(thumbnailer: Thumbnailer = Thumbnailer(), workers: Int = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))),
                dispatcher: MainLoopDispatcher = .shared, startPaused: Bool = false) {
        self.thumbnailer = thumbnailer
        self.dispatcher = dispatcher
        self.paused = startPaused
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        for _ in 0..<max(1, workers) {
            var thread = pthread_t()
            // Each worker holds the loader until `shutdown()`: the loader lives as long as its pool.
            let box = Unmanaged.passRetained(self)
            if pthread_create(&thread, nil, { context in
                let loader = Unmanaged<ThumbnailLoader>.fromOpaque(context!).takeRetainedValue()
                loader.work()
                return nil
            }, box.toOpaque()) == 0 {
                threads.append(thread)
            } else {
                box.release()
            }
        }
    }

    /// Stops the workers; queued requests are dropped and running ones are cancelled (a running
    /// thumbnailer is killed), so this returns quickly.
    public func shutdown() {
        locked {
            stopping = true
            pthread_cond_broadcast(condition)
        }
        let current = pthread_self()
        for thread in threads where pthread_equal(thread, current) == 0 { pthread_join(thread, nil) }
        threads.removeAll()
    }

    public func resume() {
        locked {
            paused = false
            pthread_cond_broadcast(condition)
        }
    }

    /// Asks for the thumbnail of `path` at `flavor`. `completion` runs on the main loop, unless
    /// the request is cancelled first. With `cellPixels`, a photo that must be decoded and embeds
    /// a preview at least that large is first answered with the preview (`isPreliminary`), then
    /// with the thumbnail.
    @discardableResult
    public func request(_ path: FilePath, flavor: ThumbnailFlavor, cellPixels: Int? = nil, priority: Priority = .visible,
                        completion: @escaping Completion) -> ThumbnailRequest {
        let request = ThumbnailRequest(completion: completion)
        let key = JobKey(path: path, flavor: flavor)
        locked {
            let job: Job
            if let existing = jobs[key] {
                job = existing
                if priority == .visible && existing.priority == .prefetch && !existing.started {
                    // Promote: the cell is on screen now.
                    prefetch.removeAll { $0 === existing }
                    existing.priority = .visible
                    visible.append(existing)
                } else if priority == .visible && !existing.started {
                    // Newest first: move it to the top of the stack.
                    visible.removeAll { $0 === existing }
                    visible.append(existing)
                }
            } else {
                job = Job(key: key, priority: priority)
                jobs[key] = job
                if priority == .visible { visible.append(job) } else { prefetch.append(job) }
            }
            job.requests.append(request)
            if let cellPixels { job.cellPixels = max(job.cellPixels ?? 0, cellPixels) }
            request.detach = { [weak self, weak job, weak request] in
                guard let self, let job, let request else { return }
                self.locked { self.drop(request, from: job) }
            }
            pthread_cond_signal(condition)
        }
        return request
    }

    /// How many jobs wait (not started), for tests and the benchmark.
    public var queuedCount: Int { locked { visible.count + prefetch.count } }

    // MARK: Workers

    private func work() {
        while let job = nextJob() {
            let cellPixels = locked { job.cellPixels }
            let result = thumbnailer.thumbnail(for: job.key.path, flavor: job.key.flavor, firstPaintSide: cellPixels, firstPaint: { [self] preview in
                for request in locked({ job.requests }) where !request.isCancelled {
                    dispatcher.post { request.deliverPreliminary(preview) }
                }
            }, isCancelled: { [self] in
                locked { stopping || job.requests.allSatisfy(\.isCancelled) }
            })
            let requests = locked { () -> [ThumbnailRequest] in
                // A job abandoned while it ran was already replaced by a newer one: leave that.
                if jobs[job.key] === job { jobs[job.key] = nil }
                return job.requests
            }
            if case .failure(.cancelled) = result { continue }
            for request in requests where !request.isCancelled {
                dispatcher.post { request.deliver(result) }
            }
        }
    }

    private func nextJob() -> Job? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if stopping { return nil }
            if !paused, let job = visible.popLast() ?? (prefetch.isEmpty ? nil : prefetch.removeFirst()) {
                job.started = true
                return job
            }
            pthread_cond_wait(condition, mutex)
        }
    }

    /// Removes a cancelled request; a job nobody waits for any more leaves the queue (or, when
    /// it runs already, stops being the one new requests join).
    private func drop(_ request: ThumbnailRequest, from job: Job) {
        job.requests.removeAll { $0 === request }
        guard job.requests.isEmpty else { return }
        if jobs[job.key] === job { jobs[job.key] = nil }
        guard !job.started else { return }
        visible.removeAll { $0 === job }
        prefetch.removeAll { $0 === job }
    }

    @discardableResult
    private func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}

/// A handle on one thumbnail request. Cancel it when the cell it is for goes away.
public final class ThumbnailRequest: @unchecked Sendable {
    private let lock = Lock()
    private var cancelled = false
    private var completion: ThumbnailLoader.Completion?
    var detach: (() -> Void)?

    init(completion: @escaping ThumbnailLoader.Completion) {
        self.completion = completion
    }

    public var isCancelled: Bool { lock.withLock { cancelled } }

    /// After this returns, the completion is never called.
    public func cancel() {
        let detach = lock.withLock { () -> (() -> Void)? in
            guard !cancelled else { return nil }
            cancelled = true
            completion = nil
            defer { self.detach = nil }
            return self.detach
        }
        detach?()
    }

    /// A first paint: the completion stays for the final result.
    @MainActor func deliverPreliminary(_ thumbnail: Thumbnail) {
        let completion = lock.withLock { cancelled ? nil : self.completion }
        completion?(.success(thumbnail))
    }

    /// Called on the main loop: a request cancelled after its result was posted is skipped.
    @MainActor func deliver(_ result: Result<Thumbnail, ThumbnailFailure>) {
        let completion = lock.withLock { () -> ThumbnailLoader.Completion? in
            defer { self.completion = nil; self.detach = nil }
            return cancelled ? nil : self.completion
        }
        completion?(result)
    }
}
