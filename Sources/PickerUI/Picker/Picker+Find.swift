// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary

/// Type-ahead find: typing a file name anywhere in the picker but a text entry focuses the first
/// photo of the album whose name starts with it (or, from three letters on, holds it), as GTK's
/// file chooser and Nautilus find a file. What was typed shows at the top of the grid, under the
/// header, and goes 2.5 s after the last key; Backspace takes a letter back, and a space is part
/// of the name while a find is under way. In a script's picker "/" or "~" opens the location
/// bar instead (Ctrl+L), as in GTK's chooser. Space picks otherwise, and Escape still cancels.
extension Picker {
    /// How long the typed text stays after the last key (GtkTreeView's type-ahead keeps its
    /// entry 5 s; a photo is found at the first letters, so the next search starts sooner).
    static let findTimeout: guint = 2500

    func makeFindBar() -> UnsafeMutablePointer<GtkWidget> {
        let bar = gtk_revealer_new()!
        // (Hidden, it takes no room: a slide of no duration. It never takes a click either.)
        gtk_revealer_set_transition_type(bar.opaque, GTK_REVEALER_TRANSITION_TYPE_SLIDE_UP)
        gtk_revealer_set_transition_duration(bar.opaque, 0)
        gtk_widget_set_halign(bar, GTK_ALIGN_CENTER)
        // At the top, where a person looks for what a search found (at the bottom it went
        // unseen: issue 40, point 8).
        gtk_widget_set_valign(bar, GTK_ALIGN_START)
        gtk_widget_set_margin_top(bar, 12)
        gtk_widget_set_can_target(bar, 0)
        let box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        style(box, "find-bar", "osd")
        gtk_box_append(box.cast(), gtk_image_new_from_icon_name("edit-find-symbolic"))
        gtk_label_set_ellipsize(findLabel.opaque, PANGO_ELLIPSIZE_START)
        gtk_label_set_max_width_chars(findLabel.opaque, 40)
        gtk_box_append(box.cast(), findLabel)
        gtk_revealer_set_child(bar.opaque, box)
        return bar
    }

    var findIsShown: Bool { gtk_revealer_get_reveal_child(findBar.opaque) != 0 }
    /// What the find bar says (tests).
    var findBarText: String? { gtk_label_get_text(findLabel.opaque).map { String(cString: $0) } }

    /// A key on the grid that may be a letter of a name: true if it was taken.
    func findKey(_ keyval: UInt32, _ modifiers: UInt32) -> Bool {
        let plain = modifiers & (GDK_CONTROL_MASK.rawValue | GDK_ALT_MASK.rawValue | GDK_SUPER_MASK.rawValue) == 0
        guard plain else { return false }
        if Int32(keyval) == GDK_KEY_BackSpace {
            guard !findText.isEmpty else { return false }
            findText.removeLast()
            findText.isEmpty ? endFind() : find()
            return true
        }
        let code = gdk_keyval_to_unicode(keyval)
        // A space in a name typed so far ("Garden wall"); otherwise Space picks.
        if code == 0x20, !findText.isEmpty {
            findText.append(" ")
            find()
            return true
        }
        // Printable.
        guard code > 0x20, code != 0x7f, let scalar = Unicode.Scalar(code),
              !scalar.properties.generalCategory.isControl else { return false }
        if findText.isEmpty, offersLocation, scalar == "/" || scalar == "~" {
            openLocation()
            gtk_editable_set_text(locationEntry.opaque, String(scalar))
            gtk_editable_set_position(locationEntry.opaque, -1)
            return true
        }
        findText.unicodeScalars.append(scalar)
        find()
        return true
    }

    /// A key pressed while the focus is elsewhere in the picker (a header button, the strip):
    /// a letter starts a find there too, and the photo found takes the focus. Not in a text
    /// entry (the location bar, the album list's search), a popover, the preview or the camera.
    func findFromAnywhere(_ keyval: UInt32, _ modifiers: UInt32) -> Bool {
        // (Nothing to find before the picker is built: its header can be shown before.)
        guard photoGrid != nil, controller != nil, !preview.isVisible, !captureView.isVisible, !focusIsInPopover, focusIsInside,
              let root = gtk_widget_get_root(widget), let focus = gtk_root_get_focus(root),
              gtk_widget_get_ancestor(focus, gtk_text_get_type()) == nil, gtk_widget_get_ancestor(focus, gtk_editable_get_type()) == nil
        else { return false }
        return findKey(keyval, modifiers)
    }

    /// Looks for the text typed so far; the answer of an older text is dropped.
    private func find() {
        findGeneration += 1
        let generation = findGeneration, text = findText
        gtk_label_set_text(findLabel.opaque, text)
        gtk_revealer_set_reveal_child(findBar.opaque, 1)
        findEnd.schedule(after: Self.findTimeout) { [weak self] in self?.endFind() }
        controller.findName(text) { [weak self] id in
            guard let self, generation == self.findGeneration else { return }
            if let id {
                // The ring shows which photo it is (GTK shows it after arrow keys, not letters).
                if let root = gtk_widget_get_root(self.widget) { gtk_window_set_focus_visible(UnsafeMutableRawPointer(root).assumingMemoryBound(to: GtkWindow.self), 1) }
                self.focusAsset(id)
            } else {
                // Translators: type-ahead find found nothing; {text} is what the person typed.
                gtk_label_set_text(self.findLabel.opaque, text.count < PhotoLibrary.findsWithinNamesFrom
                                   ? i18n("No file name starts with “{text}”", ["text": text])
                                   : i18n("No file name holds “{text}”", ["text": text]))
                gtk_widget_error_bell(self.grid)
            }
        }
    }

    /// The typed text goes; the next letter starts a new search.
    func endFind() {
        findEnd.cancel()
        findGeneration += 1
        findText = ""
        gtk_revealer_set_reveal_child(findBar.opaque, 0)
    }
}

private extension Unicode.GeneralCategory {
    var isControl: Bool {
        switch self {
        case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator, .surrogate, .unassigned, .privateUse: return true
        default: return false
        }
    }
}
