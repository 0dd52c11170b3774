// SPDX-License-Identifier: GPL-3.0-or-later
import CGLib

/// Building the GVariants of an answer (GLib's g_variant_new takes a format and varargs, which
/// Swift cannot call). Each returns a floating reference, which the container or the D-Bus call
/// it is given to takes.
enum Variants {
    static func string(_ text: String) -> OpaquePointer { g_variant_new_string(text) }
    static func boolean(_ value: Bool) -> OpaquePointer { g_variant_new_boolean(value ? 1 : 0) }
    static func uint32(_ value: UInt32) -> OpaquePointer { g_variant_new_uint32(value) }

    static func tuple(_ children: [OpaquePointer]) -> OpaquePointer {
        var children: [OpaquePointer?] = children
        return g_variant_new_tuple(&children, gsize(children.count))
    }

    /// An array of `type` (the element type, needed when the array is empty).
    static func array(of type: String, _ children: [OpaquePointer]) -> OpaquePointer {
        let elementType = g_variant_type_new(type)
        defer { g_variant_type_free(elementType) }
        var children: [OpaquePointer?] = children
        return g_variant_new_array(elementType, &children, gsize(children.count))
    }

    /// `a{sv}`.
    static func dictionary(_ entries: [(String, OpaquePointer)]) -> OpaquePointer {
        array(of: "{sv}", entries.map { key, value in g_variant_new_dict_entry(string(key), g_variant_new_variant(value)) })
    }

    static func strings(_ texts: [String]) -> OpaquePointer { array(of: "s", texts.map(string)) }

    /// A filter as the portal writes it, `(sa(us))`.
    static func filter(_ filter: ChooserQuestion.Filter) -> OpaquePointer {
        tuple([string(filter.name), array(of: "(us)", filter.rules.map { rule in
            switch rule {
            case .pattern(let pattern): return tuple([uint32(0), string(pattern)])
            case .mimeType(let type): return tuple([uint32(1), string(type)])
            }
        })])
    }
}
