// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib

// GObject signals from Swift: g_signal_connect is a macro, so each signal signature gets one
// non-capturing C thunk that finds the Swift closure in the user data. The closure box is
// released by GLib's destroy notify when the connection or the object goes away, so whatever a
// handler captures lives exactly as long as the connection.
//
// The core (`connect(_:_:thunk:handler:)` and `handler(_:)`) is generic; the signatures GLib and
// GIO need are below, and a toolkit module adds its own (PickerUI: keys, gestures, drops) the same
// way. A handler that GTK may call after its Swift owner is gone captures the owner weakly.
//
// GTK emits signals on the GTK thread, which is the main thread, so handlers are `@MainActor`
// closures and each thunk enters them through `MainActor.assumeIsolated`: the compiler checks what
// a handler touches, and an emission from any other thread traps instead of racing.

class AnyClosureBox {}

final class ClosureBox<Handler>: AnyClosureBox {
    let handler: Handler
    init(_ handler: Handler) { self.handler = handler }
}

public enum Signal {
    /// Connects `thunk` (a non-capturing `@convention(c)` function cast to GCallback whose last
    /// parameter is the user data) with `handler` boxed as its user data. The box is released when
    /// the handler is disconnected or the instance is finalized, on the GTK thread: what the
    /// handler captures goes where it lived (a main-actor object's deinit runs at once).
    /// With `after`, the handler runs after the default handler and those connected without it.
    @discardableResult
    public static func connect<Handler>(_ instance: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
                                        thunk: GCallback, handler: Handler) -> gulong {
        g_signal_connect_data(instance, signal, thunk, Unmanaged.passRetained(ClosureBox(handler)).toOpaque(), { data, _ in
            MainActor.preconditionIsolated()
            Unmanaged<AnyClosureBox>.fromOpaque(data!).release()
        }, after ? G_CONNECT_AFTER : GConnectFlags(rawValue: 0))
    }

    /// The handler a thunk received as user data (the type must be the one connected).
    public static func handler<Handler>(_ data: UnsafeMutableRawPointer?) -> Handler {
        Unmanaged<ClosureBox<Handler>>.fromOpaque(data!).takeUnretainedValue().handler
    }

    /// `void (*)(GObject *self, gpointer data)`: clicked, activate, destroy …
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
                               _ handler: @escaping @MainActor () -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
            let handler: @MainActor () -> Void = Signal.handler(data)
            MainActor.assumeIsolated { handler() }
        }
        return connect(instance, signal, after: after, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `void (*)(GObject *self, GObject *argument, gpointer data)`: a list item factory's setup,
    /// bind and unbind; notify (the argument is the GParamSpec).
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, object handler: @escaping @MainActor (UnsafeMutableRawPointer) -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, argument, data in
            let handler: @MainActor (UnsafeMutableRawPointer) -> Void = Signal.handler(data)
            // A raw pointer is not Sendable; it does not leave this thread (assumeIsolated runs
            // the closure here, now).
            nonisolated(unsafe) let argument = argument!
            MainActor.assumeIsolated { handler(argument) }
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `void (*)(GObject *self, guint position, gpointer data)`: a list view's activate.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, position handler: @escaping @MainActor (Int) -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, guint, UnsafeMutableRawPointer?) -> Void = { _, position, data in
            let handler: @MainActor (Int) -> Void = Signal.handler(data)
            MainActor.assumeIsolated { handler(Int(position)) }
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `void (*)(GListModel *self, guint position, guint removed, guint added, gpointer data)`:
    /// a list model's items-changed.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String,
                               itemsChanged handler: @escaping @MainActor (_ position: Int, _ removed: Int, _ added: Int) -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, guint, guint, guint, UnsafeMutableRawPointer?) -> Void = { _, position, removed, added, data in
            let handler: @MainActor (Int, Int, Int) -> Void = Signal.handler(data)
            MainActor.assumeIsolated { handler(Int(position), Int(removed), Int(added)) }
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `void (*)(GObject *self, int response, gpointer data)`: a native dialog's response.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, response handler: @escaping @MainActor (Int32) -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?) -> Void = { _, response, data in
            let handler: @MainActor (Int32) -> Void = Signal.handler(data)
            MainActor.assumeIsolated { handler(response) }
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }

    /// `gboolean (*)(GObject *self, gpointer data)`: a window's close-request.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, stop handler: @escaping @MainActor () -> Bool) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
            let handler: @MainActor () -> Bool = Signal.handler(data)
            return MainActor.assumeIsolated { handler() } ? 1 : 0
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }
}

/// Keeps a Swift object alive as long as a GObject, under `key`. The object is released where
/// GTK finalizes its objects, the GTK thread (a release anywhere else traps).
public func attach(_ object: AnyObject, to instance: UnsafeMutableRawPointer, key: String) {
    g_object_set_data_full(instance.assumingMemoryBound(to: GObject.self), key, Unmanaged.passRetained(object).toOpaque()) { data in
        MainActor.preconditionIsolated()
        Unmanaged<AnyObject>.fromOpaque(data!).release()
    }
}

/// The Swift object attached to a GObject under `key`, if it is a `T`.
public func attached<T: AnyObject>(_ type: T.Type, on instance: UnsafeMutableRawPointer?, key: String) -> T? {
    guard let instance, let data = g_object_get_data(instance.assumingMemoryBound(to: GObject.self), key) else { return nil }
    return Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as? T
}

extension OpaquePointer {
    public var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
    public func cast<T>(_: T.Type = T.self) -> UnsafeMutablePointer<T> { UnsafeMutableRawPointer(self).assumingMemoryBound(to: T.self) }
}

extension UnsafeMutablePointer {
    /// The same object seen as another GObject type (GTK's cast macros do not import).
    public func cast<T>(_: T.Type = T.self) -> UnsafeMutablePointer<T> { UnsafeMutableRawPointer(self).assumingMemoryBound(to: T.self) }
    public var opaque: OpaquePointer { OpaquePointer(self) }
    public var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
}
