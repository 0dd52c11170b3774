// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport

/// The picker's keys. Escape (cancel, or back from the preview) and Ctrl+Enter (confirm) work
/// from anywhere in the window, header bar included; the grid's own keys (Space and Enter pick,
/// Alt+Enter previews, Ctrl+plus/minus zoom, letters find a name) act only while a photo has the
/// focus; Tab moves between regions (header, grid, strip) instead of walking through thousands
/// of photos.
extension Picker {
    func installKeys() {
        installWindowShortcuts()
        let keys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE)
        Signal.connect(keys.raw, "key-pressed", key: { [weak self] keyval, modifiers in
            guard let self else { return false }
            if self.preview.isVisible { return self.previewKey(keyval, modifiers) }
            // Before the toast overlay's own Escape, which only dismisses a toast: with a toast
            // up ("You can pick up to 3"), Escape still cancels.
            if Int32(keyval) == GDK_KEY_Escape, modifiers & self.modifierMask == 0, !self.captureView.isVisible {
                self.endFind()
                self.cancelOrGoBack()
                return true
            }
            guard self.focusIsInGrid else { return self.findFromAnywhere(keyval, modifiers) }
            // (End or Page Down while the rows below come in: they go to the album's end.)
            self.releaseCellsBeyondFirstScreen()
            return self.gridKey(keyval, modifiers)
        })
        gtk_widget_add_controller(body, keys)
        // A name typed on the header's buttons (the album button after its list closed) finds
        // too: it opened the album list at the first space (issue 40, point 11).
        for box in [startBox, titleBox, endBox] {
            let keys = gtk_event_controller_key_new()!
            gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE)
            Signal.connect(keys.raw, "key-pressed", key: { [weak self] keyval, modifiers in
                self?.findFromAnywhere(keyval, modifiers) ?? false
            })
            gtk_widget_add_controller(box, keys)
        }
    }

    /// Escape and Ctrl+Enter as global shortcuts: the window runs them whichever widget has
    /// the focus (a button in the header, the album switcher, the strip). In a host's window,
    /// only while the focus is in the picker: Escape in the host's entry is the host's.
    func installWindowShortcuts() {
        let controller = gtk_shortcut_controller_new()!
        gtk_shortcut_controller_set_scope(controller, GTK_SHORTCUT_SCOPE_GLOBAL)
        addShortcut(to: controller, "Escape") { picker in
            guard picker.ownsKeys else { return false }
            picker.cancelOrGoBack()
            return true
        }
        for trigger in ["<Control>Return", "<Control>KP_Enter"] {
            addShortcut(to: controller, trigger) { picker in
                guard picker.ownsKeys else { return false }
                picker.confirm()
                return true
            }
        }
        gtk_widget_add_controller(body, controller)
    }

    /// Whether the picker's keys are its own now: always in a window of its own; in a host's
    /// window (`sharesWindow`), while the focus is inside the picker, its header widgets
    /// included wherever the host packed them.
    var ownsKeys: Bool { !sharesWindow || focusIsInside }

    /// Whether the keyboard focus is on one of the picker's widgets.
    var focusIsInside: Bool {
        guard let root = gtk_widget_get_root(widget), let focus = gtk_root_get_focus(root) else { return false }
        let scope = [widget, body, startBox, titleBox, endBox, cancelButton, previewBackButton, progress, albumSwitcher, previewPickButton, confirmButton]
        return scope.contains { focus == $0 || gtk_widget_is_ancestor(focus, $0) != 0 }
    }

    /// Whether the focus is in a popover (the album list): its own keys (Escape closes it) come
    /// before the picker's.
    var focusIsInPopover: Bool {
        guard let root = gtk_widget_get_root(widget), let focus = gtk_root_get_focus(root) else { return false }
        return gtk_widget_get_ancestor(focus, gtk_popover_get_type()) != nil
    }

    private final class ShortcutBox {
        weak var picker: Picker?
        let action: @MainActor (Picker) -> Bool
        init(_ picker: Picker, _ action: @escaping @MainActor (Picker) -> Bool) {
            self.picker = picker
            self.action = action
        }
    }

    /// Adds a shortcut that runs `action`, which says whether it took the key (when not, the
    /// key goes on to the next handler).
    public func addShortcut(to controller: OpaquePointer, _ trigger: String, _ action: @escaping @MainActor (Picker) -> Bool) {
        let box = Unmanaged.passRetained(ShortcutBox(self, action)).toOpaque()
        // (Entered through assumeIsolated: nothing checks the thread of a C callback on entry.)
        let callback = gtk_callback_action_new({ _, _, data in MainActor.assumeIsolated {
            let box = Unmanaged<ShortcutBox>.fromOpaque(data!).takeUnretainedValue()
            // (The shortcuts are the picker's own: they go with its widget.)
            guard let picker = box.picker else { return 0 }
            return box.action(picker) ? 1 : 0
        } }, box, { data in
            MainActor.preconditionIsolated()
            Unmanaged<ShortcutBox>.fromOpaque(data!).release()
        })
        let shortcut = gtk_shortcut_new(gtk_shortcut_trigger_parse_string(trigger), callback)
        gtk_shortcut_controller_add_shortcut(controller, shortcut)  // (transfer full)
    }

    /// The modifiers that make a key another key (Caps Lock and Num Lock do not).
    var modifierMask: UInt32 { GDK_CONTROL_MASK.rawValue | GDK_ALT_MASK.rawValue | GDK_SHIFT_MASK.rawValue | GDK_SUPER_MASK.rawValue }

    /// Whether the keyboard focus is on a photo of the grid.
    var focusIsInGrid: Bool { photoGrid.hasFocus }

    func gridKey(_ keyval: UInt32, _ modifiers: UInt32) -> Bool {
        let control = modifiers & GDK_CONTROL_MASK.rawValue != 0
        let alt = modifiers & GDK_ALT_MASK.rawValue != 0
        let shift = modifiers & GDK_SHIFT_MASK.rawValue != 0
        // Letters are a name to find (so P, the first letter of a Pixel phone's photos, does not
        // preview: Alt+Enter does). Any other key ends the find: Space picks what it found.
        if findKey(keyval, modifiers) { return true }
        if !findText.isEmpty, !Self.isModifier(keyval) { endFind() }
        switch Int32(keyval) {
        case GDK_KEY_plus, GDK_KEY_equal, GDK_KEY_KP_Add:
            guard control else { return false }
            zoom(by: 1)
            return true
        case GDK_KEY_minus, GDK_KEY_KP_Subtract:
            guard control else { return false }
            zoom(by: -1)
            return true
        case GDK_KEY_Return, GDK_KEY_KP_Enter:
            if control { return false }  // the window's confirm shortcut
            if alt, let position = focusedPosition { openPreview(at: position); return true }
            guard let position = focusedPosition else { return false }
            // A single-choice picker (zenity without --multiple): Enter chooses, as in a file
            // chooser; Space still only picks. zenity's --multiple: Enter confirms the picks.
            if selection.maximum == 1 || (enterConfirms && selection.count == 0) {
                choose(at: position)
            } else if enterConfirms {
                confirm()
            } else {
                toggle(at: position)
            }
            return true
        case GDK_KEY_space:
            if let position = focusedPosition { toggle(at: position); return true }
            return false
        case GDK_KEY_Up where control && !shift && !alt, GDK_KEY_Down where control && !shift && !alt,
             GDK_KEY_KP_Up where control && !shift && !alt, GDK_KEY_KP_Down where control && !shift && !alt:
            // Ctrl+Up and Ctrl+Down: a month back or on (the start of this month first).
            jumpMonth(forward: Int32(keyval) == GDK_KEY_Down || Int32(keyval) == GDK_KEY_KP_Down)
            return true
        case GDK_KEY_Left, GDK_KEY_Right, GDK_KEY_Up, GDK_KEY_Down, GDK_KEY_KP_Left, GDK_KEY_KP_Right, GDK_KEY_KP_Up, GDK_KEY_KP_Down:
            // Shift+arrows: the grid moves the focus as for an arrow; the range follows it.
            guard shift, !control, !alt, let before = focusedPosition else { return false }
            MainLoopDispatcher.shared.post { [weak self] in self?.extendRange(from: before) }
            return false
        case GDK_KEY_Tab, GDK_KEY_KP_Tab, GDK_KEY_ISO_Left_Tab:
            let forward = !shift && Int32(keyval) != GDK_KEY_ISO_Left_Tab
            return sharesWindow ? leaveGridInHost(forward: forward) : leaveGrid(forward: forward)
        default:
            return false
        }
    }

    static func isModifier(_ keyval: UInt32) -> Bool {
        [GDK_KEY_Shift_L, GDK_KEY_Shift_R, GDK_KEY_Control_L, GDK_KEY_Control_R, GDK_KEY_Alt_L, GDK_KEY_Alt_R,
         GDK_KEY_Super_L, GDK_KEY_Super_R, GDK_KEY_Caps_Lock, GDK_KEY_ISO_Level3_Shift].contains(Int32(keyval))
    }

    /// The focus may sit in the header bar (the pick toggle) or in a video's controls, outside
    /// or below this widget: while the preview shows, its keys are caught on the whole window,
    /// before either (a focused seek bar would take the arrows).
    func installPreviewKeys() {
        guard let root = gtk_widget_get_root(widget) else { return }
        let rootWidget = UnsafeMutableRawPointer(root).assumingMemoryBound(to: GtkWidget.self)
        if let keys = previewKeys?.pointer {
            let owner = gtk_event_controller_get_widget(OpaquePointer(keys))
            if owner == rootWidget { return }
            // (The picker moved to another window: its keys go with it.)
            if let owner { gtk_widget_remove_controller(owner, OpaquePointer(keys)) }
        }
        let keys = gtk_event_controller_key_new()!
        // Held here too, so that teardown can take it off a window that outlives the picker.
        previewKeys = GObjectRef(keys, transfer: .none)
        gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE)
        Signal.connect(keys.raw, "key-pressed", key: { [weak self] keyval, modifiers in
            guard let self, self.ownsKeys else { return false }
            if self.captureView.isVisible { return self.captureKey(keyval, modifiers) }
            guard self.preview.isVisible else { return false }
            return self.previewKey(keyval, modifiers)
        })
        gtk_widget_add_controller(rootWidget, keys)
    }

    func previewKey(_ keyval: UInt32, _ modifiers: UInt32) -> Bool {
        let control = modifiers & GDK_CONTROL_MASK.rawValue != 0
        switch Int32(keyval) {
        case GDK_KEY_Escape: closePreview()
        case GDK_KEY_Left, GDK_KEY_Up: movePreview(by: -1)
        case GDK_KEY_Right, GDK_KEY_Down: movePreview(by: 1)
        case GDK_KEY_space, GDK_KEY_Return, GDK_KEY_KP_Enter:
            if control { confirm(); return true }
            // Space or Enter on a focused button (Back, the pick toggle, the video's play button)
            // is the button's.
            if let root = gtk_widget_get_root(widget), let focus = gtk_root_get_focus(root),
               g_type_check_instance_is_a(focus.raw.assumingMemoryBound(to: GTypeInstance.self), gtk_button_get_type()) != 0 { return false }
            togglePreviewed()
        default: return false
        }
        return true
    }

    /// Tab from a photo goes to the timeline (when it shows: it is the grid's), the strip (when
    /// something is picked), then the header from its start (Cancel, the album switcher, the
    /// primary button) and round to the grid; Shift+Tab the other way. Returns false to let GTK
    /// move the focus when nothing takes it.
    func leaveGrid(forward: Bool) -> Bool {
        if forward { return focusTimeline() || strip.focus() || focusHeader(fromStart: true) }
        return focusHeader(fromStart: false) || strip.focus() || focusTimeline()
    }

    /// In a host's window the picker is one part of the host's Tab cycle (a focus that cannot
    /// leave is a keyboard trap, WCAG 2.1.2): Tab from a photo goes to the timeline and the
    /// strip, when they show, and on out of the picker; Shift+Tab to the header row, when the
    /// picker shows it, and on to the host's widgets before it. GTK moves the focus when this
    /// returns false.
    func leaveGridInHost(forward: Bool) -> Bool {
        if forward, focusTimeline() || strip.focus() { return true }
        return moveFocusPastGrid(forward: forward)
    }

    /// Tab from the timeline goes on to the strip, then as from the grid; Shift+Tab back to the
    /// photo last focused.
    func leaveTimeline(forward: Bool) -> Bool {
        if !forward { return gtk_widget_grab_focus(grid) != 0 }
        if strip.focus() { return true }
        if sharesWindow { return moveFocusPastGrid(forward: true) }
        return focusHeader(fromStart: true)
    }

    /// The timeline takes the keyboard's focus, when it shows.
    func focusTimeline() -> Bool {
        gtk_widget_get_mapped(timeline.range) != 0 && gtk_widget_grab_focus(timeline.range) != 0
    }

    /// Moves the focus on from the grid as GTK's Tab moves it from any widget, to the next
    /// widget in the window: GtkGridView's own Tab walks from photo to photo, through thousands.
    /// The grid refuses the focus meanwhile, so GTK passes over it.
    func moveFocusPastGrid(forward: Bool) -> Bool {
        guard let root = gtk_widget_get_root(widget) else { return false }
        let rootWidget = UnsafeMutableRawPointer(root).assumingMemoryBound(to: GtkWidget.self)
        // (The timeline too: it is the grid's, and Tab reaches it from the grid, not past it.)
        gtk_widget_set_can_focus(grid, 0)
        gtk_widget_set_can_focus(timeline.range, 0)
        defer {
            gtk_widget_set_can_focus(grid, 1)
            gtk_widget_set_can_focus(timeline.range, 1)
        }
        return gtk_widget_child_focus(rootWidget, forward ? GTK_DIR_TAB_FORWARD : GTK_DIR_TAB_BACKWARD) != 0
    }

    /// The strip's Tab goes on to the header (in a host's window: out of the picker); Shift+Tab
    /// back to the photo last focused.
    func leaveStrip(forward: Bool) {
        // (The strip is the picker's last part: on from it is out of the picker.)
        if forward, sharesWindow, strip.moveFocusPast(forward: true) { return }
        if forward, !sharesWindow, focusHeader(fromStart: true) { return }
        if !forward, focusTimeline() { return }
        gtk_widget_grab_focus(grid)
    }

    @discardableResult
    func focusHeader(fromStart: Bool) -> Bool {
        let header = fromStart ? [cancelButton, albumSwitcher, confirmButton] : [confirmButton, albumSwitcher, cancelButton]
        for candidate in header where gtk_widget_get_mapped(candidate) != 0 && gtk_widget_is_sensitive(candidate) != 0 {
            if gtk_widget_grab_focus(candidate) != 0 { return true }
        }
        return false
    }
}
