import Camera
import CGtk
import GObjectSupport
import PickerModel
import PhotoLibrary
import Thumbnails

/// One grid cell: the thumbnail filling a rounded square, a ring and a numbered badge when
/// picked, the duration on videos, a heart on favourites, a broken-image icon for files that
/// failed. Binding requests the thumbnail and subscribes to the selection for this asset only;
/// unbinding cancels both, so a recycled cell never shows another photo's result.
@MainActor
final class GridCell {
    static let key = "photopick-cell"

    let root: UnsafeMutablePointer<GtkWidget>
    private let picture: UnsafeMutablePointer<GtkWidget>
    let badge: UnsafeMutablePointer<GtkWidget>
    private let duration: UnsafeMutablePointer<GtkWidget>
    private let heart: UnsafeMutablePointer<GtkWidget>
    private let status: UnsafeMutablePointer<GtkWidget>
    /// Words under the status icon: "Damaged file".
    private let problem: UnsafeMutablePointer<GtkWidget>
    /// Weak: GTK may keep a list item (and this cell) a moment longer than the picker.
    private weak var picker: PickerView?

    /// The list item this cell is the child of (set at setup, for positions).
    var listItem: OpaquePointer?
    private(set) var assetID: Int64?
    /// Whether a thumbnail (or a preview of it) is shown, for tests of what a person sees.
    var showsPicture: Bool { gtk_picture_get_paintable(picture.opaque) != nil }
    /// The grid position the cell is bound to.
    var position: Int? { listItem.map { Int(gtk_list_item_get_position($0)) } }
    /// The file version the picture was asked for.
    private var pictureVersion: FileVersion?
    /// The pick number before the first press of a double click (restored by the second).
    private var numberBeforeClick: Int?
    private var request: ThumbnailRequest?
    private var observation: SelectionStore.Observation?
    /// While bound to the camera slot: the camera's events, and this cell's claim on the stream.
    private var cameraObservation: SelectionStore.Observation?
    private var cameraViewing: Int?
    /// Frames shown since the camera slot was bound (tests: the preview is live).
    private(set) var cameraFramesShown = 0
    var isCamera: Bool { cameraObservation != nil }
    /// Ends a shake; the cell owns it, so it goes with the cell.
    private let shakeEnd = MainLoopSource()

    /// Binds so far, and badge updates caused by selection changes: the benchmark and tests
    /// read these.
    static var binds = 0
    static var badgeUpdates = 0
    /// Bound cells still waiting for their first picture.
    static var waiting = 0
    /// Time spent in bind, for the benchmark's split of frame time between GTK and us.
    static var bindTime = TimeSpent()
    private var isWaiting = false {
        didSet {
            guard isWaiting != oldValue else { return }
            GridCell.waiting += isWaiting ? 1 : -1
            if GridCell.waiting == 0 { StartupTrace.mark("every bound cell has its thumbnail") }
        }
    }

    init(picker: PickerView) {
        self.picker = picker
        // A square whose side follows the column width (SquareLayout), holding an overlay.
        root = SquareLayout.makeContainer()
        style(root, "cell")
        let content = gtk_overlay_new()!
        gtk_box_append(root.cast(), content)
        picture = gtk_picture_new()
        gtk_picture_set_content_fit(picture.opaque, GTK_CONTENT_FIT_COVER)
        gtk_picture_set_can_shrink(picture.opaque, 1)
        style(picture, "thumbnail")
        gtk_overlay_set_child(content.opaque, picture)

        let statusBox = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        status = gtk_image_new()
        style(status, "status-icon")
        gtk_image_set_pixel_size(status.opaque, 32)
        problem = gtk_label_new(nil)
        style(problem, "problem", "dim-label")
        gtk_label_set_wrap(problem.opaque, 1)
        gtk_label_set_justify(problem.opaque, GTK_JUSTIFY_CENTER)
        gtk_box_append(statusBox.cast(), status)
        gtk_box_append(statusBox.cast(), problem)
        place(statusBox, over: content, GTK_ALIGN_CENTER, GTK_ALIGN_CENTER)

        // The pick ring: an accent border with a white inner line, so that it shows on a photo
        // of the accent's own colour (blue sky under a blue ring).
        let ring = gtk_label_new(nil)!
        style(ring, "pick-ring")
        place(ring, over: content)

        // An empty circle where the number goes, shown on hover: this tile can be picked.
        let circle = gtk_label_new(nil)!
        style(circle, "pick-circle")
        place(circle, over: content, GTK_ALIGN_END, GTK_ALIGN_START)

        badge = gtk_label_new(nil)
        style(badge, "pick-badge")
        place(badge, over: content, GTK_ALIGN_END, GTK_ALIGN_START, targetable: true)

        duration = gtk_label_new(nil)
        style(duration, "duration")
        place(duration, over: content, GTK_ALIGN_END, GTK_ALIGN_END, targetable: true)

        heart = gtk_image_new_from_icon_name("emblem-favorite-symbolic")
        style(heart, "favorite")
        place(heart, over: content, GTK_ALIGN_START, GTK_ALIGN_END, targetable: true)
        resize(to: picker.cellSize)
        // One click picks or unpicks; a double click undoes that and opens the preview.
        let click = gtk_gesture_click_new()!
        Signal.connect(click.raw, "pressed", presses: { [weak self] presses in
            guard let self, let listItem = self.listItem else { return }
            let position = Int(gtk_list_item_get_position(listItem))
            guard let picker = self.picker else { return }
            if presses == 1 {
                self.numberBeforeClick = self.assetID.flatMap { picker.selection.number(of: $0) }
                picker.toggle(at: position)
            } else if presses == 2 {
                // The first press is undone: a picked photo keeps its place in the order.
                picker.toggle(at: position)
                if let number = self.numberBeforeClick, let id = self.assetID,
                   let now = picker.selection.picked.firstIndex(of: id), now != number - 1 {
                    picker.selection.move(from: now, to: number - 1)
                }
                picker.openPreview(at: position)
            }
        })
        gtk_widget_add_controller(root, OpaquePointer(click.raw))
        // Dragged out to another app: this photo, or every pick in order when it is picked.
        let drag = gtk_drag_source_new()!
        gtk_drag_source_set_actions(drag, GDK_ACTION_COPY)
        Signal.connect(drag.raw, "prepare", prepare: { [weak self] in
            guard let self, let id = self.assetID, let picker = self.picker, let listItem = self.listItem else { return nil }
            // The press that began the drag picked or unpicked the photo: a drag is not a
            // click, so that is undone first (the photo keeps its number).
            let wasPicked = self.numberBeforeClick
            if picker.selection.number(of: id) != wasPicked {
                picker.toggle(at: Int(gtk_list_item_get_position(listItem)))
                if let number = wasPicked, let now = picker.selection.picked.firstIndex(of: id), now != number - 1 {
                    picker.selection.move(from: now, to: number - 1)
                }
            }
            return picker.dragContent(for: id)
        })
        gtk_widget_add_controller(root, OpaquePointer(drag.raw))
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
        SquareLayout.setSide(size, of: root)
    }

    // MARK: Binding

    func bind(item: UnsafeMutableRawPointer?) {
        GridCell.binds += 1
        GridCell.bindTime.measure { bindNow(item) }
    }

    private func bindNow(_ item: UnsafeMutableRawPointer?) {
        clear()
        if AssetItem.isCamera(item) {
            bindCamera()
            return
        }
        guard let picker else { return }
        guard let id = AssetItem.assetID(of: item), let asset = picker.controller.asset(id) else {
            show(problem: .gone)
            return
        }
        assetID = id
        decorate(asset)
        showNumber(picker.selection.number(of: id))
        observation = picker.selection.observe(id) { [weak self] number in
            guard let self, let asset = self.picker?.controller.asset(id) else { return }
            GridCell.badgeUpdates += 1
            self.showNumber(number)
            self.describe(self.accessibleName(for: asset, number: number))
        }
        requestPicture(of: asset)
    }

    /// The heart, the duration and the spoken name, from the asset's row.
    private func decorate(_ asset: Asset) {
        gtk_widget_set_visible(heart, asset.isFavorite ? 1 : 0)
        if let seconds = asset.duration, asset.kind == .video, case let text = formatDuration(seconds), !text.isEmpty {
            gtk_label_set_text(duration.opaque, text)
            gtk_widget_set_visible(duration, 1)
        } else {
            gtk_widget_set_visible(duration, 0)
        }
        describe(accessibleName(for: asset, number: picker?.selection.number(of: asset.id)))
    }

    /// Asks for the thumbnail; the picture shown meanwhile (none after a bind) stays until it comes.
    private func requestPicture(of asset: Asset) {
        guard let picker else { return }
        let id = asset.id
        request?.cancel()
        request = nil
        pictureVersion = asset.version
        if let hit = picker.loader.memoryHit(asset.path, flavor: picker.flavor, size: asset.version.size,
                                             modificationTimeNanoseconds: asset.version.modificationTimeNanoseconds),
           let pixbuf = hit.pixbuf {
            // In memory already: drawn in this frame.
            picker.forgetUnshowable(id)
            setPicture(pixbuf)
            return
        }
        isWaiting = true
        request = picker.loader.request(asset.path, flavor: picker.flavor, cellPixels: picker.cellPixels) { [weak self] result in
            guard let self, self.assetID == id else { return }
            self.isWaiting = false
            switch result {
            case .success(let thumbnail):
                // Shown now (copied in since, or its permissions mended): it can be picked.
                self.picker?.forgetUnshowable(id)
                if let pixbuf = thumbnail.pixbuf {
                    self.setPicture(pixbuf)
                } else {
                    self.show(status: "video-x-generic-symbolic", tooltip: nil)
                    self.picker?.noteNoVideoThumbnailer()
                }
            case .failure(let failure):
                guard let problem = CellProblem(failure) else { return }
                self.picker?.noteUnshowable(id, problem)
                self.show(problem: problem)
                self.problemDetail = failure.description
                self.describe(self.accessibleName(for: asset, number: self.picker?.selection.number(of: id)))
            }
        }
    }

    /// The asset's row changed in place (read in full after a scan's first pass, a new rating):
    /// the decorations follow at once; the picture is made again only when the file itself
    /// changed, and the one shown stays until the new one arrives (no blink).
    func refresh() {
        guard let picker, let id = assetID, let asset = picker.controller.asset(id) else { return }
        decorate(asset)
        if asset.version != pictureVersion { requestPicture(of: asset) }
    }

    func unbind() {
        clear()
    }

    /// Says the cell's name again (the number of picks changed: "picked 2 of 4").
    func refreshDescription() {
        guard let picker, let id = assetID, let asset = picker.controller.asset(id) else { return }
        describe(accessibleName(for: asset, number: picker.selection.number(of: id)))
    }

    /// Shakes the cell briefly: the maximum is reached and this pick was refused.
    func shake() {
        gtk_widget_add_css_class(root, "refused")
        shakeEnd.schedule(after: 450, priority: G_PRIORITY_DEFAULT) { [weak self] in
            if let self { gtk_widget_remove_css_class(self.root, "refused") }
        }
    }

    /// Binds again to the same item (the thumbnail size changed).
    /// The thumbnail size changed (a zoom step, another scale): the picture shown stays, scaled,
    /// until the new one arrives, rather than a blank cell for the decode's time.
    func reloadPicture() {
        guard let picker, let id = assetID, let asset = picker.controller.asset(id) else { return rebind() }
        requestPicture(of: asset)
    }

    func rebind() {
        guard let listItem, let item = gtk_list_item_get_item(listItem) else { return }
        bind(item: item)
    }

    private func clear() {
        isWaiting = false
        request?.cancel()
        request = nil
        observation?.cancel()
        observation = nil
        assetID = nil
        pictureVersion = nil
        gtk_picture_set_paintable(picture.opaque, nil)
        gtk_widget_set_visible(status, 0)
        gtk_widget_set_visible(problem, 0)
        problemDetail = nil
        gtk_widget_remove_css_class(root, "broken")
        gtk_widget_set_visible(duration, 0)
        gtk_widget_set_visible(heart, 0)
        gtk_widget_remove_css_class(root, "camera")
        cameraPicture?.clear()
        cameraObservation?.cancel()
        cameraObservation = nil
        if let cameraViewing { picker?.controller.camera?.endViewing(cameraViewing) }
        cameraViewing = nil
        showNumber(nil)
    }

    // MARK: The camera slot

    /// The live camera, mirrored as webcams are, cropped to fill; its state in words when it
    /// shows no picture. The stream runs while a cell is bound here.
    private func bindCamera() {
        gtk_widget_add_css_class(root, "camera")
        cameraFramesShown = 0
        guard let picker, let camera = picker.controller.camera else { return }
        cameraObservation = camera.observe { [weak self] event in
            switch event {
            case .status(let status): self?.showCamera(status)
            case .frame(let frame): self?.showFrame(frame)
            case .cameras: break
            }
        }
        showCamera(camera.status)
        if case .live = camera.status, let frame = camera.latestFrame { showFrame(frame) }
        updateCameraViewing()
    }

    /// Claims the stream while the camera cell is in sight, lets it go when scrolled away.
    func updateCameraViewing() {
        guard let picker, let camera = picker.controller.camera, isCamera else { return }
        let wanted = picker.cameraSlotInView
        if wanted, cameraViewing == nil {
            cameraViewing = camera.beginViewing(.preview(width: picker.cellPixels, height: picker.cellPixels))
        } else if !wanted, let viewing = cameraViewing {
            camera.endViewing(viewing)
            cameraViewing = nil
        }
    }

    private func showCamera(_ status: CameraStore.Status) {
        gtk_widget_set_visible(problem, 0)
        gtk_widget_remove_css_class(root, "broken")
        switch status {
        case .searching, .idle, .starting:
            // The icon until the first frame.
            clearCameraPicture()
            show(status: "camera-photo-symbolic", tooltip: nil)
            describe(i18n("Camera, take a photo"))
        case .live:
            describe(i18n("Camera, take a photo"))
        case .absent:
            clearCameraPicture()
            show(problem: CameraFailure.noCamera)
        case .failed(let failure):
            // Never a frozen frame: the picture goes, the words say why.
            clearCameraPicture()
            show(problem: failure)
        }
    }

    private func show(problem failure: CameraFailure) {
        gtk_widget_add_css_class(root, "broken")
        gtk_image_set_from_icon_name(status.opaque, failure.icon)
        gtk_widget_set_visible(status, 1)
        gtk_label_set_text(problem.opaque, failure.title)
        gtk_widget_set_visible(problem, 1)
        describe(i18n("Camera: {problem}. {explanation}", ["problem": failure.title, "explanation": failure.explanation]))
    }

    private func showFrame(_ frame: Frame) {
        let live = cameraPicture ?? CameraPaintable()
        cameraPicture = live
        guard live.show(frame, small: true) else { return }
        if gtk_picture_get_paintable(picture.opaque) != live.paintable { gtk_picture_set_paintable(picture.opaque, live.paintable) }
        gtk_widget_set_visible(status, 0)
        cameraFramesShown += 1
    }

    /// Frames go into one paintable (made when the cell first shows the camera).
    private var cameraPicture: CameraPaintable?

    private func clearCameraPicture() {
        gtk_picture_set_paintable(picture.opaque, nil)
        cameraPicture?.clear()
    }

    /// The name a screen reader says for the cell, also shown as its tooltip.
    private func describe(_ name: String) {
        self.name = name
        photopick_accessible_set_label(root, name)
    }

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

    private func show(status icon: String, tooltip: String?) {
        gtk_image_set_from_icon_name(status.opaque, icon)
        gtk_widget_set_visible(status, 1)
        if let tooltip { name = tooltip }
    }

    /// A file that cannot be shown says so in words (and cannot be picked: PickerView.toggle).
    private func show(problem: CellProblem) {
        gtk_widget_add_css_class(root, "broken")
        gtk_image_set_from_icon_name(status.opaque, problem.icon)
        gtk_widget_set_visible(status, 1)
        gtk_label_set_text(self.problem.opaque, problem.title)
        gtk_widget_set_visible(self.problem, 1)
    }

    private func showNumber(_ number: Int?) {
        if let number {
            gtk_label_set_text(badge.opaque, String(number))
            gtk_widget_set_visible(badge, 1)
            gtk_widget_add_css_class(root, "picked")
        } else {
            gtk_widget_set_visible(badge, 0)
            gtk_widget_remove_css_class(root, "picked")
        }
    }

    /// What a screen reader says, and the tooltip: "IMG_1234.jpg, Photo, 12 March 2024, picked 2
    /// of 3". The name first: it tells two shots of one moment apart, and finds IMG_1234.
    func accessibleName(for asset: Asset, number: Int?) -> String {
        // Parts joined by commas; each is a message of its own.
        var parts = [asset.displayName, asset.kind == .video ? i18n("Video") : i18n("Photo")]
        if let problem = picker?.unshowable[asset.id] { parts += [problem.title.lowercased(), i18n("cannot be picked")] }
        parts.append(asset.captureDate.spokenDate)
        if let duration = asset.duration, asset.kind == .video { parts.append(formatDuration(duration)) }
        if asset.isFavorite { parts.append(i18n("favourite")) }
        if let number, let picker {
            parts.append(i18n("picked {number} of {count}", ["number": String(number), "count": String(picker.selection.count)]))
        }
        return parts.joined(separator: i18n(", "))
    }
}
