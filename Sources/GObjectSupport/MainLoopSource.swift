// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib

/// Adding sources to the default main context with a Swift closure as the body. GLib releases the
/// closure through the source's destroy notify, whether it ran or was removed, so nothing leaks.
public enum MainLoop {
    private final class Body {
        let run: @MainActor () -> Bool
        init(_ run: @escaping @MainActor () -> Bool) { self.run = run }
    }

    // The default main context is run by the GTK thread (the main thread): the body is entered
    // on the main actor, and a body run anywhere else traps instead of racing.
    private static let fire: GSourceFunc = { data in
        let run = Unmanaged<Body>.fromOpaque(data!).takeUnretainedValue().run
        return MainActor.assumeIsolated { run() } ? 1 : 0
    }
    private static let release: GDestroyNotify = { data in
        MainActor.preconditionIsolated()
        Unmanaged<Body>.fromOpaque(data!).release()
    }

    /// Adds an idle source (after `milliseconds` when given, a timeout) whose body runs on the
    /// thread that runs the default main context (the GTK thread, so on the main actor), again
    /// and again while it returns true. Safe to call from any thread (g_idle_add_full and
    /// g_timeout_add_full are); what the body captures is handed over to the GTK thread, hence
    /// `@Sendable`. Returns the source id. Prefer `MainLoopSource`, which removes the source
    /// when its owner goes.
    @discardableResult
    public static func add(after milliseconds: guint? = nil, priority: Int32 = G_PRIORITY_DEFAULT_IDLE,
                           _ body: @escaping @MainActor @Sendable () -> Bool) -> guint {
        let data = Unmanaged.passRetained(Body(body)).toOpaque()
        if let milliseconds { return g_timeout_add_full(priority, milliseconds, fire, data, release) }
        return g_idle_add_full(priority, fire, data, release)
    }

    /// Runs `body` on the GTK thread each time the process receives `signal` (SIGTERM, SIGINT,
    /// SIGHUP…: GLib's handler only wakes the loop, so the body may do anything), while it
    /// returns true. Returns the source id, for g_source_remove.
    @discardableResult
    public static func onSignal(_ signal: Int32, _ body: @escaping @MainActor @Sendable () -> Bool) -> guint {
        let data = Unmanaged.passRetained(Body(body)).toOpaque()
        return g_unix_signal_add_full(G_PRIORITY_HIGH, signal, fire, data, release)
    }
}

/// A timeout or idle on the GLib main loop that owns its closure. Dropping the source (its owner
/// goes) or calling `cancel` removes it: the closure never runs for an owner that is gone, and
/// nothing leaks when it never fires. The GTK thread's (the main actor's).
@MainActor
public final class MainLoopSource {
    private var id: guint = 0

    /// Whether a run is scheduled and has not happened yet (or a repeating source is running).
    public var isPending: Bool { id != 0 }

    public init() {}

    // The owner goes on the GTK thread: run at once there, trap anywhere else. (Not `isolated
    // deinit`: from a GLib callback the runtime queues that to the main actor's executor, which
    // ran it on a libdispatch thread.)
    deinit { MainActor.assumeIsolated { cancel() } }

    /// Runs `body` once, after `milliseconds`, or when the loop is idle when nil. Replaces a run
    /// that is still pending.
    public func schedule(after milliseconds: guint? = nil, priority: Int32 = G_PRIORITY_DEFAULT_IDLE, _ body: @escaping @MainActor () -> Void) {
        start(milliseconds, priority) { source in
            // Not pending while the body runs: it may schedule the next run itself.
            source?.id = 0
            body()
            return false
        }
    }

    /// Like `schedule`, but keeps a pending run instead of replacing it (coalescing).
    public func scheduleUnlessPending(after milliseconds: guint? = nil, priority: Int32 = G_PRIORITY_DEFAULT_IDLE, _ body: @escaping @MainActor () -> Void) {
        guard !isPending else { return }
        schedule(after: milliseconds, priority: priority, body)
    }

    /// Runs `body` every `milliseconds` (or whenever the loop is idle when nil) while it returns
    /// true. Replaces a pending run.
    public func repeating(every milliseconds: guint? = nil, priority: Int32 = G_PRIORITY_DEFAULT_IDLE, _ body: @escaping @MainActor () -> Bool) {
        start(milliseconds, priority) { source in
            let running = source?.id
            let again = body()
            // (unless the body scheduled another run meanwhile)
            if !again, let source, source.id == running { source.id = 0 }
            return again
        }
    }

    private func start(_ milliseconds: guint?, _ priority: Int32, _ body: @escaping @MainActor (MainLoopSource?) -> Bool) {
        cancel()
        // The source holds this object weakly: it must not keep its owner alive, and the owner's
        // deinit removes it.
        weak let source = self
        id = MainLoop.add(after: milliseconds, priority: priority) { body(source) }
    }

    public func cancel() {
        if id != 0 { g_source_remove(id) }
        id = 0
    }
}
