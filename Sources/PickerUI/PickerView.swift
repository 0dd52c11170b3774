import CGtk
import Glibc
import Dispatch
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
    private let strip: PickedStrip
    private let preview = PreviewPane()
    private let toast: UnsafeMutablePointer<GtkWidget>
    private let toastLabel: UnsafeMutablePointer<GtkWidget>
    private var albums: [AlbumSummary] = []
    private var currentAlbum: Album?
    private let progress: UnsafeMutablePointer<GtkWidget>
    private let progressLabel: UnsafeMutablePointer<GtkWidget>
    private let emptyState: UnsafeMutablePointer<GtkWidget>
    private var scanning = false
    /// False once the widgets are destroyed: work posted from other threads then does nothing.
    private(set) var isAlive = true
    private var scrollDelta = 0.0
    private var selectionObservation: SelectionStore.Observation?
    private let switcher: AlbumSwitcher
    private var toastTimer: guint = 0

    /// Cell edge in points, and the display scale.
    private(set) var cellSize = 120
    var scale = 1
    /// The sizes Ctrl+plus, Ctrl+minus and Ctrl+scroll step through.
    static let cellSizes = [72, 96, 120, 160, 200, 256]
    private var cells: [WeakCell] = []
    private var prefetcher: Prefetcher?

    struct WeakCell { weak var cell: GridCell? }
    var flavor: ThumbnailFlavor { ThumbnailFlavor.smallest(atLeast: cellSize, scale: scale) }

    /// The picked assets in order, when the person confirms.
    public var onConfirm: (([Asset]) -> Void)?
    public var onCancel: (() -> Void)?
    /// MIME type patterns ("image/*", "image/png") the picker offers; empty for everything.
    public var types: [String] = [] {
        didSet { if let album = currentAlbum { currentAlbum = nil; try? showAlbums(selecting: album) } }
    }

    /// The primary button's words: "Add" by default, or what a script asked for.
    public var confirmLabel = "Add" { didSet { updateConfirmButton() } }

    public init(library: PhotoLibrary, loader: ThumbnailLoader, maximum: Int? = nil, showsCamera: Bool = true) {
        self.library = library
        self.loader = loader
        selection = SelectionStore(maximum: maximum)
        model = AssetListModel(showsCamera: showsCamera)
        strip = PickedStrip()

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
        // Clicks are handled per cell (one click picks, a double click previews); Enter and
        // Space by the key controller.
        style(grid, "photo-grid")
        scroller = gtk_scrolled_window_new()
        gtk_scrolled_window_set_policy(scroller.opaque, GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_child(scroller.opaque, grid)
        gtk_widget_set_vexpand(scroller, 1)

        let overlay = gtk_overlay_new()!
        gtk_overlay_set_child(overlay.opaque, scroller)
        emptyState = gtk_label_new(nil)
        style(emptyState, "empty-state", "title-3")
        gtk_label_set_wrap(emptyState.opaque, 1)
        gtk_label_set_justify(emptyState.opaque, GTK_JUSTIFY_CENTER)
        gtk_widget_set_halign(emptyState, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(emptyState, GTK_ALIGN_CENTER)
        gtk_widget_set_can_target(emptyState, 0)
        gtk_widget_set_visible(emptyState, 0)
        gtk_overlay_add_overlay(overlay.opaque, emptyState)
        toast = gtk_revealer_new()
        toastLabel = gtk_label_new(nil)
        style(toastLabel, "toast")
        gtk_revealer_set_child(toast.opaque, toastLabel)
        gtk_revealer_set_transition_type(toast.opaque, GTK_REVEALER_TRANSITION_TYPE_CROSSFADE)
        gtk_widget_set_halign(toast, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(toast, GTK_ALIGN_END)
        gtk_widget_set_margin_bottom(toast, 16)
        gtk_widget_set_can_target(toast, 0)
        gtk_overlay_add_overlay(overlay.opaque, preview.widget)
        gtk_overlay_add_overlay(overlay.opaque, toast)
        progress = gtk_revealer_new()
        progressLabel = gtk_label_new(nil)
        style(progressLabel, "index-progress")
        gtk_revealer_set_child(progress.opaque, progressLabel)
        gtk_box_append(widget.cast(), progress)
        gtk_box_append(widget.cast(), overlay)
        gtk_box_append(widget.cast(), strip.widget)

        switcher = AlbumSwitcher(library: library, loader: loader)
        albumSwitcher = switcher.widget
        confirmButton = gtk_button_new_with_label("Add")
        style(confirmButton, "suggested-action")
        gtk_widget_set_sensitive(confirmButton, 0)
        cancelButton = gtk_button_new_with_label("Cancel")

        Signal.connect(factory.raw, "setup", object: { [unowned self] item in self.setUpCell(OpaquePointer(item)) })
        Signal.connect(factory.raw, "bind", object: { [unowned self] item in self.cell(OpaquePointer(item))?.bind(item: gtk_list_item_get_item(OpaquePointer(item))) })
        Signal.connect(factory.raw, "unbind", object: { [unowned self] item in self.cell(OpaquePointer(item))?.unbind() })
        switcher.onChoose = { [weak self] album in self?.albumChosen(album) }
        switcher.onFocusContent = { [weak self] in self?.focusFirstPhoto() }
        Signal.connect(confirmButton.raw, "clicked") { [unowned self] in self.confirm() }
        if let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque) {
            Signal.connect(adjustment.raw, "value-changed") { [unowned self] in self.scrolled() }
        }
        if let adjustment = gtk_scrolled_window_get_hadjustment(scroller.opaque) {
            Signal.connect(adjustment.raw, "changed") { [unowned self] in self.fitColumns() }
        }
        Signal.connect(cancelButton.raw, "clicked") { [unowned self] in self.onCancel?() }
        installKeys()

        strip.onRemove = { [unowned self] id in self.selection.remove([id]) }
        strip.onMove = { [unowned self] dragged, target in
            guard let from = self.selection.picked.firstIndex(of: dragged),
                  let to = self.selection.picked.firstIndex(of: target) else { return }
            self.selection.move(from: from, to: to)
        }
        preview.onToggle = { [weak self] in self?.togglePreviewed() }
        preview.onClose = { [weak self] in self?.closePreview() }
        selectionObservation = selection.observe { [unowned self] change in
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
        if toastTimer != 0 { g_source_remove(toastTimer) }
        toastTimer = 0
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
                if let details, self.model.fetchResult === base { self.model.apply(details) }
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
            _ = try? library.scan(progress: { progress in
                if progress.elapsedSeconds - lastPosted >= 0.5 { post(now: progress.elapsedSeconds) }
                guard firstRun, progress.elapsedSeconds - lastShown > 0.25 || progress.finished else { return }
                lastShown = progress.elapsedSeconds
                MainLoopDispatcher.shared.post { if self.isAlive { self.showProgress(progress, expected: expected) } }
            }, committed: { change in
                pending.merge(change)
            })
            post(now: 0)
            MainLoopDispatcher.shared.post {
                guard self.isAlive else { return }
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

    private func updateEmptyState() {
        let empty = (model.fetchResult?.count ?? 0) == 0
        if empty {
            let text: String
            if scanning {
                text = "Looking for photos…"
            } else if let missing = library.roots.first(where: { !$0.isDirectory }) {
                text = "The folder \(missing) does not exist.\nCreate it and put photos in it, or open another folder with photopick --library FOLDER."
            } else if currentAlbum == .smart(.recents) || currentAlbum == nil {
                let folders = library.roots.map(\.displayString).joined(separator: ", ")
                text = "No photos or videos in \(folders).\nAdd some there, or open another folder with photopick --library FOLDER."
            } else {
                text = "This album is empty."
            }
            gtk_label_set_text(emptyState.opaque, text)
        }
        gtk_widget_set_visible(emptyState, empty ? 1 : 0)
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

    /// As many columns as cells of the chosen size fit in the width.
    private func fitColumns() {
        guard let adjustment = gtk_scrolled_window_get_hadjustment(scroller.opaque) else { return }
        let width = Int(gtk_adjustment_get_page_size(adjustment))
        guard width > 0 else { return }
        let columns = guint(max(1, min(60, width / (cellSize + 4))))
        if gtk_grid_view_get_max_columns(grid.opaque) != columns { gtk_grid_view_set_max_columns(grid.opaque, columns) }
    }

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

    /// Shows the photo at `position` large (P, Alt+Enter or a double click).
    func openPreview(at position: Int) {
        guard let id = model.assetID(at: position), let asset = try? library.asset(id: id) else { return }
        preview.show(asset, at: position, selection: selection, loader: loader) { [unowned self] asset, number in
            var text = "\(asset.kind == .video ? "Video" : "Photo"), \(asset.captureDate.spokenDate)"
            if let number { text += ", picked \(number) of \(self.selection.count)" }
            return text
        }
    }

    /// Back to the grid, with the focus where it was.
    func closePreview() {
        preview.hide()
        gtk_widget_grab_focus(grid)
    }

    /// Picks or unpicks the previewed photo (by id: positions move while the index changes).
    private func togglePreviewed() {
        guard let id = preview.assetID, let position = model.position(of: id) else { return }
        toggle(at: position)
    }

    private func movePreview(by step: Int) {
        guard let id = preview.assetID, let position = model.position(of: id) else { return }
        var next = position + step
        while next >= 0 && next < model.count && model.assetID(at: next) == nil { next += step }
        if next >= 0 && next < model.count { openPreview(at: next) }
    }

    // MARK: Picking

    func toggle(at position: Int) {
        guard let id = model.assetID(at: position) else { return }
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

    private func showToast(_ text: String) {
        gtk_label_set_text(toastLabel.opaque, text)
        gtk_revealer_set_reveal_child(toast.opaque, 1)
        if toastTimer != 0 { g_source_remove(toastTimer) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        toastTimer = g_timeout_add(2000, { data in
            let view = Unmanaged<PickerView>.fromOpaque(data!).takeUnretainedValue()
            gtk_revealer_set_reveal_child(view.toast.opaque, 0)
            view.toastTimer = 0
            return 0
        }, context)
    }

    // MARK: Keyboard

    private func installKeys() {
        let keys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE)
        Signal.connect(keys.raw, "key-pressed", key: { [unowned self] keyval, modifiers in
            let control = modifiers & GDK_CONTROL_MASK.rawValue != 0
            let alt = modifiers & GDK_ALT_MASK.rawValue != 0
            if self.preview.isVisible {
                switch Int32(keyval) {
                case GDK_KEY_Escape: self.closePreview()
                case GDK_KEY_Left, GDK_KEY_Up: self.movePreview(by: -1)
                case GDK_KEY_Right, GDK_KEY_Down: self.movePreview(by: 1)
                case GDK_KEY_space, GDK_KEY_Return, GDK_KEY_KP_Enter:
                    if control { self.confirm() } else if self.preview.buttonHasFocus { return false } else { self.togglePreviewed() }
                default: return false
                }
                return true
            }
            switch Int32(keyval) {
            case GDK_KEY_p, GDK_KEY_P:
                guard !control, let position = self.focusedPosition else { return false }
                self.openPreview(at: position)
                return true
            case GDK_KEY_plus, GDK_KEY_equal, GDK_KEY_KP_Add:
                guard control else { return false }
                self.zoom(by: 1)
                return true
            case GDK_KEY_minus, GDK_KEY_KP_Subtract:
                guard control else { return false }
                self.zoom(by: -1)
                return true
            case GDK_KEY_Return, GDK_KEY_KP_Enter:
                if control { self.confirm(); return true }
                if alt, let position = self.focusedPosition { self.openPreview(at: position); return true }
                if let position = self.focusedPosition { self.toggle(at: position); return true }
                return false
            case GDK_KEY_space:
                if let position = self.focusedPosition { self.toggle(at: position); return true }
                return false
            case GDK_KEY_Escape:
                self.onCancel?()
                return true
            default:
                return false
            }
        })
        gtk_widget_add_controller(widget, keys)
        // Ctrl+scroll zooms, as in image viewers and file managers.
        let scroll = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_VERTICAL)!
        gtk_event_controller_set_propagation_phase(scroll, GTK_PHASE_CAPTURE)
        Signal.connect(scroll.raw, "scroll", delta: { [unowned self] dy in
            guard let event = gtk_event_controller_get_current_event(scroll),
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
    public func focusFirstPhoto() {
        gtk_widget_grab_focus(grid)
        if model.showsCamera && model.count > 1 { _ = gtk_widget_child_focus(grid, GTK_DIR_RIGHT) }
    }
}
