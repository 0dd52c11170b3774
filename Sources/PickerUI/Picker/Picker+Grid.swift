// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import PhotoLibrary

/// What the picker asks of its grid (Grid/PhotoGrid), for the widget and the tests. (Between
/// two libraries there is no grid: what a posted callback asks then does nothing.)
extension Picker {
    /// Changes the thumbnail size; bound cells resize and, when the needed flavour changes,
    /// request the larger thumbnail.
    public func setCellSize(_ size: Int) { photoGrid?.setCellSize(size) }

    func zoom(by steps: Int) { photoGrid?.zoom(by: steps) }

    /// Puts the keyboard focus on the first photo (after the camera slot), or on the first to
    /// arrive.
    public func focusFirstPhoto() { photoGrid?.focusFirstPhoto() }

    /// The keyboard focus into the grid: back on the photo it was last on when `returning`.
    func focusGrid(returning: Bool) { photoGrid?.focusGrid(returning: returning) }

    /// Scrolls to the asset and gives it the keyboard focus (a capture, now first in the grid).
    public func focusAsset(_ id: Int64) { photoGrid?.focusAsset(id) }

    /// Scrolls to the asset and puts the grid's cursor on it, without taking the focus.
    func revealAsset(_ id: Int64) -> Bool { photoGrid?.revealAsset(id) ?? false }

    /// Loads the first screen's thumbnails before the window first shows (PhotoGrid+FirstScreen).
    public func preloadFirstScreen(width: Int, height: Int, timeout: Double = 0.1) {
        photoGrid.preloadFirstScreen(width: width, height: height, timeout: timeout)
    }

    /// Until the window's first frame is drawn, the grid makes cells for the first screen only.
    public func holdCellsBeyondFirstScreen(width: Int, height: Int, timeout: guint = 500) {
        photoGrid.holdCellsBeyondFirstScreen(width: width, height: height, timeout: timeout)
    }

    /// The whole album in the grid at once (where a position beyond the first screen is needed).
    func releaseCellsBeyondFirstScreen() { photoGrid?.releaseCellsBeyondFirstScreen() }

    /// Whether a first run's grid waits, hidden, for its first screen's thumbnails.
    var firstScreenIsHeld: Bool { photoGrid.firstScreenIsHeld }

    /// The bound cell showing `id`, if any.
    func cell(showing id: Int64) -> GridCell? { photoGrid?.cell(showing: id) }
}
