// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import Dispatch
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel

/// What the app launched from the menu does with the picks, where a script would get their
/// paths: the primary button copies the files to the clipboard (paste them into Files or a chat),
/// and a menu beside it opens them in their default app or copies them into a folder. The window
/// stays open; each outcome is said in a toast ("3 photos copied").
///
/// What it does with the picks needs them as local files: it asks the picker to confirm
/// (photopick_picker_confirm), which waits for the copies of photos on another machine with a
/// ring on their cells, and acts on the URIs `confirmed` gives.
@MainActor
final class DesktopActions {
    private let picker: UnsafeMutablePointer<GtkWidget>
    private let window: UnsafeMutablePointer<GtkWidget>
    /// What the next `confirmed` is for: the primary button's copy unless a menu entry asked.
    private var onConfirmed: (@MainActor ([FilePath]) -> Void)?
    private var actions: [OpaquePointer] = []
    /// The folder dialog while it is open.
    private var folderDialog: OpaquePointer?
    /// Where the last copy went: the next Copy to Folder… opens there.
    private var lastFolder: FilePath?
    let menuButton: UnsafeMutablePointer<GtkWidget>

    private let version: String

    init(window: UnsafeMutablePointer<GtkWidget>, picker: UnsafeMutablePointer<GtkWidget>, version: String) {
        self.window = window
        self.picker = picker
        self.version = version
        // What to do with the picks, then the app's own entries, as GNOME apps' main menus end.
        let menu = g_menu_new()!
        let picks = g_menu_new()!, app = g_menu_new()!
        g_menu_append(picks, i18n("Open"), "win.open-picked")
        g_menu_append(picks, i18n("Copy to Folder…"), "win.copy-to-folder")
        g_menu_append(picks, i18n("Unpick All"), "win.unpick-all")
        g_menu_append(picks, i18n("Clear Recently Picked"), "win.clear-recently-picked")
        g_menu_append(app, i18n("Library Folders…"), "win.library-folders")
        g_menu_append(app, i18n("Keyboard Shortcuts"), "win.show-help-overlay")
        g_menu_append(app, i18n("About Photopick"), "win.about")
        for section in [picks, app] {
            g_menu_append_section(menu, nil, UnsafeMutableRawPointer(section).assumingMemoryBound(to: GMenuModel.self))
            g_object_unref(UnsafeMutableRawPointer(section))
        }
        menuButton = gtk_menu_button_new()
        gtk_menu_button_set_icon_name(OpaquePointer(menuButton), "view-more-symbolic")
        gtk_menu_button_set_menu_model(OpaquePointer(menuButton), UnsafeMutableRawPointer(menu).assumingMemoryBound(to: GMenuModel.self))
        setTooltip(menuButton, i18n("Main menu"))
        hideTooltipWhileOpen(menuButton)
        photopick_accessible_set_label(menuButton, i18n("Main menu"))
        g_object_unref(UnsafeMutableRawPointer(menu))

        Signal.connect(picker.raw, "confirmed", uris: { [weak self] uris in
            guard let self else { return }
            let files = uris.compactMap(PickerWindow.path(ofURI:)).filter { !$0.isLocationURI }
            let then = self.onConfirmed ?? { [weak self] files in self?.copyToClipboard(files) }
            self.onConfirmed = nil
            then(files)
        })
        addAction("open-picked") { $0.openPicked() }
        addAction("copy-to-folder") { $0.chooseFolder() }
        updateEnabled()
        let about = g_simple_action_new("about", nil)!
        Signal.connectAction(about) { [weak self] in self?.showAbout() }
        g_action_map_add_action(OpaquePointer(window), about)
        g_object_unref(UnsafeMutableRawPointer(about))
        let folders = g_simple_action_new("library-folders", nil)!
        Signal.connectAction(folders) { [weak self] in
            guard let self else { return }
            LibraryFoldersWindow.present(over: self.window)
        }
        g_action_map_add_action(OpaquePointer(window), folders)
        g_object_unref(UnsafeMutableRawPointer(folders))
        Signal.connect(picker.raw, "notify::picked-count", object: { [weak self] _ in self?.updateEnabled() })
        // Everything held here goes with the window.
        attach(self, to: window.raw, key: "photopick-desktop-actions")
    }

    private func addAction(_ name: String, _ run: @escaping @MainActor (DesktopActions) -> Void) {
        let action = g_simple_action_new(name, nil)!
        Signal.connectAction(action) { [weak self] in if let self { run(self) } }
        g_action_map_add_action(OpaquePointer(window), action)
        actions.append(action)
        g_object_unref(UnsafeMutableRawPointer(action))
    }

    private var pickerObject: OpaquePointer { OpaquePointer(picker) }

    private func updateEnabled() {
        let any: gboolean = photopick_picker_get_picked_count(pickerObject) > 0 ? 1 : 0
        for action in actions { g_simple_action_set_enabled(action, any) }
    }

    /// The About window: name, version and the newest release's notes (from the installed
    /// metainfo, as GNOME apps' About windows show them).
    private func showAbout() {
        let about = adw_about_window_new()!
        let raw = OpaquePointer(about)
        adw_about_window_set_application_name(raw, "Photopick")
        adw_about_window_set_application_icon(raw, PickerWindow.applicationID)
        adw_about_window_set_version(raw, version)
        adw_about_window_set_comments(raw, i18n("Pick photos and videos from your library"))
        adw_about_window_set_developer_name(raw, i18n("The Photopick developers"))
        adw_about_window_set_website(raw, "https://github.com/photopick/photopick")
        adw_about_window_set_issue_url(raw, "https://github.com/photopick/photopick/issues")
        adw_about_window_set_license_type(raw, GTK_LICENSE_GPL_3_0)
        if let notes = Metainfo.newestReleaseNotes() {
            adw_about_window_set_release_notes_version(raw, notes.version)
            adw_about_window_set_release_notes(raw, notes.markup)
        }
        gtk_window_set_transient_for(UnsafeMutableRawPointer(about).assumingMemoryBound(to: GtkWindow.self),
                                     UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkWindow.self))
        gtk_window_set_modal(UnsafeMutableRawPointer(about).assumingMemoryBound(to: GtkWindow.self), 1)
        gtk_window_present(UnsafeMutableRawPointer(about).assumingMemoryBound(to: GtkWindow.self))
    }

    private var display: OpaquePointer { gtk_widget_get_display(window) }

    /// The picks as local files (those on another machine once copied), then `then`.
    private func withPickedFiles(_ then: @escaping @MainActor ([FilePath]) -> Void) {
        onConfirmed = then
        photopick_picker_confirm(pickerObject)
    }

    private func copyToClipboard(_ files: [FilePath]) {
        guard !files.isEmpty else { return }
        FileClipboard.put(files, on: display)
        photopick_picker_show_message(pickerObject, Self.copied(files))
    }

    private func openPicked() {
        withPickedFiles { [weak self] files in
            guard let self else { return }
            let outcome = FileLauncher.open(files, display: self.display)
            self.say(outcome)
            // Files no app is set to open: which app, asked once for each type (it was a toast a
            // file that stayed until closed, and nothing to do about it: issue 40, point 12).
            self.askWhichApp(outcome.withoutApp[...])
        }
    }

    private func askWhichApp(_ remaining: ArraySlice<(contentType: String, files: [FilePath])>) {
        guard let next = remaining.first else { return }
        let parent = gtk_widget_get_root(UnsafeMutableRawPointer(pickerObject).assumingMemoryBound(to: GtkWidget.self))
            .map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: GtkWindow.self) }
        FileLauncher.askWhichApp(for: next.files, contentType: next.contentType, parent: parent, display: display) { [weak self] outcome in
            self?.say(outcome)
            self?.askWhichApp(remaining.dropFirst())
        }
    }

    private func say(_ outcome: FileLauncher.Outcome) {
        for problem in outcome.problems { PickerWindow.tell(problem, in: pickerObject) }
        if !outcome.opened.isEmpty {
            photopick_picker_show_message(pickerObject, outcome.opened.map { ni18n("Opened {count} in {app}", "Opened {count} in {app}", $0.count, ["app": $0.app]) }
                .joined(separator: i18n("; ")))
        }
    }

    /// Copy to Folder…: the desktop's folder chooser (a portal's when there is one), then the
    /// copy off the GTK thread, never replacing a file.
    func chooseFolder() {
        guard folderDialog == nil else { return }
        let dialog = gtk_file_chooser_native_new(i18n("Copy to Folder"), UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkWindow.self),
                                                 GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, i18n("Copy Here"), i18n("Cancel"))!
        folderDialog = dialog
        gtk_native_dialog_set_modal(UnsafeMutableRawPointer(dialog).assumingMemoryBound(to: GtkNativeDialog.self), 1)
        // It opened on Recent, where nothing can be copied to: the folder used last, else Pictures.
        let start = lastFolder ?? XDGDirectories.mediaFolders[0]
        if start.isDirectory, let folder = start.withCString({ g_file_new_for_path($0) }) {
            gtk_file_chooser_set_current_folder(dialog, folder, nil)
            g_object_unref(UnsafeMutableRawPointer(folder))
        }
        Signal.connect(UnsafeMutableRawPointer(dialog), "response", response: { [weak self] response in
            guard let self, let dialog = self.folderDialog else { return }
            self.folderDialog = nil
            defer { g_object_unref(UnsafeMutableRawPointer(dialog)) }
            guard response == GTK_RESPONSE_ACCEPT.rawValue, let file = gtk_file_chooser_get_file(dialog) else { return }
            defer { g_object_unref(UnsafeMutableRawPointer(file)) }
            guard let path = g_file_get_path(file) else { return }
            let folder = FilePath(String(cString: path))
            g_free(path)
            self.lastFolder = folder
            self.copyPicks(into: folder)
        })
        gtk_native_dialog_show(UnsafeMutableRawPointer(dialog).assumingMemoryBound(to: GtkNativeDialog.self))
        enlargeOwnChooser()
    }

    /// The folder dialog open now, when it is GTK's own window (no portal).
    var ownChooserWindow: UnsafeMutablePointer<GtkWindow>? {
        guard folderDialog != nil else { return nil }
        let toplevels = gtk_window_get_toplevels()
        let dialogType = g_type_from_name("GtkFileChooserDialog")
        for index in 0..<g_list_model_get_n_items(toplevels) {
            guard let item = g_list_model_get_item(toplevels, index) else { continue }
            // (The list holds its windows: the pointer stays valid after this reference goes.)
            g_object_unref(item)
            let candidate = item.assumingMemoryBound(to: GtkWindow.self)
            if g_type_check_instance_is_a(item.assumingMemoryBound(to: GTypeInstance.self), dialogType) != 0,
               gtk_window_get_transient_for(candidate) == UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkWindow.self) {
                return candidate
            }
        }
        return nil
    }

    /// Without a portal GTK shows its own chooser at its natural size, 825×338 here: a short
    /// strip where a folder's contents hardly show. It opens at least as large as the picker,
    /// less a margin, up to 1000×700 (a size the person chose before, if larger, stays).
    private func enlargeOwnChooser() {
        guard let dialog = ownChooserWindow else { return }
        var width: Int32 = 0, height: Int32 = 0
        gtk_window_get_default_size(dialog, &width, &height)
        let wanted = (width: min(1000, max(760, gtk_widget_get_width(window) - 60)),
                      height: min(700, max(540, gtk_widget_get_height(window) - 80)))
        if width < wanted.width || height < wanted.height {
            gtk_window_set_default_size(dialog, max(width, wanted.width), max(height, wanted.height))
        }
    }

    /// Copy to Folder… once the picks on another machine are local (the primary button counts them).
    private func copyPicks(into folder: FilePath) {
        withPickedFiles { [weak self] files in self?.copy(files, into: folder) }
    }

    private func copy(_ sources: [FilePath], into folder: FilePath) {
        guard !sources.isEmpty else { return }
        let name = String(decoding: folder.lastComponent, as: UTF8.self)
        let summary = Self.copied(sources, to: name)
        // (Nobody waits for a copy: the app may close while it runs, onto a folder on a server.)
        WorkerPool.detached(name: "copy") { [weak self] in
            let result = Result { () throws(FileCopier.Failure) in try FileCopier(into: folder).copy(sources) }
            MainLoopDispatcher.shared.post { [weak self] in
                guard let self else { return }
                switch result {
                case .success: photopick_picker_show_message(self.pickerObject, summary)
                case .failure(let failure): PickerWindow.tell(i18n("Nothing was copied: {reason}", ["reason": failure.description]), in: self.pickerObject)
                }
            }
        }
    }

    /// "3 photos copied: paste them in Files or another app", "2 videos copied to Holiday": whole
    /// sentences for each noun, since other languages make the verb agree with it.
    static func copied(_ files: [FilePath], to folder: String? = nil) -> String {
        // (By their names' types: a copy of a video on another machine is a video too.)
        let videos = files.filter { ContentType.guess(fileName: $0.lastComponent).mimeType.hasPrefix("video/") }.count, count = files.count
        switch (videos == 0 ? "photo" : videos == count ? "video" : "item", folder) {
        case ("photo", nil):
            return ni18n("{count} photo copied: paste it in Files or another app", "{count} photos copied: paste them in Files or another app", count)
        case ("video", nil):
            return ni18n("{count} video copied: paste it in Files or another app", "{count} videos copied: paste them in Files or another app", count)
        case (_, nil):
            return ni18n("{count} item copied: paste it in Files or another app", "{count} items copied: paste them in Files or another app", count)
        case ("photo", let folder?):
            return ni18n("{count} photo copied to {folder}", "{count} photos copied to {folder}", count, ["folder": folder])
        case ("video", let folder?):
            return ni18n("{count} video copied to {folder}", "{count} videos copied to {folder}", count, ["folder": folder])
        case (_, let folder?):
            return ni18n("{count} item copied to {folder}", "{count} items copied to {folder}", count, ["folder": folder])
        }
    }
}
