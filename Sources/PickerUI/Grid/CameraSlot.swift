// SPDX-License-Identifier: LGPL-2.1-or-later
import Camera
import CGtk
import GObjectSupport
import GTKSupport
import PickerModel

/// The first cell while it is bound to the camera slot: the live camera, mirrored as webcams
/// are, cropped to fill; its state in words when it shows no picture. The stream runs while the
/// slot is bound and in sight (GtkGridView keeps cells bound well beyond the view).
@MainActor
final class CameraSlot {
    private unowned let cell: GridCell
    private weak var host: CellHost?
    private var subscription: Subscription?
    /// This cell's claim on the stream, while in sight.
    private var viewing: Int?
    /// Frames go into one paintable (made when the cell first shows the camera).
    private var paintable: CameraPaintable?
    private(set) var framesShown = 0

    init(cell: GridCell, host: CellHost) {
        self.cell = cell
        self.host = host
        gtk_widget_add_css_class(cell.root, "camera")
        guard let camera = host.camera else { return }
        subscription = camera.observe { [weak self] event in
            switch event {
            case .status(let status): self?.show(status)
            case .frame(let frame): self?.show(frame)
            case .cameras: break
            }
        }
        show(camera.status)
        if case .live = camera.status, let frame = camera.latestFrame { show(frame) }
        updateViewing()
    }

    /// The cell is bound to something else: the stream is let go.
    func end() {
        gtk_widget_remove_css_class(cell.root, "camera")
        paintable?.clear()
        subscription = nil
        if let viewing { host?.camera?.endViewing(viewing) }
        viewing = nil
    }

    /// Claims the stream while the slot is in sight, lets it go when scrolled away.
    func updateViewing() {
        guard let host, let camera = host.camera else { return }
        let wanted = host.cameraSlotInView
        if wanted, viewing == nil {
            viewing = camera.beginViewing(.preview(width: host.cellPixels, height: host.cellPixels))
        } else if !wanted, let viewing {
            camera.endViewing(viewing)
            self.viewing = nil
        }
    }

    private func show(_ status: CameraStore.Status) {
        cell.clearProblem()
        switch status {
        case .searching, .idle, .starting:
            // The icon until the first frame.
            clearPicture()
            cell.show(status: "camera-photo-symbolic")
            cell.describe(i18n("Camera, take a photo"))
        case .live:
            cell.describe(i18n("Camera, take a photo"))
        case .absent:
            clearPicture()
            show(CameraFailure.noCamera)
        case .failed(let failure):
            // Never a frozen frame: the picture goes, the words say why.
            clearPicture()
            show(failure)
        }
    }

    private func show(_ failure: CameraFailure) {
        cell.show(problem: failure.icon, title: failure.title)
        cell.describe(i18n("Camera: {problem}. {explanation}", ["problem": failure.title, "explanation": failure.explanation]))
    }

    private func show(_ frame: Frame) {
        let live = paintable ?? CameraPaintable()
        paintable = live
        guard live.show(frame, small: true) else { return }
        if gtk_picture_get_paintable(cell.picture.opaque) != live.paintable { gtk_picture_set_paintable(cell.picture.opaque, live.paintable) }
        cell.hideStatus()
        framesShown += 1
    }

    private func clearPicture() {
        gtk_picture_set_paintable(cell.picture.opaque, nil)
        paintable?.clear()
    }
}
