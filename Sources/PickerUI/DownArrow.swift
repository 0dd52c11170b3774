// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GTKSupport

/// The album button's arrow: the triangle of Adwaita's pan-down-symbolic, drawn in the text's
/// colour (issue 42). As an icon it was the one SVG of the first screen (Adwaita ships its "ui"
/// icons as SVG, which GTK prefers at 16 px): GTK loaded librsvg to draw it, 6.5 MB of the
/// window's 135 MB on a warm start, for one triangle.
@MainActor
func makeDownArrow() -> UnsafeMutablePointer<GtkWidget> {
    let area = gtk_drawing_area_new()!
    // (Its size is the style's: 16 px, 12 px in the header's compact button, as the icon was.)
    style(area, "pan-down-arrow")
    gtk_widget_set_valign(area, GTK_ALIGN_CENTER)
    gtk_drawing_area_set_draw_func(area.cast(), { area, cairo, width, height, _ in
        guard let area, let cairo else { return }
        var colour = GdkRGBA()
        gtk_style_context_get_color(gtk_widget_get_style_context(area.cast()), &colour)
        // (Adwaita's path in its 16 px box, scaled to the widget's square, centred.)
        let side = Double(min(width, height))
        cairo_translate(cairo, (Double(width) - side) / 2, (Double(height) - side) / 2)
        cairo_scale(cairo, side / 16, side / 16)
        cairo_move_to(cairo, 13.996, 5)
        cairo_line_to(cairo, 8, 11)
        cairo_line_to(cairo, 1.996, 5)
        cairo_close_path(cairo)
        cairo_set_source_rgba(cairo, Double(colour.red), Double(colour.green), Double(colour.blue), Double(colour.alpha))
        cairo_fill(cairo)
    }, nil, nil)
    return area
}
