// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
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
        controllerObservation = controller.observe { [weak self] event in
            guard let self else { return }
            switch event {
            case .albumsChanged: self.albumsChanged()
            case .albumOpening: self.albumOpening()
            case .albumOpened: self.albumOpened()
            case .newestKnown(let paths): self.makeThumbnailsEarly(for: paths)
            case .contentChanged:
                self.updateEmptyState()
                self.focusFirstPhotoIfStillWanted()
            case .scanProgress(let progress, let expected): self.showProgress(progress, expected: expected)
            case .scanFinished:
                gtk_revealer_set_reveal_child(self.progress.opaque, 0)
                self.updateEmptyState()
            case .problem(let problem): self.report(problem)
            case .anchorMoved(let from, let to): self.keepAnchor(from: from, to: to)
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
        controller.anchorAsset = { [weak self] in self?.assetAtTop() }
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
        gtk_revealer_set_reveal_child(self.progress.opaque, progress.finished ? 0 : 1)
    }

    // MARK: Photos arriving above the view

    /// The asset at the top of the view: the first cell at least half in sight. Nil at the very
    /// top, where what arrives should simply be seen first. What is needed to keep it there is
    /// remembered: the scroll position and the grid's columns and row height, from the cells.
    func assetAtTop() -> Int64? {
        anchor = nil
        guard let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque), gtk_adjustment_get_value(adjustment) > 0 else { return nil }
        var best: (position: Int, id: Int64)?
        var columns: Set<Int> = [], rows: Set<Int> = []
        for cell in cells.compactMap(\.cell) {
            guard let position = cell.position, let id = cell.assetID, let (x, y) = place(of: cell) else { continue }
            columns.insert(Int(x.rounded()))
            rows.insert(Int(y.rounded()))
            guard y + Double(gtk_widget_get_height(cell.root)) / 2 >= 0 else { continue }
            if best == nil || position < best!.position { best = (position, id) }
        }
        let tops = rows.sorted()
        guard let best, tops.count >= 2 else { return nil }
        anchor = Anchor(position: best.position, value: gtk_adjustment_get_value(adjustment),
                        columns: max(1, columns.count), rowHeight: Double(tops[1] - tops[0]))
        return best.id
    }

    /// A cell's place in the scrolled window, when it is on screen.
    private func place(of cell: GridCell) -> (x: Double, y: Double)? {
        guard gtk_widget_get_mapped(cell.root) != 0 else { return nil }
        var x = 0.0, y = 0.0
        return gtk_widget_translate_coordinates(cell.root, scroller, 0, 0, &x, &y) != 0 ? (x, y) : nil
    }

    /// Keeps the asset at the top on its row: the view moves by as many rows as the asset did.
    /// GtkGridView keeps an anchor of its own, near the middle of the view, and reflows around
    /// that as it lays the grid out again; this runs after that layout and before the frame is
    /// drawn, so the person never sees the grid move.
    func keepAnchor(from: Int, to: Int) {
        guard var anchor, anchor.position == from, let clock = gtk_widget_get_frame_clock(grid) else { self.anchor = nil; return }
        anchor.target = anchor.value + Double(to / anchor.columns - from / anchor.columns) * anchor.rowHeight
        self.anchor = anchor
        if anchorLayoutHandler == 0 {
            anchorLayoutHandler = Signal.connect(UnsafeMutableRawPointer(clock), "layout", after: true) { [weak self] in
                self?.restoreAnchor()
            }
            // Held until the view goes, so the handler can be disconnected from a live object.
            anchorClock = GObjectRef(UnsafeMutableRawPointer(clock), transfer: .none)
        }
        gtk_widget_queue_allocate(grid)
    }

    private func restoreAnchor() {
        guard let target = anchor?.target, let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque) else { return }
        anchor = nil
        if abs(gtk_adjustment_get_value(adjustment) - target) >= 0.5 { gtk_adjustment_set_value(adjustment, target) }
    }

    func announceNewer(_ count: Int) {
        gtk_label_set_text(newerPhotosLabel.opaque, ni18n("{count} newer photo", "{count} newer photos", count))
        gtk_revealer_set_reveal_child(newerPhotos.opaque, count > 0 ? 1 : 0)
    }

    /// The way up: the top of the album, where the newest photos are.
    public func showNewerPhotos() {
        if let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque) { gtk_adjustment_set_value(adjustment, 0) }
        controller.sawNewest()
    }

    var newerPhotosShown: Bool { gtk_revealer_get_reveal_child(newerPhotos.opaque) != 0 }
    var newerPhotosText: String? { gtk_label_get_text(newerPhotosLabel.opaque).map { String(cString: $0) } }
}
