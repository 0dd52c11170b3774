// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib

/// How a GObject pointer comes to the code that keeps it (GObject Introspection's terms).
public enum Transfer {
    /// The caller received a reference (a `*_new` that is not floating, a `get_item`): it is taken.
    case full
    /// The caller received no reference (a getter): one is added.
    case none
    /// A floating reference (a new GtkWidget, any GInitiallyUnowned): it is sunk, which takes the
    /// floating reference, or adds one when the object is no longer floating.
    case floating
}

/// Owns one reference to a GObject: taken or added at `init` as the call site says, dropped once
/// in `deinit`. Any GObject pointer kept beyond one function is held by one of these (or by a
/// widget tree that owns it).
public final class GObjectRef: @unchecked Sendable {
    /// The object; valid as long as this reference lives.
    public let pointer: UnsafeMutableRawPointer

    public init(_ pointer: UnsafeMutableRawPointer, transfer: Transfer) {
        self.pointer = pointer
        switch transfer {
        case .full: break
        case .none: g_object_ref(pointer)
        case .floating: g_object_ref_sink(pointer)
        }
    }

    public convenience init(_ pointer: OpaquePointer, transfer: Transfer) {
        self.init(UnsafeMutableRawPointer(pointer), transfer: transfer)
    }

    public convenience init<T>(_ pointer: UnsafeMutablePointer<T>, transfer: Transfer) {
        self.init(UnsafeMutableRawPointer(pointer), transfer: transfer)
    }

    /// Nil for a nil pointer (a constructor that failed).
    public convenience init?(_ pointer: UnsafeMutableRawPointer?, transfer: Transfer) {
        guard let pointer else { return nil }
        self.init(pointer, transfer: transfer)
    }

    deinit { g_object_unref(pointer) }

    /// The object as a typed pointer (derivable GObject types import as typed pointers).
    public func pointer<T>(as _: T.Type = T.self) -> UnsafeMutablePointer<T> { pointer.assumingMemoryBound(to: T.self) }

    /// The object as an opaque pointer (final GObject types import as OpaquePointer).
    public var opaque: OpaquePointer { OpaquePointer(pointer) }
}

/// A GObject pointer a Swift object keeps, with the reference that keeps it valid: for widgets a
/// view hands to a host (header-bar buttons), which the host may pack, unpack or drop at any time.
/// A new widget's floating reference is sunk; anything else gets a reference added.
///
///     @Owned var confirmButton: UnsafeMutablePointer<GtkWidget>
///     ...
///     confirmButton = gtk_button_new_with_label("Add")
///
/// Widgets a view keeps inside its own tree need no reference of their own: the view lives as
/// long as its root widget (it is attached to it), and the root holds its children.
@propertyWrapper
public struct Owned<Object> {
    private let reference: GObjectRef
    public var wrappedValue: UnsafeMutablePointer<Object> { reference.pointer(as: Object.self) }

    public init(wrappedValue: UnsafeMutablePointer<Object>) {
        reference = GObjectRef(wrappedValue, transfer: .floating)
    }
}
