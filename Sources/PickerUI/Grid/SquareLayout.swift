// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport

/// Keeps grid cells square. GtkGridView gives each column the grid's width divided by the
/// number of columns, which is wider than the requested cell; with a fixed size request the cell
/// would be that wide but only as tall as requested (177x120 in a 380 px window). A box whose
/// layout is height-for-width answers "as tall as I am wide" instead.
@MainActor
enum SquareLayout {
    private static let sideKey = "photopick-square-side"

    /// A box whose one child fills it, measured as a square of the side set with `setSide`
    /// (its natural width) and as tall as the width it is given.
    static func makeContainer() -> UnsafeMutablePointer<GtkWidget> {
        let box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
        // GTK measures and allocates on its thread: both enter through assumeIsolated (a C
        // callback written in main-actor code gets no check on entry otherwise).
        let layout = gtk_custom_layout_new({ _ in GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH }, { widget, orientation, forSize, minimum, natural, minimumBaseline, naturalBaseline in
            MainActor.assumeIsolated {
                let side = Int32(Int(bitPattern: g_object_get_data(widget?.cast(GObject.self), SquareLayout.sideKey)))
                if orientation == GTK_ORIENTATION_VERTICAL && forSize > 0 {
                    minimum?.pointee = forSize
                    natural?.pointee = forSize
                } else {
                    // Narrower than the chosen side is allowed (a narrow window keeps one column of
                    // smaller squares); the natural width is the chosen side.
                    minimum?.pointee = min(side, 48)
                    natural?.pointee = side
                }
                minimumBaseline?.pointee = -1
                naturalBaseline?.pointee = -1
            }
        }, { widget, width, height, _ in
            MainActor.assumeIsolated {
                var child = gtk_widget_get_first_child(widget)
                while let current = child {
                    var allocation = GtkAllocation(x: 0, y: 0, width: width, height: height)
                    gtk_widget_size_allocate(current, &allocation, -1)
                    child = gtk_widget_get_next_sibling(current)
                }
            }
        })
        gtk_widget_set_layout_manager(box, layout)
        return box
    }

    /// The side the square asks for when nothing constrains it.
    static func setSide(_ side: Int, of widget: UnsafeMutablePointer<GtkWidget>) {
        g_object_set_data(widget.cast(GObject.self), sideKey, UnsafeMutableRawPointer(bitPattern: max(1, side)))
        gtk_widget_queue_resize(widget)
    }
}
