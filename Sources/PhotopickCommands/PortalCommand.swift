// SPDX-License-Identifier: GPL-3.0-or-later
import Basics
import CGLib
import GObjectSupport
import Glibc
import PhotopickApp
import PortalBackend
import PhotoLibrary

// MARK: photopick portal

/// `photopick portal serve`: the FileChooser portal backend (started by D-Bus activation, as the
/// portal starts); `enable`, `disable`, `status`: the portal made to choose it, or not, and
/// which backend it chooses (PortalSetup).
@MainActor func portalCommand(_ arguments: [[UInt8]]) throws -> Int32 {
    let parser = portalOptions()
    guard let rest = try parseOrReport(parser, arguments) else { return ExitStatus.usage }
    guard let action = rest.first.map({ String(decoding: $0, as: UTF8.self) }) else {
        return usage(i18n("say what to do: photopick portal enable, disable or status (photopick portal --help)"))
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
    case "enable", "disable", "status":
        return PortalSwitch(restarts: !parser.flag("no-restart")).run(action)
    default:
        return usage(i18n("unknown action “{action}”: enable, disable, status or serve (photopick portal --help)", ["action": action]))
    }
}

func portalOptions() -> OptionParser {
    OptionParser(parameters: N_("enable|disable|status - the desktop's photo chooser"), summary: N_("enable: apps that ask the desktop (xdg-desktop-portal) to open photos or videos get the picker; other questions still go to the desktop's usual chooser.\ndisable: the desktop's usual chooser for everything again (what enable wrote is taken away).\nstatus: whether it is enabled, and which chooser the portal uses.\nserve: the portal's FileChooser backend itself, started by D-Bus."), options: [
        OptionParser.Option("no-restart", .flag, N_("With enable or disable: do not restart the portal (it reads its choosers as it starts)")),
        OptionParser.Option("replace", .flag, N_("Take the bus name from a running backend")),
        OptionParser.Option("idle-exit", .integer, N_("Exit after SECONDS with no request open (default: 60)"), argument: "SECONDS"),
    ])
}

/// The backend's process: the bus name first (the portal waits for it as it starts, and every
/// app's chooser with it), then GTK, then requests until a minute goes by with none.
@MainActor final class PortalService {
    static let busName = "org.freedesktop.impl.portal.desktop.photopick"
    static let idleSeconds = 60
    static let gtkDelayMilliseconds: guint = 1000

    let replace: Bool
    let idleSeconds: Int
    private var loop: OpaquePointer?
    private var portal: FileChooserPortal?
    private let preferences = PortalPreferences()
    private lazy var windows = PortalPickerWindows(preferences: preferences)
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
        portal.rules = { [preferences] in preferences.rule(for: $0) }
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
        // GTK starts a moment later (0.1-0.4 s of this thread): the portal, as it starts, reads
        // this backend's properties right after the name appears and waits for the answer (its
        // start took 0.16 s instead of 0.04 s while GTK started at once). A call that comes
        // first starts GTK itself.
        MainLoop.add(after: Self.gtkDelayMilliseconds, priority: G_PRIORITY_LOW) { [weak self] in
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

/// `photopick portal enable|disable|status`: PortalSetup for this person's session, and the
/// portal restarted (through systemd) so that it reads its choosers again.
@MainActor struct PortalSwitch {
    let restarts: Bool

    func run(_ action: String) -> Int32 {
        guard let version = PortalSwitch.installedVersion() else {
            warn(i18n("xdg-desktop-portal is not installed (/usr/libexec/xdg-desktop-portal)"))
            return ExitStatus.failure
        }
        let setup = PortalSetup(PortalSetup.Environment(version: version, desktops: PortalSetup.Environment.desktops(getenv("XDG_CURRENT_DESKTOP").map { String(cString: $0) }),
                                                        configHome: XDGDirectories.configHome, dataHome: XDGDirectories.dataHome))
        var output = StandardOutput()
        defer { output.flush() }
        switch action {
        case "enable":
            do {
                if setup.isEnabled { _ = try setup.disable() }
                let written = try setup.enable(try setup.changes(backendPortalFile: PortalSetup.installedPortalFile))
                output.write(i18n("Photopick is now the desktop's chooser for photos and videos (xdg-desktop-portal {version}). Written:", ["version": "\(version)"]) + "\n")
                for path in written { output.write("  \(path)\n") }
            } catch {
                warn(error.reason)
                return ExitStatus.failure
            }
        case "disable":
            do {
                let removed = try setup.disable()
                guard !removed.isEmpty else {
                    output.write(i18n("Photopick was not enabled: nothing to take away.") + "\n")
                    return ExitStatus.success
                }
                output.write(i18n("The desktop's usual chooser again. Taken away:") + "\n")
                for path in removed { output.write("  \(path)\n") }
            } catch {
                warn(error.reason)
                return ExitStatus.failure
            }
        default:
            output.write(status(setup))
            return ExitStatus.success
        }
        output.write(restart() + "\n")
        return ExitStatus.success
    }

    /// `xdg-desktop-portal --version` of the installed portal.
    static func installedVersion(executable: String = "/usr/libexec/xdg-desktop-portal") -> PortalVersion? {
        guard let text = spawnOutput([executable, "--version"]) else { return nil }
        return PortalVersion(text)
    }

    /// What `status` says: enabled or not, and the chooser the portal uses (the running one's,
    /// read from its own environment, or the one a portal starting now would use).
    func status(_ setup: PortalSetup) -> String {
        var text = (setup.isEnabled ? i18n("Photopick as the desktop's chooser for photos: enabled") : i18n("Photopick as the desktop's chooser for photos: not enabled")) + "\n"
        if let running = PortalSwitch.runningPortal() {
            let environment = running.environment
            let theirs = PortalSetup(PortalSetup.Environment(
                version: PortalSwitch.installedVersion(executable: "/proc/\(running.pid)/exe") ?? setup.environment.version,
                desktops: PortalSetup.Environment.desktops(environment["XDG_CURRENT_DESKTOP"]),
                configHome: environment["XDG_CONFIG_HOME"].map { FilePath($0) } ?? FilePath(environment["HOME"] ?? "/").appending(".config"),
                dataHome: environment["XDG_DATA_HOME"].map { FilePath($0) } ?? FilePath(environment["HOME"] ?? "/").appending(".local/share"),
                portalsFolder: environment["XDG_DESKTOP_PORTAL_DIR"].map { FilePath($0) } ?? FilePath("/usr/share/xdg-desktop-portal/portals")))
            text += i18n("The running portal (process {pid}, xdg-desktop-portal {version}) uses for FileChooser: {backend}",
                         ["pid": "\(running.pid)", "version": "\(theirs.environment.version)", "backend": theirs.chosenBackend() ?? i18n("none")]) + "\n"
            let now = PortalSetup(PortalSwitch.sessionEnvironment(setup, portalDir: environment["XDG_DESKTOP_PORTAL_DIR"]))
            if now.chosenBackend() != theirs.chosenBackend() {
                text += i18n("Restarted, it would use: {backend}", ["backend": now.chosenBackend() ?? i18n("none")]) + "\n"
            }
        } else {
            let now = PortalSetup(PortalSwitch.sessionEnvironment(setup, portalDir: nil))
            text += i18n("The portal is not running; as it starts it will use for FileChooser: {backend}", ["backend": now.chosenBackend() ?? i18n("none")]) + "\n"
        }
        return text
    }

    /// The environment a portal started now would have: 1.16's drop-in's folder when enabled.
    static func sessionEnvironment(_ setup: PortalSetup, portalDir: String?) -> PortalSetup.Environment {
        var environment = setup.environment
        if environment.version < PortalVersion(1, 17, 0) {
            environment.portalsFolder = setup.isEnabled ? setup.privatePortals
                : (portalDir.map { FilePath($0) }.flatMap { $0 == setup.privatePortals ? nil : $0 } ?? FilePath("/usr/share/xdg-desktop-portal/portals"))
        }
        return environment
    }

    /// The process that owns org.freedesktop.portal.Desktop on the session bus, and its environment.
    static func runningPortal() -> (pid: Int, environment: [String: String])? {
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, nil) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        let name = g_variant_new_tuple([g_variant_new_string("org.freedesktop.portal.Desktop")], 1)
        guard let reply = g_dbus_connection_call_sync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                       "GetConnectionUnixProcessID", name, nil, G_DBUS_CALL_FLAGS_NONE, 2000, nil, nil) else { return nil }
        defer { g_variant_unref(reply) }
        let value = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(value) }
        let pid = Int(g_variant_get_uint32(value))
        guard let bytes = readSmallFile(FilePath("/proc/\(pid)/environ")) else { return (pid, [:]) }
        var environment: [String: String] = [:]
        for entry in bytes.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        return (pid, environment)
    }

    /// The portal reads its choosers as it starts: restarted through systemd when the session
    /// runs it so; otherwise the sentence that says what to do.
    func restart() -> String {
        guard restarts else { return i18n("The portal reads its choosers as it starts: restart it (log out and back in) to use this.") }
        guard PortalSwitch.spawnStatus(["systemctl", "--user", "daemon-reload"]) == 0 else {
            return i18n("This session does not run the portal through systemd: log out and back in to use this.")
        }
        guard PortalSwitch.spawnStatus(["systemctl", "--user", "try-restart", "xdg-desktop-portal.service"]) == 0 else {
            return i18n("The portal could not be restarted: log out and back in to use this.")
        }
        return i18n("The portal was restarted: apps asking from now on get this.")
    }

    static func spawnOutput(_ arguments: [String]) -> String? {
        var output: UnsafeMutablePointer<CChar>?
        var status: Int32 = 0
        let spawned = withArgv(arguments) { argv in
            g_spawn_sync(nil, argv, nil, G_SPAWN_SEARCH_PATH, nil, nil, &output, nil, &status, nil)
        }
        defer { g_free(output) }
        guard spawned != 0, status == 0, let output else { return nil }
        return String(cString: output)
    }

    static func spawnStatus(_ arguments: [String]) -> Int32 {
        var status: Int32 = -1
        let spawned = withArgv(arguments) { argv in
            g_spawn_sync(nil, argv, nil, GSpawnFlags(G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_STDOUT_TO_DEV_NULL.rawValue | G_SPAWN_STDERR_TO_DEV_NULL.rawValue),
                         nil, nil, nil, nil, &status, nil)
        }
        return spawned != 0 ? status : -1
    }

    private static func withArgv<R>(_ arguments: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        return argv.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}
