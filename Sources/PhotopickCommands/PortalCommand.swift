// SPDX-License-Identifier: GPL-3.0-or-later
import Basics
import CGLib
import GObjectSupport
import Glibc
import PhotopickApp
import PortalBackend

// MARK: photopick portal

/// `photopick portal serve`: the FileChooser portal backend (started by D-Bus activation, as the
/// portal starts). `enable`, `disable` and `status` come with the next step of issue 39.
@MainActor func portalCommand(_ arguments: [[UInt8]]) throws -> Int32 {
    let parser = portalOptions()
    guard let rest = try parseOrReport(parser, arguments) else { return ExitStatus.usage }
    guard let action = rest.first.map({ String(decoding: $0, as: UTF8.self) }) else {
        return usage(i18n("say what to do: photopick portal serve (photopick portal --help)"))
    }
    guard rest.count == 1 else { return usage(unexpectedArgument(rest[1])) }
    switch action {
    case "serve":
        var idle = PortalService.idleSeconds
        if let seconds = parser.integer("idle-exit") {
            guard seconds >= 1 else { return usage(i18n("--idle-exit must be 1 second or more")) }
            idle = seconds
        }
        return PortalService(replace: parser.flag("replace"), idleSeconds: idle).run()
    default:
        return usage(i18n("unknown action “{action}”: serve (photopick portal --help)", ["action": action]))
    }
}

func portalOptions() -> OptionParser {
    OptionParser(parameters: N_("serve - the desktop's photo chooser"), summary: N_("serve: the FileChooser backend of xdg-desktop-portal, started by D-Bus activation: apps that ask to open photos or videos get the picker, other questions go to the desktop's usual chooser."), options: [
        OptionParser.Option("replace", .flag, N_("Take the bus name from a running backend")),
        OptionParser.Option("idle-exit", .integer, N_("Exit after SECONDS with no request open (default: 60)"), argument: "SECONDS"),
    ])
}

/// The backend's process: the bus name first (the portal waits for it as it starts, and every
/// app's chooser with it), then GTK, then requests until a minute goes by with none.
@MainActor final class PortalService {
    static let busName = "org.freedesktop.impl.portal.desktop.photopick"
    static let idleSeconds = 60

    let replace: Bool
    let idleSeconds: Int
    private var loop: OpaquePointer?
    private var portal: FileChooserPortal?
    private let windows = PortalPickerWindows()
    private let idleTimer = MainLoopSource()
    private var claimed = false
    /// Another backend took the name (`--replace`): answer what is open, then go.
    private var replaced = false
    private var status = ExitStatus.success

    init(replace: Bool, idleSeconds: Int) {
        self.replace = replace
        self.idleSeconds = idleSeconds
    }

    func run() -> Int32 {
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            warn(i18n("cannot reach the session bus: {reason}", ["reason": error.map { String(cString: $0.pointee.message) } ?? ""]))
            if let error { g_error_free(error) }
            return ExitStatus.failure
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        let desktop = getenv("XDG_CURRENT_DESKTOP").map { String(cString: $0) }
        let portal = FileChooserPortal(connection: connection, windows: windows,
                                       relay: ChooserRelay(connection: connection, candidates: ChooserRelay.candidates(currentDesktop: desktop)))
        self.portal = portal
        portal.onRoute = { [weak self] question, route in
            self?.idleTimer.cancel()
            if case .picker = route { DeveloperLog.say("portal: \(question.method.rawValue) \(question.handle) for “\(question.appID)”: the picker") }
        }
        portal.onIdle = { [weak self] in self?.becameIdle() }
        do {
            try portal.export()
        } catch {
            warn(error.reason)
            return ExitStatus.failure
        }
        loop = g_main_loop_new(nil, 0)
        defer { g_main_loop_unref(loop) }
        let flags = GBusNameOwnerFlags(G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT.rawValue | (replace ? G_BUS_NAME_OWNER_FLAGS_REPLACE.rawValue : 0))
        let owner = NameOwner(acquired: { [weak self] in self?.acquired() }, lost: { [weak self] in self?.lost() })
        let id = g_bus_own_name_on_connection(connection, Self.busName, flags, NameOwner.acquiredThunk, NameOwner.lostThunk,
                                              Unmanaged.passRetained(owner).toOpaque(), NameOwner.release)
        becameIdle()
        g_main_loop_run(loop)
        g_bus_unown_name(id)
        return status
    }

    private func acquired() {
        claimed = true
        StartupTrace.mark("portal: \(Self.busName) claimed")
        // GTK starts now that the portal has its backend (0.2-0.4 s): the first call finds it
        // ready, or waits in the queue meanwhile.
        MainLoop.add { [weak self] in
            self?.windows.prepare()
            StartupTrace.mark("portal: GTK ready")
            return false
        }
    }

    private func lost() {
        guard claimed else {
            warn(i18n("the bus name {name} is taken by another program (photopick portal serve --replace takes it)", ["name": Self.busName]))
            status = ExitStatus.failure
            g_main_loop_quit(loop)
            return
        }
        replaced = true
        DeveloperLog.say("portal: \(Self.busName) lost (another backend took it, or the bus went away); exiting once the open requests are answered")
        becameIdle()
    }

    private func becameIdle() {
        guard portal?.openRequests ?? 0 == 0 else { return }
        if replaced { return g_main_loop_quit(loop) }
        idleTimer.schedule(after: guint(idleSeconds) * 1000, priority: G_PRIORITY_DEFAULT) { [weak self] in
            guard let self, self.portal?.openRequests ?? 0 == 0 else { return }
            g_main_loop_quit(self.loop)
        }
    }
}

/// g_bus_own_name's callbacks, to Swift closures.
private final class NameOwner {
    let acquired: @MainActor () -> Void
    let lost: @MainActor () -> Void
    init(acquired: @escaping @MainActor () -> Void, lost: @escaping @MainActor () -> Void) {
        self.acquired = acquired
        self.lost = lost
    }

    static let acquiredThunk: GBusNameAcquiredCallback = { _, _, data in
        nonisolated(unsafe) let owner = Unmanaged<NameOwner>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { owner.acquired() }
    }
    static let lostThunk: GBusNameLostCallback = { _, _, data in
        nonisolated(unsafe) let owner = Unmanaged<NameOwner>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { owner.lost() }
    }
    static let release: GDestroyNotify = { data in Unmanaged<NameOwner>.fromOpaque(data!).release() }
}
