// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import Camera
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel
import Thumbnails

/// The grid's cells: made and given their gestures here, as Nautilus' grid view does; a cell
/// itself only shows (GridCell) and asks the grid for what it shows through `CellHost`. What a
/// gesture means for the picks is the picker's (onToggle, onOpen, dragContent).
extension PhotoGrid {
    func setUpCell(_ listItem: OpaquePointer) {
        let cell = GridCell(host: self)
        // (The cells gone are taken out once the list has doubled: at every new cell, that was
        // a weak load per cell for each of the 250 a grid makes.)
        if cells.count >= max(64, 2 * cellsAfterPruning) {
            cells.removeAll { $0.cell == nil }
            cellsAfterPruning = cells.count
        }
        cells.append(WeakCell(cell: cell))
        if StartupTrace.isOn && (cells.count == 1 || cells.count % 50 == 0) { StartupTrace.mark("grid: \(cells.count) cells made") }
        cell.listItem = listItem
        gtk_list_item_set_child(listItem, cell.root)
        addGestures(to: cell)
    }

    func unbind(_ listItem: OpaquePointer) {
        guard let cell = cell(listItem) else { return }
        cell.unbind()
        // GTK tears every cell down when the grid leaves its window (GtkListItemWidget's unroot,
        // a host removing the picker: unbound there, then taken out by the teardown). The cell
        // is destroyed in later turns instead (LaterRelease): it is no longer the grid's, and
        // its list item goes now, which takes it out of `cells` (WeakCell). (Removed from the
        // list here, one by one, the 250 cells cost 8 ms of the host's turn in weak loads.)
        if gtk_widget_get_root(cell.root) == nil {
            cell.listItem = nil
            LaterRelease.hold(cell.root)
        }
    }

    func cell(_ listItem: OpaquePointer) -> GridCell? {
        GridCell.of(gtk_list_item_get_child(listItem))
    }

    /// The bound cell showing `id`, if any.
    func cell(showing id: Int64) -> GridCell? {
        cells.lazy.compactMap(\.cell).first { $0.assetID == id }
    }

    /// One click picks or unpicks; a double click undoes that and opens the preview; a drag hands
    /// the photo (or every pick) to another app. The handlers hold the grid and the cell weakly.
    private func addGestures(to cell: GridCell) {
        /// The pick number before the first press of a double click or a drag (restored after).
        final class PressState { var numberBefore: Int? }
        let press = PressState()
        let click = gtk_gesture_click_new()!
        Signal.connect(click.raw, "pressed", presses: { [weak self, weak cell] presses in
            guard let self, let cell, let position = cell.position else { return }
            // A press on the cell's own button (a copy's cancel or retry) is the button's: GtkButton
            // claims its press only when released, after this gesture would have toggled the pick.
            var x = 0.0, y = 0.0
            if gtk_gesture_get_point(OpaquePointer(click.raw), nil, &x, &y) != 0, cell.hasButton(atX: x, y: y) { return }
            let shift = gtk_event_controller_get_current_event_state(OpaquePointer(click.raw)).rawValue & GDK_SHIFT_MASK.rawValue != 0
            if presses == 1, shift, let onRange = self.onRange {
                press.numberBefore = nil
                onRange(position)
            } else if presses == 1 {
                press.numberBefore = cell.assetID.flatMap { self.selection.number(of: $0) }
                // Until the press ends, as a click or a drag that undoes it, the pick's copy
                // neither starts nor stops.
                self.controller.holdFetches()
                self.onToggle?(position)
            } else if presses == 2 {
                // The first press is undone: a picked photo keeps its place in the order.
                self.undoPress(on: cell, at: position, numberBefore: press.numberBefore)
                self.onOpen?(position)
            }
        })
        // (Also when a drag began: GTK then resets the click, after the drag's prepare.)
        Signal.connectEnd(click.raw) { [weak self] in self?.controller.releaseFetches() }
        gtk_widget_add_controller(cell.root, OpaquePointer(click.raw))
        let drag = gtk_drag_source_new()!
        gtk_drag_source_set_actions(drag, GDK_ACTION_COPY)
        Signal.connect(drag.raw, "prepare", prepare: { [weak self, weak cell] in
            guard let self, let cell, let id = cell.assetID, let position = cell.position else { return nil }
            // The press that began the drag picked or unpicked the photo: a drag is not a
            // click, so that is undone first (the photo keeps its number).
            if self.selection.number(of: id) != press.numberBefore {
                self.undoPress(on: cell, at: position, numberBefore: press.numberBefore)
            }
            // The photo under the pointer, with the count when every pick goes.
            let count = self.selection.number(of: id) != nil ? self.selection.count : 1
            if let photo = gtk_picture_get_paintable(cell.picture.opaque),
               let icon = DragIcon.make(photo, count: count, on: cell.root) {
                gtk_drag_source_set_icon(drag, icon.paintable, icon.hotX, icon.hotY)
                g_object_unref(UnsafeMutableRawPointer(icon.paintable))
            }
            return self.dragContent?(id)
        })
        gtk_widget_add_controller(cell.root, OpaquePointer(drag.raw))
    }

    /// Toggles back what a press toggled, and puts a pick back at the number it had.
    private func undoPress(on cell: GridCell, at position: Int, numberBefore: Int?) {
        onToggle?(position)
        if let number = numberBefore, let id = cell.assetID,
           let now = selection.picked.firstIndex(of: id), now != number - 1 {
            selection.move(from: now, to: number - 1)
        }
    }
}

extension PhotoGrid: CellHost {
    func toggle(at position: Int) { onToggle?(position) }

    func row(_ id: Int64) -> RowLookup { controller.row(id) }

    func pickState(of id: Int64) -> SelectionStore.PickState { selection.state(of: id) }

    func observePick(_ id: Int64, _ handler: @escaping (SelectionStore.PickState) -> Void) -> Subscription {
        selection.observe(id, handler)
    }

    func observeRow(_ id: Int64, _ handler: @escaping () -> Void) -> Subscription {
        model.observeRow(id, handler)
    }

    func fetchState(of id: Int64) -> FetchStore.State? { controller.fetches.state(of: id) }

    func observeFetch(_ id: Int64, _ handler: @escaping (FetchStore.State?) -> Void) -> Subscription {
        controller.fetches.observe(id, handler)
    }

    func defersPicture(of asset: Asset, at position: Int) -> Bool {
        // (Before the view is laid out, the album opens at its top: its first two screens ask.
        // GtkGridView's first layout binds 30 rows before the cells in sight are known.)
        let size = expectedSize ?? (960, 720)
        let band = pictureBand ?? 0..<(2 * firstScreenCells(width: size.width, height: size.height))
        guard !band.contains(position) else { return false }
        return loader.memoryHit(asset.path, flavor: flavor, size: asset.version.size,
                                modificationTimeNanoseconds: asset.version.modificationTimeNanoseconds) == nil
    }

    func picture(for asset: Asset, _ deliver: @escaping (CellPicture) -> Void) -> ThumbnailRequest? {
        if let hit = loader.memoryHit(asset.path, flavor: flavor, size: asset.version.size,
                                      modificationTimeNanoseconds: asset.version.modificationTimeNanoseconds),
           let pixbuf = hit.pixbuf {
            // In memory already: drawn in this frame.
            controller.pictureCame(for: asset, failure: nil)
            deliver(.picture(pixbuf))
            return nil
        }
        return loader.request(asset.path, flavor: flavor, cellPixels: cellPixels, size: asset.version.size) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let thumbnail):
                controller.pictureCame(for: asset, failure: nil)
                if let pixbuf = thumbnail.pixbuf {
                    deliver(.picture(pixbuf))
                } else {
                    // (A remote video has its icon whether a thumbnailer is installed or not.)
                    if !asset.path.isLocationURI { onNoVideoThumbnailer?() }
                    deliver(.videoIcon)
                }
            case .failure(let failure):
                // (Whether it can be picked is the controller's rule; the cell says why not.)
                guard let problem = controller.pictureCame(for: asset, failure: failure) else { return deliver(.none) }
                // The person reads the cell's words; whoever started the program reads why (a
                // file judged damaged cannot be picked: CI's keyboard tests then show the cause).
                // A file deleted meanwhile is no one's problem (a folder emptied: a line a file).
                if problem != .gone { DeveloperLog.sayOnce("\(asset.path): cannot be picked: \(failure.description)") }
                deliver(.problem(CellProblem(problem), detail: failure.description))
            }
        }
    }

    func problem(of id: Int64) -> CellProblem? { controller.fileProblem(of: id).map(CellProblem.init) }

    func isRemote(_ asset: Asset) -> Bool { controller.isRemote(asset.path) }

    func isOffline(_ asset: Asset) -> Bool { controller.isOffline(asset.path) }

    var cellSide: Int { cellSize }

    var camera: CameraStore? { controller.camera }
}
