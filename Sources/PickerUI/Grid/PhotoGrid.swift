// SPDX-License-Identifier: LGPL-2.1-or-later
import Camera
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel
import Thumbnails

/// The grid of the open album: a GtkGridView in a scrolled window, its cells, their size and
/// columns, the display's scale, the thumbnails in sight first, the window's first screen, and
/// the photo at the top kept in place while changes go in. It shows what the controller holds and
/// says what the person did to a photo (`onToggle`, `onOpen`); picking, the preview and the
/// picker's keys are the picker's (Picker), as clicks are the view's in Nautilus' grid.
///
/// A widget of its own type, `PhotopickGrid` (CSS node `photopick-grid`, the grid inside
/// `.photo-grid`); the widget owns this object. Files beside this one: PhotoGrid+Layout (size,
/// columns, scale, zoom), PhotoGrid+Sight (scrolling, what is in sight first, the anchor, the
/// focus), PhotoGrid+FirstScreen (the window's first frame), PhotoGrid+Cells (the cells' host
/// and their gestures).
@MainActor
final class PhotoGrid: SwiftWidget {
    static let widgetType = WidgetType("PhotopickGrid", cssName: "photopick-grid", layout: gtk_bin_layout_get_type())

    let widget: UnsafeMutablePointer<GtkWidget>
    let grid: UnsafeMutablePointer<GtkWidget>
    let scroller: UnsafeMutablePointer<GtkWidget>
    /// Between the album and the grid (owned by the grid's selection model).
    let gridSlice: OpaquePointer
    let controller: PickerController
    var model: AssetListModel { controller.model }
    var selection: SelectionStore { controller.selection }
    /// (Its own lock guards it: any thread may use it.)
    let loader: ThumbnailLoader
    /// The thumbnails being made of the photos held above the view (`warmArrivals`).
    var warmingArrivals: [(id: Int64, request: ThumbnailRequest)] = []
    var warmingGeneration = 0

    /// A photo was clicked (its grid position): pick or unpick it.
    var onToggle: ((Int) -> Void)?
    /// A Shift+click: the range from the last pick to here.
    var onRange: ((Int) -> Void)?
    /// A photo was double-clicked: preview it.
    var onOpen: ((Int) -> Void)?
    /// What a photo dragged out hands to another app (a GdkContentProvider, owned by the caller).
    var dragContent: ((Int64) -> UnsafeMutableRawPointer?)?
    /// A video was shown as a film icon for want of a thumbnailer.
    var onNoVideoThumbnailer: (() -> Void)?
    /// A first run's first screen is shown (its thumbnails made, or its time up).
    var onFirstScreenShown: (() -> Void)?
    /// The cell size changed (the person zoomed).
    var onCellSizeChanged: ((Int) -> Void)?

    /// What the benchmarks and tests count; nil counts nothing.
    var metrics: PickerMetrics?

    /// Cell edge in points, as chosen, and as drawn (the chosen size stretched to share the width).
    var cellSize = 120
    var shownCellSize = 120
    /// The display's scale factor.
    var scale = 1
    /// The sizes Ctrl+plus, Ctrl+minus and Ctrl+scroll step through.
    nonisolated static let cellSizes = PickerState.cellSizes
    /// A cell of the grid, until it goes or leaves the grid (its list item taken away).
    struct WeakCell {
        private weak var held: GridCell?
        init(cell: GridCell) { held = cell }
        @MainActor var cell: GridCell? { held.flatMap { $0.listItem == nil ? nil : $0 } }
    }
    var cells: [WeakCell] = []
    /// How many `cells` held when the cells gone were last taken out (setUpCell).
    var cellsAfterPruning = 0
    /// The thumbnail size for the cells. Cells drawn up to 8 % larger than a flavour keep it (a
    /// 130-point cell takes the 128-pixel flavour, not one with four times the pixels).
    var flavor: ThumbnailFlavor { ThumbnailFlavor.smallest(atLeast: max(shownCellSize, cellSize) * 92 / 100, scale: scale) }
    var prefetcher: Prefetcher?
    /// The positions in sight when their thumbnails were last put first.
    var inSight: Range<Int>?
    /// The positions whose cells ask for their pictures when bound (a screen either side of
    /// the view); nil until the view is laid out: every cell asks.
    var pictureBand: Range<Int>?
    /// Runs fitColumns after a layout pass that changed the width.
    let columnFitting = MainLoopSource()
    /// Focuses the first photo (or a capture) once a new album is laid out: after GTK's next
    /// layout (`wantedFocus`), or at an idle before the grid has a frame clock (`focusRetry`).
    var wantedFocus: (WantedFocus, attempts: Int)?
    let focusRetry = MainLoopSource()
    /// The photo that had the keyboard focus when the grid was last unmapped, for the next
    /// focus into it (focusGrid); nil once the focus came in another way.
    var focusedWhenUnmapped: Int64?
    /// Puts the thumbnails of the cells in sight first once a new album is laid out.
    let inSightFirst = MainLoopSource()
    /// The first photo should take the focus as soon as there is one (focusFirstPhoto).
    var focusWhenFilled = false
    /// Ctrl+scroll's steps, added up to whole notches.
    var scrollDelta = 0.0

    // The window's first screen (PhotoGrid+FirstScreen).
    /// The size the window is about to have, before it is laid out.
    var expectedSize: (width: Int, height: Int)?
    /// A first run's grid held hidden until its first screen's thumbnails are made.
    var firstScreenGate: FirstScreenGate?
    /// Ends the hold on the cells beyond the first screen if no frame is drawn meanwhile.
    let firstScreenHoldEnd = MainLoopSource()
    /// The grid's tick callback that ends the first screen's hold (holdCellsBeyondFirstScreen).
    var firstFrameTick: guint = 0
    /// The cells there were when the last row came in (letInNextRow).
    var cellsWhenRowLetIn: Int?
    /// How many positions come in a frame (letInNextRow): a row, fewer while a row costs more.
    var positionsPerFrame: Int?

    // The photo at the top while a change goes in (PhotoGrid+Sight).
    struct Anchor {
        var position: Int
        var value: Double
        var columns: Int
        var rowHeight: Double
        /// The scroll position that puts it back on its row.
        var target: Double?
    }
    var anchor: Anchor?
    /// The photo that had the keyboard focus as a change went in, followed once the grid is laid
    /// out (PhotoGrid+Sight.followFocusedPhoto).
    var focusBeforeChange: Int64?
    var focusAfterLayout: FocusAfterLayout?
    /// The frame clock's "layout" handler that puts the anchor back and follows the focus.
    var layoutHandler: gulong = 0
    var layoutClock: GObjectRef?
    /// Handlers on the scroller's adjustments, which can still signal while the widgets are
    /// disposed: the adjustments are held until widgetDisposed disconnects them.
    private var adjustmentHandlers: [(instance: GObjectRef, id: gulong)] = []

    init(controller: PickerController, loader: ThumbnailLoader) {
        self.controller = controller
        self.loader = loader
        widget = Self.widgetType.make()
        // The grid directly in a scrolled window: GtkGridView stops making widgets otherwise.
        // gtk_grid_view_new takes ownership of the selection model and the factory.
        let factory = gtk_signal_list_item_factory_new()!
        // The grid sees the album through a slice, whole but for the window's first frame
        // (holdCellsBeyondFirstScreen).
        let slice = gtk_slice_list_model_new(OpaquePointer(g_object_ref(controller.model.object)!), 0, guint.max)!
        gridSlice = slice
        let noSelection = gtk_no_selection_new(slice)
        grid = gtk_grid_view_new(noSelection, factory)
        // GtkGridView keeps up to 30 rows × max-columns cells: the maximum follows the width
        // (fitColumns), or a 40-column maximum would make 1,200 cells for a 7-column window.
        gtk_grid_view_set_max_columns(grid.opaque, 7)
        gtk_grid_view_set_min_columns(grid.opaque, 1)
        // Columns from the cells' natural width (the chosen size), not their minimum: cells are
        // squares that may shrink below it only when one column does not fit.
        gtk_scrollable_set_hscroll_policy(grid.opaque, GTK_SCROLL_NATURAL)
        // Clicks are handled per cell (one click picks, a double click previews); Enter and
        // Space by the picker's key controller.
        style(grid, "photo-grid")
        scroller = gtk_scrolled_window_new()
        gtk_scrolled_window_set_policy(scroller.opaque, GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_child(scroller.opaque, grid)
        gtk_widget_set_vexpand(scroller, 1)
        gtk_widget_set_parent(scroller, widget)
        gtk_widget_set_vexpand(widget, 1)

        Signal.connect(factory.raw, "setup", object: { [weak self] item in self?.setUpCell(OpaquePointer(item)) })
        Signal.connect(factory.raw, "bind", object: { [weak self] item in self?.cell(OpaquePointer(item))?.bind(item: gtk_list_item_get_item(OpaquePointer(item))) })
        Signal.connect(factory.raw, "unbind", object: { [weak self] item in self?.unbind(OpaquePointer(item)) })
        if let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque) {
            untilDisposed(adjustment, Signal.connect(adjustment.raw, "value-changed") { [weak self] in self?.scrolled() })
            // Laid out (or resized): the cells in sight are known now, and go first.
            untilDisposed(adjustment, Signal.connect(adjustment.raw, "notify::page-size", object: { [weak self] _ in
                self?.inSightFirst.schedule(priority: G_PRIORITY_HIGH_IDLE + 30) { [weak self] in self?.prefetchAroundView() }
            }))
        }
        if let adjustment = gtk_scrolled_window_get_hadjustment(scroller.opaque) {
            // The width changes inside GTK's layout pass (the grid configures this adjustment
            // while it allocates its rows). Changing max-columns there makes the grid drop and
            // create rows under its own allocation loop (gtkgridview.c asserts row_height >= 0
            // and aborts): fit the columns once layout is over.
            untilDisposed(adjustment, Signal.connect(adjustment.raw, "changed") { [weak self] in
                self?.columnFitting.scheduleUnlessPending(priority: G_PRIORITY_HIGH_IDLE + 30) { [weak self] in self?.fitColumns() }
            })
        }
        installZoomByScrolling()
        // HiDPI: thumbnails must cover the cell's device pixels, and the factor can change
        // when the window moves to another monitor. Cells bind before the window exists: start
        // from the display's first monitor.
        scale = Self.likelyScaleFactor
        Signal.connect(grid.raw, "notify::scale-factor", object: { [weak self] _ in self?.followScaleFactor() })
        Signal.connect(grid.raw, "unmap") { [weak self] in self?.rememberFocusedPhoto() }
        Self.widgetType.adopt(self, by: widget)
    }

    /// Keeps `instance` (an adjustment) until widgetDisposed disconnects its handler `id`.
    private func untilDisposed(_ instance: UnsafeMutablePointer<GtkAdjustment>, _ id: gulong) {
        adjustmentHandlers.append((GObjectRef(instance, transfer: .none), id))
    }

    /// Timers, handlers and prefetching go with the grid's widgets.
    func widgetDisposed() { stop() }

    /// Timers, handlers and prefetching stop: the grid's widget is going, or its library is
    /// (its widget then goes a turn later: Picker.closeLibrary).
    func stop() {
        for (instance, id) in adjustmentHandlers { g_signal_handler_disconnect(instance.pointer, id) }
        adjustmentHandlers = []
        // (A clock disposed with its window has dropped its handlers already.)
        if let layoutClock, layoutHandler != 0, g_signal_handler_is_connected(layoutClock.pointer, layoutHandler) != 0 {
            g_signal_handler_disconnect(layoutClock.pointer, layoutHandler)
        }
        layoutClock = nil
        layoutHandler = 0
        // (Not the grid's tick callback: the grid's own dispose took its tick callbacks with it.)
        firstFrameTick = 0
        columnFitting.cancel()
        focusRetry.cancel()
        wantedFocus = nil
        focusAfterLayout = nil
        inSightFirst.cancel()
        firstScreenHoldEnd.cancel()
        firstScreenGate?.deadline.cancel()
        prefetcher?.reset()
    }

    /// Ctrl+scroll zooms, as in image viewers and file managers.
    private func installZoomByScrolling() {
        let scroll = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_VERTICAL)!
        gtk_event_controller_set_propagation_phase(scroll, GTK_PHASE_CAPTURE)
        Signal.connect(scroll.raw, "scroll", delta: { [weak self] dy in
            // (A scroll while the rows below come in goes on to the album's end.)
            if dy > 0 { self?.releaseCellsBeyondFirstScreen() }
            guard let self, let event = gtk_event_controller_get_current_event(scroll),
                  gdk_event_get_modifier_state(event).rawValue & GDK_CONTROL_MASK.rawValue != 0 else { return false }
            // Touchpads send many small steps: zoom once per whole notch.
            self.scrollDelta += dy
            if abs(self.scrollDelta) >= 1 {
                self.zoom(by: self.scrollDelta < 0 ? 1 : -1)
                self.scrollDelta = 0
            }
            return true
        })
        gtk_widget_add_controller(scroller, scroll)
    }

    /// Whether the keyboard focus is on a photo of the grid.
    var hasFocus: Bool {
        guard let root = gtk_widget_get_root(grid), let focus = gtk_root_get_focus(root) else { return false }
        return focus == grid || gtk_widget_is_ancestor(focus, grid) != 0
    }

    /// The grid position of the focused cell.
    var focusedPosition: Int? {
        guard let focused = gtk_widget_get_focus_child(grid), let child = gtk_widget_get_first_child(focused),
              let cell = GridCell.of(child), let item = cell.listItem else { return nil }
        return Int(gtk_list_item_get_position(item))
    }

    /// Hidden behind an opaque view over it (the camera's): neither drawn nor reachable.
    func setHidden(_ hidden: Bool) {
        gtk_widget_set_opacity(scroller, hidden ? 0 : 1)
        gtk_widget_set_can_focus(scroller, hidden ? 0 : 1)
        gtk_widget_set_can_target(scroller, hidden ? 0 : 1)
    }

    var verticalAdjustment: UnsafeMutablePointer<GtkAdjustment>? { gtk_scrolled_window_get_vadjustment(scroller.opaque) }

    /// The height of the album's rows: the view's, or while the cells beyond the first screen
    /// are held back (holdCellsBeyondFirstScreen), what it is once they are in. (The timeline
    /// is shown for a long album from the first frame: judged by the rows let in, it came as
    /// they passed two screens, 0.1-0.3 s after that frame, and its coming redrew the grid's
    /// edge, a change of the settled first screen; issue 42.)
    var albumHeight: Double {
        let upper = verticalAdjustment.map { gtk_adjustment_get_upper($0) } ?? 0
        let letIn = Int(gtk_slice_list_model_get_size(gridSlice))
        // (Before the window is laid out, the size it is about to have.)
        let laidOut = Int(gtk_widget_get_width(scroller))
        let width = laidOut > 0 ? laidOut : expectedSize?.width ?? 0
        guard letIn < model.count, width > 0 else { return upper }
        let span = max(shownCellSize, cellSize) + Style.cellGap
        let columns = max(1, width / span)
        return max(upper, Double((model.count + columns - 1) / columns * span))
    }
}
