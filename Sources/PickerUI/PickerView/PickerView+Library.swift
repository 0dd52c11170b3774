import CGtk
import GObjectSupport
import Dispatch
import Foundation
import PhotoLibrary
import PickerModel
import Thumbnails

/// The library behind the grid: changes applied with exact positions (worked out off the GTK
/// thread) and the scan that keeps the index current while the window is open.
extension PickerView {
    /// Applies a library change to the open album (exact positions) and drops deleted picks.
    /// The positions are worked out on another thread (it reads the album's ids: a million for a
    /// big library), one change at a time; changes that arrive meanwhile are merged and follow.
    public func apply(_ change: LibraryChange) {
        guard isAlive else { return }
        selection.remove(change.removed)
        if change.foldersChanged { try? showAlbums() }
        pendingChange.merge(change)
        computeNextChange()
    }


    func computeNextChange() {
        guard !computingChange, !pendingChange.isEmpty, let base = model.fetchResult else {
            updateEmptyState()
            return
        }
        let change = pendingChange
        pendingChange = LibraryChange()
        computingChange = true
        let library = self.library
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let details = try? library.changeDetails(for: base, after: change)
            MainLoopDispatcher.shared.post {
                self.computingChange = false
                guard self.isAlive else { return }
                // An album switched meanwhile is already current: its fetch saw this change.
                if let details, self.model.fetchResult === base {
                    self.model.apply(details)
                    self.focusFirstPhotoIfStillWanted()
                }
                self.computeNextChange()
            }
        }
    }

    /// Brings the index up to date in the background: on a first run the grid fills as files are
    /// indexed, with a progress line; later runs pick up what changed since. Nothing waits.
    public func startScan() {
        scanning = true
        updateEmptyState()
        let library = self.library
        let firstRun = library.isEmpty
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            // Counting the files reads every folder: never on the GTK thread.
            let expected = firstRun ? library.countFiles() : 0
            var lastShown = 0.0
            // Commits are merged and handed to the grid at most twice a second, so a first scan
            // does not keep the GTK thread busy with hundreds of small changes.
            var pending = LibraryChange()
            var lastPosted = 0.0
            func post(now: Double) {
                guard !pending.isEmpty else { return }
                let change = pending
                pending = LibraryChange()
                lastPosted = now
                MainLoopDispatcher.shared.post { self.apply(change) }
            }
            var failure: String?
            do {
                try library.scan(progress: { progress in
                    if progress.elapsedSeconds - lastPosted >= 0.5 { post(now: progress.elapsedSeconds) }
                    guard firstRun, progress.elapsedSeconds - lastShown > 0.25 || progress.finished else { return }
                    lastShown = progress.elapsedSeconds
                    MainLoopDispatcher.shared.post { if self.isAlive { self.showProgress(progress, expected: expected) } }
                }, committed: { change in
                    pending.merge(change)
                })
            } catch {
                failure = "Indexing stopped: \(error)"
            }
            post(now: 0)
            MainLoopDispatcher.shared.post {
                guard self.isAlive else { return }
                if let failure { self.report(failure) }
                self.scanning = false
                gtk_revealer_set_reveal_child(self.progress.opaque, 0)
                self.updateEmptyState()
            }
        }
    }

    func showProgress(_ progress: ScanProgress, expected: Int) {
        let total = max(expected, progress.filesSeen)
        gtk_label_set_text(progressLabel.opaque, "Indexing your library: \(groupedDigits(progress.filesIndexed)) of \(groupedDigits(total)) files")
        gtk_revealer_set_reveal_child(self.progress.opaque, progress.finished ? 0 : 1)
    }
}
