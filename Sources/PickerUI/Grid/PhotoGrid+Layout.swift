// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel
import Thumbnails

/// The grid's cells: their size, the columns that fit, the display's scale, zooming.
extension PhotoGrid {
    /// Changes the thumbnail size; bound cells resize and, when the needed flavour changes,
    /// request the larger thumbnail.
    func setCellSize(_ size: Int) {
        let clamped = min(max(size, Self.cellSizes.first!), Self.cellSizes.last!)
        guard clamped != cellSize else { return }
        let oldFlavor = flavor
        cellSize = clamped
        prefetcher = Prefetcher(loader: loader, flavor: flavor)
        for cell in cells.compactMap(\.cell) {
            cell.resize(to: clamped)
            if flavor != oldFlavor { cell.reloadPicture() }
        }
        fitColumns()
        gtk_widget_queue_resize(grid)
        onCellSizeChanged?(clamped)
    }

    /// As many columns as cells of the chosen size fit in the width (GtkGridView keeps 30 rows of
    /// max-columns cells alive: the maximum is what fits, not more). Never call it from inside a
    /// layout pass: see the hadjustment handler.
    func fitColumns() {
        guard let adjustment = gtk_scrolled_window_get_hadjustment(scroller.opaque) else { return }
        followScaleFactor()
        let width = Int(gtk_adjustment_get_page_size(adjustment))
        guard width > 0 else { return }
        let columns = max(1, min(60, width / (cellSize + Style.cellGap)))
        if gtk_grid_view_get_max_columns(grid.opaque) != guint(columns) { gtk_grid_view_set_max_columns(grid.opaque, guint(columns)) }
        // Columns share the width: a cell is drawn a little larger than the chosen size.
        let shown = max(1, width / columns - Style.cellGap)
        if shown != shownCellSize {
            let oldFlavor = flavor
            shownCellSize = shown
            if flavor != oldFlavor { cells.compactMap(\.cell).forEach { $0.reloadPicture() } }
        }
    }

    /// The scale of the display's first monitor: the grid's own is known only once it is shown.
    static var likelyScaleFactor: Int {
        guard let display = gdk_display_get_default(), let monitors = gdk_display_get_monitors(display),
              g_list_model_get_n_items(monitors) > 0, let monitor = g_list_model_get_item(monitors, 0) else { return 1 }
        defer { g_object_unref(monitor) }
        return max(1, min(8, Int(gdk_monitor_get_scale_factor(OpaquePointer(monitor)))))
    }

    /// Takes the grid's scale factor; cells ask again for the flavour that covers them.
    func followScaleFactor() {
        let factor = max(1, min(8, Int(gtk_widget_get_scale_factor(grid))))
        guard factor != scale else { return }
        let oldFlavor = flavor
        scale = factor
        prefetcher = Prefetcher(loader: loader, flavor: flavor)
        if flavor != oldFlavor { cells.compactMap(\.cell).forEach { $0.rebind() } }
    }

    /// The side of a cell as drawn, in device pixels: what a thumbnail must cover.
    var cellPixels: Int { max(shownCellSize, cellSize) * scale }

    func zoom(by steps: Int) {
        let index = Self.cellSizes.firstIndex { $0 >= cellSize } ?? 2
        setCellSize(Self.cellSizes[min(max(index + steps, 0), Self.cellSizes.count - 1)])
    }
}
