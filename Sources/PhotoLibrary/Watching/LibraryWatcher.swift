// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// Watches the library roots with inotify and keeps the index current: changed folders are
/// rescanned (incrementally) after a short quiet period, and each resulting `LibraryChange` is
/// handed to `onChange`, from which open albums get exact positions through
/// `PhotoLibrary.changeDetails(for:after:)`. When the kernel's watch limit is reached, the
/// folders left unwatched are rescanned periodically instead, and `onNotice` says so; a rescan
/// that fails (a full disk, a busy index) is tried again and said once.
///
/// Runs its own thread; `onChange` and `onNotice` are called there. The folders are walked and
/// watched there too, not in `start()`: for 5,000 photos in 542 folders that walk took 11-14 ms
/// of the GTK thread, a frame of the host's window, when the picker was first shown.
public final class LibraryWatcher: @unchecked Sendable {
    /// What the watcher has to say, with the technical detail (for standard error).
    public enum Notice: Sendable, Equatable {
        /// The kernel's watch limit is reached: some folders are polled instead.
        case watchLimitReached(String)
        /// A rescan failed; it is tried again after the next quiet period.
        case rescanFailed(String)

        public var detail: String {
            switch self {
            case .watchLimitReached(let detail), .rescanFailed(let detail): return detail
            }
        }
    }

    private let library: PhotoLibrary
    private let quietPeriod: Double
    private let pollInterval: Double
    private let maximumWatches: Int?
    private let onChange: @Sendable (LibraryChange) -> Void
    private let onNotice: @Sendable (Notice) -> Void

    private let lock = Lock()
    private var descriptor: Int32 = -1
    private var folders: [Int32: FilePath] = [:]
    private var watched: Set<FilePath> = []
    private var unwatched: Set<FilePath> = []
    private var stopPipe: [Int32] = [-1, -1]
    private var thread: WorkerPool?
    /// Until the first walk is done; `stop()` sets `stopping` to cut it short.
    private let walk = ConditionLock()
    private var walked = false
    private var stopping = false
    private var reportedLimit = false
    private var reportedRescanFailure = false
    /// The kernel dropped events: the next rescan covers everything.
    private var overflowed = false

    /// - Parameters:
    ///   - quietPeriod: how long the folder must be still before it is rescanned (a copy of many
    ///     files becomes one change).
    ///   - pollInterval: how often folders that could not be watched are rescanned.
    ///   - maximumWatches: a lower limit than the kernel's, to exercise the fallback in tests.
    public init(library: PhotoLibrary, quietPeriod: Double = 0.3, pollInterval: Double = 30, maximumWatches: Int? = nil,
                onChange: @escaping @Sendable (LibraryChange) -> Void,
                onNotice: @escaping @Sendable (Notice) -> Void = { _ in }) {
        self.library = library
        self.quietPeriod = quietPeriod
        self.pollInterval = pollInterval
        self.maximumWatches = maximumWatches
        self.onChange = onChange
        self.onNotice = onNotice
    }

    deinit { stop() }

    /// Folders that have no inotify watch and are polled instead.
    public var unwatchedFolders: [FilePath] { lock.withLock { unwatched.sorted() } }

    /// Starts watching: the watcher's thread adds watches for every folder below the roots
    /// (`waitUntilWatching` waits for that), then follows their changes. (A file that arrives in a
    /// folder before its watch is in place waits for the next rescan of it, as it did when the
    /// walk ran here: the library's scan, which runs beside it, may or may not have read it.)
    public func start() throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw WatchError(message: "cannot watch the library: \(errorDescription(errno))") }
        guard pipe(&stopPipe) == 0 else {
            let error = errno
            close(descriptor)
            throw WatchError(message: "cannot watch the library: \(errorDescription(error))")
        }
        // The loop holds the watcher until `stop()` ends it; the thread closes what it polled.
        // (Behind the screen: its walk took 8.5 ms of the processors in the 22 ms frame that drew a
        // warm start's first thumbnails, the host's thread as much: issue 38, point 6.)
        let thread = WorkerPool(name: "watcher", threads: 1, background: true)
        guard thread.threadCount == 1 else {
            let error = errno
            closeDescriptors()
            throw WatchError(message: "cannot start the watcher thread: \(errorDescription(error))")
        }
        thread.submit {
            for root in self.library.roots where !self.isStopping { self.addWatches(below: root) }
            self.walk.withLock { self.walked = true; self.walk.broadcast() }
            self.loop()
            self.closeDescriptors()
        }
        self.thread = thread
    }

    /// Whether every folder found at the start has its watch (or is polled), waiting at most
    /// `timeout` seconds for the watcher's thread to walk them: for a caller that must know
    /// that a change from now on is seen (tests).
    public func waitUntilWatching(timeout: Double) -> Bool {
        let deadline = monotonicSeconds() + timeout
        return walk.withLock {
            while !walked && monotonicSeconds() < deadline { walk.wait(until: deadline) }
            return walked
        }
    }

    private var isStopping: Bool { walk.withLock { stopping } }

    /// Stops watching, without waiting: the thread ends at once, or after the rescan it is in
    /// (what that finds is still handed to `onChange`), and takes the watches with it. A walk of
    /// the folders under way ends at the next folder. For the GTK thread: joined, a rescan of a
    /// large folder held a host's window when its picker went.
    public func stop() {
        guard let thread else { return }
        self.thread = nil
        walk.withLock { stopping = true }
        var byte: UInt8 = 1
        _ = write(stopPipe[1], &byte, 1)
        thread.shutdown(waitsForRunningWork: false)
    }

    private func closeDescriptors() {
        close(descriptor)
        close(stopPipe[0])
        close(stopPipe[1])
    }

    public struct WatchError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    // MARK: Watches

    private static let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB
                                     | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)

    private func addWatches(below folder: FilePath) {
        for path in DirectoryListing.folders(under: folder) {
            if isStopping { return }
            addWatch(path)
        }
    }

    private func addWatch(_ path: FilePath) {
        lock.withLock {
            guard !watched.contains(path) else { return }
            if let maximumWatches, watched.count >= maximumWatches {
                unwatched.insert(path)
                return
            }
            let wd = path.withCString { inotify_add_watch(descriptor, $0, Self.mask) }
            if wd >= 0 {
                folders[wd] = path
                watched.insert(path)
                unwatched.remove(path)
            } else if errno == ENOSPC {
                unwatched.insert(path)
            }
        }
        reportLimitIfNeeded()
    }

    /// Forgets the watches of `folder` and every folder below it (it was moved away or deleted).
    private func removeWatches(below folder: FilePath) {
        lock.withLock {
            for (wd, path) in folders where path == folder || path.relative(to: folder) != nil {
                inotify_rm_watch(descriptor, wd)
                folders[wd] = nil
                watched.remove(path)
            }
            unwatched = unwatched.filter { $0 != folder && $0.relative(to: folder) == nil }
        }
    }

    private func reportLimitIfNeeded() {
        let count = lock.withLock { unwatched.count }
        guard count > 0, !reportedLimit else { return }
        reportedLimit = true
        let limit = maximumWatches.map(String.init) ?? readSmallFile(FilePath("/proc/sys/fs/inotify/max_user_watches"))
            .map { String(decoding: $0, as: UTF8.self).trimmingSpaces.replacingNewlines } ?? "?"
        onNotice(.watchLimitReached("the inotify watch limit (\(limit)) is reached: folders without a watch are rescanned every "
                                    + "\(Int(pollInterval)) s instead (raise fs.inotify.max_user_watches to watch them all)"))
    }

    // MARK: The loop

    private func loop() {
        var dirty: Set<FilePath> = []
        var firstEvent: Double?
        var lastEvent = 0.0
        var lastPoll = monotonicSeconds()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stopPipe[0], events: Int16(POLLIN), revents: 0)]
            let now = monotonicSeconds()
            var timeout = pollInterval - (now - lastPoll)
            if firstEvent != nil { timeout = min(timeout, quietPeriod - (now - lastEvent)) }
            _ = poll(&fds, 2, Int32(min(max(0, timeout * 1000), 3_600_000).rounded(.up)))
            if fds[1].revents != 0 { return }
            if fds[0].revents != 0 {
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    dirty.formUnion(parse(buffer, count: count))
                    lastEvent = monotonicSeconds()
                    if firstEvent == nil { firstEvent = lastEvent }
                }
            }
            let current = monotonicSeconds()
            // Rescan once the folders were quiet for a moment, or after 2 s of constant change.
            if let first = firstEvent, current - lastEvent >= quietPeriod || current - first >= 2 {
                do {
                    deliver(try overflowed ? library.scan() : library.rescan(folders: Array(dirty)))
                    dirty.removeAll()
                    overflowed = false
                    firstEvent = nil
                } catch {
                    // Keep the folders and try again after another quiet period (a full disk, a busy index).
                    firstEvent = current
                    lastEvent = current
                    failedRescan(error)
                }
            }
            if current - lastPoll >= pollInterval {
                lastPoll = current
                let polled = lock.withLock { Array(unwatched) }
                if !polled.isEmpty {
                    do { deliver(try library.rescan(folders: polled)) } catch { failedRescan(error) }
                }
            }
        }
    }

    private func deliver(_ change: LibraryChange) {
        if !change.isEmpty { onChange(change) }
    }

    /// Said once: it is tried again at every quiet period, and the person can do little but wait.
    private func failedRescan(_ error: Error) {
        guard !reportedRescanFailure else { return }
        reportedRescanFailure = true
        onNotice(.rescanFailed("cannot read the changed folders again: \(error)"))
    }

    /// The folders the events concern. New folders get watches (and whole new trees are
    /// rescanned through their parent); a queue overflow rescans everything.
    private func parse(_ buffer: [UInt8], count: Int) -> Set<FilePath> {
        var result: Set<FilePath> = []
        var offset = 0
        let headerSize = MemoryLayout<inotify_event>.size
        while offset + headerSize <= count {
            let (wd, mask, length) = buffer.withUnsafeBytes { raw in
                let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                return (event.wd, event.mask, Int(event.len))
            }
            let nameBytes = Array(buffer[(offset + headerSize)..<min(count, offset + headerSize + length)].prefix { $0 != 0 })
            offset += headerSize + length
            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                overflowed = true
                result.formUnion(library.roots)
                continue
            }
            guard let folder = lock.withLock({ folders[wd] }) else { continue }
            if mask & UInt32(IN_IGNORED) != 0 {
                lock.withLock { folders[wd] = nil; watched.remove(folder) }
                continue
            }
            if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                // A watch follows a moved folder: drop it, the parent's rescan sees where it went.
                removeWatches(below: folder)
                result.insert(folder.parent)
                continue
            }
            guard let first = nameBytes.first, first != UInt8(ascii: ".") else { continue }
            if mask & UInt32(IN_ISDIR) != 0, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                addWatches(below: folder.appending(nameBytes))
            }
            if mask & UInt32(IN_ISDIR) != 0, mask & UInt32(IN_MOVED_FROM) != 0 {
                removeWatches(below: folder.appending(nameBytes))
            }
            result.insert(folder)
        }
        return result
    }
}

extension String {
    var replacingNewlines: String { String(map { $0 == "\n" ? " " : $0 }) }
}
