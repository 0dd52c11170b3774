// SPDX-License-Identifier: LGPL-2.1-or-later
import Camera
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel

/// The camera: its cell opens the capture view, whose shutter saves a photo that then appears
/// first in the grid, picked.
extension Picker {
    func setUpCamera() {
        captureView.onClose = { [weak self] in self?.closeCapture() }
        captureView.onShutter = { [weak self] in self?.takePhoto() }
        // (A capture shown in the grid, or saved but not picked: the controller's events.)
        // No streaming for a window that is not shown.
        Signal.connect(body.raw, "map") { [weak self] in self?.controller?.camera?.setWindowShown(true) }
        Signal.connect(body.raw, "unmap") { [weak self] in self?.controller?.camera?.setWindowShown(false) }
    }

    /// Opens the capture view (a click on the camera cell, or Enter or Space on it).
    func openCapture() {
        guard let camera = controller.camera, !captureView.isVisible else { return }
        if preview.isVisible { closePreview() }
        installPreviewKeys()
        let width = Int(gtk_widget_get_width(widget)) * photoGrid.scale, height = Int(gtk_widget_get_height(widget)) * photoGrid.scale
        captureView.show(camera, width: max(width, 320), height: max(height, 240))
        // The grid behind the opaque view is neither drawn nor reachable by Tab. (Drawn, it made
        // GTK 4.8's cairo renderer spend seconds a frame in its shadow blur while frames came in.)
        photoGrid.setHidden(true)
        // The shutter is insensitive until the first frame: the view itself holds the focus
        // meanwhile (never the grid behind it, where Space would mean something else).
        if gtk_widget_grab_focus(captureView.shutter) == 0 { gtk_widget_grab_focus(captureView.widget) }
    }

    /// Back to the grid, with the focus on the camera cell where it was.
    func closeCapture() {
        guard captureView.isVisible else { return }
        captureView.hide()
        photoGrid.setHidden(false)
        let cameraCell = cells.compactMap(\.cell).first { $0.isCamera }
        if let cameraCell, let item = gtk_widget_get_parent(cameraCell.root), gtk_widget_grab_focus(item) != 0 { return }
        gtk_widget_grab_focus(grid)
    }

    private func setGridHidden(_ hidden: Bool) {
        gtk_widget_set_opacity(scroller, hidden ? 0 : 1)
        gtk_widget_set_can_focus(scroller, hidden ? 0 : 1)
        gtk_widget_set_can_target(scroller, hidden ? 0 : 1)
    }

    func captureKey(_ keyval: UInt32, _ modifiers: UInt32) -> Bool {
        switch Int32(keyval) {
        case GDK_KEY_Escape:
            closeCapture()
        case GDK_KEY_space:
            // Space on Back or the camera switcher is theirs; anywhere else it is the shutter.
            if let root = gtk_widget_get_root(widget), let focus = gtk_root_get_focus(root),
               captureView.ownsOtherControl(focus) { return false }
            takePhoto()
        case GDK_KEY_Return, GDK_KEY_KP_Enter:
            if modifiers & GDK_CONTROL_MASK.rawValue != 0 { confirm(); return true }
            return false
        default:
            return false
        }
        return true
    }

    /// Saves the newest frame; the photo then appears first in the grid and is picked.
    func takePhoto() {
        guard let camera = controller.camera, captureView.isVisible else { return }
        captureView.flash()
        camera.capture(into: captureFolder) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let path):
                self.lastCapture = path
                self.closeCapture()
                self.controller?.adoptCapture(path)
            case .failure(let failure):
                self.showToast(failure.explanation)
                gtk_widget_error_bell(self.grid)
            }
        }
    }
}
