import CGtk
import PickerModel
import PhotoLibrary
import Thumbnails

/// One grid cell: the thumbnail filling a rounded square, a ring and a numbered badge when
/// picked, the duration on videos, a heart on favourites, a broken-image icon for files that
/// failed. Binding requests the thumbnail and subscribes to the selection for this asset only;
/// unbinding cancels both, so a recycled cell never shows another photo's result.
final class GridCell {
    static let key = "photopick-cell"

    let root: UnsafeMutablePointer<GtkWidget>
    private let picture: UnsafeMutablePointer<GtkWidget>
    private let badge: UnsafeMutablePointer<GtkWidget>
    private let duration: UnsafeMutablePointer<GtkWidget>
    private let heart: UnsafeMutablePointer<GtkWidget>
    private let status: UnsafeMutablePointer<GtkWidget>
    private unowned let picker: PickerView

    /// The list item this cell is the child of (set at setup, for positions).
    var listItem: OpaquePointer?
    private(set) var assetID: Int64?
    private var request: ThumbnailRequest?
    private var observation: SelectionStore.Observation?

    /// Binds so far, and badge updates caused by selection changes: the benchmark and tests
    /// read these.
    nonisolated(unsafe) static var binds = 0
    nonisolated(unsafe) static var badgeUpdates = 0
    /// Bound cells still waiting for their first picture.
    nonisolated(unsafe) static var waiting = 0
    /// Seconds spent in bind, for the benchmark's split of frame time between GTK and us.
    nonisolated(unsafe) static var bindSeconds = 0.0
    private var isWaiting = false {
        didSet { if isWaiting != oldValue { GridCell.waiting += isWaiting ? 1 : -1 } }
    }

    init(picker: PickerView) {
        self.picker = picker
        root = gtk_overlay_new()
        style(root, "cell")
        picture = gtk_picture_new()
        gtk_picture_set_content_fit(picture.opaque, GTK_CONTENT_FIT_COVER)
        gtk_picture_set_can_shrink(picture.opaque, 1)
        style(picture, "thumbnail")
        gtk_overlay_set_child(root.opaque, picture)

        status = gtk_image_new()
        style(status, "status-icon")
        gtk_widget_set_halign(status, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(status, GTK_ALIGN_CENTER)
        gtk_image_set_pixel_size(status.opaque, 32)
        gtk_overlay_add_overlay(root.opaque, status)

        badge = gtk_label_new(nil)
        style(badge, "pick-badge")
        gtk_widget_set_halign(badge, GTK_ALIGN_END)
        gtk_widget_set_valign(badge, GTK_ALIGN_START)
        gtk_overlay_add_overlay(root.opaque, badge)

        duration = gtk_label_new(nil)
        style(duration, "duration")
        gtk_widget_set_halign(duration, GTK_ALIGN_END)
        gtk_widget_set_valign(duration, GTK_ALIGN_END)
        gtk_overlay_add_overlay(root.opaque, duration)

        heart = gtk_image_new_from_icon_name("emblem-favorite-symbolic")
        style(heart, "favorite")
        gtk_widget_set_halign(heart, GTK_ALIGN_START)
        gtk_widget_set_valign(heart, GTK_ALIGN_END)
        gtk_overlay_add_overlay(root.opaque, heart)
        resize(to: picker.cellSize)
        // One click picks or unpicks; a double click undoes that and opens the preview.
        let click = gtk_gesture_click_new()!
        Signal.connect(click.raw, "pressed", presses: { [unowned self] presses in
            guard let listItem = self.listItem else { return }
            let position = Int(gtk_list_item_get_position(listItem))
            if presses == 1 {
                self.picker.toggle(at: position)
            } else if presses == 2 {
                self.picker.toggle(at: position)
                self.picker.openPreview(at: position)
            }
        })
        gtk_widget_add_controller(root, OpaquePointer(click.raw))
    }

    func resize(to size: Int) {
        gtk_widget_set_size_request(root, Int32(size), Int32(size))
    }

    // MARK: Binding

    func bind(item: UnsafeMutableRawPointer?) {
        GridCell.binds += 1
        let started = monotonicSeconds()
        defer { GridCell.bindSeconds += monotonicSeconds() - started }
        clear()
        if AssetItem.isCamera(item) {
            bindCamera()
            return
        }
        guard let id = AssetItem.assetID(of: item), let asset = try? picker.library.asset(id: id) else {
            show(status: "image-missing-symbolic", tooltip: "This file is no longer in the library")
            return
        }
        assetID = id
        gtk_widget_set_visible(heart, asset.isFavorite ? 1 : 0)
        if let seconds = asset.duration, asset.kind == .video {
            gtk_label_set_text(duration.opaque, formatDuration(seconds))
            gtk_widget_set_visible(duration, 1)
        }
        describe(accessibleName(for: asset, number: picker.selection.number(of: id)))
        showNumber(picker.selection.number(of: id))
        observation = picker.selection.observe(id) { [weak self] number in
            guard let self, let asset = try? self.picker.library.asset(id: id) else { return }
            GridCell.badgeUpdates += 1
            self.showNumber(number)
            self.describe(self.accessibleName(for: asset, number: number))
        }
        isWaiting = true
        request = picker.loader.request(asset.path, flavor: picker.flavor, cellPixels: picker.cellSize * picker.scale) { [weak self] result in
            guard let self, self.assetID == id else { return }
            self.isWaiting = false
            switch result {
            case .success(let thumbnail):
                if let pixbuf = thumbnail.pixbuf {
                    self.setPicture(pixbuf)
                } else {
                    self.show(status: "video-x-generic-symbolic", tooltip: nil)
                }
            case .failure(let failure):
                self.show(status: "image-missing-symbolic", tooltip: "Cannot show this file: \(failure)")
            }
        }
    }

    func unbind() {
        clear()
    }

    /// Says the cell's name again (the number of picks changed: "picked 2 of 4").
    func refreshDescription() {
        guard let id = assetID, let asset = try? picker.library.asset(id: id) else { return }
        describe(accessibleName(for: asset, number: picker.selection.number(of: id)))
    }

    /// Shakes the cell briefly: the maximum is reached and this pick was refused.
    func shake() {
        gtk_widget_add_css_class(root, "refused")
        let root = Unmanaged.passRetained(RootBox(root)).toOpaque()
        g_timeout_add(450, { data in
            let box = Unmanaged<RootBox>.fromOpaque(data!).takeRetainedValue()
            gtk_widget_remove_css_class(box.widget, "refused")
            return 0
        }, root)
    }

    private final class RootBox {
        let widget: UnsafeMutablePointer<GtkWidget>
        init(_ widget: UnsafeMutablePointer<GtkWidget>) {
            self.widget = widget
            g_object_ref(widget.raw)
        }
        deinit { g_object_unref(widget.raw) }
    }

    /// Binds again to the same item (the thumbnail size changed).
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
        gtk_picture_set_paintable(picture.opaque, nil)
        gtk_widget_set_visible(status, 0)
        gtk_widget_set_visible(duration, 0)
        gtk_widget_set_visible(heart, 0)
        gtk_widget_remove_css_class(root, "camera")
        showNumber(nil)
    }

    private func bindCamera() {
        gtk_widget_add_css_class(root, "camera")
        show(status: "camera-photo-symbolic", tooltip: "Camera (coming soon)")
        describe("Camera")
    }

    /// The name a screen reader says for the cell, also shown as its tooltip.
    private func describe(_ name: String) {
        gtk_widget_set_tooltip_text(root, name)
        photopick_accessible_set_label(root, name)
    }

    private func setPicture(_ pixbuf: Pixbuf) {
        // GdkPixbuf and GdkTexture are the same C types in both modules: pass the pointer across.
        guard let texture = gdk_texture_new_for_pixbuf(pixbuf.pointer) else { return }
        gtk_picture_set_paintable(picture.opaque, texture)
        g_object_unref(UnsafeMutableRawPointer(texture))
    }

    private func show(status icon: String, tooltip: String?) {
        gtk_image_set_from_icon_name(status.opaque, icon)
        gtk_widget_set_visible(status, 1)
        if let tooltip { gtk_widget_set_tooltip_text(root, tooltip) }
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

    /// What a screen reader says: "Photo, 12 March 2024, picked 2 of 3".
    func accessibleName(for asset: Asset, number: Int?) -> String {
        var name = asset.kind == .video ? "Video" : "Photo"
        name += ", " + asset.captureDate.spokenDate
        if let duration = asset.duration, asset.kind == .video { name += ", " + formatDuration(duration) }
        if asset.isFavorite { name += ", favourite" }
        if let number { name += ", picked \(number) of \(picker.selection.count)" }
        return name
    }
}
