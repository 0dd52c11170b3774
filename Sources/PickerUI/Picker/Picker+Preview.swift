// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel
import Thumbnails

/// The large preview over the grid.
extension Picker {
    /// The preview's header buttons, for the host's header bar: Back (at the start) and the pick
    /// toggle (at the end). Hidden unless the preview shows; while it shows, `albumSwitcher`,
    /// `cancelButton` and `confirmButton` are hidden instead (Cancel must not be one click away
    /// from dropping every pick). A host packs all five and leaves their visibility to the picker.
    public var previewBackButton: UnsafeMutablePointer<GtkWidget> { preview.backButton }
    public var previewPickButton: UnsafeMutablePointer<GtkWidget> { preview.pickButton }

    /// Shows the photo at `position` large (P, Alt+Enter or a double click).
    func openPreview(at position: Int) {
        guard let id = model.assetID(at: position), let asset = controller.asset(id) else { return }
        preview.show(asset, file: controller.answerPath(of: asset), at: position, selection: selection, loader: loader) { [weak self] number in
            let kind = asset.kind == .video ? i18n("Video") : i18n("Photo")
            guard let number, let self else {
                return i18n("{name}, {kind}, {date}", ["name": asset.displayName, "kind": kind, "date": asset.captureDate.spokenDate])
            }
            return i18n("{name}, {kind}, {date}, picked {number} of {count}",
                        ["name": asset.displayName, "kind": kind, "date": asset.captureDate.spokenDate,
                         "number": String(number), "count": String(self.selection.count)])
        }
        showPreviewHeader(true)
        installPreviewKeys()
        // The pick toggle takes the focus (Enter on it picks); without a header, the pane does.
        if gtk_widget_grab_focus(preview.pickButton) == 0 { gtk_widget_grab_focus(preview.widget) }
    }

    /// Back to the grid, with the focus where it was.
    func closePreview() {
        preview.hide()
        showPreviewHeader(false)
        gtk_widget_grab_focus(grid)
    }

    func showPreviewHeader(_ shown: Bool) {
        for button in [albumSwitcher, confirmButton] { gtk_widget_set_visible(button, shown ? 0 : 1) }
        // (Cancel comes back only where the host has one: the app from the menu has none, and
        // showed it after a first preview, beside the window's close button: issue 40, point 16.)
        gtk_widget_set_visible(cancelButton, !shown && booleanProperty("show-cancel") ? 1 : 0)
        gtk_widget_set_visible(preview.backButton, shown ? 1 : 0)
        gtk_widget_set_visible(preview.pickButton, shown ? 1 : 0)
    }


    /// Picks or unpicks the previewed photo (by id: positions move while the index changes).
    func togglePreviewed() {
        guard let id = preview.assetID, let position = model.position(of: id) else { return }
        toggle(at: position)
    }

    func movePreview(by step: Int) {
        guard let id = preview.assetID, let position = model.position(of: id) else { return }
        var next = position + step
        while next >= 0 && next < model.count && model.assetID(at: next) == nil { next += step }
        if next >= 0 && next < model.count { openPreview(at: next) }
    }
}
