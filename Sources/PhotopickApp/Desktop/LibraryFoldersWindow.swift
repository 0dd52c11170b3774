// SPDX-License-Identifier: GPL-3.0-or-later
import Basics
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary

/// Library Folders…: the folders the app from the menu shows (`LibraryFolders`), to add and
/// remove at any time (issue 40, point 21: "Choose Folder…" was offered only by an empty picker,
/// so ~/Downloads, a USB disk or a NAS share could not join a library that had photos).
///
/// A folder is added with the desktop's folder chooser (the portal's where there is one; a
/// shared folder GTK's chooser mounted joins by its address), or by typing a path or an address
/// (`sftp://nas/photos`, `smb://nas/share`): an address is mounted first, asking for a password
/// when the server wants one. Removing a folder only takes it off the list. The window writes
/// the list; the picker of the default folders follows it (Picker+FoldersFile).
@MainActor
final class LibraryFoldersWindow {
    let window: UnsafeMutablePointer<GtkWidget>
    private let group: UnsafeMutablePointer<GtkWidget>
    let entry: UnsafeMutablePointer<GtkWidget>
    /// The rows of `group`, one per folder, in the list's order.
    private(set) var rows: [(folder: FilePath, row: UnsafeMutablePointer<GtkWidget>, remove: UnsafeMutablePointer<GtkWidget>)] = []
    private var chooser: GObjectRef?
    /// An address being mounted or checked: typing another waits.
    private(set) var isChecking = false
    private let worker = WorkerPoolOnDemand(name: "library-folders", threads: 1)
    /// The last thing said in a toast (tests).
    private(set) var lastMessage: String?

    /// The window open now (it holds this object, and lets it go as it closes).
    private(set) static weak var shown: LibraryFoldersWindow?

    /// The window, over `parent`; one at a time (a second call presents it again).
    @discardableResult
    static func present(over parent: UnsafeMutablePointer<GtkWidget>?) -> LibraryFoldersWindow {
        let window = shown ?? LibraryFoldersWindow(parent: parent)
        shown = window
        gtk_window_present(window.window.cast())
        return window
    }

    init(parent: UnsafeMutablePointer<GtkWidget>?) {
        window = adw_preferences_window_new()
        gtk_window_set_title(window.cast(), i18n("Library Folders"))
        gtk_window_set_default_size(window.cast(), 560, 560)
        gtk_window_set_modal(window.cast(), 1)
        gtk_window_set_hide_on_close(window.cast(), 0)
        if let parent { gtk_window_set_transient_for(window.cast(), UnsafeMutableRawPointer(parent).assumingMemoryBound(to: GtkWindow.self)) }
        adw_preferences_window_set_search_enabled(window.cast(), 0)
        let page = adw_preferences_page_new()!

        group = adw_preferences_group_new()
        adw_preferences_group_set_title(group.cast(), i18n("Folders"))
        adw_preferences_group_set_description(group.cast(), i18n("Photopick shows the photos and videos in these folders and in the folders inside them. Removing a folder here deletes nothing."))
        let add = gtk_button_new()!
        let addContent = adw_button_content_new()!
        adw_button_content_set_icon_name(OpaquePointer(addContent), "list-add-symbolic")
        adw_button_content_set_label(OpaquePointer(addContent), i18n("_Add Folder…"))
        adw_button_content_set_use_underline(OpaquePointer(addContent), 1)
        gtk_button_set_child(add.cast(), addContent)
        gtk_widget_add_css_class(add, "flat")
        gtk_widget_set_valign(add, GTK_ALIGN_CENTER)
        adw_preferences_group_set_header_suffix(group.cast(), add)
        adw_preferences_page_add(page.cast(), group.cast())

        let other = adw_preferences_group_new()!
        adw_preferences_group_set_title(other.cast(), i18n("By Path or Address"))
        adw_preferences_group_set_description(other.cast(), i18n("A folder's path, or a shared folder's address on a NAS or another computer: sftp://, smb://, ftp://, dav://, nfs://…"))
        entry = adw_entry_row_new()
        adw_preferences_row_set_title(entry.cast(), i18n("Path or address"))
        adw_entry_row_set_show_apply_button(entry.cast(), 1)
        adw_preferences_group_add(other.cast(), entry)
        adw_preferences_page_add(page.cast(), other.cast())
        adw_preferences_window_add(window.cast(), page.cast())

        Signal.connect(add.raw, "clicked") { [weak self] in self?.chooseFolder() }
        Signal.connect(entry.raw, "apply") { [weak self] in self?.addTyped() }
        // (The window holds this object: it goes with the window.)
        attach(self, to: window.raw, key: "photopick-library-folders-window")
        showFolders()
    }

    // MARK: The list

    /// One row per folder of the list: its name, where it is, and a button that removes it.
    func showFolders() {
        for entry in rows { adw_preferences_group_remove(group.cast(), entry.row) }
        rows = []
        let folders = LibraryFolders.defaults
        for folder in folders {
            let row = adw_action_row_new()!
            // (Names are not markup: "Tom & Jerry" is a folder's name.)
            adw_preferences_row_set_use_markup(row.cast(), 0)
            adw_preferences_row_set_title(row.cast(), Self.name(of: folder))
            adw_action_row_set_subtitle(row.cast(), Self.whereItIs(folder))
            adw_action_row_add_prefix(row.cast(), gtk_image_new_from_icon_name(Self.icon(of: folder)))
            let remove = gtk_button_new_from_icon_name("list-remove-symbolic")!
            gtk_widget_add_css_class(remove, "flat")
            gtk_widget_set_valign(remove, GTK_ALIGN_CENTER)
            let name = Self.name(of: folder)
            setTooltip(remove, i18n("Remove from the library"))
            photopick_accessible_set_label(remove, i18n("Remove {folder} from the library", ["folder": name]))
            // A library needs a folder: the last one stays.
            gtk_widget_set_sensitive(remove, folders.count > 1 ? 1 : 0)
            adw_action_row_add_suffix(row.cast(), remove)
            Signal.connect(remove.raw, "clicked") { [weak self] in self?.remove(folder) }
            adw_preferences_group_add(group.cast(), row)
            rows.append((folder, row, remove))
        }
    }

    /// Where a folder is, as a person reads it: "~/Pictures", "sftp://nas/photos", and whether
    /// a local one is missing (a disk not connected).
    static func whereItIs(_ folder: FilePath) -> String {
        guard !folder.isLocationURI else { return folder.displayString }
        var text = folder.displayString
        let home = XDGDirectories.home
        if let relative = folder.relative(to: home) { text = "~/" + String(decoding: relative, as: UTF8.self) }
        return folder.isDirectory ? text : i18n("{folder} — not there now", ["folder": text])
    }

    /// "Pictures", "photos" (of sftp://nas/photos).
    static func name(of folder: FilePath) -> String { String(decoding: folder.lastName, as: UTF8.self) }

    static func icon(of folder: FilePath) -> String {
        if folder.isLocationURI { return "folder-remote-symbolic" }
        if folder == XDGDirectories.picturesFolder { return "folder-pictures-symbolic" }
        if XDGDirectories.mediaFolders.contains(folder) { return "folder-videos-symbolic" }
        return "folder-symbolic"
    }

    func remove(_ folder: FilePath) {
        do {
            try LibraryFolders.remove(folder)
        } catch {
            DeveloperLog.say("\(error)")
            say(i18n("The list of folders cannot be written"))
            return
        }
        showFolders()
        say(i18n("“{folder}” is no longer in the library", ["folder": Self.name(of: folder)]))
    }

    /// Adds a folder that is known to be there.
    func add(_ folder: FilePath) {
        guard !LibraryFolders.defaults.contains(folder) else {
            say(i18n("“{folder}” is in the library already", ["folder": folder.displayString]))
            return
        }
        do {
            try LibraryFolders.add(folder)
        } catch {
            DeveloperLog.say("\(error)")
            say(i18n("The list of folders cannot be written"))
            return
        }
        showFolders()
        say(i18n("“{folder}” is in the library now", ["folder": Self.name(of: folder)]))
    }

    func say(_ message: String) {
        lastMessage = message
        let toast = adw_toast_new(message)!
        adw_toast_set_timeout(toast, 5)
        adw_preferences_window_add_toast(window.cast(), toast)
    }

    // MARK: Adding

    /// What was typed: "~/Downloads", "/media/usb/DCIM", "sftp://nas/photos". A path must be a
    /// folder here; an address is mounted (asking for a password if the server wants one), then
    /// checked to be a folder, off the GTK thread.
    func addTyped() {
        guard !isChecking else { return }
        let text = String(cString: gtk_editable_get_text(OpaquePointer(entry))).trimmingWhitespace
        guard !text.isEmpty else { return }
        var folder = FilePath(text)
        if text == "~" || text.hasPrefix("~/") { folder = XDGDirectories.home.appending(String(text.dropFirst(2))) }
        if let local = RemoteFiles.localPath(ofFileURI: folder) { folder = local }
        guard folder.isLocationURI || folder.isAbsolute else {
            say(i18n("Type a folder's whole path (“/media/disk/Photos”, “~/Downloads”) or an address (“sftp://nas/photos”)"))
            return
        }
        guard folder.isLocationURI else {
            guard folder.isDirectory else {
                say(i18n("There is no folder “{folder}”", ["folder": text]))
                return
            }
            gtk_editable_set_text(OpaquePointer(entry), "")
            add(folder.absolute())
            return
        }
        let location = folder
        isChecking = true
        gtk_widget_set_sensitive(entry, 0)
        let operation = gtk_mount_operation_new(window.cast())!
        RemoteFiles.mountAsking(location, through: UnsafeMutableRawPointer(operation), worker: worker.pool,
                                post: { work in MainLoopDispatcher.shared.post(work) }) { [weak self] failure in
            g_object_unref(UnsafeMutableRawPointer(operation))
            guard let self else { return }
            if let failure {
                self.checked(location, text: text, failure: failure)
                return
            }
            let pool = self.worker.pool
            pool.submit {
                var failure: RemoteFiles.Failure?
                do throws(RemoteFiles.Failure) { try RemoteFiles.checkFolder(location) } catch { failure = error }
                let found = failure
                MainLoopDispatcher.shared.post { [weak self] in self?.checked(location, text: text, failure: found) }
            }
        }
    }

    private func checked(_ folder: FilePath, text: String, failure: RemoteFiles.Failure?) {
        isChecking = false
        gtk_widget_set_sensitive(entry, 1)
        guard let failure else {
            gtk_editable_set_text(OpaquePointer(entry), "")
            add(folder)
            return
        }
        DeveloperLog.say("cannot add \(folder): \(failure.message)")
        switch failure.kind {
        case .vanished: say(i18n("There is no folder “{folder}”", ["folder": text]))
        case .refused: say(i18n("“{folder}” may not be read", ["folder": text]))
        default: say(i18n("“{folder}” cannot be reached: the server did not answer or refused", ["folder": text]))
        }
    }

    /// Add Folder…: the desktop's folder chooser.
    func chooseFolder() {
        guard chooser == nil, let dialog = gtk_file_chooser_native_new(i18n("Add a Folder to the Library"), window.cast(), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                                                       i18n("_Add"), i18n("_Cancel")) else { return }
        chooser = GObjectRef(UnsafeMutableRawPointer(dialog), transfer: .full)
        gtk_native_dialog_set_modal(UnsafeMutableRawPointer(dialog).assumingMemoryBound(to: GtkNativeDialog.self), 1)
        // (It opened on Recent, where no folder can be chosen: the home folder, where most are.)
        if let home = XDGDirectories.home.withCString({ g_file_new_for_path($0) }) {
            gtk_file_chooser_set_current_folder(dialog, home, nil)
            g_object_unref(UnsafeMutableRawPointer(home))
        }
        Signal.connect(UnsafeMutableRawPointer(dialog), "response", response: { [weak self] response in
            guard let self, self.chooser != nil else { return }
            var chosen: FilePath?
            if response == GTK_RESPONSE_ACCEPT.rawValue, let file = gtk_file_chooser_get_file(dialog) {
                chosen = chosenLocation(file)
                g_object_unref(UnsafeMutableRawPointer(file))
            }
            gtk_native_dialog_destroy(UnsafeMutableRawPointer(dialog).assumingMemoryBound(to: GtkNativeDialog.self))
            self.chooser = nil
            if let chosen { self.add(chosen) }
        })
        gtk_native_dialog_show(UnsafeMutableRawPointer(dialog).assumingMemoryBound(to: GtkNativeDialog.self))
    }
}

private extension String {
    var trimmingWhitespace: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return String(text)
    }
}
