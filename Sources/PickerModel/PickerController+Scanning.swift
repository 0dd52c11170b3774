import GObjectSupport
import PhotoLibrary

/// The scan that keeps the index current: a first run's, which the grid waits for until every
/// file is dated, and a later run's, which looks at the folders that changed first.
extension PickerController {
    /// Brings the index up to date in the background; later runs pick up what changed since.
    /// Nothing waits. On a first run (the album is empty) the grid stays empty until every file is
    /// dated and the newest are read in full: then the album opens once, in its final order, and
    /// the rest of the scan only fills in details in place. Showing photos as they were found
    /// would push the screen around for as long as the scan ran (newer photos keep arriving above).
    ///
    /// A later run looks first at the folders whose time moved (a stat per folder), so the cores
    /// go to the first frame; every file is checked `fullCheckDelay` seconds later, which finds
    /// a photo rewritten in place while Photopick was closed.
    public func startScan(fullCheckDelay: Double = 10) {
        guard !isClosed else { return }
        let library = self.library
        // (Started before an album is open, as the window does: an empty index is a first run.)
        let albumEmpty = currentAlbum != nil && model.count - (model.showsCamera ? 1 : 0) == 0
        let firstRun = library.isEmpty || albumEmpty
        if firstRun || fullCheckDelay <= 0 {
            scan(.everyFile, firstRun: firstRun)
            return
        }
        scan(.changedFolders, firstRun: false)
        checkEveryFile(after: fullCheckDelay)
    }

    private func checkEveryFile(after delay: Double) {
        let post = postToController
        workers.submit(after: delay) {
            post { controller in
                // Another scan still running: a little later.
                if controller.isScanning { controller.checkEveryFile(after: 2) } else { controller.scan(.everyFile, firstRun: false) }
            }
        }
    }

    private func scan(_ scope: ScanScope, firstRun: Bool) {
        guard !isScanning else { return }
        StartupTrace.mark(firstRun ? "first scan started" : "scan started")
        isScanning = true
        let library = self.library
        let post = postToController, workers = self.workers
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
            var holding = firstRun
            func handOver(now: Double) {
                guard !holding, !pending.isEmpty else { return }
                let change = pending
                pending = LibraryChange()
                lastPosted = now
                post { $0.apply(change) }
            }
            var failure: String?
            do {
                try library.scan(scope, progress: { progress in
                    if holding && progress.datesKnown {
                        StartupTrace.mark("every file dated")
                        // What was committed so far is in the album as it opens now.
                        holding = false
                        pending = LibraryChange()
                        post { $0.showScannedLibrary() }
                    }
                    if progress.elapsedSeconds - lastPosted >= 0.5 { handOver(now: progress.elapsedSeconds) }
                    guard firstRun, progress.elapsedSeconds - lastShown > 0.25 || progress.finished || progress.datesKnown else { return }
                    lastShown = progress.elapsedSeconds
                    let total = expected.value
                    post { $0.publish(.scanProgress(progress, expected: total)) }
                }, committed: { change in
                    pending.merge(change)
                }, isCancelled: { workers.isStopping }, newestInRecents: { newest in
                    post { controller in
                        guard controller.currentAlbum ?? .smart(.recents) == .smart(.recents) else { return }
                        controller.publish(.newestKnown(newest))
                    }
                })
            } catch ScanError.cancelled {
                return  // the picker closed: nobody to tell
            } catch {
                failure = i18n("Indexing stopped: {reason}", ["reason": "\(error)"])
            }
            if holding {
                // The scan ended before its dates were known (it failed): show what there is.
                holding = false
                post { $0.showScannedLibrary() }
            }
            handOver(now: 0)
            post { [failure] controller in
                controller.isScanning = false
                if let failure { controller.publish(.problem(failure)) }
                controller.publish(.scanFinished)
            }
        }
    }

    /// A first scan knows every date: the album list (with counts) is read again and the open
    /// album opens afresh, in its final order.
    private func showScannedLibrary() {
        guard !isClosed else { return }
        StartupTrace.mark("showing the scanned library")
        let album = currentAlbum ?? .smart(.recents)
        currentAlbum = nil
        do {
            try reloadAlbums(selecting: album)
        } catch {
            currentAlbum = album
            publish(.problem(i18n("Cannot read the albums: {reason}", ["reason": "\(error)"])))
        }
    }

    // MARK: Watching

    /// Keeps the index current while the picker is open: the watcher's changes (on its own
    /// thread) are applied here, in place. A watcher that cannot start is said in words.
    /// `maximumWatches` stands in for the kernel's limit in tests.
    public func startWatching(maximumWatches: Int? = nil) {
        guard watcher == nil, !isClosed else { return }
        let post = postToController
        let watcher = LibraryWatcher(library: library, maximumWatches: maximumWatches, onChange: { change in post { $0.apply(change) } },
                                     onNotice: { notice in post { $0.tell(notice) } })
        do {
            try watcher.start()
            self.watcher = watcher
        } catch {
            publish(.problem(i18n("New photos will show up only after Photopick restarts: {reason}", ["reason": "\(error)"])))
        }
        lookForMissingRoots()
    }

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
        let library = self.library, post = postToController
        missingRootsLookedFor = true
        workers.submit(after: 2) {
            let missing = library.roots.filter { !$0.isDirectory }
            let allThere = missing.isEmpty
            post { controller in
                controller.missingRootsLookedFor = false
                if controller.rootsWereMissing && allThere {
                    // Back: watched afresh (its old watches went with it) and read again.
                    controller.watcher?.stop()
                    controller.watcher = nil
                    controller.rootsWereMissing = false
                    controller.startWatching()
                    controller.startScan(fullCheckDelay: 0)
                    return
                }
                controller.rootsWereMissing = controller.rootsWereMissing || !allThere
                controller.lookForMissingRoots()
            }
        }
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
