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
    }

    func showProgress(_ progress: ScanProgress, expected: Int) {
        let total = max(expected, progress.filesSeen)
        gtk_label_set_text(progressLabel.opaque, "Indexing your library: \(groupedDigits(progress.filesIndexed)) of \(groupedDigits(total)) files")
        gtk_revealer_set_reveal_child(self.progress.opaque, progress.finished ? 0 : 1)
    }
}
