// SPDX-License-Identifier: LGPL-2.1-or-later
import Camera
import CGLib
import CGtk
import GObjectSupport
import GTKSupport
import Glibc
import PickerModel
import PhotoLibrary
import Thumbnails

/// What PhotopickPicker is: the Swift side of the GObject shell in Sources/CPhotopick (which
/// holds the properties and signals and calls in through Picker+Shell.swift), and the owner of
/// the widget tree inside it:
///
///     photopick-picker                 the shell (C)
///     └── box
///         ├── centerbox.picker-header  Cancel, the album switcher, the filters and confirm
///         │                            (three boxes a host may pack instead: get_header_widgets)
///         └── box.picker               `body`
///             ├── toastoverlay → overlay
///             │   ├── photopick-grid    the album (Grid/PhotoGrid), replaced with the library
///             │   ├── statuspage        the empty state
///             │   ├── revealer          "↑ 12 newer photos"
///             │   ├── photopick-preview, photopick-capture
///             │   └── the location bar (Ctrl+L) and the find bar
///             └── photopick-strip      what is picked
///
/// The parts are widgets of their own types, each in its own file; this type does what the
/// person asks of them, in files by concern beside this one: picking (+Picking), the preview,
/// the camera, the keys, finding a name, a typed location, the empty state, copies of remote
/// picks (+Fetching), the library's news (+Library); and what the shell asks: building over
/// the library its properties name (+Build), the properties (+Properties, +Filters), the
/// host's calls (+Host).
///
/// The library (a PickerController over it) comes with the build and goes with another set of
/// folders or with the widget; the tree stays. The shell owns this object (a retained
/// reference from `constructed` to `dispose`); it holds the shell unretained, which is safe for
/// the same reason.
@MainActor
public final class Picker {
    /// The shell's instance (a PhotopickPicker).
    let picker: OpaquePointer
    /// The shell's instance as a widget: what a host (and a test) puts in its window.
    public var widget: UnsafeMutablePointer<GtkWidget> { UnsafeMutableRawPointer(picker).assumingMemoryBound(to: GtkWidget.self) }

    /// What the picker knows (library, albums, selection, scan, changes), without GTK: made by
    /// the build (nil before it; every call of a host builds first, `buildIfWaiting`).
    public private(set) var controller: PickerController!
    public var library: PhotoLibrary { controller.library }
    public var selection: SelectionStore { controller.selection }
    var model: AssetListModel { controller.model }
    /// The thumbnails' loader: the process's shared one (`Picker.loader`), or a test's.
    public private(set) lazy var loader: ThumbnailLoader = Self.loader

    // The tree. Widgets inside `widget` are held by it, and this object lives exactly as long:
    // those pointers stay valid. Widgets a host may take into its own header bar (the header's
    // boxes and what is in them) are this object's own (`@Owned`).

    /// The widget's one child: the header row over `body`.
    let content: UnsafeMutablePointer<GtkWidget>
    /// Cancel, the album switcher and the confirm button, in a row; hidden with show-header.
    let header: UnsafeMutablePointer<GtkWidget>
    /// What get_header_widgets gives: boxes that stay while the library changes, out of the row
    /// while show-header is false.
    @Owned var startBox: UnsafeMutablePointer<GtkWidget>
    @Owned var titleBox: UnsafeMutablePointer<GtkWidget>
    @Owned var endBox: UnsafeMutablePointer<GtkWidget>
    /// The picker's content under the header: grid, empty state and strip, in a vertical box
    /// (in the widget from the first build on).
    let body: UnsafeMutablePointer<GtkWidget>
    /// What floats over the grid (the empty state, the preview, the capture view, the bars).
    let overlay: UnsafeMutablePointer<GtkWidget>
    /// The album switcher's widget (PhotopickAlbumSwitcher, which holds the switcher).
    @Owned public var albumSwitcher: UnsafeMutablePointer<GtkWidget>
    let switcher: AlbumSwitcher
    /// The header bar's title: what the picker is for ("Attach Photos", a script's `--title`)
    /// over the open album's name, as GNOME's window titles show a title and a subtitle. The
    /// whole of it is the album switcher's button: a click anywhere there opens the list.
    public var titleWidget: UnsafeMutablePointer<GtkWidget> { albumSwitcher }
    /// The words over the album's name; empty shows the album's name alone.
    public var title: String {
        get { switcher.title }
        set { switcher.title = newValue }
    }
    /// "Add 3": the primary action.
    @Owned public var confirmButton: UnsafeMutablePointer<GtkWidget>
    @Owned public var cancelButton: UnsafeMutablePointer<GtkWidget>
    /// Indexing progress, in the header: shown or hidden, it never moves the grid.
    @Owned public var progress: UnsafeMutablePointer<GtkWidget>
    let progressLabel: UnsafeMutablePointer<GtkWidget>
    /// The file chooser filters' drop-down (Picker+Filters), in the end box: made when there are
    /// filters to choose from (a GtkDropDown and its popover were 1 ms of every start without).
    var filterChooser: UnsafeMutablePointer<GtkWidget>?
    /// The drop-down is being set to the filter in use (not the person's choice).
    var followingFilter = false

    /// The grid of the open library's album (Grid/PhotoGrid), made with the library.
    private(set) var photoGrid: PhotoGrid!
    var grid: UnsafeMutablePointer<GtkWidget> { photoGrid.grid }
    var scroller: UnsafeMutablePointer<GtkWidget> { photoGrid.scroller }
    let strip = PickedStrip()
    let preview = PreviewPane()
    /// Taking a photo with the camera, over the grid.
    let captureView = CaptureView()
    /// Toasts ("You can pick up to 3") float over the grid.
    let toasts: UnsafeMutablePointer<GtkWidget>
    /// An icon, a title, a line of text and an action, when the grid has nothing to show.
    let emptyState: UnsafeMutablePointer<GtkWidget>
    let chooseFolderButton: UnsafeMutablePointer<GtkWidget>
    /// "↑ 12 newer photos": photos arrived above a person who has scrolled down.
    let newerPhotos: UnsafeMutablePointer<GtkWidget>
    let newerPhotosLabel: UnsafeMutablePointer<GtkWidget>
    /// The timeline along the grid's right edge, and the month it shows beside the pointer
    /// (Picker+Timeline).
    let timeline = TimelineScrubber()
    let timelineLabel: UnsafeMutablePointer<GtkWidget> = gtk_label_new(nil)
    /// Where the timeline's last jump left the view, and the position it went to: the mark
    /// and the date hold on that position's month while the view stays there.
    var timelineLanding: (value: Double, position: Int)?
    let markUpdate = MainLoopSource(), timelineRefresh = MainLoopSource()
    /// The widget's `date`: the end of the period a host asked for, until the album is open;
    /// the month it says now; set while it is written back; the tries to land there.
    var dateWanted: Int64?
    var dateShown: String?
    var writingDate = false
    let dateRetry = MainLoopSource()
    /// Ctrl+L's bar over the grid, its entry and the reason a path was refused.
    var locationBar: UnsafeMutablePointer<GtkWidget>!
    let locationEntry: UnsafeMutablePointer<GtkWidget> = gtk_entry_new()
    let locationProblem: UnsafeMutablePointer<GtkWidget> = gtk_label_new(nil)
    /// Type-ahead find (Picker+Find): the bar at the bottom of the grid, what it says, the text
    /// typed so far, which search is the latest, and the bar's timeout.
    var findBar: UnsafeMutablePointer<GtkWidget>!
    let findLabel: UnsafeMutablePointer<GtkWidget> = gtk_label_new(nil)
    var findText = ""
    /// Where a range picked with Shift begins: the photo last picked or unpicked by itself, and
    /// its grid position then (checked before use: the album may have changed).
    var rangeAnchor: (id: Int64, position: Int)?
    /// What the current range added: a wider or narrower range from the same anchor replaces it.
    var rangeAdded: [Int64] = []
    /// The picks as a screen reader last heard of them (Picker+PickingMany's announcements).
    var picksAnnounced: [Int64] = []
    /// While a toggle runs: what is said meanwhile, said after the toggle's own news.
    var heldNews: [String]?
    /// The "Pick all?" question while it is asked.
    var pickAllQuestion: GObjectRef?
    var findGeneration = 0
    let findEnd = MainLoopSource()
    /// The key controller on the window that catches the preview's keys (installPreviewKeys).
    var previewKeys: GObjectRef?

    // What the host set up (the shell's properties, applied by Picker+Properties).

    /// Where photos taken with the camera are saved.
    public var captureFolder = CaptureWriter.defaultFolder
    /// A folder the person chose from the empty state, to add to the library; nil offers no
    /// Choose Folder… (show-choose-folder).
    var onChooseFolder: ((FilePath) -> Void)?
    /// A file the person typed the path of (Ctrl+L); nil offers no location bar.
    var onTypedPath: ((FilePath) -> Void)?
    /// Whether Escape, with nothing to go back from, cancels (show-cancel). The app from the
    /// menu is not a dialog: Escape there never closes it (Ctrl+W and Ctrl+Q do).
    var escapeCancels = true
    /// Whether the picker shares its window with a host's widgets (every picker a host makes,
    /// the photopick program's too): its keys are then its own only while the focus is inside
    /// it (its header widgets included), and Tab leaves it at its edges. False for a test's or
    /// the benchmark's picker in a window of its own: its keys work from anywhere in it.
    var sharesWindow = false
    /// Whether Enter on a photo confirms (the picks, or that photo when nothing is picked), as in
    /// a file chooser, instead of picking it (Space always picks).
    var enterConfirms = false
    /// The assets the picker offers (MIME types, a file filter's name patterns).
    public var filter: AssetFilter {
        get { controller.filter }
        set { controller.filter = newValue }
    }
    /// The name of the file filter in use (zenity's `--file-filter`), for the empty state when
    /// it hides everything.
    var filterName: String?
    /// The primary button's words: "Add" by default, or what a host asked for.
    var confirmLabel = i18n("Add") { didSet { updateConfirmButton() } }

    // The open library's state (reset by `open`).

    var selectionObservation: Subscription?
    /// The copies of picks on another machine (Picker+Fetching).
    var fetchObservation: Subscription?
    /// The controller's events (Picker+Library).
    var controllerObservation: Subscription?
    /// The camera switched to, followed in the camera property.
    var cameraObservation: Subscription?
    /// What waits for those copies (a confirm, an Open, a Copy to Folder): run once every pick is local.
    var afterFetches: (@MainActor () -> Void)?
    var awaitingFetches: Bool { afterFetches != nil }
    /// The picks whose copies pick-copied announced (once each).
    var copiesAnnounced = Set<Int64>()
    /// Folders on another machine whose mount was asked for with a dialog (once each), and the
    /// toasts that say they do not answer (dismissed when they do).
    var askedToMount: Set<FilePath> = []
    var offlineToasts: [FilePath: GObjectRef] = [:]
    /// The local library folders last heard to be away (a disk not plugged in).
    var localOffline: [FilePath] = []
    var folderChooser: UnsafeMutablePointer<GtkNativeDialog>? { folderChooserReference?.pointer(as: GtkNativeDialog.self) }
    var folderChooserReference: GObjectRef?
    /// A video was shown as a film icon for want of a thumbnailer: said once per picker.
    var toldNoVideoThumbnailer = false
    /// The picks a host set (picked-uris) that wait for the build, or for the scan to find them.
    var pendingPicks: [String]?
    var restoredPicks: SavedPicks?
    /// A photo of this library's grid has had the focus (the grid remembers which).
    var gridHadFocus = false
    /// The photo a program put the cursor on (reveal_uri), for the next focus into the grid.
    var revealedAsset: Int64?
    /// The last photo taken here (tests).
    public internal(set) var lastCapture: FilePath?
    /// Every problem told so far (tests check what a person was told, and how often).
    var reported: [String] = []
    /// What was said to a screen reader (`say`), for the tests.
    var said: [String] = []
    /// The last quarter of the awaited copies said to a screen reader (Picker+Fetching).
    var fetchQuarterSaid = 0
    /// Passing words told so far (a capture saved but not picked).
    var notices: [String] = []

    // The build (Picker+Build).

    /// Whether this picker is the benchmark's or a test's (`hosting`): it opens its album itself
    /// and neither scans nor watches; false for every other picker, the program's too.
    private(set) var isHosted = false
    /// The build waiting for the host's setup to end, or for a frame.
    let buildLater = MainLoopSource()
    /// The person's list of library folders, watched while the picker shows them (Picker+FoldersFile).
    var foldersFileMonitor: GObjectRef?
    let foldersFileSettles = MainLoopSource()
    var waitingToBuild = false
    /// The frame the build's next step waits for.
    let nextFrame = NextFrame()
    /// The frame a first run's scanned library waits for before it is shown.
    let scannedLibraryFrame = NextFrame()
    /// The library is open, its album still to open (the second step of a build on screen),
    /// and that album once read (shown a frame later).
    var albumWaits = false
    var albumRead: PickerController.AlbumsRead?
    /// The size of the window the picker was built in before it showed (the photopick
    /// program's): its first screens are kept for the next start (FirstScreenHint).
    var firstScreenHintSize: (width: Int, height: Int)?
    /// The scan starts after the album's frame: until then an empty album is still being looked for.
    var scanIsDue = false
    /// A first run's files dated so far, and of how many, while the grid waits for every date.
    var datingProgress: (done: Int, total: Int)?
    var mapHandler: gulong = 0
    /// The picker's keys on the host's window while it is mapped (not a test's).
    var hostKeys: HostWindowKeys?
    var hostKeysHandlers: [gulong] = []

    /// The sizes Ctrl+plus, Ctrl+minus and Ctrl+scroll step through.
    nonisolated static let cellSizes = PickerState.cellSizes

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

        // (No adw_init (): in a plain GTK host it switched the host to libadwaita's style sheet
        // and its light style. The program's window is an AdwApplication's; Style maps the
        // colours either way.)
        body = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)
        overlay = gtk_overlay_new()
        emptyState = adw_status_page_new()
        chooseFolderButton = gtk_button_new_with_mnemonic(i18n("_Choose Folder…"))
        newerPhotos = gtk_revealer_new()
        newerPhotosLabel = gtk_label_new(nil)
        toasts = adw_toast_overlay_new()
        _progress = Owned(wrappedValue: gtk_revealer_new())
        progressLabel = gtk_label_new(nil)
        switcher = AlbumSwitcher()
        _albumSwitcher = Owned(wrappedValue: switcher.widget)
        _confirmButton = Owned(wrappedValue: gtk_button_new_with_label(i18n("Add")))
        _cancelButton = Owned(wrappedValue: gtk_button_new_with_label(i18n("Cancel")))
        makeTree()
        StartupTrace.mark("embedded picker: tree made")

        if let (controller, loader) = Self.pendingController {
            isHosted = true
            self.loader = loader
            putTreeInWidget()
            open(controller)
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

    /// The parts, put together (the grid comes with the library: `open`).
    private func makeTree() {
        // (Styled as the picker's wherever the host packs them.)
        for box in [startBox, titleBox, endBox] { style(box, Style.partClass) }
        followFilters()
        gtk_box_append(content.cast(), header)
        gtk_widget_set_parent(content, widget)

        // (Its parts carry the picker's scope wherever they are put: Style.)
        style(body, "picker", Style.partClass)
        style(emptyState, "empty-state")
        gtk_widget_set_visible(emptyState, 0)
        style(chooseFolderButton, "pill", "suggested-action")
        gtk_widget_set_halign(chooseFolderButton, GTK_ALIGN_CENTER)
        adw_status_page_set_child(emptyState.opaque, chooseFolderButton)
        gtk_overlay_add_overlay(overlay.opaque, emptyState)
        gtk_revealer_set_transition_type(newerPhotos.opaque, GTK_REVEALER_TRANSITION_TYPE_SLIDE_DOWN)
        gtk_widget_set_halign(newerPhotos, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(newerPhotos, GTK_ALIGN_START)
        let newerButton = gtk_button_new()!
        style(newerButton, "newer-photos", "osd", "pill")
        let newerContent = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        gtk_box_append(newerContent.cast(), gtk_image_new_from_icon_name("go-up-symbolic"))
        gtk_box_append(newerContent.cast(), newerPhotosLabel)
        gtk_button_set_child(newerButton.cast(), newerContent)
        gtk_revealer_set_child(newerPhotos.opaque, newerButton)
        gtk_overlay_add_overlay(overlay.opaque, newerPhotos)
        installTimeline()
        gtk_overlay_add_overlay(overlay.opaque, preview.widget)
        gtk_overlay_add_overlay(overlay.opaque, captureView.widget)
        adw_toast_overlay_set_child(toasts.opaque, overlay)
        gtk_widget_set_vexpand(toasts, 1)
        gtk_revealer_set_transition_type(progress.opaque, GTK_REVEALER_TRANSITION_TYPE_CROSSFADE)
        style(progress, Style.partClass)
        style(progressLabel, "index-progress", "dim-label")
        gtk_label_set_ellipsize(progressLabel.opaque, PANGO_ELLIPSIZE_END)
        gtk_label_set_max_width_chars(progressLabel.opaque, 16)
        gtk_revealer_set_child(progress.opaque, progressLabel)
        gtk_widget_set_visible(progress, 0)
        Signal.connect(progress.raw, "notify::child-revealed", object: { [weak self] _ in
            guard let self, gtk_revealer_get_reveal_child(self.progress.opaque) == 0 else { return }
            gtk_widget_set_visible(self.progress, 0)
        })
        gtk_box_append(body.cast(), toasts)
        gtk_box_append(body.cast(), strip.widget)

        style(confirmButton, "suggested-action")
        gtk_widget_set_sensitive(confirmButton, 0)
        switcher.onChoose = { [weak self] album in self?.albumChosen(album) }
        switcher.onFocusContent = { [weak self] in self?.focusFirstPhoto() }
        switcher.onGoToDate = { [weak self] destination in self?.goTo(destination) }
        Signal.connect(confirmButton.raw, "clicked") { [weak self] in self?.confirm() }
        Signal.connect(newerButton.raw, "clicked") { [weak self] in self?.showNewerPhotos() }
        Signal.connect(cancelButton.raw, "clicked") { [weak self] in self?.cancelled() }
        Signal.connect(chooseFolderButton.raw, "clicked") { [weak self] in self?.chooseFolder() }
        locationBar = makeLocationBar()
        gtk_overlay_add_overlay(overlay.opaque, locationBar)
        findBar = makeFindBar()
        gtk_overlay_add_overlay(overlay.opaque, findBar)
        installKeys()
        installFetchActions()

        strip.onRemove = { [weak self] id in self?.controller?.selection.remove([id]) }
        strip.onLeave = { [weak self] forward in self?.leaveStrip(forward: forward) }
        strip.onFocusLost = { [weak self] in if let self { gtk_widget_grab_focus(self.grid) } }
        strip.onMove = { [weak self] dragged, target in
            guard let self, self.controller != nil, let from = self.selection.picked.firstIndex(of: dragged),
                  let to = self.selection.picked.firstIndex(of: target) else { return }
            self.selection.move(from: from, to: to)
        }
        strip.filesForDrag = { [weak self] in
            guard let self, self.controller != nil else { return nil }
            return Self.fileListContent(self.filesForDrag(self.selection.picked))
        }
        preview.onToggle = { [weak self] in self?.togglePreviewed() }
        preview.onClose = { [weak self] in self?.closePreview() }
        setUpCamera()
        Style.install()
    }

    /// The parts into the widget (from the first build on), with their header widgets.
    func putTreeInWidget() {
        guard gtk_widget_get_parent(body) == nil else { return }
        gtk_box_append(startBox.cast(), cancelButton)
        gtk_box_append(startBox.cast(), previewBackButton)
        gtk_box_append(startBox.cast(), progress)
        gtk_box_append(titleBox.cast(), titleWidget)
        gtk_box_append(endBox.cast(), previewPickButton)
        gtk_box_append(endBox.cast(), confirmButton)
        gtk_box_append(content.cast(), body)
    }

    /// The picker shows `controller`'s library: a grid of its own over it, the strip, the
    /// switcher and the header following it.
    func open(_ controller: PickerController) {
        self.controller = controller
        let grid = PhotoGrid(controller: controller, loader: loader)
        photoGrid = grid
        // (The grid of the library before goes with its widget: PhotoGrid.widgetDisposed.)
        gtk_overlay_set_child(overlay.opaque, grid.widget)
        grid.onToggle = { [weak self] position in self?.toggle(at: position) }
        grid.onRange = { [weak self] position in self?.pickRange(to: position) }
        grid.onOpen = { [weak self] position in self?.openPreview(at: position) }
        grid.dragContent = { [weak self] id in self?.dragContent(for: id) }
        grid.onNoVideoThumbnailer = { [weak self] in self?.noteNoVideoThumbnailer() }
        grid.onFirstScreenShown = { [weak self] in
            self?.updateEmptyState()
            self?.saveFirstScreenHint()
        }
        followTheView(of: grid)
        grid.metrics = StartupTrace.isOn ? PickerMetrics() : nil
        gridHadFocus = false
        revealedAsset = nil
        let focus = gtk_event_controller_focus_new()!
        Signal.connect(focus.raw, "enter") { [weak self, weak grid] in
            guard let self else { return }
            self.gridHadFocus = true
            grid?.focusedWhenUnmapped = nil
            // (Tab came in: onto the photo a program revealed, once GTK's focus change is over.)
            if let id = self.revealedAsset {
                self.revealedAsset = nil
                MainLoopDispatcher.shared.post { [weak self] in self?.focusAsset(id) }
            }
        }
        gtk_widget_add_controller(grid.grid, focus)

        listenToController()
        controller.showsAfterTheNextFrame = { [weak self] show in
            guard let self else { return show() }
            self.scannedLibraryFrame.run(after: self.widget, show)
        }
        selectionObservation = selection.observe { [weak self] _ in
            guard let self else { return }
            if self.awaitingFetches, self.selection.count == 0 { self.afterFetches = nil }
            self.updateConfirmButton()
            self.announceOrderChange()
            self.strip.show(self.selection.picked, rows: self.controller.asset, loader: self.loader)
            shell.set_picked_count_internal(self.picker, guint(self.selection.count))
            shell.notify_picked_uris(self.picker)
        }
        strip.fetches = controller.fetches
        switcher.covers = ({ [weak controller] album in controller?.coverPaths(of: album) ?? [] }, loader)
        copiesAnnounced = []
        fetchObservation = controller.fetches.observe { [weak self] id in
            guard let self else { return }
            self.fetchesChanged(id)
            self.announceCopy(id)
        }
        shell.set_picked_count_internal(picker, guint(selection.count))
        gtk_widget_action_set_enabled(widget, "picker.take-photo", controller.camera != nil ? 1 : 0)
        gtk_widget_set_visible(body, 1)
        gtk_widget_set_visible(albumSwitcher, 1)
        updateConfirmButton()
        strip.show(selection.picked, rows: controller.asset, loader: loader)
    }

    /// The library goes (another set of folders, or the widget when `disposing`): its controller
    /// closes (nothing its workers finish reaches the picker after this), with its grid, camera,
    /// observers and what waits for it. The tree stays.
    func closeLibrary(disposing: Bool = false) {
        if mapHandler != 0 { g_signal_handler_disconnect(widget.raw, mapHandler) }
        mapHandler = 0
        for handler in hostKeysHandlers { g_signal_handler_disconnect(widget.raw, handler) }
        hostKeysHandlers = []
        hostKeys?.detach()
        hostKeys = nil
        for observation in [selectionObservation, fetchObservation, controllerObservation, cameraObservation] { observation?.cancel() }
        selectionObservation = nil
        fetchObservation = nil
        controllerObservation = nil
        cameraObservation = nil
        restoredPicks?.stop()
        restoredPicks = nil
        albumRead = nil
        scannedLibraryFrame.cancel()
        guard let controller else {
            // (The status page of a library that could not be opened.)
            if let last = gtk_widget_get_last_child(content), last != header, last != body { gtk_box_remove(content.cast(), last) }
            return
        }
        if !disposing {
            // (Their focus goes back to the grid that is going: the build puts it on the next.)
            if locationIsOpen { closeLocation() }
            if captureView.isVisible { closeCapture() }
            if preview.isVisible { closePreview() }
        }
        let hadPicks = controller.selection.count > 0
        controller.close()  // (its camera too)
        StartupTrace.mark("embedded picker: controller closed")
        controller.anchorAsset = nil
        if let keys = previewKeys, let owner = gtk_event_controller_get_widget(OpaquePointer(keys.pointer)) {
            gtk_widget_remove_controller(owner, OpaquePointer(keys.pointer))
        }
        previewKeys = nil
        findEnd.cancel()
        if let chooser = folderChooser {
            gtk_native_dialog_destroy(chooser)
            folderChooserReference = nil
        }
        preview.cancel()
        strip.cancelAll()
        afterFetches = nil
        askedToMount = []
        offlineToasts = [:]
        localOffline = []
        self.controller = nil
        if let photoGrid {
            photoGrid.stop()
            if gtk_widget_get_parent(photoGrid.widget) != nil {
                // Destroyed in later turns, a few milliseconds at a time (LaterRelease).
                LaterRelease.hold(photoGrid.widget)
                gtk_overlay_set_child(overlay.opaque, nil)
            }
        }
        photoGrid = nil
        StartupTrace.mark("embedded picker: grid gone")
        guard !disposing else { return }
        // (The picks of that library went with it: the host hears so.)
        if hadPicks {
            shell.set_picked_count_internal(picker, 0)
            shell.notify_picked_uris(picker)
        }
        // What shows the library's state goes back to none: the next library, or the page that
        // says it cannot be opened, comes in its place.
        endFind()
        announceNewer(0)
        showIndexing(false)
        strip.show([], rows: { _ in nil }, loader: loader)
        gtk_widget_set_sensitive(confirmButton, 0)
        gtk_widget_set_visible(albumSwitcher, 0)
        gtk_widget_set_visible(emptyState, 0)
    }

    /// The widget goes (the shell's dispose).
    func dispose() {
        StartupTrace.mark("embedded picker: disposing")
        buildLater.cancel()
        stopFollowingTheFoldersFile()
        stopWaitingForTheFrame()
        waitingToBuild = false
        closeLibrary(disposing: true)
        StartupTrace.mark("embedded picker: view torn down")
        // (The rest of the tree is destroyed in later turns too: 5 ms of the host's.)
        LaterRelease.hold(content)
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

    /// The picker's Swift side, from its widget.
    public static func of(_ widget: UnsafeMutablePointer<GtkWidget>) -> Picker? {
        guard g_type_check_instance_is_a(widget.raw.assumingMemoryBound(to: GTypeInstance.self), shell.get_type()) != 0,
              let state = shell.get_state(OpaquePointer(widget)) else { return nil }
        return Unmanaged<Picker>.fromOpaque(state).takeUnretainedValue()
    }

    // MARK: What every picker of a process shares

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
    /// The pickers a host made that are alive (the photopick program's too; not a test's).
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

    // MARK: Tests and benchmarks

    /// The controller of a hosted picker, for the next picker made (see `hosting`).
    private static var pendingController: (controller: PickerController, loader: ThumbnailLoader)?

    /// A picker (made by `photopick_picker_new ()`, as any host's) over a controller and loader
    /// of the caller's, which neither scans nor watches (the benchmark's synthetic rows stay)
    /// and shows no header row of its own: the caller opens its album (`showAlbums`) and puts
    /// `widget` (floating) in a window. The photopick program makes its picker as any host
    /// does (PhotopickApp).
    @_spi(Testing) public static func hosting(_ controller: PickerController, loader: ThumbnailLoader) -> Picker {
        // (GObject constructs the widget inside photopick_picker_new: the controller waits here
        // for the init above, on this thread.)
        pendingController = (controller, loader)
        let widget = shell.new()!
        pendingController = nil
        let picker = Picker.of(widget)!
        shell.set_show_header(OpaquePointer(widget), 0)
        return picker
    }

    /// A hosted picker over `library` (see `hosting`).
    /// - Parameter camera: the live camera for the first cell; `showsCameraAtStart` gives the cell
    ///   its place before the camera is found (see PickerController).
    @_spi(Testing) public static func hosting(library: PhotoLibrary, loader: ThumbnailLoader, maximum: Int? = nil,
                                             camera: CameraStore? = nil, showsCameraAtStart: Bool = false) -> Picker {
        hosting(controller(library: library, maximum: maximum, camera: camera, showsCameraAtStart: showsCameraAtStart), loader: loader)
    }

    /// A controller for a hosted picker made later (a benchmark opens its library first).
    public static func controller(library: PhotoLibrary, maximum: Int? = nil, camera: CameraStore? = nil,
                                  showsCameraAtStart: Bool = false) -> PickerController {
        PickerController(library: library, maximum: maximum, camera: camera, showsCameraAtStart: showsCameraAtStart,
                         post: { MainLoopDispatcher.shared.post($0) })
    }

    /// What the benchmarks and tests count (binds, their time, badges, cells waiting for a
    /// picture); nil counts nothing. Set it before the picker is shown.
    /// (The trace of a start, PHOTOPICK_TRACE_STARTUP, gives every picker one.)
    @_spi(Testing) public var metrics: PickerMetrics? {
        get { photoGrid.metrics }
        set { photoGrid.metrics = newValue }
    }
    /// Camera frames the camera cell has shown (the camera benchmark).
    @_spi(Testing) public var cameraCellFrames: Int { cells.compactMap(\.cell).filter(\.isCamera).map(\.cameraFramesShown).reduce(0, +) }
    @_spi(Testing) public var verticalAdjustment: UnsafeMutablePointer<GtkAdjustment>? { photoGrid.verticalAdjustment }
    /// The timeline's months (empty until they are read), and a press on one of them (the
    /// picker benchmark's jump).
    @_spi(Testing) public var timelineMonths: [PhotoLibrary.MonthRun] { timeline.runs }
    @_spi(Testing) public func pressTimeline(at run: Int) { jumpFromTimeline(to: run, final: true) }
    /// Whether the first row in sight holds the first photo of `run` of the timeline.
    @_spi(Testing) public func firstRowHolds(month run: Int) -> Bool {
        timeline.runs.indices.contains(run) && photoGrid.firstRowHolds(timeline.runs[run].start + (model.showsCamera ? 1 : 0))
    }
    /// The cells the grid made (tests).
    var cells: [PhotoGrid.WeakCell] { photoGrid.cells }
}

extension FilePath {
    /// "Pictures" for /home/ann/Pictures: how a folder is named to a person.
    var lastComponentName: String { String(decoding: lastComponent, as: UTF8.self) }
}
