// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

extension Array where Element == String {
    /// A NULL-terminated C array of the strings, valid during `body`.
    public func withCStringArray<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let array = copies.map { UnsafePointer($0) } + [nil]
        return array.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// The strings of a NULL-terminated C array (none for NULL), as GLib's string vectors are.
    public init(cStrings vector: UnsafePointer<UnsafePointer<CChar>?>?) {
        self = []
        guard var cursor = vector else { return }
        while let string = cursor.pointee {
            append(String(cString: string))
            cursor += 1
        }
    }
}
