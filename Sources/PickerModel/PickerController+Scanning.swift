// SPDX-License-Identifier: LGPL-2.1-or-later
import GObjectSupport
import PhotoLibrary

/// The scan that keeps the index current, as a picker hears it from its library service: a first
/// run's, which the grid waits for until every file is dated, and a later run's, which looks at
/// the folders that changed first.
extension PickerController {
    /// Brings the index up to date in the background; later runs pick up what changed since.
    /// Nothing waits. On a first run (the album is empty) the grid stays empty until every file is
    /// dated and the newest are read in full: then the album opens once, in its final order, and
    /// the rest of the scan only fills in details in place. Showing photos as they were found
    /// would push the screen around for as long as the scan ran (newer photos keep arriving above).
    ///
    /// A later run looks first at the folders whose time moved (a stat per folder), so the cores
    /// go to the first frame; every file is checked `fullCheckDelay` seconds later, which finds
    /// a photo rewritten in place while Photopick was closed. The scan is the library service's:
    /// a picker opened while another one's scan runs hears that scan.
    public func startScan(fullCheckDelay: Double = 10) {
        guard !isClosed else { return }
        // (Started before an album is open, as the window does: an empty index is a first run.)
        let albumEmpty = currentAlbum != nil && model.count - (model.showsCamera ? 1 : 0) == 0
        let firstRun = library.isEmpty || albumEmpty
        waitsForDates = service.isScanning ? service.isDatingFirstRun : firstRun
        service.startScan(firstRun: firstRun, fullCheckDelay: fullCheckDelay)
    }

    /// Keeps the index current while the picker is open: the watcher's changes (on its own
    /// thread) are applied here, in place. `maximumWatches` stands in for the kernel's limit.
    public func startWatching(maximumWatches: Int? = nil) {
        guard !isClosed else { return }
        service.startWatching(maximumWatches: maximumWatches)
    }

    /// What the library's scan and watcher found.
    func hear(_ event: LibraryEvent) {
        switch event {
        case .scanProgress(let progress, let expected):
            publish(.scanProgress(progress, expected: expected))
        case .datesKnown:
            guard waitsForDates else { return }
            waitsForDates = false
            showScannedLibrary()
        case .newestKnown(let newest):
            guard currentAlbum ?? .smart(.recents) == .smart(.recents) else { return }
            publish(.newestKnown(newest))
        case .changed(let change):
            // (A first run's album opens afresh once the dates are known: it holds all of it.)
            if waitsForDates { return }
            if changesWhileShowing != nil { changesWhileShowing?.append(change) } else { apply(change) }
        case .scanFinished(let failure):
            if waitsForDates {
                // The scan ended before its dates were known (it failed): show what there is.
                waitsForDates = false
                showScannedLibrary()
            }
            if let failure { publish(.problem(failure)) }
            publish(.scanFinished)
        case .problem(let problem):
            publish(.problem(problem))
        case .offlineChanged:
            offlineChanged()
        }
    }

    /// A first scan knows every date: the album list (with counts) is read again and the open
    /// album opens afresh, in its final order. On screen, it is read on a worker and shown in a
    /// turn of its own after the next frame (issue 38, point 6: reading and showing in one turn
    /// were 36 ms of the host's, with the scan's threads busy on both cores, and the reading
    /// alone 8-20 ms of a turn); changes that come meanwhile are applied after it (each is
    /// measured against the rows shown then).
    private func showScannedLibrary() {
        guard !isClosed else { return }
        StartupTrace.mark("showing the scanned library")
        let album = currentAlbum ?? .smart(.recents)
        currentAlbum = nil
        guard showsAfterTheNextFrame != nil else {
            do {
                show(try readAlbums(selecting: album))
            } catch {
                couldNotRead(error, keeping: album)
            }
            return
        }
        changesWhileShowing = []
        let library = self.library, filter = self.filter, post = postToController
        let submitted = workers.submit {
            let read = Result { try Self.readAlbums(of: library, selecting: album, filter: filter) }
            post { controller in
                guard case .success(let read) = read else {
                    controller.applyChangesWhileShowing {
                        if case .failure(let error) = read { controller.couldNotRead(error, keeping: album) }
                    }
                    return
                }
                let later = controller.showsAfterTheNextFrame ?? { $0() }
                later { [weak controller] in
                    guard let controller, !controller.isClosed else { return }
                    controller.applyChangesWhileShowing {
                        // (An album opened meanwhile stays open: only the list is read again.)
                        if controller.currentAlbum == nil {
                            controller.show(read)
                        } else {
                            do { try controller.reloadAlbums() } catch { DeveloperLog.say("cannot read the albums: \(error)") }
                        }
                    }
                }
            }
        }
        // (Only a closed controller's workers refuse work.)
        if !submitted { changesWhileShowing = nil }
    }

    private func couldNotRead(_ error: Error, keeping album: Album) {
        if currentAlbum == nil { currentAlbum = album }
        DeveloperLog.say("cannot read the albums: \(error)")
        publish(.problem(i18n("The albums cannot be read")))
    }

    /// Shows the scanned library (`show`), then applies the changes that came meanwhile. (The
    /// library is no longer coming as it is shown: an empty one says so.)
    private func applyChangesWhileShowing(after show: () -> Void) {
        let changes = changesWhileShowing ?? []
        changesWhileShowing = nil
        show()
        for change in changes { apply(change) }
    }
}
