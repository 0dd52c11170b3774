import CGtk

// GTK signals from Swift: g_signal_connect is a macro, so each signal signature gets one
// non-capturing C thunk that finds the Swift closure in the user data. The closure box is
// released by GLib's destroy notify when the connection or the object goes away.

class AnyClosureBox {}

final class ClosureBox<Handler>: AnyClosureBox {
    let handler: Handler
    init(_ handler: Handler) { self.handler = handler }
}

private func connect<Handler>(_ instance: UnsafeMutableRawPointer, _ signal: String, _ thunk: GCallback, _ handler: Handler) -> gulong {
    g_signal_connect_data(instance, signal, thunk, Unmanaged.passRetained(ClosureBox(handler)).toOpaque(), { data, _ in
        Unmanaged<AnyClosureBox>.fromOpaque(data!).release()
    }, GConnectFlags(rawValue: 0))
}

private func box<Handler>(_ data: UnsafeMutableRawPointer?) -> Handler {
    Unmanaged<ClosureBox<Handler>>.fromOpaque(data!).takeUnretainedValue().handler
}

enum Signal {
    /// `void (*)(GObject *self, gpointer data)`: clicked, activate, destroy …
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping () -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
            (box(data) as () -> Void)()
        }
        return PickerUI.connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), handler)
    }

    /// `void (*)(GObject *self, GObject *argument, gpointer data)`: a list item factory's setup,
    /// bind and unbind; notify (the argument is the GParamSpec).
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, object handler: @escaping (UnsafeMutableRawPointer) -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, argument, data in
            (box(data) as (UnsafeMutableRawPointer) -> Void)(argument!)
        }
        return PickerUI.connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), handler)
    }

    /// `void (*)(GObject *self, guint position, gpointer data)`: a list view's activate.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, position handler: @escaping (Int) -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, guint, UnsafeMutableRawPointer?) -> Void = { _, position, data in
            (box(data) as (Int) -> Void)(Int(position))
        }
        return PickerUI.connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), handler)
    }

    /// `void (*)(GObject *self, int response, gpointer data)`: a native dialog's response.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, response handler: @escaping (Int32) -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?) -> Void = { _, response, data in
            (box(data) as (Int32) -> Void)(response)
        }
        return PickerUI.connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), handler)
    }

    /// `gboolean (*)(GtkWidget *, int x, int y, gboolean keyboard, GtkTooltip *, gpointer)`:
    /// query-tooltip.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, tooltip handler: @escaping (OpaquePointer) -> Bool) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, gboolean, OpaquePointer?, UnsafeMutableRawPointer?) -> gboolean = { _, _, _, _, tooltip, data in
            guard let tooltip else { return 0 }
            return (box(data) as (OpaquePointer) -> Bool)(tooltip) ? 1 : 0
        }
        return PickerUI.connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), handler)
    }

    /// `gboolean (*)(GObject *self, gpointer data)`: a window's close-request.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, stop handler: @escaping () -> Bool) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
            (box(data) as () -> Bool)() ? 1 : 0
        }
        return PickerUI.connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), handler)
    }

    /// `void (*)(GtkGestureClick *, int n_press, double x, double y, gpointer)`.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, presses handler: @escaping (Int) -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, Double, Double, UnsafeMutableRawPointer?) -> Void = { _, presses, _, _, data in
            (box(data) as (Int) -> Void)(Int(presses))
        }
        return PickerUI.connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), handler)
    }

    /// `GdkContentProvider *(*)(GtkDragSource *, double x, double y, gpointer)`: a drag's prepare.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, prepare handler: @escaping () -> UnsafeMutableRawPointer?) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Double, Double, UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { _, _, _, data in
            (box(data) as () -> UnsafeMutableRawPointer?)()
        }
        return PickerUI.connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), handler)
    }

    /// `gboolean (*)(GtkDropTarget *, const GValue *, double x, double y, gpointer)`: a drop.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, drop handler: @escaping (UnsafePointer<GValue>) -> Bool) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<GValue>?, Double, Double, UnsafeMutableRawPointer?) -> gboolean = { _, value, _, _, data in
            (box(data) as (UnsafePointer<GValue>) -> Bool)(value!) ? 1 : 0
        }
        return PickerUI.connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), handler)
    }

    /// `gboolean (*)(GtkEventControllerScroll *, double dx, double dy, gpointer)`.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, delta handler: @escaping (Double) -> Bool) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Double, Double, UnsafeMutableRawPointer?) -> gboolean = { _, _, dy, data in
            (box(data) as (Double) -> Bool)(dy) ? 1 : 0
        }
        return PickerUI.connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), handler)
    }

    /// `gboolean (*)(GtkEventControllerKey *, guint keyval, guint keycode, GdkModifierType, gpointer)`.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String,
                        key handler: @escaping (_ keyval: UInt32, _ modifiers: UInt32) -> Bool) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean = { _, keyval, _, state, data in
            (box(data) as (UInt32, UInt32) -> Bool)(keyval, state.rawValue) ? 1 : 0
        }
        return PickerUI.connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), handler)
    }
}

/// Keeps a Swift object alive as long as a GObject, under `key`.
func attach(_ object: AnyObject, to instance: UnsafeMutableRawPointer, key: String) {
    g_object_set_data_full(instance.assumingMemoryBound(to: GObject.self), key, Unmanaged.passRetained(object).toOpaque()) { data in
        Unmanaged<AnyObject>.fromOpaque(data!).release()
    }
}

func attached<T: AnyObject>(_ type: T.Type, on instance: UnsafeMutableRawPointer?, key: String) -> T? {
    guard let instance, let data = g_object_get_data(instance.assumingMemoryBound(to: GObject.self), key) else { return nil }
    return Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as? T
}

extension OpaquePointer {
    var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
    func cast<T>(_: T.Type = T.self) -> UnsafeMutablePointer<T> { UnsafeMutableRawPointer(self).assumingMemoryBound(to: T.self) }
}

extension UnsafeMutablePointer {
    /// The same object seen as another GObject type (GTK's cast macros do not import).
    func cast<T>(_: T.Type = T.self) -> UnsafeMutablePointer<T> { UnsafeMutableRawPointer(self).assumingMemoryBound(to: T.self) }
    var opaque: OpaquePointer { OpaquePointer(self) }
    var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
}

/// Adds CSS classes to a widget.
func style(_ widget: UnsafeMutablePointer<GtkWidget>, _ classes: String...) {
    for name in classes { gtk_widget_add_css_class(widget, name) }
}
