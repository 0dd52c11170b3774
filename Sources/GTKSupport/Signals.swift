// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport

// The GTK signal signatures the picker connects, on top of GObjectSupport's `Signal` (which holds
// the closure machinery and GLib's signatures): one non-capturing C thunk per signature. As there,
// handlers are main-actor closures, entered through `MainActor.assumeIsolated`; C pointers GTK
// hands a handler are not Sendable, and stay on this thread (assumeIsolated runs the closure now).
// C callbacks written inside main-actor code (the switcher's filter, header and tick functions, the
// shortcuts' action, SquareLayout's functions) compile as main-actor code, but nothing checks the
// thread on their entry: they too enter through assumeIsolated.

extension Signal {
    /// GSimpleAction's "activate", `void (*)(GSimpleAction *, GVariant *parameter, gpointer)`.
    /// (A name of its own: as an overload of `connect`, a trailing closure for another object's
    /// two-argument "activate" could pick it.)
    @discardableResult
    public static func connectAction(_ action: OpaquePointer, _ handler: @escaping @MainActor () -> Void) -> gulong {
        let signal = "activate", instance = UnsafeMutableRawPointer(action)
        let thunk: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, _, data in
            let handler: @MainActor () -> Void = Signal.handler(data)
            MainActor.assumeIsolated { handler() }
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `void (*)(GtkGestureClick *, int n_press, double x, double y, gpointer)`.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, presses handler: @escaping @MainActor (Int) -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, Double, Double, UnsafeMutableRawPointer?) -> Void = { _, presses, _, _, data in
            let handler: @MainActor (Int) -> Void = Signal.handler(data)
            MainActor.assumeIsolated { handler(Int(presses)) }
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// A gesture's "end", `void (*)(GtkGesture *, GdkEventSequence *, gpointer)` (the sequence
    /// is NULL for a mouse's). (A name of its own: as an overload of `connect`, the trailing
    /// closures of other signals picked it.)
    @discardableResult
    public static func connectEnd(_ gesture: UnsafeMutableRawPointer, _ handler: @escaping @MainActor () -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, _, data in
            let handler: @MainActor () -> Void = Signal.handler(data)
            MainActor.assumeIsolated { handler() }
        }
        return connect(gesture, "end", thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `gboolean (*)(GtkWidget *, int x, int y, gboolean keyboard, GtkTooltip *, gpointer)`:
    /// query-tooltip.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, tooltip handler: @escaping @MainActor (OpaquePointer) -> Bool) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, gboolean, OpaquePointer?, UnsafeMutableRawPointer?) -> gboolean = { _, _, _, _, tooltip, data in
            guard let tooltip else { return 0 }
            let handler: @MainActor (OpaquePointer) -> Bool = Signal.handler(data)
            nonisolated(unsafe) let argument = tooltip
            return MainActor.assumeIsolated { handler(argument) } ? 1 : 0
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `GdkContentProvider *(*)(GtkDragSource *, double x, double y, gpointer)`: a drag's prepare.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, prepare handler: @escaping @MainActor () -> UnsafeMutableRawPointer?) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Double, Double, UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { _, _, _, data in
            let handler: @MainActor () -> UnsafeMutableRawPointer? = Signal.handler(data)
            nonisolated(unsafe) var provider: UnsafeMutableRawPointer?
            MainActor.assumeIsolated { provider = handler() }
            return provider
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `gboolean (*)(GtkDropTarget *, const GValue *, double x, double y, gpointer)`: a drop.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, drop handler: @escaping @MainActor (UnsafePointer<GValue>) -> Bool) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<GValue>?, Double, Double, UnsafeMutableRawPointer?) -> gboolean = { _, value, _, _, data in
            let handler: @MainActor (UnsafePointer<GValue>) -> Bool = Signal.handler(data)
            nonisolated(unsafe) let argument = value!
            return MainActor.assumeIsolated { handler(argument) } ? 1 : 0
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `gboolean (*)(GtkEventControllerScroll *, double dx, double dy, gpointer)`.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, delta handler: @escaping @MainActor (Double) -> Bool) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Double, Double, UnsafeMutableRawPointer?) -> gboolean = { _, _, dy, data in
            let handler: @MainActor (Double) -> Bool = Signal.handler(data)
            return MainActor.assumeIsolated { handler(dy) } ? 1 : 0
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `gboolean (*)(GtkEventControllerKey *, guint keyval, guint keycode, GdkModifierType, gpointer)`.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String,
                        key handler: @escaping @MainActor (_ keyval: UInt32, _ modifiers: UInt32) -> Bool) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean = { _, keyval, _, state, data in
            let handler: @MainActor (UInt32, UInt32) -> Bool = Signal.handler(data)
            return MainActor.assumeIsolated { handler(keyval, state.rawValue) } ? 1 : 0
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }
}

extension Signal {
    /// `void (*)(GObject *, double x, double y, gpointer)`: a drag's begin, update and end, a
    /// pointer's motion and enter.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String,
                               point handler: @escaping @MainActor (_ x: Double, _ y: Double) -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Double, Double, UnsafeMutableRawPointer?) -> Void = { _, x, y, data in
            let handler: @MainActor (Double, Double) -> Void = Signal.handler(data)
            MainActor.assumeIsolated { handler(x, y) }
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `void (*)(GtkDrawingArea *, int width, int height, gpointer)`: a drawing area's resize.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String,
                               size handler: @escaping @MainActor (_ width: Int, _ height: Int) -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutableRawPointer?) -> Void = { _, width, height, data in
            let handler: @MainActor (Int, Int) -> Void = Signal.handler(data)
            MainActor.assumeIsolated { handler(Int(width), Int(height)) }
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }
}

/// Adds CSS classes to a widget.
@MainActor public func style(_ widget: UnsafeMutablePointer<GtkWidget>, _ classes: String...) {
    for name in classes { gtk_widget_add_css_class(widget, name) }
}

/// Places `widget` over `overlay`'s child at one of its corners or edges (FILL covers it all).
/// `overlay` is a GtkOverlay, or a widget of our own laid out as one (`LaidOutAsOverlay`).
/// Decorations (badges, rings, captions) let clicks through to the photo unless `targetable`.
@MainActor public func place(_ widget: UnsafeMutablePointer<GtkWidget>, over overlay: UnsafeMutablePointer<GtkWidget>,
           _ horizontal: GtkAlign = GTK_ALIGN_FILL, _ vertical: GtkAlign = GTK_ALIGN_FILL, targetable: Bool = false) {
    gtk_widget_set_halign(widget, horizontal)
    gtk_widget_set_valign(widget, vertical)
    if !targetable { gtk_widget_set_can_target(widget, 0) }
    if g_type_check_instance_is_a(overlay.raw.assumingMemoryBound(to: GTypeInstance.self), gtk_overlay_get_type()) != 0 {
        gtk_overlay_add_overlay(overlay.opaque, widget)
    } else {
        gtk_widget_set_parent(widget, overlay)
    }
}

/// A menu button's tooltip covers the popover it opens (GTK shows it while the pointer rests on
/// the button): no tooltip while the popover is open.
@MainActor
public func hideTooltipWhileOpen(_ menuButton: UnsafeMutablePointer<GtkWidget>) {
    guard let popover = gtk_menu_button_get_popover(OpaquePointer(menuButton)) else { return }
    Signal.connect(UnsafeMutableRawPointer(popover), "show") { () -> Void in gtk_widget_set_has_tooltip(menuButton, 0) }
    Signal.connect(UnsafeMutableRawPointer(popover), "hide") { () -> Void in gtk_widget_set_has_tooltip(menuButton, 1) }
}
