// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib

/// Registers a static GType derived from `parent`. `Instance` and `Class` must be C structs
/// (declared in a C header, such as CGLib's shim) whose first member is the parent's instance and
/// class struct: GLib allocates and reads them with C's layout, which a Swift struct does not
/// promise. Call it once, from the initialiser of a global or static `let`.
public func registerStaticType<Instance, Class>(_ name: String, parent: GType, instance _: Instance.Type, class _: Class.Type,
                                                 classInit: GClassInitFunc? = nil) -> GType {
    precondition(MemoryLayout<Instance>.size <= Int(UInt16.max) && MemoryLayout<Class>.size <= Int(UInt16.max))
    var info = GTypeInfo()
    info.class_size = guint16(MemoryLayout<Class>.size)
    info.class_init = classInit
    info.instance_size = guint16(MemoryLayout<Instance>.size)
    let type = g_type_register_static(parent, name, &info, GTypeFlags(rawValue: 0))
    precondition(type != 0, "\(name) could not be registered")
    return type
}

/// The instance struct of a GObject, when it is a `T` (its C struct).
public func instance<T>(_ object: UnsafeMutableRawPointer, of type: GType, as _: T.Type = T.self) -> UnsafeMutablePointer<T>? {
    guard g_type_check_instance_is_a(object.assumingMemoryBound(to: GTypeInstance.self), type) != 0 else { return nil }
    return object.assumingMemoryBound(to: T.self)
}
