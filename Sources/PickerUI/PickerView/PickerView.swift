// SPDX-License-Identifier: LGPL-2.1-or-later
import Camera
import CGtk
import GObjectSupport
import GTKSupport
import Glibc
import Foundation
import PickerModel
import PhotoLibrary
import Thumbnails

/// The picker: a grid of the library with an album switcher, ordered picks with numbered badges
/// and a strip of what is picked. The PhotopickPicker widget's insides (PickerBehaviour builds it
/// and hands its header widgets to the host); tests and the picker benchmark make one directly.
/// It puts together widgets of their own (the grid, the strip, the preview, the capture view,
/// the album switcher) and does what the person asks of them: picking, previewing, the keys.
@MainActor
public final class PickerView {
    /// What the picker knows (library, albums, selection, scan, changes), without GTK.
    public let controller: PickerController
    public var library: PhotoLibrary { controller.library }
    /// (Its own lock guards it: any thread may use it.)
    public nonisolated let loader: ThumbnailLoader
    public var selection: SelectionStore { controller.selection }
    var model: AssetListModel { controller.model }

    // Widgets inside `widget` are held by that tree: the view is attached to `widget` and lives
    // exactly as long, so those pointers stay valid. Widgets handed to the host (the header's
    // buttons, the progress, the album switcher) are the view's own (`@Owned`).

    /// The picker's content: grid, empty state and strip, in a vertical box.
    public let widget: UnsafeMutablePointer<GtkWidget>
    /// The album switcher's widget (which holds the switcher).
    @Owned public var albumSwitcher: UnsafeMutablePointer<GtkWidget>
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

    /// The grid of the open album (Grid/PhotoGrid).
    let photoGrid: PhotoGrid
    var grid: UnsafeMutablePointer<GtkWidget> { photoGrid.grid }
    var scroller: UnsafeMutablePointer<GtkWidget> { photoGrid.scroller }
    let strip: PickedStrip
    let preview = PreviewPane()
    /// Taking a photo with the camera, over the grid.
    let captureView = CaptureView()
    /// Where photos taken with the camera are saved.
    public var captureFolder = CaptureWriter.defaultFolder
    /// The last photo taken here (tests).
    public internal(set) var lastCapture: FilePath?
    /// Toasts ("You can pick up to 3") float over the grid.
    let toasts: UnsafeMutablePointer<GtkWidget>
    /// Indexing progress, for the host's header bar.
    @Owned public var progress: UnsafeMutablePointer<GtkWidget>
    let progressLabel: UnsafeMutablePointer<GtkWidget>
    /// An icon, a title, a line of text and an action, when the grid has nothing to show.
    let emptyState: UnsafeMutablePointer<GtkWidget>
    /// "↑ 12 newer photos": photos arrived above a person who has scrolled down.
    let newerPhotos: UnsafeMutablePointer<GtkWidget>
    let newerPhotosLabel: UnsafeMutablePointer<GtkWidget>
    let chooseFolderButton: UnsafeMutablePointer<GtkWidget>
    /// A folder the person chose from the empty state, to add to the library (the host decides
    /// how: the window reopens the picker on the library with that folder added).
    public var onChooseFolder: ((FilePath) -> Void)?
    var folderChooser: UnsafeMutablePointer<GtkNativeDialog>? { folderChooserReference?.pointer(as: GtkNativeDialog.self) }
    var folderChooserReference: GObjectRef?
    var selectionObservation: Subscription?
    /// The copies of picks on another machine (PickerView+Fetching).
    var fetchObservation: Subscription?
    /// What waits for those copies (a confirm, an Open, a Copy to Folder): run once every pick is local.
    var afterFetches: (@MainActor () -> Void)?
    var awaitingFetches: Bool { afterFetches != nil }
    /// Folders on another machine whose mount was asked for with a dialog (once each), and the
    /// toasts that say they do not answer (dismissed when they do).
    var askedToMount: Set<FilePath> = []
    var offlineToasts: [FilePath: GObjectRef] = [:]
    /// The local library folders last heard to be away (a disk not plugged in).
    var localOffline: [FilePath] = []
    /// The controller's events (listenToController).
    var controllerObservation: Subscription?
    let switcher: AlbumSwitcher
    /// The cells the grid made (tests).
    var cells: [PhotoGrid.WeakCell] { photoGrid.cells }
    /// Cell edge in points.
    var cellSize: Int { photoGrid.cellSize }
    /// The cell size changed (the person zoomed).
    var onCellSizeChanged: ((Int) -> Void)? {
        get { photoGrid.onCellSizeChanged }
        set { photoGrid.onCellSizeChanged = newValue }
    }
    /// The sizes Ctrl+plus, Ctrl+minus and Ctrl+scroll step through.
    nonisolated static let cellSizes = PickerState.cellSizes
    /// A video was shown as a film icon for want of a thumbnailer: said once per window.
    var toldNoVideoThumbnailer = false
    /// Every problem told so far (tests check what a person was told, and how often).
    var reported: [String] = []
    /// Passing words told so far (a capture saved but not picked).
    var notices: [String] = []

    /// The picked assets in order, when the person confirms.
    public var onConfirm: (([Asset]) -> Void)?
    public var onCancel: (() -> Void)?
    /// A file the person typed the path of (Ctrl+L); nil offers no location bar.
    public var onTypedPath: ((FilePath) -> Void)?
    /// Ctrl+L's bar over the grid, its entry and the reason a path was refused.
    var locationBar: UnsafeMutablePointer<GtkWidget>!
    let locationEntry: UnsafeMutablePointer<GtkWidget> = gtk_entry_new()
    let locationProblem: UnsafeMutablePointer<GtkWidget> = gtk_label_new(nil)
    /// Type-ahead find (PickerView+Find): the bar at the bottom of the grid, what it says, the
    /// text typed so far, which search is the latest, and the bar's timeout.
    var findBar: UnsafeMutablePointer<GtkWidget>!
    let findLabel: UnsafeMutablePointer<GtkWidget> = gtk_label_new(nil)
    var findText = ""
    var findGeneration = 0
    let findEnd = MainLoopSource()
    /// Whether Escape, with nothing to go back from, cancels (a script's picker, a dialog). The
    /// app from the menu is not a dialog: Escape there never closes it (Ctrl+W and Ctrl+Q do).
    public var escapeCancels = true
    /// Whether the picker shares its window with a host's widgets (every PhotopickPicker, the
    /// photopick program's too): its keys are then its own only while the focus is inside it
    /// (its header widgets included), and Tab leaves it at its edges. False for a view a test or
    /// the benchmark puts in a window of its own: its keys work from anywhere in it.
    public var sharesWindow = false
    /// Widgets beside the view's own whose focus counts as inside the picker (the widget that
    /// holds the view, with its header row).
    public var keyScope: [UnsafeMutablePointer<GtkWidget>] = []
    /// Whether Enter on a photo confirms (the picks, or that photo when nothing is picked), as in
    /// a file chooser, instead of picking it (Space always picks).
    public var enterConfirms = false
    /// The assets the picker offers (MIME types, a file filter's name patterns).
    public var filter: AssetFilter {
        get { controller.filter }
        set { controller.filter = newValue }
    }

    /// The name of the file filter in use (zenity's `--file-filter`), for the empty state when
    /// it hides everything.
    public var filterName: String?

    /// The primary button's words: "Add" by default, or what a script asked for.
    public var confirmLabel = i18n("Add") { didSet { updateConfirmButton() } }

    // State the extensions in the files beside this one work with.
    /// The key controller on the window that catches the preview's keys (installPreviewKeys).
    var previewKeys: GObjectRef?

    /// - Parameter camera: the live camera for the first cell; `showsCameraAtStart` gives the cell
    ///   its place before the camera is found (see PickerController).
    public convenience init(library: PhotoLibrary, loader: ThumbnailLoader, maximum: Int? = nil,
                            camera: CameraStore? = nil, showsCameraAtStart: Bool = false) {
        self.init(controller: Self.controller(library: library, maximum: maximum, camera: camera, showsCameraAtStart: showsCameraAtStart),
                  loader: loader)
    }

    /// A controller for a view made later (the window starts its scan before GTK starts up).
    public static func controller(library: PhotoLibrary, maximum: Int? = nil, camera: CameraStore? = nil,
                                  showsCameraAtStart: Bool = false) -> PickerController {
        PickerController(library: library, maximum: maximum, camera: camera, showsCameraAtStart: showsCameraAtStart,
                         post: { MainLoopDispatcher.shared.post($0) })
    }

    /// The view of a controller no other view shows.
    public init(controller: PickerController, loader: ThumbnailLoader) {
        self.controller = controller
        self.loader = loader
        strip = PickedStrip()

        // (No adw_init (): in a plain GTK host it switched the host to libadwaita's style sheet
        // and its light style. The program's window is an AdwApplication's; Style maps the
        // colours either way.)
        widget = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)
        // (Its parts carry the picker's scope wherever they are put: Style.)
        style(widget, "picker", Style.partClass)

        photoGrid = PhotoGrid(controller: controller, loader: loader)
        let overlay = gtk_overlay_new()!
        gtk_overlay_set_child(overlay.opaque, photoGrid.widget)
        emptyState = adw_status_page_new()
        style(emptyState, "empty-state")
        gtk_widget_set_visible(emptyState, 0)
        chooseFolderButton = gtk_button_new_with_mnemonic("_Choose Folder…")
        style(chooseFolderButton, "pill", "suggested-action")
        gtk_widget_set_halign(chooseFolderButton, GTK_ALIGN_CENTER)
        adw_status_page_set_child(emptyState.opaque, chooseFolderButton)
        gtk_overlay_add_overlay(overlay.opaque, emptyState)
        newerPhotos = gtk_revealer_new()
        gtk_revealer_set_transition_type(newerPhotos.opaque, GTK_REVEALER_TRANSITION_TYPE_SLIDE_DOWN)
        gtk_widget_set_halign(newerPhotos, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(newerPhotos, GTK_ALIGN_START)
        let newerButton = gtk_button_new()!
        style(newerButton, "newer-photos", "osd", "pill")
        let newerContent = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        gtk_box_append(newerContent.cast(), gtk_image_new_from_icon_name("go-up-symbolic"))
        newerPhotosLabel = gtk_label_new(nil)
        gtk_box_append(newerContent.cast(), newerPhotosLabel)
        gtk_button_set_child(newerButton.cast(), newerContent)
        gtk_revealer_set_child(newerPhotos.opaque, newerButton)
        gtk_overlay_add_overlay(overlay.opaque, newerPhotos)
        gtk_overlay_add_overlay(overlay.opaque, preview.widget)
        gtk_overlay_add_overlay(overlay.opaque, captureView.widget)
        toasts = adw_toast_overlay_new()
        adw_toast_overlay_set_child(toasts.opaque, overlay)
        gtk_widget_set_vexpand(toasts, 1)
        // Indexing progress lives in the header (the host packs `progress`): shown or hidden, it
        // never moves the grid.
        let progress: UnsafeMutablePointer<GtkWidget> = gtk_revealer_new()
        _progress = Owned(wrappedValue: progress)
        gtk_revealer_set_transition_type(progress.opaque, GTK_REVEALER_TRANSITION_TYPE_CROSSFADE)
        style(progress, Style.partClass)
        progressLabel = gtk_label_new(nil)
        style(progressLabel, "index-progress", "dim-label")
        gtk_label_set_ellipsize(progressLabel.opaque, PANGO_ELLIPSIZE_END)
        gtk_label_set_max_width_chars(progressLabel.opaque, 16)
        gtk_revealer_set_child(progress.opaque, progressLabel)
        gtk_box_append(widget.cast(), toasts)
        gtk_box_append(widget.cast(), strip.widget)

        switcher = AlbumSwitcher(coverPaths: { [controller] album in controller.coverPaths(of: album) }, loader: loader)
        _albumSwitcher = Owned(wrappedValue: switcher.widget)
        let confirmButton: UnsafeMutablePointer<GtkWidget> = gtk_button_new_with_label(i18n("Add"))
        _confirmButton = Owned(wrappedValue: confirmButton)
        style(confirmButton, "suggested-action")
        gtk_widget_set_sensitive(confirmButton, 0)
        let cancelButton: UnsafeMutablePointer<GtkWidget> = gtk_button_new_with_label(i18n("Cancel"))
        _cancelButton = Owned(wrappedValue: cancelButton)

        switcher.onChoose = { [weak self] album in self?.albumChosen(album) }
        switcher.onFocusContent = { [weak self] in self?.focusFirstPhoto() }
        Signal.connect(confirmButton.raw, "clicked") { [weak self] in self?.confirm() }
        Signal.connect(newerButton.raw, "clicked") { [weak self] in self?.showNewerPhotos() }
        Signal.connect(cancelButton.raw, "clicked") { [weak self] in self?.onCancel?() }
        Signal.connect(chooseFolderButton.raw, "clicked") { [weak self] in self?.chooseFolder() }
        locationBar = makeLocationBar()
        gtk_overlay_add_overlay(overlay.opaque, locationBar)
        findBar = makeFindBar()
        gtk_overlay_add_overlay(overlay.opaque, findBar)
        installKeys()
        installFetchActions()
        listenToController()
        photoGrid.onToggle = { [weak self] position in self?.toggle(at: position) }
        photoGrid.onOpen = { [weak self] position in self?.openPreview(at: position) }
        photoGrid.dragContent = { [weak self] id in self?.dragContent(for: id) }
        photoGrid.onNoVideoThumbnailer = { [weak self] in self?.noteNoVideoThumbnailer() }
        photoGrid.onFirstScreenShown = { [weak self] in self?.updateEmptyState() }
        photoGrid.metrics = StartupTrace.isOn ? PickerMetrics() : nil

        strip.onRemove = { [weak self] id in self?.selection.remove([id]) }
        strip.onLeave = { [weak self] forward in self?.leaveStrip(forward: forward) }
        strip.onFocusLost = { [weak self] in if let self { gtk_widget_grab_focus(self.grid) } }
        strip.onMove = { [weak self] dragged, target in
            guard let self, let from = self.selection.picked.firstIndex(of: dragged),
                  let to = self.selection.picked.firstIndex(of: target) else { return }
            self.selection.move(from: from, to: to)
        }
        strip.filesForDrag = { [weak self] in
            guard let self else { return nil }
            return Self.fileListContent(self.filesForDrag(self.selection.picked))
        }
        preview.onToggle = { [weak self] in self?.togglePreviewed() }
        preview.onClose = { [weak self] in self?.closePreview() }
        setUpCamera()
        selectionObservation = selection.observe { [weak self] _ in
            guard let self else { return }
            if self.awaitingFetches, self.selection.count == 0 { self.afterFetches = nil }
            self.updateConfirmButton()
            self.strip.show(self.selection.picked, rows: self.controller.asset, loader: self.loader)
        }
        strip.fetches = controller.fetches
        fetchObservation = controller.fetches.observe { [weak self] id in self?.fetchesChanged(id) }
        // The picker lives as long as its widget; when the widget goes, pending work is dropped.
        attach(self, to: widget.raw, key: Self.attachmentKey)
        Signal.connect(widget.raw, "destroy") { [weak self] in self?.tearDown() }
        Style.install()
    }

    /// The widgets are going away: the controller closes (nothing its workers finish reaches
    /// the view after this), timers, handlers and requests go, and the widget lets go of the view.
    func tearDown() {
        controller.close()
        if let keys = previewKeys, let owner = gtk_event_controller_get_widget(OpaquePointer(keys.pointer)) {
            gtk_widget_remove_controller(owner, OpaquePointer(keys.pointer))
        }
        // (The window holds the controller too; its finalize unsets the controller's widget.)
        previewKeys = nil
        // (The grid's timers and handlers went with its widget: PhotoGrid.widgetDisposed.)
        findEnd.cancel()
        if let chooser = folderChooser {
            gtk_native_dialog_destroy(chooser)
            folderChooserReference = nil
        }
        preview.cancel()  // its widgets may be gone already: touch none
        strip.cancelAll()
        // The last reference but a host's own: what still holds the view weakly finds it gone.
        g_object_set_data(widget.raw.assumingMemoryBound(to: GObject.self), Self.attachmentKey, nil)
    }

    private static let attachmentKey = "photopick-picker-view"

    // MARK: Measuring (bench/)

    /// What the benchmarks and tests count (binds, their time, badges, cells waiting for a
    /// picture); nil counts nothing. Set it before the view is shown.
    /// (The trace of a start, PHOTOPICK_TRACE_STARTUP, gives every picker one.)
    @_spi(Testing) public var metrics: PickerMetrics? {
        get { photoGrid.metrics }
        set { photoGrid.metrics = newValue }
    }
    /// Camera frames the camera cell has shown (the camera benchmark).
    @_spi(Testing) public var cameraCellFrames: Int { cells.compactMap(\.cell).filter(\.isCamera).map(\.cameraFramesShown).reduce(0, +) }
    @_spi(Testing) public var verticalAdjustment: UnsafeMutablePointer<GtkAdjustment>? { photoGrid.verticalAdjustment }
}

extension FilePath {
    /// "Pictures" for /home/ann/Pictures: how a folder is named to a person.
    var lastComponentName: String { String(decoding: lastComponent, as: UTF8.self) }
}
