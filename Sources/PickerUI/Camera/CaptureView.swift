// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import Camera
import CGtk
import GObjectSupport
import GTKSupport
import PickerModel

/// Taking a photo: the live camera large over the grid, a round shutter button (Space), Back
/// (Escape), and a switcher when there is more than one camera. What the camera cannot do is
/// said in words where the picture would be.
///
/// A widget of its own type, `PhotopickCaptureView` (CSS node `photopick-capture`, style class
/// `.capture`), laid out as an overlay; the widget owns this object.
@MainActor
final class CaptureView: LaidOutAsOverlay, SwiftWidget {
    static let widgetType = WidgetType("PhotopickCaptureView", cssName: "photopick-capture", sizing: true)

    let widget: UnsafeMutablePointer<GtkWidget>
    let shutter: UnsafeMutablePointer<GtkWidget>
    let backButton: UnsafeMutablePointer<GtkWidget>
    private let picture: UnsafeMutablePointer<GtkWidget>
    private let message: UnsafeMutablePointer<GtkWidget>
    /// The camera switcher, made when a second camera is there: a drop-down (its template, its
    /// popover) was half of this view's making, in the host's turn that made the picker (issue 38,
    /// point 6).
    private var switcher: UnsafeMutablePointer<GtkWidget>?
    private let cameraNames: OpaquePointer
    private let cameraNamesReference: GObjectRef
    private var observation: Subscription?
    private var viewing: Int?
    private weak var camera: CameraStore?
    private var listedCameras: [CameraInfo] = []
    private var updatingSwitcher = false
    private let flashEnd = MainLoopSource()

    var onClose: (() -> Void)?
    var onShutter: (() -> Void)?

    var isVisible: Bool { gtk_widget_get_visible(widget) != 0 }
    /// Frames shown since it opened (tests).
    private(set) var framesShown = 0

    init() {
        widget = Self.widgetType.make()
        style(widget, "capture")
        gtk_widget_set_visible(widget, 0)
        gtk_widget_set_focusable(widget, 1)
        picture = gtk_picture_new()
        gtk_picture_set_content_fit(picture.opaque, GTK_CONTENT_FIT_CONTAIN)
        gtk_picture_set_can_shrink(picture.opaque, 1)
        style(picture, "camera-preview")
        gtk_widget_set_parent(picture, widget)

        // A white veil that blinks when a photo is taken.
        let veil = gtk_label_new(nil)!
        style(veil, "capture-flash")
        place(veil, over: widget)

        message = gtk_label_new(nil)
        style(message, "capture-message")
        gtk_label_set_wrap(message.opaque, 1)
        gtk_label_set_justify(message.opaque, GTK_JUSTIFY_CENTER)
        gtk_widget_set_visible(message, 0)
        place(message, over: widget, GTK_ALIGN_CENTER, GTK_ALIGN_CENTER, targetable: true)

        shutter = gtk_button_new_from_icon_name("camera-photo-symbolic")
        style(shutter, "shutter", "circular")
        setTooltip(shutter, i18n("Take a photo (Space)"))
        photopick_accessible_set_label(shutter, i18n("Take a photo"))
        place(shutter, over: widget, GTK_ALIGN_CENTER, GTK_ALIGN_END, targetable: true)

        backButton = gtk_button_new_from_icon_name("go-previous-symbolic")
        style(backButton, "osd", "circular", "capture-back")
        setTooltip(backButton, i18n("Back to the grid (Escape)"))
        photopick_accessible_set_label(backButton, i18n("Back to the grid"))
        place(backButton, over: widget, GTK_ALIGN_START, GTK_ALIGN_START, targetable: true)

        cameraNames = gtk_string_list_new(nil)
        cameraNamesReference = GObjectRef(cameraNames, transfer: .full)

        Signal.connect(shutter.raw, "clicked") { [weak self] in self?.onShutter?() }
        Signal.connect(backButton.raw, "clicked") { [weak self] in self?.onClose?() }
        Self.widgetType.adopt(self, by: widget)
    }

    private func makeSwitcher() -> UnsafeMutablePointer<GtkWidget> {
        // (The drop-down takes the reference it is given: one of its own, beside this view's.)
        g_object_ref(UnsafeMutableRawPointer(cameraNames))
        let switcher = gtk_drop_down_new(OpaquePointer(UnsafeMutableRawPointer(cameraNames)), nil)!
        style(switcher, "capture-switcher")
        setTooltip(switcher, i18n("Camera"))
        photopick_accessible_set_label(switcher, i18n("Camera"))
        place(switcher, over: widget, GTK_ALIGN_END, GTK_ALIGN_START, targetable: true)
        Signal.connect(switcher.raw, "notify::selected", object: { [weak self] _ in self?.switcherChanged() })
        self.switcher = switcher
        return switcher
    }

    /// The camera stops streaming to a view that went.
    func widgetDisposed() {
        observation?.cancel()
        observation = nil
        if let viewing { camera?.endViewing(viewing) }
        viewing = nil
    }

    /// Whether `widget` is Back or the camera switcher (or inside them): Space there is theirs.
    func ownsOtherControl(_ focus: UnsafeMutablePointer<GtkWidget>) -> Bool {
        [backButton, switcher].compactMap { $0 }.contains { focus == $0 || gtk_widget_is_ancestor(focus, $0) != 0 }
    }

    /// Opens on `camera`, streaming at `width`x`height` pixels (the view's size).
    func show(_ camera: CameraStore, width: Int, height: Int) {
        self.camera = camera
        framesShown = 0
        gtk_widget_set_visible(widget, 1)
        observation = camera.observe { [weak self] event in
            switch event {
            case .status(let status): self?.showStatus(status)
            case .frame(let frame): self?.showFrame(frame)
            case .cameras: self?.updateSwitcher()
            }
        }
        updateSwitcher()
        showStatus(camera.status)
        if case .live = camera.status, let frame = camera.latestFrame { showFrame(frame) }
        viewing = camera.beginViewing(.preview(width: width, height: height))
    }

    func hide() {
        observation?.cancel()
        observation = nil
        if let viewing { camera?.endViewing(viewing) }
        viewing = nil
        gtk_picture_set_paintable(picture.opaque, nil)
        live.clear()
        gtk_widget_set_visible(widget, 0)
    }

    /// A short white flash: the photo was taken.
    func flash() {
        gtk_widget_add_css_class(widget, "flash")
        flashEnd.schedule(after: 180, priority: G_PRIORITY_DEFAULT) { [weak self] in
            if let self { gtk_widget_remove_css_class(self.widget, "flash") }
        }
    }

    private func showStatus(_ status: CameraStore.Status) {
        var text: String?
        switch status {
        case .searching, .idle, .starting: text = i18n("Starting the camera…")
        case .live: text = nil
        case .absent: text = CameraFailure.noCamera.title + "\n" + CameraFailure.noCamera.explanation
        case .failed(let failure): text = failure.title + "\n" + failure.explanation
        }
        if let text {
            gtk_picture_set_paintable(picture.opaque, nil)
            live.clear()
            gtk_label_set_text(message.opaque, text)
        }
        gtk_widget_set_visible(message, text == nil ? 0 : 1)
        var live = false
        if case .live = status { live = true }
        gtk_widget_set_sensitive(shutter, live ? 1 : 0)
    }

    private func showFrame(_ frame: Frame) {
        guard live.show(frame) else { return }
        if gtk_picture_get_paintable(picture.opaque) != live.paintable { gtk_picture_set_paintable(picture.opaque, live.paintable) }
        gtk_widget_set_visible(message, 0)
        framesShown += 1
    }

    /// The newest frame (see CameraPaintable).
    private let live = CameraPaintable()

    private func updateSwitcher() {
        guard let camera else { return }
        listedCameras = camera.cameras.filter { $0.problem == nil || $0 == camera.current }
        updatingSwitcher = true
        defer { updatingSwitcher = false }
        let old = Int(g_list_model_get_n_items(cameraNames))
        let names = listedCameras.map(\.name)
        names.withCStringArray { array in
            gtk_string_list_splice(cameraNames, 0, guint(old), array)
        }
        guard let switcher = switcher ?? (listedCameras.count > 1 ? makeSwitcher() : nil) else { return }
        if let current = camera.current, let index = listedCameras.firstIndex(of: current) {
            gtk_drop_down_set_selected(switcher.opaque, guint(index))
        }
        gtk_widget_set_visible(switcher, listedCameras.count > 1 ? 1 : 0)
    }

    private func switcherChanged() {
        guard !updatingSwitcher, let camera, let switcher else { return }
        let index = Int(gtk_drop_down_get_selected(switcher.opaque))
        guard listedCameras.indices.contains(index) else { return }
        camera.switchCamera(to: listedCameras[index])
    }
}
