// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import PhotoLibrary
import PickerModel
import Thumbnails

/// Albums: the switcher's list, the open album and how it is remembered.
extension Picker {
    /// Fills the album switcher (counts read now) and opens `album`.
    public func showAlbums(selecting album: Album? = nil) throws {
        try controller.reloadAlbums(selecting: album)
    }

    func albumChosen(_ album: Album) {
        controller.open(album)
    }

    /// The controller's album list or open album changed: the switcher follows.
    func albumsChanged() {
        guard let current = controller.currentAlbum else { return }
        switcher.show(controller.albums, current: current)
    }

    /// The grid is about to hold another album: once it is shown, its next frame is made with
    /// the top half of the rows in sight, and the rest come a row a frame (as after the window's
    /// first frame, holdCellsBeyondFirstScreen). All the rows in sight in one frame were its
    /// cells made in 12-13 ms and a frame of 18 ms, in a host's window (issue 38, point 6).
    func albumOpening() {
        guard gtk_widget_get_mapped(grid) != 0 else { return }
        let height = Int(gtk_widget_get_height(scroller))
        photoGrid.holdCellsBeyondFirstScreen(width: Int(gtk_widget_get_width(scroller)), height: height,
                                             rows: photoGrid.halfTheRowsInSight(height: height))
    }

    /// The grid holds another album now.
    func albumOpened() {
        photoGrid.albumOpened()
        photoGrid.keepFocusInWindow()
        // The grid is a table to a screen reader, named for its album ("GtkGridView" before).
        if let album = controller.currentAlbum, let name = controller.albums.first(where: { $0.album == album })?.displayName {
            photopick_accessible_set_label(grid, name)
        }
        refreshTimeline(opened: true)
        goToWantedDate()
        followOpenAlbum()
        updateEmptyState()
        // A first run's album opens once every date is known: the focus waiting for it goes in.
        photoGrid.focusFirstPhotoIfStillWanted()
    }

    /// The album as remembered between runs: a smart album's name or a folder's path.
    var albumKey: String? { controller.albumKey }

    func album(forKey key: String) -> Album? { controller.album(forKey: key) }
}
