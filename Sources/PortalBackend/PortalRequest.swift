// SPDX-License-Identifier: GPL-3.0-or-later
import Basics
import CGLib

/// One call being answered: its `org.freedesktop.impl.portal.Request` exported at the call's
/// handle while it is open, and the pending invocation, completed exactly once.
@MainActor
final class PortalRequest {
    let handle: String
    private var invocation: OpaquePointer?
    private var registration: guint = 0
    /// What the request's Close does (close the window, or pass the Close on); it calls `reply`
    /// with nil, or with the D-Bus error to answer the Close with.
    var onClose: ((@escaping @MainActor ((name: String, message: String)?) -> Void) -> Void)?
    /// Called once, when the call is answered.
    var onFinished: () -> Void = {}

    init(handle: String, invocation: OpaquePointer) {
        self.handle = handle
        self.invocation = invocation
    }

    var isOpen: Bool { invocation != nil }

    func export(on connection: OpaquePointer) throws(ChooserQuestionError) {
        let info = FileChooserPortal.interfaceInfo(FileChooserPortal.requestInterface)
        // (The handler holds the request weakly: the registration goes when the call is answered.)
        let box = Unmanaged.passRetained(CallHandler { [weak self] method, _, invocation in
            guard let self, method == "Close" else {
                g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(method)")
                return
            }
            self.close { failure in
                if let failure {
                    g_dbus_method_invocation_return_dbus_error(invocation, failure.name, failure.message)
                } else {
                    g_dbus_method_invocation_return_value(invocation, nil)
                }
            }
        }).toOpaque()
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = CallHandler.thunk
        var error: UnsafeMutablePointer<GError>?
        registration = g_dbus_connection_register_object(connection, handle, info, &vtable, box, CallHandler.release, &error)
        if let error {
            defer { g_error_free(error) }
            throw ChooserQuestionError(reason: "cannot export the request: \(String(cString: error.pointee.message))")
        }
        connectionForUnexport = connection
    }
    private var connectionForUnexport: OpaquePointer?

    /// The app (or the frontend, for an app that went away) closes the request.
    func close(reply: @escaping @MainActor ((name: String, message: String)?) -> Void) {
        guard isOpen, let onClose else {
            reply(isOpen ? nil : ("org.freedesktop.DBus.Error.UnknownObject", "the request at \(handle) was answered"))
            if isOpen { finish(2) }
            return
        }
        onClose(reply)
    }

    /// Answers the call (once; later answers are dropped) with `response` and `results`.
    func finish(_ response: UInt32, _ results: [(String, OpaquePointer)] = []) {
        finish(response, passing: Variants.dictionary(results))
    }

    /// Answers with a results dictionary as it is (one relayed from another backend: a new or
    /// floating reference, taken here).
    func finish(_ response: UInt32, passing results: OpaquePointer) {
        guard let invocation else {
            g_variant_unref(g_variant_ref_sink(results))
            return
        }
        self.invocation = nil
        // Unexported first: the frontend never closes an answered request.
        if registration != 0, let connection = connectionForUnexport { g_dbus_connection_unregister_object(connection, registration) }
        registration = 0
        Self.complete(invocation, response: response, results: results)
        onFinished()
    }

    static func complete(_ invocation: OpaquePointer, response: UInt32, results: OpaquePointer) {
        g_dbus_method_invocation_return_value(invocation, Variants.tuple([Variants.uint32(response), results]))
    }
}
