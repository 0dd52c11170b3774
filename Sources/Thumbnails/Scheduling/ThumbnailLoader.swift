// SPDX-License-Identifier: LGPL-2.1-or-later
import GObjectSupport
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
    private let workers: WorkerPool
    private let lock = Lock()
    /// The jobs of the cells in sight, in the order the view named them (top left first), taken
    /// from the front before any other: GtkGridView binds about 30 rows of cells around the view,
    /// each asking as a visible cell, and on real photos (a decode each) those below the screen
    /// would otherwise take the workers while the screen stays grey.
    private var inSight: [Job] = []
    /// Where each cell in sight stands in that order (`putFirst`), so that a cell bound after the
    /// view named it still takes its place.
    private var sightRanks: [JobKey: Int] = [:]
    /// In-sight jobs being made now: nothing below the screen starts until the screen is done.
    private var runningInSight = 0
    /// Worker turns that found only work below the screen while the screen was being made.
    private var heldTurns = 0
    /// Visible jobs, newest last (taken from the end).
    private var visible: [Job] = []
    /// Prefetch jobs, oldest first.
    private var prefetch: [Job] = []
    private var jobs: [JobKey: Job] = [:]
    private var paused: Bool
    /// Remote photos being downloaded whole for their decode now.
    private var runningTransfers = 0
    /// A remote photo is decoded (downloaded whole, 2-5 MB from a camera) only while its cell is
    /// in sight, two at a time: the link is shared by the screen's cells, and a third would only
    /// slow the first two. Cells bound below the screen get its embedded preview (the first
    /// 16-64 KB) and nothing more; prefetching never downloads.
    static let maximumTransfers = 2
    /// A remote file this small is read whole for what a preview read costs (16-64 KB): its
    /// decode is no download, and waits for no transfer's turn (a NAS's screenshots, stickers and
    /// small PNGs; the generator's 3 KB JPEGs over SFTP filled a screen in 2.0 s two at a time).
    static let smallRemoteFile: Int64 = 64 * 1024

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
        /// Taken from the in-sight queue: the screen is done when every such job is.
        var wasInSight = false
        /// Its embedded preview was looked for (or is being): every cell in sight gets its first
        /// paint before any of them is decoded.
        var previewLookedFor = false
        /// Its embedded preview was looked for and there is none: its cell shows nothing until
        /// it is downloaded, so its download goes before those of cells that show their previews.
        var previewMissing = false
        /// The embedded preview delivered while the job runs, for requests that join it later
        /// (a first run asks for the first screen before its cells are bound).
        var preview: Thumbnail?
        /// A file on another machine (its decode is a download), unless known to be small.
        var isRemote: Bool
        /// Counted in `runningTransfers` while it runs.
        var isTransfer = false
        init(key: JobKey, priority: Priority, isRemote: Bool) {
            self.key = key
            self.priority = priority
            self.isRemote = isRemote
        }
    }

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
        self.paused = startPaused
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
            paused = false
            return inSight.count + visible.count + prefetch.count
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
            let job: Job
            var isNew = false
            if let existing = jobs[key] {
                job = existing
                // (Asked first without its size: the first screen's early thumbnails.)
                if let size, size <= Self.smallRemoteFile, !existing.started, existing.isRemote {
                    existing.isRemote = false
                    StartupTrace.thumbnail("\(key.path.traceName) is small: not a download")
                }
                if priority == .visible && !existing.started && !inSight.contains(where: { $0 === existing }) {
                    // Promote (the cell is bound now), or move it to the top of the stack: newest first.
                    prefetch.removeAll { $0 === existing }
                    visible.removeAll { $0 === existing }
                    existing.priority = .visible
                    enqueueVisible(existing)
                }
            } else {
                job = Job(key: key, priority: priority, isRemote: isRemote(path) && (size ?? .max) > Self.smallRemoteFile)
                jobs[key] = job
                isNew = true
                StartupTrace.thumbnail("asked for \(path.traceName)\(job.isRemote ? ", a download" : "") (\(priority))")
                if priority == .visible { enqueueVisible(job) } else { prefetch.append(job) }
            }
            job.requests.append(request)
            preview = job.preview
            if let cellPixels { job.cellPixels = max(job.cellPixels ?? 0, cellPixels) }
            request.detach = { [weak self, weak job, weak request] in
                guard let self, let job, let request else { return }
                self.locked { self.drop(request, from: job) }
            }
            return isNew
        }
        // Each new job gives the workers one turn; the turn runs whichever job comes first then
        // (visible before prefetch, newest visible first), not necessarily this one.
        if isNew { workers.submit { [weak self] in self?.runNextJob() } }
        // A cell bound after its job painted the preview shows it too, not grey until the download.
        if let preview { dispatcher.post { request.deliverPreliminary(preview) } }
        // A job already queued that has just come into sight may run beside the screen's last.
        giveTurns(locked { takeReleasedTurns() })
        return request
    }

    /// Runs the waiting jobs for `paths` before every other, `paths[0]` first. GtkGridView binds
    /// about 30 rows of cells around the view, and each asks as a visible cell; those bound last
    /// (below the view) would come first. The view names the cells actually in sight.
    /// The view names the cells in sight each time the view moves; jobs asked for later for
    /// these paths join that order too.
    public func putFirst(_ paths: [FilePath], flavor: ThumbnailFlavor) {
        let released = locked { () -> Int in
            sightRanks = [:]
            for (rank, path) in paths.enumerated() where sightRanks[JobKey(path: path, flavor: flavor)] == nil {
                sightRanks[JobKey(path: path, flavor: flavor)] = rank
            }
            // What was in sight and no longer is waits with the other bound cells, newest first.
            let left = inSight.filter { sightRanks[$0.key] == nil }
            inSight.removeAll { sightRanks[$0.key] == nil }
            visible.append(contentsOf: left)
            let waiting = paths.compactMap { path -> Job? in
                guard let job = jobs[JobKey(path: path, flavor: flavor)], !job.started else { return nil }
                return job
            }
            let moved = Set(waiting.map(ObjectIdentifier.init))
            visible.removeAll { moved.contains(ObjectIdentifier($0)) }
            prefetch.removeAll { moved.contains(ObjectIdentifier($0)) }
            for job in waiting where !inSight.contains(where: { $0 === job }) {
                job.priority = .visible
                inSight.append(job)
            }
            inSight.sort { sightRanks[$0.key, default: .max] < sightRanks[$1.key, default: .max] }
            return takeReleasedTurns()
        }
        giveTurns(released)
    }

    /// Held turns that may run now: all of them once the screen is done, else as many as jobs in
    /// sight wait (a cell that came into sight meanwhile). (Called with the lock held.)
    private func takeReleasedTurns() -> Int {
        let released = runningInSight == 0 ? heldTurns : min(heldTurns, inSight.count)
        heldTurns -= released
        return released
    }

    private func giveTurns(_ count: Int) {
        for _ in 0..<count { workers.submit { [weak self] in self?.runNextJob() } }
    }

    /// A visible job joins the cells in sight at its rank when the view named it, else the top of
    /// the stack of bound cells. (Called with the lock held.)
    private func enqueueVisible(_ job: Job) {
        guard let rank = sightRanks[job.key] else {
            visible.append(job)
            return
        }
        let place = inSight.firstIndex { sightRanks[$0.key, default: .max] > rank } ?? inSight.endIndex
        inSight.insert(job, at: place)
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
    public var queuedCount: Int { locked { inSight.count + visible.count + prefetch.count } }

    // MARK: Workers

    /// One turn of a worker: runs the job that comes first now, if any.
    private func runNextJob() {
        guard let (job, previewOnly) = nextWork() else { return }
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
            // A job abandoned while it ran was already replaced by a newer one: leave that.
            if jobs[job.key] === job { jobs[job.key] = nil }
            return job.requests
        }
        StartupTrace.thumbnail("\(job.key.path.traceName) \((try? result.get()) != nil ? "made" : "failed or cancelled")")
        if case .failure(.cancelled) = result {} else {
            for request in requests where !request.isCancelled {
                dispatcher.post { request.deliver(result) }
            }
        }
        // Only once its result is on its way does a cell in sight count as made: the work below
        // the screen starts after the screen's last result, never before it.
        giveTurns(locked { () -> Int in
            if job.wasInSight { runningInSight -= 1 }
            if job.isTransfer { runningTransfers -= 1 }
            return takeReleasedTurns()
        })
    }

    /// What a worker's turn does, decided under one lock (decided in two steps, a turn that
    /// found no preview to look for before the loader resumed then decoded a cell in sight):
    /// first the embedded previews of the cells in sight, top left first, then their decodes,
    /// then the rest.
    private func nextWork() -> (Job, previewOnly: Bool)? {
        locked {
            guard !paused else { return nil }
            if let job = inSight.first(where: { !$0.previewLookedFor && $0.cellPixels != nil }) {
                job.previewLookedFor = true
                return (job, true)
            }
            // When no cell in sight can start (none left, or only downloads with both transfers
            // busy), the remote cells bound around the screen get their embedded previews,
            // newest first: a few kilobytes each, never the whole photo.
            let transfersFree = runningTransfers < Self.maximumTransfers
            if !inSight.contains(where: { !$0.isRemote || transfersFree }),
               let job = visible.last(where: { $0.isRemote && !$0.previewLookedFor && $0.cellPixels != nil }) {
                job.previewLookedFor = true
                return (job, true)
            }
            return nextJob().map { ($0, false) }
        }
    }

    /// (Called with the lock held.)
    private func nextJob() -> Job? {
        let transfersFree = runningTransfers < Self.maximumTransfers
        let canStart = { (job: Job) in !job.isRemote || transfersFree }
        // A remote cell in sight that shows nothing (its photo holds no embedded preview) is
        // downloaded before those that show their preview: 300 real photos over SFTP, the one
        // photo of the first screen without a preview came last, and the grid waited 2 s for it.
        if let index = inSight.firstIndex(where: { canStart($0) && $0.isRemote && $0.previewMissing }) ?? inSight.firstIndex(where: canStart) {
            let job = inSight.remove(at: index)
            job.started = true
            job.wasInSight = true
            runningInSight += 1
            if job.isRemote {
                job.isTransfer = true
                runningTransfers += 1
            }
            return job
        }
        // Only remote cells in sight wait, for a transfer to end: this turn is given back then.
        if !inSight.isEmpty {
            heldTurns += 1
            StartupTrace.thumbnail("a turn held: \(inSight.count) in sight wait for a transfer")
            return nil
        }
        guard visible.contains(where: { !$0.isRemote }) || prefetch.contains(where: { !$0.isRemote }) else {
            // Only remote cells off the screen wait: kept for when one of them comes into sight
            // (`putFirst` gives held turns back), which a small scroll does without a new request.
            if visible.contains(where: \.isRemote) || prefetch.contains(where: \.isRemote) { heldTurns += 1 }
            return nil
        }
        // The last cells in sight are still being made: nothing below the screen competes
        // with them for the cores. This turn is given back when they are done.
        if runningInSight > 0 {
            heldTurns += 1
            return nil
        }
        let job: Job
        if let index = visible.lastIndex(where: { !$0.isRemote }) {
            job = visible.remove(at: index)
        } else if let index = prefetch.firstIndex(where: { !$0.isRemote }) {
            job = prefetch.remove(at: index)
        } else {
            return nil
        }
        job.started = true
        return job
    }

    /// Removes a cancelled request; a job nobody waits for any more leaves the queue (or, when
    /// it runs already, stops being the one new requests join).
    private func drop(_ request: ThumbnailRequest, from job: Job) {
        job.requests.removeAll { $0 === request }
        guard job.requests.isEmpty else { return }
        if jobs[job.key] === job { jobs[job.key] = nil }
        guard !job.started else { return }
        inSight.removeAll { $0 === job }
        visible.removeAll { $0 === job }
        prefetch.removeAll { $0 === job }
    }

    @discardableResult
    private func locked<R>(_ body: () -> R) -> R {
        lock.withLock(body)
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

private extension FilePath {
    /// The file's name, for the thumbnail trace.
    var traceName: String { String(decoding: lastComponent, as: UTF8.self) }
}
