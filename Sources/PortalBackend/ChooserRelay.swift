// SPDX-License-Identifier: GPL-3.0-or-later
import Basics
import CGLib

/// The desktop's other FileChooser backend, which answers what Photopick does not (saving,
/// folders, any file): called with the same handle and options, its answer passed back as it
/// is, a Close passed on. As xdg-desktop-portal-gnome 47 relays to Nautilus.
@MainActor
public final class ChooserRelay {
    public enum Outcome {
        /// The other backend's answer: its response and results (a new reference).
        case answered(UInt32, OpaquePointer)
        case failed(String)
    }

    let connection: OpaquePointer
    /// The backends to ask, best first (their bus names); the first one present on the bus, or
    /// that the bus can start, answers.
    public let candidates: [String]

    public init(connection: OpaquePointer, candidates: [String]) {
        self.connection = connection
        self.candidates = candidates
    }

    /// The usual choosers, best first for the desktop in `XDG_CURRENT_DESKTOP`: GNOME's (GTK 4),
    /// GTK's, KDE's; KDE's first on KDE.
    public static func candidates(currentDesktop: String?) -> [String] {
        let names = ["gnome", "gtk", "kde"]
        let desktops = (currentDesktop ?? "").split(separator: ":").map { $0.lowercased() }
        let ordered = desktops.contains("kde") ? ["kde"] + names.filter { $0 != "kde" } : names
        return ordered.map { "org.freedesktop.impl.portal.desktop." + $0 }
    }

    /// The backend that answers now: the first candidate that is running or that the bus can start.
    private var chosen: String?

    /// Calls the other backend's `method` with the call's own parameters (the same handle), once
    /// it is known which backend that is, if `sending` still says so then (a Close may come first).
    func forward(_ method: String, parameters: OpaquePointer, sending: @escaping @MainActor () -> Bool,
                 completion: @escaping @MainActor (Outcome) -> Void) {
        nonisolated(unsafe) let parameters = g_variant_ref(parameters)!
        choose { [connection] name in
            defer { g_variant_unref(parameters) }
            guard sending() else { return }
            guard let name else {
                completion(.failed("no other FileChooser backend on the bus to answer \(method) (looked for \(self.candidates.joined(separator: ", ")))"))
                return
            }
            DBusCall.call(connection, destination: name, path: FileChooserPortal.objectPath, interface: FileChooserPortal.interface,
                          method: method, parameters: parameters, replyType: "(ua{sv})", timeout: DBusCall.noTimeout) { outcome in
                switch outcome {
                case .reply(let reply?):
                    defer { g_variant_unref(reply) }
                    let response = g_variant_get_child_value(reply, 0)!
                    defer { g_variant_unref(response) }
                    completion(.answered(g_variant_get_uint32(response), g_variant_get_child_value(reply, 1)))
                case .reply(nil):
                    completion(.failed("\(name) answered \(method) with nothing"))
                case .failure(let errorName, let message):
                    completion(.failed("\(name) failed \(method): \(errorName.map { "\($0): " } ?? "")\(message)"))
                }
            }
        }
    }

    /// Passes a Close on to the backend that holds the request; `reply` gets its error, if any.
    func close(_ handle: String, reply: @escaping @MainActor ((name: String, message: String)?) -> Void) {
        guard let name = chosen else {
            reply(("org.freedesktop.DBus.Error.UnknownObject", "no request at \(handle)"))
            return
        }
        DBusCall.call(connection, destination: name, path: handle, interface: FileChooserPortal.requestInterface, method: "Close",
                      parameters: nil, replyType: nil) { outcome in
            switch outcome {
            case .reply(let body):
                if let body { g_variant_unref(body) }
                reply(nil)
            case .failure(let errorName, let message):
                reply((errorName ?? "org.freedesktop.DBus.Error.Failed", message))
            }
        }
    }

    /// Finds the backend to relay to (once: the bus's services do not change under a session).
    private func choose(_ then: @escaping @MainActor (String?) -> Void) {
        if let chosen { return then(chosen) }
        DBusCall.call(connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                      method: "ListActivatableNames", parameters: nil, replyType: "(as)") { [connection] activatable in
            DBusCall.call(connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                          method: "ListNames", parameters: nil, replyType: "(as)") { running in
                let names = Set(Self.names(activatable) + Self.names(running))
                self.chosen = self.candidates.first { names.contains($0) }
                then(self.chosen)
            }
        }
    }

    private static func names(_ outcome: DBusCall.Outcome) -> [String] {
        guard case .reply(let reply?) = outcome else { return [] }
        defer { g_variant_unref(reply) }
        let list = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(list) }
        return (0..<g_variant_n_children(list)).map { index in OptionReader.string(child: Int(index), of: list) }
    }
}
