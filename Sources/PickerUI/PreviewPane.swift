import CGtk
import PickerModel
import PhotoLibrary
import Thumbnails

/// A large view of one photo over the grid: the picture fitted to the window, its number and a
/// pick toggle. Arrows go to the neighbours; Escape returns to the grid.
final class PreviewPane {
    let widget: UnsafeMutablePointer<GtkWidget>
    private let picture: UnsafeMutablePointer<GtkWidget>
    private let caption: UnsafeMutablePointer<GtkWidget>
    private let badge: UnsafeMutablePointer<GtkWidget>
    private let pickButton: UnsafeMutablePointer<GtkWidget>
    private var request: ThumbnailRequest?
    private var observation: SelectionStore.Observation?
    private(set) var position: Int?
    private(set) var assetID: Int64?
    private let back: UnsafeMutablePointer<GtkWidget>

    /// Whether a button of the preview has the keyboard focus (then Enter is the button's).
    var buttonHasFocus: Bool { gtk_widget_has_focus(back) != 0 }
    var onToggle: (() -> Void)?
    var onClose: (() -> Void)?

    var isVisible: Bool { gtk_widget_get_visible(widget) != 0 }

    init() {
        widget = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)
        style(widget, "preview")
        gtk_widget_set_visible(widget, 0)
        let bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        style(bar, "preview-bar")
        back = gtk_button_new_from_icon_name("go-previous-symbolic")!
        gtk_widget_set_tooltip_text(back, "Back to the grid (Escape)")
        caption = gtk_label_new(nil)
        gtk_widget_set_hexpand(caption, 1)
        gtk_label_set_xalign(caption.opaque, 0)
        badge = gtk_label_new(nil)
        style(badge, "pick-badge")
        pickButton = gtk_button_new_with_label("Pick")
        gtk_box_append(bar.cast(), back)
        gtk_box_append(bar.cast(), caption)
        gtk_box_append(bar.cast(), badge)
        gtk_box_append(bar.cast(), pickButton)
        picture = gtk_picture_new()
        gtk_picture_set_content_fit(picture.opaque, GTK_CONTENT_FIT_CONTAIN)
        gtk_picture_set_can_shrink(picture.opaque, 1)
        gtk_widget_set_vexpand(picture, 1)
        gtk_box_append(widget.cast(), bar)
        gtk_box_append(widget.cast(), picture)
        Signal.connect(back.raw, "clicked") { [weak self] in self?.onClose?() }
        Signal.connect(pickButton.raw, "clicked") { [weak self] in self?.onToggle?() }
    }

    /// Shows `asset` at grid `position`.
    func show(_ asset: Asset, at position: Int, selection: SelectionStore, loader: ThumbnailLoader, describe: (Asset, Int?) -> String) {
        self.position = position
        assetID = asset.id
        request?.cancel()
        gtk_picture_set_paintable(picture.opaque, nil)
        gtk_label_set_text(caption.opaque, describe(asset, selection.number(of: asset.id)))
        update(number: selection.number(of: asset.id))
        observation = selection.observe(asset.id) { [weak self] number in self?.update(number: number) }
        // The largest cached flavour: a preview fitted to the window, decoded off the main thread.
        request = loader.request(asset.path, flavor: .xxLarge) { [weak self] result in
            guard let self, case .success(let thumbnail) = result, let pixbuf = thumbnail.pixbuf,
                  let texture = gdk_texture_new_for_pixbuf(pixbuf.pointer) else { return }
            gtk_picture_set_paintable(self.picture.opaque, texture)
            g_object_unref(UnsafeMutableRawPointer(texture))
        }
        gtk_widget_set_visible(widget, 1)
        gtk_widget_grab_focus(pickButton)
    }

    /// Stops loading without touching widgets (they may be destroyed).
    func cancel() {
        request?.cancel()
        observation = nil
    }

    func hide() {
        request?.cancel()
        observation = nil
        position = nil
        assetID = nil
        gtk_widget_set_visible(widget, 0)
    }

    private func update(number: Int?) {
        gtk_label_set_text(badge.opaque, number.map(String.init) ?? "")
        gtk_widget_set_visible(badge, number == nil ? 0 : 1)
        gtk_button_set_label(pickButton.cast(), number == nil ? "Pick" : "Unpick")
    }
}
