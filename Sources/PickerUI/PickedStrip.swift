// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel
import Thumbnails

/// The strip of picked photos under the grid, in pick order with their numbers; clicking one
/// unpicks it. Items slide in when picked and out when unpicked; the strip itself slides in with
/// the first pick and out with the last. For the keyboard the strip is one Tab stop: the arrow
/// keys (and Home, End) move between its items, Alt with an arrow moves the focused pick in the
/// order, Space or Enter unpicks one, and Tab leaves.
///
/// A widget of its own type, `PhotopickPickedStrip` (CSS node `photopick-strip`, its row of
/// items `.picked-strip`); the widget owns this object.
@MainActor
final class PickedStrip: SwiftWidget {
    static let widgetType = WidgetType("PhotopickPickedStrip", cssName: "photopick-strip", layout: gtk_bin_layout_get_type())

    let widget: UnsafeMutablePointer<GtkWidget>
    /// Slides the strip in with the first pick and out with the last.
    private let revealer: UnsafeMutablePointer<GtkWidget>
    private let row: UnsafeMutablePointer<GtkWidget>
    private var items: [Int64: Item] = [:]
    /// The picks in the strip's order.
    private var order: [Int64] = []
    /// The item the keyboard was last on: Tab into the strip comes back to it.
    private var lastFocused: Int64?
    /// Tab (true) or Shift+Tab (false) on an item: the focus leaves the strip (Picker).
    var onLeave: ((_ forward: Bool) -> Void)?
    /// The last pick went while the keyboard was on it: the focus has to go somewhere.
    var onFocusLost: (() -> Void)?
    /// The removals of items sliding out; the strip owns them, so none runs after it is gone.
    private var leaving: [ObjectIdentifier: MainLoopSource] = [:]
    var onRemove: ((Int64) -> Void)?
    /// The picked files as drag content for another app (a GdkContentProvider, owned by the caller).
    var filesForDrag: (() -> UnsafeMutableRawPointer?)?
    /// A picked photo dragged to another place in the strip: (its id, the id it was dropped on).
    var onMove: ((Int64, Int64) -> Void)?
    /// The copies of picks on another machine: an item shows its copy's ring.
    var fetches: FetchStore?
    static let side: Int32 = 56
    /// The most picks shown as items; the rest are a count after them.
    static let shownAtMost = 200
    /// "+59,800": the picks after the items.
    private let moreLabel: UnsafeMutablePointer<GtkWidget>
    /// The picks shown as items, and the count after them when shown (tests).
    var shown: (items: Int, more: String?) {
        (order.count, gtk_widget_get_visible(moreLabel) != 0 ? gtk_label_get_text(moreLabel.opaque).map { String(cString: $0) } : nil)
    }
    static let transitionMilliseconds: guint = 200

    /// One picked photo: a revealer (for the slide) around a button with the picture and number.
    @MainActor
    final class Item {
        let revealer: UnsafeMutablePointer<GtkWidget>
        let number: UnsafeMutablePointer<GtkWidget>
        let picture: UnsafeMutablePointer<GtkWidget>
        var request: ThumbnailRequest?
        /// The copy's progress, when the pick lives on another machine.
        let ring = FetchRing(side: 28, captioned: false, withButtons: false)
        var fetchSubscription: Subscription?
        /// The photo's name and date, as its button is named to a screen reader.
        var spoken = (name: "", date: "")

        init() {
            revealer = gtk_revealer_new()
            gtk_revealer_set_transition_type(revealer.opaque, GTK_REVEALER_TRANSITION_TYPE_SLIDE_RIGHT)
            gtk_revealer_set_transition_duration(revealer.opaque, PickedStrip.transitionMilliseconds)
            let button = gtk_button_new()!
            style(button, "picked-item", "flat")
            // Room round it for the focus ring inside the revealer, which clips to its size
            // (the strip's spacing and padding are less by as much).
            for side in [gtk_widget_set_margin_start, gtk_widget_set_margin_end, gtk_widget_set_margin_top, gtk_widget_set_margin_bottom] {
                side(button, PickedStrip.focusRoom)
            }
            let overlay = gtk_overlay_new()!
            picture = gtk_picture_new()
            gtk_widget_set_size_request(picture, PickedStrip.side, PickedStrip.side)
            gtk_overlay_set_child(overlay.opaque, picture)
            place(ring.root, over: overlay, GTK_ALIGN_CENTER, GTK_ALIGN_CENTER)
            number = gtk_label_new(nil)
            style(number, "pick-badge", "small")
            place(number, over: overlay, GTK_ALIGN_END, GTK_ALIGN_START, targetable: true)
            gtk_button_set_child(button.cast(), overlay)
            gtk_revealer_set_child(revealer.opaque, button)
        }
    }

    /// The margin round each item that its focus ring is drawn in.
    static let focusRoom: Int32 = 3

    init() {
        widget = Self.widgetType.make()
        revealer = gtk_revealer_new()
        gtk_widget_set_parent(revealer, widget)
        gtk_revealer_set_transition_type(revealer.opaque, GTK_REVEALER_TRANSITION_TYPE_SLIDE_UP)
        let scroller = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_policy(scroller.opaque, GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER)
        row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6 - 2 * Self.focusRoom)
        style(row, "picked-strip")
        moreLabel = gtk_label_new(nil)
        style(moreLabel, "dim-label", "picked-more")
        gtk_widget_set_visible(moreLabel, 0)
        gtk_box_append(row.cast(), moreLabel)
        gtk_scrolled_window_set_child(scroller.opaque, row)
        gtk_revealer_set_child(revealer.opaque, scroller)
        let keys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE)
        Signal.connect(keys.raw, "key-pressed", key: { [weak self] keyval, modifiers in
            self?.key(keyval, modifiers) ?? false
        })
        gtk_widget_add_controller(row, keys)
        Self.widgetType.adopt(self, by: widget)
    }

    /// No thumbnail is waited for, and no removal runs, after the strip went.
    func widgetDisposed() {
        cancelAll()
        leaving.removeAll()
    }

    /// Gives the keyboard focus to the strip: the item it was last on, or the first.
    @discardableResult
    func focus() -> Bool {
        guard gtk_revealer_get_reveal_child(revealer.opaque) != 0,
              let id = lastFocused.flatMap({ items[$0] != nil ? $0 : nil }) ?? order.first else { return false }
        return focus(id)
    }

    /// Moves the keyboard focus on past the strip, where GTK's Tab goes from its last item: the
    /// items refuse it meanwhile. (Through the last item, a screen reader said it on the way.)
    func moveFocusPast(forward: Bool) -> Bool {
        guard let root = gtk_widget_get_root(row) else { return false }
        gtk_widget_set_can_focus(row, 0)
        defer { gtk_widget_set_can_focus(row, 1) }
        let window = UnsafeMutableRawPointer(root).assumingMemoryBound(to: GtkWidget.self)
        return gtk_widget_child_focus(window, forward ? GTK_DIR_TAB_FORWARD : GTK_DIR_TAB_BACKWARD) != 0
    }

    @discardableResult
    private func focus(_ id: Int64) -> Bool {
        guard let button = items[id].flatMap({ gtk_revealer_get_child($0.revealer.opaque) }) else { return false }
        lastFocused = id
        guard gtk_widget_grab_focus(button) != 0 else { return false }
        // Far along a long strip: bring it into view.
        if let scroller = gtk_widget_get_ancestor(button, gtk_scrolled_window_get_type()),
           let adjustment = gtk_scrolled_window_get_hadjustment(scroller.opaque) {
            var x = 0.0, y = 0.0
            if gtk_widget_translate_coordinates(button, row, 0, 0, &x, &y) != 0 {
                let width = Double(gtk_widget_get_width(button))
                gtk_adjustment_clamp_page(adjustment, x, x + width)
            }
        }
        return true
    }

    /// The pick whose item has the keyboard focus.
    private var focusedID: Int64? {
        guard let root = gtk_widget_get_root(row), let focus = gtk_root_get_focus(root) else { return nil }
        return order.first { id in
            items[id].map { focus == $0.revealer || gtk_widget_is_ancestor(focus, $0.revealer) != 0 } ?? false
        }
    }

    private func key(_ keyval: UInt32, _ modifiers: UInt32) -> Bool {
        guard let current = focusedID, let index = order.firstIndex(of: current) else { return false }
        // (Right-to-left languages lay the strip out from the right: the arrows follow the eye.)
        let rtl = gtk_widget_get_direction(row) == GTK_TEXT_DIR_RTL
        // Alt+arrows move the focused pick in the order, as a drag onto its neighbour does.
        if modifiers & (GDK_CONTROL_MASK.rawValue | GDK_SUPER_MASK.rawValue) == 0, modifiers & GDK_ALT_MASK.rawValue != 0 {
            let step: Int
            switch Int32(keyval) {
            case GDK_KEY_Left, GDK_KEY_KP_Left: step = rtl ? 1 : -1
            case GDK_KEY_Right, GDK_KEY_KP_Right: step = rtl ? -1 : 1
            default: return false
            }
            guard order.indices.contains(index + step) else {
                gtk_widget_error_bell(row)
                return true
            }
            onMove?(current, order[index + step])
            return true
        }
        let mask = GDK_CONTROL_MASK.rawValue | GDK_ALT_MASK.rawValue | GDK_SUPER_MASK.rawValue
        if modifiers & mask != 0 { return false }
        switch Int32(keyval) {
        case GDK_KEY_Left, GDK_KEY_KP_Left: return move(to: index + (rtl ? 1 : -1))
        case GDK_KEY_Right, GDK_KEY_KP_Right: return move(to: index + (rtl ? -1 : 1))
        case GDK_KEY_Home, GDK_KEY_KP_Home: return move(to: 0)
        case GDK_KEY_End, GDK_KEY_KP_End: return move(to: order.count - 1)
        case GDK_KEY_Up, GDK_KEY_Down: return true  // a row: nothing above or below inside it
        case GDK_KEY_Tab, GDK_KEY_KP_Tab:
            onLeave?(modifiers & GDK_SHIFT_MASK.rawValue == 0)
            return true
        case GDK_KEY_ISO_Left_Tab:
            onLeave?(false)
            return true
        default: return false
        }
    }

    private func move(to index: Int) -> Bool {
        guard order.indices.contains(index) else {
            gtk_widget_error_bell(row)
            return true
        }
        focus(order[index])
        return true
    }

    /// Brings the strip in line with `picked`: new items slide in, removed ones slide out, the
    /// rest are renumbered and put in order.
    func show(_ all: [Int64], rows: (Int64) -> Asset?, loader: ThumbnailLoader) {
        // The first picks only, and how many more: Ctrl+A in an album of 60,000 made an item a
        // pick, each a widget and a thumbnail, and walked them all at every pick.
        let picked = Array(all.prefix(Self.shownAtMost))
        let wanted = Set(picked)
        // An item unpicked from the keyboard: the focus goes to its neighbour, as in a list.
        let focused = focusedID
        var focusNext: Int64?
        if let focused, !wanted.contains(focused), let index = order.firstIndex(of: focused) {
            focusNext = order[(index + 1)...].first(where: wanted.contains) ?? order[..<index].last(where: wanted.contains)
        }
        for (id, item) in items where !wanted.contains(id) {
            items[id] = nil
            item.request?.cancel()
            item.fetchSubscription = nil
            gtk_revealer_set_reveal_child(item.revealer.opaque, 0)
            let removal = MainLoopSource(), key = ObjectIdentifier(removal)
            leaving[key] = removal
            // Both stay alive until the removal ran, even if the window closed meanwhile.
            let row = GObjectRef(row, transfer: .none), revealer = GObjectRef(item.revealer, transfer: .none)
            removal.schedule(after: PickedStrip.transitionMilliseconds + 50, priority: G_PRIORITY_DEFAULT) { [weak self] in
                self?.leaving[key] = nil
                // The strip may have been destroyed meanwhile, taking its children with it.
                let child = revealer.pointer(as: GtkWidget.self)
                if gtk_widget_get_parent(child) == row.pointer(as: GtkWidget.self) { gtk_box_remove(row.pointer(as: GtkBox.self), child) }
            }
        }
        var previous: UnsafeMutablePointer<GtkWidget>?
        for (index, id) in picked.enumerated() {
            let item: Item
            if let existing = items[id] {
                item = existing
                gtk_box_reorder_child_after(row.cast(), item.revealer, previous)
            } else {
                guard let asset = rows(id) else { continue }
                item = make(id: id, asset: asset, loader: loader)
                items[id] = item
                gtk_box_insert_child_after(row.cast(), item.revealer, previous)
                gtk_revealer_set_reveal_child(item.revealer.opaque, 1)
            }
            gtk_label_set_text(item.number.opaque, String(index + 1))
            setTooltip(item.revealer, i18n("Unpick {number}", ["number": String(index + 1)]))
            if let button = gtk_revealer_get_child(item.revealer.opaque) {
                photopick_accessible_set_label(button, i18n("Unpick photo {number}, {name}, {date}",
                                                            ["number": String(index + 1), "name": item.spoken.name, "date": item.spoken.date]))
            }
            previous = item.revealer
        }
        let more = all.count - picked.count
        gtk_label_set_text(moreLabel.opaque, i18n("+{count}", ["count": Localization.number(more)]))
        photopick_accessible_set_label(moreLabel, ni18n("{count} more pick", "{count} more picks", more))
        gtk_widget_set_visible(moreLabel, more > 0 ? 1 : 0)
        gtk_box_reorder_child_after(row.cast(), moreLabel, previous)
        gtk_revealer_set_reveal_child(revealer.opaque, picked.isEmpty ? 0 : 1)
        order = picked.filter { items[$0] != nil }
        if let focused, !wanted.contains(focused) {
            if let focusNext { focus(focusNext) } else { onFocusLost?() }
        }
    }

    /// Stops loading thumbnails (the picker is going away).
    func cancelAll() {
        for item in items.values { item.request?.cancel() }
    }

    private func make(id: Int64, asset: Asset, loader: ThumbnailLoader) -> Item {
        let item = Item()
        item.spoken = (asset.displayName, asset.captureDate.spokenDate)
        if let fetches {
            item.ring.show(fetches.state(of: id), of: id)
            item.fetchSubscription = fetches.observe(id) { [weak item] state in item?.ring.show(state, of: id) }
        }
        if let button = gtk_revealer_get_child(item.revealer.opaque) {
            Signal.connect(button.raw, "clicked") { [weak self] in self?.onRemove?(id) }
            enableReordering(button, picture: item.picture, id: id)
        }
        let picture = item.picture
        // A centred square of the thumbnail, so every item in the strip has the same size.
        let show = { (pixbuf: Pixbuf) in
            guard let square = pixbuf.centredSquare(side: Int(PickedStrip.side)), let texture = gdk_texture_new_for_pixbuf(square.pointer) else { return }
            gtk_picture_set_paintable(picture.opaque, texture)
            g_object_unref(UnsafeMutableRawPointer(texture))
        }
        // The grid's cell has just shown it: from memory at once. (Asked through the queue, it
        // waited behind the cells in sight, and a large original showed a bare number a while.)
        if let hit = loader.memoryHit(asset.path, flavor: .normal, size: asset.version.size,
                                      modificationTimeNanoseconds: asset.version.modificationTimeNanoseconds)?.pixbuf {
            show(hit)
            return item
        }
        item.request = loader.request(asset.path, flavor: .normal) { result in
            guard case .success(let thumbnail) = result, let pixbuf = thumbnail.pixbuf else { return }
            show(pixbuf)
        }
        return item
    }

    /// Drag an item onto another to move it there (the pick order is the output order).
    private func enableReordering(_ button: UnsafeMutablePointer<GtkWidget>, picture: UnsafeMutablePointer<GtkWidget>, id: Int64) {
        let stringType = GType(16 << 2)  // G_TYPE_STRING: a fundamental type macro Swift cannot import
        let source = gtk_drag_source_new()!
        // Moved within the strip; copied when dropped into another app, which gets every
        // picked file in pick order.
        gtk_drag_source_set_actions(source, GdkDragAction(GDK_ACTION_MOVE.rawValue | GDK_ACTION_COPY.rawValue))
        Signal.connect(source.raw, "prepare", prepare: { [weak self] in
            // The photo goes with the pointer, with the count of the picks that go to another
            // app, as from the grid (DragIcon).
            if let photo = gtk_picture_get_paintable(picture.opaque),
               let icon = DragIcon.make(photo, count: self?.filesForDrag == nil ? 1 : self?.order.count ?? 1, on: button) {
                gtk_drag_source_set_icon(source, icon.paintable, icon.hotX, icon.hotY)
                g_object_unref(UnsafeMutableRawPointer(icon.paintable))
            }
            var value = GValue()
            g_value_init(&value, stringType)
            g_value_set_string(&value, String(id))
            defer { g_value_unset(&value) }
            guard let own = gdk_content_provider_new_for_value(&value) else { return nil }
            guard let files = self?.filesForDrag?() else { return UnsafeMutableRawPointer(own) }
            var both: [UnsafeMutablePointer<GdkContentProvider>?] = [own, files.assumingMemoryBound(to: GdkContentProvider.self)]
            return both.withUnsafeMutableBufferPointer { UnsafeMutableRawPointer(gdk_content_provider_new_union($0.baseAddress, gsize($0.count))) }
        })
        gtk_widget_add_controller(button, OpaquePointer(source.raw))
        let target = gtk_drop_target_new(stringType, GDK_ACTION_MOVE)!
        Signal.connect(target.raw, "drop", drop: { [weak self] value in
            guard let text = g_value_get_string(value), let dragged = Int64(String(cString: text)), dragged != id else { return false }
            self?.onMove?(dragged, id)
            return true
        })
        gtk_widget_add_controller(button, OpaquePointer(target.raw))
    }
}
