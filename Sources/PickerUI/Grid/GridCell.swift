// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PickerModel
import PhotoLibrary
import Thumbnails

/// One grid cell: the thumbnail filling a rounded square, a ring and a numbered badge when
/// picked, the duration on videos, a heart on favourites, a cloud on photos on another machine,
/// the reason in words for files that failed. Passive, as a cell of Nautilus' grid: it shows its asset and says where it is;
/// clicks, drag and keys are the grid's (PhotoGrid+Cells). Binding subscribes to this asset's
/// pick number and row, and asks for its picture; unbinding cancels all three, so a recycled
/// cell never shows another photo's result and no view walks its cells.
///
/// The cell is a widget of its own type, `PhotopickGridCell` (CSS node `photopick-cell`, style
/// class `.cell`): a square whose side follows the column's width, its picture and decorations
/// laid out by the cell itself (no box and overlay between), its pick ring CSS outlines and its
/// number and hover circle one label: three widgets a cell where there were six, in each of the
/// grid's 200 cells to make, lay out, unmap and dispose. The widget owns this object.
@MainActor
final class GridCell: LaidOutAsOverlay, SwiftWidget, WidgetActions {
    /// `cell.toggle-pick`: what a click does, for assistive technologies (AT-SPI's DoAction).
    static let widgetType = WidgetType("PhotopickGridCell", cssName: "photopick-cell", role: GTK_ACCESSIBLE_ROLE_GROUP, sizing: true,
                                       actions: ["cell.toggle-pick"])

    /// The cell of a grid's list item, or of the cell widget itself.
    static func of(_ widget: UnsafeMutablePointer<GtkWidget>?) -> GridCell? { widgetType.state(of: widget) }

    let root: UnsafeMutablePointer<GtkWidget>
    let picture: UnsafeMutablePointer<GtkWidget>
    /// The empty circle shown on hover (this tile can be picked): a widget with no text, so the
    /// first screen's 50 cells lay out no text for it (an empty label's layout each, 1 ms of the
    /// first frame's allocation under perf).
    private let circle: UnsafeMutablePointer<GtkWidget>
    /// The pick's number in the circle's place, made the first time this cell shows one.
    private let number: CellPart
    /// The number's widget (tests), made now if it was not.
    var badge: UnsafeMutablePointer<GtkWidget> { number.made }
    // The parts few cells show are made the first time one is shown (CellPart): a cell of six
    // widgets instead of twelve is made, styled, laid out and unmapped in about half the time,
    // and a grid makes 200 of them at once.
    private let duration: CellPart
    private let heart: CellPart
    /// On photos that live on another machine (picking one downloads it).
    private let cloud: CellPart
    /// A status icon over the picture (a video without a thumbnailer, the camera's state), and
    /// words under it: "Damaged file".
    private let statusParts: CellPart
    private var status: UnsafeMutablePointer<GtkWidget>? { statusParts.widget.flatMap(gtk_widget_get_first_child) }
    private var problem: UnsafeMutablePointer<GtkWidget>? { status.flatMap(gtk_widget_get_next_sibling) }
    /// While a pick on another machine is copied here: its progress, or why it failed. Made the
    /// first time this cell shows a copy (its six widgets would cost every cell a little more to make).
    private var fetchRing: FetchRing?
    /// The side the cell asks for, in points (the column may give it less, or more).
    private var side = 1
    private weak var host: CellHost?

    /// The list item this cell is the child of (set at setup, for positions); nil once the cell
    /// has left the grid (PhotoGrid.unbind).
    var listItem: OpaquePointer?
    private(set) var assetID: Int64?
    /// Whether a thumbnail (or a preview of it) is shown, for tests of what a person sees.
    var showsPicture: Bool { gtk_picture_get_paintable(picture.opaque) != nil }
    /// The grid position the cell is bound to.
    var position: Int? { listItem.map { Int(gtk_list_item_get_position($0)) } }
    /// The file version the picture was asked for.
    private var pictureVersion: FileVersion?
    /// The number the badge shows.
    private var shownNumber: Int?
    private var request: ThumbnailRequest?
    private var pickSubscription: Subscription?
    private var rowSubscription: Subscription?
    private var fetchSubscription: Subscription?
    /// While bound to the camera slot: the live camera in this cell.
    private(set) var camera: CameraSlot?
    var isCamera: Bool { camera != nil }
    /// Frames shown since the camera slot was bound (tests: the preview is live).
    var cameraFramesShown: Int { camera?.framesShown ?? 0 }
    /// Ends a shake; the cell owns it, so it goes with the cell.
    private let shakeEnd = MainLoopSource()

    private var isWaiting = false {
        didSet { if isWaiting != oldValue { host?.metrics?.cellWaits(isWaiting) } }
    }

    init(host: CellHost) {
        self.host = host
        root = Self.widgetType.make()
        style(root, "cell")
        picture = gtk_picture_new()
        gtk_picture_set_content_fit(picture.opaque, GTK_CONTENT_FIT_COVER)
        gtk_picture_set_can_shrink(picture.opaque, 1)
        style(picture, "thumbnail")
        gtk_widget_set_parent(picture, root)

        // The pick ring is the cell's and the picture's CSS outlines (Style: `.cell.picked`),
        // which GTK draws over a widget's children: no widget of its own.

        // In its corner: unpicked, an empty circle shown on hover; picked, the pick's number
        // (showNumber).
        circle = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)
        style(circle, "pick-circle")
        place(circle, over: root, GTK_ALIGN_END, GTK_ALIGN_START, targetable: true)

        let root = root
        number = CellPart {
            let number = gtk_label_new(nil)!
            style(number, "pick-badge")
            place(number, over: root, GTK_ALIGN_END, GTK_ALIGN_START, targetable: true)
            return number
        }
        duration = CellPart {
            let duration = gtk_label_new(nil)!
            style(duration, "duration")
            place(duration, over: root, GTK_ALIGN_END, GTK_ALIGN_END, targetable: true)
            return duration
        }
        heart = CellPart {
            let heart = gtk_image_new_from_icon_name("emblem-favorite-symbolic")!
            style(heart, "favorite")
            place(heart, over: root, GTK_ALIGN_START, GTK_ALIGN_END, targetable: true)
            return heart
        }
        cloud = CellPart {
            let cloud = gtk_image_new_from_icon_name("weather-overcast-symbolic")!
            style(cloud, "remote")
            place(cloud, over: root, GTK_ALIGN_START, GTK_ALIGN_START, targetable: true)
            return cloud
        }
        statusParts = CellPart {
            let statusBox = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
            let status = gtk_image_new()!
            style(status, "status-icon")
            gtk_image_set_pixel_size(status.opaque, 32)
            gtk_widget_set_visible(status, 0)
            let problem = gtk_label_new(nil)!
            style(problem, "problem", "dim-label")
            gtk_label_set_wrap(problem.opaque, 1)
            gtk_label_set_justify(problem.opaque, GTK_JUSTIFY_CENTER)
            gtk_widget_set_visible(problem, 0)
            gtk_box_append(statusBox.cast(), status)
            gtk_box_append(statusBox.cast(), problem)
            place(statusBox, over: root, GTK_ALIGN_CENTER, GTK_ALIGN_CENTER)
            return statusBox
        }
        Self.widgetType.adopt(self, by: root)
        resize(to: host.cellSide)
        gtk_widget_set_has_tooltip(root, 1)
        Signal.connect(root.raw, "query-tooltip", tooltip: { [weak self] tooltip in
            guard let self, !self.name.isEmpty else { return false }
            // A file that cannot be shown: under its translated words, what the decoder said
            // (in English, as GLib's and the loaders' messages are).
            gtk_tooltip_set_text(tooltip, keepingKoreanWordsWhole(self.name) + (self.problemDetail.map { "\n" + $0 } ?? ""))
            return true
        })
    }

    func resize(to size: Int) {
        guard max(1, size) != side else { return }
        side = max(1, size)
        gtk_widget_queue_resize(root)
    }

    // MARK: Its layout

    // GtkGridView gives each column the grid's width divided by the number of columns, wider
    // than the side asked for: "as tall as I am wide" keeps the cell square (with a fixed size
    // request it was 177x120 in a 380 px window).
    var requestMode: GtkSizeRequestMode { GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH }

    func measure(_ orientation: GtkOrientation, for size: Int) -> (minimum: Int, natural: Int) {
        if orientation == GTK_ORIENTATION_VERTICAL && size > 0 { return (size, size) }
        // Narrower than the chosen side is allowed (a narrow window keeps one column of smaller
        // squares).
        return (min(side, 48), side)
    }

    // (Laid out as an overlay: the picture fills the square, each decoration is placed over it
    // by its alignment.)
    var widget: UnsafeMutablePointer<GtkWidget> { root }

    /// Lets go of what the cell asked for before its widgets go.
    func widgetDisposed() {
        stopWork()
    }

    // MARK: Binding

    func bind(item: UnsafeMutableRawPointer?) {
        guard let metrics = host?.metrics else { return bindNow(item) }
        metrics.measureBind { bindNow(item) }
    }

    private func bindNow(_ item: UnsafeMutableRawPointer?) {
        clear()
        guard let host else { return }
        if AssetItem.isCamera(item) {
            camera = CameraSlot(cell: self, host: host)
            return
        }
        guard let id = AssetItem.assetID(of: item) else { return }
        assetID = id
        showNumber(host.pickState(of: id).number)
        pickSubscription = host.observePick(id) { [weak self] state in self?.pickChanged(state) }
        rowSubscription = host.observeRow(id) { [weak self] in self?.rowChanged() }
        showFetch(host.fetchState(of: id), of: id)
        fetchSubscription = host.observeFetch(id) { [weak self] state in self?.fetchChanged(state) }
        switch host.row(id) {
        case .found(let asset):
            decorate(asset)
            requestPicture(of: asset)
        case .gone:
            show(problem: CellProblem(.gone))
        case .unreadable(let reason):
            show(problem: .indexUnreadable)
            problemDetail = reason
            describe(CellProblem.indexUnreadable.title)
        }
    }

    private func pickChanged(_ state: SelectionStore.PickState) {
        guard let host, let id = assetID, case .found(let asset) = host.row(id) else { return }
        // The name first, then the number and the checked state: Orca 43 reads a grid cell again
        // when its CHECKED state changes, with the name it has then ("picked 2 of 3"); a name
        // changed alone it does not read.
        describe(accessibleName(for: asset, state: state))
        if state.number != shownNumber {
            host.metrics?.badgeUpdated()
            showNumber(state.number)
        }
    }

    private func fetchChanged(_ state: FetchStore.State?) {
        guard let host, let id = assetID else { return }
        let wasShown = fetchRing?.isShown == true
        showFetch(state, of: id)
        // (The spoken name says whether it is being fetched, not each step of it.)
        if case .fetching = state, wasShown { return }
        if case .found(let asset) = host.row(id) { describe(accessibleName(for: asset, state: host.pickState(of: id))) }
    }

    /// The badges and the spoken name again (the photo's folder stopped answering, or answers again).
    func redecorate() {
        guard let host, let id = assetID, case .found(let asset) = host.row(id) else { return }
        decorate(asset)
    }

    /// Decorates the cell again and asks for its picture anew when `asksAgain` says so of its
    /// row (its folder went away or came back).
    func redecorate(askingAgainIf asksAgain: (Asset) -> Bool) {
        guard let host, let id = assetID, case .found(let asset) = host.row(id) else { return }
        decorate(asset)
        if asksAgain(asset) { requestPicture(of: asset) }
    }

    private func showFetch(_ state: FetchStore.State?, of id: Int64) {
        if fetchRing == nil, state != nil {
            let ring = FetchRing(side: 48, captioned: true, withButtons: true)
            // Over the picture's middle (the corner badges are clear of it).
            place(ring.root, over: root, GTK_ALIGN_CENTER, GTK_ALIGN_CENTER, targetable: true)
            fetchRing = ring
        }
        fetchRing?.show(state, of: id)
    }

    /// The row changed in place (read in full after a scan's first pass, a new rating): the
    /// decorations follow at once; the picture is made again only when the file itself changed,
    /// and the one shown stays until the new one arrives (no blink).
    private func rowChanged() {
        guard let host, let id = assetID, case .found(let asset) = host.row(id) else { return }
        decorate(asset)
        if asset.version != pictureVersion { requestPicture(of: asset) }
    }

    /// The heart, the duration and the spoken name, from the asset's row.
    private func decorate(_ asset: Asset) {
        heart.show(asset.isFavorite)
        let remote = host?.isRemote(asset) == true, offline = host?.isOffline(asset) == true
        if remote || offline {
            // A photo whose server does not answer, or on a disk not plugged in: dimmed, its badge
            // saying so.
            let badge = !offline ? "weather-overcast-symbolic" : remote ? "network-offline-symbolic" : "drive-removable-media-symbolic"
            gtk_image_set_from_icon_name(cloud.made.opaque, badge)
        }
        cloud.show(remote || offline)
        if offline { gtk_widget_add_css_class(root, "offline") } else { gtk_widget_remove_css_class(root, "offline") }
        if asset.kind == .video {
            // The badge is what says "video" (the frame has no film sprockets): a container whose
            // length the index cannot read (AVI, MPEG-TS …) still gets one, a play sign.
            let text = asset.duration.map(formatDuration) ?? ""
            gtk_label_set_text(duration.made.opaque, text.isEmpty ? "▶" : text)
            duration.show(true)
        } else {
            duration.show(false)
        }
        if let host { describe(accessibleName(for: asset, state: host.pickState(of: asset.id))) }
    }

    /// Asks for the thumbnail; the picture shown meanwhile (none after a bind) stays until it comes.
    private func requestPicture(of asset: Asset) {
        guard let host else { return }
        let id = asset.id
        request?.cancel()
        request = nil
        pictureVersion = asset.version
        // Far from the view, the cell waits to come near it (PhotoGrid.askForDeferredPictures);
        // nobody waits for its picture meanwhile.
        deferredAsset = position.map { host.defersPicture(of: asset, at: $0) } == true ? asset : nil
        if deferred {
            isWaiting = false
            return
        }
        // (A picture held in memory comes at once: the cell never waited, and the trace's "every
        // bound cell has its thumbnail" is not said again for each such bind.)
        var answered = false
        request = host.picture(for: asset) { [weak self] picture in
            answered = true
            guard let self, self.assetID == id else { return }
            self.isWaiting = false
            switch picture {
            case .picture(let pixbuf): self.setPicture(pixbuf)
            case .videoIcon: self.show(status: "video-x-generic-symbolic")
            case .problem(let problem, let detail):
                self.show(problem: problem)
                self.problemDetail = detail
                if let host = self.host { self.describe(self.accessibleName(for: asset, state: host.pickState(of: id))) }
            case .none: break
            }
        }
        if !answered { isWaiting = true }
    }

    func unbind() {
        stopWork()
    }

    /// Whether a point of the cell (its own coordinates) is on one of its buttons.
    func hasButton(atX x: Double, y: Double) -> Bool {
        guard let target = gtk_widget_pick(root, x, y, GTK_PICK_DEFAULT),
              let button = gtk_widget_get_ancestor(target, gtk_button_get_type()) else { return false }
        return gtk_widget_is_ancestor(button, root) != 0
    }

    /// Shakes the cell briefly: the maximum is reached and this pick was refused.
    func shake() {
        gtk_widget_add_css_class(root, "refused")
        shakeEnd.schedule(after: 450, priority: G_PRIORITY_DEFAULT) { [weak self] in
            if let self { gtk_widget_remove_css_class(self.root, "refused") }
        }
    }

    /// Bound far from the view, its picture not asked for yet: the photo it was bound to (its
    /// row may have left the controller's window of rows by the time the view comes near).
    private var deferredAsset: Asset?
    var deferred: Bool { deferredAsset != nil }

    /// The view came near: the picture is asked for now.
    func askForDeferredPicture() {
        guard let asset = deferredAsset, asset.id == assetID else { return }
        deferredAsset = nil
        requestPicture(of: asset)
    }

    /// The thumbnail size changed (a zoom step, another scale): the picture shown stays, scaled,
    /// until the new one arrives, rather than a blank cell for the decode's time.
    func reloadPicture() {
        guard let host, let id = assetID, case .found(let asset) = host.row(id) else { return rebind() }
        requestPicture(of: asset)
    }

    /// Binds again to the same item.
    func rebind() {
        guard let listItem, let item = gtk_list_item_get_item(listItem) else { return }
        bind(item: item)
    }

    /// The cell lets go of its photo: the picture's request, the subscriptions, a camera's
    /// preview. What it shows stays until the next bind resets it: an unbound cell is not
    /// shown (it is bound again or destroyed), and resetting each of its parts as GTK tore down
    /// a grid's 240 cells was 6-8 ms of a host's turn that removed the picker (issue 38).
    private func stopWork() {
        isWaiting = false
        deferredAsset = nil
        request?.cancel()
        request = nil
        pickSubscription = nil
        rowSubscription = nil
        fetchSubscription = nil
        assetID = nil
        pictureVersion = nil
        camera?.end()
        camera = nil
    }

    private func clear() {
        stopWork()
        fetchRing?.show(nil, of: 0)
        gtk_picture_set_paintable(picture.opaque, nil)
        hideStatus()
        if let problem { gtk_widget_set_visible(problem, 0) }
        problemDetail = nil
        gtk_widget_remove_css_class(root, "broken")
        duration.show(false)
        heart.show(false)
        cloud.show(false)
        gtk_widget_remove_css_class(root, "offline")
        showNumber(nil)
    }

    func widgetAction(_ name: String) {
        guard name == "cell.toggle-pick", let host, let position else { return }
        host.toggle(at: position)
    }

    // MARK: What it shows

    /// The name a screen reader says for the cell, also shown as its tooltip.
    func describe(_ name: String) {
        self.name = name
        photopick_accessible_set_label(root, name)
        // What AT-SPI lists as the grid's cells are GTK's list item widgets around the cells
        // (GTK 4.8): each was "GtkListItemWidget" to a screen reader. (GtkListItem's own
        // accessible-label is GTK 4.12's.)
        if let item = listItemWidget { photopick_accessible_set_label(item, name) }
    }

    /// The checked state last given to the list item widget (it stays with this cell).
    private var accessiblyChecked: Bool?

    /// GTK's widget that holds this cell in the grid, the one assistive technologies see.
    private var listItemWidget: UnsafeMutablePointer<GtkWidget>? { gtk_widget_get_parent(root) }

    /// The cell's name, for the tooltip. Setting a tooltip's text on every bind made GTK pick the
    /// widget under the pointer each time (0.3 ms a bind, most of the binding time while
    /// scrolling): the tooltip asks for it instead, when it is about to show.
    private var name = ""
    /// Why the thumbnail failed, in the decoder's words ("cannot decode: the PNG decoder crashed
    /// on this file (Segmentation fault)"), for the tooltip; nil while nothing failed.
    private(set) var problemDetail: String?
    /// What a screen reader says for the cell (tests).
    var accessibleText: String { name }

    private func setPicture(_ pixbuf: Pixbuf) {
        // GdkPixbuf and GdkTexture are the same C types in both modules: pass the pointer across.
        guard let texture = gdk_texture_new_for_pixbuf(pixbuf.pointer) else { return }
        gtk_picture_set_paintable(picture.opaque, texture)
        g_object_unref(UnsafeMutableRawPointer(texture))
    }

    func show(status icon: String) {
        _ = statusParts.made
        guard let status else { return }
        gtk_image_set_from_icon_name(status.opaque, icon)
        gtk_widget_set_visible(status, 1)
    }

    /// No status icon (the camera's live picture came).
    func hideStatus() {
        if let status { gtk_widget_set_visible(status, 0) }
    }

    /// A problem in words over the cell: the icon and the title ("Damaged file").
    func show(problem icon: String, title: String) {
        gtk_widget_add_css_class(root, "broken")
        show(status: icon)
        guard let problem else { return }
        gtk_label_set_text(problem.opaque, title)
        gtk_widget_set_visible(problem, 1)
    }

    /// A file that cannot be shown says so in words (and cannot be picked: the selection refuses it).
    private func show(problem: CellProblem) {
        show(problem: problem.icon, title: problem.title)
    }

    /// No problem shown (the camera's state changed).
    func clearProblem() {
        if let problem { gtk_widget_set_visible(problem, 0) }
        gtk_widget_remove_css_class(root, "broken")
    }

    private func showNumber(_ number: Int?) {
        shownNumber = number
        // Picked is the checked state of the cell's item (a grid's cells have no selection here:
        // picks are not GTK's selection).
        // Set only when it changes, and false only after true (a cell never picked has no
        // checked state): each is an event, and Orca reads the focused cell again at each, which
        // made it read an unpicked cell twice as the focus came to it.
        if let item = listItemWidget, accessiblyChecked != (number != nil), number != nil || accessiblyChecked == true {
            accessiblyChecked = number != nil
            Accessible.set(GTK_ACCESSIBLE_STATE_CHECKED, number != nil, of: item)
        }
        if let number {
            gtk_label_set_text(self.number.made.opaque, String(number))
            self.number.show(true)
            gtk_widget_set_visible(circle, 0)
            gtk_widget_add_css_class(root, "picked")
        } else {
            self.number.show(false)
            gtk_widget_set_visible(circle, 1)
            gtk_widget_remove_css_class(root, "picked")
        }
    }

    /// What a screen reader says, and the tooltip: "IMG_1234.jpg, Photo, 12 March 2024, picked 2
    /// of 3". The name first: it tells two shots of one moment apart, and finds IMG_1234.
    func accessibleName(for asset: Asset, state: SelectionStore.PickState) -> String {
        // Parts joined by commas; each is a message of its own.
        var parts = [asset.displayName, asset.kind == .video ? i18n("Video") : i18n("Photo")]
        if let problem = host?.problem(of: asset.id) { parts += [problem.title.lowercased(), i18n("cannot be picked")] }
        parts.append(asset.captureDate.spokenDate)
        if let duration = asset.duration, asset.kind == .video { parts.append(formatDuration(duration)) }
        if asset.isFavorite { parts.append(i18n("favourite")) }
        if host?.isRemote(asset) == true {
            parts.append(host?.isOffline(asset) == true ? i18n("on another computer that does not answer") : i18n("on another computer"))
        } else if host?.isOffline(asset) == true {
            parts.append(i18n("on a disk that is not connected"))
        }
        if let number = state.number {
            parts.append(i18n("picked {number} of {count}", ["number": String(number), "count": String(state.total)]))
        }
        switch host?.fetchState(of: asset.id) {
        case .waiting?: parts.append(i18n("waiting to be fetched"))
        case .fetching?: parts.append(i18n("being fetched"))
        case .failed(let reason)?: parts.append(i18n("could not be fetched: {reason}", ["reason": reason]))
        case .fetched?, nil: break
        }
        return parts.joined(separator: i18n(", "))
    }
}

/// A part of a cell made the first time it is shown (see GridCell's parts).
@MainActor
private final class CellPart {
    private let make: () -> UnsafeMutablePointer<GtkWidget>
    private(set) var widget: UnsafeMutablePointer<GtkWidget>?

    init(_ make: @escaping () -> UnsafeMutablePointer<GtkWidget>) { self.make = make }

    /// The part's widget, made now if it was not.
    var made: UnsafeMutablePointer<GtkWidget> {
        if let widget { return widget }
        let made = make()
        widget = made
        return made
    }

    /// Shows it (made first if need be), or hides it if it was ever made.
    func show(_ visible: Bool) {
        if visible {
            gtk_widget_set_visible(made, 1)
        } else if let widget {
            gtk_widget_set_visible(widget, 0)
        }
    }
}
