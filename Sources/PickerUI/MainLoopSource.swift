import CGtk

/// A one-shot timeout or idle on the GLib main loop that owns its closure. Dropping the source
/// (its owner goes) or calling `cancel` removes it: the closure never runs for an owner that is
/// gone, and nothing leaks when it never fires.
final class MainLoopSource {
    private var id: guint = 0

    /// Whether a run is scheduled and has not happened yet.
    var isPending: Bool { id != 0 }

    private final class Box {
        weak var source: MainLoopSource?
        let body: () -> Void
        init(_ source: MainLoopSource, _ body: @escaping () -> Void) {
            self.source = source
            self.body = body
        }
    }

    init() {}

    deinit { cancel() }

    /// Runs `body` once, after `milliseconds`, or when the loop is idle when nil. Replaces a run
    /// that is still pending.
    func schedule(after milliseconds: guint? = nil, priority: Int32 = G_PRIORITY_DEFAULT_IDLE, _ body: @escaping () -> Void) {
        cancel()
        let box = Unmanaged.passRetained(Box(self, body)).toOpaque()
        let fire: GSourceFunc = { data in
            let box = Unmanaged<Box>.fromOpaque(data!).takeUnretainedValue()
            box.source?.id = 0
            box.body()
            return 0  // G_SOURCE_REMOVE
        }
        let release: GDestroyNotify = { data in Unmanaged<Box>.fromOpaque(data!).release() }
        if let milliseconds {
            id = g_timeout_add_full(priority, milliseconds, fire, box, release)
        } else {
            id = g_idle_add_full(priority, fire, box, release)
        }
    }

    /// Like `schedule`, but keeps a pending run instead of replacing it (coalescing).
    func scheduleUnlessPending(after milliseconds: guint? = nil, priority: Int32 = G_PRIORITY_DEFAULT_IDLE, _ body: @escaping () -> Void) {
        guard !isPending else { return }
        schedule(after: milliseconds, priority: priority, body)
    }

    func cancel() {
        if id != 0 { g_source_remove(id) }
        id = 0
    }
}
