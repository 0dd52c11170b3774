// SPDX-License-Identifier: LGPL-2.1-or-later
import GObjectSupport
import PhotoLibrary

/// The order thumbnails are made in, and nothing else: which job a worker's turn takes, and
/// when a turn is better held back. Kept apart from the threads and the decoding
/// (ThumbnailLoader) so the rules can be read, and tested, on their own. Not thread-safe: the
/// loader calls it with its lock held.
///
/// The rules, first to last:
/// - The cells in sight (`putFirst`, in the view's order, top left first) before anything else:
///   GtkGridView binds about 30 rows of cells around the view, each asking as a visible cell,
///   and on real photos (a decode each) those below the screen would otherwise take the
///   workers while the screen stays grey. First their embedded previews, then their decodes.
/// - Nothing below the screen starts until the screen's last result is on its way; the turns
///   that found only such work are held and given back then.
/// - Then the other visible cells, newest first; prefetching last, oldest first.
/// - A remote photo is decoded (downloaded whole, 2-5 MB from a camera) only while its cell is
///   in sight, two at a time; cells bound below the screen get its embedded preview (the first
///   16-64 KB) and nothing more; prefetching never downloads.
final class ThumbnailQueue {
    struct JobKey: Hashable {
        let path: FilePath
        let flavor: ThumbnailFlavor
    }

    final class Job {
        let key: JobKey
        /// The cell's pixel size, for a first paint from an embedded preview.
        var cellPixels: Int?
        var priority: ThumbnailLoader.Priority
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
        init(key: JobKey, priority: ThumbnailLoader.Priority, isRemote: Bool) {
            self.key = key
            self.priority = priority
            self.isRemote = isRemote
        }
    }

    /// Remote photos downloaded whole at once: the link is shared by the screen's cells, and a
    /// third would only slow the first two.
    static let maximumTransfers = 2
    /// A remote file this small is read whole for what a preview read costs (16-64 KB): its
    /// decode is no download, and waits for no transfer's turn (a NAS's screenshots, stickers and
    /// small PNGs; the generator's 3 KB JPEGs over SFTP filled a screen in 2.0 s two at a time).
    static let smallRemoteFile: Int64 = 64 * 1024

    /// Every job not finished, by what it makes: a second request for the same joins it.
    private(set) var jobs: [JobKey: Job] = [:]
    /// The jobs of the cells in sight, in the order the view named them.
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
    /// Remote photos being downloaded whole for their decode now.
    private var runningTransfers = 0
    /// Requests are queued but no turn takes them (tests of ordering).
    var paused: Bool

    init(paused: Bool) { self.paused = paused }

    /// How many jobs wait (not started).
    var waitingCount: Int { inSight.count + visible.count + prefetch.count }

    /// The job making `key`: the one under way or waiting, which the request joins, or a new one
    /// (`isNew`: it needs a worker's turn). `size`, when the index knows it, tells a small remote
    /// file, which is made as a local one is.
    func job(for key: JobKey, priority: ThumbnailLoader.Priority, cellPixels: Int?, size: Int64?,
             isRemote: () -> Bool) -> (job: Job, isNew: Bool) {
        if let existing = jobs[key] {
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
            if let cellPixels { existing.cellPixels = max(existing.cellPixels ?? 0, cellPixels) }
            return (existing, false)
        }
        let job = Job(key: key, priority: priority, isRemote: isRemote() && (size ?? .max) > Self.smallRemoteFile)
        job.cellPixels = cellPixels
        jobs[key] = job
        StartupTrace.thumbnail("asked for \(key.path.traceName)\(job.isRemote ? ", a download" : "") (\(priority))")
        if priority == .visible { enqueueVisible(job) } else { prefetch.append(job) }
        return (job, true)
    }

    /// The cells in sight now, `paths[0]` first (named each time the view moves; jobs asked for
    /// later for these paths join that order too). Returns the held turns that may run now.
    func putFirst(_ paths: [FilePath], flavor: ThumbnailFlavor) -> Int {
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

    /// Held turns that may run now: all of them once the screen is done, else as many as jobs in
    /// sight wait (a cell that came into sight meanwhile).
    func takeReleasedTurns() -> Int {
        let released = runningInSight == 0 ? heldTurns : min(heldTurns, inSight.count)
        heldTurns -= released
        return released
    }

    /// What a worker's turn does, decided at once (decided in two steps, a turn that found no
    /// preview to look for before the loader resumed then decoded a cell in sight): first the
    /// embedded previews of the cells in sight, top left first, then their decodes, then the
    /// rest. Nil: nothing to do now (the turn may be held).
    func nextWork() -> (job: Job, previewOnly: Bool)? {
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

    /// `job` has its result: a request from now on makes a new job.
    func ended(_ job: Job) {
        // A job abandoned while it ran was already replaced by a newer one: leave that.
        if jobs[job.key] === job { jobs[job.key] = nil }
    }

    /// `job`'s result is on its way: a job in sight counts as made only now, so the work below
    /// the screen starts after the screen's last result, never before it. Returns the held turns
    /// that may run now.
    func delivered(_ job: Job) -> Int {
        if job.wasInSight { runningInSight -= 1 }
        if job.isTransfer { runningTransfers -= 1 }
        return takeReleasedTurns()
    }

    /// Removes a cancelled request; a job nobody waits for any more leaves the queue (or, when
    /// it runs already, stops being the one new requests join).
    func drop(_ request: ThumbnailRequest, from job: Job) {
        job.requests.removeAll { $0 === request }
        guard job.requests.isEmpty else { return }
        if jobs[job.key] === job { jobs[job.key] = nil }
        guard !job.started else { return }
        inSight.removeAll { $0 === job }
        visible.removeAll { $0 === job }
        prefetch.removeAll { $0 === job }
    }

    /// A visible job joins the cells in sight at its rank when the view named it, else the top of
    /// the stack of bound cells.
    private func enqueueVisible(_ job: Job) {
        guard let rank = sightRanks[job.key] else {
            visible.append(job)
            return
        }
        let place = inSight.firstIndex { sightRanks[$0.key, default: .max] > rank } ?? inSight.endIndex
        inSight.insert(job, at: place)
    }
}

extension FilePath {
    /// The file's name, for the thumbnail trace.
    var traceName: String { String(decoding: lastComponent, as: UTF8.self) }
}
