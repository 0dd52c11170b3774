// SPDX-License-Identifier: GPL-3.0-or-later
import Basics
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel
import PortalBackend

/// The portal backend's windows: one picker window per OpenFile call, made on the picker
/// widget's public API as the program's own window is (PickerWindow), with the call's title,
/// filters, choices, labels and parent. Each answers once: confirmed, cancelled (Cancel, Escape,
/// the window closed), or not at all when the call is closed.
@MainActor
public final class PortalPickerWindows: ChooserWindows {
    /// Why no window can open (no display), once `prepare` found it.
    private var displayFailure: String?
    /// The windows open now, by the call's handle (tests and the log count them).
    public private(set) var open: [String: UnsafeMutablePointer<GtkWidget>] = [:]

    private let preferences: PortalPreferences

    public init(preferences: PortalPreferences = PortalPreferences()) {
        self.preferences = preferences
    }

    /// Starts GTK (0.2-0.4 s): after the bus name is claimed, since the portal waits for it.
    /// Libadwaita without its application: GtkApplication's start-up makes a proxy for the
    /// portal's Inhibit interface, a call to the portal, which is still starting when it activates
    /// this backend and waits for it. (That was a deadlock of 25 s, until D-Bus gave up: made
    /// after the name was claimed, and again at a first call that activated the backend itself.)
    public func prepare() {
        guard !displayIsOpen, displayFailure == nil else { return }
        // The backend must not ask a portal anything: the portal may be waiting for it.
        Self.avoidPortals()
        guard gtk_init_check() != 0 else {
            displayFailure = "cannot open a display (DISPLAY or WAYLAND_DISPLAY in the bus's activation environment)"
            DeveloperLog.say("portal: \(displayFailure!)")
            return
        }
        IconTheme.loadEarly()
        displayIsOpen = true
    }
    private var displayIsOpen = false

    /// GDK_DEBUG=portals and GTK_USE_PORTAL would have GTK call the portal from this backend;
    /// libadwaita reads its style through the portal unless told not to.
    static func avoidPortals() {
        g_unsetenv("GTK_USE_PORTAL")
        if let debug = g_getenv("GDK_DEBUG").map({ String(cString: $0) }) {
            let kept = debug.split(whereSeparator: { ",: ".contains($0) }).filter { $0 != "portals" }.joined(separator: ",")
            if kept.isEmpty { g_unsetenv("GDK_DEBUG") } else { g_setenv("GDK_DEBUG", kept, 1) }
        }
        g_setenv("ADW_DISABLE_PORTAL", "1", 1)
    }

    public func open(_ question: ChooserQuestion, answer: @escaping @MainActor (ChooserAnswer) -> Void) throws(ChooserQuestionError) -> @MainActor () -> Void {
        prepare()
        guard displayIsOpen else { throw ChooserQuestionError(reason: displayFailure ?? "GTK did not start") }
        let window = PortalPickerWindow(question: question, preferences: preferences)
        let handle = question.handle
        open[handle] = window.window
        window.onAnswer = { [weak self] given in
            self?.open[handle] = nil
            answer(given)
        }
        window.show()
        return { [weak self, weak window] in
            self?.open[handle] = nil
            window?.close()
        }
    }
}

/// One call's window: the picker, its header in the header bar, the call's choices under it.
@MainActor
final class PortalPickerWindow {
    let window: UnsafeMutablePointer<GtkWidget>
    private let picker: UnsafeMutablePointer<GtkWidget>
    private let question: ChooserQuestion
    /// The GtkFileFilters made for `offeredFilters.list`, in its order (the picker's `filter`
    /// is one of them).
    private var filters: [GObjectRef] = []
    /// Each choice's value as the person leaves it.
    private var choiceValues: [() -> String] = []
    var onAnswer: (ChooserAnswer) -> Void = { _ in }
    private var answered = false
    private let preferences: PortalPreferences
    /// Kept alive by its window (a reference from the window's data), released with it.
    private var keptByWindow: Unmanaged<PortalPickerWindow>?

    init(question: ChooserQuestion, preferences: PortalPreferences) {
        self.question = question
        self.preferences = preferences
        window = adw_window_new()!
        picker = photopick_picker_new()!
        build()
    }

    private func build() {
        let title = question.title.isEmpty ? i18n("Pick Photos") : question.title
        gtk_window_set_title(window.cast(), title)
        let state = PickerState.load()
        gtk_window_set_default_size(window.cast(), Int32(max(state.windowWidth ?? 960, PickerWindow.minimumWidth)),
                                    Int32(max(state.windowHeight ?? 720, PickerWindow.minimumHeight)))
        gtk_widget_set_size_request(window, Int32(PickerWindow.minimumWidth), Int32(PickerWindow.minimumHeight))

        let shell = OpaquePointer(picker)
        photopick_picker_set_show_header(shell, 0)
        photopick_picker_set_title(shell, title)
        photopick_picker_set_max_picks(shell, question.multiple ? 0 : 1)
        if let camera = state.camera { photopick_picker_set_camera(shell, camera) }
        if let size = state.cellSize { photopick_picker_set_cell_size(shell, guint(size)) }
        photopick_picker_set_confirm_label(shell, question.acceptLabel.map(Self.withoutMnemonic) ?? (question.multiple ? i18n("Add") : i18n("Select")))
        photopick_picker_set_enter_confirms(shell, 1)
        photopick_picker_set_accepts_typed_paths(shell, 1)
        // Every URI answered is a local file: a photo on another machine is fetched first.
        photopick_picker_set_copy_remote_picks(shell, 1)
        let (offered, first) = question.offeredFilters
        for filter in offered {
            let gtkFilter = gtk_file_filter_new()!
            gtk_file_filter_set_name(gtkFilter, filter.name)
            for rule in filter.rules {
                switch rule {
                case .pattern(let pattern): gtk_file_filter_add_pattern(gtkFilter, pattern)
                case .mimeType(let type): gtk_file_filter_add_mime_type(gtkFilter, type)
                }
            }
            photopick_picker_add_filter(shell, gtkFilter)
            filters.append(GObjectRef(UnsafeMutableRawPointer(gtkFilter), transfer: .full))
        }
        if let first { photopick_picker_set_filter(shell, filters[first].opaque) }
        if let album = startAlbum() { photopick_picker_set_album(shell, album) }

        let header = adw_header_bar_new()!
        var start: UnsafeMutablePointer<GtkWidget>?, titleWidget: UnsafeMutablePointer<GtkWidget>?, end: UnsafeMutablePointer<GtkWidget>?
        photopick_picker_get_header_widgets(shell, &start, &titleWidget, &end)
        adw_header_bar_set_title_widget(header.opaque, titleWidget)
        // A dialog: Cancel closes it, as in the script's picker.
        adw_header_bar_set_show_start_title_buttons(header.opaque, 0)
        adw_header_bar_set_show_end_title_buttons(header.opaque, 0)
        adw_header_bar_pack_start(header.opaque, start)
        adw_header_bar_pack_end(header.opaque, end)
        let content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_box_append(content.cast(), header)
        gtk_box_append(content.cast(), picker)
        if let choices = makeChoices() { gtk_box_append(content.cast(), choices) }
        adw_window_set_content(window.cast(), content)

        Signal.connect(picker.raw, "confirmed", uris: { [weak self] uris in self?.confirmed(uris) })
        Signal.connect(picker.raw, "cancelled") { [weak self] () -> Void in self?.finish(.cancelled) }
        Signal.connect(window.raw, "close-request", stop: { [weak self] in
            self?.finish(.cancelled)
            return false
        })
        PickerActions.install(window: window, picker: picker, camera: true, location: true, close: { [weak self] in self?.finish(.cancelled) })
        keptByWindow = Unmanaged.passRetained(self)
        Signal.connect(window.raw, "destroy") { [weak self] () -> Void in
            self?.keptByWindow?.release()
            self?.keptByWindow = nil
        }
    }

    /// The album to open on: the call's `current_folder` when the library holds it (1.16 never
    /// sends it for OpenFile; later portals and direct callers do), else the one this app last
    /// picked from, if the library still has it; nil for Recents.
    private func startAlbum() -> String? {
        let remembered = preferences.album(for: question.appID)
        guard question.currentFolder != nil || remembered != nil, let library = try? PhotoLibrary(defaultFoldersAt: .standard) else { return nil }
        if let folder = question.currentFolder.map({ FilePath(bytes: $0) }) {
            if case .folder(let id)? = try? library.album(forFolder: folder) { return "folder:\(id)" }
            DeveloperLog.say("portal: \(question.handle): current_folder \(folder) is not a folder of the library; opening \(remembered ?? "Recents")")
        }
        guard let remembered, (try? library.album(named: remembered)) != nil else { return nil }
        return remembered
    }

    /// GTK's labels mark their access key with an underscore ("_Open"); the picker's button
    /// takes words.
    static func withoutMnemonic(_ label: String) -> String {
        var result = "", escaped = false
        for character in label {
            if character == "_" && !escaped {
                escaped = true
                continue
            }
            if escaped && character != "_" { escaped = false }
            if character == "_" { escaped = false }
            result.append(character)
        }
        return result
    }

    /// The call's choices in a bar under the picker: a drop-down for a list, a check button for
    /// none (as GTK's portal chooser shows them).
    private func makeChoices() -> UnsafeMutablePointer<GtkWidget>? {
        guard !question.choices.isEmpty else { return nil }
        let bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)!
        gtk_widget_add_css_class(bar, "toolbar")
        gtk_widget_set_margin_start(bar, 12)
        gtk_widget_set_margin_end(bar, 12)
        for choice in question.choices {
            if choice.options.isEmpty {
                let check = gtk_check_button_new_with_label(choice.label)!
                gtk_check_button_set_active(check.cast(), choice.initialValue == "true" ? 1 : 0)
                gtk_box_append(bar.cast(), check)
                choiceValues.append { gtk_check_button_get_active(check.cast()) != 0 ? "true" : "false" }
            } else {
                let label = gtk_label_new(choice.label)!
                gtk_box_append(bar.cast(), label)
                var labels = choice.options.map { strdup($0.label) }
                labels.append(nil)
                let dropDown = labels.withUnsafeBufferPointer { buffer in
                    buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { gtk_drop_down_new_from_strings($0)! }
                }
                labels.forEach { free($0) }
                let ids = choice.options.map(\.id)
                gtk_drop_down_set_selected(OpaquePointer(dropDown), guint(ids.firstIndex(of: choice.initialValue) ?? 0))
                photopick_accessible_set_label(dropDown, choice.label)
                gtk_box_append(bar.cast(), dropDown)
                choiceValues.append {
                    let selected = Int(gtk_drop_down_get_selected(OpaquePointer(dropDown)))
                    return ids.indices.contains(selected) ? ids[selected] : ids[0]
                }
            }
        }
        return bar
    }

    func show() {
        // A group of its own: GTK's modality holds for a window group, and every window is in
        // the default one otherwise, so one app's modal chooser took the input of every other
        // app's (two apps at once: the second window did not take a click).
        let group = gtk_window_group_new()!
        gtk_window_group_add_window(group, window.cast())
        g_object_unref(UnsafeMutableRawPointer(group))
        // (Modal for the app's window: for a window manager, _NET_WM_STATE_MODAL over its parent.)
        if question.modal { gtk_window_set_modal(window.cast(), 1) }
        switch question.parent {
        case .none: break
        case .x11(let xid):
            // On the parent's display (an X11 app under Wayland: Xwayland's), realized before it
            // is mapped so the window manager places it over its parent. (Never a GTK
            // transient-for: GTK would replace the hint.)
            if let display = photopick_display_for_backend("x11") { gtk_window_set_display(window.cast(), display) }
            gtk_widget_realize(window)
            if photopick_window_set_dialog_for_xid(window, UInt(xid)) == 0 {
                DeveloperLog.say("portal: \(question.handle): parent x11:\(String(xid, radix: 16)): no X11 display; shown without a parent")
            }
        case .wayland(let handle):
            if let display = photopick_display_for_backend("wayland") { gtk_window_set_display(window.cast(), display) }
            // After realize and before the window is mapped: GDK sets the parent as the surface's
            // xdg_toplevel is made.
            gtk_widget_realize(window)
            if photopick_window_set_transient_for_exported(window, handle) == 0 {
                DeveloperLog.say("portal: \(question.handle): parent wayland:\(handle.prefix(80)): no Wayland display with xdg-foreign; shown without a parent")
            }
        case .unknown(let text):
            DeveloperLog.say("portal: \(question.handle): parent window “\(text.prefix(80))” is neither x11: nor wayland:; shown without a parent")
        }
        _ = gtk_widget_grab_focus(picker)
        gtk_window_present(window.cast())
    }

    private func confirmed(_ uris: [String]) {
        let current = photopick_picker_get_filter(OpaquePointer(picker))
        let filter = filters.firstIndex { $0.opaque == current }
        let values = zip(question.choices, choiceValues).map { (id: $0.id, value: $1()) }
        if let album = photopick_picker_get_album(OpaquePointer(picker)) { preferences.remember(album: String(cString: album), for: question.appID) }
        finish(.picked(uris: uris, filter: filter, choices: values))
    }

    private func finish(_ answer: ChooserAnswer) {
        guard !answered else { return }
        answered = true
        onAnswer(answer)
        gtk_window_destroy(window.cast())
    }

    /// The call was closed: the window goes, with no answer.
    func close() {
        answered = true
        gtk_window_destroy(window.cast())
    }
}
