import CGtk
import PhotoLibrary
import Thumbnails

/// Rows of the album drop-down's list: the album's cover (its newest photo), name and count.
/// Covers are requested when a row is bound, that is when the list opens, not at start-up.
final class AlbumRowFactory {
    let factory: OpaquePointer
    private weak var picker: PickerView?

    deinit { g_object_unref(factory.raw) }

    init(picker: PickerView) {
        self.picker = picker
        factory = gtk_signal_list_item_factory_new()
        Signal.connect(factory.raw, "setup", object: { item in
            let row = AlbumRow()
            gtk_list_item_set_child(OpaquePointer(item), row.widget)
            attach(row, to: item, key: AlbumRow.key)
        })
        Signal.connect(factory.raw, "bind", object: { [weak self] item in
            let position = Int(gtk_list_item_get_position(OpaquePointer(item)))
            guard let picker = self?.picker, let row = attached(AlbumRow.self, on: item, key: AlbumRow.key),
                  let album = picker.album(at: position) else { return }
            row.bind(album, picker: picker)
        })
        Signal.connect(factory.raw, "unbind", object: { item in
            attached(AlbumRow.self, on: item, key: AlbumRow.key)?.unbind()
        })
    }
}

final class AlbumRow {
    static let key = "photopick-album-row"
    let widget: UnsafeMutablePointer<GtkWidget>
    private let cover: UnsafeMutablePointer<GtkWidget>
    private let name: UnsafeMutablePointer<GtkWidget>
    private let count: UnsafeMutablePointer<GtkWidget>
    private var request: ThumbnailRequest?

    init() {
        widget = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 10)
        style(widget, "album-row")
        cover = gtk_picture_new()
        gtk_widget_set_size_request(cover, 40, 40)
        style(cover, "album-cover")
        name = gtk_label_new(nil)
        gtk_label_set_xalign(name.opaque, 0)
        gtk_widget_set_hexpand(name, 1)
        gtk_label_set_ellipsize(name.opaque, PANGO_ELLIPSIZE_MIDDLE)
        gtk_label_set_width_chars(name.opaque, 18)
        gtk_label_set_max_width_chars(name.opaque, 32)
        count = gtk_label_new(nil)
        style(count, "dim-label", "numeric")
        gtk_box_append(widget.cast(), cover)
        gtk_box_append(widget.cast(), name)
        gtk_box_append(widget.cast(), count)
    }

    func bind(_ album: AlbumSummary, picker: PickerView) {
        gtk_label_set_text(name.opaque, album.name)
        gtk_label_set_text(count.opaque, groupedDigits(album.count))
        gtk_picture_set_paintable(cover.opaque, nil)
        guard let result = try? picker.library.fetchAssets(in: album.album), result.count > 0,
              let asset = try? picker.library.asset(id: result.id(at: 0)) else { return }
        request = picker.loader.request(asset.path, flavor: .normal) { [weak self] result in
            guard let self, case .success(let thumbnail) = result, let square = thumbnail.pixbuf?.centredSquare(side: 40),
                  let texture = gdk_texture_new_for_pixbuf(square.pointer) else { return }
            gtk_picture_set_paintable(self.cover.opaque, texture)
            g_object_unref(UnsafeMutableRawPointer(texture))
        }
    }

    func unbind() {
        request?.cancel()
        request = nil
    }
}
