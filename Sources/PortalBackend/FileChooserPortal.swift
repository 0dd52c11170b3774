// SPDX-License-Identifier: GPL-3.0-or-later
import Basics
import CGLib
import GObjectSupport

/// What the portal backend shows: one picker window per question (PhotopickApp's
/// PortalPickerWindows, on the picker widget's public API). GTK stays on that side; this target
/// speaks D-Bus only.
@MainActor public protocol ChooserWindows: AnyObject {
    /// Opens a window for `question`, which calls `answer` once, when the person confirms or
    /// cancels. The closure returned closes the window without an answer (the request's Close).
    /// Throws the reason a window cannot open (no display).
    func open(_ question: ChooserQuestion, answer: @escaping @MainActor (ChooserAnswer) -> Void) throws(ChooserQuestionError) -> @MainActor () -> Void
}

/// What the person did in a picker window.
public enum ChooserAnswer: Sendable {
    /// Confirmed: `file://` URIs in pick order, the filter in use (an index into
    /// `offeredFilters.list`), and each choice's value.
    case picked(uris: [String], filter: Int?, choices: [(id: String, value: String)])
    case cancelled
}

/// `org.freedesktop.impl.portal.FileChooser` on a connection: xdg-desktop-portal calls it for
/// every app's "open a file" and "save a file". Each call gets a request (an exported
/// `org.freedesktop.impl.portal.Request` at the call's handle, which the frontend closes when the
/// app does or goes away) and exactly one answer: from a picker window, or from the desktop's
/// other chooser, relayed unchanged (ChooserRoute decides).
@MainActor
public final class FileChooserPortal {
    nonisolated public static let objectPath = "/org/freedesktop/portal/desktop"
    nonisolated public static let interface = "org.freedesktop.impl.portal.FileChooser"
    nonisolated public static let requestInterface = "org.freedesktop.impl.portal.Request"

    let connection: OpaquePointer
    let windows: ChooserWindows
    let relay: ChooserRelay
    /// The person's rule for an app (`portal.conf`), read at each call.
    public var rules: (String) -> ChooserRoute.AppRule? = { _ in nil }
    /// Called when the last open request is answered (the service then waits a minute and exits).
    public var onIdle: () -> Void = {}
    /// Called as each call is routed (the log, and tests through it).
    public var onRoute: (ChooserQuestion, ChooserRoute) -> Void = { _, _ in }

    private var requests: [String: PortalRequest] = [:]
    private var registration: guint = 0
    private var filter: guint = 0
    private let early = EarlyCloses()

    public var openRequests: Int { requests.count }

    public init(connection: OpaquePointer, windows: ChooserWindows, relay: ChooserRelay) {
        self.connection = connection
        self.windows = windows
        self.relay = relay
    }

    /// Exports the FileChooser object, and the filter that holds back a Close that arrives
    /// before its call was handled. Before the bus name is claimed: the frontend calls at once.
    public func export() throws(ChooserQuestionError) {
        let info = Self.interfaceInfo(Self.interface)
        let box = Unmanaged.passRetained(CallHandler { [weak self] method, parameters, invocation in
            self?.called(method, parameters: parameters, invocation: invocation)
        }).toOpaque()
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = CallHandler.thunk
        var error: UnsafeMutablePointer<GError>?
        registration = g_dbus_connection_register_object(connection, Self.objectPath, info, &vtable, box, CallHandler.release, &error)
        if let error {
            defer { g_error_free(error) }
            throw ChooserQuestionError(reason: "cannot export \(Self.objectPath): \(String(cString: error.pointee.message))")
        }
        early.deliver = { [weak self] message in self?.closeArrivedEarly(message) }
        filter = g_dbus_connection_add_filter(connection, EarlyCloses.filter, Unmanaged.passRetained(early).toOpaque(), { data in
            Unmanaged<EarlyCloses>.fromOpaque(data!).release()
        })
    }

    // MARK: Calls

    private func called(_ method: String, parameters: OpaquePointer, invocation: OpaquePointer) {
        guard let kind = ChooserQuestion.Method(rawValue: method) else {
            g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(method)")
            return
        }
        let handle = OptionReader.string(child: 0, of: parameters)
        defer { early.forget(handle) }
        let question: ChooserQuestion
        do {
            question = try ChooserQuestion(parameters: parameters, method: kind)
        } catch {
            DeveloperLog.say("portal: \(method) \(handle): \(error.reason); answered 2")
            PortalRequest.complete(invocation, response: 2, results: Variants.dictionary([]))
            return
        }
        guard requests[handle] == nil else {
            DeveloperLog.say("portal: \(method): a request is already open at \(handle); answered 2")
            PortalRequest.complete(invocation, response: 2, results: Variants.dictionary([]))
            return
        }
        // The Request is exported before anything else can happen: a Close may follow at once.
        let request = PortalRequest(handle: handle, invocation: invocation)
        do {
            try request.export(on: connection)
        } catch {
            DeveloperLog.say("portal: \(method) \(handle): \(error.reason); answered 2")
            request.finish(2)
            return
        }
        requests[handle] = request
        request.onFinished = { [weak self] in self?.ended(handle) }
        let route = ChooserRoute.decide(question, rule: rules(question.appID))
        onRoute(question, route)
        switch route {
        case .picker: openPicker(question, request: request)
        case .desktop(let why): forward(question, parameters: parameters, request: request, why: why)
        }
    }

    private func openPicker(_ question: ChooserQuestion, request: PortalRequest) {
        // Set first: making the window runs the main loop for a moment (the picker reads its
        // first screen), and a Close can be handled then.
        final class Opening { var close: (@MainActor () -> Void)?, closed = false }
        let opening = Opening()
        request.onClose = { [weak request] reply in
            if let close = opening.close { close() } else { opening.closed = true }
            request?.finish(2)
            reply(nil)
        }
        do {
            opening.close = try windows.open(question) { [weak request] answer in
                guard let request else { return }
                switch answer {
                case .cancelled:
                    request.finish(1)
                case .picked(let uris, let filter, let choices):
                    var results: [(String, OpaquePointer)] = [
                        ("uris", Variants.strings(uris)),
                        // Read-only documents for a sandboxed app (Debian's 1.16 carries the fix
                        // that makes false mean that): a picker never gives an app a photo to
                        // overwrite.
                        ("writable", Variants.boolean(false)),
                        ("choices", Variants.array(of: "(ss)", choices.map { Variants.tuple([Variants.string($0.id), Variants.string($0.value)]) })),
                    ]
                    let offered = question.offeredFilters.list
                    if let filter, offered.indices.contains(filter) { results.append(("current_filter", Variants.filter(offered[filter]))) }
                    request.finish(0, results)
                }
            }
        } catch {
            DeveloperLog.say("portal: OpenFile \(question.handle): \(error.reason); answered 2")
            request.finish(2)
            return
        }
        if opening.closed { opening.close?() }
    }

    /// To the desktop's other chooser, with the same handle: its answer is passed back as it is,
    /// and a Close goes to it.
    private func forward(_ question: ChooserQuestion, parameters: OpaquePointer, request: PortalRequest, why: String) {
        DeveloperLog.say("portal: \(question.method.rawValue) \(question.handle) for “\(question.appID)” to the desktop's chooser: \(why)")
        final class Progress {
            /// Called (false: closed before the other backend was called, nothing to pass on).
            var sent = false, closed = false
            /// A Close passed on and not answered yet: the other backend answers its call (2)
            /// before its Close, and the portal would give the app that answer as a Response.
            var closing = false
        }
        let progress = Progress()
        relay.forward(question.method.rawValue, parameters: parameters, sending: {
            progress.sent = !progress.closed
            return progress.sent
        }) { [weak request] outcome in
            guard let request, !progress.closing else {
                if case .answered(_, let results) = outcome { g_variant_unref(results) }
                return
            }
            switch outcome {
            case .answered(let response, let results): request.finish(response, passing: results)
            case .failed(let reason):
                DeveloperLog.say("portal: \(question.method.rawValue) \(question.handle): \(reason); answered 2")
                request.finish(2)
            }
        }
        request.onClose = { [relay, weak request] reply in
            guard progress.sent else {
                progress.closed = true
                request?.finish(2)
                return reply(nil)
            }
            progress.closing = true
            relay.close(question.handle) { failure in
                // The Close's answer first: the portal then drops the call's.
                reply(failure)
                request?.finish(2)
            }
        }
    }

    private func ended(_ handle: String) {
        requests[handle] = nil
        if requests.isEmpty { onIdle() }
    }

    // MARK: Close

    /// A Close the filter held back (it came before its call was handled): now after it.
    private func closeArrivedEarly(_ message: OpaquePointer) {
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        let path = String(cString: g_dbus_message_get_path(message))
        let reply: @MainActor ((name: String, message: String)?) -> Void = { [connection] failure in
            let answer = failure.map { g_dbus_message_new_method_error_literal(message, $0.name, $0.message) }
                ?? g_dbus_message_new_method_reply(message)
            g_dbus_connection_send_message(connection, answer, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(answer))
        }
        guard let request = requests[path] else {
            reply(("org.freedesktop.DBus.Error.UnknownObject", "no request at \(path)"))
            return
        }
        request.close(reply: reply)
    }

    // MARK: Introspection

    nonisolated static let introspection = """
        <node>
          <interface name="org.freedesktop.impl.portal.FileChooser">
            <method name="OpenFile">\(arguments)</method>
            <method name="SaveFile">\(arguments)</method>
            <method name="SaveFiles">\(arguments)</method>
          </interface>
          <interface name="org.freedesktop.impl.portal.Request">
            <method name="Close"/>
          </interface>
        </node>
        """
    nonisolated private static let arguments = """
        <arg type="o" name="handle" direction="in"/><arg type="s" name="app_id" direction="in"/>\
        <arg type="s" name="parent_window" direction="in"/><arg type="s" name="title" direction="in"/>\
        <arg type="a{sv}" name="options" direction="in"/>\
        <arg type="u" name="response" direction="out"/><arg type="a{sv}" name="results" direction="out"/>
        """
    nonisolated(unsafe) private static let node = g_dbus_node_info_new_for_xml(introspection, nil)!

    static func interfaceInfo(_ name: String) -> UnsafeMutablePointer<GDBusInterfaceInfo> {
        g_dbus_node_info_lookup_interface(node, name)!
    }
}

/// A registered object's method calls, to a Swift closure (its vtable's user data).
final class CallHandler {
    let body: @MainActor (String, OpaquePointer, OpaquePointer) -> Void
    init(_ body: @escaping @MainActor (String, OpaquePointer, OpaquePointer) -> Void) { self.body = body }

    // Method calls are dispatched in the context the object was registered from: the main loop's.
    static let thunk: GDBusInterfaceMethodCallFunc = { _, _, _, _, method, parameters, invocation, data in
        nonisolated(unsafe) let handler = Unmanaged<CallHandler>.fromOpaque(data!).takeUnretainedValue()
        nonisolated(unsafe) let parameters = parameters!, invocation = invocation!
        let method = String(cString: method!)
        MainActor.assumeIsolated { handler.body(method, parameters, invocation) }
    }
    static let release: GDestroyNotify = { data in Unmanaged<CallHandler>.fromOpaque(data!).release() }
}

/// xdg-desktop-portal#854: GDBus routes method calls on its worker thread, and a call to an
/// object path not registered yet is answered "Object does not exist" at once, while the call
/// that registers it (OpenFile) still waits for the main loop. An app that closes its request
/// right after asking would get an error and a window nobody closes. This filter runs on the
/// worker thread before routing: it notes each FileChooser call's handle until the call was
/// handled, and hands a Close for such a handle to the main loop, where it runs after the call.
final class EarlyCloses: @unchecked Sendable {  // `pending` is behind `lock`; `deliver` is the main thread's
    private let lock = Lock()
    private var pending: Set<String> = []
    /// Set and called on the main thread only.
    nonisolated(unsafe) var deliver: (@MainActor (OpaquePointer) -> Void)?

    func forget(_ handle: String) { _ = lock.withLock { pending.remove(handle) } }

    static let filter: GDBusMessageFilterFunction = { _, message, incoming, data in
        guard incoming != 0, let message, g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_METHOD_CALL,
              let interface = g_dbus_message_get_interface(message), let member = g_dbus_message_get_member(message),
              let path = g_dbus_message_get_path(message) else { return message }
        let closes = Unmanaged<EarlyCloses>.fromOpaque(data!).takeUnretainedValue()
        let interfaceName = String(cString: interface), memberName = String(cString: member)
        if interfaceName == FileChooserPortal.interface, ChooserQuestion.Method(rawValue: memberName) != nil,
           let body = g_dbus_message_get_body(message), g_variant_n_children(body) > 0 {
            let handle = g_variant_get_child_value(body, 0)!
            defer { g_variant_unref(handle) }
            if g_variant_is_of_type(handle, g_variant_type_checked_("o")) != 0 {
                let text = String(cString: g_variant_get_string(handle, nil))
                _ = closes.lock.withLock { closes.pending.insert(text) }
            }
            return message
        }
        guard interfaceName == FileChooserPortal.requestInterface, memberName == "Close",
              closes.lock.withLock({ closes.pending.contains(String(cString: path)) }) else { return message }
        // Kept (the filter owns the message): answered from the main loop.
        nonisolated(unsafe) let held = message
        MainLoop.add(priority: G_PRIORITY_DEFAULT) {
            if let deliver = closes.deliver { deliver(held) } else { g_object_unref(UnsafeMutableRawPointer(held)) }
            return false
        }
        return nil
    }
}
