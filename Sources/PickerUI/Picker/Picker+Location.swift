// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import Glibc
import PhotoLibrary

/// Ctrl+L: a path typed by hand, as GTK's file chooser (and so zenity) offers it. It rescues a
/// script whose filter or library does not show the file the person wants: any file can be
/// given, and the picker answers with it.
extension Picker {
    /// Whether a host takes typed paths (a script's picker does; the app from the menu does not).
    var offersLocation: Bool { onTypedPath != nil }

    /// Builds the bar over the grid: an entry and, under it, why a path was refused.
    func makeLocationBar() -> UnsafeMutablePointer<GtkWidget> {
        let bar = gtk_revealer_new()!
        // At once: while a revealer slides, its child is not mapped, and the keys a person
        // types right after Ctrl+L (or "/") went nowhere (the first 0.1-0.3 s of letters). A
        // slide of no duration, not the NONE transition: hidden, that keeps its child's height
        // over the grid, and took the clicks on the top row's upper half.
        gtk_revealer_set_transition_type(bar.opaque, GTK_REVEALER_TRANSITION_TYPE_SLIDE_DOWN)
        gtk_revealer_set_transition_duration(bar.opaque, 0)
        gtk_widget_set_valign(bar, GTK_ALIGN_START)
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4)!
        style(box, "location-bar", "card")
        gtk_widget_set_margin_start(box, 12)
        gtk_widget_set_margin_end(box, 12)
        gtk_widget_set_margin_top(box, 8)
        gtk_widget_set_size_request(box, 480, -1)
        gtk_widget_set_halign(box, GTK_ALIGN_CENTER)
        setStringProperty(locationEntry, "placeholder-text", i18n("Type a file's path, then Enter"))
        photopick_accessible_set_label(locationEntry, i18n("Location"))
        gtk_widget_set_hexpand(locationEntry, 1)
        gtk_box_append(box.cast(), locationEntry)
        gtk_label_set_xalign(locationProblem.opaque, 0)
        gtk_label_set_wrap(locationProblem.opaque, 1)
        style(locationProblem, "error")
        gtk_widget_set_visible(locationProblem, 0)
        gtk_box_append(box.cast(), locationProblem)
        gtk_revealer_set_child(bar.opaque, box)
        Signal.connect(locationEntry.raw, "activate") { [weak self] in self?.chooseTypedPath() }
        // Tab completes the name, as in GTK's location entry: it moved the focus to the first
        // photo, the bar still on screen, and Enter then chose that photo (issue 40, point 7).
        let keys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE)
        Signal.connect(keys.raw, "key-pressed", key: { [weak self] keyval, modifiers in
            guard let self, Int32(keyval) == GDK_KEY_Tab || Int32(keyval) == GDK_KEY_KP_Tab,
                  modifiers & self.modifierMask == 0 else { return false }
            self.completeTypedPath()
            return true
        })
        gtk_widget_add_controller(locationEntry, keys)
        Signal.connect(locationEntry.raw, "changed") { [weak self] in
            guard let self else { return }
            gtk_widget_set_visible(self.locationProblem, 0)
            gtk_widget_remove_css_class(self.locationEntry, "error")
        }
        return bar
    }

    var locationIsOpen: Bool { gtk_revealer_get_reveal_child(locationBar.opaque) != 0 }

    /// Ctrl+L: the bar opens with the focus in its entry.
    func openLocation() {
        guard offersLocation, !preview.isVisible, !captureView.isVisible else { return }
        gtk_revealer_set_reveal_child(locationBar.opaque, 1)
        gtk_widget_grab_focus(locationEntry)
    }

    /// Escape in the bar: it closes, and the focus goes back to the grid.
    func closeLocation() {
        gtk_revealer_set_reveal_child(locationBar.opaque, 0)
        gtk_editable_set_text(locationEntry.opaque, "")
        gtk_widget_grab_focus(grid)
    }

    /// Enter: an existing file is the answer; anything else is said under the entry.
    func chooseTypedPath() {
        let text = String(cString: gtk_editable_get_text(locationEntry.opaque))
        switch Self.typedFile(text) {
        case .success(let path): onTypedPath?(path)
        case .failure(let problem):
            gtk_widget_add_css_class(locationProblem, "error")
            gtk_label_set_text(locationProblem.opaque, problem.message)
            gtk_widget_set_visible(locationProblem, 1)
            gtk_widget_add_css_class(locationEntry, "error")
            gtk_widget_error_bell(locationEntry)
        }
    }

    /// Tab: the typed name completed as far as the names in its folder agree (a folder's with a
    /// slash); when several go on from there, they are listed under the entry.
    func completeTypedPath() {
        let text = String(cString: gtk_editable_get_text(locationEntry.opaque))
        let completion = Self.completion(of: text)
        if completion.text != text {
            gtk_editable_set_text(locationEntry.opaque, completion.text)
            gtk_editable_set_position(locationEntry.opaque, -1)
        }
        if completion.matches.count > 1 {
            let shown = completion.matches.prefix(12).joined(separator: "   ")
            let more = completion.matches.count - 12
            gtk_label_set_text(locationProblem.opaque, more > 0 ? shown + "   " + ni18n("and {count} more", "and {count} more", more) : shown)
            gtk_widget_remove_css_class(locationProblem, "error")
            gtk_widget_set_visible(locationProblem, 1)
        } else if completion.matches.isEmpty {
            gtk_widget_error_bell(locationEntry)
        }
    }

    /// What Tab makes of `text`: the text completed, and the names (folders with a slash) that
    /// go on from it. "~/" is the home folder, as for Enter; the text keeps its own form.
    nonisolated static func completion(of text: String) -> (text: String, matches: [String]) {
        let slash = text.lastIndex(of: "/")
        let folderPart = slash.map { String(text[...$0]) } ?? ""
        let prefix = slash.map { String(text[text.index(after: $0)...]) } ?? text
        var folder = folderPart.isEmpty ? "." : folderPart
        if folder == "~/" || folder.hasPrefix("~/") { folder = XDGDirectories.home.displayString + folder.dropFirst() }
        guard let directory = opendir(folder) else { return (text, []) }
        defer { closedir(directory) }
        var matches: [String] = []
        // (A folder of 100,000 files is read once, to its end: about 30 ms.)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(cString: raw.bindMemory(to: CChar.self).baseAddress!) }
            guard name != ".", name != "..", name.hasPrefix(prefix), prefix.hasPrefix(".") || !name.hasPrefix(".") else { continue }
            let isFolder = FilePath(folder + (folder.hasSuffix("/") ? "" : "/") + name).isDirectory
            matches.append(isFolder ? name + "/" : name)
        }
        matches.sort { $0.localizedStandardLess($1) }
        guard let first = matches.first else { return (text, []) }
        if matches.count == 1 { return (folderPart + first, matches) }
        // The longest start they share (a shared slash is no completion: it ends a folder's name).
        var common = first
        for match in matches.dropFirst() {
            common = String(zip(common, match).prefix { $0 == $1 }.map(\.0))
        }
        if common.hasSuffix("/") { common.removeLast() }
        return (folderPart + (common.count > prefix.count ? common : prefix), matches)
    }

    struct TypedPathProblem: Error { let message: String }

    /// The file a typed path names: "~/" is the home folder, a relative path is taken from the
    /// folder the picker was started in (as a script's own paths are).
    static func typedFile(_ text: String) -> Result<FilePath, TypedPathProblem> {
        var typed = text.trimmingCharacters(in: " \t\n")
        guard !typed.isEmpty else { return .failure(TypedPathProblem(message: i18n("Type the path of a file"))) }
        if typed == "~" || typed.hasPrefix("~/") { typed = XDGDirectories.home.displayString + typed.dropFirst() }
        let path = FilePath(typed).absolute()
        var info = stat()
        guard path.withCString({ stat($0, &info) }) == 0 else {
            return .failure(TypedPathProblem(message: i18n("{path}: {reason}", ["path": path.displayString, "reason": errorDescription(errno)])))
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            return .failure(TypedPathProblem(message: i18n("{path} is a folder: type the path of a file in it", ["path": path.displayString])))
        }
        guard path.withCString({ access($0, R_OK) }) == 0 else {
            return .failure(TypedPathProblem(message: i18n("{path}: {reason}", ["path": path.displayString, "reason": errorDescription(errno)])))
        }
        return .success(path)
    }
}

private extension String {
    /// A file manager's order, near enough: letter case aside.
    func localizedStandardLess(_ other: String) -> Bool { lowercased() < other.lowercased() }

    func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        return String(drop { characters.contains($0) }.reversed().drop { characters.contains($0) }.reversed())
    }
}
