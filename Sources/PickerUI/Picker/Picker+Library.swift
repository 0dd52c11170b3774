// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel
import Thumbnails

/// The library behind the grid, through the controller: changes applied with exact positions and
/// the scan that keeps the index current while the window is open, with its progress line.
extension Picker {
    /// Applies a library change to the open album (exact positions) and drops deleted picks.
    public func apply(_ change: LibraryChange) {
        controller.apply(change)
    }

    /// Brings the index up to date in the background; the grid fills as files are indexed.
    public func startScan() {
        controller.startScan()
        scanIsDue = false
        updateEmptyState()
    }

    /// Wires the controller's news to the widgets (each runs on the GTK thread).
    func listenToController() {
        controllerObservation = controller.observe { [weak self] event in
            guard let self else { return }
            switch event {
            case .albumsChanged: self.albumsChanged()
            case .albumOpening: self.albumOpening()
            case .albumOpened: self.albumOpened()
            case .newestKnown(let paths): self.photoGrid.makeThumbnailsEarly(for: paths)
            case .contentWillChange: self.photoGrid.noteFocusBeforeChange()
            case .contentChanged:
                self.photoGrid.contentChanged()
                self.photoGrid.followFocusAfterChange()
                self.updateEmptyState()
                self.refreshTimeline()
                self.goToWantedDate()
                self.photoGrid.focusFirstPhotoIfStillWanted()
            case .scanProgress(let progress, let expected): self.showProgress(progress, expected: expected)
            case .scanFinished:
                self.showIndexing(false)
                self.updateEmptyState()
            case .problem(let problem): self.report(problem)
            case .anchorMoved(let from, let to): self.photoGrid.keepAnchor(from: from, to: to)
            case .newerAbove(let count): self.announceNewer(count)
            case .captureShown(let id): self.focusAsset(id)
            case .notice(let notice):
                self.notices.append(notice)
                self.showToast(notice)
            case .offlineChanged:
                // (Rare, and about whole folders: the bound cells look again; a local one that
                // went or came back is asked for its picture again: its file is, or is not, there.)
                let changed = self.controller.service.offlineRoots.keys.filter { !$0.isLocationURI } + self.localOffline
                self.localOffline = self.controller.service.offlineRoots.keys.filter { !$0.isLocationURI }
                let under = { (asset: Asset) in changed.contains { asset.path.relative(to: $0) != nil } }
                for cell in self.cells.compactMap(\.cell) {
                    cell.redecorate(askingAgainIf: { asset in
                        guard under(asset) else { return false }
                        self.controller.forgetFileProblem(of: asset.id)
                        return true
                    })
                }
                self.dismissAnsweredFolders()
                self.updateEmptyState()
                self.mountOfflineFoldersAsking()
            case .folderOffline(let folder, let message):
                self.offlineToasts[folder] = self.report(message)
            }
        }
        controller.anchorAsset = { [weak self] in self?.photoGrid.assetAtTop() }
    }

    /// "Indexing 40 %" in the header, the counts in its tooltip: first every file is found and
    /// dated (the grid waits), then the details are read (the grid is shown).
    func showProgress(_ progress: ScanProgress, expected: Int) {
        let total = max(expected, progress.filesSeen)
        let done: Int, detail: String
        if !progress.datesKnown {
            // The first pass is most of the wait before photos appear: its share of the bar is half.
            done = total > 0 ? progress.filesIndexed * 50 / total : 0
            detail = i18n("Finding photos: {done} of {total} files",
                          ["done": Localization.number(progress.filesIndexed), "total": Localization.number(total)])
        } else {
            let toRead = max(progress.filesToComplete, progress.filesCompleted)
            done = 50 + (toRead > 0 ? progress.filesCompleted * 50 / toRead : 50)
            detail = i18n("Reading photo details: {done} of {total}",
                          ["done": Localization.number(progress.filesCompleted), "total": Localization.number(toRead)])
        }
        // Translators: the header while indexing; {percent} is a number from 0 to 99.
        gtk_label_set_text(progressLabel.opaque, i18n("Indexing {percent}%", ["percent": String(min(done, 99))]))
        setTooltip(progressLabel, detail)
        showIndexing(!progress.finished)
        // The empty grid of a first run says how far the dating is.
        let dating = progress.datesKnown || progress.finished ? nil : (done: progress.filesIndexed, total: total)
        if dating.map({ ($0.done, $0.total) }) ?? (-1, -1) != datingProgress.map({ ($0.done, $0.total) }) ?? (-1, -1) {
            datingProgress = dating
            if controller?.scannedLibraryIsComing == true { updateEmptyState() }
        }
    }

    /// The indexing progress fades in and out; hidden, it takes no room in the header (a narrow
    /// window's minimum is the header's words).
    func showIndexing(_ shown: Bool) {
        if shown { gtk_widget_set_visible(progress, 1) }
        gtk_revealer_set_reveal_child(progress.opaque, shown ? 1 : 0)
    }

    func announceNewer(_ count: Int) {
        let words = ni18n("{count} newer photo", "{count} newer photos", count)
        gtk_label_set_text(newerPhotosLabel.opaque, words)
        // (GTK 4.8 names a button by its label only when the label is its child: "GtkButton".)
        if let button = gtk_revealer_get_child(newerPhotos.opaque) { photopick_accessible_set_label(button, words) }
        gtk_revealer_set_reveal_child(newerPhotos.opaque, count > 0 ? 1 : 0)
        photoGrid?.warmArrivals()  // (none before the picker is built: an empty picker announces 0)
    }

    /// The way up: the top of the album, where the newest photos are.
    public func showNewerPhotos() {
        if let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque) { gtk_adjustment_set_value(adjustment, 0) }
        controller.sawNewest()
    }

    var newerPhotosShown: Bool { gtk_revealer_get_reveal_child(newerPhotos.opaque) != 0 }
    var newerPhotosText: String? { gtk_label_get_text(newerPhotosLabel.opaque).map { String(cString: $0) } }
}
