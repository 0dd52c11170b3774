// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib
import GObjectSupport
import PhotoLibrary

/// What the library's scan and watcher found, told to every controller that shows the library.
public enum LibraryEvent {
    /// Progress of a first scan, and the number of files expected (0 until they are counted).
    case scanProgress(ScanProgress, expected: Int)
    /// A first scan has dated every file: an album waiting for it opens now, in its final order.
    case datesKnown
    /// The newest of Recents, newest first, once a first scan dated every file.
    case newestKnown([FilePath])
    /// What a scan, a rescan or the watcher changed in the index (merged, at most twice a second
    /// during a scan).
    case changed(LibraryChange)
    /// The scan is over; `failure` says why it stopped early, in words.
    case scanFinished(failure: String?)
    /// Something the person could act on, in words, with the detail already on standard error.
    case problem(String)
    /// A library folder on another machine stopped answering, or answers again
    /// (`LibraryService.offlineRoots`).
    case offlineChanged
}

/// One library's index kept current for every picker of the process that shows it: one scan,
/// one watcher, one look for folders that went missing, and what they find told to each
/// controller. Two pickers of an app (or the portal's requests, each with its picker) share the
/// index and keep their own picks; with a scan and a watcher each, the second's rescans found
/// nothing new (the first had indexed it already) and its grid never heard of the new photos.
///
/// Controllers `join` it and `leave`; the last to leave stops the scan and the watcher.
/// The GTK thread's, as the controllers are.
@MainActor
public final class LibraryService {
    public let library: PhotoLibrary
    public private(set) var isScanning = false
    /// Whether the running scan is a first run that has not dated every file yet (a controller
    /// joining it waits, as the one that started it does).
    public private(set) var isDatingFirstRun = false

    private let post: PickerController.Post
    private let subscribers = Subscribers<LibraryEvent>()
    private var users = 0
    private var isClosed = false
    /// The scan's threads: the scan, counting its files, rescans and the look for missing roots.
    private let workers = WorkerPool(name: "scan", threads: 2, onDemand: true)
    private var watcher: LibraryWatcher?
    /// Whether a library folder was missing when last looked for, and a look is under way.
    private var rootsWereMissing = false
    private var missingRootsLookedFor = false
    private var everyFileCheckPending = false
    /// The library folders on another machine that do not answer (a server switched off, the
    /// network down), with why, as the last scan or look found them: their photos stay listed,
    /// marked offline, until they answer again.
    public private(set) var offlineRoots: [FilePath: String] = [:]
    /// Asks each such folder's server whether it answers, one at a time: a server that went away
    /// may keep a connection waiting for minutes, which must not hold a scan's thread. Started
    /// when first needed: a library of local folders never starts it.
    private let availabilityWorker = WorkerPoolOnDemand(name: "remote-look", threads: 1)
    private var remoteRootsLookedAt = false
    /// Says a look that has not come back in time is a server that does not answer.
    private let lookWatchdog = MainLoopSource()

    public init(library: PhotoLibrary, post: @escaping PickerController.Post) {
        self.library = library
        self.post = post
    }

    // MARK: Sharing

    private static var shared: [String: Weak] = [:]
    private final class Weak {
        weak var service: LibraryService?
        init(_ service: LibraryService) { self.service = service }
    }

    /// The folders a picker given `folders` shows: those, or the person's own when none (the
    /// default folders that can be shown). `shared` is keyed by them: a program that starts a
    /// library's scan before its picker is made (the photopick program) starts it in the service
    /// its picker will join.
    public static func folders(shownFor folders: [FilePath]) -> [FilePath] {
        folders.isEmpty ? LibraryFolders.present : folders
    }

    /// The service of the library over `roots` that a picker of this process already uses, or a
    /// new one over the library `open` makes.
    public static func shared(roots: [FilePath], post: @escaping PickerController.Post,
                              open: () throws -> PhotoLibrary) throws -> LibraryService {
        let key = roots.map(\.displayString).sorted().joined(separator: "\n")
        shared = shared.filter { $0.value.service != nil }
        if let service = shared[key]?.service, !service.isClosed { return service }
        let service = LibraryService(library: try open(), post: post)
        shared[key] = Weak(service)
        return service
    }

    /// Calls `handler` with every event until the subscription is cancelled; `leave` once done.
    func join(_ handler: @escaping (LibraryEvent) -> Void) -> Subscription {
        users += 1
        return subscribers.subscribe(handler)
    }

    /// A controller closed: the last one stops the scan (at its next file, keeping what it read)
    /// and the watcher. Work under way is not waited for: a scan stops at its next file, one
    /// reading from a server that stopped answering or from a stalled worker when that returns
    /// (or with the process); what it posts finds the service closed. The GTK thread never waits
    /// on them (waiting up to 0.2 s for a scan's file held a host's window when its picker went).
    func leave() {
        users -= 1
        guard users <= 0, !isClosed else { return }
        isClosed = true
        watcher?.stop()
        watcher = nil
        workers.shutdown(waitsForRunningWork: false)
        availabilityWorker.shutdown(waitsForRunningWork: false)
        isScanning = false
        isDatingFirstRun = false
        subscribers.removeAll()
    }

    private func publish(_ event: LibraryEvent) { subscribers.publish(event) }

    /// `post` for the service's threads: nothing reaches a closed service.
    private var postToService: @Sendable (@escaping @MainActor (LibraryService) -> Void) -> Void {
        { [weak self, post] work in post { if let self, !self.isClosed { work(self) } } }
    }

    // MARK: Scanning

    /// Brings the index up to date in the background (PickerController.startScan says how);
    /// a scan already under way for another picker is the one this picker hears.
    func startScan(firstRun: Bool, fullCheckDelay: Double) {
        guard !isClosed, !isScanning else { return }
        if firstRun || fullCheckDelay <= 0 {
            scan(.everyFile, firstRun: firstRun)
            return
        }
        scan(.changedFolders, firstRun: false)
        checkEveryFile(after: fullCheckDelay)
    }

    private func checkEveryFile(after delay: Double) {
        guard !everyFileCheckPending else { return }
        everyFileCheckPending = true
        let post = postToService
        workers.submit(after: delay) {
            post { service in
                service.everyFileCheckPending = false
                // Another scan still running: a little later.
                if service.isScanning { service.checkEveryFile(after: 2) } else { service.scan(.everyFile, firstRun: false) }
            }
        }
    }

    private func scan(_ scope: ScanScope, firstRun: Bool) {
        StartupTrace.mark(firstRun ? "first scan started" : "scan started")
        isScanning = true
        isDatingFirstRun = firstRun
        let library = self.library, post = postToService, workers = self.workers
        // Counting the files reads every folder: never on the GTK thread, and beside the scan
        // rather than before it (a first screen waits for the scan).
        let expected = Counted()
        if firstRun { workers.submit { expected.value = library.countFiles() } }
        workers.submit {
            var lastShown = 0.0
            // Commits are merged and handed over at most twice a second, so a first scan does
            // not keep the GTK thread busy with hundreds of small changes.
            var pending = LibraryChange()
            var lastPosted = 0.0
            var dating = firstRun
            func handOver(now: Double) {
                guard !pending.isEmpty else { return }
                let change = pending
                pending = LibraryChange()
                lastPosted = now
                post { $0.publish(.changed(change)) }
            }
            var failure: String?
            do {
                try library.scan(scope, progress: { progress in
                    if dating && progress.datesKnown {
                        StartupTrace.mark("every file dated")
                        dating = false
                        // (A picker waiting for the dates drops this: its album opens afresh.)
                        handOver(now: progress.elapsedSeconds)
                        post { service in
                            service.isDatingFirstRun = false
                            service.publish(.datesKnown)
                        }
                    }
                    // While the dates are not known, nothing is shown: the change waits.
                    if !dating, progress.elapsedSeconds - lastPosted >= 0.5 { handOver(now: progress.elapsedSeconds) }
                    guard firstRun, progress.elapsedSeconds - lastShown > 0.25 || progress.finished || progress.datesKnown else { return }
                    lastShown = progress.elapsedSeconds
                    let total = expected.value
                    post { $0.publish(.scanProgress(progress, expected: total)) }
                }, committed: { change in
                    pending.merge(change)
                }, isCancelled: { workers.isStopping }, newestInRecents: { newest in
                    post { $0.publish(.newestKnown(newest)) }
                })
            } catch ScanError.cancelled {
                return  // the last picker closed: nobody to tell
            } catch {
                // (The person's sentence; the error for the developer.)
                DeveloperLog.say("indexing stopped: \(error)")
                failure = i18n("Indexing stopped because of an error: new and changed photos may be missing")
            }
            handOver(now: 0)
            let unreachable = library.unreachableRoots
            post { [failure] service in
                service.isScanning = false
                // (A local folder that is not there too: see lookForMissingRoots.)
                service.setOffline(unreachable, lookedAt: library.roots)
                // (A scan that failed before its dates were known: the pickers show what there is.)
                service.isDatingFirstRun = false
                service.publish(.scanFinished(failure: failure))
            }
        }
    }

    /// Reads `folders` again now (a capture just saved there); its change is told as any other,
    /// then `done` hears nil, or why the folders could not be read.
    func rescan(_ folders: [FilePath], done: @escaping @MainActor (Error?) -> Void) {
        guard !isClosed else { return }
        let library = self.library, post = postToService
        workers.submit {
            let change = Result { try library.rescan(folders: folders) }
            post { service in
                switch change {
                case .success(let change):
                    if !change.isEmpty { service.publish(.changed(change)) }
                    done(nil)
                case .failure(let error):
                    done(error)
                }
            }
        }
    }

    // MARK: Watching

    /// Keeps the index current while a picker is open (once for all of them). A watcher that
    /// cannot start is said in words. `maximumWatches` stands in for the kernel's limit in tests.
    func startWatching(maximumWatches: Int? = nil) {
        guard watcher == nil, !isClosed else { return }
        let post = postToService
        let watcher = LibraryWatcher(library: library, maximumWatches: maximumWatches,
                                     onChange: { change in post { $0.publish(.changed(change)) } },
                                     onNotice: { notice in post { $0.tell(notice) } })
        do {
            try watcher.start()
            self.watcher = watcher
        } catch {
            DeveloperLog.say("cannot watch the library folders: \(error)")
            publish(.problem(i18n("New photos will show up only after Photopick restarts")))
        }
        lookForMissingRoots()
        // (At once: a server that wants a password is asked for it while the window opens.)
        lookAtRemoteRoots(after: 0)
    }

    /// Whether the watcher has its watches in place (it walks the folders on its own thread).
    func waitUntilWatching(timeout: Double = 10) -> Bool { watcher?.waitUntilWatching(timeout: timeout) ?? false }

    /// The watcher's notices, each said once by the watcher: a translated sentence for the
    /// person, the detail on standard error.
    private func tell(_ notice: LibraryWatcher.Notice) {
        DeveloperLog.say(notice.detail)
        switch notice {
        case .watchLimitReached:
            publish(.problem(i18n("Some folders are checked for new photos only every half minute: the system's limit of watched folders is reached")))
        case .rescanFailed:
            publish(.problem(i18n("New photos may show up late: the photo index cannot be updated")))
        }
    }

    /// A library folder that is missing (deleted, on a disk not plugged in) cannot be watched:
    /// it is looked for every two seconds, off the GTK thread (a stat of a network path may
    /// hang), and once it is back it is watched and read again. It was "No … Folder" for good.
    private func lookForMissingRoots() {
        guard !isClosed, !missingRootsLookedFor else { return }
        let library = self.library, post = postToService
        missingRootsLookedFor = true
        workers.submit(after: 2) {
            // (Folders on another machine answer or not: lookAtRemoteRoots.)
            let allThere = library.roots.filter { !$0.isLocationURI }.allSatisfy(\.isDirectory)
            post { service in
                service.missingRootsLookedFor = false
                if service.rootsWereMissing && allThere {
                    // Back: watched afresh (its old watches went with it) and read again.
                    service.watcher?.stop()
                    service.watcher = nil
                    service.rootsWereMissing = false
                    service.startWatching()
                    service.startScan(firstRun: false, fullCheckDelay: 0)
                    return
                }
                service.rootsWereMissing = service.rootsWereMissing || !allThere
                service.lookForMissingRoots()
            }
        }
    }
}

// MARK: Folders on another machine

extension LibraryService {
    /// How often a folder on another machine is asked whether it answers, in seconds.
    static let remoteLookInterval = 5.0

    /// How long a look may take: a server that has not answered by then is said not to answer.
    /// (Its read may never return: a server that hangs keeps the connection open, and no
    /// cancellation reaches the request gvfs waits on.) It is marked offline meanwhile and
    /// comes back when the look does.
    static let remoteLookDeadline = 3.0

    /// A server that sent bytes this recently is answering, whatever its look's delay: three
    /// copies at 1 Mbit/s bring a 256 KiB read every 3-4 s each (measured), and a look waits
    /// behind them on the same connection. Twice the deadline: a server that hangs is still said
    /// not to answer within 9 s of its last bytes.
    static let heardWithin = 2 * remoteLookDeadline

    /// Asks every library folder on another machine whether it answers, every few seconds while
    /// a picker is open (a remote folder has no watcher): one that stopped answering is marked
    /// offline, and one that answers again is read again (what changed there meanwhile comes in).
    func lookAtRemoteRoots(after delay: Double = LibraryService.remoteLookInterval) {
        let remote = library.roots.filter(\.isLocationURI)
        guard !isClosed, !remoteRootsLookedAt, !remote.isEmpty else { return }
        remoteRootsLookedAt = true
        let post = postToService
        availabilityWorker.pool.submit(after: delay) {
            var unreachable: [FilePath: String] = [:]
            for root in remote {
                do { try RemoteFiles.checkFolder(root) } catch { unreachable[root] = "\(error)" }
            }
            post { service in
                service.remoteRootsLookedAt = false
                service.lookWatchdog.cancel()
                let cameBack = service.offlineRoots.keys.filter { unreachable[$0] == nil }
                service.setOffline(unreachable, lookedAt: remote)
                // Read again: what changed there while it was away (the scan's look at changed
                // folders; the usual check of every file follows).
                if !cameBack.isEmpty { service.startScan(firstRun: false, fullCheckDelay: 10) }
                service.lookAtRemoteRoots()
            }
        }
        watchLook(at: remote, after: delay + Self.remoteLookDeadline)
    }

    /// Marks the folders of a look that has not come back by its deadline offline, unless their
    /// server sent bytes meanwhile (a link the picks' copies fill answers the look late: it is
    /// answering, and is watched another deadline).
    private func watchLook(at remote: [FilePath], after seconds: Double) {
        lookWatchdog.schedule(after: guint(seconds * 1000), priority: G_PRIORITY_DEFAULT) { [weak self] in
            guard let self, !self.isClosed, self.remoteRootsLookedAt else { return }
            let silent = remote.filter { (RemoteAnswers.secondsSinceHeard(from: $0) ?? .infinity) >= Self.heardWithin }
            guard !silent.isEmpty else {
                self.watchLook(at: remote, after: Self.remoteLookDeadline)
                return
            }
            let reason = i18n("it has not answered for {seconds} s", ["seconds": "\(Int(Self.remoteLookDeadline))"])
            self.setOffline(Dictionary(uniqueKeysWithValues: silent.map { ($0, reason) }), lookedAt: silent)
        }
    }

    /// Mounts the folder `root` on another machine asking the person what its server asks (a
    /// password), through `operation` (the window's GtkMountOperation); once mounted it is looked
    /// at again at once, and read again (`done` hears nil, or why not, in the server's words).
    public func mountAsking(_ root: FilePath, through operation: UnsafeMutableRawPointer, done: @escaping @MainActor (String?) -> Void) {
        guard !isClosed else { return }
        let post = post
        RemoteFiles.mountAsking(root, through: operation, worker: availabilityWorker.pool, post: { work in post(work) }) { [weak self] failure in
            if failure == nil, let self, !self.isClosed, !self.remoteRootsLookedAt { self.lookAtRemoteRoots(after: 0) }
            done(failure.map { "\($0)" })
        }
    }

    /// The folders of `lookedAt` are offline when `unreachable` holds them (with why), and
    /// answer otherwise; the pickers hear of a change.
    func setOffline(_ unreachable: [FilePath: String], lookedAt: [FilePath]) {
        var offline = offlineRoots
        for root in lookedAt { offline[root] = unreachable[root] }
        guard offline != offlineRoots else { return }
        offlineRoots = offline
        publish(.offlineChanged)
    }
}

/// A number another thread works out (0 until it is known).
private final class Counted: @unchecked Sendable {
    private let lock = Lock()
    private var count = 0
    var value: Int {
        get { lock.withLock { count } }
        set { lock.withLock { count = newValue } }
    }
}
