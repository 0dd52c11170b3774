// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PickerModel

/// What a pick on another machine shows while its local copy is made: a ring that fills with the
/// fraction copied and a button in its middle that cancels (and unpicks), as a phone's gallery
/// shows a photo coming from the cloud; when the copy failed, a button that tries again, the
/// reason in its tooltip. Used by the grid's cells and the strip's items; passive like them: the
/// buttons activate the picker's `picker.cancel-fetch` and `picker.retry-fetch` actions with the
/// asset's id, and the holder calls `show` with the state its subscription hears.
@MainActor
final class FetchRing {
    /// Placed over the holder's picture, centred.
    let root: UnsafeMutablePointer<GtkWidget>
    /// "Not fetched" under the retry button (the cell's; the strip's items are too small).
    private let caption: UnsafeMutablePointer<GtkWidget>?
    private let area: UnsafeMutablePointer<GtkWidget>
    /// (None in the strip, whose item is itself a button: clicking it unpicks, and so cancels.)
    private let cancelButton: UnsafeMutablePointer<GtkWidget>?
    private let retryButton: UnsafeMutablePointer<GtkWidget>?
    /// The fraction the ring shows (drawn by `area`), and whether the copy failed (the whole ring
    /// in the error colour: the strip's items have no button to say it).
    private(set) var fraction = 0.0
    private var failed = false
    /// Waiting for its turn (three copies at a time): a dashed ring, no fill.
    private(set) var waiting = false

    /// - Parameters:
    ///   - side: the ring's diameter in points (the cell's 48, the strip's 28).
    ///   - captioned: says "Not fetched" under the retry button.
    ///   - withButtons: cancel and retry buttons in the middle.
    init(side: Int32, captioned: Bool, withButtons: Bool) {
        root = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4)
        style(root, "fetch-ring")
        gtk_widget_set_halign(root, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(root, GTK_ALIGN_CENTER)
        let ring = gtk_overlay_new()!
        gtk_widget_set_halign(ring, GTK_ALIGN_CENTER)
        gtk_box_append(root.cast(), ring)
        area = gtk_drawing_area_new()
        gtk_drawing_area_set_content_width(area.cast(), side)
        gtk_drawing_area_set_content_height(area.cast(), side)
        gtk_widget_set_can_target(area, 0)
        gtk_overlay_set_child(ring.opaque, area)
        caption = captioned ? gtk_label_new(i18n("Not fetched")) : nil
        if let caption {
            style(caption, "fetch-caption")
            gtk_widget_set_can_target(caption, 0)
            gtk_box_append(root.cast(), caption)
        }
        cancelButton = withButtons ? Self.button(icon: "window-close-symbolic", label: i18n("Stop fetching and unpick"), tooltip: i18n("Stop fetching and unpick"), action: "fetch.cancel") : nil
        retryButton = withButtons ? Self.button(icon: "view-refresh-symbolic", label: i18n("Fetch again"), tooltip: "", action: "fetch.retry") : nil
        if !withButtons { gtk_widget_set_can_target(root, 0) }
        for button in [cancelButton, retryButton].compactMap({ $0 }) {
            gtk_widget_set_halign(button, GTK_ALIGN_CENTER)
            gtk_widget_set_valign(button, GTK_ALIGN_CENTER)
            gtk_overlay_add_overlay(ring.opaque, button)
        }
        // The draw function holds the ring until the area goes (it lives as long as the holder's widget).
        gtk_drawing_area_set_draw_func(area.cast(), { area, cairo, width, height, data in
            guard let area, let cairo, let data else { return }
            MainActor.assumeIsolated {
                Unmanaged<FetchRing>.fromOpaque(data).takeUnretainedValue().draw(UnsafeMutableRawPointer(area).assumingMemoryBound(to: GtkWidget.self), cairo, width, height)
            }
        }, Unmanaged.passRetained(self).toOpaque(), { data in
            guard let data else { return }
            Unmanaged<FetchRing>.fromOpaque(data).release()
        })
        gtk_widget_set_visible(root, 0)
    }

    private static func button(icon: String, label: String, tooltip: String, action: String) -> UnsafeMutablePointer<GtkWidget> {
        let button = gtk_button_new_from_icon_name(icon)!
        style(button, "circular", "fetch-button")
        photopick_accessible_set_label(button, label)
        if !tooltip.isEmpty { gtk_widget_set_tooltip_text(button, tooltip) }
        // (A target of the action's type from the start: GTK warns of a button without one.)
        gtk_actionable_set_action_target_value(button.opaque, g_variant_new_int64(0))
        gtk_actionable_set_action_name(button.opaque, action)
        return button
    }

    var isShown: Bool { gtk_widget_get_visible(root) != 0 }

    /// Shows `state` for the asset `id` (nil, or a complete copy: nothing).
    func show(_ state: FetchStore.State?, of id: Int64) {
        waiting = state == .waiting
        switch state {
        case .waiting?:
            fraction = 0
            failed = false
        case .fetching(let value)?:
            fraction = value
            failed = false
        case .failed(let reason)?:
            fraction = 0
            failed = true
            if let retryButton { gtk_widget_set_tooltip_text(retryButton, i18n("Could not fetch it ({reason}): try again", ["reason": reason])) }
        case .fetched?, nil:
            gtk_widget_set_visible(root, 0)
            return
        }
        if let cancelButton, let retryButton {
            // The button of the moment, aimed at this asset (a recycled cell shows others).
            gtk_actionable_set_action_target_value((failed ? retryButton : cancelButton).opaque, g_variant_new_int64(gint64(id)))
            gtk_widget_set_visible(cancelButton, failed ? 0 : 1)
            gtk_widget_set_visible(retryButton, failed ? 1 : 0)
        }
        if failed { gtk_widget_add_css_class(root, "failed") } else { gtk_widget_remove_css_class(root, "failed") }
        if let caption { gtk_widget_set_visible(caption, failed ? 1 : 0) }
        gtk_widget_set_visible(root, 1)
        gtk_widget_queue_draw(area)
    }

    /// A dim disc with the track, and the copied part of the circle in the accent colour from the
    /// top, clockwise (the CSS colour of `.fetch-ring`).
    private func draw(_ area: UnsafeMutablePointer<GtkWidget>, _ cairo: OpaquePointer, _ width: Int32, _ height: Int32) {
        let side = Double(min(width, height)), line = max(3, side / 12)
        let centreX = Double(width) / 2, centreY = Double(height) / 2, radius = (side - line) / 2
        var colour = GdkRGBA()
        gtk_style_context_get_color(gtk_widget_get_style_context(area), &colour)
        cairo_set_source_rgba(cairo, 0, 0, 0, 0.55)
        cairo_arc(cairo, centreX, centreY, radius + line / 2, 0, 2 * .pi)
        cairo_fill(cairo)
        cairo_set_line_width(cairo, line)
        if failed {
            cairo_set_source_rgba(cairo, Double(colour.red), Double(colour.green), Double(colour.blue), 1)
        } else {
            cairo_set_source_rgba(cairo, 1, 1, 1, waiting ? 0.6 : 0.3)
        }
        if waiting {
            // Twelve short dashes round the track: in line, not yet begun.
            var dash = [2 * .pi * radius / 24]
            cairo_set_dash(cairo, &dash, 1, 0)
        }
        cairo_arc(cairo, centreX, centreY, radius, 0, 2 * .pi)
        cairo_stroke(cairo)
        cairo_set_dash(cairo, nil, 0, 0)
        guard fraction > 0, !failed else { return }
        cairo_set_line_cap(cairo, CAIRO_LINE_CAP_ROUND)
        cairo_set_source_rgba(cairo, Double(colour.red), Double(colour.green), Double(colour.blue), 1)
        cairo_arc(cairo, centreX, centreY, radius, -.pi / 2, -.pi / 2 + 2 * .pi * min(fraction, 1))
        cairo_stroke(cairo)
    }
}
