// SPDX-License-Identifier: LGPL-2.1-or-later
import Camera
import CGtk
import GObjectSupport
import GTKSupport
import Glibc
import PhotoLibrary
import PickerModel
import Thumbnails

// MARK: The build
//
// A picker is built over the library its properties name once the host's setup is over (the
// main loop's next turn), on screen in two steps with a frame between (the library, then its
// album), or at once when the host needs it (grab_focus, confirm …: buildIfWaiting). Another set
// of folders builds it again: a new controller and grid in the same tree.
extension Picker {
    /// Whether the picker was built (always, a hosted one).
    var isBuilt: Bool { isHosted || (!waitingToBuild && !albumWaits) }

    /// Builds the picker now, or its last step, if it waits for the host's setup to end or for
    /// a frame.
    func buildIfWaiting() {
        guard !isBuilt else { return }
        buildLater.cancel()
        stopWaitingForTheFrame()
        if waitingToBuild {
            waitingToBuild = false
            build()
        } else {
            albumWaits = false
            openTheAlbumAndStart()
        }
    }

    /// A picker already on screen (added to a window the person sees) is built once the window
    /// has drawn its frame, and in two steps with a frame between them, the library and then its
    /// album (issue 38, point 6): built in one turn with the host's own work and the library's
    /// loading, the host's window froze for 168 ms when the picker came up, and for 35-50 ms
    /// built in one step after its frame.
    func buildAfterTheFrame() {
        guard !isBuilt else { return }
        afterTheNextFrame { [weak self] in
            guard let self, self.waitingToBuild else { return }
            self.waitingToBuild = false
            guard self.openTheLibrary() else { return }
            self.albumWaits = true
            // The album read after the frame that lays the picker out, and shown after the
            // next: in one turn the two were 12 ms after that frame's 13, and the host missed a
            // frame (issue 38, point 6).
            self.afterTheNextFrame { [weak self] in
                guard let self, self.albumWaits else { return }
                self.albumRead = self.readAlbum(fallingBack: true)
                self.afterTheNextFrame { [weak self] in self?.buildIfWaiting() }
            }
        }
    }

    /// Runs `body` right after the widget's window draws its next frame (NextFrame). It replaces
    /// what waited for a frame before: a rebuild within a frame of the last build's album left
    /// that build's handler connected, which then took the new one's place, and the new
    /// library's scan never started.
    func afterTheNextFrame(_ body: @escaping @MainActor () -> Void) {
        buildLater.cancel()
        nextFrame.run(after: widget, body)
    }

    /// As `afterTheNextFrame`, for a picker in a window about to be shown: after that window's
    /// first frame (or a second, if it is not shown by then).
    func afterItShows(_ body: @escaping @MainActor () -> Void) {
        buildLater.cancel()
        nextFrame.runAfterItShows(widget, body)
    }

    func stopWaitingForTheFrame() { nextFrame.cancel() }

    /// The size of the window the picker is in when that window is not shown yet (its default
    /// size), and whether it is to be maximized (its size then unknown until it is).
    var unshownWindowSize: (width: Int, height: Int, maximized: Bool)? {
        guard gtk_widget_get_mapped(widget) == 0, let root = gtk_widget_get_root(widget),
              g_type_check_instance_is_a(UnsafeMutableRawPointer(root).assumingMemoryBound(to: GTypeInstance.self), gtk_window_get_type()) != 0 else { return nil }
        let window = UnsafeMutableRawPointer(root).assumingMemoryBound(to: GtkWindow.self)
        var width: Int32 = 0, height: Int32 = 0
        gtk_window_get_default_size(window, &width, &height)
        guard width > 0, height > 0 else { return nil }
        return (Int(width), Int(height), gtk_window_is_maximized(window) != 0)
    }

    // MARK: The picker inside

    /// Makes the picker over the library the properties name, replacing the one there was.
    func build() {
        // (A rebuild, another set of folders chosen from the empty state, destroys the widget
        // that had the focus: the focus stays in the picker, on its grid.)
        let hadFocus = controller != nil && focusIsInside
        albumWaits = false
        if openTheLibrary() { openTheAlbumAndStart() }
        if hadFocus { _ = grabFocus() }
    }

    /// The first step of a build: the library opened and shown in the tree (false when the
    /// library cannot be opened: the widget says so instead).
    func openTheLibrary() -> Bool {
        StartupTrace.mark("embedded picker: building")
        closeLibrary()
        let given = libraryFolders
        var seen = Set<[UInt8]>()
        let roots = Array(given.filter { seen.insert($0.bytes).inserted }.prefix(Self.folderLimit))
        let service: LibraryService
        do {
            // Pickers of the same folders in this process share one index, scan and watcher.
            // (None named: the default folders', as the app from the menu shows them.)
            let folders = LibraryService.folders(shownFor: roots)
            service = try LibraryService.shared(roots: folders, post: { MainLoopDispatcher.shared.post($0) }) {
                roots.isEmpty ? try PhotoLibrary(defaultFoldersAt: .standard) : try PhotoLibrary(roots: folders)
            }
        } catch {
            DeveloperLog.sayOnce("cannot open the photo library of \(roots.map(\.displayString)): \(error)")
            let page = adw_status_page_new()!
            adw_status_page_set_icon_name(page.opaque, "dialog-warning-symbolic")
            adw_status_page_set_title(page.opaque, i18n("No Photos to Show"))
            adw_status_page_set_description(page.opaque, i18n("The photo index cannot be opened"))
            gtk_widget_set_vexpand(page, 1)
            gtk_widget_set_visible(body, 0)
            gtk_box_append(content.cast(), page)
            return false
        }
        StartupTrace.mark("embedded picker: library opened")
        // (The person's setting "camera-always-shown" of Photopick's state file shows the camera's
        // cell with no camera too, saying so.)
        let alwaysShown = PickerState.load().cameraAlwaysShown
        let camera = shell.get_show_camera(picker) != 0
            ? CameraStore(requested: stringProperty("camera"), alwaysShown: alwaysShown, post: { MainLoopDispatcher.shared.post($0) }) : nil
        let maximum = Int(shell.get_max_picks(picker))
        let controller = PickerController(service: service, maximum: maximum > 0 ? maximum : nil, camera: camera,
                                          showsCameraAtStart: camera != nil && (alwaysShown || !CameraDevices.nodes().isEmpty),
                                          post: { MainLoopDispatcher.shared.post($0) })
        putTreeInWidget()
        open(controller)
        StartupTrace.mark("embedded picker: view made")
        // A first run makes its first screen's thumbnails while the files are dated, before the
        // grid is laid out (often before the host shows the picker at all): until the picker has
        // a size, those of its window's, or of a window of the program's default size.
        photoGrid.expectedSize = unshownWindowSize.map { ($0.width, $0.height) } ?? (960, 720)
        if !isHosted { shareWindow() }
        if seen.count > Self.folderLimit {
            report(i18n("The picker was given {count} folders: it shows the photos of the first {limit}",
                        ["count": groupedDigits(seen.count), "limit": "\(Self.folderLimit)"]))
        }
        applyConfirmLabel()
        applyShowChooseFolder()
        applyFilter()
        applyProperties()
        followPersonsChoices()
        followTheFoldersFile()
        StartupTrace.mark("embedded picker: set up")
        return true
    }

    /// The last step of a build: the album the properties name opened, the picks the host set,
    /// the scan, the watcher and the camera started.
    func openTheAlbumAndStart() {
        guard let controller else { return }
        StartupTrace.mark("embedded picker: opening the album")
        scanIsDue = !isHosted
        let camera = controller.camera
        let isFirstRun = library.isEmpty
        // In a window not shown yet (a program that builds its window before it presents it, as
        // the photopick program does), the first frame is the album's first screen: the cells
        // beyond it wait for that frame, and the thumbnails in sight are read from the disk cache
        // now (at most 0.1 s; a warm start's first frame then holds every one).
        let unshown = unshownWindowSize
        if let unshown, !unshown.maximized { holdCellsBeyondFirstScreen(width: unshown.width, height: unshown.height) }
        if let read = albumRead {
            albumRead = nil
            controller.show(read)
        } else {
            openAlbum(fallingBack: true)
        }
        StartupTrace.mark("embedded picker: album open")
        for notice in library.notices { report(notice.message, printing: false) }
        if let picks = pendingPicks {
            pendingPicks = nil
            setPickedURIs(picks)
        }
        if let unshown {
            preloadFirstScreen(width: unshown.width, height: unshown.height)
            StartupTrace.mark("first screen's thumbnails loaded")
        }
        // On screen, the scan and the watcher start after the album's frame: the watcher's walk
        // of the folders and its watches (14 ms for 542 folders on the GTK thread) came right
        // after the album's cells, and the host missed a frame (issue 38, point 6). In a window
        // about to be shown, after its first frame: the walk read a folder of 60,000 photos
        // while the window was presented and drawn, on the core GTK and the X server needed.
        let start: @MainActor () -> Void = { [weak self, weak controller] in
            guard let self, let controller, controller === self.controller else { return }
            if let unshown {
                // For the next start, which reads these while GTK starts (FirstScreenHint); a
                // first run's once its first screen shows.
                self.firstScreenHintSize = (unshown.width, unshown.height)
                self.saveFirstScreenHint()
            }
            self.startScan()
            controller.startWatching()
            StartupTrace.mark("embedded picker: watching")
        }
        if unshown == nil { afterTheNextFrame(start) } else { afterItShows(start) }
        // The camera and a first run's decode workers start when the picker is shown: an app may
        // make its picker long before it slides it up. Shown, it leaves the keys where they are
        // (issue 38: it took them from the host's entry at every show, page switch and reveal,
        // and typed text landed in its search); the host gives it the focus (grab_focus, Tab).
        mapHandler = Signal.connect(widget.raw, "map") { [weak self] in
            guard let self, let controller = self.controller else { return }
            if isFirstRun { self.loader.thumbnailer.workers?.prestart() }
            controller.camera?.start()
        }
        if gtk_widget_get_mapped(widget) != 0 { camera?.start() }
    }

    /// In a host's window: the picker's keys only while it has the focus, Tab in and out of it.
    func shareWindow() {
        sharesWindow = true
        let keys = HostWindowKeys(picker: self)
        hostKeys = keys
        let attach: @MainActor () -> Void = { [weak self] in
            guard let self, let keys = self.hostKeys, let root = gtk_widget_get_root(self.widget) else { return }
            keys.attach(to: UnsafeMutableRawPointer(root).assumingMemoryBound(to: GtkWidget.self))
        }
        hostKeysHandlers = [Signal.connect(widget.raw, "map") { attach() },
                            Signal.connect(widget.raw, "unmap") { [weak self] in self?.hostKeys?.detach() }]
        if gtk_widget_get_mapped(widget) != 0 { attach() }
    }

    func openAlbum(fallingBack: Bool) {
        if let read = readAlbum(fallingBack: fallingBack) { controller.show(read) }
    }

    /// The album list, and the album the album property names (Recents when it names none, or
    /// one that is not there and `fallingBack`), read: nil when there is nothing to open.
    func readAlbum(fallingBack: Bool) -> PickerController.AlbumsRead? {
        guard let controller else { return nil }
        var album: Album = .smart(.recents)
        if let name = albumName {
            do {
                if let named = try library.album(named: name) {
                    album = named
                } else {
                    report(i18n("There is no album named “{album}”", ["album": name]))
                    if !fallingBack {
                        followOpenAlbum()  // (the property says what is open again)
                        return nil
                    }
                }
            } catch {
                DeveloperLog.say("cannot read the albums: \(error)")
                report(i18n("The albums cannot be read"), printing: false)
            }
        }
        do {
            return try controller.readAlbums(selecting: album)
        } catch {
            DeveloperLog.say("cannot read the albums: \(error)")
            report(i18n("The albums cannot be read"), printing: false)
            return nil
        }
    }

    /// The album property says the open album.
    func followOpenAlbum() {
        guard let current = controller?.currentAlbum else { return }
        let name: String?
        switch current {
        case .smart(let smart): name = smart.name
        case .recentlyPicked: name = Album.recentlyPickedName
        case .folder: name = controller.albums.first { $0.album == current }.map { $0.name + "/" }
        case .tree(let id): name = "tree:\(id)"
        }
        if let name { shell.set_album_internal(picker, name) }
    }

}
