// SPDX-License-Identifier: GPL-3.0-or-later
import CGLib

/// An asynchronous D-Bus method call whose reply comes back on the main loop, as a Swift closure.
enum DBusCall {
    /// A call's outcome: the reply's body (a new reference, nil for none), or GLib's error
    /// (its D-Bus name when it came from the other side, and its message).
    enum Outcome {
        case reply(OpaquePointer?)
        case failure(name: String?, message: String)
    }

    private final class Completion {
        let body: @MainActor (Outcome) -> Void
        init(_ body: @escaping @MainActor (Outcome) -> Void) { self.body = body }
    }

    /// No timeout: a call waits for a person choosing a file. (`-1` is GDBus's 25 s.)
    static let noTimeout = Int32.max

    @MainActor
    static func call(_ connection: OpaquePointer, destination: String, path: String, interface: String, method: String,
                     parameters: OpaquePointer?, replyType: String?, timeout: Int32 = -1,
                     completion: @escaping @MainActor (Outcome) -> Void) {
        let data = Unmanaged.passRetained(Completion(completion)).toOpaque()
        let type = replyType.map { g_variant_type_new($0) }
        defer { type.map { g_variant_type_free($0) } }
        g_dbus_connection_call(connection, destination, path, interface, method, parameters, type ?? nil,
                               G_DBUS_CALL_FLAGS_NONE, timeout, nil, { source, result, data in
            let completion = Unmanaged<Completion>.fromOpaque(data!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>?
            let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
            let outcome: Outcome
            if let error {
                let remote = g_dbus_error_get_remote_error(error)
                let name = remote.map { String(cString: $0) }
                g_free(remote)
                if remote != nil { g_dbus_error_strip_remote_error(error) }
                outcome = .failure(name: name, message: String(cString: error.pointee.message))
                g_error_free(error)
            } else {
                outcome = .reply(reply)
            }
            // (The reply arrives in the context the call was made from: the main loop's.)
            nonisolated(unsafe) let delivered = outcome
            MainActor.assumeIsolated { completion.body(delivered) }
        }, data)
    }
}
