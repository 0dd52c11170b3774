// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GTKSupport

/// What the pointer carries while photos are dragged out of the grid: the photo itself, rounded
/// as its cell, and, when several picks go, a card behind it and their count in a badge, as
/// Files shows a drag of several files. GTK's own was a generic document (issue 40, point 20).
enum DragIcon {
    /// The longest side of the photo in the icon, in logical pixels.
    static let side: Float = 96

    /// A paintable of the icon (a new reference), and where the pointer holds it.
    @MainActor
    static func make(_ photo: OpaquePointer, count: Int, on widget: UnsafeMutablePointer<GtkWidget>) -> (paintable: OpaquePointer, hotX: Int32, hotY: Int32)? {
        let width = Float(gdk_paintable_get_intrinsic_width(photo)), height = Float(gdk_paintable_get_intrinsic_height(photo))
        guard width > 0, height > 0, let snapshot = gtk_snapshot_new() else { return nil }
        let scale = side / max(width, height)
        let size = (width: width * scale, height: height * scale)
        // Room for the card behind and the badge over the top right corner.
        let inset: Float = count > 1 ? 12 : 0
        if count > 1 {
            // The card behind: the same size, turned a little, in the window's card colour.
            gtk_snapshot_save(snapshot)
            var centre = graphene_point_t(x: inset + size.width / 2, y: inset + size.height / 2)
            gtk_snapshot_translate(snapshot, &centre)
            gtk_snapshot_rotate(snapshot, 6)
            var back = graphene_point_t(x: -size.width / 2 + 4, y: -size.height / 2 - 4)
            gtk_snapshot_translate(snapshot, &back)
            rounded(snapshot, width: size.width, height: size.height, radius: 8) {
                var card = GdkRGBA(red: 0.85, green: 0.85, blue: 0.87, alpha: 1)
                var area = graphene_rect_t(origin: graphene_point_t(x: 0, y: 0), size: graphene_size_t(width: size.width, height: size.height))
                gtk_snapshot_append_color(snapshot, &card, &area)
            }
            gtk_snapshot_restore(snapshot)
        }
        gtk_snapshot_save(snapshot)
        var origin = graphene_point_t(x: inset, y: inset)
        gtk_snapshot_translate(snapshot, &origin)
        rounded(snapshot, width: size.width, height: size.height, radius: 8) {
            gdk_paintable_snapshot(photo, snapshot, Double(size.width), Double(size.height))
        }
        gtk_snapshot_restore(snapshot)
        if count > 1 { badge(snapshot, count: count, at: (x: inset + size.width, y: inset), on: widget) }
        var total = graphene_size_t(width: inset * 2 + size.width, height: inset * 2 + size.height)
        guard let paintable = gtk_snapshot_to_paintable(snapshot, &total) else { return nil }
        return (paintable, Int32(inset + size.width / 2), Int32(inset + size.height / 2))
    }

    /// Draws `body` clipped to a rounded rectangle at the snapshot's origin.
    @MainActor
    private static func rounded(_ snapshot: OpaquePointer, width: Float, height: Float, radius: Float, _ body: () -> Void) {
        var bounds = graphene_rect_t(origin: graphene_point_t(x: 0, y: 0), size: graphene_size_t(width: width, height: height))
        var clip = GskRoundedRect()
        gsk_rounded_rect_init_from_rect(&clip, &bounds, radius)
        gtk_snapshot_push_rounded_clip(snapshot, &clip)
        body()
        gtk_snapshot_pop(snapshot)
    }

    /// The count in a round badge of the accent blue, centred on `at`.
    @MainActor
    private static func badge(_ snapshot: OpaquePointer, count: Int, at centre: (x: Float, y: Float),
                              on widget: UnsafeMutablePointer<GtkWidget>) {
        guard let layout = gtk_widget_create_pango_layout(widget, String(count)) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let bold = pango_attr_list_new()!
        pango_attr_list_insert(bold, pango_attr_weight_new(PANGO_WEIGHT_BOLD))
        pango_layout_set_attributes(layout, bold)
        pango_attr_list_unref(bold)
        var textWidth: Int32 = 0, textHeight: Int32 = 0
        pango_layout_get_pixel_size(layout, &textWidth, &textHeight)
        let height: Float = 24, width = max(height, Float(textWidth) + 12)
        gtk_snapshot_save(snapshot)
        var corner = graphene_point_t(x: centre.x - width / 2, y: centre.y - height / 2)
        gtk_snapshot_translate(snapshot, &corner)
        rounded(snapshot, width: width, height: height, radius: height / 2) {
            var accent = GdkRGBA(red: 0.21, green: 0.52, blue: 0.89, alpha: 1)  // libadwaita's accent blue
            var area = graphene_rect_t(origin: graphene_point_t(x: 0, y: 0), size: graphene_size_t(width: width, height: height))
            gtk_snapshot_append_color(snapshot, &accent, &area)
        }
        var text = graphene_point_t(x: (width - Float(textWidth)) / 2, y: (height - Float(textHeight)) / 2)
        gtk_snapshot_translate(snapshot, &text)
        var white = GdkRGBA(red: 1, green: 1, blue: 1, alpha: 1)
        gtk_snapshot_append_layout(snapshot, layout, &white)
        gtk_snapshot_restore(snapshot)
    }
}
