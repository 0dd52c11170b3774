// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel
import Thumbnails

/// What the grid says when it has nothing to show, and Choose Folder….
extension Picker {
    /// What the empty grid says, in words a person can act on.
    struct EmptyState: Equatable {
        var icon: String
        var title: String
        var description: String
        var offersFolderChoice: Bool
    }

    var emptyStateShown: EmptyState? {
        // (Nothing said before an album is read: the picker's first frame said "No Photos Yet"
        // over a library of 5,000 photos, and its big title and icon were a third of that frame.)
        guard model.fetchResult != nil || firstScreenIsHeld else { return nil }
        guard (model.fetchResult?.count ?? 0) == 0 || firstScreenIsHeld else { return nil }
        // Every folder on another machine that does not answer: said even while the scan waits on it.
        let offline = controller.service.offlineRoots
        if !offline.isEmpty, controller.roots.allSatisfy({ offline[$0] != nil }), let (folder, reason) = offline.min(by: { $0.key < $1.key }) {
            return offlineState(folder, reason)
        }
        // A first run shows the album once every file is dated, in its final order (the grid
        // would otherwise shift for as long as the scan ran): said as it is, with how far it is.
        // Over a 2 Mbit/s link, dating 300 camera photos (5 MB of their headers) took 21 s, while
        // this said "as they are found" (issue 40, point 14).
        if controller.scannedLibraryIsComing || firstScreenIsHeld {
            let description = datingProgress.flatMap { dating in dating.total > 0 && controller.scannedLibraryIsComing ? dating : nil }.map { dating in
                ni18n("Photos and videos appear here, newest first, once the date of each is known: {done} of {total} file read.",
                      "Photos and videos appear here, newest first, once the date of each is known: {done} of {total} files read.",
                      dating.total, ["done": Localization.number(dating.done), "total": Localization.number(dating.total)])
            } ?? i18n("Photos and videos appear here, newest first, once the date of each is known.")
            return EmptyState(icon: "folder-pictures-symbolic", title: i18n("Looking for Photos"), description: description, offersFolderChoice: false)
        }
        if controller.isScanning || scanIsDue {
            return EmptyState(icon: "folder-pictures-symbolic", title: i18n("Looking for Photos"),
                              description: i18n("Photos and videos appear here as they are found."), offersFolderChoice: false)
        }
        // The album has photos, and the filter hides every one: say so, not "No Photos Yet".
        if controller.filter != .all, let album = controller.currentAlbum,
           (controller.albums.first { $0.album == album }?.count ?? 0) > 0 {
            let name = filterName ?? controller.filter.mimeTypes.joined(separator: i18n(", "))
            return EmptyState(icon: "edit-find-symbolic", title: i18n("Nothing Matches “{filter}”", ["filter": name]),
                              description: i18n("Every photo and video in {album} is hidden by this filter. Choose another file type above, or press Ctrl+L to type a file's path.",
                                                ["album": controller.albums.first { $0.album == album }?.displayName ?? ""]),
                              offersFolderChoice: false)
        }
        // A folder on another machine that does not answer, with nothing of it in the index yet.
        if let (folder, reason) = offline.min(by: { $0.key < $1.key }) { return offlineState(folder, reason) }
        // (No folder at all: the person's own Pictures folder is not there.)
        if let missing = controller.roots.first(where: { !$0.mayHoldALibrary }) ?? (controller.roots.isEmpty ? LibraryFolders.defaults.first : nil) {
            return EmptyState(icon: "folder-pictures-symbolic", title: i18n("No {folder} Folder", ["folder": missing.lastComponentName]),
                              description: i18n("Choose the folder where your photos are."), offersFolderChoice: true)
        }
        if controller.currentAlbum == .smart(.recents) || controller.currentAlbum == nil {
            // Translators: between folder names, "in Pictures or Videos".
            let names = controller.roots.map { $0.lastComponentName }.joined(separator: i18n(" or "))
            return EmptyState(icon: "image-x-generic-symbolic", title: i18n("No Photos Yet"),
                              description: i18n("There are no photos or videos in {folders}.", ["folders": names]), offersFolderChoice: true)
        }
        return EmptyState(icon: "image-x-generic-symbolic", title: i18n("This Album Is Empty"),
                          description: i18n("Choose another album above."), offersFolderChoice: false)
    }

    private func offlineState(_ folder: FilePath, _ reason: String) -> EmptyState {
        guard folder.isLocationURI else {
            return EmptyState(icon: "drive-removable-media-symbolic",
                              title: i18n("“{folder}” Is Not There", ["folder": folder.lastComponentName]),
                              description: i18n("Its photos show here once its disk is connected."), offersFolderChoice: true)
        }
        return EmptyState(icon: "network-offline-symbolic",
                   title: i18n("“{folder}” on {host} Cannot Be Reached",
                               ["folder": String(decoding: folder.lastName, as: UTF8.self), "host": PickerController.host(of: folder)]),
                   description: i18n("Its photos show here once it answers ({reason}).", ["reason": reason]), offersFolderChoice: true)
    }

    func updateEmptyState() {
        guard controller != nil else { return }
        let state = emptyStateShown
        if let state {
            adw_status_page_set_icon_name(emptyState.opaque, state.icon)
            adw_status_page_set_title(emptyState.opaque, state.title)
            // (The description is markup in AdwStatusPage: a folder named "Tom & Jerry" or "<old>"
            // showed the wrong words, with a markup warning.)
            adw_status_page_set_description(emptyState.opaque, markupEscaped(state.description))
            gtk_widget_set_visible(chooseFolderButton, state.offersFolderChoice && onChooseFolder != nil ? 1 : 0)
        }
        gtk_widget_set_visible(emptyState, state == nil ? 0 : 1)
        // Held, the grid is laid out and its cells bound (and asking), unseen.
        gtk_widget_set_opacity(scroller, firstScreenIsHeld ? 0 : 1)
    }

    /// Asks for a folder (the portal's chooser where there is one) and hands it to the host.
    func chooseFolder() {
        guard folderChooser == nil else { return }
        let root = gtk_widget_get_root(widget).map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: GtkWindow.self) }
        guard let chooser = gtk_file_chooser_native_new(i18n("Choose a Folder of Photos"), root, GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                                        i18n("_Choose"), i18n("_Cancel")) else { return }
        let dialog = UnsafeMutableRawPointer(chooser).assumingMemoryBound(to: GtkNativeDialog.self)
        folderChooserReference = GObjectRef(dialog, transfer: .full)
        gtk_native_dialog_set_modal(dialog, 1)
        Signal.connect(chooser.raw, "response", response: { [weak self] response in
            guard let self, let chooser = self.folderChooser else { return }
            var chosen: FilePath?
            if response == GTK_RESPONSE_ACCEPT.rawValue, let file = gtk_file_chooser_get_file(chooser.opaque) {
                // A folder on another machine (the chooser mounted it, asking for a password if
                // the server wanted one) joins as its location URI.
                chosen = chosenLocation(file)
                g_object_unref(file.raw)
            }
            gtk_native_dialog_destroy(chooser)
            self.folderChooserReference = nil
            if let chosen { self.onChooseFolder?(chosen) }
        })
        gtk_native_dialog_show(dialog)
    }
}
