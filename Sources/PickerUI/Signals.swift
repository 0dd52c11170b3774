import CGtk
import GObjectSupport

// The GTK signal signatures the picker connects, on top of GObjectSupport's `Signal` (which holds
// the closure machinery and GLib's signatures): one non-capturing C thunk per signature.

extension Signal {
    /// `void (*)(GtkGestureClick *, int n_press, double x, double y, gpointer)`.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, presses handler: @escaping (Int) -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, Double, Double, UnsafeMutableRawPointer?) -> Void = { _, presses, _, _, data in
            (Signal.handler(data) as (Int) -> Void)(Int(presses))
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `gboolean (*)(GtkWidget *, int x, int y, gboolean keyboard, GtkTooltip *, gpointer)`:
    /// query-tooltip.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, tooltip handler: @escaping (OpaquePointer) -> Bool) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, gboolean, OpaquePointer?, UnsafeMutableRawPointer?) -> gboolean = { _, _, _, _, tooltip, data in
            guard let tooltip else { return 0 }
            return (Signal.handler(data) as (OpaquePointer) -> Bool)(tooltip) ? 1 : 0
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `GdkContentProvider *(*)(GtkDragSource *, double x, double y, gpointer)`: a drag's prepare.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, prepare handler: @escaping () -> UnsafeMutableRawPointer?) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Double, Double, UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { _, _, _, data in
            (Signal.handler(data) as () -> UnsafeMutableRawPointer?)()
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `gboolean (*)(GtkDropTarget *, const GValue *, double x, double y, gpointer)`: a drop.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, drop handler: @escaping (UnsafePointer<GValue>) -> Bool) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<GValue>?, Double, Double, UnsafeMutableRawPointer?) -> gboolean = { _, value, _, _, data in
            (Signal.handler(data) as (UnsafePointer<GValue>) -> Bool)(value!) ? 1 : 0
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `gboolean (*)(GtkEventControllerScroll *, double dx, double dy, gpointer)`.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, delta handler: @escaping (Double) -> Bool) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Double, Double, UnsafeMutableRawPointer?) -> gboolean = { _, _, dy, data in
            (Signal.handler(data) as (Double) -> Bool)(dy) ? 1 : 0
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `gboolean (*)(GtkEventControllerKey *, guint keyval, guint keycode, GdkModifierType, gpointer)`.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String,
                        key handler: @escaping (_ keyval: UInt32, _ modifiers: UInt32) -> Bool) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean = { _, keyval, _, state, data in
            (Signal.handler(data) as (UInt32, UInt32) -> Bool)(keyval, state.rawValue) ? 1 : 0
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }
}

/// Adds CSS classes to a widget.
func style(_ widget: UnsafeMutablePointer<GtkWidget>, _ classes: String...) {
    for name in classes { gtk_widget_add_css_class(widget, name) }
}

/// Places `widget` over `overlay`'s child at one of its corners or edges (FILL covers it all).
/// Decorations (badges, rings, captions) let clicks through to the photo unless `targetable`.
func place(_ widget: UnsafeMutablePointer<GtkWidget>, over overlay: UnsafeMutablePointer<GtkWidget>,
           _ horizontal: GtkAlign = GTK_ALIGN_FILL, _ vertical: GtkAlign = GTK_ALIGN_FILL, targetable: Bool = false) {
    gtk_widget_set_halign(widget, horizontal)
    gtk_widget_set_valign(widget, vertical)
    if !targetable { gtk_widget_set_can_target(widget, 0) }
    gtk_overlay_add_overlay(overlay.opaque, widget)
}
