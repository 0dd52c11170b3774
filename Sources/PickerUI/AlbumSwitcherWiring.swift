// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport

// The album switcher's GTK wiring: the list box's filter and headings, signals, keys.

extension AlbumSwitcher {
    /// The list box's filter (the search) and section headings ("Albums", "Folders"). GTK gives
    /// the header function the previous *shown* row, so the headings follow the search.
    /// (C callbacks written in main-actor code compile as main-actor code, but nothing checks the
    /// thread on entry: they enter through assumeIsolated, as the signal thunks do.)
    func installListFunctions() {
        gtk_list_box_set_filter_func(list.opaque, { listRow, data in MainActor.assumeIsolated {
            guard let switcher = Unmanaged<WeakBox>.fromOpaque(data!).takeUnretainedValue().switcher else { return 1 }
            if let listRow, UnsafeMutableRawPointer(listRow) == UnsafeMutableRawPointer(switcher.dateRow) { return switcher.destination != nil ? 1 : 0 }
            guard let row = switcher.row(for: listRow.map(UnsafeMutableRawPointer.init)) else { return 1 }
            return switcher.isShown(row) ? 1 : 0
        } }, Unmanaged.passRetained(WeakBox(self)).toOpaque(), { data in
            MainActor.preconditionIsolated()
            Unmanaged<WeakBox>.fromOpaque(data!).release()
        })
        gtk_list_box_set_sort_func(list.opaque, { first, second, data in MainActor.assumeIsolated {
            guard let switcher = Unmanaged<WeakBox>.fromOpaque(data!).takeUnretainedValue().switcher,
                  let first, let second else { return 0 }
            return switcher.searchOrder(UnsafeMutableRawPointer(first), UnsafeMutableRawPointer(second))
        } }, Unmanaged.passRetained(WeakBox(self)).toOpaque(), { data in
            MainActor.preconditionIsolated()
            Unmanaged<WeakBox>.fromOpaque(data!).release()
        })
        gtk_list_box_set_header_func(list.opaque, { listRow, before, data in MainActor.assumeIsolated {
            guard let listRow, let switcher = Unmanaged<WeakBox>.fromOpaque(data!).takeUnretainedValue().switcher,
                  let row = switcher.row(for: UnsafeMutableRawPointer(listRow)) else { return }
            let previous = switcher.row(for: before.map(UnsafeMutableRawPointer.init))
            guard previous?.section != row.section else {
                gtk_list_box_row_set_header(listRow, nil)
                return
            }
            let text = row.section == .albums ? i18n("Albums") : i18n("Folders")
            if let header = gtk_list_box_row_get_header(listRow) {
                gtk_label_set_text(OpaquePointer(header), text)
            } else {
                let header = gtk_label_new(text)!
                gtk_label_set_xalign(header.opaque, 0)
                style(header, "heading", "dim-label", "album-switcher-heading")
                gtk_list_box_row_set_header(listRow, header)
            }
        } }, Unmanaged.passRetained(WeakBox(self)).toOpaque(), { data in
            MainActor.preconditionIsolated()
            Unmanaged<WeakBox>.fromOpaque(data!).release()
        })
    }

    func connectSignals() {
        Signal.connect(list.raw, "row-activated", object: { [weak self] listRow in
            guard let self else { return }
            if listRow == UnsafeMutableRawPointer(self.dateRow) { return self.goToDate() }
            guard let row = self.row(for: listRow) else { return }
            self.choose(row)
        })
        Signal.connect(search.raw, "search-changed") { [weak self] in self?.applySearch() }
        // Typing in the list goes to the entry (the key capture): the focus follows, so that a
        // space or a second letter also goes there instead of activating a row.
        Signal.connect(search.raw, "changed") { [weak self] in
            guard let self, !self.isClosing, gtk_widget_get_mapped(self.search) != 0,
                  gtk_widget_get_focus_child(self.search) == nil else { return }
            gtk_widget_grab_focus(self.search)
        }
        Signal.connect(search.raw, "activate") { [weak self] in self?.chooseFirstMatch() }
        // Escape in the entry stops the search: here that closes the popover, as Escape elsewhere in it.
        Signal.connect(search.raw, "stop-search") { [weak self] in self?.popdown() }
        Signal.connect(popover.raw, "show") { [weak self] in self?.opened() }
        Signal.connect(popover.raw, "map") { [weak self] in self?.mapped() }
        Signal.connect(popover.raw, "closed") { [weak self] in self?.closed() }
        if let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque) {
            Signal.connect(adjustment.raw, "value-changed") { [weak self] in self?.updateCovers() }
            Signal.connect(adjustment.raw, "changed") { [weak self] in self?.updateCovers() }
        }

        // Down in the entry moves to the first match; Up on the first match returns to the entry.
        let entryKeys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(entryKeys, GTK_PHASE_CAPTURE)
        Signal.connect(entryKeys.raw, "key-pressed", key: { [weak self] keyval, _ in
            guard let self else { return false }
            let key = Int32(keyval)
            self.applySearch()
            switch key {
            case GDK_KEY_Down, GDK_KEY_KP_Down:
                if self.destination != nil {
                    gtk_widget_grab_focus(self.dateRow)
                    return true
                }
                guard let first = self.shownRows.first else { return false }
                gtk_widget_grab_focus(first.widget)
                return true
            // The list is one Tab stop, as the grid is (GtkListBox's own Tab walks through every
            // row): Tab, or Shift+Tab, goes to the open album's row, or to the first match.
            case GDK_KEY_Tab, GDK_KEY_KP_Tab, GDK_KEY_ISO_Left_Tab:
                let open = self.query.isEmpty ? self.shownRows.first { $0.summary.album == self.current } : nil
                guard let row = self.destination != nil ? self.dateRow : (open ?? self.shownRows.first)?.widget else { return false }
                gtk_widget_grab_focus(row)
                return true
            // End (or Ctrl+End) with nothing typed has no text to move in: the last row.
            case GDK_KEY_End where self.query.isEmpty, GDK_KEY_KP_End where self.query.isEmpty:
                guard let last = self.shownRows.last else { return false }
                gtk_widget_grab_focus(last.widget)
                return true
            default:
                return false
            }
        })
        gtk_widget_add_controller(search, entryKeys)
        let listKeys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(listKeys, GTK_PHASE_CAPTURE)
        Signal.connect(listKeys.raw, "key-pressed", key: { [weak self] keyval, _ in
            guard let self else { return false }
            let key = Int32(keyval)
            let focused = self.rows.first { gtk_widget_has_focus($0.widget) != 0 }
            switch key {
            case GDK_KEY_Right, GDK_KEY_KP_Right, GDK_KEY_plus, GDK_KEY_KP_Add:
                return focused.map { self.keyOnRow($0, opening: true) } ?? false
            case GDK_KEY_Left, GDK_KEY_KP_Left, GDK_KEY_minus, GDK_KEY_KP_Subtract:
                return focused.map { self.keyOnRow($0, opening: false) } ?? false
            case GDK_KEY_Tab, GDK_KEY_KP_Tab, GDK_KEY_ISO_Left_Tab:
                gtk_widget_grab_focus(self.search)
                return true
            case GDK_KEY_Up, GDK_KEY_KP_Up:
                let top = self.destination != nil ? self.dateRow : self.shownRows.first?.widget
                guard let top, gtk_widget_get_focus_child(self.list) == top else { return false }
                gtk_widget_grab_focus(self.search)
                return true
            default:
                return false
            }
        })
        gtk_widget_add_controller(list, listKeys)
    }

    /// Rows ask for their cover when they come on screen and drop the request when they go.
    func connectRow(_ row: AlbumSwitcherRow) {
        Signal.connect(row.widget.raw, "unmap") { [weak row] in row?.cancelCover() }
        Signal.connect(row.expander.raw, "clicked") { [weak self, weak row] in
            guard let self, let row else { return }
            self.setExpanded(row, !row.isExpanded)
        }
    }
}

/// Sets a string property through a GValue (g_object_set is variadic).
@MainActor func setStringProperty(_ widget: UnsafeMutablePointer<GtkWidget>, _ name: String, _ text: String) {
    var value = GValue()
    g_value_init(&value, GType(16 << 2))  // G_TYPE_STRING
    g_value_set_string(&value, text)
    g_object_set_property(widget.cast(), name, &value)
    g_value_unset(&value)
}
