import CGLib
import GObjectSupport
import PhotoLibrary

/// Runs closures on the thread that runs the GLib main loop (the GTK thread). Workers post
/// results here; one idle source delivers them in slices of a few milliseconds, below GTK's
/// redraw priority, so a burst of finished thumbnails never delays a frame.
public final class MainLoopDispatcher: @unchecked Sendable {
    public static let shared = MainLoopDispatcher()

    private let lock = Lock()
    private var pending: [() -> Void] = []
    private var scheduled = false
    /// Milliseconds of work per main loop iteration.
    private let sliceSeconds = 0.004

    public init() {}

    public func post(_ work: @escaping () -> Void) {
        let schedule = lock.withLock { () -> Bool in
            pending.append(work)
            defer { scheduled = true }
            return !scheduled
        }
        guard schedule else { return }
        // From a worker: GObjectSupport's MainLoop.add may be called from any thread (a
        // MainLoopSource may not). The source holds the dispatcher until its work is done.
        MainLoop.add(priority: G_PRIORITY_DEFAULT_IDLE) { self.runSlice() }
    }

    /// Time spent running posted work on the GTK thread so far (the picker benchmark counts it
    /// as the picker's own time in a frame).
    public private(set) var timeSpent = TimeSpent()

    /// Runs posted work for one slice; true when more is waiting (keep the source).
    private func runSlice() -> Bool {
        timeSpent.measure { runPostedWork() }
    }

    private func runPostedWork() -> Bool {
        let deadline = monotonicSeconds() + sliceSeconds
        while true {
            let next = lock.withLock { () -> (() -> Void)? in
                if pending.isEmpty {
                    scheduled = false
                    return nil
                }
                return pending.removeFirst()
            }
            guard let next else { return false }
            next()
            if monotonicSeconds() >= deadline {
                return lock.withLock {
                    if pending.isEmpty { scheduled = false }
                    return !pending.isEmpty
                }
            }
        }
    }
}
