import CGtk
import PhotoLibrary
import Thumbnails

/// The strip of picked photos under the grid, in pick order with their numbers; clicking one
/// unpicks it. It slides in with the first pick and out with the last.
final class PickedStrip {
    let widget: UnsafeMutablePointer<GtkWidget>
    private let row: UnsafeMutablePointer<GtkWidget>
    private var requests: [ThumbnailRequest] = []
    var onRemove: ((Int64) -> Void)?
    static let side: Int32 = 56

    init() {
        widget = gtk_revealer_new()
        gtk_revealer_set_transition_type(widget.opaque, GTK_REVEALER_TRANSITION_TYPE_SLIDE_UP)
        let scroller = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_policy(scroller.opaque, GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER)
        row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)
        style(row, "picked-strip")
        gtk_scrolled_window_set_child(scroller.opaque, row)
        gtk_revealer_set_child(widget.opaque, scroller)
    }

    func show(_ picked: [Int64], library: PhotoLibrary, loader: ThumbnailLoader) {
        requests.forEach { $0.cancel() }
        requests.removeAll()
        while let child = gtk_widget_get_first_child(row) { gtk_box_remove(row.cast(), child) }
        for (index, id) in picked.enumerated() {
            guard let asset = try? library.asset(id: id) else { continue }
            let button = gtk_button_new()!
            style(button, "picked-item", "flat")
            gtk_widget_set_tooltip_text(button, "Unpick \(index + 1)")
            let overlay = gtk_overlay_new()!
            let picture = gtk_picture_new()!
            gtk_widget_set_size_request(picture, PickedStrip.side, PickedStrip.side)
            gtk_overlay_set_child(overlay.opaque, picture)
            let number = gtk_label_new(String(index + 1))!
            style(number, "pick-badge", "small")
            gtk_widget_set_halign(number, GTK_ALIGN_END)
            gtk_widget_set_valign(number, GTK_ALIGN_START)
            gtk_overlay_add_overlay(overlay.opaque, number)
            gtk_button_set_child(button.cast(), overlay)
            Signal.connect(button.raw, "clicked") { [weak self] in self?.onRemove?(id) }
            gtk_box_append(row.cast(), button)
            requests.append(loader.request(asset.path, flavor: .normal) { result in
                // A centred square of the thumbnail, so every item in the strip has the same size.
                guard case .success(let thumbnail) = result, let pixbuf = thumbnail.pixbuf?.centredSquare(side: Int(PickedStrip.side)),
                      let texture = gdk_texture_new_for_pixbuf(pixbuf.pointer) else { return }
                gtk_picture_set_paintable(picture.opaque, texture)
                g_object_unref(UnsafeMutableRawPointer(texture))
            })
        }
        gtk_revealer_set_reveal_child(widget.opaque, picked.isEmpty ? 0 : 1)
    }
}
