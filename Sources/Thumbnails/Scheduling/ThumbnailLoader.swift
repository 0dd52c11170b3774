// SPDX-License-Identifier: LGPL-2.1-or-later
import GObjectSupport
import Glibc
import PhotoLibrary

/// A bounded pool of worker threads making thumbnails for the grid, as PHCachingImageManager does
/// for iOS pickers. Which job a worker takes next is ThumbnailQueue's (the cells in sight first,
/// then the other visible ones, newest first; prefetching last); this runs them. A request
/// returns a handle (ThumbnailRequest): cancelling it (the cell was unbound, the album switched)
/// drops it from the queue, and a result that arrives late is discarded instead of painted into
/// a recycled cell. Results are delivered on the GLib main loop; nothing is decoded, read or
/// encoded on it.
public final class ThumbnailLoader: @unchecked Sendable {
    public enum Priority: Sendable {
        case visible
        case prefetch
    }

    /// Runs on the main loop's thread, the GTK thread: on the main actor.
    public typealias Completion = @MainActor (Result<Thumbnail, ThumbnailFailure>) -> Void

    public let thumbnailer: Thumbnailer
    private let dispatcher: MainLoopDispatcher
    private let workers: WorkerPool
    private let lock = Lock()
    /// Which job comes next (the rules are there), behind `lock`.
    private let queue: ThumbnailQueue
    private typealias Job = ThumbnailQueue.Job
    private typealias JobKey = ThumbnailQueue.JobKey

    /// - Parameters:
    ///   - workers: threads making thumbnails at once: one per core by default, two per core
    ///     when decodes run in decode workers. A thread waiting on its worker then leaves its
    ///     core to another, which encodes and stores a thumbnail meanwhile: with one a core the
    ///     hand-over (0.3-0.6 ms here) came on top of each 1.5 ms thumbnail, 2,000 small JPEGs
    ///     took 1.22x as long as in process; with two, 1.06x (5 interleaved rounds).
    ///   - startPaused: queue requests without running them until `resume()` (tests of ordering).
    ///   - remotePaths: what says a file's reads are downloads (tests give one of their own).
    public init(thumbnailer: Thumbnailer = Thumbnailer(), workers: Int? = nil,
                dispatcher: MainLoopDispatcher = .shared, startPaused: Bool = false, remotePaths: RemotePaths = .shared) {
        self.thumbnailer = thumbnailer
        self.remotePaths = remotePaths
        self.dispatcher = dispatcher
        queue = ThumbnailQueue(paused: startPaused)
        let threads = workers ?? WorkerPool.processorCount * (thumbnailer.workers != nil ? 2 : 1)
        self.workers = WorkerPool(name: "thumbnails", threads: threads)
    }

    deinit { workers.shutdown() }

    /// Stops the workers; queued requests are dropped and running ones are cancelled (a running
    /// thumbnailer is killed), so this returns quickly.
    public func shutdown(waitsForRunningWork: Bool = true) {
        workers.shutdown(waitsForRunningWork: waitsForRunningWork)
    }

    public func resume() {
        let waiting = locked { () -> Int in
            queue.paused = false
            return queue.waitingCount
        }
        // Turns taken while paused found nothing to do: one more per waiting job.
        for _ in 0..<waiting { workers.submit { [weak self] in self?.runNextJob() } }
    }

    /// Asks for the thumbnail of `path` at `flavor`. `completion` runs on the main loop, unless
    /// the request is cancelled first. With `cellPixels`, a photo that must be decoded and embeds
    /// a preview at least that large is first answered with the preview (`isPreliminary`), then
    /// with the thumbnail.
    @discardableResult
    /// - Parameter size: the file's size when the caller knows it (the index's): a small remote
    ///   file is then made as a local one is.
    public func request(_ path: FilePath, flavor: ThumbnailFlavor, cellPixels: Int? = nil, size: Int64? = nil, priority: Priority = .visible,
                        completion: @escaping Completion) -> ThumbnailRequest {
        let request = ThumbnailRequest(completion: completion)
        let key = JobKey(path: path, flavor: flavor)
        var preview: Thumbnail?
        let isNew = locked { () -> Bool in
            let (job, isNew) = queue.job(for: key, priority: priority, cellPixels: cellPixels, size: size) { isRemote(path) }
            job.requests.append(request)
            preview = job.preview
            request.detach = { [weak self, weak job, weak request] in
                guard let self, let job, let request else { return }
                self.locked { self.queue.drop(request, from: job) }
            }
            return isNew
        }
        // Each new job gives the workers one turn; the turn runs whichever job comes first then
        // (visible before prefetch, newest visible first), not necessarily this one.
        if isNew { workers.submit { [weak self] in self?.runNextJob() } }
        // A cell bound after its job painted the preview shows it too, not grey until the download.
        if let preview { dispatcher.post { request.deliverPreliminary(preview) } }
        // A job already queued that has just come into sight may run beside the screen's last.
        giveTurns(locked { queue.takeReleasedTurns() })
        return request
    }

    /// Runs the waiting jobs for `paths` before every other, `paths[0]` first. GtkGridView binds
    /// about 30 rows of cells around the view, and each asks as a visible cell; those bound last
    /// (below the view) would come first. The view names the cells actually in sight.
    /// The view names the cells in sight each time the view moves; jobs asked for later for
    /// these paths join that order too.
    public func putFirst(_ paths: [FilePath], flavor: ThumbnailFlavor) {
        giveTurns(locked { queue.putFirst(paths, flavor: flavor) })
    }

    private func giveTurns(_ count: Int) {
        for _ in 0..<count { workers.submit { [weak self] in self?.runNextJob() } }
    }

    /// The thumbnail of this version of a file when it is in memory, at once: no queue, no hop
    /// through the main loop, so a cell bound again (or the first screen, loaded before the window
    /// showed) is drawn with its picture in the same frame. The version is the index's (`lstat`).
    public func memoryHit(_ path: FilePath, flavor: ThumbnailFlavor, size: Int64, modificationTimeNanoseconds: Int64) -> Thumbnail? {
        let key = MemoryCache.Key(path: path.absolute(), flavor: flavor, modificationTimeNanoseconds: modificationTimeNanoseconds, size: size)
        return thumbnailer.memory.thumbnail(for: key).map { Thumbnail(pixbuf: $0.pixbuf, source: .memory) }
    }

    /// Whether `path` is on another machine, whose reads are downloads (RemotePaths, the
    /// process's one judge, which the picker's badges follow too).
    private func isRemote(_ path: FilePath) -> Bool { remotePaths.isRemote(path) }
    private let remotePaths: RemotePaths

    /// How many jobs wait (not started), for tests and the benchmark.
    public var queuedCount: Int { locked { queue.waitingCount } }

    // MARK: Workers

    /// One turn of a worker: runs the job that comes first now, if any.
    private func runNextJob() {
        guard let (job, previewOnly) = locked({ queue.nextWork() }) else { return }
        // (A photo on another machine: the index's reads from there wait meanwhile.)
        if job.key.path.isLocationURI {
            RemoteTraffic.awaited { run(job, previewOnly: previewOnly) }
        } else {
            run(job, previewOnly: previewOnly)
        }
    }

    private func run(_ job: Job, previewOnly: Bool) {
        if previewOnly {
            let side = locked { job.cellPixels }
            let preview = side.flatMap { thumbnailer.embeddedPreview(for: job.key.path, flavor: job.key.flavor, side: $0) }
            if preview == nil { locked { job.previewMissing = true } }
            StartupTrace.thumbnail("\(job.key.path.traceName)'s preview \(preview == nil ? "missing" : "shown")")
            if let preview {
                for request in locked({ job.preview = preview; return job.requests }) where !request.isCancelled {
                    dispatcher.post { request.deliverPreliminary(preview) }
                }
            }
            // This turn was the job's first: it needs another for its decode.
            giveTurns(1)
            return
        }
        let cellPixels = locked { job.previewLookedFor ? nil : job.cellPixels }
        StartupTrace.thumbnail("making \(job.key.path.traceName)\(job.isTransfer ? ", a download" : "")")
        let result = thumbnailer.thumbnail(for: job.key.path, flavor: job.key.flavor, firstPaintSide: cellPixels, firstPaint: { [self] preview in
            for request in locked({ job.preview = preview; return job.requests }) where !request.isCancelled {
                dispatcher.post { request.deliverPreliminary(preview) }
            }
        }, isCancelled: { [self] in
            workers.isStopping || locked { job.requests.allSatisfy(\.isCancelled) }
        })
        let requests = locked { () -> [ThumbnailRequest] in
            queue.ended(job)
            return job.requests
        }
        StartupTrace.thumbnail("\(job.key.path.traceName) \((try? result.get()) != nil ? "made" : "failed or cancelled")")
        if case .failure(.cancelled) = result {} else {
            for request in requests where !request.isCancelled {
                dispatcher.post { request.deliver(result) }
            }
        }
        giveTurns(locked { queue.delivered(job) })
    }

    @discardableResult
    private func locked<R>(_ body: () -> R) -> R {
        lock.withLock(body)
    }
}
