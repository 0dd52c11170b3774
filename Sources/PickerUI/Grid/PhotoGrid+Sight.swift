// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel
import Thumbnails

/// What is in sight: scrolling, the thumbnails in sight first and those next warmed, the focus on
/// a photo, and the photo at the top kept in place while photos arrive above it.
extension PhotoGrid {
    /// Warms the thumbnails of the next screen in the direction of scrolling.
    func scrolled() {
        if let metrics { metrics.measureScroll { prefetchAroundView() } } else { prefetchAroundView() }
        // GtkGridView keeps cells bound well beyond the view: the camera streams only while its
        // cell is actually in sight.
        for cell in cells.compactMap(\.cell) { cell.camera?.updateViewing() }
        // Back at the top, the newest photos are in sight: nothing newer waits above.
        if controller.newerAbove > 0, let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque),
           gtk_adjustment_get_value(adjustment) <= 0 {
            controller.sawNewest()
        }
    }

    /// Whether the first row (the camera's) is at least partly in view.
    var cameraSlotInView: Bool {
        guard model.showsCamera, let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque) else { return false }
        return gtk_adjustment_get_value(adjustment) < Double(max(shownCellSize, cellSize) + Style.cellGap)
    }

    func prefetchAroundView() {
        // Before the grid is laid out its page is empty: the cells in sight are not known yet (a
        // range worked out then named one cell, and put the first screen's early jobs behind
        // the rows bound below it). The view tries again once GTK has laid it out.
        guard let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque),
              gtk_adjustment_get_page_size(adjustment) > 0, gtk_widget_get_width(grid) > 1 else { return }
        let width = max(1, Int(gtk_widget_get_width(grid)))
        let cellSpan = max(shownCellSize, cellSize) + Style.cellGap
        let columns = max(1, width / cellSpan)
        let firstRow = Int(gtk_adjustment_get_value(adjustment)) / cellSpan
        let rows = Int(gtk_adjustment_get_page_size(adjustment)) / cellSpan + 1
        let visible = (firstRow * columns)..<min(model.count, (firstRow + rows) * columns)
        guard !visible.isEmpty else { return }
        // The rows of the cells GTK may bind next, in one query instead of one per cell: GtkGridView
        // keeps about 30 rows of cells around the view and binds them as they enter that band.
        let band = 16 * columns
        let ahead = max(0, visible.lowerBound - band)..<min(model.count, visible.upperBound + band)
        controller.readRows(at: ahead)
        askForDeferredPictures(near: visible, screen: rows * columns)
        if visible != inSight {
            inSight = visible
            let paths = visible.compactMap { controller.path(at: $0) }
            loader.putFirst(paths, flavor: flavor)
            narrowFirstScreenGate(to: paths)
        }
        if prefetcher == nil { prefetcher = Prefetcher(loader: loader, flavor: flavor) }
        prefetcher?.update(visible: visible, count: model.count) { [controller] position in controller.path(at: position) }
    }

    /// The cells bound within a screen of the view ask for their pictures; those farther wait
    /// until the view comes near (GridCell.deferred). GtkGridView binds 30 rows of cells around
    /// the view: each read its thumbnail into memory, 289 at a warm start of 660 real photos
    /// (35 in sight), about 12 MB of the window's memory before anybody scrolled (issue 42).
    /// The prefetch warms the next screen in the direction of scrolling, as before.
    func askForDeferredPictures(near visible: Range<Int>, screen: Int) {
        let band = max(0, visible.lowerBound - screen)..<(visible.upperBound + screen)
        guard band != pictureBand else { return }
        pictureBand = band
        for cell in cells.compactMap(\.cell) where cell.deferred {
            if let position = cell.position, band.contains(position) { cell.askForDeferredPicture() }
        }
    }

    /// Photos came or went: bound cells may have moved nearer the view without it moving (a
    /// deletion above it), and those deferred ask again once it is laid out.
    func contentChanged() {
        pictureBand = nil
        inSightFirst.schedule(priority: G_PRIORITY_HIGH_IDLE + 30) { [weak self] in self?.prefetchAroundView() }
    }

    /// The thumbnails of the photos held above the view (the "newer photos" banner), a screen of
    /// them, the newest first, after what is in sight: going up shows them drawn. (They came in
    /// grey for 2-4 s: issue 40, point 18.) Called again as more arrive; none held, none warmed.
    func warmArrivals() {
        let width = max(1, Int(gtk_widget_get_width(grid)))
        let cellSpan = max(shownCellSize, cellSize) + Style.cellGap
        let screen = max(1, width / cellSpan) * (Int(gtk_widget_get_height(scroller)) / cellSpan + 1)
        warmingGeneration += 1
        let generation = warmingGeneration
        controller.newestHeldArrivals(screen) { [weak self] arrivals in
            // (Only the newest answer: the banner may have grown or gone meanwhile.)
            guard let self, generation == self.warmingGeneration else { return }
            self.warmingArrivals = arrivals.map { asset in
                (asset.id, self.loader.request(asset.path, flavor: self.flavor, size: asset.version.size, priority: .prefetch) { _ in })
            }
        }
    }

    /// The grid holds another album now: once GTK has laid it out and its cells asked for their
    /// thumbnails, those in sight are made first.
    func albumOpened() {
        prefetcher?.reset()
        inSight = nil
        // (Until the new album is laid out, every cell asks for its picture.)
        pictureBand = nil
        inSightFirst.schedule(priority: G_PRIORITY_HIGH_IDLE + 30) { [weak self] in self?.prefetchAroundView() }
    }

    /// Puts the keyboard focus on the first photo (after the camera slot).
    /// On a first run the grid is empty when the window opens: the first photo takes the focus
    /// when it arrives (unless the person has put the focus somewhere meanwhile).
    func focusFirstPhoto() {
        focusFirstPhoto(attempts: 3)
    }

    func focusFirstPhoto(attempts: Int) {
        wantedFocus = nil
        let first = model.showsCamera ? 1 : 0
        guard model.count > first else {
            // Hold the focus in the empty grid meanwhile: otherwise GTK gives it to the first
            // button of the header, Cancel, where a Space meant for a photo would cancel.
            gtk_widget_grab_focus(grid)
            focusWhenFilled = true
            return
        }
        focusWhenFilled = false
        // The grid would give the focus back to the position it remembers (from the album
        // shown before): focus the first photo's own item widget, at the top.
        if let adjustment = verticalAdjustment { gtk_adjustment_set_value(adjustment, 0) }
        let firstCell = cells.compactMap(\.cell).first { cell in
            cell.assetID != nil && cell.listItem.map { Int(gtk_list_item_get_position($0)) } == first
        }
        if let firstCell, let item = gtk_widget_get_parent(firstCell.root), gtk_widget_grab_focus(item) != 0 { return }
        // Not laid out yet (the album was just replaced): again once GTK has laid it out.
        gtk_widget_grab_focus(grid)
        focusAgainAfterLayout(.firstPhoto, attempts: attempts)
    }

    /// The keyboard focus into the grid: back on the photo it was last on (GtkGridView
    /// remembers it) when `returning`, else on the first photo.
    func focusGrid(returning: Bool) {
        if returning, let id = focusedWhenUnmapped, model.position(of: id) != nil {
            focusedWhenUnmapped = nil
            focusAsset(id)
            return
        }
        if returning, gtk_widget_grab_focus(grid) != 0 { return }
        focusFirstPhoto()
    }

    /// Remembers the photo with the focus as the grid leaves the screen: a host that moves the
    /// picker to another container has GtkGridView make its items again, and its own memory
    /// of the focus then came back one photo on.
    func rememberFocusedPhoto() {
        guard let root = gtk_widget_get_root(grid), let focus = gtk_root_get_focus(root),
              gtk_widget_is_ancestor(focus, grid) != 0, let cell = GridCell.of(gtk_widget_get_first_child(focus)),
              let id = cell.assetID else { return }
        focusedWhenUnmapped = id
    }

    func focusFirstPhotoIfStillWanted() {
        guard focusWhenFilled, model.count > (model.showsCamera ? 1 : 0) else { return }
        let focus = gtk_widget_get_root(widget).flatMap { gtk_root_get_focus($0) }
        if focus == nil || focus == grid { focusFirstPhoto() } else { focusWhenFilled = false }
    }

    /// Scrolls to the asset and puts the grid's cursor on it, without taking the focus: the
    /// grid's next grab_focus lands there. False when the album does not show it.
    func revealAsset(_ id: Int64) -> Bool {
        guard let position = model.position(of: id) else { return false }
        releaseCellsBeyondFirstScreen()
        // (The action moves the grid's focus tracker, which is what list items call as they take
        // the focus; it grabs nothing.)
        _ = gtk_widget_activate_action_variant(grid, "list.scroll-to-item", g_variant_new_uint32(guint32(position)))
        return true
    }

    /// The position of the first cell at least half in sight: what the view shows at its top.
    func topPosition() -> Int? {
        var best: Int?
        for cell in cells.compactMap(\.cell) {
            guard let position = cell.position, let (_, y) = place(of: cell) else { continue }
            guard y + Double(gtk_widget_get_height(cell.root)) / 2 >= 0 else { continue }
            if best == nil || position < best! { best = position }
        }
        return best
    }

    /// Whether `position`'s cell is in the first row at least half in sight.
    func firstRowHolds(_ position: Int) -> Bool {
        var row: [(position: Int, y: Double)] = []
        for cell in cells.compactMap(\.cell) {
            guard let at = cell.position, let (_, y) = place(of: cell), y + Double(gtk_widget_get_height(cell.root)) / 2 >= 0 else { continue }
            row.append((at, y.rounded()))
        }
        guard let top = row.map(\.y).min() else { return false }
        return row.contains { $0.position == position && $0.y == top }
    }

    /// Scrolls so that the row of `position` is the first in sight (a month's first photo, jumped
    /// to), worked out from a cell in sight: the cells are uniform. GTK's own scroll to an item
    /// only brings it somewhere into view.
    func showAtTop(position: Int) {
        guard let adjustment = verticalAdjustment else { return }
        releaseCellsBeyondFirstScreen()
        var columns: Set<Int> = [], rows: Set<Int> = []
        var known: (position: Int, y: Double)?
        for cell in cells.compactMap(\.cell) {
            guard let at = cell.position, let (x, y) = place(of: cell) else { continue }
            columns.insert(Int(x.rounded()))
            rows.insert(Int(y.rounded()))
            if known == nil || at < known!.position { known = (at, y) }
        }
        let tops = rows.sorted()
        guard let known, tops.count >= 2, !columns.isEmpty else {
            _ = gtk_widget_activate_action_variant(grid, "list.scroll-to-item", g_variant_new_uint32(guint32(position)))
            return
        }
        let perRow = columns.count, rowHeight = Double(tops[1] - tops[0])
        let rowsAway = Double(position / perRow - known.position / perRow)
        let value = gtk_adjustment_get_value(adjustment) + known.y + rowsAway * rowHeight
        let highest = gtk_adjustment_get_upper(adjustment) - gtk_adjustment_get_page_size(adjustment)
        gtk_adjustment_set_value(adjustment, max(0, min(highest, value)))
    }

    /// Scrolls to the asset and gives it the keyboard focus (a capture, now first in the grid).
    func focusAsset(_ id: Int64, attempts: Int = 3) {
        wantedFocus = nil
        guard let position = model.position(of: id) else { return }
        releaseCellsBeyondFirstScreen()
        if position < 2 * max(1, Int(gtk_grid_view_get_max_columns(grid.opaque))), let adjustment = verticalAdjustment { gtk_adjustment_set_value(adjustment, 0) }
        if let cell = cells.compactMap(\.cell).first(where: { $0.assetID == id }),
           let item = gtk_widget_get_parent(cell.root), gtk_widget_grab_focus(item) != 0 { return }
        // Far down (`--filename` naming a file): bring its row into view; its cell binds.
        _ = gtk_widget_activate_action_variant(grid, "list.scroll-to-item", g_variant_new_uint32(guint32(position)))
        focusAgainAfterLayout(.asset(id), attempts: attempts)
    }

    /// A focus whose cell is not bound yet.
    enum WantedFocus { case firstPhoto, asset(Int64) }

    /// Tries `wanted` again after GTK's next layout, which binds the cells in sight. (Idle
    /// callbacks, as before, could all run while the frame clock waited for the display: three
    /// tries came and went before any layout, and the focus stayed on the bare grid, where a
    /// Space picks nothing.) Before the grid has a frame clock, at the next idle.
    private func focusAgainAfterLayout(_ wanted: WantedFocus, attempts: Int) {
        wantedFocus = nil
        guard attempts > 0 else { return }
        if whenLaidOut() {
            wantedFocus = (wanted, attempts - 1)
            gtk_widget_queue_allocate(grid)
            return
        }
        focusRetry.schedule(priority: G_PRIORITY_HIGH_IDLE + 30) { [weak self] in self?.focus(wanted, attempts: attempts - 1) }
    }

    private func focus(_ wanted: WantedFocus, attempts: Int) {
        switch wanted {
        case .firstPhoto: focusFirstPhoto(attempts: attempts)
        case .asset(let id): focusAsset(id, attempts: attempts)
        }
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
        guard var anchor, anchor.position == from else { self.anchor = nil; return }
        anchor.target = anchor.value + Double(to / anchor.columns - from / anchor.columns) * anchor.rowHeight
        self.anchor = anchor
        guard whenLaidOut() else { self.anchor = nil; return }
        gtk_widget_queue_allocate(grid)
    }

    /// Runs `afterLayout` after each of GTK's layouts from now on (after GtkGridView has placed
    /// its cells, before the frame is drawn). False before the grid has a frame clock.
    private func whenLaidOut() -> Bool {
        guard layoutHandler == 0 else { return true }
        guard let clock = gtk_widget_get_frame_clock(grid) else { return false }
        layoutHandler = Signal.connect(UnsafeMutableRawPointer(clock), "layout", after: true) { [weak self] in
            self?.afterLayout()
        }
        // Held until the view goes, so the handler can be disconnected from a live object.
        layoutClock = GObjectRef(UnsafeMutableRawPointer(clock), transfer: .none)
        return true
    }

    private func afterLayout() {
        let adjustment = verticalAdjustment
        let before = adjustment.map { gtk_adjustment_get_value($0) } ?? 0
        restoreAnchor()
        focusFollowedPhoto(scrolledBy: adjustment.map { gtk_adjustment_get_value($0) - before } ?? 0)
        if let (wanted, attempts) = wantedFocus {
            wantedFocus = nil
            focus(wanted, attempts: attempts)
        }
    }

    // MARK: The focus on a photo that moves

    /// Notes the photo with the keyboard focus before a change goes in. GtkGridView keeps the
    /// focus on a grid position, not on a photo: a photo that moves goes out and comes in again
    /// (two splices), and the focus stayed behind on its neighbour. A first run's details
    /// re-date photos while a person may already be picking with the keyboard: their Space
    /// picked the photo next to the one they had chosen.
    func noteFocusBeforeChange() {
        focusBeforeChange = hasFocus ? focusedPosition.flatMap { model.assetID(at: $0) } : nil
    }

    /// After the change: the photo keeps the focus if it moved to a place in sight (once GTK has
    /// laid the grid out, its cell is there). One that left the view, or the album, leaves the
    /// focus at its place, on the photo there: following it would move the view.
    func followFocusAfterChange() {
        defer { focusBeforeChange = nil }
        guard let id = focusBeforeChange, focusLeftWithPhoto else { return }
        // Meanwhile the focus is on the grid, not on a widget out of the window: GTK gives a key
        // to the focus widget and its parents, and a key pressed before the next layout went to
        // that widget alone (the likely loss of a Space and a Ctrl+Enter in CI, remote first runs).
        if focusIsOutOfWindow { gtk_widget_grab_focus(grid) }
        // (Still in its place: nothing to do. Gone from the album: after the layout, the focus
        // goes to the photo now at its place.)
        if let position = model.position(of: id), position == focusedPosition { return }
        focusAfterLayout = .photo(id)
        if whenLaidOut() { gtk_widget_queue_allocate(grid) } else { focusAfterLayout = nil }
    }

    /// The album was replaced (or read again) under a focused photo: the focus goes to the grid
    /// at once, and to the photo at its place once laid out.
    func keepFocusInWindow() {
        guard focusIsOutOfWindow else { return }
        gtk_widget_grab_focus(grid)
        focusAfterLayout = .itsPlace
        if whenLaidOut() { gtk_widget_queue_allocate(grid) } else { focusAfterLayout = nil }
    }

    /// Where the focus goes once the grid is laid out after a change.
    enum FocusAfterLayout {
        /// The photo that had it, if it is in sight; else as `itsPlace`.
        case photo(Int64)
        /// The photo now at the focused photo's place.
        case itsPlace
    }

    /// The window's focus is on a widget no longer in it: GTK 4.8 leaves it on the cell of a
    /// photo that went out, until the grid's next layout.
    private var focusIsOutOfWindow: Bool {
        guard let root = gtk_widget_get_root(grid), let focus = gtk_root_get_focus(root) else { return false }
        return gtk_widget_get_root(focus) == nil
    }

    /// Whether the focus is where a change left it: in the grid, or on the photo's widget that
    /// went out with it (GTK 4.8 leaves the window's focus on it, out of the window, until the
    /// grid gives the focus to the position at its next layout).
    private var focusLeftWithPhoto: Bool {
        guard let root = gtk_widget_get_root(grid) else { return false }
        guard let focus = gtk_root_get_focus(root) else { return true }
        return gtk_widget_get_root(focus) == nil || hasFocus
    }

    /// `scrolled`: how far the anchor moved the view after GTK placed the cells (they follow at the
    /// next layout).
    private func focusFollowedPhoto(scrolledBy scrolled: Double) {
        guard let wanted = focusAfterLayout else { return }
        focusAfterLayout = nil
        guard focusLeftWithPhoto else { return }
        if case .photo(let id) = wanted, let cell = cells.compactMap(\.cell).first(where: { $0.assetID == id }),
           let (_, y) = place(of: cell), let item = gtk_widget_get_parent(cell.root) {
            let middle = y - scrolled + Double(gtk_widget_get_height(cell.root)) / 2
            if middle >= 0, middle <= Double(gtk_widget_get_height(scroller)), gtk_widget_grab_focus(item) != 0 { return }
        }
        // Out of sight: on the photo now at its place (the grid gives the focus to its position).
        if focusedPosition == nil { gtk_widget_grab_focus(grid) }
    }

    private func restoreAnchor() {
        guard let target = anchor?.target, let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque) else { return }
        anchor = nil
        if abs(gtk_adjustment_get_value(adjustment) - target) >= 0.5 { gtk_adjustment_set_value(adjustment, target) }
    }
}
