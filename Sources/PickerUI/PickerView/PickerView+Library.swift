import CGtk
import GObjectSupport
import Foundation
import PhotoLibrary
import PickerModel
import Thumbnails

/// The library behind the grid, through the controller: changes applied with exact positions and
/// the scan that keeps the index current while the window is open, with its progress line.
extension PickerView {
    /// Applies a library change to the open album (exact positions) and drops deleted picks.
    public func apply(_ change: LibraryChange) {
        controller.apply(change)
    }

    /// Brings the index up to date in the background; the grid fills as files are indexed.
    public func startScan() {
        controller.startScan()
        updateEmptyState()
    }

    /// Wires the controller's news to the widgets (each runs on the GTK thread).
    func listenToController() {
        controller.onAlbumsChanged = { [weak self] in self?.albumsChanged() }
        controller.onAlbumOpened = { [weak self] in self?.albumOpened() }
        controller.onContentChanged = { [weak self] in
            self?.updateEmptyState()
            self?.focusFirstPhotoIfStillWanted()
        }
        controller.onScanProgress = { [weak self] progress, expected in self?.showProgress(progress, expected: expected) }
        controller.onScanFinished = { [weak self] in
            guard let self else { return }
            gtk_revealer_set_reveal_child(self.progress.opaque, 0)
            self.updateEmptyState()
        }
        controller.onProblem = { [weak self] problem in self?.report(problem) }
        controller.model.onAssetsUpdated = { [weak self] ids in
            self?.cells.compactMap(\.cell).filter { $0.assetID.map(ids.contains) == true }.forEach { $0.refresh() }
        }
    }

    /// "Indexing 40 %" in the header, the counts in its tooltip: first every file is found and
    /// dated (the grid waits), then the details are read (the grid is shown).
    func showProgress(_ progress: ScanProgress, expected: Int) {
        let total = max(expected, progress.filesSeen)
        let done: Int, detail: String
        if !progress.datesKnown {
            // The first pass is most of the wait before photos appear: its share of the bar is half.
            done = total > 0 ? progress.filesIndexed * 50 / total : 0
            detail = "Finding photos: \(groupedDigits(progress.filesIndexed)) of \(groupedDigits(total)) files"
        } else {
            let toRead = max(progress.filesToComplete, progress.filesCompleted)
            done = 50 + (toRead > 0 ? progress.filesCompleted * 50 / toRead : 50)
            detail = "Reading photo details: \(groupedDigits(progress.filesCompleted)) of \(groupedDigits(toRead))"
        }
        gtk_label_set_text(progressLabel.opaque, "Indexing \(min(done, 99)) %")
        gtk_widget_set_tooltip_text(progressLabel, detail)
        gtk_revealer_set_reveal_child(self.progress.opaque, progress.finished ? 0 : 1)
    }
}
