// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib
import Basics

/// Runs closures on the thread that runs the GLib main loop (the GTK thread). Workers post
/// results here; one idle source delivers them in slices of a few milliseconds, below GTK's
/// redraw priority, so a burst of finished thumbnails never delays a frame. The work runs on the
/// main actor (the GTK thread): a posted closure is checked as main-actor code. (Not through
/// `Task { @MainActor in }` or the main queue: the GLib loop does not drain libdispatch's.)
public final class MainLoopDispatcher: @unchecked Sendable {  // `pending` is behind `lock`
    public static let shared = MainLoopDispatcher()

    private let lock = Lock()
    private var pending: [@MainActor @Sendable () -> Void] = []
    private var scheduled = false
    /// Milliseconds of work per main loop iteration.
    private let sliceSeconds = 0.004

    public init() {}

    public func post(_ work: @escaping @MainActor @Sendable () -> Void) {
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

    /// Time spent running posted work on the GTK thread so far, while `measuresTime` (the
    /// picker benchmark counts it as the picker's own time in a frame; nothing else pays for
    /// the clock reads).
    @MainActor public private(set) var timeSpent = TimeSpent()
    @MainActor public var measuresTime = false

    /// Runs posted work for one slice; true when more is waiting (keep the source).
    @MainActor private func runSlice() -> Bool {
        measuresTime ? timeSpent.measure { runPostedWork() } : runPostedWork()
    }

    @MainActor private func runPostedWork() -> Bool {
        let deadline = monotonicSeconds() + sliceSeconds
        while true {
            let next = lock.withLock { () -> (@MainActor @Sendable () -> Void)? in
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
