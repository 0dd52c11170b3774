import CGtk
import GObjectSupport
import Foundation
import PhotoLibrary
import PickerModel
import Thumbnails

/// Picking, confirming, and what the picker says (toasts, problems).
extension PickerView {

    func noteUnshowable(_ id: Int64, _ problem: CellProblem) {
        unshowable[id] = problem
    }

    func forgetUnshowable(_ id: Int64) {
        unshowable[id] = nil
    }

    func toggle(at position: Int) {
        // The camera slot takes a photo instead.
        if position == 0 && model.showsCamera {
            openCapture()
            return
        }
        guard let id = model.assetID(at: position) else { return }
        if selection.number(of: id) == nil, let problem = unshowable[id] {
            cells.compactMap(\.cell).first { $0.assetID == id }?.shake()
            showToast("\(problem.explanation), so it cannot be picked")
            gtk_widget_error_bell(grid)
            return
        }
        if selection.toggle(id) == .refusedAtMaximum {
            cells.compactMap(\.cell).first { $0.assetID == id }?.shake()
            showToast("You can pick up to \(selection.maximum ?? 0)")
            gtk_widget_error_bell(grid)
        }
    }

    /// Picks the asset at `position` (unless it is) and confirms it: Enter in a single-choice picker.
    func choose(at position: Int) {
        guard let id = model.assetID(at: position), !(position == 0 && model.showsCamera) else {
            toggle(at: position)
            return
        }
        if selection.number(of: id) == nil { toggle(at: position) }
        if selection.picked == [id] { confirm() }
    }

    /// The grid position of the focused cell.
    var focusedPosition: Int? {
        guard let focused = gtk_widget_get_focus_child(grid), let child = gtk_widget_get_first_child(focused),
              let cell = attached(GridCell.self, on: child.raw, key: GridCell.key), let item = cell.listItem else { return nil }
        return Int(gtk_list_item_get_position(item))
    }

    public func confirm() {
        guard selection.count > 0 else { return }
        let assets = controller.assets(selection.picked)
        onConfirm?(assets)
    }

    func updateConfirmButton() {
        let count = selection.count
        var text = count > 0 ? "\(confirmLabel) \(count)" : confirmLabel
        if let maximum = selection.maximum, count >= maximum { text = "\(confirmLabel) \(count) of \(maximum)" }
        gtk_button_set_label(confirmButton.cast(), text)
        gtk_widget_set_sensitive(confirmButton, count > 0 ? 1 : 0)
    }

    /// A problem the person could act on (a full disk, an index that could not be written, new
    /// files that will not show up): said once over the grid until dismissed, and on standard
    /// error for whoever started the picker from a terminal.
    /// Videos show a film icon when no video thumbnailer is installed: the person is told once,
    /// with what to install.
    func noteNoVideoThumbnailer() {
        guard !toldNoVideoThumbnailer else { return }
        toldNoVideoThumbnailer = true
        report("Videos show a film icon: no video thumbnailer is installed (install ffmpegthumbnailer)")
    }

    public func report(_ problem: String, printing: Bool = true) {
        reported.append(problem)
        if printing { FileHandle.standardError.write(Data("photopick: \(problem)\n".utf8)) }
        guard isAlive else { return }
        let toast = adw_toast_new(problem)!
        adw_toast_set_timeout(toast, 0)
        adw_toast_set_priority(toast, ADW_TOAST_PRIORITY_HIGH)
        adw_toast_overlay_add_toast(toasts.opaque, toast)
    }

    /// A short message over the grid that goes by itself.
    func showToast(_ text: String) {
        let toast = adw_toast_new(text)!
        adw_toast_set_timeout(toast, 2)
        adw_toast_overlay_add_toast(toasts.opaque, toast)
    }
}
