import CGtk
import GObjectSupport
import Glibc
import Dispatch
import Foundation
import PickerModel
import PhotoLibrary
import Thumbnails

/// The picker: a grid of the library with an album switcher, ordered picks with numbered badges
/// and a strip of what is picked. A widget another GTK4 program can embed as a panel; a window
/// (PickerWindow) only hosts it and puts `albumSwitcher` and `confirmButton` in its header bar.
public final class PickerView: @unchecked Sendable {  // used on the GTK thread only
    public let library: PhotoLibrary
    public let loader: ThumbnailLoader
    public let selection: SelectionStore
    let model: AssetListModel

    /// The picker's content: grid, empty state and strip, in a vertical box.
    public let widget: UnsafeMutablePointer<GtkWidget>
    /// The album switcher's button (a header bar title).
    public let albumSwitcher: UnsafeMutablePointer<GtkWidget>
    /// "Add 3": the primary action.
    public let confirmButton: UnsafeMutablePointer<GtkWidget>
    public let cancelButton: UnsafeMutablePointer<GtkWidget>

    let grid: UnsafeMutablePointer<GtkWidget>
    let scroller: UnsafeMutablePointer<GtkWidget>
    let strip: PickedStrip
    let preview = PreviewPane()
    /// Toasts ("You can pick up to 3") float over the grid.
    private let toasts: UnsafeMutablePointer<GtkWidget>
    private var albums: [AlbumSummary] = []
    private var currentAlbum: Album?
    private let progress: UnsafeMutablePointer<GtkWidget>
    private let progressLabel: UnsafeMutablePointer<GtkWidget>
    /// An icon, a title, a line of text and an action, when the grid has nothing to show.
    private let emptyState: UnsafeMutablePointer<GtkWidget>
    private let chooseFolderButton: UnsafeMutablePointer<GtkWidget>
    /// A folder the person chose from the empty state, to add to the library (the host decides
    /// how: the window reopens the picker on the library with that folder added).
    public var onChooseFolder: ((FilePath) -> Void)?
    private var folderChooser: UnsafeMutablePointer<GtkNativeDialog>? { folderChooserReference?.pointer(as: GtkNativeDialog.self) }
    private var folderChooserReference: GObjectRef?
    private var scanning = false
    /// False once the widgets are destroyed: work posted from other threads then does nothing.
    private(set) var isAlive = true
    var scrollDelta = 0.0
    private var selectionObservation: SelectionStore.Observation?
    private let switcher: AlbumSwitcher
    /// Runs fitColumns after a layout pass that changed the width.
    private let columnFitting = MainLoopSource()
    /// Focuses the first photo once a new album is laid out.
    private let focusRetry = MainLoopSource()

    /// Cell edge in points, and the display scale.
    private(set) var cellSize = 120
    var scale = 1
    /// The sizes Ctrl+plus, Ctrl+minus and Ctrl+scroll step through.
    static let cellSizes = [72, 96, 120, 160, 200, 256]
    private(set) var cells: [WeakCell] = []
    private var prefetcher: Prefetcher?

    struct WeakCell { weak var cell: GridCell? }
    /// The thumbnail size for the cells. Cells drawn up to 8 % larger than a flavour keep it (a
    /// 130-point cell takes the 128-pixel flavour, not one with four times the pixels).
    var flavor: ThumbnailFlavor { ThumbnailFlavor.smallest(atLeast: max(shownCellSize, cellSize) * 92 / 100, scale: scale) }

    /// The picked assets in order, when the person confirms.
    public var onConfirm: (([Asset]) -> Void)?
    public var onCancel: (() -> Void)?
    /// MIME type patterns ("image/*", "image/png") the picker offers; empty for everything.
    public var types: [String] = [] {
        didSet { if let album = currentAlbum { currentAlbum = nil; try? showAlbums(selecting: album) } }
    }

    /// The primary button's words: "Add" by default, or what a script asked for.
    public var confirmLabel = "Add" { didSet { updateConfirmButton() } }

    public init(library: PhotoLibrary, loader: ThumbnailLoader, maximum: Int? = nil, showsCamera: Bool = false) {
        self.library = library
        self.loader = loader
        selection = SelectionStore(maximum: maximum)
        model = AssetListModel(showsCamera: showsCamera)
        strip = PickedStrip()

        // The view uses libadwaita's widgets and colours also inside a plain GTK window.
        adw_init()
        widget = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)
        style(widget, "picker")

        // The grid directly in a scrolled window: GtkGridView stops making widgets otherwise.
        // gtk_grid_view_new takes ownership of the selection model and the factory.
        let factory = gtk_signal_list_item_factory_new()!
        let noSelection = gtk_no_selection_new(OpaquePointer(g_object_ref(model.object)!))
        grid = gtk_grid_view_new(noSelection, factory)
        // GtkGridView keeps up to 30 rows × max-columns cells: the maximum follows the width
        // (fitColumns), or a 40-column maximum would make 1,200 cells for a 7-column window.
        gtk_grid_view_set_max_columns(grid.opaque, 7)
        gtk_grid_view_set_min_columns(grid.opaque, 1)
        // Columns from the cells' natural width (the chosen size), not their minimum: cells are
        // squares that may shrink below it only when one column does not fit.
        gtk_scrollable_set_hscroll_policy(grid.opaque, GTK_SCROLL_NATURAL)
        // Clicks are handled per cell (one click picks, a double click previews); Enter and
        // Space by the key controller.
        style(grid, "photo-grid")
        scroller = gtk_scrolled_window_new()
        gtk_scrolled_window_set_policy(scroller.opaque, GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_child(scroller.opaque, grid)
        gtk_widget_set_vexpand(scroller, 1)

        let overlay = gtk_overlay_new()!
        gtk_overlay_set_child(overlay.opaque, scroller)
        emptyState = adw_status_page_new()
        style(emptyState, "empty-state")
        gtk_widget_set_visible(emptyState, 0)
        chooseFolderButton = gtk_button_new_with_mnemonic("_Choose Folder…")
        style(chooseFolderButton, "pill", "suggested-action")
        gtk_widget_set_halign(chooseFolderButton, GTK_ALIGN_CENTER)
        adw_status_page_set_child(emptyState.opaque, chooseFolderButton)
        gtk_overlay_add_overlay(overlay.opaque, emptyState)
        gtk_overlay_add_overlay(overlay.opaque, preview.widget)
        toasts = adw_toast_overlay_new()
        adw_toast_overlay_set_child(toasts.opaque, overlay)
        gtk_widget_set_vexpand(toasts, 1)
        progress = gtk_revealer_new()
        progressLabel = gtk_label_new(nil)
        style(progressLabel, "index-progress", "dim-label")
        gtk_revealer_set_child(progress.opaque, progressLabel)
        gtk_box_append(widget.cast(), progress)
        gtk_box_append(widget.cast(), toasts)
        gtk_box_append(widget.cast(), strip.widget)

        switcher = AlbumSwitcher(library: library, loader: loader)
        albumSwitcher = switcher.widget
        confirmButton = gtk_button_new_with_label("Add")
        style(confirmButton, "suggested-action")
        gtk_widget_set_sensitive(confirmButton, 0)
        cancelButton = gtk_button_new_with_label("Cancel")

        Signal.connect(factory.raw, "setup", object: { [weak self] item in self?.setUpCell(OpaquePointer(item)) })
        Signal.connect(factory.raw, "bind", object: { [weak self] item in self?.cell(OpaquePointer(item))?.bind(item: gtk_list_item_get_item(OpaquePointer(item))) })
        Signal.connect(factory.raw, "unbind", object: { [weak self] item in self?.cell(OpaquePointer(item))?.unbind() })
        switcher.onChoose = { [weak self] album in self?.albumChosen(album) }
        switcher.onFocusContent = { [weak self] in self?.focusFirstPhoto() }
        Signal.connect(confirmButton.raw, "clicked") { [weak self] in self?.confirm() }
        if let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque) {
            Signal.connect(adjustment.raw, "value-changed") { [weak self] in self?.scrolled() }
        }
        if let adjustment = gtk_scrolled_window_get_hadjustment(scroller.opaque) {
            // The width changes inside GTK's layout pass (the grid configures this adjustment
            // while it allocates its rows). Changing max-columns there makes the grid drop and
            // create rows under its own allocation loop (gtkgridview.c asserts row_height >= 0
            // and aborts): fit the columns once layout is over.
            Signal.connect(adjustment.raw, "changed") { [weak self] in
                self?.columnFitting.scheduleUnlessPending(priority: G_PRIORITY_HIGH_IDLE + 30) { [weak self] in self?.fitColumns() }
            }
        }
        Signal.connect(cancelButton.raw, "clicked") { [weak self] in self?.onCancel?() }
        Signal.connect(chooseFolderButton.raw, "clicked") { [weak self] in self?.chooseFolder() }
        installKeys()
        // HiDPI: thumbnails must cover the cell's device pixels, and the factor can change
        // when the window moves to another monitor. Cells bind before the window exists: start
        // from the display's first monitor.
        scale = Self.likelyScaleFactor
        Signal.connect(grid.raw, "notify::scale-factor", object: { [weak self] _ in self?.followScaleFactor() })

        strip.onRemove = { [weak self] id in self?.selection.remove([id]) }
        strip.onMove = { [weak self] dragged, target in
            guard let self, let from = self.selection.picked.firstIndex(of: dragged),
                  let to = self.selection.picked.firstIndex(of: target) else { return }
            self.selection.move(from: from, to: to)
        }
        preview.onToggle = { [weak self] in self?.togglePreviewed() }
        preview.onClose = { [weak self] in self?.closePreview() }
        selectionObservation = selection.observe { [weak self] change in
            guard let self else { return }
            self.updateConfirmButton()
            // Picked cells say "picked 2 of 4": the total changed for all of them (a few cells).
            for cell in self.cells.compactMap(\.cell) where cell.assetID.map({ self.selection.number(of: $0) != nil && !change.affected.contains($0) }) == true {
                cell.refreshDescription()
            }
            self.strip.show(self.selection.picked, library: self.library, loader: self.loader)
        }
        // The picker lives as long as its widget; when the widget goes, pending work is dropped.
        attach(self, to: widget.raw, key: "photopick-picker")
        Signal.connect(widget.raw, "destroy") { [weak self] in self?.tearDown() }
        Style.install()
    }

    /// The widgets are going away: drop timers, requests and pending work.
    private func tearDown() {
        isAlive = false
        columnFitting.cancel()
        focusRetry.cancel()
        if let chooser = folderChooser {
            gtk_native_dialog_destroy(chooser)
            folderChooserReference = nil
        }
        prefetcher?.reset()
        preview.cancel()  // its widgets may be gone already: touch none
        strip.cancelAll()
    }

    // MARK: Measuring (bench/)

    /// Bound cells waiting for their thumbnail: zero once the visible cells show pictures.
    public var cellsWaitingForThumbnails: Int { GridCell.waiting }
    /// Cells bound so far, and the seconds spent binding them.
    public var bindStatistics: (binds: Int, seconds: Double) { (GridCell.binds, GridCell.bindSeconds) }
    /// The grid's vertical scroll position, for programmatic scrolling.
    public var verticalAdjustment: UnsafeMutablePointer<GtkAdjustment>? { gtk_scrolled_window_get_vadjustment(scroller.opaque) }

    // MARK: Albums

    /// Fills the album switcher (counts read now, when the list is shown) and opens `album`.
    public func showAlbums(selecting album: Album? = nil) throws {
        let album = album ?? currentAlbum ?? .smart(.recents)
        albums = try library.albums().filter { $0.count > 0 || $0.album == .smart(.recents) || $0.album == album }
        // An album that is gone (a deleted folder) falls back to the first, Recents.
        let shown = albums.first { $0.album == album }?.album ?? albums.first?.album ?? album
        switcher.show(albums, current: shown)
        albumChosen(shown)
    }

    private func albumChosen(_ album: Album) {
        // Refilling the list re-selects the open album: keep its fetch result.
        guard album != currentAlbum || model.fetchResult == nil,
              let result = try? library.fetchAssets(in: album, types: types) else { return }
        currentAlbum = album
        prefetcher?.reset()
        // The rows of the first screens in one query, before their cells bind one by one.
        _ = try? library.assets(ids: result.ids(in: 0..<300))
        model.replace(with: result)
        result.loadRemainingInBackground()
        updateEmptyState()
    }

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

    private var pendingChange = LibraryChange()
    /// The first photo should take the focus as soon as there is one (focusFirstPhoto).
    private var focusWhenFilled = false
    private var computingChange = false

    private func computeNextChange() {
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

    private func showProgress(_ progress: ScanProgress, expected: Int) {
        let total = max(expected, progress.filesSeen)
        gtk_label_set_text(progressLabel.opaque, "Indexing your library: \(groupedDigits(progress.filesIndexed)) of \(groupedDigits(total)) files")
        gtk_revealer_set_reveal_child(self.progress.opaque, progress.finished ? 0 : 1)
    }

    /// What the empty grid says, in words a person can act on.
    struct EmptyState: Equatable {
        var icon: String
        var title: String
        var description: String
        var offersFolderChoice: Bool
    }

    var emptyStateShown: EmptyState? {
        guard (model.fetchResult?.count ?? 0) == 0 else { return nil }
        if scanning {
            return EmptyState(icon: "folder-pictures-symbolic", title: "Looking for Photos",
                              description: "Photos and videos appear here as they are found.", offersFolderChoice: false)
        }
        if let missing = library.roots.first(where: { !$0.isDirectory }) {
            return EmptyState(icon: "folder-pictures-symbolic", title: "No \(missing.lastComponentName) Folder",
                              description: "Choose the folder where your photos are.", offersFolderChoice: true)
        }
        if currentAlbum == .smart(.recents) || currentAlbum == nil {
            let names = library.roots.map { $0.lastComponentName }.joined(separator: " or ")
            return EmptyState(icon: "image-x-generic-symbolic", title: "No Photos Yet",
                              description: "There are no photos or videos in \(names).", offersFolderChoice: true)
        }
        return EmptyState(icon: "image-x-generic-symbolic", title: "This Album Is Empty",
                          description: "Choose another album above.", offersFolderChoice: false)
    }

    private func updateEmptyState() {
        let state = emptyStateShown
        if let state {
            adw_status_page_set_icon_name(emptyState.opaque, state.icon)
            adw_status_page_set_title(emptyState.opaque, state.title)
            adw_status_page_set_description(emptyState.opaque, state.description)
            gtk_widget_set_visible(chooseFolderButton, state.offersFolderChoice && onChooseFolder != nil ? 1 : 0)
        }
        gtk_widget_set_visible(emptyState, state == nil ? 0 : 1)
    }

    /// Asks for a folder (the portal's chooser where there is one) and hands it to the host.
    private func chooseFolder() {
        guard folderChooser == nil else { return }
        let root = gtk_widget_get_root(widget).map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: GtkWindow.self) }
        guard let chooser = gtk_file_chooser_native_new("Choose a Folder of Photos", root, GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                                        "_Choose", "_Cancel") else { return }
        let dialog = UnsafeMutableRawPointer(chooser).assumingMemoryBound(to: GtkNativeDialog.self)
        folderChooserReference = GObjectRef(dialog, transfer: .full)
        gtk_native_dialog_set_modal(dialog, 1)
        Signal.connect(chooser.raw, "response", response: { [weak self] response in
            guard let self, let chooser = self.folderChooser else { return }
            var chosen: FilePath?
            if response == GTK_RESPONSE_ACCEPT.rawValue, let file = gtk_file_chooser_get_file(chooser.opaque) {
                if let path = g_file_get_path(file) {
                    chosen = FilePath(String(cString: path))
                    g_free(path)
                }
                g_object_unref(file.raw)
            }
            gtk_native_dialog_destroy(chooser)
            self.folderChooserReference = nil
            if let chosen { self.onChooseFolder?(chosen) }
        })
        gtk_native_dialog_show(dialog)
    }

    // MARK: Cells

    private func setUpCell(_ listItem: OpaquePointer) {
        let cell = GridCell(picker: self)
        cells.removeAll { $0.cell == nil }
        cells.append(WeakCell(cell: cell))
        cell.listItem = listItem
        gtk_list_item_set_child(listItem, cell.root)
        attach(cell, to: UnsafeMutableRawPointer(listItem), key: GridCell.key)
        attach(cell, to: cell.root.raw, key: GridCell.key)
    }

    private func cell(_ listItem: OpaquePointer) -> GridCell? {
        attached(GridCell.self, on: UnsafeMutableRawPointer(listItem), key: GridCell.key)
    }

    // MARK: Zoom and prefetch

    /// Changes the thumbnail size; bound cells resize and, when the needed flavour changes,
    /// request the larger thumbnail.
    public func setCellSize(_ size: Int) {
        let clamped = min(max(size, Self.cellSizes.first!), Self.cellSizes.last!)
        guard clamped != cellSize else { return }
        let oldFlavor = flavor
        cellSize = clamped
        prefetcher = Prefetcher(loader: loader, flavor: flavor)
        for cell in cells.compactMap(\.cell) {
            cell.resize(to: clamped)
            if flavor != oldFlavor { cell.rebind() }
        }
        fitColumns()
        gtk_widget_queue_resize(grid)
    }

    /// As many columns as cells of the chosen size fit in the width (GtkGridView keeps 30 rows of
    /// max-columns cells alive: the maximum is what fits, not more). Never call it from inside a
    /// layout pass: see the hadjustment handler.
    private func fitColumns() {
        guard isAlive, let adjustment = gtk_scrolled_window_get_hadjustment(scroller.opaque) else { return }
        followScaleFactor()
        let width = Int(gtk_adjustment_get_page_size(adjustment))
        guard width > 0 else { return }
        let columns = max(1, min(60, width / (cellSize + 4)))
        if gtk_grid_view_get_max_columns(grid.opaque) != guint(columns) { gtk_grid_view_set_max_columns(grid.opaque, guint(columns)) }
        // Columns share the width: a cell is drawn a little larger than the chosen size.
        let shown = max(1, width / columns - 4)
        if shown != shownCellSize {
            let oldFlavor = flavor
            shownCellSize = shown
            if flavor != oldFlavor { cells.compactMap(\.cell).forEach { $0.rebind() } }
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

    /// The side of a cell as drawn, in points (the chosen size stretched to share the width).
    private(set) var shownCellSize = 120
    /// The side of a cell as drawn, in device pixels: what a thumbnail must cover.
    var cellPixels: Int { max(shownCellSize, cellSize) * scale }

    func zoom(by steps: Int) {
        let index = Self.cellSizes.firstIndex { $0 >= cellSize } ?? 2
        setCellSize(Self.cellSizes[min(max(index + steps, 0), Self.cellSizes.count - 1)])
    }

    /// Warms the thumbnails of the next screen in the direction of scrolling.
    private func scrolled() {
        guard let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque) else { return }
        let width = max(1, Int(gtk_widget_get_width(grid)))
        let cellSpan = cellSize + 4
        let columns = max(1, width / cellSpan)
        let firstRow = Int(gtk_adjustment_get_value(adjustment)) / cellSpan
        let rows = Int(gtk_adjustment_get_page_size(adjustment)) / cellSpan + 1
        let visible = (firstRow * columns)..<min(model.count, (firstRow + rows) * columns)
        guard !visible.isEmpty else { return }
        // The rows of the cells about to be bound, in one query instead of one per cell.
        let ahead = max(0, visible.lowerBound - visible.count)..<min(model.count, visible.upperBound + visible.count)
        _ = try? library.assets(ids: ahead.compactMap { model.assetID(at: $0) })
        if prefetcher == nil { prefetcher = Prefetcher(loader: loader, flavor: flavor) }
        prefetcher?.update(visible: visible, count: model.count) { [library, model] position in
            model.assetID(at: position).flatMap { try? library.asset(id: $0) }?.path
        }
    }

    // MARK: Preview

    /// The preview's header buttons, for the host's header bar: Back (at the start) and the pick
    /// toggle (at the end). Hidden unless the preview shows; while it shows, `albumSwitcher`,
    /// `cancelButton` and `confirmButton` are hidden instead (Cancel must not be one click away
    /// from dropping every pick). A host packs all five and leaves their visibility to the view.
    public var previewBackButton: UnsafeMutablePointer<GtkWidget> { preview.backButton }
    public var previewPickButton: UnsafeMutablePointer<GtkWidget> { preview.pickButton }

    /// Shows the photo at `position` large (P, Alt+Enter or a double click).
    func openPreview(at position: Int) {
        guard let id = model.assetID(at: position), let asset = try? library.asset(id: id) else { return }
        preview.show(asset, at: position, selection: selection, loader: loader) { [weak self] number in
            var text = "\(asset.kind == .video ? "Video" : "Photo"), \(asset.captureDate.spokenDate)"
            if let number, let self { text += ", picked \(number) of \(self.selection.count)" }
            return text
        }
        showPreviewHeader(true)
        installPreviewKeys()
        // The pick toggle takes the focus (Enter on it picks); without a header, the pane does.
        if gtk_widget_grab_focus(preview.pickButton) == 0 { gtk_widget_grab_focus(preview.widget) }
    }

    /// Back to the grid, with the focus where it was.
    func closePreview() {
        preview.hide()
        showPreviewHeader(false)
        gtk_widget_grab_focus(grid)
    }

    private func showPreviewHeader(_ shown: Bool) {
        for button in [albumSwitcher, cancelButton, confirmButton] { gtk_widget_set_visible(button, shown ? 0 : 1) }
        gtk_widget_set_visible(preview.backButton, shown ? 1 : 0)
        gtk_widget_set_visible(preview.pickButton, shown ? 1 : 0)
    }

    /// The window the preview's keys are caught on (see installPreviewKeys).
    var previewKeysRoot: OpaquePointer?

    /// Picks or unpicks the previewed photo (by id: positions move while the index changes).
    func togglePreviewed() {
        guard let id = preview.assetID, let position = model.position(of: id) else { return }
        toggle(at: position)
    }

    func movePreview(by step: Int) {
        guard let id = preview.assetID, let position = model.position(of: id) else { return }
        var next = position + step
        while next >= 0 && next < model.count && model.assetID(at: next) == nil { next += step }
        if next >= 0 && next < model.count { openPreview(at: next) }
    }

    // MARK: Picking

    /// Files whose thumbnail failed for a reason of the file itself: they cannot be picked
    /// (a person would send a file nobody can open).
    private(set) var unshowable: [Int64: CellProblem] = [:]

    func noteUnshowable(_ id: Int64, _ problem: CellProblem) {
        unshowable[id] = problem
    }

    func toggle(at position: Int) {
        guard let id = model.assetID(at: position) else { return }
        if selection.number(of: id) == nil, let problem = unshowable[id] {
            cells.compactMap(\.cell).first { $0.assetID == id }?.shake()
            showToast("\(problem.explanation), so it cannot be picked")
            gtk_widget_error_bell(grid)
            return
        }
        if selection.toggle(id) == .refusedAtMaximum {
            cells.compactMap(\.cell).first { $0.assetID == id }?.shake()
            showToast("You can pick up to \(selection.maximum ?? 0)")
            gtk_widget_error_bell(grid)
        }
    }

    /// The grid position of the focused cell.
    var focusedPosition: Int? {
        guard let focused = gtk_widget_get_focus_child(grid), let child = gtk_widget_get_first_child(focused),
              let cell = attached(GridCell.self, on: child.raw, key: GridCell.key), let item = cell.listItem else { return nil }
        return Int(gtk_list_item_get_position(item))
    }

    public func confirm() {
        guard selection.count > 0 else { return }
        let assets = (try? library.assets(ids: selection.picked)) ?? []
        onConfirm?(assets)
    }

    private func updateConfirmButton() {
        let count = selection.count
        var text = count > 0 ? "\(confirmLabel) \(count)" : confirmLabel
        if let maximum = selection.maximum, count >= maximum { text = "\(confirmLabel) \(count) of \(maximum)" }
        gtk_button_set_label(confirmButton.cast(), text)
        gtk_widget_set_sensitive(confirmButton, count > 0 ? 1 : 0)
    }

    /// A problem the person could act on (a full disk, an index that could not be written, new
    /// files that will not show up): said once over the grid until dismissed, and on standard
    /// error for whoever started the picker from a terminal.
    public func report(_ problem: String, printing: Bool = true) {
        if printing { FileHandle.standardError.write(Data("photopick: \(problem)\n".utf8)) }
        guard isAlive else { return }
        let toast = adw_toast_new(problem)!
        adw_toast_set_timeout(toast, 0)
        adw_toast_set_priority(toast, ADW_TOAST_PRIORITY_HIGH)
        adw_toast_overlay_add_toast(toasts.opaque, toast)
    }

    /// A short message over the grid that goes by itself.
    func showToast(_ text: String) {
        let toast = adw_toast_new(text)!
        adw_toast_set_timeout(toast, 2)
        adw_toast_overlay_add_toast(toasts.opaque, toast)
    }

    // MARK: Remembering

    /// The album as remembered between runs: a smart album's name or a folder's path.
    var albumKey: String? {
        switch currentAlbum {
        case .smart(let smart)?: return smart.name
        case .folder?: return albums.first { $0.album == currentAlbum }?.folderPath?.displayString
        case nil: return nil
        }
    }

    func album(forKey key: String) -> Album? {
        if let smart = SmartAlbum(name: key) { return .smart(smart) }
        return (try? library.albums())?.first { $0.folderPath?.displayString == key }?.album
    }

    /// Puts the keyboard focus on the first photo (after the camera slot).
    /// On a first run the grid is empty when the window opens: the first photo takes the focus
    /// when it arrives (unless the person has put the focus somewhere meanwhile).
    public func focusFirstPhoto() {
        focusFirstPhoto(attempts: 3)
    }

    private func focusFirstPhoto(attempts: Int) {
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
        guard attempts > 0 else { return }
        focusRetry.schedule(priority: G_PRIORITY_HIGH_IDLE + 30) { [weak self] in self?.focusFirstPhoto(attempts: attempts - 1) }
    }

    private func focusFirstPhotoIfStillWanted() {
        guard focusWhenFilled, model.count > (model.showsCamera ? 1 : 0) else { return }
        let focus = gtk_widget_get_root(widget).flatMap { gtk_root_get_focus($0) }
        if focus == nil || focus == grid { focusFirstPhoto() } else { focusWhenFilled = false }
    }
}

extension FilePath {
    /// "Pictures" for /home/ann/Pictures: how a folder is named to a person.
    var lastComponentName: String { String(decoding: lastComponent, as: UTF8.self) }
}
