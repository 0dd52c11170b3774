// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import Camera
import CGLib
import CGtk
import GObjectSupport
import GTKSupport
import Glibc
import PhotoLibrary
import PickerModel
import Thumbnails

/// What PhotopickPicker does: the Swift side of the GObject shell in Sources/CPhotopick, which
/// holds the properties and signals and calls the hooks in PickerBehaviour+Hooks.swift. It builds the
/// picker (PickerView) over the library its properties name, puts it and a compact header row
/// in the widget, and turns the view's confirm and cancel into the widget's signals.
///
/// The shell owns it (a retained reference from `constructed` to `dispose`); it holds the shell
/// unretained, which is safe for the same reason.
@MainActor
public final class PickerBehaviour {
    let picker: OpaquePointer
    /// The widget's one child: the header row over the picker.
    let content: UnsafeMutablePointer<GtkWidget>
    /// Cancel, the album switcher and the confirm button, in a row; hidden with show-header.
    let header: UnsafeMutablePointer<GtkWidget>
    /// What get_header_widgets gives: boxes that stay while the view inside them is rebuilt
    /// (another set of library folders), out of the row while show-header is false.
    @Owned var startBox: UnsafeMutablePointer<GtkWidget>
    @Owned var titleBox: UnsafeMutablePointer<GtkWidget>
    @Owned var endBox: UnsafeMutablePointer<GtkWidget>
    public private(set) var view: PickerView?
    private var selectionObservation: Subscription?
    private var fetchObservation: Subscription?
    /// The picks whose copies pick-copied announced (once each).
    private var copiesAnnounced = Set<Int64>()
    /// The picks a host set (picked-uris) that wait for the build, or for the scan to find them.
    private var pendingPicks: [String]?
    private var restoredPicks: SavedPicks?
    private var controllerObservation: Subscription?
    private var mapHandler: gulong = 0
    /// The picker's keys on the host's window while it is mapped (not the benchmark's).
    private var hostKeys: HostWindowKeys?
    private var hostKeysHandlers: [gulong] = []
    /// A photo of this view's grid has had the focus (the grid remembers which).
    private var gridHadFocus = false
    /// The photo a program put the cursor on (reveal_uri), for the next focus into the grid.
    var revealedAsset: Int64?
    /// The camera switched to, followed in the camera property.
    var cameraObservation: Subscription?
    /// The file chooser filters' drop-down (PickerBehaviour+Filters), in the end box.
    private(set) var filterChooser: UnsafeMutablePointer<GtkWidget>!
    /// The drop-down is being set to the filter in use (not the person's choice).
    var followingFilter = false

    /// One thumbnail loader for every picker of the process while any lives: the caches and the
    /// decode workers are shared, each picker asks for its own cells. It goes with the last
    /// picker a host made (`releaseShared`), and is made again with the next.
    static var loader: ThumbnailLoader {
        if let sharedLoader { return sharedLoader }
        let made = ThumbnailLoader()
        sharedLoader = made
        return made
    }
    private static var sharedLoader: ThumbnailLoader?
    /// The pickers a host made that are alive (the photopick program's too; not the benchmark's).
    private static var livePickers = 0

    /// The last picker of a host went (issue 38, point 5: two decode workers, a metadata worker
    /// left a zombie, the loader's threads and up to 93 MB of thumbnails stayed until the host
    /// exited): the shared loader stops its threads without waiting for them and lets go of its
    /// memory cache; the workers that wait for work are stopped and reaped. What is at work
    /// finishes and ends by itself. Nothing here waits on a worker that is busy.
    private static func releaseShared() {
        sharedLoader?.shutdown(waitsForRunningWork: false)
        sharedLoader = nil
        DecodeWorkerPool.ofThisProgram?.stopIdleWorkers()
        MetadataWorkers.ofThisProgram?.stopIdleWorkers()
        MetadataWorkers.inBackgroundOfThisProgram?.stopIdleWorkers()
        // (The thumbnails' memory goes back to the system, not only to the allocator.)
        MainLoopDispatcher.shared.post {
            StartupTrace.mark("embedded picker: trimming")
            _ = malloc_trim(0)
            StartupTrace.mark("embedded picker: trimmed")
        }
    }

    /// The controller of the benchmark's picker, for the next picker made (see `hosting`).
    private static var pendingController: (controller: PickerController, loader: ThumbnailLoader)?
    /// Whether the view came from the benchmark (`hosting`), which opens its album itself and
    /// neither scans nor watches; false for every other picker, the program's too.
    private(set) var isHosted = false

    /// The picker benchmark's widget: a PhotopickPicker over a controller it made, which does not
    /// scan (the benchmark's synthetic rows stay), with no header row of its own. Returns the
    /// widget (floating) and what drives it. (The photopick program makes its picker as any host
    /// does: PhotopickApp.)
    @_spi(Testing) public static func hosting(_ controller: PickerController, loader: ThumbnailLoader) -> (widget: UnsafeMutablePointer<GtkWidget>, behaviour: PickerBehaviour) {
        // (GObject constructs the widget inside photopick_picker_new: the controller waits here
        // for the init below, on this thread.)
        pendingController = (controller, loader)
        let widget = shell.new()!
        pendingController = nil
        let behaviour = PickerBehaviour.of(widget)!
        shell.set_show_header(OpaquePointer(widget), 0)
        return (widget, behaviour)
    }

    init(picker: OpaquePointer) {
        StartupTrace.mark("embedded picker: made")
        self.picker = picker
        Self.prepareProcess()
        content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)
        header = gtk_center_box_new()
        style(header, "picker-header")
        // (A header bar's padding: the buttons keep their shape at the picker's edge.)
        for set in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start, gtk_widget_set_margin_end] {
            set(header, 6)
        }
        _startBox = Owned(wrappedValue: gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6))
        _titleBox = Owned(wrappedValue: gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0))
        _endBox = Owned(wrappedValue: gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6))
        // (Styled as the picker's wherever the host packs them.)
        for box in [startBox, titleBox, endBox] { style(box, Style.partClass) }
        filterChooser = makeFilterChooser()
        gtk_box_append(endBox.cast(), filterChooser)
        followFilters()
        gtk_box_append(content.cast(), header)
        gtk_widget_set_parent(content, widget)
        if let (controller, loader) = Self.pendingController {
            isHosted = true
            show(PickerView(controller: controller, loader: loader))
        } else {
            Self.livePickers += 1
            // Built once the host is done setting it up (issue 38, point 11): `new ()` and then
            // setters (Vala's object initializers, C that sets up after creating) had the
            // person's own folders indexed first, then the folders asked for. Built when the
            // main loop next runs; a method that needs the picker (grab_focus, confirm) builds it
            // at once.
            waitingToBuild = true
            buildLater.schedule(priority: G_PRIORITY_DEFAULT) { [weak self] in self?.buildAfterTheFrame() }
        }
        applyShowHeader()
    }

    /// The build waiting for the host's setup to end (see init).
    private let buildLater = MainLoopSource()
    private var waitingToBuild = false
    /// The frame clock the build waits on, held (the picker may move to another window first).
    private var afterPaintHandler: (clock: GObjectRef, id: gulong)?
    /// The view is in, its album still to open (the second step of a build on screen).
    private var albumWaits = false
    /// Whether the picker was built (always, the benchmark's).
    private var isBuilt: Bool { isHosted || (!waitingToBuild && !albumWaits) }

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
    /// has drawn its frame, and in two steps with a frame between them, the view and then its
    /// album (issue 38, point 6): built in one turn with the host's own work and the library's
    /// loading, the host's window froze for 168 ms when the picker came up, and for 35-50 ms
    /// built in one step after its frame.
    private func buildAfterTheFrame() {
        guard !isBuilt else { return }
        afterTheNextFrame { [weak self] in
            guard let self, self.waitingToBuild else { return }
            self.waitingToBuild = false
            guard self.buildView() else { return }
            self.albumWaits = true
            self.afterTheNextFrame { [weak self] in self?.buildIfWaiting() }
        }
    }

    /// Runs `body` right after the widget's window draws its next frame, or at once when it is
    /// not on screen; after 500 ms when no frame comes (a window minimized on Wayland).
    private func afterTheNextFrame(_ body: @escaping @MainActor () -> Void) {
        guard gtk_widget_get_mapped(widget) != 0, let clock = gtk_widget_get_frame_clock(widget) else {
            body()
            return
        }
        let id = Signal.connect(UnsafeMutableRawPointer(clock), "after-paint") { [weak self] in
            guard let self else { return }
            self.stopWaitingForTheFrame()
            // (Right after this paint, before the next frame's work.)
            self.buildLater.schedule(priority: G_PRIORITY_DEFAULT) { body() }
        }
        afterPaintHandler = (GObjectRef(clock, transfer: .none), id)
        gtk_widget_queue_draw(widget)
        buildLater.schedule(after: 500, priority: G_PRIORITY_DEFAULT) { [weak self] in
            self?.stopWaitingForTheFrame()
            body()
        }
    }

    private func stopWaitingForTheFrame() {
        guard let (clock, id) = afterPaintHandler else { return }
        afterPaintHandler = nil
        if g_signal_handler_is_connected(clock.pointer, id) != 0 { g_signal_handler_disconnect(clock.pointer, id) }
    }

    var widget: UnsafeMutablePointer<GtkWidget> { UnsafeMutableRawPointer(picker).assumingMemoryBound(to: GtkWidget.self) }

    /// The size of the window the picker is in when that window is not shown yet (its default
    /// size), and whether it is to be maximized (its size then unknown until it is).
    private var unshownWindowSize: (width: Int, height: Int, maximized: Bool)? {
        guard gtk_widget_get_mapped(widget) == 0, let root = gtk_widget_get_root(widget),
              g_type_check_instance_is_a(UnsafeMutableRawPointer(root).assumingMemoryBound(to: GTypeInstance.self), gtk_window_get_type()) != 0 else { return nil }
        let window = UnsafeMutableRawPointer(root).assumingMemoryBound(to: GtkWindow.self)
        var width: Int32 = 0, height: Int32 = 0
        gtk_window_get_default_size(window, &width, &height)
        guard width > 0, height > 0 else { return nil }
        return (Int(width), Int(height), gtk_window_is_maximized(window) != 0)
    }

    /// Once a process: the catalogues beside libphotopick-1.so. (Not libadwaita's styles: a
    /// host that does not use libadwaita keeps its own theme; see Style.)
    private static let prepared: Void = {
        if let folder = WorkerProcess.embeddingLibraryFolder {
            if let directory = Localization.installedLocaleDirectory(libraryFolder: folder.displayString) { Localization.bind(localeDirectory: directory) }
            // (In a host: its log, not raw lines on its standard error.)
            DeveloperLog.logThroughGLib(domain: "Photopick")
        }
    }()

    private static func prepareProcess() { _ = prepared }

    // MARK: The picker inside

    /// Makes the picker over the library the properties name, replacing the one there was.
    private func build() {
        // (A rebuild, another set of folders chosen from the empty state, destroys the widget
        // that had the focus: the focus stays in the picker, on its grid.)
        let hadFocus = view != nil && focusIsInside
        albumWaits = false
        if buildView() { openTheAlbumAndStart() }
        if hadFocus { _ = grabFocus() }
    }

    /// The first step of a build: the library opened and the view in the widget (false when the
    /// library cannot be opened: the widget says so).
    private func buildView() -> Bool {
        StartupTrace.mark("embedded picker: building")
        tearDownView()
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
        let view = PickerView(controller: controller, loader: Self.loader)
        StartupTrace.mark("embedded picker: view made")
        // A first run makes its first screen's thumbnails while the files are dated, before the
        // grid is laid out (often before the host shows the picker at all): until the picker has
        // a size, those of its window's, or of a window of the program's default size.
        view.photoGrid.expectedSize = unshownWindowSize.map { ($0.width, $0.height) } ?? (960, 720)
        show(view)
        if seen.count > Self.folderLimit {
            view.report(i18n("The picker was given {count} folders: it shows the photos of the first {limit}",
                             ["count": groupedDigits(seen.count), "limit": "\(Self.folderLimit)"]))
        }
        applyConfirmLabel()
        applyShowChooseFolder()
        applyFilter()
        applyProperties()
        followPersonsChoices(of: view)
        return true
    }

    /// The last step of a build: the album the properties name opened, the picks the host set,
    /// the scan, the watcher and the camera started.
    private func openTheAlbumAndStart() {
        guard let view else { return }
        let controller = view.controller, library = view.library, camera = controller.camera
        let isFirstRun = library.isEmpty
        // In a window not shown yet (a program that builds its window before it presents it, as
        // the photopick program does), the first frame is the album's first screen: the cells
        // beyond it wait for that frame, and the thumbnails in sight are read from the disk cache
        // now (at most 0.1 s; a warm start's first frame then holds every one).
        let unshown = unshownWindowSize
        if let unshown, !unshown.maximized { view.holdCellsBeyondFirstScreen(width: unshown.width, height: unshown.height) }
        openAlbum(fallingBack: true)
        StartupTrace.mark("embedded picker: album open")
        for notice in library.notices { view.report(notice.message, printing: false) }
        if let picks = pendingPicks {
            pendingPicks = nil
            setPickedURIs(picks)
        }
        if let unshown {
            view.preloadFirstScreen(width: unshown.width, height: unshown.height)
            StartupTrace.mark("first screen's thumbnails loaded")
        }
        view.startScan()
        controller.startWatching()
        // The camera and a first run's decode workers start when the picker is shown: an app may
        // make its picker long before it slides it up. Shown, it leaves the keys where they are
        // (issue 38: it took them from the host's entry at every show, page switch and reveal,
        // and typed text landed in its search); the host gives it the focus (grab_focus, Tab).
        mapHandler = Signal.connect(widget.raw, "map") { [weak self] in
            guard let self, let view = self.view else { return }
            if isFirstRun { Self.loader.thumbnailer.workers?.prestart() }
            view.controller.camera?.start()
        }
        if gtk_widget_get_mapped(widget) != 0 { camera?.start() }
    }

    /// Puts `view` in the widget: its header widgets in the header's boxes, its confirm and
    /// cancel as the widget's signals, its picks as picked-count.
    private func show(_ view: PickerView) {
        self.view = view
        gridHadFocus = false
        revealedAsset = nil
        let focus = gtk_event_controller_focus_new()!
        Signal.connect(focus.raw, "enter") { [weak self] in
            guard let self else { return }
            self.gridHadFocus = true
            // (Tab came in: onto the photo a program revealed, once GTK's focus change is over.)
            if let id = self.revealedAsset {
                self.revealedAsset = nil
                MainLoopDispatcher.shared.post { [weak view] in view?.focusAsset(id) }
            }
        }
        gtk_widget_add_controller(view.grid, focus)
        gtk_box_append(startBox.cast(), view.cancelButton)
        gtk_box_append(startBox.cast(), view.previewBackButton)
        gtk_box_append(startBox.cast(), view.progress)
        gtk_box_append(titleBox.cast(), view.titleWidget)
        gtk_box_append(endBox.cast(), view.previewPickButton)
        gtk_box_append(endBox.cast(), view.confirmButton)
        gtk_box_append(content.cast(), view.widget)
        view.onConfirm = { [weak self] assets in self?.confirmed(assets) }
        view.onCancel = { [weak self] in
            guard let self else { return }
            shell.emit_cancelled(self.picker)
        }
        // The album property follows the album the person opens: its name as `photopick albums`
        // prints it, a folder's with a slash (what `album` accepts back).
        controllerObservation = view.controller.observe { [weak self] event in
            if case .albumOpened = event { self?.followOpenAlbum() }
        }
        selectionObservation = view.selection.observe { [weak self, weak view] _ in
            guard let self, let view else { return }
            shell.set_picked_count_internal(self.picker, guint(view.selection.count))
            shell.notify_picked_uris(self.picker)
        }
        // A remote pick's copy landed: the host may read it as a local file now.
        copiesAnnounced = []
        fetchObservation = view.controller.fetches.observe { [weak self, weak view] id in
            guard let self, let view, view.selection.number(of: id) != nil,
                  let copy = view.controller.fetches.copy(of: id), !self.copiesAnnounced.contains(id),
                  let asset = view.controller.assets([id]).first, let copyURI = Self.uri(of: copy) else { return }
            self.copiesAnnounced.insert(id)
            shell.emit_pick_copied(self.picker, Self.uri(of: asset.path) ?? asset.path.displayString, copyURI)
        }
        shell.set_picked_count_internal(picker, guint(view.selection.count))
        gtk_widget_action_set_enabled(widget, "picker.take-photo", view.controller.camera != nil ? 1 : 0)
        if !isHosted { shareWindow(view) }
    }

    /// In a host's window: the picker's keys only while it has the focus, Tab in and out of it.
    private func shareWindow(_ view: PickerView) {
        view.sharesWindow = true
        view.keyScope = [widget, startBox, titleBox, endBox]
        let keys = HostWindowKeys(view: view, picker: widget)
        hostKeys = keys
        let attach: @MainActor () -> Void = { [weak self] in
            guard let self, let keys = self.hostKeys, let root = gtk_widget_get_root(self.widget) else { return }
            keys.attach(to: UnsafeMutableRawPointer(root).assumingMemoryBound(to: GtkWidget.self))
        }
        hostKeysHandlers = [Signal.connect(widget.raw, "map") { attach() },
                            Signal.connect(widget.raw, "unmap") { [weak self] in self?.hostKeys?.detach() }]
        if gtk_widget_get_mapped(widget) != 0 { attach() }
    }

    /// The view goes, with its library, scan, camera and handlers (a rebuild, or dispose).
    private func tearDownView() {
        if mapHandler != 0 { g_signal_handler_disconnect(widget.raw, mapHandler) }
        mapHandler = 0
        for handler in hostKeysHandlers { g_signal_handler_disconnect(widget.raw, handler) }
        hostKeysHandlers = []
        hostKeys?.detach()
        hostKeys = nil
        selectionObservation?.cancel()
        selectionObservation = nil
        fetchObservation?.cancel()
        fetchObservation = nil
        restoredPicks?.stop()
        restoredPicks = nil
        controllerObservation?.cancel()
        controllerObservation = nil
        cameraObservation?.cancel()
        cameraObservation = nil
        guard let view else {
            // (The status page of a library that could not be opened.)
            if let last = gtk_widget_get_last_child(content), last != header { gtk_box_remove(content.cast(), last) }
            return
        }
        view.controller.close()  // (its camera too)
        for (box, child) in [(startBox, view.cancelButton), (startBox, view.previewBackButton), (startBox, view.progress),
                             (titleBox, view.titleWidget), (endBox, view.previewPickButton), (endBox, view.confirmButton)] {
            gtk_box_remove(box.cast(), child)
        }
        // Removing the view's widget destroys it, and the view with it (it lives as long).
        gtk_box_remove(content.cast(), view.widget)
        self.view = nil
    }

    func dispose() {
        StartupTrace.mark("embedded picker: disposing")
        buildLater.cancel()
        stopWaitingForTheFrame()
        waitingToBuild = false
        tearDownView()
        StartupTrace.mark("embedded picker: view torn down")
        gtk_widget_unparent(content)
        StartupTrace.mark("embedded picker: widgets gone")
        if !isHosted {
            Self.livePickers -= 1
            if Self.livePickers == 0 { Self.releaseShared() }
        }
        StartupTrace.mark("embedded picker: disposed")
        // (The header boxes go with this object's references; a host that packed them holds
        // its own.)
    }

    private func openAlbum(fallingBack: Bool) {
        guard let view else { return }
        var album: Album = .smart(.recents)
        if let name = albumName {
            do {
                if let named = try view.library.album(named: name) {
                    album = named
                } else {
                    view.report(i18n("There is no album named “{album}”", ["album": name]))
                    if !fallingBack {
                        followOpenAlbum()  // (the property says what is open again)
                        return
                    }
                }
            } catch {
                DeveloperLog.say("cannot read the albums: \(error)")
                view.report(i18n("The albums cannot be read"), printing: false)
            }
        }
        do {
            try view.showAlbums(selecting: album)
        } catch {
            DeveloperLog.say("cannot read the albums: \(error)")
            view.report(i18n("The albums cannot be read"), printing: false)
        }
    }

    /// The album property says the open album.
    private func followOpenAlbum() {
        guard let view, let current = view.controller.currentAlbum else { return }
        let name: String?
        switch current {
        case .smart(let smart): name = smart.name
        case .folder: name = view.controller.albums.first { $0.album == current }.map { $0.name + "/" }
        }
        if let name { shell.set_album_internal(picker, name) }
    }

    /// The picks as URIs, without those deleted since they were picked; a pick on another
    /// machine as its local copy's (the confirm waited for it), or not before it is complete.
    private func uris(_ assets: [Asset]) -> [String] {
        assets.compactMap { asset in
            guard let path = view?.controller.answerPath(of: asset) else { return nil }
            if path.isLocationURI { return path.displayString }
            guard path.withCString({ access($0, F_OK) }) == 0 else {
                // (For the developer, and a script's standard error: the answer is short of one.)
                DeveloperLog.say(i18n("{file} was deleted or moved after it was picked, and is left out", ["file": path.displayString]))
                return nil
            }
            guard let uri = path.withCString({ g_filename_to_uri($0, nil, nil) }) else { return nil }
            defer { g_free(uri) }
            return String(cString: uri)
        }
    }

    private func confirmed(_ assets: [Asset]) {
        emitConfirmed(uris(assets))
    }

    func emitConfirmed(_ picked: [String]) {
        picked.withCStringArray { array in
            array.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: picked.count + 1) {
                shell.emit_confirmed(picker, $0)
            }
        }
    }

    /// What is picked, in pick order, each by its own URI (a remote pick's location, before and
    /// after its copy); before the build, the picks the host set.
    var pickedURIs: [String] {
        guard let view else { return pendingPicks ?? [] }
        return view.controller.assets(view.selection.picked).map { Self.uri(of: $0.path) ?? $0.path.displayString }
    }

    /// The host's picks (picked-uris): instead of what is picked, in their order; those not found
    /// yet as the scan finds them.
    func setPickedURIs(_ uris: [String]) {
        guard isBuilt, let view else {
            pendingPicks = uris
            shell.notify_picked_uris(picker)
            return
        }
        restoredPicks?.stop()
        view.selection.remove(Set(view.selection.picked))
        let restorer = SavedPicks(uris)
        restorer.restore(into: view, library: view.library)
        restoredPicks = restorer
    }

    /// A path's `file://` URI, or a location URI as it is.
    static func uri(of path: FilePath) -> String? {
        if path.isLocationURI { return path.displayString }
        guard let uri = path.withCString({ g_filename_to_uri($0, nil, nil) }) else { return nil }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    func confirm() {
        buildIfWaiting()
        view?.confirm()
    }

    func clear() {
        buildIfWaiting()
        guard let view else { return }
        view.selection.remove(Set(view.selection.picked))
    }

    /// The focus into the picker (the host's grab_focus, and GTK's when Tab comes in from the
    /// window's header): back on the photo it was on, the first photo the first time.
    func grabFocus() -> Bool {
        buildIfWaiting()
        guard let view else { return false }
        if let id = revealedAsset {
            revealedAsset = nil
            view.focusAsset(id)
        } else {
            view.focusGrid(returning: gridHadFocus)
        }
        return true
    }

    // MARK: Properties

    /// The folders given: paths, or URIs as GFile and GtkFileChooser give them (`file://` ones
    /// as their paths; a file:// URI was taken for a relative path and showed nothing).
    private var libraryFolders: [FilePath] {
        // (Byte for byte: a folder's name that is not UTF-8 stays itself.)
        cStrings(shell.get_library_folders(picker)).map { given in
            let folder = FilePath(bytes: Array(UnsafeBufferPointer(start: UnsafeRawPointer(given).assumingMemoryBound(to: UInt8.self), count: strlen(given))))
            return RemoteFiles.localPath(ofFileURI: folder) ?? folder.absolute()
        }
    }
    private var mimeTypes: [String] { strings(shell.get_mime_types(picker)) }
    private var filter: AssetFilter {
        AssetFilter(mimeTypes: mimeTypes, namePatterns: strings(shell.get_name_patterns(picker)), choice: chosenFilter?.choice)
    }

    private func applyFilter() {
        view?.filterName = chosenFilter?.name
        view?.filter = filter
    }
    private var albumName: String? { shell.get_album(picker).map { String(cString: $0) } }

    private func cStrings(_ vector: UnsafePointer<UnsafePointer<CChar>?>?) -> [UnsafePointer<CChar>] {
        guard var cursor = vector else { return [] }
        var strings: [UnsafePointer<CChar>] = []
        while let string = cursor.pointee {
            strings.append(string)
            cursor += 1
        }
        return strings
    }

    private func strings(_ vector: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] { [String](cStrings: vector) }

    /// The most library folders a picker takes: more cost the host seconds (10,000 blocked it for
    /// 10-14 s) and are no one's library.
    static let folderLimit = 256
    /// The most characters of a label shown: a label of a million characters made a window wider
    /// than X allows, which ended the host (BadAlloc).
    static let labelLimit = 64

    private func applyConfirmLabel() {
        view?.confirmLabel = Self.shortened(shell.get_confirm_label(picker).map { String(cString: $0) } ?? i18n("Add"))
    }

    /// Choose Folder… in the empty picker, as the program offers it (issue 38, point 12).
    private func applyShowChooseFolder() {
        guard let view, !isHosted else { return }
        view.onChooseFolder = shell.get_show_choose_folder(picker) != 0 ? { [weak self] folder in self?.folderChosen(folder) } : nil
        view.updateEmptyState()
    }

    /// The folder chosen joins the picker's: the person's own, remembered for later (as the
    /// program keeps it), or the host's list (library-folders changes, and is notified).
    private func folderChosen(_ folder: FilePath) {
        let given = strings(shell.get_library_folders(picker))
        if given.isEmpty {
            do {
                try LibraryFolders.add(folder)
            } catch {
                DeveloperLog.say("\(error)")
                view?.report(i18n("The folder cannot be remembered"), printing: false)
                return
            }
            // (After the chooser's answer is over: the view that asked goes.)
            MainLoopDispatcher.shared.post { [weak self] in self?.build() }
        } else {
            let folders = given + [folder.displayString]
            folders.withCStringArray { array in
                array.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: folders.count + 1) {
                    shell.set_library_folders(picker, $0)
                }
            }
        }
    }

    private func applyShowHeader() {
        let shown = shell.get_show_header(picker) != 0
        // While the row is hidden the boxes are the host's to pack (get_header_widgets); they come
        // back when it is shown again, unless the host still has them.
        if shown {
            if gtk_widget_get_parent(startBox) == nil { gtk_center_box_set_start_widget(header.opaque, startBox) }
            if gtk_widget_get_parent(titleBox) == nil { gtk_center_box_set_center_widget(header.opaque, titleBox) }
            if gtk_widget_get_parent(endBox) == nil { gtk_center_box_set_end_widget(header.opaque, endBox) }
        } else {
            if gtk_widget_get_parent(startBox) == header { gtk_center_box_set_start_widget(header.opaque, nil) }
            if gtk_widget_get_parent(titleBox) == header { gtk_center_box_set_center_widget(header.opaque, nil) }
            if gtk_widget_get_parent(endBox) == header { gtk_center_box_set_end_widget(header.opaque, nil) }
        }
        gtk_widget_set_visible(header, shown ? 1 : 0)
    }

    /// A property changed after construction.
    func changed(_ property: String) {
        // (Before the build, the build reads every property: the last value wins.)
        if property == "filters" || property == "filter" { followFilters() }
        guard isBuilt else {
            if property == "show-header" { applyShowHeader() }
            return
        }
        switch property {
        // (The benchmark made the library: it has no other.)
        case "library-folders", "show-camera": if !isHosted { build() }
        case "max-picks":
            let maximum = Int(shell.get_max_picks(picker))
            view?.selection.maximum = maximum > 0 ? maximum : nil
            view?.updateConfirmButton()
        case "mime-types", "name-patterns", "filter", "filters": applyFilter()
        case "album": openAlbum(fallingBack: false)
        case "show-header": applyShowHeader()
        case "confirm-label": applyConfirmLabel()
        case "show-choose-folder": applyShowChooseFolder()
        case "camera":
            guard let camera = view?.controller.camera, let name = stringProperty(property),
                  let chosen = CameraDevices.choose(name, from: camera.cameras), chosen != camera.current else { return }
            camera.switchCamera(to: chosen)
        default: apply(property)
        }
    }

    /// The header's widgets for the host's header bar.
    var headerWidgets: (start: UnsafeMutablePointer<GtkWidget>, title: UnsafeMutablePointer<GtkWidget>, end: UnsafeMutablePointer<GtkWidget>) {
        (startBox, titleBox, endBox)
    }


    // MARK: Actions

    /// One of the picker.* actions (the shell installs them, with their accelerators).
    func activate(_ action: String) {
        buildIfWaiting()
        guard let view else { return }
        PickerCommands.named(action)?.run(view)
    }

    static func of(_ widget: UnsafeMutablePointer<GtkWidget>) -> PickerBehaviour? {
        guard g_type_check_instance_is_a(widget.raw.assumingMemoryBound(to: GTypeInstance.self), shell.get_type()) != 0,
              let behaviour = shell.get_behaviour(OpaquePointer(widget)) else { return nil }
        return Unmanaged<PickerBehaviour>.fromOpaque(behaviour).takeUnretainedValue()
    }
}
